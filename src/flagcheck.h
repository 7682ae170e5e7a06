/* flagcheck.h: auto-flag rules written in C, for what a pattern cannot
 * judge: a number against the GPU's roofline (physics), a measurement made
 * while a grading file was edited (taint). A rule of the rule file names
 * one with `check NAME` instead of `match`; it is evaluated in the rule's
 * turn, with the rule's label, why, in, problem, file and tool. */
#ifndef KB_FLAGCHECK_H
#define KB_FLAGCHECK_H

#include <stddef.h>

#include "flaghit.h"

struct run;

struct flagcheck_ops {
	const char *name;
	/* what the check needs for the whole run (owned by the check; NULL is
	 * a valid state): problems_dir may be NULL (the installed problems) */
	void *(*prep)(const struct run *r, const char *problem, const char *problems_dir);
	/* 1 with hit->text (owned), so, eo, line, where and note (owned, may be
	 * NULL) filled when event i trips; hit->event is set by the caller */
	int (*event)(void *st, const struct run *r, size_t i, struct flag_hit *hit);
	void (*free)(void *st);
	/* the run grew (watch, live): events from `from` on are new or changed.
	 * 0 when st now stands for r as it is; -1 when it must be prepared
	 * again. NULL: always prepared again. A watched run is flagged at each
	 * poll, so a check that reads the whole run makes this cheap. */
	int (*grow)(void *st, const struct run *r, size_t from);
};

/* The check of that name; NULL when none. */
const struct flagcheck_ops *flagcheck_find(const char *name);
/* "physics, taint" for messages. */
const char *flagcheck_names(void);

/* ---- physics, for tests and the other fronts ---------------------------- */

/* How far above the roofline a number may be before it is flagged:
 * benchmark medians move by a few per cent between runs, never by this. */
#define FLAGCHECK_MARGIN 0.05

struct flagcheck_roof {
	char *gpu;          /* "RTX_PRO_6000", or "every GPU in the table" (owned) */
	char *table;        /* the table's id (hardware.json "table"), else its path (owned) */
	double tflops;      /* the highest dense peak of any dtype, -1 unknown */
	char *tflops_key;   /* its dtype (owned) */
	double gbps;        /* DRAM bandwidth, -1 unknown */
};

/* The roofline of a run of problem under problems_dir (NULL: installed):
 * the GPU its problem names when the table has it, else the highest figure
 * of every GPU of the table. 0, or -1 when no table can be read. */
int flagcheck_roof(const char *problem, const char *problems_dir, struct flagcheck_roof *out);
void flagcheck_roof_free(struct flagcheck_roof *r);
/* What is wrong with one benchmark line's numbers (a benchlog kind and its
 * tflops, gbps and peak_fraction value, -1 absent) against roof (NULL: the
 * peak_fraction alone): "peak_fraction above 1", "GB/s above DRAM peak",
 * "TFLOPS above peak"; NULL when nothing. GB/s is judged on BL_VARIANT
 * lines only (the benchmark flushes the L2; an agent's loop may not). */
const char *flagcheck_physics_why(const struct flagcheck_roof *roof, int kind, double tflops, double gbps,
                                  double value);

#endif
