/* pane_timing.c: GPU timing over the whole run: every benchmark line found
 * in the tool results (shape/variant/tflops/gbps/ms, solution and overall
 * peak_fraction, harness timings, plain "N ms" lines) as a table grouped by
 * event, a plot of peak_fraction across the run's benchmark invocations (so
 * you see when the agent made progress), and the run's result.json. Lines
 * are read by src/benchlog.c. */
#include "config.h"

#include <curses.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchlog.h"
#include "draw.h"
#include "evstyle.h"
#include "flagcheck.h"
#include "flags.h"
#include "pane.h"
#include "run.h"
#include "taint.h"
#include "theme.h"
#include "util.h"
#include "textsafe.h"

/* result.json beside the table when the pane is at least this wide */
#define TIMING_SIDE_MIN 100
#define TIMING_SIDE_W 36

struct pane_timing_row {
	size_t ev;
	enum benchlog_kind kind;
	int shape;
	char *variant;              /* variant, timing label, FAIL message, RESULT word (untrusted, owned) */
	double tflops, gbps, ms, value;
	const char *over;           /* above the roofline: why (static), NULL */
};

/* One benchmark invocation: a tool result with a peak_fraction in it. */
struct pane_timing_point {
	size_t ev;
	double peak;
};

struct pane_timing {
	struct pane_timing_row *rows;
	size_t nrows, cap;
	struct pane_timing_point *pts;
	size_t npts, ptcap;
	unsigned char *has;         /* per event: holds benchmark measurements */
	size_t nev, hascap;
	char *result;               /* result.json as read (untrusted, owned), NULL when none */
	/* what p->lines holds, so that a growing run's new rows are appended
	 * rather than the whole table laid out again at every watch poll */
	size_t built_rows;          /* rows laid out */
	size_t built_last;          /* the event of the last one, TLINE_NO_EVENT: none */
	int built_header;           /* its group has the column header */
	int built_tw;               /* the table's width */
	size_t tail_at;             /* where the rows below the table begin (result.json) */
	struct tlines side;         /* result.json laid out beside the table */
	int side_w;                 /* 0: result.json is below the table */
	struct taint *taint;        /* measurements under an edited grading file (owned) */
	struct flagcheck_roof roof; /* the run's GPU, for rows above its roofline */
	int have_roof;
};

static void pane_timing_add(struct pane_timing *t, size_t ev, const struct benchlog_line *l)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->rows = xrealloc(t->rows, t->cap * sizeof *t->rows);
	}
	struct pane_timing_row *r = &t->rows[t->nrows++];
	r->ev = ev;
	r->kind = l->kind;
	r->shape = l->shape;
	r->variant = l->variant ? xstrndup(l->variant, l->variant_len) : l->text ? xstrndup(l->text, l->text_len) : NULL;
	r->tflops = l->tflops;
	r->gbps = l->gbps;
	r->ms = l->ms;
	r->value = l->value;
	r->over = r->kind == BL_VARIANT && r->variant && benchlog_reference_variant(r->variant, strlen(r->variant)) ? NULL
	          : flagcheck_physics_why(t->have_roof ? &t->roof : NULL, (int)l->kind, l->tflops, l->gbps, l->value);
}

static void pane_timing_point(struct pane_timing *t, size_t ev, double peak)
{
	if (t->npts == t->ptcap) {
		t->ptcap = t->ptcap ? t->ptcap * 2 : 16;
		t->pts = xrealloc(t->pts, t->ptcap * sizeof *t->pts);
	}
	t->pts[t->npts].ev = ev;
	t->pts[t->npts].peak = peak;
	t->npts++;
}

/* The benchmark lines of one tool result; its peak_fraction (the overall
 * line, else the geometric mean of the per-shape ones) becomes a point. */
static void pane_timing_scan(struct pane_timing *t, size_t ev, const char *text)
{
	double peak = -1, logsum = 0;
	int nshape = 0;
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		struct benchlog_line l;
		enum benchlog_kind k = benchlog_classify(p, n, &l);
		if (k != BL_NONE) {
			pane_timing_add(t, ev, &l);
			/* m and M stop at measurements, not at PASS or RESULT lines */
			t->has[ev] |= k != BL_PASS && k != BL_FAIL && k != BL_RESULT;
			if (k == BL_PEAK && l.value >= 0)
				peak = l.value;
			if (k == BL_SHAPE_PEAK && l.value > 0) {
				logsum += log(l.value);
				nshape++;
			}
		}
		p += n;
		if (*p)
			p++;
	}
	if (peak < 0 && nshape)
		peak = exp(logsum / nshape);
	if (peak >= 0)
		pane_timing_point(t, ev, peak);
}

/* result.json in the transcript's directory. */
static char *pane_timing_result_json(const struct run *run)
{
	if (!run->source)
		return NULL;
	const char *slash = strrchr(run->source, '/');
	char *dir = slash ? xstrndup(run->source, (size_t)(slash - run->source)) : xstrdup(".");
	char *path = util_path_join(dir, "result.json");
	size_t len;
	char *text = util_is_file(path) ? util_read_file(path, &len) : NULL;
	if (text && len > 64 * 1024)
		text[64 * 1024] = '\0';
	free(path);
	free(dir);
	return text;
}

static void pane_timing_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_timing *t = xcalloc(1, sizeof *t);
	p->state = t;
	t->nev = cx->run->nev;
	t->hascap = t->nev + 1;
	t->has = xcalloc(t->hascap, 1);
	t->taint = taint_build(cx->run);
	t->have_roof = flagcheck_roof(cx->flags ? cx->flags->problem : NULL, cx->flags ? cx->flags->problems_dir : NULL,
	                              &t->roof) == 0;
	for (size_t i = 0; i < t->nev; i++)
		if (cx->run->ev[i].kind == EV_TOOL_RESULT)
			pane_timing_scan(t, i, cx->run->ev[i].text);
	t->result = pane_timing_result_json(cx->run);
	tlines_clear(&t->side);
}


static void pane_timing_free(struct pane *p)
{
	struct pane_timing *t = p->state;
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++)
		free(t->rows[i].variant);
	free(t->rows);
	free(t->pts);
	free(t->has);
	free(t->result);
	tlines_free(&t->side);
	taint_free(t->taint);
	flagcheck_roof_free(&t->roof);
	free(t);
	p->state = NULL;
}

/* "12.345" or "-" for an absent number. */
static void pane_timing_num(char *buf, size_t n, double v, const char *fmt)
{
	if (v < 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, fmt, v);
}

static void pane_timing_row_text(struct tlines *L, const struct pane_timing_row *r, int width)
{
	char a[32], b[32], c[32], buf[256];
	char *v = draw_safe(r->variant);
	int role = RL_NORMAL;
	switch (r->kind) {
	case BL_VARIANT:
	case BL_HTIME:
	case BL_EVENT:
		pane_timing_num(a, sizeof a, r->tflops, "%.3f");
		pane_timing_num(b, sizeof b, r->gbps, "%.3f");
		pane_timing_num(c, sizeof c, r->ms, "%.4f");
		snprintf(buf, sizeof buf, "  %5d  %-12.*s %9s %9s %10s", r->shape, r->kind == BL_HTIME ? 9 : (int)textsafe_cut(v, strlen(v), 40),
		         r->kind == BL_HTIME ? "(harness)" : v, a, b, c);
		role = !strcmp(v, "solution") ? RL_TEXT : RL_NORMAL;
		break;
	case BL_SHAPE_PEAK:
		snprintf(buf, sizeof buf, "  %5d  solution_peak_fraction %.4f", r->shape, r->value);
		break;
	case BL_PEAK:
		snprintf(buf, sizeof buf, "  peak_fraction: %.4f", r->value);
		role = RL_PLOT;
		break;
	case BL_TIMING:
		snprintf(buf, sizeof buf, "  time %.*s: %g ms", (int)textsafe_cut(v, strlen(v), 60), v, r->ms);
		role = RL_DIM;
		break;
	case BL_PASS:
		snprintf(buf, sizeof buf, "  PASS");
		role = RL_OK;
		break;
	case BL_FAIL:
		snprintf(buf, sizeof buf, "  FAIL: %.*s", (int)textsafe_cut(v, strlen(v), 200), v);
		role = RL_FAIL;
		break;
	case BL_RESULT:
		snprintf(buf, sizeof buf, "  RESULT: %.*s", (int)textsafe_cut(v, strlen(v), 40), v);
		role = RL_WARN;
		break;
	default:
		buf[0] = '\0';
	}
	free(v);
	if (r->over) {  /* more than the GPU can do: the physics flag's row */
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof buf - n, "  ! %s", r->over);
		role = RL_WARN;
	}
	tlines_wrap(L, buf, strlen(buf), role, width);
}

static void pane_timing_group(struct tlines *L, const struct run *run, const struct pane_timing *t, size_t ev, int width)
{
	const struct event *e = &run->ev[ev];
	const struct event *call = e->link >= 0 && (size_t)e->link < run->nev ? &run->ev[e->link] : NULL;
	char *name = draw_safe(call ? call->name : "result");
	/* one row: the command cut, not wrapped */
	char *what = call ? evstyle_call_summary(run, call, width > 40 ? (size_t)width - 30 : 10) : xstrdup("");
	double peak = -1;
	size_t lo = 0, hi = t->npts;  /* points are in event order: the first at or after ev */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->pts[mid].ev < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->npts && t->pts[lo].ev == ev)
		peak = t->pts[lo].peak;
	L->ev = TLINE_NO_EVENT;
	tlines_push(L, "", 0, RL_NORMAL);
	L->ev = ev;
	char *taint = taint_note(t->taint, ev);
	if (taint)  /* measured under an edited grader: said before what it measured */
		tlines_head(L, RL_WARN, width, "event %zu  %s", ev + 1, taint);
	if (peak >= 0)
		tlines_head(L, RL_TOOL, width, "event %zu  peak %.4f  %s %s", ev + 1, peak, name, what);
	else
		tlines_head(L, RL_TOOL, width, "event %zu  %s %s", ev + 1, name, what);
	free(taint);
	free(name);
	free(what);
}

/* The table's rows from t->built_rows on, appended to L, then what goes
 * below the table (result.json, when it is not beside it). */
static void pane_timing_rows(struct pane_timing *t, const struct run *run, struct tlines *L)
{
	int tw = t->built_tw;
	for (size_t i = t->built_rows; i < t->nrows; i++) {
		const struct pane_timing_row *r = &t->rows[i];
		if (r->ev != t->built_last) {
			pane_timing_group(L, run, t, r->ev, tw);
			t->built_header = 0;
		}
		t->built_last = r->ev;
		if (!t->built_header && (r->kind == BL_VARIANT || r->kind == BL_HTIME || r->kind == BL_EVENT)) {
			tlines_head(L, RL_TITLE, tw, "  shape  variant         tflops      gbps         ms");
			t->built_header = 1;
		}
		pane_timing_row_text(L, r, tw);
	}
	t->built_rows = t->nrows;
	t->tail_at = L->n;
	if (t->result && !t->side_w) {
		L->ev = TLINE_NO_EVENT;
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_PANE, tw, "result.json");
		tlines_text(L, t->result, RL_NORMAL, tw, 2, 0);
	}
}

static void pane_timing_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_timing *t = p->state;
	struct tlines *L = &p->lines;
	int tw = width;
	tlines_clear(&t->side);
	t->side_w = 0;
	if (t->result && width >= TIMING_SIDE_MIN) {
		t->side_w = TIMING_SIDE_W;
		tw = width - TIMING_SIDE_W - 2;
		tlines_head(&t->side, RL_PANE, TIMING_SIDE_W, "result.json");
		tlines_text(&t->side, t->result, RL_NORMAL, TIMING_SIDE_W, 0, 0);
	}
	L->ev = TLINE_NO_EVENT;
	if (!t->nrows)
		tlines_head(L, RL_DIM, tw, "(no benchmark output in this run's tool results)");
	t->built_rows = 0;
	t->built_last = TLINE_NO_EVENT;
	t->built_header = 0;
	t->built_tw = tw;
	pane_timing_rows(t, cx->run, L);
}

/* The run grew from event `from` on (watch, live): what was read of those
 * events is dropped (rows and points are in event order) and they are read
 * again; the events before them are not read twice, and their rows are not
 * laid out again. */
static int pane_timing_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	struct pane_timing *t = p->state;
	const struct run *r = cx->run;
	size_t kept = t->nrows;
	while (t->nrows && t->rows[t->nrows - 1].ev >= from)
		free(t->rows[--t->nrows].variant);
	while (t->npts && t->pts[t->npts - 1].ev >= from)
		t->npts--;
	if (from > t->nev)
		from = t->nev;
	t->has = xgrow(t->has, &t->hascap, r->nev + 1, 1);
	memset(t->has + from, 0, r->nev + 1 - from);
	t->nev = r->nev;
	taint_update(t->taint, r, from);
	for (size_t i = from; i < r->nev; i++)
		if (r->ev[i].kind == EV_TOOL_RESULT)
			pane_timing_scan(t, i, r->ev[i].text);
	/* the rows laid out are all still there (an event's rows, and its
	 * group's peak, come from one scan of it): the new ones are appended */
	if (p->built_w < 0 || !t->built_rows || kept < t->built_rows)
		return 0;
	tlines_truncate(&p->lines, t->tail_at);
	pane_timing_rows(t, r, &p->lines);
	return 1;
}

/* Rows the plot takes (its axis included) in a body of h rows. */
static int pane_timing_plot_h(const struct pane_timing *t, int h)
{
	if (!t->npts)
		return 0;
	int ph = h / 3;
	if (ph > 10)
		ph = 10;
	if (ph < 3)
		ph = h >= 6 ? 3 : 0;
	return ph ? ph + 1 : 0;
}

/* A round top for the y axis. */
static double pane_timing_ymax(const struct pane_timing *t)
{
	static const double steps[] = { 0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 0.75, 1.0 };
	double m = 0;
	for (size_t i = 0; i < t->npts; i++)
		if (t->pts[i].peak > m)
			m = t->pts[i].peak;
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (m <= steps[i])
			return steps[i];
	return ceil(m);
}

/* The summary row above the plot. */
static void pane_timing_summary(const struct pane_timing *t, const struct pane_ctx *cx, int y, int x, int w)
{
	char buf[256];
	double best = -1, sofar = -1;
	size_t best_ev = 0;
	for (size_t i = 0; i < t->npts; i++) {
		if (t->pts[i].peak > best) {
			best = t->pts[i].peak;
			best_ev = t->pts[i].ev;
		}
		if (t->pts[i].ev <= cx->sel && t->pts[i].peak > sofar)
			sofar = t->pts[i].peak;
	}
	draw_fill(y, x, w, RL_NORMAL);
	if (!t->npts) {
		/* the agent's benchmark output may be cut in the transcript: say
		 * what the harness measured after the run, when it is known */
		const struct run_meta *m = &cx->run->meta;
		if (m->peak_fraction >= 0)
			snprintf(buf, sizeof buf, "no peak_fraction line in this run's tool results; "
			         "the harness measured %.4f after the run", m->peak_fraction);
		else
			snprintf(buf, sizeof buf, "no peak_fraction line in this run's tool results");
		draw_put(y, x + 1, w - 1, buf, RL_DIM);
		return;
	}
	int n = snprintf(buf, sizeof buf, " peak_fraction over %zu benchmark runs: best %.4f (event %zu%s%s)", t->npts,
	                 best, best_ev + 1, taint_at(t->taint, best_ev) >= 0 ? ", tainted" : "",
	                 flagcheck_physics_why(NULL, BL_PEAK, -1, -1, best) ? ", above 1" : "");
	if (sofar >= 0)
		snprintf(buf + n, sizeof buf - (size_t)n, ", best so far %.4f", sofar);
	else
		snprintf(buf + n, sizeof buf - (size_t)n, ", none so far");
	draw_put(y, x, w, buf, RL_PANE);
}

/* Columns of bars, one per invocation (the best of several when they
 * outnumber the columns); bars up to the selected event bright, later dim. */
static void pane_timing_plot(const struct pane_timing *t, const struct pane_ctx *cx, int y, int x, int w, int ph)
{
	const struct theme_glyphs *g = theme_glyph();
	double ymax = pane_timing_ymax(t);
	int lw = 7, pw = w - lw - 1;
	char lab[32];
	if (pw < 1)
		return;
	int cw = pw / (int)t->npts;
	if (cw > 6)
		cw = 6;
	int ncol = cw >= 1 ? (int)t->npts : pw;
	if (cw < 1)
		cw = 1;
	for (int r = 0; r < ph; r++) {
		draw_fill(y + r, x, w, RL_NORMAL);
		if (r == 0 || r == ph - 1) {
			snprintf(lab, sizeof lab, "%6.2f", r == 0 ? ymax : 0.0);
			draw_put(y + r, x, lw - 1, lab, RL_DIM);
		}
		draw_put(y + r, x + lw - 1, 1, g->sep, RL_DIM);
	}
	for (int c = 0; c < ncol; c++) {
		/* the points this column stands for */
		size_t a = (size_t)c * t->npts / (size_t)ncol, b = (size_t)(c + 1) * t->npts / (size_t)ncol;
		double v = -1;
		size_t ev = 0;
		for (size_t i = a; i < b || i == a; i++) {
			if (i < t->npts && t->pts[i].peak > v) {
				v = t->pts[i].peak;
				ev = t->pts[i].ev;
			}
		}
		int eighths = (int)(v / ymax * ph * 8 + 0.5);
		int role = ev <= cx->sel ? RL_PLOT : RL_PLOT_LATER;
		for (int r = 0; r < ph; r++) {
			int level = eighths - (ph - 1 - r) * 8;
			level = level < 0 ? 0 : level > 8 ? 8 : level;
			for (int k = 0; k < cw && k < cw - (cw > 1); k++)
				draw_put(y + r, x + lw + c * cw + k, 1, g->bar[level], role);
		}
	}
	/* the x axis: where the first and the last benchmark runs were */
	int ay = y + ph;
	draw_fill(ay, x, w, RL_NORMAL);
	if (t->npts > 1)
		snprintf(lab, sizeof lab, "event %zu .. event %zu", t->pts[0].ev + 1, t->pts[t->npts - 1].ev + 1);
	else
		snprintf(lab, sizeof lab, "event %zu", t->pts[0].ev + 1);
	draw_put(ay, x + lw, pw, lab, RL_DIM);
}

static void pane_timing_draw(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h)
{
	struct pane_timing *t = p->state;
	int ph = pane_timing_plot_h(t, h - 1);
	int top = 1 + ph;  /* summary row, plot */
	pane_timing_summary(t, cx, y, x, w);
	if (ph)
		pane_timing_plot(t, cx, y + 1, x + 1, w - 1, ph - 1);
	int th = h - top;
	if (th < 0)
		th = 0;
	p->h = th;
	int tw = t->side_w ? w - 1 - t->side_w - 2 : w - 1;
	for (int r = 0; r < th; r++)
		draw_fill(y + top + r, x, w, RL_NORMAL);
	tlines_draw(&p->lines, p->top, y + top, x + 1, tw, th, cx->search);
	for (int r = 0; r < th; r++) {
		size_t i = p->top + (size_t)r;
		if (i < p->lines.n && p->lines.v[i].ev == cx->sel)
			draw_put(y + top + r, x, 1, theme_glyph()->play, RL_KEY);
	}
	if (t->side_w) {
		for (int r = 0; r < th; r++)
			draw_put(y + top + r, x + 1 + tw, 1, theme_glyph()->sep, RL_DIM);
		tlines_draw(&t->side, 0, y + top, x + 1 + tw + 2, t->side_w, th, cx->search);
	}
}

/* The rows of the selected event (or of the next one that has rows; in
 * the four-pane layout, of the latest one at or before it). */
static void pane_timing_follow(struct pane *p, struct pane_ctx *cx)
{
	pane_follow_sel(p, cx);
}

static void pane_timing_status(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_timing *t = p->state;
	size_t sofar = 0;
	for (size_t i = 0; i < t->npts; i++)
		sofar += t->pts[i].ev <= cx->sel;
	snprintf(buf, n, "%zu/%zu benchmark runs so far  %zu lines", sofar, t->npts, t->nrows);
}

static int pane_timing_has(struct pane *p, size_t ev)
{
	struct pane_timing *t = p->state;
	return ev < t->nev && t->has[ev];
}

const struct pane_ops pane_timing_ops = {
	.name = "GPU timing",
	.init = pane_timing_init,
	.grow = pane_timing_grow,
	.free = pane_timing_free,
	.build = pane_timing_build,
	.draw = pane_timing_draw,
	.status = pane_timing_status,
	.follow = pane_timing_follow,
	.has = pane_timing_has,
	.act = pane_scroll_act,
};
