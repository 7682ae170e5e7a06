/* relit.h: a literal that every match of a regular expression must
 * contain, read from the pattern as PCRE2 will compile it, so that a
 * search can skip text without it (memmem, or a two-case scan) before
 * running the expression. Conservative: a construct it does not know well
 * (inline options but a leading (?i), verbs, \Q, \x, conditionals,
 * recursion, odd braces) gives no literal at all, never a wrong one. */
#ifndef KB_RELIT_H
#define KB_RELIT_H

#include <stddef.h>

#define RELIT_MAX 64

struct relit {
	char s[RELIT_MAX];        /* the literal; lower case when icase */
	size_t n;                 /* 0: none (no prefilter) */
	int icase;                /* ASCII case ignored (its letters have no other Unicode fold) */
	int one_line;             /* no match can hold a '\n': a line without the literal has no match */
	size_t o1, o2;            /* its two rarest bytes, looked for first */
};

/* The literal of pattern, compiled case-blind when caseless (smart case,
 * -i). Returns l->n. */
size_t relit_extract(const char *pattern, int caseless, struct relit *l);

/* The first occurrence of the literal in text[start, len): its offset, or
 * len when there is none. */
size_t relit_find(const struct relit *l, const char *text, size_t len, size_t start);

#endif
