/* pane_artifact.c: the run's artifacts (solution, logs, result.json, final
 * answer, the raw transcript) one at a time with line numbers, a line
 * cursor, and quotes: Q marks a line, moving extends the range, Q again
 * asks for a label and writes the lines verbatim under the annotation's
 * `quotes` (through the tagging session, so u undoes it). Long lines are
 * cut, not wrapped (a line is a row: line numbers, the cursor and quoted
 * ranges stay one to one with the file's lines), and Left/Right scroll
 * them sideways, as less -S does with a 300-column check.log. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annotate.h"
#include "artifact.h"
#include "draw.h"
#include "pane.h"
#include "quote.h"
#include "run.h"
#include "tag.h"
#include "textsafe.h"
#include "theme.h"
#include "util.h"

/* bytes of a line looked at when drawing it: a JSONL line can be megabytes */
#define ARTIFACT_DRAW_BYTES 4096

struct pane_artifact {
	struct artifacts *as;       /* owned; read when the pane is first shown */
	size_t cur;                 /* the artifact shown */
	size_t *top, *cursor;       /* per artifact: first row shown, cursor line (0-based) */
	size_t *left;               /* per artifact: the first column shown (Left/Right) */
	long mark;                  /* line where the marked range starts, -1: none */
	int text_w;                 /* columns for the text (pane_artifact_measure) */
	size_t widest;              /* the widest row shown, in columns (the same) */
	size_t **wide;              /* per artifact, per line: width + 1 of a long line, 0: not counted (owned) */
	size_t followed;            /* the selected event the pane last followed (SIZE_MAX: none yet) */
	int stale;                  /* the run grew since as was read (artifacts_refresh) */
	char *evq_text;             /* a quote of an event waiting for its label (owned), NULL: none */
	int evq_line;               /* its transcript line */
	size_t evq_ev;
};

/* The places kept per artifact, for n of them, zeroed. */
static void pa_places(struct pane_artifact *a, size_t n)
{
	a->top = xcalloc(n + 1, sizeof *a->top);
	a->cursor = xcalloc(n + 1, sizeof *a->cursor);
	a->left = xcalloc(n + 1, sizeof *a->left);
	a->wide = xcalloc(n + 1, sizeof *a->wide);
}

static void pa_places_free(struct pane_artifact *a)
{
	for (size_t k = 0; a->wide && a->as && k < a->as->n; k++)
		free(a->wide[k]);
	free(a->wide);
	free(a->top);
	free(a->cursor);
	free(a->left);
}

/* The files are read the first time the pane is shown, not when the
 * replay opens: a transcript can be tens of megabytes. After the run grew,
 * they are brought up to date when the pane is next shown: the transcript
 * only has its new lines read (reading it whole at every slice that a big
 * file is read in made reading it quadratic), and the pane keeps its
 * places when the files are the same. */
static struct pane_artifact *pa_of(struct pane *p, struct pane_ctx *cx)
{
	struct pane_artifact *a = p->state;
	if (a->as && !a->stale)
		return a;
	const char *src = cx->run->source;
	const char *slash = src ? strrchr(src, '/') : NULL;
	char *dir = src ? (slash ? xstrndup(src, (size_t)(slash - src)) : xstrdup(".")) : NULL;
	const char *transcript = src && util_is_file(src) ? src : NULL;
	if (!a->as) {
		a->as = artifacts_load(dir, cx->run, transcript);
		pa_places(a, a->as->n);
	} else {
		size_t n = a->as->n;
		for (size_t k = 0; k < n; k++) {  /* the widths of long lines: counted again */
			free(a->wide[k]);
			a->wide[k] = NULL;
		}
		if (!artifacts_refresh(a->as, dir, cx->run, transcript)) {
			free(a->wide);
			a->wide = NULL;
			pa_places_free(a);
			pa_places(a, a->as->n);
			a->cur = 0;
			a->mark = -1;
		}
		for (size_t k = 0; k < a->as->n; k++) {  /* a file read again may be shorter */
			size_t last = a->as->v[k].nlines ? a->as->v[k].nlines - 1 : 0;
			a->cursor[k] = a->cursor[k] > last ? last : a->cursor[k];
			a->top[k] = a->top[k] > last ? last : a->top[k];
		}
		a->followed = (size_t)-1;  /* the cursor follows the selection again */
	}
	a->stale = 0;
	free(dir);
	return a;
}

static void pane_artifact_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_artifact *a = xcalloc(1, sizeof *a);
	(void)cx;
	a->mark = -1;
	a->followed = (size_t)-1;
	p->state = a;
}

static void pane_artifact_free(struct pane *p)
{
	struct pane_artifact *a = p->state;
	if (!a)
		return;
	pa_places_free(a);
	artifacts_free(a->as);
	free(a->evq_text);
	free(a);
	p->state = NULL;
}

static const struct artifact *pane_artifact_cur(const struct pane_artifact *a)
{
	return a->as->n ? &a->as->v[a->cur] : NULL;
}

/* Line i with tabs expanded to the next multiple of 8, up to about
 * max_cols columns (owned, untrusted). */
static char *pane_artifact_expand(const struct artifact *f, size_t i, size_t max_cols)
{
	size_t len, col = 0;
	const char *s = artifact_line(f, i, &len);
	struct sbuf b;
	sbuf_init(&b);
	for (size_t k = 0; k < len && col < max_cols; k++) {
		if (s[k] == '\t') {
			do
				sbuf_addc(&b, ' ');
			while (++col % 8);
		} else {
			sbuf_addc(&b, s[k] ? s[k] : ' ');
			col++;
		}
	}
	return sbuf_detach(&b);
}

/* Safe text s from display column `left` on (a pointer into s). */
static const char *pane_artifact_from(const char *s, size_t left)
{
	size_t col = 0, len = strlen(s);
	while (*s && col < left) {
		size_t n = draw_u8len(s, len);
		col += textsafe_width(s, n);
		s += n;
		len -= n;
	}
	return s;
}

static int pane_artifact_marked(const struct pane_artifact *a, size_t i)
{
	size_t c = a->cursor[a->cur], m;
	if (a->mark < 0)
		return 0;
	m = (size_t)a->mark;
	return (i >= m && i <= c) || (i >= c && i <= m);
}

static void pane_artifact_move(struct pane *p, struct pane_ctx *cx, long i);

/* Whether artifact f is the run's transcript itself. */
static int pane_artifact_is_transcript(const struct artifact *f, const struct pane_ctx *cx)
{
	return f && f->path && cx->run->source && !strcmp(f->path, cx->run->source);
}

/* The pane follows the event selected in the list: the transcript's
 * cursor goes to the line the event came from; an event that writes or
 * reads a file shown here shows that file. Not while lines are marked. */
static void pane_artifact_follow(struct pane *p, struct pane_ctx *cx)
{
	struct pane_artifact *a = p->state;
	if (cx->sel == a->followed || cx->sel >= cx->run->nev || a->mark >= 0 || !a->as->n)
		return;
	a->followed = cx->sel;
	const struct event *e = &cx->run->ev[cx->sel];
	if (pane_artifact_is_transcript(pane_artifact_cur(a), cx)) {
		if (e->line > 0)
			pane_artifact_move(p, cx, e->line - 1);
		return;
	}
	const char *base = e->path ? strrchr(e->path, '/') : NULL;
	base = base ? base + 1 : e->path;
	for (size_t k = 0; base && k < a->as->n; k++)
		if (!a->as->v[k].refused && !strcmp(a->as->v[k].name, base)) {
			a->cur = k;
			return;
		}
}

static void pane_artifact_draw(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h)
{
	struct pane_artifact *a = pa_of(p, cx);
	pane_artifact_follow(p, cx);
	const struct artifact *f = pane_artifact_cur(a);
	int focused = cx->focus == 1;
	char num[32];

	for (int r = 0; r < h; r++)
		draw_fill(y + r, x, w, RL_NORMAL);
	x++;  /* the gutter column, as in the other panes */
	w--;
	if (!f) {
		draw_put(y, x, w, "This run has no artifacts here (solution, logs, result.json, final answer).", RL_DIM);
		return;
	}
	if (f->refused) {
		char *name = draw_safe(f->name), *why = draw_safe(f->refused);
		char *m = xasprintf("%s refused: %s", name, why);
		draw_put(y, x, w, m, RL_WARN);
		free(m);
		free(why);
		free(name);
		return;
	}
	int numw = snprintf(num, sizeof num, "%zu", f->nlines ? f->nlines : 1);
	size_t top = a->top[a->cur], left = a->left[a->cur];
	for (int r = 0; r < h && top + (size_t)r < f->nlines; r++) {
		size_t i = top + (size_t)r;
		int cursor = i == a->cursor[a->cur];
		int role = pane_artifact_marked(a, i) ? RL_MATCH : cursor ? (focused ? RL_SELECT : RL_SELECT_DIM)
		                                                         : RL_NORMAL;
		char *raw = pane_artifact_expand(f, i, left + (size_t)w + ARTIFACT_DRAW_BYTES), *text = draw_safe(raw);
		snprintf(num, sizeof num, "%*zu ", numw, i + 1);
		draw_fill(y + r, x, w, role);
		int used = draw_put(y + r, x, w, num, role == RL_NORMAL ? RL_DIM : role);
		draw_put(y + r, x + used, w - used, pane_artifact_from(text, left), role);
		free(text);
		free(raw);
	}
	if (!f->nlines)
		draw_put(y, x, w, "(empty)", RL_DIM);
}

static void pane_artifact_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_artifact *a = pa_of(p, cx);
	const struct artifact *f = pane_artifact_cur(a);
	(void)cx;
	if (!f) {
		snprintf(buf, n, " artifacts");
		return;
	}
	char *name = draw_safe(f->name);
	snprintf(buf, n, " %s%s  (%zu/%zu, o/O: other files)", name, f->refused ? " (refused)" : "",
	         a->cur + 1, a->as->n);
	free(name);
}

/* Line i's width in columns, as drawn: measured on its safe text when it
 * is short, counted once (and kept) when it is long (a JSONL line of
 * megabytes): a character a column, tabs to the next multiple of 8, a
 * control byte the two of its escape. */
static size_t pane_artifact_width(struct pane_artifact *a, const struct artifact *f, size_t i)
{
	size_t len;
	const char *s = artifact_line(f, i, &len);
	if (len <= ARTIFACT_DRAW_BYTES) {
		char *raw = pane_artifact_expand(f, i, (size_t)-1), *text = draw_safe(raw);
		size_t w = draw_width(text);
		free(text);
		free(raw);
		return w;
	}
	if (!a->wide[a->cur])
		a->wide[a->cur] = xcalloc(f->nlines + 1, sizeof **a->wide);
	size_t *keep = &a->wide[a->cur][i];
	if (!*keep) {
		size_t col = 0;
		for (size_t k = 0; k < len; k++) {
			unsigned char c = (unsigned char)s[k];
			if (c == '\t')
				col = (col / 8 + 1) * 8;
			else if ((c & 0xC0) != 0x80)
				col += c < 0x20 || c == 0x7F ? 2 : 1;
		}
		*keep = col + 1;
	}
	return *keep - 1;
}

/* The text's width in the pane beside the list (the pane's header and
 * status are made before its rows are drawn) and the widest of the rows
 * shown, into a->text_w and a->widest. */
static void pane_artifact_measure(struct pane *p, struct pane_ctx *cx, const struct artifact *f)
{
	struct pane_artifact *a = p->state;
	int numw = snprintf(NULL, 0, "%zu", f->nlines ? f->nlines : 1);
	a->text_w = cx->side_w - 1 - numw - 1;  /* the gutter, the number and a space */
	a->widest = 0;
	for (size_t i = a->top[a->cur]; i < f->nlines && i < a->top[a->cur] + (size_t)(p->h > 0 ? p->h : 1); i++) {
		size_t tw = pane_artifact_width(a, f, i);
		a->widest = tw > a->widest ? tw : a->widest;
	}
}

static void pane_artifact_status(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_artifact *a = pa_of(p, cx);
	const struct artifact *f = pane_artifact_cur(a);
	(void)cx;
	if (!f) {
		buf[0] = '\0';
		return;
	}
	size_t c = a->cursor[a->cur], left = a->left[a->cur];
	pane_artifact_measure(p, cx, f);
	char cols[64] = "";  /* where the rows are scrolled to, and whether more is cut off */
	if (left || (a->text_w > 0 && a->widest > (size_t)a->text_w))
		snprintf(cols, sizeof cols, "  col %zu of %zu (Left/Right)", left + 1, a->widest);
	if (a->mark >= 0) {
		size_t s = (size_t)a->mark < c ? (size_t)a->mark : c, e = (size_t)a->mark < c ? c : (size_t)a->mark;
		snprintf(buf, n, "marked %zu-%zu  line %zu/%zu%s", s + 1, e + 1, c + 1, f->nlines, cols);
	} else {
		snprintf(buf, n, "line %zu/%zu%s", f->nlines ? c + 1 : 0, f->nlines, cols);
	}
}

/* Moves the cursor to line i (clamped) and scrolls it into view. */
static void pane_artifact_move(struct pane *p, struct pane_ctx *cx, long i)
{
	struct pane_artifact *a = pa_of(p, cx);
	const struct artifact *f = pane_artifact_cur(a);
	long h = p->h > 0 ? p->h : 1;
	if (!f || !f->nlines)
		return;
	if (i >= (long)f->nlines)
		i = (long)f->nlines - 1;
	if (i < 0)
		i = 0;
	a->cursor[a->cur] = (size_t)i;
	if ((size_t)i < a->top[a->cur])
		a->top[a->cur] = (size_t)i;
	else if (i >= (long)a->top[a->cur] + h)
		a->top[a->cur] = (size_t)(i - h + 1);
}

/* Left/Right: half the text's width sideways; right only while some row
 * shown is cut off at the pane's edge. */
static void pane_artifact_side(struct pane *p, struct pane_ctx *cx, int dir)
{
	struct pane_artifact *a = pa_of(p, cx);
	const struct artifact *f = pane_artifact_cur(a);
	if (!f)
		return;
	pane_artifact_measure(p, cx, f);
	size_t step = a->text_w > 16 ? (size_t)a->text_w / 2 : 8, *left = &a->left[a->cur];
	if (dir < 0)
		*left = *left > step ? *left - step : 0;
	else if (a->text_w > 0 && a->widest > *left + (size_t)a->text_w)
		*left += step;
}

static void pane_artifact_switch(struct pane *p, struct pane_ctx *cx, int delta)
{
	struct pane_artifact *a = pa_of(p, cx);
	if (!a->as->n)
		return;
	a->cur = (a->cur + a->as->n + (size_t)(delta > 0 ? 1 : a->as->n - 1)) % a->as->n;
	if (a->mark >= 0) {
		a->mark = -1;
		cx->host->say(cx, "quote cancelled: the marked lines were in another file");
	}
}

/* The first Q marks the cursor line; the second asks for the label. */
static void pane_artifact_quote_key(struct pane *p, struct pane_ctx *cx)
{
	struct pane_artifact *a = pa_of(p, cx);
	const struct artifact *f = pane_artifact_cur(a);
	cx->host->say(cx, NULL);
	if (f && f->refused) {
		char *m = xasprintf("nothing to quote: this file was refused (%s)", f->refused);
		cx->host->say(cx, m);
		free(m);
		return;
	}
	if (!f || !f->nlines) {
		cx->host->say(cx, "nothing to quote here");
		return;
	}
	if (!cx->tag) {
		cx->host->say(cx, "quotes go into a dataset's annotations: open the run from the browser");
		return;
	}
	if (a->mark < 0) {
		a->mark = (long)a->cursor[a->cur];
		char *m = xasprintf("quote from line %ld: move to its last line, then Q for the label", a->mark + 1);
		cx->host->say(cx, m);
		free(m);
		return;
	}
	cx->host->ask(cx, 'Q');
}

static int pane_artifact_act(struct pane *p, struct pane_ctx *cx, enum action act)
{
	struct pane_artifact *a = pa_of(p, cx);
	long page = p->h > 1 ? p->h - 1 : 1;
	long c = (long)(a->as->n ? a->cursor[a->cur] : 0);
	switch (act) {
	case ACT_DOWN: pane_artifact_move(p, cx, c + 1); return 1;
	case ACT_UP: pane_artifact_move(p, cx, c - 1); return 1;
	case ACT_PAGE_DOWN: pane_artifact_move(p, cx, c + page); return 1;
	case ACT_PAGE_UP: pane_artifact_move(p, cx, c - page); return 1;
	case ACT_FIRST: pane_artifact_move(p, cx, 0); return 1;
	case ACT_LAST: pane_artifact_move(p, cx, (long)((size_t)-1 >> 1)); return 1;
	case ACT_ITEM_NEXT: pane_artifact_switch(p, cx, 1); return 1;
	case ACT_ITEM_PREV: pane_artifact_switch(p, cx, -1); return 1;
	case ACT_LEFT: pane_artifact_side(p, cx, -1); return 1;
	case ACT_RIGHT: pane_artifact_side(p, cx, 1); return 1;
	case ACT_QUOTE: pane_artifact_quote_key(p, cx); return 1;
	default: return 0;
	}
}

void pane_artifact_quote_event(struct pane *p, struct pane_ctx *cx)
{
	struct pane_artifact *a = pa_of(p, cx);
	if (!cx->tag) {
		cx->host->say(cx, "quotes go into a dataset's annotations: open the run from the browser");
		return;
	}
	if (cx->sel >= cx->run->nev || cx->run->ev[cx->sel].line <= 0) {
		cx->host->say(cx, "this event comes from no line of the transcript: nothing to quote");
		return;
	}
	free(a->evq_text);
	a->evq_text = quote_event_text(cx->run, cx->sel);
	if (!*a->evq_text) {
		free(a->evq_text);
		a->evq_text = NULL;
		cx->host->say(cx, "this event has no text to quote");
		return;
	}
	a->evq_ev = cx->sel;
	a->evq_line = cx->run->ev[cx->sel].line;
	cx->host->ask(cx, 'Q');
}

/* The label of a quote of an event (pane_artifact_quote_event) came:
 * written as transcript.jsonl [line], its decoded text. */
static void pane_artifact_label_event(struct pane_artifact *a, struct pane_ctx *cx, const char *label)
{
	char *msg = NULL, *text = a->evq_text;
	a->evq_text = NULL;
	if (!label) {
		cx->host->say(cx, "quote cancelled");
	} else if (!*label) {
		a->evq_text = text;  /* asked again */
		cx->host->say(cx, "a quote needs a label: Q to give one, Esc to cancel");
		return;
	} else {
		struct annotate_change ch;
		char *what = xasprintf("quote of event %zu (transcript.jsonl [%d])", a->evq_ev + 1, a->evq_line);
		memset(&ch, 0, sizeof ch);
		ch.quote_file = "transcript.jsonl";
		ch.quote_start = ch.quote_end = a->evq_line;
		ch.quote_label = label;
		ch.quote_text = text;
		tag_apply(cx->tag, (long)cx->ds_run, &ch, what, &msg);
		cx->host->say(cx, msg);
		free(msg);
		free(what);
	}
	free(text);
}

void pane_artifact_label(struct pane *p, struct pane_ctx *cx, const char *label)
{
	struct pane_artifact *a = pa_of(p, cx);
	const struct artifact *f = pane_artifact_cur(a);
	char *msg = NULL;

	cx->host->say(cx, NULL);
	cx->host->dirty(cx, D_DETAIL);
	if (a->evq_text) {
		pane_artifact_label_event(a, cx, label);
		return;
	}
	if (!f || a->mark < 0)
		return;
	if (!label) {
		a->mark = -1;
		cx->host->say(cx, "quote cancelled");
		return;
	}
	if (!*label) {
		cx->host->say(cx, "a quote needs a label: Q to give one, Esc to cancel");
		return;
	}
	size_t c = a->cursor[a->cur], m = (size_t)a->mark;
	int s = (int)(m < c ? m : c) + 1, e = (int)(m < c ? c : m) + 1;
	char *text = artifact_quote_text(f, s, e);
	char *name = draw_safe(f->name);
	char *what = s == e ? xasprintf("quote %s [%d]", name, s) : xasprintf("quote %s [%d, %d]", name, s, e);
	struct annotate_change ch;
	memset(&ch, 0, sizeof ch);
	ch.quote_file = f->name;
	ch.quote_start = s;
	ch.quote_end = e;
	ch.quote_label = label;
	ch.quote_text = text;
	if (tag_apply(cx->tag, (long)cx->ds_run, &ch, what, &msg) == 1)
		a->mark = -1;  /* written; on failure the lines stay marked to try again */
	cx->host->say(cx, msg);
	free(msg);
	free(what);
	free(name);
	free(text);
}

/* The run grew: the files are brought up to date when next shown. */
static int pane_artifact_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	struct pane_artifact *a = p->state;
	(void)cx;
	(void)from;
	a->stale = 1;
	return 0;
}

const struct pane_ops pane_artifact_ops = {
	.name = "artifact",
	.init = pane_artifact_init,
	.grow = pane_artifact_grow,
	.free = pane_artifact_free,
	.draw = pane_artifact_draw,
	.title = pane_artifact_title,
	.status = pane_artifact_status,
	.act = pane_artifact_act,
	.follow = pane_artifact_follow,
};
