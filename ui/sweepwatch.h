/* sweepwatch.h: the browser and grid over a sweep directory while its
 * cells run: every cell a run from the start, their states (queued,
 * running, done, failed, killed) read again every few seconds, as
 * `kbtui sweep --status` reads them. */
#ifndef KB_SWEEPWATCH_H
#define KB_SWEEPWATCH_H

struct dataset;
struct sweep_cell_status;
struct sweepwatch;

/* How often the cells are read again. */
#define SWEEPWATCH_MS 2000

/* For a dataset that is a sweep directory (sweep.json in its root): its
 * cells added to ds as runs (call before anything holds indices into
 * ds->runs) and their first states read. NULL when ds is no sweep. */
struct sweepwatch *sweepwatch_new(struct dataset *ds);
void sweepwatch_free(struct sweepwatch *w);
/* Reads the states again when due; *ms: the wait until the next read.
 * 2: a cell's state moved (the runs' outcomes changed: filters and sort
 * again), 1: only what running cells show changed, 0: not due. */
int sweepwatch_poll(struct sweepwatch *w, int *ms);
/* The next poll reads at once (the browser is back on top). */
void sweepwatch_due(struct sweepwatch *w);
/* The state of the cell that is dataset run i, NULL when it is none. */
const struct sweep_cell_status *sweepwatch_cell(const struct sweepwatch *w, long i);
/* The text of a cell not done as `kbtui sweep --status` prints it
 * (owned); NULL when run i is no cell or is done (a done cell is a run
 * like any: its outcome, peak and verdict). */
char *sweepwatch_text(const struct sweepwatch *w, long i);
/* A run whose cell moved or whose transcript appeared since the last
 * call (its flags are found again), -1 when none; each is taken once. */
long sweepwatch_fresh(struct sweepwatch *w);
/* Counts for the header: "2 running  1 queued  1 failed" (owned). */
char *sweepwatch_summary(const struct sweepwatch *w);

#endif
