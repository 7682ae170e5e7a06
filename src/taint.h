/* taint.h: measurements made while a grading file was edited. After a tool
 * call changes check.py, benchmark.py, reference.py, correctness.py,
 * shapes.py, shapes.json or problem.yaml (its tolerances, its shape list),
 * every check or benchmark result until the file is restored (a version
 * equal to the one before the first edit, git checkout / restore, a copy
 * back from FILE.bak or FILE.orig) measured something else than the
 * grader: it is tainted. */
#ifndef KB_TAINT_H
#define KB_TAINT_H

#include <stddef.h>

struct run;
struct taint;

/* The taint of every event of r as it stands (NULL never: an empty taint
 * when nothing was edited). Owned; free with taint_free. */
struct taint *taint_build(const struct run *r);
void taint_free(struct taint *t);
/* The run grew (watch, live): events from `from` on are new or changed,
 * with the calls their results answer (the last event read again is taken
 * from a state kept before it; an earlier one does all again). */
void taint_update(struct taint *t, const struct run *r, size_t from);
/* The edit that taints measurement i (a tool result with a check or
 * benchmark line), -1 when i is no measurement or is clean. */
long taint_at(const struct taint *t, size_t i);
/* The grading file edit event ev changed ("check.py"); "" when none. */
const char *taint_file(const struct taint *t, size_t ev);
/* How many measurements are tainted. */
size_t taint_count(const struct taint *t);
/* Whether a tool output measures: a check verdict or a benchmark line. */
int taint_is_measurement(const char *text);
/* Its first such line (borrowed), *len its length and *line its number
 * (either may be NULL); NULL when none. */
const char *taint_measure_line(const char *text, size_t *len, int *line);
/* Whether path names a grading file. */
int taint_grader_path(const char *path);
/* "tainted: check.py edited at event 12, not restored" for event i (owned),
 * NULL when i is clean: for a pane's row or a jump's message. */
char *taint_note(const struct taint *t, size_t i);

#endif
