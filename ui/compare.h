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

struct tag;
struct view;
/* The compare view (ui/view.h) over two runs (borrowed), titles naming
 * them. */
struct view *compare_view_new(struct run *a, const char *title_a, struct run *b, const char *title_b);
/* Runs a and b of a dataset, loaded, in a compare view (the browser's c
 * ... c); the annotation keys act on the selected side's run through the
 * session tag (borrowed; NULL: none). NULL with *err why they could not be
 * loaded (owned, safe). */
struct view *compare_dataset_view(struct dataset *ds, struct tag *tag, size_t a, size_t b, char **err);

/* kbtui compare RUN_A RUN_B [DIR]: each RUN a transcript file, a run
 * directory, or a run id (or a prefix of exactly one) of the dataset DIR
 * (default: the one kbtui opens). Returns the exit status. */
int compare_cmd(int nargs, char **args, const char *format, const char *argv0);

#endif
