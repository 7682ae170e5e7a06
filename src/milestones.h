/* milestones.h: the events that mark a run's progress: its first compile,
 * its first PASS, its best peak_fraction and its end. The compare view
 * aligns two runs on them; the replay and the lineage pane can jump to
 * them.
 *   - first compile: the first tool call that compiles (nvcc, a C++
 *     compiler, make or ninja; Python that mentions load_inline,
 *     cpp_extension or triton.jit; any Python run once kernel source has been
 *     written, since importing it builds it: python check.py), or the call
 *     of the first tool result with compiler output (nvcc, ptxas, Triton,
 *     cpp_extension, C++, ld: the rules of src/compilerlog.h), whichever
 *     comes first;
 *   - first PASS: the first tool result with the check's PASS line, from
 *     a call that runs check.py or Python or a tool without a command (a
 *     PASS that cat shows from another run's log is not one);
 *   - best peak_fraction: the first tool result with the highest
 *     peak_fraction (its "peak_fraction: X" line, else the geometric mean
 *     of its per-shape solution_peak_fraction lines);
 *   - end: the last event. */
#ifndef KB_MILESTONES_H
#define KB_MILESTONES_H

#include <stddef.h>

#include "run.h"

struct compilerlog;

enum milestone { MS_COMPILE, MS_PASS, MS_BEST, MS_END, MS__COUNT };

struct milestones {
	long ev[MS__COUNT];       /* event index; -1 when the run has none */
	double best;              /* the best peak_fraction, -1 when none */
};

/* The milestones of a run. cl (may be NULL: commands only) recognises
 * compiler output. */
void milestones_find(const struct run *r, struct compilerlog *cl, struct milestones *m);

/* The event with the run's best peak_fraction (the first one with it), -1
 * when no tool result has one; *peak (may be NULL) gets the value, -1. */
long milestones_best(const struct run *r, double *peak);
/* The peak_fraction one tool output reports, -1 when none. */
double milestones_text_peak(const char *text);
/* Whether a tool output has the check's PASS line. */
int milestones_text_pass(const char *text);

/* "first compile", "first PASS", "best peak_fraction", "end". */
const char *milestones_name(enum milestone k);
/* One letter for rulers: C, P, B, E. */
char milestones_letter(enum milestone k);

#endif
