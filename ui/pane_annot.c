/* pane_annot.c: the run's annotation (annotations/RUN_ID.yaml): verdict,
 * summary, implication and the quotes. j/k select a quote; Enter goes to
 * the event that wrote its lines (src/quote.h). The file is read again
 * whenever it changed on disk, so a verdict key or A shows at once.
 * Under it, the judge's suggestions (suggested.json, kbtui judge), marked
 * apart from rule flags and verdicts; J and r decide the one at the
 * selected event (pane_annot_decide). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annot.h"
#include "annotate.h"
#include "draw.h"
#include "pane.h"
#include "quote.h"
#include "run.h"
#include "suggested.h"
#include "tag.h"
#include "theme.h"
#include "util.h"

struct pane_annot {
	char *path;                 /* the annotation file (owned), NULL: not a dataset run */
	long long mtime;            /* of the version read, 0: none */
	struct annot_version ver;   /* the version read */
	unsigned gen;               /* the tagging session's generation it was read at */
	struct tag *tag;            /* borrowed, NULL: none */
	long run;                   /* the dataset run */
	struct annot *a;            /* owned, NULL: none or unreadable */
	char *error;                /* why it could not be read (owned) */
	struct quote *q;            /* the quotes (owned array; strings a's) */
	size_t nq, cur;             /* how many, the selected one */
	size_t *row;                /* the first row of each quote in the lines (owned) */
	/* the judge's suggestions beside the transcript */
	char *sg_path;              /* owned, NULL: the run has no transcript path */
	struct annot_version sg_ver;/* of the version read */
	struct suggested sg;        /* owned */
	char *sg_err;               /* why it could not be read (owned), NULL: read or absent */
};

static struct pane_annot *pa_of(struct pane *p)
{
	return p->state;
}

static void pane_annot_drop(struct pane_annot *s)
{
	annot_free(s->a);
	free(s->q);
	free(s->error);
	free(s->row);
	s->a = NULL;
	s->q = NULL;
	s->error = NULL;
	s->row = NULL;
	s->nq = 0;
}

static int pane_annot_load_annot(struct pane_annot *s);

/* Reads suggested.json again when it changed since; 1 when it did. */
static int pane_annot_load_suggested(struct pane_annot *s)
{
	struct annot_version v;
	memset(&v, 0, sizeof v);
	if (s->sg_path)
		annot_version_get(s->sg_path, &v);
	if (annot_version_same(&v, &s->sg_ver))
		return 0;
	s->sg_ver = v;
	suggested_free(&s->sg);
	free(s->sg_err);
	s->sg_err = NULL;
	if (v.exists && suggested_load(s->sg_path, &s->sg, &s->sg_err) < 0)
		suggested_free(&s->sg);
	return 1;
}

/* Reads the files again when they changed since; 1 when one did. */
static int pane_annot_load(struct pane_annot *s)
{
	return pane_annot_load_suggested(s) | pane_annot_load_annot(s);
}

/* Reads the annotation again when it changed since; 1 when it did. */
static int pane_annot_load_annot(struct pane_annot *s)
{
	struct annot_version v;
	memset(&v, 0, sizeof v);
	if (s->path)
		annot_version_get(s->path, &v);
	long long m = v.exists ? (v.mtime_ns ? v.mtime_ns : 1) : 0;
	/* the same version, and R not pressed since */
	if (m == s->mtime && annot_version_same(&v, &s->ver) && tag_generation(s->tag) == s->gen && (m || !s->a))
		return 0;
	pane_annot_drop(s);
	s->mtime = m;
	s->ver = v;
	s->gen = tag_generation(s->tag);
	if (!m)
		return 1;
	int line = 0;
	s->a = annot_load(s->path, &line, &s->error);
	s->q = quote_list(s->a, &s->nq);
	s->row = xcalloc(s->nq ? s->nq : 1, sizeof *s->row);
	if (s->cur >= s->nq)
		s->cur = s->nq ? s->nq - 1 : 0;
	return 1;
}

static void pane_annot_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_annot *s = xcalloc(1, sizeof *s);
	s->path = cx->tag ? tag_annotation_path(cx->tag, cx->ds_run) : NULL;
	s->tag = cx->tag;
	s->run = cx->tag ? (long)cx->ds_run : -1;
	s->sg_path = cx->run && cx->run->source ? suggested_path(cx->run->source) : NULL;
	p->state = s;
}

static void pane_annot_free(struct pane *p)
{
	struct pane_annot *s = pa_of(p);
	if (!s)
		return;
	pane_annot_drop(s);
	suggested_free(&s->sg);
	free(s->sg_err);
	free(s->sg_path);
	free(s->path);
	free(s);
	p->state = NULL;
}

static void pane_annot_field(struct tlines *L, const struct annot *a, const char *key, int width)
{
	const char *v = annot_get(a, key);
	tlines_head(L, RL_KEY, width, "%s", key);
	if (v && *v)
		tlines_text(L, v, RL_NORMAL, width, 2, 0);
	else
		tlines_head(L, RL_DIM, width, "  (none)");
	tlines_push(L, "", 0, RL_NORMAL);
}

static void pane_annot_build_annot(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_annot *s = pa_of(p);
	struct tlines *L = &p->lines;
	if (!s->path) {
		tlines_head(L, RL_DIM, width, "No annotation: this run is not one of a dataset's "
		            "(open it from the browser, kbtui DATASET, to annotate it).");
		return;
	}
	if (!s->mtime) {
		tlines_head(L, RL_DIM, width, "No annotation for this run yet.");
		tlines_head(L, RL_NORMAL, width, "K clean, L rubric_leak, H reward_hack, I interesting, B bug: "
		            "write a verdict; A edits the summary and implication; Q in the artifact pane adds a quote.");
		return;
	}
	if (!s->a) {
		char *e = draw_safe(s->error ? s->error : "unreadable");
		tlines_head(L, RL_ERROR, width, "%s", e);
		free(e);
		return;
	}
	const char *v = annot_get(s->a, "verdict");
	char *vs = draw_safe(v ? v : "(none)");
	tlines_head(L, v && annot_verdict_known(v) ? RL_KEY : RL_WARN, width, "verdict %s%s", vs,
	            v && !annot_verdict_known(v) ? "  (not one of the schema's five)" : "");
	free(vs);
	tlines_push(L, "", 0, RL_NORMAL);
	pane_annot_field(L, s->a, "summary", width);
	pane_annot_field(L, s->a, "implication", width);
	tlines_head(L, RL_KEY, width, "quotes (%zu)%s", s->nq, s->nq ? "  j/k select, Enter: the event that wrote it, Y: edit it" : "");
	if (s->nq)
		tag_hint_line(s->tag, s->run, s->q[s->cur].line);
	for (size_t k = 0; k < s->nq; k++) {
		const struct quote *q = &s->q[k];
		char *where = quote_where(q);
		char *label = draw_safe(q->label ? q->label : ""), *file = draw_safe(where);
		s->row[k] = L->n;
		int sel = k == s->cur;
		tlines_head(L, sel ? (cx->focus == 1 ? RL_SELECT : RL_SELECT_DIM) : RL_TOOL, width,
		            "%s%zu. %s  (%s)", sel ? "> " : "  ", k + 1, label, file);
		free(label);
		free(file);
		free(where);
		tlines_text(L, q->text ? q->text : "", RL_DIM, width, 4, 0);
	}
}

/* The judge's suggestions, after the annotation: each with its model,
 * class, event, quote and status, marked "suggested" (never a flag or a
 * verdict); the one at the selected event highlighted. All model text
 * through draw_safe. */
static void pane_annot_suggested(struct pane_annot *s, struct tlines *L, struct pane_ctx *cx, int width)
{
	if (s->sg_err) {
		char *e = draw_safe(s->sg_err);
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_ERROR, width, "judge's suggestions: %s", e);
		free(e);
	}
	if (!s->sg.n)
		return;
	char *m = draw_safe(s->sg.model);
	tlines_push(L, "", 0, RL_NORMAL);
	tlines_head(L, RL_KEY, width, "judge's suggestions (%zu, model %s): proposals, not verdicts", s->sg.n, m);
	tlines_head(L, RL_DIM, width, "  S: the next event with one; J accepts, r rejects the one at the selected event");
	for (size_t k = 0; k < s->sg.n; k++) {
		const struct suggested_item *it = &s->sg.it[k];
		char *c = draw_safe(it->cls), *st = draw_safe(it->status), *q = draw_safe(it->quote), *w = draw_safe(it->why);
		int here = it->event && (size_t)it->event == cx->sel + 1;
		int mark = !strcmp(it->status, "accepted") ? '+' : !strcmp(it->status, "rejected") ? '-' : '?';
		char at[32] = "";
		if (it->event)
			snprintf(at, sizeof at, " at event %ld", it->event);
		tlines_head(L, here ? RL_SELECT_DIM : RL_WARN, width, "%s%c suggested %zu: %s%s [%s, %s]", here ? "> " : "  ",
		            mark, k + 1, c, at, st, m);
		tlines_head(L, RL_DIM, width, "    \"%s\"", q);
		if (*w)
			tlines_text(L, w, RL_DIM, width, 4, 0);
		free(c);
		free(st);
		free(q);
		free(w);
	}
	free(m);
}

static void pane_annot_build(struct pane *p, struct pane_ctx *cx, int width)
{
	pane_annot_build_annot(p, cx, width);
	pane_annot_suggested(pa_of(p), &p->lines, cx, width);
}

static void pane_annot_draw(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h)
{
	struct pane_annot *s = pa_of(p);
	/* the selection's colour follows the focus, the suggestion's the selected event */
	size_t key = cx->sel * 2 + (size_t)(cx->focus == 1);
	if (pane_annot_load(s) || p->built_w != w - 1 || p->built_ev != key) {
		tlines_clear(&p->lines);
		pane_annot_build(p, cx, w - 1);
		p->built_w = w - 1;
		p->built_ev = key;
		pane_scroll(p, 0);
	}
	tlines_draw(&p->lines, p->top, y, x + 1, w - 1, h, cx->search);
	for (int r = 0; r < h; r++)
		draw_fill(y + r, x, 1, RL_NORMAL);
}

static void pane_annot_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_annot *s = pa_of(p);
	(void)cx;
	if (pane_annot_load(s))  /* the title comes before the body: both from the file as it is now */
		pane_invalidate(p);
	char sg[48] = "";
	if (s->sg.n)
		snprintf(sg, sizeof sg, "  %zu suggested", s->sg.n);
	if (s->nq)
		snprintf(buf, n, " annotation  quote %zu/%zu%s", s->cur + 1, s->nq, sg);
	else
		snprintf(buf, n, " annotation%s", sg);
}

/* Enter: the event that wrote the selected quote's lines. */
static void pane_annot_goto(struct pane_annot *s, struct pane_ctx *cx)
{
	if (!s->nq) {
		cx->host->say(cx, "no quote to go to: Q in the artifact pane adds one");
		return;
	}
	const struct quote *q = &s->q[s->cur];
	struct quote_src src;
	char *msg;
	const char *why;
	if (quote_map(cx->run, q, &src, &why) == QUOTE_NONE) {
		msg = xasprintf("quote %zu: no event of this run wrote those lines (%s)", s->cur + 1, why);
	} else if (src.how == QUOTE_LINE) {
		cx->host->select(cx, (size_t)src.ev);
		msg = xasprintf("quote %zu: event %ld, from transcript line %d", s->cur + 1, src.ev + 1,
		                cx->run->ev[src.ev].line);
	} else {
		cx->host->select(cx, (size_t)src.ev);
		char *f = src.path ? draw_safe(src.path) : NULL;
		const char *b = f && strrchr(f, '/') ? strrchr(f, '/') + 1 : f;
		msg = src.how == QUOTE_FILE ? xasprintf("quote %zu: written at event %ld (%s)", s->cur + 1, src.ev + 1, b)
		                            : xasprintf("quote %zu: first seen at event %ld (not in a file version: "
		                                        "in the event's text)", s->cur + 1, src.ev + 1);
		free(f);
	}
	cx->host->say(cx, msg);
	free(msg);
}

static int pane_annot_act(struct pane *p, struct pane_ctx *cx, enum action a)
{
	struct pane_annot *s = pa_of(p);
	if ((a == ACT_DOWN || a == ACT_UP) && s->nq) {
		if (a == ACT_DOWN && s->cur + 1 < s->nq)
			s->cur++;
		else if (a == ACT_UP && s->cur > 0)
			s->cur--;
		pane_invalidate(p);
		/* the selected quote's heading in view */
		size_t r = s->row[s->cur], h = p->h > 0 ? (size_t)p->h : 1;
		if (r < p->top || r >= p->top + h)
			p->top = r > 2 ? r - 2 : 0;
		return 1;
	}
	if (a == ACT_GOTO_ROW) {
		pane_annot_goto(s, cx);
		return 1;
	}
	return pane_scroll_act(p, cx, a);
}

/* The accepted suggestion's quote added to the run's annotation (tag_apply,
 * which calls annotate_apply) as a quote of its event's transcript line;
 * owned message, NULL when the run is no dataset's. Only into an annotation
 * that exists: a new one would need a verdict, which a suggestion never
 * gives. A quote the annotation already holds is not added twice. */
static char *pane_annot_accept_quote(struct pane_annot *s, struct pane_ctx *cx, const struct suggested_item *it)
{
	if (!cx->tag || !s->path)
		return NULL;
	if (!it->event || (size_t)it->event > cx->run->nev || cx->run->ev[it->event - 1].line <= 0)
		return xstrdup("its quote names no event of the transcript: not added to the annotation");
	if (!s->mtime)
		return xstrdup("the run has no annotation yet to hold its quote (a verdict key makes one; J again adds it)");
	if (!s->a)
		return xstrdup("the annotation cannot be read: its quote not added");
	char *msg = NULL, *label = xasprintf("judge %s: %s (accepted suggestion)", s->sg.model, it->cls);
	for (size_t k = 0; k < s->nq; k++)
		if (s->q[k].label && s->q[k].text && !strcmp(s->q[k].label, label) && !strcmp(s->q[k].text, it->quote)) {
			free(label);
			return xstrdup("its quote is in the annotation already");
		}
	char *what = xasprintf("its quote (transcript.jsonl [%d])", cx->run->ev[it->event - 1].line);
	struct annotate_change ch;
	memset(&ch, 0, sizeof ch);
	ch.quote_file = "transcript.jsonl";
	ch.quote_start = ch.quote_end = cx->run->ev[it->event - 1].line;
	ch.quote_label = label;
	ch.quote_text = it->quote;
	tag_apply(cx->tag, (long)cx->ds_run, &ch, what, &msg);
	free(what);
	free(label);
	return msg;
}

void pane_annot_decide(struct pane *p, struct pane_ctx *cx, int accept)
{
	struct pane_annot *s = pa_of(p);
	char *e = NULL, *cls = NULL, *was = NULL, *msg;
	pane_annot_load(s);
	long k = suggested_at(&s->sg, (long)cx->sel + 1);
	if (!s->sg_path || (!s->sg.n && !s->sg_err)) {
		cx->host->say(cx, "no judge's suggestions for this run (kbtui judge RUN --model M proposes them)");
		return;
	}
	if (s->sg_err) {
		msg = draw_safe(s->sg_err);
		cx->host->say(cx, msg);
		free(msg);
		return;
	}
	if (k < 0) {
		struct sbuf b;
		sbuf_init(&b);
		for (size_t i = 0; i < s->sg.n; i++)
			if (s->sg.it[i].event)
				sbuf_addf(&b, "%s%ld", b.len ? ", " : "", s->sg.it[i].event);
		msg = xasprintf("no judge's suggestion at event %zu%s%s", cx->sel + 1, b.len ? "; they are at events " : "",
		                b.len ? b.s : "");
		cx->host->say(cx, msg);
		free(msg);
		sbuf_free(&b);
		return;
	}
	/* the same call as kbtui judge --accept/--reject: the status only, never a verdict */
	if (suggested_decide(s->sg_path, (size_t)k + 1, accept, getenv("KBTUI_ANNOTATOR"), &cls, &was, &e) < 0) {
		char *w = draw_safe(e);
		msg = xasprintf("not decided: %s", w);
		free(w);
		free(e);
	} else {
		char *c = draw_safe(cls), *quote = NULL;
		if (accept)
			quote = pane_annot_accept_quote(s, cx, &s->sg.it[k]);
		msg = xasprintf("suggestion %ld (%s) %s in suggested.json%s%s", k + 1, c, accept ? "accepted" : "rejected",
		                quote ? "; " : "", quote ? quote : "");
		free(quote);
		free(c);
	}
	free(cls);
	free(was);
	pane_annot_load(s);
	pane_invalidate(p);
	cx->host->dirty(cx, D_DETAIL | D_STATUS);
	cx->host->say(cx, msg);
	free(msg);
}

/* Event ev has a judge's suggestion (S walks them; the file as last read). */
static int pane_annot_has(struct pane *p, size_t ev)
{
	struct pane_annot *s = pa_of(p);
	for (size_t i = 0; i < s->sg.n; i++)
		if (s->sg.it[i].event && (size_t)s->sg.it[i].event == ev + 1)
			return 1;
	return 0;
}

int pane_annot_suggested_ready(struct pane *p, struct pane_ctx *cx)
{
	struct pane_annot *s = pa_of(p);
	pane_annot_load(s);
	if (s->sg_err) {
		char *e = draw_safe(s->sg_err);
		cx->host->say(cx, e);
		free(e);
		return 0;
	}
	if (!s->sg.n) {
		cx->host->say(cx, "no judge's suggestions for this run (kbtui judge RUN --model M proposes them)");
		return 0;
	}
	return 1;
}

const struct pane_ops pane_annot_ops = {
	.name = "annotation",
	.init = pane_annot_init,
	.free = pane_annot_free,
	.draw = pane_annot_draw,
	.title = pane_annot_title,
	.act = pane_annot_act,
	.has = pane_annot_has,
};
