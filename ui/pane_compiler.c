/* pane_compiler.c: compiler output over the whole run: every nvcc, ptxas,
 * Triton, cpp_extension, C++ and Python diagnostic line found in the tool
 * results, grouped by event, errors and warnings coloured and counted. The
 * rules are data/compiler_patterns.txt (src/compilerlog.c reads them). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compilerlog.h"
#include "draw.h"
#include "evstyle.h"
#include "pane.h"
#include "run.h"
#include "theme.h"
#include "util.h"

struct pane_compiler {
	struct compilerlog *rules;
	struct compilerlog_report rep;
	char *error;              /* why there are no rules (owned, untrusted path inside) */
	unsigned char *has_error; /* per event: an error-level line */
	size_t nev, cap;
	/* what the lines built hold, so that a growing run appends its new
	 * hits' rows and lays out only the heading again (a full build at each
	 * slice that a big run is read in made reading it quadratic) */
	size_t head_n;            /* rows of the heading (counts, errors by tool) */
	size_t built_hits;        /* hits laid out; 0: none (the placeholder shown) */
	size_t built_last;        /* the event of the last group laid out */
};

static void pane_compiler_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_compiler *c = xcalloc(1, sizeof *c);
	char *path = compilerlog_default_path();
	p->state = c;
	c->nev = cx->run->nev;
	c->cap = c->nev + 1;
	c->has_error = xcalloc(c->cap, 1);
	if (!path) {
		c->error = xstrdup("data/compiler_patterns.txt not found "
		                   "(installed with kbtui; KBTUI_DATADIR names another data directory)");
		return;
	}
	c->rules = compilerlog_new();
	if (compilerlog_load(c->rules, path, &c->error) < 0) {
		compilerlog_free(c->rules);
		c->rules = NULL;
	} else {
		compilerlog_scan_run(c->rules, cx->run, &c->rep);
		for (size_t i = 0; i < c->rep.n; i++)
			if (c->rep.hits[i].level == CL_ERROR && c->rep.hits[i].ev < c->nev)
				c->has_error[c->rep.hits[i].ev] = 1;
	}
	free(path);
}

static int pane_compiler_append(struct pane *p, struct pane_ctx *cx);

/* Only the events from `from` on scanned again: the hits of the old ones
 * stay (a hit's event never decreases along the report). */
static int pane_compiler_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	struct pane_compiler *c = p->state;
	const struct run *r = cx->run;
	if (!c->rules)
		return 0;
	while (c->rep.n && c->rep.hits[c->rep.n - 1].ev >= from) {
		if (c->rep.n <= c->built_hits)  /* a hit laid out is gone: built again */
			c->built_hits = 0;
		struct compilerlog_hit *h = &c->rep.hits[--c->rep.n];
		c->rep.count[h->level]--;
		free(h->text);
	}
	if (from > c->nev)
		from = c->nev;
	c->has_error = xgrow(c->has_error, &c->cap, r->nev + 1, 1);
	memset(c->has_error + from, 0, r->nev + 1 - from);
	c->nev = r->nev;
	size_t k = c->rep.n;
	for (size_t i = from; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if (e->kind == EV_TOOL_RESULT || e->kind == EV_ERROR)
			compilerlog_scan_text(c->rules, e->text, i, &c->rep);
	}
	for (; k < c->rep.n; k++)
		if (c->rep.hits[k].level == CL_ERROR && c->rep.hits[k].ev < c->nev)
			c->has_error[c->rep.hits[k].ev] = 1;
	return pane_compiler_append(p, cx);
}

static void pane_compiler_free(struct pane *p)
{
	struct pane_compiler *c = p->state;
	if (!c)
		return;
	compilerlog_report_free(&c->rep);
	compilerlog_free(c->rules);
	free(c->has_error);
	free(c->error);
	free(c);
	p->state = NULL;
}

static int pane_compiler_role(enum compilerlog_level l)
{
	return l == CL_ERROR ? RL_CC_ERROR : l == CL_WARNING ? RL_CC_WARNING : RL_CC_NOTE;
}

/* "errors by tool: nvcc 3, python 2" over the run, the tools in the order
 * of their first error: one pass over the hits, the tools few. */
static void pane_compiler_by_tool(struct tlines *L, const struct pane_compiler *c, int width)
{
	struct tally {
		const char *tool;
		size_t n;
	} *t = NULL;
	size_t nt = 0, cap = 0;
	for (size_t i = 0; i < c->rep.n; i++) {
		const char *tool = c->rep.hits[i].tool;
		size_t k = 0;
		if (c->rep.hits[i].level != CL_ERROR)
			continue;
		while (k < nt && strcmp(t[k].tool, tool))
			k++;
		if (k == nt) {
			t = xgrow(t, &cap, nt + 1, sizeof *t);
			t[nt++] = (struct tally){ tool, 0 };
		}
		t[k].n++;
	}
	if (nt) {
		struct sbuf b;
		sbuf_init(&b);
		sbuf_adds(&b, "errors by tool:");
		for (size_t k = 0; k < nt; k++) {
			char *name = draw_safe(t[k].tool);
			sbuf_addf(&b, "%s %s %zu", k ? "," : "", name, t[k].n);
			free(name);
		}
		tlines_wrap(L, b.s, b.len, RL_NORMAL, width);
		sbuf_free(&b);
	}
	free(t);
}

/* The heading of an event's group: which call produced the output. */
static void pane_compiler_group(struct tlines *L, const struct run *run, size_t ev, int width)
{
	const struct event *e = &run->ev[ev];
	const struct event *call = e->link >= 0 && (size_t)e->link < run->nev ? &run->ev[e->link] : NULL;
	char *name = draw_safe(call ? call->name : ev_kind_name(e->kind));
	/* one row: the command cut, not wrapped */
	char *what = call ? evstyle_call_summary(run, call, width > 40 ? (size_t)width - 30 : 10) : xstrdup("");
	L->ev = TLINE_NO_EVENT;
	tlines_push(L, "", 0, RL_NORMAL);
	L->ev = ev;
	tlines_head(L, RL_TOOL, width, "event %zu  %s %s", ev + 1, name, what);
	free(name);
	free(what);
}

/* The heading: the counts over the run and the errors by tool. */
static void pane_compiler_head(struct tlines *L, const struct pane_compiler *c, int width)
{
	L->ev = TLINE_NO_EVENT;
	tlines_head(L, RL_PANE, width, "over the run: errors %zu, warnings %zu, notes %zu (%zu rules)",
	            c->rep.count[CL_ERROR], c->rep.count[CL_WARNING], c->rep.count[CL_NOTE],
	            compilerlog_nrules(c->rules));
	pane_compiler_by_tool(L, c, width);
}

/* The rows of the hits not laid out yet, appended. */
static void pane_compiler_rows(struct pane_compiler *c, const struct run *run, struct tlines *L, int width)
{
	L->ev = c->built_last;
	for (size_t i = c->built_hits; i < c->rep.n; i++) {
		const struct compilerlog_hit *h = &c->rep.hits[i];
		if (h->ev != c->built_last)
			pane_compiler_group(L, run, h->ev, width);
		c->built_last = h->ev;
		char *tool = draw_safe(h->tool), *text = draw_safe(h->text);
		char *row = xasprintf("  %-8s %-7s %s", tool, compilerlog_level_name(h->level), text);
		tlines_wrap_hang(L, row, strlen(row), pane_compiler_role(h->level), width, 19);  /* under the text */
		free(row);
		free(text);
		free(tool);
	}
	c->built_hits = c->rep.n;
}

static void pane_compiler_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_compiler *c = p->state;
	struct tlines *L = &p->lines;
	c->built_hits = 0;
	c->built_last = TLINE_NO_EVENT;
	L->ev = TLINE_NO_EVENT;
	if (!c->rules) {
		char *e = draw_safe(c->error);
		tlines_head(L, RL_ERROR, width, "no compiler patterns: %s", e);
		free(e);
		return;
	}
	pane_compiler_head(L, c, width);
	c->head_n = L->n;
	if (!c->rep.n) {
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_DIM, width, "(no compiler or traceback output in this run's tool results)");
		return;
	}
	pane_compiler_rows(c, cx->run, L, width);
}

/* After a grow that kept every hit laid out: the heading laid out again in
 * place (when it takes as many rows as before) and the new hits' rows
 * appended; 0 when the pane must be built again. */
static int pane_compiler_append(struct pane *p, struct pane_ctx *cx)
{
	struct pane_compiler *c = p->state;
	struct tlines *L = &p->lines, head = { 0 };
	if (p->built_w < 0 || !c->built_hits || c->head_n > L->n)
		return 0;
	pane_compiler_head(&head, c, p->built_w);
	if (head.n != c->head_n) {
		tlines_free(&head);
		return 0;
	}
	for (size_t i = 0; i < head.n; i++) {
		free(L->v[i].s);
		L->v[i] = head.v[i];
	}
	free(head.v);
	pane_compiler_rows(c, cx->run, L, p->built_w);
	return 1;
}

/* The rows of the selected event (or of the next one that has rows; in
 * the four-pane layout, of the latest one at or before it). */
static void pane_compiler_follow(struct pane *p, struct pane_ctx *cx)
{
	pane_follow_sel(p, cx);
}

/* "so far 2/5 errors 0/1 warnings": the selected event against the run. */
static void pane_compiler_status(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_compiler *c = p->state;
	size_t err = 0, warn = 0;
	for (size_t i = 0; i < c->rep.n && c->rep.hits[i].ev <= cx->sel; i++) {
		err += c->rep.hits[i].level == CL_ERROR;
		warn += c->rep.hits[i].level == CL_WARNING;
	}
	snprintf(buf, n, "so far %zu/%zu errors %zu/%zu warnings", err, c->rep.count[CL_ERROR], warn,
	         c->rep.count[CL_WARNING]);
}

static int pane_compiler_has(struct pane *p, size_t ev)
{
	struct pane_compiler *c = p->state;
	return ev < c->nev && c->has_error[ev];
}

const struct pane_ops pane_compiler_ops = {
	.name = "compiler output",
	.init = pane_compiler_init,
	.free = pane_compiler_free,
	.grow = pane_compiler_grow,
	.build = pane_compiler_build,
	.status = pane_compiler_status,
	.follow = pane_compiler_follow,
	.has = pane_compiler_has,
	.act = pane_scroll_act,
};
