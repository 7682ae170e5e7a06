/* contam.h: contamination, one run drawing on another's work. Exposure: a
 * tool result or a listing names another run's directory (a run id,
 * YYYYMMDD_HHMMSS_...). Use: a tool call reads, copies or runs a file
 * under one, or the run's solution shares its code with an earlier run's
 * solution: winnowed fingerprints of normalised token k-grams, as MOSS
 * computes them (Schleimer, Wilkerson, Aiken 2003). */
#ifndef KB_CONTAM_H
#define KB_CONTAM_H

#include <stddef.h>

struct run;

/* Tokens per k-gram, and the winnowing window: any run of shared code of
 * CONTAM_K + CONTAM_W - 1 tokens or more is sure to share a fingerprint. */
#define CONTAM_K 12
#define CONTAM_W 8
/* Flagged when at least this share of the solution's fingerprints, and
 * CONTAM_MIN_SHARED of them, are in one earlier solution. */
#define CONTAM_THRESHOLD 0.5
#define CONTAM_MIN_SHARED 20
/* Earlier runs a solution is compared with: the latest of its problem. */
#define CONTAM_MAX_EARLIER 200

/* A file's fingerprints: sorted, distinct hashes. */
struct contam_fp {
	unsigned long long *h;
	size_t n;
};

/* The fingerprints of source text (Python or CUDA C++: comments dropped,
 * numbers and strings made one token each, identifiers kept). */
void contam_fingerprint(const char *text, size_t len, struct contam_fp *out);
void contam_fp_free(struct contam_fp *fp);
/* Hashes both hold. */
size_t contam_shared(const struct contam_fp *a, const struct contam_fp *b);

/* The first run id (YYYYMMDD_HHMMSS_ then name characters) in s at or
 * after *from that is not own (nor a prefix of it): its start, *len its
 * length, *from moved past it; NULL when none. */
const char *contam_find_id(const char *s, const char *own, size_t *len, const char **from);

/* Whether the shell command's part holding position at only lists (ls,
 * find, tree, du, stat, wc, echo): a listing exposes, it does not use. */
int contam_lists(const char *cmd, const char *at);

/* The run's id: its folder in a dataset (runs/ID/transcript), else its
 * metadata's. Owned; NULL when neither. */
char *contam_run_id(const struct run *r);

/* The earlier run (by id, in the same dataset's runs/; of the same
 * problem when one is given: a folder name ending in it) whose solution
 * shares most of the final solution of r, when at or above the threshold:
 * 0 with *other (owned), *overlap (the share) and *ev (the event that
 * wrote that solution) set; -1 when none or r is in no dataset. */
int contam_solution_match(const struct run *r, const char *problem, char **other, double *overlap, size_t *shared,
                          long *ev);

#endif
