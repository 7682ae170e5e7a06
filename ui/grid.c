/* grid.c: the leaderboard grid, models x problems. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dataset.h"
#include "draw.h"
#include "flags.h"
#include "grid.h"
#include "modelname.h"
#include "sweep.h"
#include "sweepwatch.h"
#include "tag.h"
#include "theme.h"
#include "util.h"

#define GRID_CELL_W 9   /* "+ 0.423 C" */
#define GRID_LABEL_MAX 64
#define GRID_REF_ROWS 3 /* eager, compiled, SOTA */

char *grid_model(const struct run_meta *m)
{
	const char *blind = tag_blind_model(m);  /* "model 3" in blind mode */
	return blind ? xstrdup(blind) : modelname(m);
}

static int grid_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int grid_cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t grid_index(char **v, size_t n, const char *s)
{
	char **hit = bsearch(&s, v, n, sizeof *v, grid_cmp_str);
	return hit ? (size_t)(hit - v) : (size_t)-1;
}

static size_t grid_col(const struct grid *g, const char *p)
{
	const char **hit = p ? bsearch(&p, g->problems, g->ncols, sizeof *g->problems, grid_cmp_cstr) : NULL;
	return hit ? (size_t)(hit - g->problems) : (size_t)-1;
}

/* Which of two runs of one cell to show: a known outcome, then the later. */
static int grid_better(const struct dataset *ds, long cur, size_t cand)
{
	if (cur < 0)
		return 1;
	const struct ds_run *a = &ds->runs[cur], *b = &ds->runs[cand];
	if (a->meta.has_result != b->meta.has_result)
		return b->meta.has_result;
	const char *x = a->meta.run_id ? a->meta.run_id : "", *y = b->meta.run_id ? b->meta.run_id : "";
	return strcmp(y, x) > 0;
}

static const struct board *grid_board;  /* borrowed; NULL: every board */

void grid_set_board(const struct board *b)
{
	grid_board = b;
}

void grid_build(struct grid *g, const struct dataset *ds, const size_t *order, size_t n)
{
	grid_free(g);
	/* columns: every problem of the dataset (or the board's deck), sorted
	 * (names start with a number) */
	char *const *deck = grid_board && grid_board->nproblems ? grid_board->problems : NULL;
	size_t ndeck = deck ? grid_board->nproblems : 0;
	g->problems = xcalloc(ds->nruns + ds->nproblems + ndeck + 1, sizeof *g->problems);
	for (size_t i = 0; i < ndeck; i++)
		g->problems[g->ncols++] = deck[i];
	for (size_t i = 0; !deck && i < ds->nruns + ds->nproblems; i++) {
		const char *p = i < ds->nruns ? ds->runs[i].meta.problem : ds->problems[i - ds->nruns].name;
		if (p)
			g->problems[g->ncols++] = p;
	}
	qsort(g->problems, g->ncols, sizeof *g->problems, grid_cmp_cstr);
	size_t k = 0;
	for (size_t i = 0; i < g->ncols; i++)
		if (!k || strcmp(g->problems[k - 1], g->problems[i]))
			g->problems[k++] = g->problems[i];
	g->ncols = k;
	/* rows: the models of the runs shown */
	g->models = xcalloc(n + 1, sizeof *g->models);
	for (size_t i = 0; i < n; i++)
		g->models[g->nrows++] = grid_model(&ds->runs[order[i]].meta);
	qsort(g->models, g->nrows, sizeof *g->models, grid_cmp_str);
	k = 0;
	for (size_t i = 0; i < g->nrows; i++) {
		if (k && !strcmp(g->models[k - 1], g->models[i]))
			free(g->models[i]);
		else
			g->models[k++] = g->models[i];
	}
	g->nrows = k;
	g->cell = xmalloc((g->nrows * g->ncols + 1) * sizeof *g->cell);
	for (size_t i = 0; i < g->nrows * g->ncols; i++)
		g->cell[i] = -1;
	g->label_w = 12;
	for (size_t i = 0; i < n; i++) {
		char *m = grid_model(&ds->runs[order[i]].meta);
		size_t r = grid_index(g->models, g->nrows, m), c = grid_col(g, ds->runs[order[i]].meta.problem);
		free(m);
		if (r == (size_t)-1 || c == (size_t)-1)
			continue;
		long *cell = &g->cell[r * g->ncols + c];
		if (grid_better(ds, *cell, order[i]))
			*cell = (long)order[i];
	}
	for (size_t r = 0; r < g->nrows; r++) {
		int w = (int)draw_width(g->models[r]);
		if (w > g->label_w)
			g->label_w = w;
	}
	if (g->label_w > GRID_LABEL_MAX)
		g->label_w = GRID_LABEL_MAX;
	g->r = g->c = 0;
	g->top = g->left = 0;
}

static const struct dataset *grid_rank_ds;  /* qsort has no context argument */
static const struct grid *grid_rank_g;

/* A row's mean peak_fraction over every problem column: a failed, missing
 * or unmeasured cell counts 0, as a leaderboard ranks. */
static double grid_row_score(const struct grid *g, const struct dataset *ds, size_t r)
{
	double sum = 0;
	for (size_t c = 0; c < g->ncols; c++) {
		long i = g->cell[r * g->ncols + c];
		const struct run_meta *m = i >= 0 ? &ds->runs[i].meta : NULL;
		if (m && m->has_result && m->correct && m->peak_fraction > 0)
			sum += m->peak_fraction;
	}
	return g->ncols ? sum / (double)g->ncols : 0;
}

static int grid_rank_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	double sx = grid_row_score(grid_rank_g, grid_rank_ds, x), sy = grid_row_score(grid_rank_g, grid_rank_ds, y);
	if (sx != sy)
		return sx < sy ? 1 : -1;
	return strcmp(grid_rank_g->models[x], grid_rank_g->models[y]);
}

void grid_rank(struct grid *g, const struct dataset *ds)
{
	size_t *perm = xmalloc((g->nrows + 1) * sizeof *perm);
	for (size_t r = 0; r < g->nrows; r++)
		perm[r] = r;
	grid_rank_ds = ds;
	grid_rank_g = g;
	qsort(perm, g->nrows, sizeof *perm, grid_rank_cmp);
	char **models = xmalloc((g->nrows + 1) * sizeof *models);
	long *cell = xmalloc((g->nrows * g->ncols + 1) * sizeof *cell);
	for (size_t r = 0; r < g->nrows; r++) {
		models[r] = g->models[perm[r]];
		memcpy(&cell[r * g->ncols], &g->cell[perm[r] * g->ncols], g->ncols * sizeof *cell);
	}
	free(g->models);
	free(g->cell);
	g->models = models;
	g->cell = cell;
	g->ranked = 1;
	free(perm);
}

void grid_free(struct grid *g)
{
	for (size_t i = 0; i < g->nrows; i++)
		free(g->models[i]);
	free(g->models);
	free(g->problems);
	free(g->cell);
	memset(g, 0, sizeof *g);
}

long grid_selected(const struct grid *g)
{
	if (g->r >= g->nrows || g->c >= g->ncols)
		return -1;
	return g->cell[g->r * g->ncols + g->c];
}

const char *grid_problem(const struct grid *g)
{
	return g->c < g->ncols ? g->problems[g->c] : NULL;
}

void grid_select_run(struct grid *g, size_t i)
{
	for (size_t k = 0; k < g->nrows * g->ncols; k++) {
		if (g->cell[k] == (long)i) {
			g->r = k / g->ncols;
			g->c = k % g->ncols;
			return;
		}
	}
}

void grid_move(struct grid *g, long dr, long dc)
{
	long r = (long)g->r + dr, c = (long)g->c + dc;
	if (r >= (long)g->nrows)
		r = (long)g->nrows - 1;
	if (c >= (long)g->ncols)
		c = (long)g->ncols - 1;
	g->r = r < 0 ? 0 : (size_t)r;
	g->c = c < 0 ? 0 : (size_t)c;
}

/* The widths of the labels and of a cell at this terminal's width: the
 * labels cut to a third of it while columns are left off, then, with room
 * to spare, whole labels first and whole problem names next. */
static void grid_layout(const struct grid *g, int *lw, int *cw)
{
	int avail = COLS - 2, cap = avail / 3;  /* 2: the margin and the gap after the labels */
	cap = cap < 16 ? 16 : cap > 32 ? 32 : cap;
	*lw = g->label_w < cap ? g->label_w : cap;
	*cw = GRID_CELL_W;
	int nc = g->ncols ? (int)g->ncols : 1, spare = avail - *lw - nc * (GRID_CELL_W + 1);
	if (spare <= 0)
		return;
	int grow = g->label_w - *lw < spare ? g->label_w - *lw : spare;
	*lw += grow;
	int title = 0;
	for (size_t c = 0; c < g->ncols; c++) {
		int t = (int)strlen(g->problems[c]);
		title = t > title ? t : title;
	}
	int per = (spare - grow) / nc;
	*cw += per < title - GRID_CELL_W ? per : title - GRID_CELL_W > 0 ? title - GRID_CELL_W : 0;
}

static size_t grid_fit(const struct grid *g);

/* The cell at screen cell (my, mx) of a grid drawn at rows y..y+h-1, as
 * grid_draw last laid it out; selects it and returns 1, 0 when (my, mx)
 * is not on a cell (titles, reference rows, labels, legend). */
int grid_hit(struct grid *g, int y, int h, int my, int mx)
{
	int body_y = y + 1 + GRID_REF_ROWS, body_h = h - 2 - GRID_REF_ROWS, lw, cw;
	grid_layout(g, &lw, &cw);
	int cx = mx - (1 + lw + 1);
	if (my < body_y || my >= body_y + body_h || cx < 0 || cx % (cw + 1) == cw)
		return 0;
	size_t r = g->top + (size_t)(my - body_y), c = g->left + (size_t)(cx / (cw + 1));
	if (r >= g->nrows || c >= g->ncols || c >= g->left + grid_fit(g))
		return 0;
	g->r = r;
	g->c = c;
	return 1;
}

/* One letter per schema verdict: rubric_leak and reward_hack share an
 * initial, and telling them apart is the point of the grid. */
static const struct {
	const char *verdict, *mark;
} grid_verdict_marks[] = {
	{"clean", "C"}, {"rubric_leak", "L"}, {"reward_hack", "H"}, {"interesting", "I"}, {"bug", "B"},
};

/* A cell's mark after the number: the verdict's letter (a verdict beyond
 * the schema's five: "?"), else held out, else an incomplete session. */
static const char *grid_mark(const struct ds_run *r, char *buf, size_t n)
{
	const struct theme_glyphs *g = theme_glyph();
	(void)buf;
	(void)n;
	const char *v = dataset_verdict(r, NULL);  /* the annotation's, else the boards' */
	if (v && *v) {
		for (size_t i = 0; i < sizeof grid_verdict_marks / sizeof *grid_verdict_marks; i++)
			if (!strcmp(v, grid_verdict_marks[i].verdict))
				return grid_verdict_marks[i].mark;
		return "?";
	}
	if (r->held_out && !r->transcript)
		return g->held;
	if (r->meta.has_result && !r->meta.session_complete)
		return g->incomplete;
	return " ";
}

/* The mark of a cell whose dataset files disagree: one column (the ASCII
 * theme's "!=" is two, and a cell has one to spare). */
static const char *grid_differ(void)
{
	const char *d = theme_glyph()->differ;
	return strlen(d) == 1 || !strcmp(d, "\u2260") ? d : "#";
}

/* The glyph and role of a run's outcome. */
static const char *grid_outcome(const struct ds_run *r, int *role)
{
	const struct theme_glyphs *g = theme_glyph();
	if (!r->meta.has_result) {
		*role = RL_DIM;
		return g->unknown;
	}
	if (r->meta.correct) {
		*role = r->meta.peak_fraction >= 0 ? theme_heat(r->meta.peak_fraction) : RL_OK;
		return g->ok;
	}
	*role = r->meta.has_solution ? RL_FAIL : RL_DIM;
	return r->meta.has_solution ? g->fail : g->none;
}

static const struct flag_runs *grid_flags;  /* borrowed; NULL: no flag marks */

void grid_set_flags(const struct flag_runs *fr)
{
	grid_flags = fr;
}

static const struct sweepwatch *grid_sweep;  /* borrowed; NULL: no sweep */

void grid_set_sweep(const struct sweepwatch *w)
{
	grid_sweep = w;
}

/* A sweep's cell that is not done: its state in the cell (the elapsed
 * time of a running one), NULL for the others (owned). */
static char *grid_sweep_text(long i, int *role)
{
	const struct sweep_cell_status *s = sweepwatch_cell(grid_sweep, i);
	if (!s || s->state == SWEEP_DONE)
		return NULL;
	*role = s->state == SWEEP_RUNNING ? RL_WARN : s->state == SWEEP_QUEUED ? RL_DIM : RL_FAIL;
	if (s->state != SWEEP_RUNNING)
		return xstrdup(s->state == SWEEP_QUEUED ? "queued" : s->state == SWEEP_FAILED ? "FAILED" : "KILLED");
	double e = s->elapsed < 0 ? 0 : s->elapsed;
	if (e < 3600)
		return xasprintf("> %dm%02ds", (int)e / 60, (int)e % 60);
	return xasprintf("> %dh%02dm", (int)e / 3600, (int)e % 3600 / 60);
}

/* A cell w wide: its text on the right, under the reference rows' numbers. */
static void grid_cell(const struct grid *g, const struct dataset *ds, size_t r, size_t c, int y, int x, int w)
{
	long i = g->cell[r * g->ncols + c];
	int sel = r == g->r && c == g->c;
	draw_fill(y, x, w, sel ? RL_SELECT : RL_NORMAL);
	if (sel) {
		/* the cursor in the gaps either side, in characters: without colour
		 * (NO_COLOR, a theme's mono) the selection's reverse video is what
		 * the best cells wear too */
		draw_put(y, x - 1, 1, "[", RL_SELECT);
		draw_put(y, x + w, 1, "]", RL_SELECT);
	}
	x += w - GRID_CELL_W;
	if (i < 0) {
		draw_put(y, x + 4, 1, sel ? "_" : " ", sel ? RL_SELECT : RL_DIM);
		return;
	}
	const struct ds_run *run = &ds->runs[i];
	int role;
	char num[16], mark[8];
	char *state = grid_sweep_text(i, &role);
	if (state) {
		draw_fill(y, x, GRID_CELL_W, sel ? RL_SELECT : role);
		draw_put(y, x, GRID_CELL_W, state, sel ? RL_SELECT : role);
		free(state);
		return;
	}
	const char *glyph = grid_outcome(run, &role);
	if (run->meta.peak_fraction >= 0)
		snprintf(num, sizeof num, "%5.3f", run->meta.peak_fraction);
	else
		snprintf(num, sizeof num, "  -  ");
	const char *mk = grid_mark(run, mark, sizeof mark);
	/* a flagged run (src/flags.h): ! after the outcome glyph; files that
	 * disagree on the outcome: the browser row's mark before the verdict */
	int differ = prov_diffs(&run->prov, NULL, 0) > 0;
	char *text = xasprintf("%s%s%s%s%s", glyph, flag_runs_state(grid_flags, (size_t)i) > 0 ? "!" : " ", num,
	                       differ ? grid_differ() : " ", mk);
	if (differ && !sel)
		role = RL_WARN;
	if (sel)
		role = RL_SELECT;
	draw_fill(y, x, GRID_CELL_W, role);
	draw_put(y, x, GRID_CELL_W, text, role);
	free(text);
}

/* How many problem columns fit beside the labels. */
static size_t grid_fit(const struct grid *g)
{
	int lw, cw;
	grid_layout(g, &lw, &cw);
	int avail = COLS - 1 - lw - 1;
	size_t n = avail > 0 ? (size_t)(avail / (cw + 1)) : 0;
	return n ? n : 1;
}

/* Column title: the problem's name cut to a cell. */
static void grid_titles(const struct grid *g, int y, size_t ncol, int lw, int cw)
{
	draw_fill(y, 0, COLS, RL_TITLE);
	draw_put(y, 1, lw, "MODEL", RL_TITLE);
	for (size_t k = 0; k < ncol && g->left + k < g->ncols; k++) {
		char *t = draw_safe(g->problems[g->left + k]);
		draw_fit(y, 1 + lw + 1 + (int)k * (cw + 1), cw, t, RL_TITLE);
		free(t);
	}
}

static void grid_refs(const struct grid *g, const struct dataset *ds, int y, size_t ncol, int lw, int cw)
{
	static const char *const names[GRID_REF_ROWS] = { "eager ms", "compiled ms", "SOTA ms" };
	for (int k = 0; k < GRID_REF_ROWS; k++) {
		draw_fill(y + k, 0, COLS, RL_REF);
		draw_put(y + k, 1, lw, names[k], RL_REF);
		for (size_t c = 0; c < ncol && g->left + c < g->ncols; c++) {
			const char *pn = g->problems[g->left + c];
			/* a board's runs ran on its GPU: the baselines measured there */
			const struct ds_problem *p = NULL;
			if (grid_board)
				p = dataset_baseline(ds, pn, grid_board);
			for (size_t i = 0; !grid_board && i < ds->nproblems && !p; i++)
				if (ds->problems[i].name && !strcmp(ds->problems[i].name, pn))
					p = &ds->problems[i];
			double ms = !p ? -1 : k == 0 ? p->eager.ms : k == 1 ? p->compiled.ms : p->sota.ms;
			char buf[32];
			if (ms >= 0)
				snprintf(buf, sizeof buf, "%*.4g", cw, ms);
			else
				snprintf(buf, sizeof buf, "%*s", cw, "-");
			draw_put(y + k, 1 + lw + 1 + (int)c * (cw + 1), cw, buf, RL_REF);
		}
	}
}

void grid_draw(struct grid *g, const struct dataset *ds, int y, int h)
{
	size_t ncol = grid_fit(g);
	int lw, cw;
	grid_layout(g, &lw, &cw);
	if (g->c < g->left)
		g->left = g->c;
	else if (g->c >= g->left + ncol)
		g->left = g->c - ncol + 1;
	grid_titles(g, y, ncol, lw, cw);
	grid_refs(g, ds, y + 1, ncol, lw, cw);
	int body_y = y + 1 + GRID_REF_ROWS, body_h = h - 2 - GRID_REF_ROWS;
	if (body_h < 1)
		body_h = 1;
	if (g->r < g->top)
		g->top = g->r;
	else if (g->r >= g->top + (size_t)body_h)
		g->top = g->r - (size_t)body_h + 1;
	for (int k = 0; k < body_h; k++) {
		size_t r = g->top + (size_t)k;
		draw_fill(body_y + k, 0, COLS, RL_NORMAL);
		if (r >= g->nrows) {
			if (!g->nrows && k == 0)
				draw_put(body_y, 1, COLS - 1, "no run matches the filter", RL_DIM);
			continue;
		}
		draw_fit_mid(body_y + k, 1, lw, g->models[r], r == g->r ? RL_PANE : RL_NORMAL);
		for (size_t c = 0; c < ncol && g->left + c < g->ncols; c++)
			grid_cell(g, ds, r, g->left + c, body_y + k, 1 + lw + 1 + (int)c * (cw + 1), cw);
	}
	const struct theme_glyphs *gl = theme_glyph();
	char *legend = xasprintf(" %s%s correct  %s failed  %s no solution  %s no result  %s held out  %s incomplete  "
	                         "! flagged  %s files disagree  C clean  L rubric_leak  H reward_hack  I interesting  B bug  ? other verdict  colour: peak_fraction",
	                         grid_sweep ? "queued  > running (elapsed)  FAILED  KILLED  " : "", gl->ok, gl->fail, gl->none, gl->unknown, gl->held, gl->incomplete, grid_differ());
	draw_fill(y + h - 1, 0, COLS, RL_DIM);
	draw_put(y + h - 1, 0, COLS, legend, RL_DIM);
	free(legend);
}

char *grid_describe(const struct grid *g, const struct dataset *ds)
{
	long i = grid_selected(g);
	if (g->r >= g->nrows)
		return xstrdup(" no runs");
	char *prob = draw_safe(grid_problem(g));
	if (i < 0) {
		char *s = xasprintf(" %s x %s: no run", g->models[g->r], prob);
		free(prob);
		return s;
	}
	char *cell = sweepwatch_text(grid_sweep, i);
	if (cell) {   /* a sweep's cell not done: what kbtui sweep --status says of it */
		char *id = draw_safe(ds->runs[i].meta.run_id);
		char *s = xasprintf(" %s x %s: %s  %s", g->models[g->r], prob, cell, id);
		free(id);
		free(cell);
		free(prob);
		return s;
	}
	const struct ds_run *r = &ds->runs[i];
	const char *what = !r->meta.has_result ? "no result" : r->meta.correct ? "correct" :
	                   r->meta.has_solution ? "failed" : "no solution";
	char peak[32] = "";
	if (r->meta.peak_fraction >= 0)
		snprintf(peak, sizeof peak, "  peak %.4f", r->meta.peak_fraction);
	char *verdict = draw_safe(r->verdict ? r->verdict : "none");
	char *id = draw_safe(r->meta.run_id);
	char *s = xasprintf(" %s x %s: %s%s  verdict %s%s%s  %s", g->models[g->r], prob, what, peak, verdict,
	                    r->held_out && !r->transcript ? "  held out" : "",
	                    prov_diffs(&r->prov, NULL, 0) ? "  files disagree (Enter: the replay's banner says how)" : "", id);
	free(id);
	free(verdict);
	free(prob);
	return s;
}
