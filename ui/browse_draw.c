/* browse_draw.c: the run browser's screen: the columns' widths at this
 * terminal's width, the header with the baselines of the selected run's
 * problem, the list (or the grid) and the status line. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "browse_int.h"
#include "dataset.h"
#include "draw.h"
#include "modelname.h"
#include "runstats.h"
#include "sweepwatch.h"
#include "tag.h"
#include "theme.h"
#include "util.h"
#include "view.h"

#define BROWSE_DROPS 4
/* The model's name is cut to no fewer columns than this before a column
 * is hidden; the run id shows only with at least BROWSE_ID_MIN (a run id
 * cut to "2026…fp8_gemm" names nothing). */
#define BROWSE_MODEL_MIN 18
#define BROWSE_ID_MIN 24
#define BROWSE_PROBLEM_CUT 18  /* a long problem's name is cut to this before PEAK goes */

void browse_widths(struct browse *b)
{
	for (size_t c = 0; c < BROWSE_NCOLS; c++) {
		int w = (int)strlen(browse_cols[c].title);
		/* cells are looked at until one is as wide as max: a column of one
		 * width (PEAK, FLAGS) or of no max (RUN_ID) needs none */
		for (size_t i = 0; i < b->ds->nruns && browse_cols[c].max > browse_cols[c].min && w < browse_cols[c].max; i++) {
			int role;
			char *s = browse_cols[c].cell(b->ds, i, &role);
			int sw = (int)draw_width(s);
			free(s);
			if (sw > w)
				w = sw;
		}
		if (w < browse_cols[c].min)
			w = browse_cols[c].min;
		if (browse_cols[c].max && w > browse_cols[c].max)
			w = browse_cols[c].max;
		b->width[c] = w;
	}
}

/* The columns shown at this terminal's width (bit c: column c) and the
 * width of each (w[c]; RUN_ID's is the rest of the line), in the order
 * of browse_cols' comment: each stage gives way only when the one before
 * leaves the model's name fewer columns than it needs. */
static unsigned browse_layout(const struct browse *b, int *w)
{
	static const struct { int drop, model_min, problem_cut; } stage[] = {
		{0, 34, 0}, {1, 34, 0}, {2, 34, 0},           /* RUN_ID, FLAGS */
		{0, BROWSE_MODEL_MIN, BROWSE_PROBLEM_CUT},    /* the name, the problem cut */
		{3, BROWSE_MODEL_MIN, BROWSE_PROBLEM_CUT},    /* PEAK */
		{4, BROWSE_MODEL_MIN, BROWSE_PROBLEM_CUT},    /* VERDICT */
	};
	const size_t id = BROWSE_NCOLS - 1;
	unsigned shown = (1u << BROWSE_NCOLS) - 1;
	int room = 0, want = 0;
	for (size_t s = 0; s < sizeof stage / sizeof stage[0]; s++) {
		for (size_t c = 0; c < BROWSE_NCOLS; c++) {
			if (stage[s].drop && browse_cols[c].drop == stage[s].drop)
				shown &= ~(1u << c);
			w[c] = b->width[c];
			if (c == 1 && stage[s].problem_cut && w[c] > stage[s].problem_cut)
				w[c] = stage[s].problem_cut;
		}
		want = b->width[0] < stage[s].model_min ? b->width[0] : stage[s].model_min;
		room = COLS - 1 - 2;   /* the model's, after the others */
		for (size_t c = 1; c < BROWSE_NCOLS; c++)
			if (shown & 1u << c)
				room -= (c == id ? BROWSE_ID_MIN : w[c]) + 2;
		if (room >= want)
			break;
	}
	/* the model's name whole when there is room (RUN_ID keeping its
	 * BROWSE_ID_MIN), and RUN_ID the rest of the line */
	w[0] = room < want ? want : room < b->width[0] ? room : b->width[0];
	return shown;
}

static unsigned browse_shown(const struct browse *b)
{
	int w[BROWSE_NCOLS];
	return browse_layout(b, w);
}

/* Column c's width at this terminal's width (it must have a max). */
static int browse_col_width(const struct browse *b, size_t c)
{
	int w[BROWSE_NCOLS];
	browse_layout(b, w);
	return w[c];
}

static const struct ds_problem *browse_problem(const struct dataset *ds, const char *name)
{
	for (size_t i = 0; name && i < ds->nproblems; i++)
		if (ds->problems[i].name && !strcmp(ds->problems[i].name, name))
			return &ds->problems[i];
	return NULL;
}

static void browse_ms(char *buf, size_t n, const char *what, double ms)
{
	if (ms < 0)
		snprintf(buf, n, "%s -", what);
	else
		snprintf(buf, n, "%s %.4g ms", what, ms);
}

/* The reference row's start when a board is shown: its file, GPU and the
 * roofline table its peak_fractions used (a v2 board: its reward hacks
 * against the annotations). Safe text (owned), NULL without a board. */
static char *browse_board_line(const struct browse *b)
{
	const struct board *bd = browse_board(b);
	if (!bd)
		return NULL;
	char *h = board_header(bd), *env = bd->environment ? draw_safe(bd->environment) : NULL;
	struct sbuf l;
	sbuf_init(&l);
	char *safe = draw_safe(h);
	sbuf_adds(&l, safe);
	free(safe);
	free(h);
	if (bd->reward_hack_count >= 0) {
		size_t n = dataset_board_hacks(b->ds, (size_t)b->board);
		sbuf_addf(&l, "  reward hacks %d (annotated %zu%s)", bd->reward_hack_count, n,
		          n != (size_t)bd->reward_hack_count ? theme_glyph()->differ : "");
	}
	if (env)
		sbuf_addf(&l, "  env %s", env);
	free(env);
	return sbuf_detach(&l);
}

/* Row 1: the selected problem's baselines, what its times compare with. */
static void browse_draw_reference(struct browse *b)
{
	const struct dataset *ds = b->ds;
	long sel = browse_selected(b);
	const char *pname = b->grid_on ? grid_problem(&b->grid) : sel >= 0 ? ds->runs[sel].meta.problem : NULL;
	const struct board *bd = browse_board(b);
	/* a board's problems measured on its GPU: that GPU's baselines */
	const struct ds_problem *p = bd ? dataset_baseline(ds, pname, bd) : browse_problem(ds, pname);
	const char *gpu = bd ? bd->gpu : ds->hardware;
	draw_fill(1, 0, COLS, RL_REF);
	char *bl = browse_board_line(b);
	int x = 0;
	if (bl) {   /* the board first: what its numbers are measured against */
		char *t = xasprintf(" %s  |", bl);
		x = (int)draw_width(t);
		draw_put(1, 0, COLS, t, RL_REF);
		free(t);
		free(bl);
	}
	if (x >= COLS)
		return;
	if (p) {
		char e[48], c[48], s[48];
		browse_ms(e, sizeof e, "eager", p->eager.ms);
		browse_ms(c, sizeof c, "compiled", p->compiled.ms);
		browse_ms(s, sizeof s, "SOTA", p->sota.ms);
		char *name = draw_safe(p->name), *hw = gpu ? draw_safe(gpu) : NULL;
		char *line = xasprintf(" %s: %s  %s  %s%s%s", name, e, c, s, hw ? "  on " : "", hw ? hw : "");
		draw_put(1, x, COLS - x, line, RL_REF);
		free(line);
		free(name);
		free(hw);
	} else if (pname) {
		char *name = draw_safe(pname);
		char *line = xasprintf(" %s: no baselines", name);
		draw_put(1, x, COLS - x, line, RL_DIM);
		free(line);
		free(name);
	}
}

/* The header's word on the boards: the one shown, the GPU chosen, or how
 * many there are. */
static void browse_header_board(const struct browse *b, struct sbuf *r)
{
	const struct board *bd = browse_board(b);
	if (bd) {
		char *id = draw_safe(bd->id);
		sbuf_addf(r, "board %s  ", id);
		free(id);
	} else if (b->gpu) {
		char *g = draw_safe(b->gpu);
		sbuf_addf(r, "boards on GPU %s  ", g);
		free(g);
	} else if (b->ds->nboards > 1 && !b->filter[0]) {  /* a long filter needs the room */
		sbuf_addf(r, "%zu boards (d: one)  ", b->ds->nboards);
	}
}

static void browse_draw_header(struct browse *b)
{
	const struct dataset *ds = b->ds;
	size_t ok = 0, held = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		ok += ds->runs[i].meta.has_result && ds->runs[i].meta.correct;
		held += ds->runs[i].held_out && !ds->runs[i].transcript;
	}
	char *root = draw_safe(ds->root);
	struct sbuf l, r;
	sbuf_init(&l);
	sbuf_init(&r);
	sbuf_addf(&l, " kbtui  %s  %zu runs  %zu correct", root, ds->nruns, ok);
	if (held)
		sbuf_addf(&l, "  %zu held out", held);
	if (ds->nerrors)
		sbuf_addf(&l, "  %d index problems", ds->nerrors);
	if (b->sweep) {
		char *s = sweepwatch_summary(b->sweep);
		sbuf_addf(&r, "%s  ", s);
		free(s);
	}
	if (b->n != ds->nruns)
		sbuf_addf(&r, "showing %zu of %zu  ", b->n, ds->nruns);
	browse_header_board(b, &r);
	if (b->filter[0]) {
		char *f = draw_safe(b->filter);
		sbuf_addf(&r, "filter: %s  ", f);
		free(f);
	}
	if (b->grid_on)
		sbuf_adds(&r, b->grid.ranked ? "grid: rows by mean peak_fraction " : "grid ");
	else
		sbuf_addf(&r, "sort: %s ", browse_sort_names[b->sort]);
	draw_bar(0, RL_HEADER, l.s, r.s);
	sbuf_free(&l);
	sbuf_free(&r);
	free(root);
	browse_draw_reference(b);
	if (b->grid_on)
		return;
	/* column titles */
	draw_fill(2, 0, COLS, RL_TITLE);
	int x = 1;
	unsigned shown = browse_shown(b);
	for (size_t c = 0; c < BROWSE_NCOLS && x < COLS; c++) {
		if (!(shown & 1u << c))
			continue;
		int w = browse_cols[c].max ? browse_col_width(b, c) : COLS - x;
		draw_put(2, x, w < COLS - x ? w : COLS - x, browse_cols[c].title, RL_TITLE);
		x += w + 2;
	}
}

static void browse_draw_list(struct browse *b)
{
	unsigned shown = browse_shown(b);
	/* the rows on screen first: their OK cells say where the files disagree */
	for (int r = 0; r < b->list_h && b->top + (size_t)r < b->n; r++)
		dataset_details(b->ds, b->order[b->top + (size_t)r]);
	for (int r = 0; r < b->list_h; r++) {
		size_t k = b->top + (size_t)r;
		int y = b->list_y + r;
		draw_fill(y, 0, COLS, k == b->sel && k < b->n ? RL_SELECT : RL_NORMAL);
		if (k >= b->n) {
			if (b->n == 0 && r == 0)
				draw_put(y, 1, COLS - 1, b->ds->nruns ? "no run matches the filter" : "no runs in this dataset",
				         RL_DIM);
			continue;
		}
		int x = 1;
		for (size_t c = 0; c < BROWSE_NCOLS && x < COLS; c++) {
			if (!(shown & 1u << c))
				continue;
			int role, w = browse_cols[c].max ? browse_col_width(b, c) : COLS - x;
			char *s = browse_cols[c].cell(b->ds, b->order[k], &role);
			if (browse_cols[c].mid == 2) {
				char *fit = modelname_fit(s, w < COLS - x ? w : COLS - x, theme_glyph()->more);
				free(s);
				s = fit;
			}
			(browse_cols[c].mid ? draw_fit_mid : draw_fit)(y, x, w < COLS - x ? w : COLS - x, s,
			                                               k == b->sel ? RL_SELECT : role);
			free(s);
			x += w + 2;
		}
		if (b->cmp_mark == b->order[k] + 1)  /* marked with c, in the blank first column */
			draw_put(y, 0, 1, "*", k == b->sel ? RL_SELECT : RL_KEY);
	}
}

/* The selected run's statistics, made again only when another run is
 * selected or it grew: a replayed run of a million events takes a tenth of
 * a second to walk, and the status line is drawn at every key. */
static const struct runstats *browse_stats(struct browse *b, long sel, const struct run *r)
{
	if (b->stats_sel != sel || b->stats_run != r || !b->stats || b->stats->nev != r->nev) {
		runstats_free(b->stats);
		b->stats = runstats_new(r);
		b->stats_run = r;
		b->stats_sel = sel;
	}
	return b->stats;
}

/* The status line's left side: the position, and the time split and
 * reasoning mark of the selected run once it is loaded (replayed or
 * compared), in at most room columns. */
static char *browse_describe(struct browse *b, const char *pos, int room)
{
	long sel = browse_selected(b);
	struct run *r = sel >= 0 ? b->ds->runs[sel].run : NULL;
	int left = room - (int)strlen(pos) - 2;
	char *cell = sweepwatch_text(b->sweep, sel);
	if (cell) {   /* a sweep's cell not done: what kbtui sweep --status says of it */
		char *line = xasprintf("%s  %s", pos, cell);
		free(cell);
		return line;
	}
	if (!r || left <= 0)
		return xstrdup(pos);
	char *marks = runstats_summary(browse_stats(b, sel, r), (size_t)left);
	char *line = marks ? xasprintf("%s  %s", pos, marks) : xstrdup(pos);
	free(marks);
	return line;
}

static void browse_draw_status(struct browse *b)
{
	int y = LINES - 1;
	if (b->editing) {
		char *f = draw_safe(b->filter);
		char *line = xasprintf("/%s", f);
		draw_bar(y, RL_STATUS, line, "Enter keep  Esc cancel ");
		move(y, (int)draw_width(line) < COLS ? (int)draw_width(line) : COLS - 1);
		free(line);
		free(f);
	} else if (b->v.msg) {
		draw_bar(y, RL_MSG, b->v.msg, NULL);
	} else if (b->grid_on) {
		char *d = grid_describe(&b->grid, b->ds);
		draw_bar(y, RL_STATUS, d, "Enter replay  v list  h help  q quit ");
		free(d);
	} else {
		struct sbuf pos;
		sbuf_init(&pos);
		sbuf_addf(&pos, " run %zu/%zu", b->n ? b->sel + 1 : 0, b->n);
		tag_counts(b->tag, &pos);
		const char *base = "Enter replay  / filter  s sort  v grid  h help  q quit ";
		char *keys = xasprintf("%s  %s", tag_keys_hint(), base);  /* when there is room */
		const char *right = (int)(draw_width(pos.s) + draw_width(keys)) + 2 < COLS ? keys : base;
		char *line = browse_describe(b, pos.s, COLS - (int)draw_width(right) - 2);
		draw_bar(y, RL_STATUS, line, right);
		free(line);
		free(keys);
		sbuf_free(&pos);
	}
}

/* The help's frame: the header and the status bar around it. */
int browse_frame(struct view *v, int *top, int *rows)
{
	struct browse *b = (struct browse *)v;
	b->list_y = 3;
	b->list_h = LINES - 4;
	erase();
	if (LINES < 8 || COLS < 30) {
		mvaddstr(0, 0, "terminal too small");
		return 0;
	}
	browse_draw_header(b);
	browse_draw_status(b);
	*top = 1;
	*rows = LINES - 2;
	return 1;
}

void browse_draw(struct browse *b)
{
	b->list_y = 3;
	b->list_h = LINES - 4;
	if (LINES < 8 || COLS < 30) {
		erase();
		mvaddstr(0, 0, "terminal too small");
	} else {
		if (b->v.dirty & D_HEADER)
			browse_draw_header(b);
		if ((b->v.dirty & D_LIST) && b->grid_on)
			grid_draw(&b->grid, b->ds, 2, LINES - 3);
		else if (b->v.dirty & D_LIST)
			browse_draw_list(b);
		if (b->v.dirty & D_STATUS)
			browse_draw_status(b);
	}
	curs_set(b->editing ? 1 : 0);
	b->v.dirty = 0;
	refresh();
}
