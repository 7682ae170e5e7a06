/* pane_detail.c: the selected event in full: text, or a tool call with its
 * arguments, its linked result and the diff of the file it wrote. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "draw.h"
#include "evstyle.h"
#include "flags.h"
#include "jsonx.h"
#include "pane.h"
#include "run.h"
#include "search.h"
#include "theme.h"
#include "util.h"

/* cJSON_Print with two-space indents: its tabs are all layout (JSON strings
 * escape theirs), and tab stops of 8 waste a narrow pane. Owned. */
static char *pane_detail_json(const cJSON *c)
{
	char *js = cJSON_Print(c);
	struct sbuf b;
	int bol = 1;
	sbuf_init(&b);
	for (const char *p = js ? js : ""; *p; p++) {
		if (*p == '\t')
			sbuf_adds(&b, bol ? "  " : " ");
		else
			sbuf_addc(&b, *p);
		bol = *p == '\n' || (bol && *p == '\t');
	}
	free(js);
	return sbuf_detach(&b);
}

/* A "key: value" row of safe text from untrusted key and value. */
static void pane_detail_kv(struct tlines *L, const char *key, const char *raw, int width)
{
	char *sv = draw_safe(raw);
	char *row = xasprintf("  %s: %s", key, sv);
	tlines_wrap(L, row, strlen(row), RL_NORMAL, width);
	free(row);
	free(sv);
}

/* One member of the arguments object. */
static void pane_detail_arg(struct tlines *L, const struct event *e, const cJSON *c, int width)
{
	char *key = draw_safe(c->string);
	if (cJSON_IsString(c) && c->valuestring) {
		const char *v = c->valuestring;
		int lines = 1;
		for (const char *q = v; *q; q++)
			lines += *q == '\n';
		/* a file body the diff below already shows */
		if (e->diff && lines > 1 && (!strcmp(c->string, "content") || !strcmp(c->string, "old_string") ||
		                              !strcmp(c->string, "new_string") || !strcmp(c->string, "patch"))) {
			tlines_head(L, RL_DIM, width, "  %s: (%d lines; see the diff)", key, lines);
		} else if (lines > 1) {
			tlines_head(L, RL_KEY, width, "  %s:", key);
			tlines_text(L, v, RL_NORMAL, width, 4, 0);
		} else {
			pane_detail_kv(L, key, v, width);
		}
	} else if (cJSON_IsArray(c) || cJSON_IsObject(c)) {
		char *js = pane_detail_json(c);
		tlines_head(L, RL_KEY, width, "  %s:", key);
		tlines_text(L, js, RL_NORMAL, width, 4, 0);
		free(js);
	} else {
		char *js = cJSON_PrintUnformatted(c);
		pane_detail_kv(L, key, js, width);
		free(js);
	}
	free(key);
}

/* Tool arguments: "key: value" per member of a JSON object, multi-line
 * strings indented below their key; anything else as JSON. */
static void pane_detail_args(struct tlines *L, const struct event *e, int width)
{
	/* jx_parse: a \u0000 in a value reads as U+2400, so what follows it
	 * is shown (cJSON would end the string there and hide the rest) */
	cJSON *o = e->args ? jx_parse(e->args, strlen(e->args)) : NULL;
	if (!o || !cJSON_IsObject(o)) {
		char *s = o ? cJSON_Print(o) : NULL;
		tlines_text(L, s ? s : e->args, RL_NORMAL, width, 2, 0);
		free(s);
		cJSON_Delete(o);
		return;
	}
	for (const cJSON *c = o->child; c; c = c->next)
		pane_detail_arg(L, e, c, width);
	cJSON_Delete(o);
}

static void pane_detail_call(struct tlines *L, const struct run *run, const struct event *e, int width)
{
	/* rendered on first use; fills e->diff, which the arguments read too */
	const char *diff = run_event_diff(run, (size_t)(e - run->ev));
	char *name = draw_safe(e->name), *id = draw_safe(e->call_id);
	tlines_head(L, RL_TOOL, width, "%s", name);
	if (e->call_id)
		tlines_head(L, RL_DIM, width, "call id %s", id);
	free(name);
	free(id);
	if (e->path) {
		char *p = draw_safe(e->path);
		tlines_head(L, RL_NORMAL, width, "path: %s", p);
		free(p);
	}
	if (e->args) {
		tlines_head(L, RL_PANE, width, "arguments");
		pane_detail_args(L, e, width);
	}
	tlines_push(L, "", 0, RL_NORMAL);
	if (e->link >= 0 && (size_t)e->link < run->nev) {
		const struct event *r = &run->ev[e->link];
		tlines_head(L, r->is_error ? RL_ERROR : RL_PANE, width, "result (event %d)%s", e->link + 1,
		            r->is_error ? ": error" : "");
		tlines_text(L, r->text, r->is_error ? RL_ERROR : RL_NORMAL, width, 2, 0);
	} else {
		tlines_head(L, RL_DIM, width, "no result");
	}
	if (diff) {
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_PANE, width, "diff");
		tlines_text(L, diff, RL_NORMAL, width, 0, TL_DIFF);
	}
}

static void pane_detail_result(struct tlines *L, const struct run *run, const struct event *e, int width)
{
	if (e->link >= 0 && (size_t)e->link < run->nev) {
		const struct event *c = &run->ev[e->link];
		char *n = draw_safe(c->name), *a = evstyle_call_summary(run, c, 200);
		tlines_head(L, RL_TOOL, width, "result of event %d: %s %s", e->link + 1, n, a);
		free(n);
		free(a);
		tlines_push(L, "", 0, RL_NORMAL);
	}
	if (e->summary && *e->summary) {
		char *s = draw_safe(e->summary);
		tlines_head(L, e->is_error ? RL_ERROR : RL_PANE, width, "%s", s);
		free(s);
		tlines_push(L, "", 0, RL_NORMAL);
	}
	tlines_text(L, e->text, e->is_error ? RL_ERROR : RL_NORMAL, width, 0, 0);
}

/* A flagged event: the rule that tripped and why, above all else (the rule
 * file and the matched text are not trusted: tlines_text makes them safe). */
static void pane_detail_flag(struct tlines *L, struct pane_ctx *cx, int width)
{
	const struct flag_hit *h = cx->flags ? flag_list_find(cx->flags, cx->sel) : NULL;
	if (!h && cx->flags && !flag_list_known(cx->flags, cx->sel)) {
		tlines_text(L, "flags: evaluating", RL_DIM, width, 0, 0);
		tlines_push(L, "", 0, RL_NORMAL);
	}
	if (!h)
		return;
	char *s = xasprintf("! FLAG %s: %s", flag_rule_label(cx->flag_rules, h->rule), flag_rule_why(cx->flag_rules, h->rule));
	tlines_text(L, s, RL_WARN, width, 0, 0);
	free(s);
	s = xasprintf("%s, line %d: %s", flag_where_name(h->where), h->line, h->text);
	tlines_text(L, s, RL_DIM, width, 2, 0);
	free(s);
	tlines_push(L, "", 0, RL_NORMAL);
}

/* What a live run streams after its last event (cx->stream), under it:
 * each piece's kind, then its text or, for a tool call, its name and
 * arguments as far as they came. */
static void pane_detail_stream(struct tlines *L, const struct pane_ctx *cx, int width)
{
	L->ev = TLINE_NO_EVENT;  /* rows of no event: pane_detail_follow knows them so */
	for (size_t k = 0; k < cx->nstream; k++) {
		const struct event *e = &cx->stream[k];
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_DIM, width, "streaming: %s, not recorded yet", ev_kind_name(e->kind));
		if (e->kind == EV_TOOL_CALL) {
			char *n = draw_safe(e->name);
			tlines_head(L, RL_TOOL, width, "%s", n);
			free(n);
			tlines_text(L, e->args, RL_NORMAL, width, 2, 0);
		} else {
			tlines_text(L, e->text, evstyle_role(e->kind), width, 0, 0);
		}
	}
}

static void pane_detail_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct tlines *L = &p->lines;
	if (cx->run->nev == 0) {
		tlines_head(L, RL_DIM, width, "(no events in this transcript)");
		return;
	}
	const struct event *e = &cx->run->ev[cx->sel];
	L->ev = cx->sel;
	pane_detail_flag(L, cx, width);
	tlines_head(L, evstyle_role(e->kind), width, "%s  line %d%s%s%s", ev_kind_name(e->kind), e->line,
	            e->sidechain ? "  subagent" : "", e->redacted ? "  redacted" : "",
	            evstyle_is_error(e) ? "  error" : "");
	tlines_push(L, "", 0, RL_NORMAL);
	switch (e->kind) {
	case EV_TOOL_CALL:
		pane_detail_call(L, cx->run, e, width);
		break;
	case EV_TOOL_RESULT:
		pane_detail_result(L, cx->run, e, width);
		break;
	case EV_USAGE:
		tlines_head(L, RL_NORMAL, width, "input        %lld", e->tok_in);
		tlines_head(L, RL_NORMAL, width, "output       %lld", e->tok_out);
		tlines_head(L, RL_NORMAL, width, "cache read   %lld", e->tok_cache_read);
		tlines_head(L, RL_NORMAL, width, "cache write  %lld", e->tok_cache_write);
		tlines_head(L, RL_NORMAL, width, "reasoning    %lld", e->tok_reasoning);
		break;
	default:
		if (e->name) {
			char *n = draw_safe(e->name);
			tlines_head(L, RL_DIM, width, "%s", n);
			free(n);
		}
		if (e->redacted && (!e->text || !*e->text))
			tlines_head(L, RL_DIM, width, "(the harness hid this reasoning: redacted, encrypted or summary only)");
		tlines_text(L, e->text, evstyle_role(e->kind) == RL_ERROR ? RL_ERROR : RL_NORMAL, width, 0, 0);
	}
	if (cx->nstream && cx->sel + 1 == cx->run->nev)  /* the last event: what a live run streams after it */
		pane_detail_stream(L, cx, width);
}

static void pane_detail_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	(void)p;
	if (cx->run->nev)
		snprintf(buf, n, " event %zu  %s", cx->sel + 1, ev_kind_name(cx->run->ev[cx->sel].kind));
	else
		snprintf(buf, n, " event");
}

/* With a search on, a new event opens at its first match. What a live run
 * streams under the last event is followed to its last row, as a tail: it
 * is what changes. */
static void pane_detail_follow(struct pane *p, struct pane_ctx *cx)
{
	struct search *hl = cx->search;
	size_t so, eo;
	size_t n = p->lines.n, h = p->h > 0 ? (size_t)p->h : 1;
	if (cx->nstream && n && p->lines.v[n - 1].ev == TLINE_NO_EVENT) {
		if (n > p->top + h)  /* its last row below those shown: the pane follows it */
			p->top = n - h;
		return;
	}
	if (!hl)
		return;
	for (size_t i = 0; i < p->lines.n; i++) {
		const char *s = p->lines.v[i].s;
		if (search_next(hl, s, strlen(s), 0, &so, &eo) && eo > so) {
			p->top = i > 2 ? i - 2 : 0;
			return;
		}
	}
}

const struct pane_ops pane_detail_ops = {
	.name = "detail",
	.per_event = 1,
	.build = pane_detail_build,
	.title = pane_detail_title,
	.follow = pane_detail_follow,
	.act = pane_scroll_act,
};
