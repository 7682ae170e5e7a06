/* forbid.h: the forbidden-pattern check of a solution's source (a problem's
 * "forbidden" list: PCRE2 patterns, e.g. "cublasLt" or "torch\\.topk"). */
#ifndef KB_FORBID_H
#define KB_FORBID_H

#include <stddef.h>

struct forbid;

struct forbid_hit {
	int line, col;          /* 1-based; col counts bytes */
	int pattern;            /* index into the patterns given */
	char *text;             /* the source line that tripped it (owned) */
};

/* Compiles the patterns (with JIT where available). NULL with *err (owned)
 * naming the pattern and the offset of the syntax error. */
struct forbid *forbid_new(const char *const *patterns, int n, char **err);
void forbid_free(struct forbid *f);
/* 1 with *hit filled for the earliest match in the source (the first
 * pattern on a tie), 0 when clean. */
int forbid_scan(const struct forbid *f, const char *src, size_t len, struct forbid_hit *hit);
void forbid_hit_free(struct forbid_hit *hit);

#endif
