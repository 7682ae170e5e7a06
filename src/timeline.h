/* timeline.h: the hack timeline of a run: one row per version of the
 * solution file (solution.cu, solution.py: the file src/ftrack.h lists
 * first when one is named solution.*), each with the lines it changed and
 * what followed it before the next version: the check's verdict (PASS or
 * FAIL), the benchmark's peak_fraction, compiler errors, and the
 * auto-flagged events (src/flags.h). */
#ifndef KB_TIMELINE_H
#define KB_TIMELINE_H

#include <stddef.h>

struct compilerlog;
struct flag_list;
struct run;

struct timeline_row {
	size_t ev;                /* the event that made the version */
	size_t until;             /* the next version's event (the run's end: nev) */
	int deleted;              /* the version removes the file */
	/* an edit of the file that succeeded but that the file tracker could
	 * not follow (its old text was not in the content known then, as in
	 * a transcript whose writes were cut): lines unknown, added and
	 * removed those of the edit itself */
	int lost;
	size_t lines;             /* lines of the version */
	size_t added, removed;    /* lines against the version before */
	int check;                /* the first verdict in [ev, until): 1 PASS, -1 FAIL, 0 none */
	long check_ev;            /* its tool result, -1 */
	double peak;              /* the first peak_fraction in [ev, until), -1 none */
	long peak_ev;
	size_t compile_errors;    /* compiler error lines in [ev, until) (with rules) */
	size_t nflags;            /* flagged events in [ev, until) */
	long flag_ev;             /* the first, -1 */
	size_t ntainted;          /* measurements in [ev, until) under an edited grading file (src/taint.h) */
	int peak_tainted;         /* the peak's own result is one of them */
	int peak_over;            /* the peak is above 1 by more than the noise (src/flagcheck.h) */
};

struct timeline {
	const char *path;         /* the solution file as the run names it (borrowed), NULL: none */
	struct timeline_row *rows;/* owned */
	size_t n;
};

/* The timeline of r (the versions, and the lost edits among them): fl (may be NULL) the run's auto-flags, evaluated for
 * every event; cl (may be NULL) the compiler rules. 0, or -1 when the run
 * wrote no solution file (t empty). */
int timeline_build(struct run *r, const struct flag_list *fl, struct compilerlog *cl, struct timeline *t);

/* A growing run's timeline, made again and again: what it reads of each
 * event (a result's verdict, peak and compiler errors; the run's taint)
 * is kept in facts (cl borrowed, may be NULL), and only new or changed
 * events are read. timeline_facts_grow: the run's events from `from` on
 * are new or changed (0: all of them). timeline_make: timeline_build
 * through facts, which must be the same run's. */
struct timeline_facts;
struct timeline_facts *timeline_facts_new(struct compilerlog *cl);
void timeline_facts_free(struct timeline_facts *tf);
void timeline_facts_grow(struct timeline_facts *tf, size_t from);
int timeline_make(struct run *r, const struct flag_list *fl, struct timeline_facts *tf, struct timeline *t);
void timeline_free(struct timeline *t);
/* The row of the version current at event ev, -1 before the first. */
long timeline_at(const struct timeline *t, size_t ev);

#endif
