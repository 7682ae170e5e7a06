/* benchlog.h: reads the lines KernelBench-Hard's check.py and benchmark.py
 * print, our harness prints, and agents print in tool output, into numbers:
 *   shape=<i> variant=<name> tflops=<x> gbps=<x> ms=<x>
 *   shape=<i> solution_peak_fraction=<x>
 *   peak_fraction: <x>
 *   RESULT: OK|LOW
 *   PASS  /  FAIL: <why>
 *   time shape=<i> ms=<median> min=<x> max=<x>          (our harness)
 *   benchmark_event event=variant_end shape=<i> variant=<v> ... ms=<x>
 *   any other line with "<number> ms" in it: a plain timing
 * Input comes a chunk at a time (a child's pipe, a growing log) or a line at
 * a time; both end with benchlog_finish. */
#ifndef KB_BENCHLOG_H
#define KB_BENCHLOG_H

#include <stddef.h>

#include "util.h"

enum benchlog_kind {
	BL_NONE,        /* nothing we read */
	BL_VARIANT,     /* shape=.. variant=.. tflops=.. gbps=.. ms=.. */
	BL_SHAPE_PEAK,  /* shape=.. solution_peak_fraction=.. */
	BL_PEAK,        /* peak_fraction: .. */
	BL_RESULT,      /* RESULT: .. */
	BL_PASS,
	BL_FAIL,        /* FAIL: .. (not ninja's "FAILED:") */
	BL_HTIME,       /* time shape=.. ms=.. min=.. max=.. */
	BL_EVENT,       /* benchmark_event event=variant_end ... ms=.. */
	BL_TIMING,      /* "... 1.234 ms" */
};

/* One classified line. Strings point into the line given (not owned). */
struct benchlog_line {
	enum benchlog_kind kind;
	int shape;                  /* -1 when the line names none */
	const char *variant;        /* BL_VARIANT, BL_EVENT */
	size_t variant_len;
	double tflops, gbps, ms;    /* -1 when absent */
	double min, max;            /* BL_HTIME */
	double value;               /* BL_SHAPE_PEAK, BL_PEAK */
	const char *text;           /* FAIL message, RESULT word, timing label */
	size_t text_len;
};

/* Whether a variant is the harness's own (eager, compiled, sota,
 * reference), not the agent's kernel: a line of theirs above the roofline
 * says the table or the byte formula is off, not that a kernel cheats. */
int benchlog_reference_variant(const char *v, size_t n);

/* What the line is; stateless. */
enum benchlog_kind benchlog_classify(const char *line, size_t len, struct benchlog_line *out);

struct benchlog_entry {         /* a BL_VARIANT, BL_HTIME, BL_EVENT or BL_TIMING */
	enum benchlog_kind kind;
	int line;                   /* 1-based line number in the input */
	int shape;
	char *variant;              /* "solution"; for BL_TIMING the label */
	double tflops, gbps, ms, min, max;
};

struct benchlog {
	struct benchlog_entry *e;   /* in input order */
	int ne, cap;
	double *shape_peak;         /* solution_peak_fraction by shape, -1 unset */
	int nshape_peak;
	double peak_fraction;       /* last "peak_fraction:", -1 when none */
	char *result;               /* last RESULT word */
	int status;                 /* last verdict: 1 PASS, -1 FAIL, 0 none */
	int npass, nfail;
	char *fail;                 /* message of the first FAIL */
	int fail_line;
	int lineno;                 /* lines read so far */
	struct sbuf partial;        /* a line not yet ended by '\n' */
};

struct benchlog *benchlog_new(void);
void benchlog_free(struct benchlog *b);
/* Bytes from a stream; complete lines are read at once. */
void benchlog_feed(struct benchlog *b, const char *data, size_t len);
/* One complete line without its '\n'; returns its kind. */
enum benchlog_kind benchlog_line(struct benchlog *b, const char *line, size_t len);
/* Reads a last line that had no '\n'. Idempotent. */
void benchlog_finish(struct benchlog *b);
/* The last entry of kind BL_VARIANT (or BL_HTIME / BL_EVENT) for shape and
 * variant (NULL: any), NULL when none. */
const struct benchlog_entry *benchlog_find(const struct benchlog *b, enum benchlog_kind kind, int shape,
                                           const char *variant);

#endif
