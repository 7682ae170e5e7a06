/* grid.h: the leaderboard grid of the browser: one row per model (harness,
 * model, effort), one column per problem, each cell one run: a glyph for
 * correct / failed / no solution, its peak_fraction as a colour and a
 * number, a mark for the annotation verdict, held-out or incomplete runs;
 * the problem baselines (eager, compiled, SOTA) as reference rows. */
#ifndef KB_GRID_H
#define KB_GRID_H

#include <stddef.h>

struct dataset;
struct run_meta;

struct grid {
	char **models;            /* row labels, safe (owned) */
	size_t nrows;
	const char **problems;    /* column names, raw (borrowed from the dataset) */
	size_t ncols;
	long *cell;               /* nrows x ncols run indices, -1: no run */
	size_t r, c;              /* selected cell */
	size_t top, left;         /* first row and column shown */
	int label_w;
	int ranked;               /* rows by mean peak_fraction (grid_rank), else by name */
};

/* A run's row label: the leaderboard label, else harness/model [effort];
 * safe, owned. The run list uses it too, so both views name models alike. */
char *grid_model(const struct run_meta *m);
/* Lays out the runs order[0..n) of ds (the browser's filtered list) in a
 * grid; columns are every problem of the dataset. */
void grid_build(struct grid *g, const struct dataset *ds, const size_t *order, size_t n);
void grid_free(struct grid *g);
/* Orders the rows by their mean peak_fraction over every problem, best
 * first (a failed, missing or unmeasured cell counts 0), as a leaderboard
 * ranks models; ties by name. The selection stays on the same row index. */
void grid_rank(struct grid *g, const struct dataset *ds);
/* Draws rows y..y+h-1 (column titles and reference rows included). */
void grid_draw(struct grid *g, const struct dataset *ds, int y, int h);
/* The one-line description of the selected cell (safe, owned). */
char *grid_describe(const struct grid *g, const struct dataset *ds);
/* The run of the selected cell, -1 when it is empty. */
long grid_selected(const struct grid *g);
/* The problem of the selected column (raw), NULL when there is none. */
const char *grid_problem(const struct grid *g);
/* Selects the cell of run i, when it is in the grid. */
void grid_select_run(struct grid *g, size_t i);
void grid_move(struct grid *g, long dr, long dc);
/* The auto-flags of the runs (borrowed; NULL: none): a flagged run's cell
 * has ! after its outcome glyph. */
struct flag_runs;
void grid_set_flags(const struct flag_runs *fr);
/* The sweep whose cells the grid shows (borrowed; NULL: none): a cell not
 * done shows its state (queued, "> 3m12s" running, FAILED, KILLED) and
 * the description says it as `kbtui sweep --status` does. */
struct sweepwatch;
void grid_set_sweep(const struct sweepwatch *w);
/* The board the browser shows (borrowed; NULL: all of them): grid_build
 * makes a column of each problem of its deck only (6 on H100 and B200),
 * and the reference rows are the baselines on its GPU. */
struct board;
void grid_set_board(const struct board *b);
/* Selects the cell under screen cell (my, mx) of the grid drawn at rows
 * y..y+h-1; 0 when there is none. */
int grid_hit(struct grid *g, int y, int h, int my, int mx);

#endif
