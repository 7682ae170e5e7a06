/* compare.h: two runs side by side (say two models on one problem): each
 * an event list, scrolled together and aligned on their milestones (first
 * compile, first PASS, best peak_fraction, end; src/milestones.h): between
 * two milestones each side advances in proportion, so both reach the next
 * one together. */
#ifndef KB_COMPARE_H
#define KB_COMPARE_H

#include <stddef.h>

struct dataset;
struct run;

/* The compare view's loop over two runs (borrowed), titles naming them;
 * returns when the user goes back (q) or a signal came. */
void compare_run(struct run *a, const char *title_a, struct run *b, const char *title_b);

struct tag;
/* Runs a and b of a dataset, loaded and compared (the browser's c ... c);
 * the annotation keys act on the selected side's run through the session
 * tag (borrowed; NULL: none). NULL, or why they could not be (owned, safe). */
char *compare_dataset_runs(struct dataset *ds, struct tag *tag, size_t a, size_t b);

/* kbtui compare RUN_A RUN_B [DIR]: each RUN a transcript file, a run
 * directory, or a run id (or a prefix of exactly one) of the dataset DIR
 * (default: the one kbtui opens). Returns the exit status. */
int compare_cmd(int nargs, char **args, const char *format, const char *argv0);

#endif
