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
#define RELIT_ALTS 4

/* A literal and its two rarest bytes, looked for first. */
struct relit_one {
	char s[RELIT_MAX];        /* lower case when icase */
	size_t n;
	size_t o1, o2;
};

struct relit {
	char s[RELIT_MAX];        /* the literal; lower case when icase */
	size_t n;                 /* 0: none (no prefilter) */
	int icase;                /* ASCII case ignored (its letters have no other Unicode fold) */
	int one_line;             /* no match can hold a '\n': a line without the literal has no match */
	size_t o1, o2;            /* its two rarest bytes, looked for first */
	/* A top-level alternation whose branches share no literal but each has
	 * one ("error|warning"): every match holds one of them, s being the
	 * first; 0 when s alone is required. */
	size_t nalt;
	struct relit_one alt[RELIT_ALTS - 1];
};

/* The literal of pattern, compiled case-blind when caseless (smart case,
 * -i). Returns l->n. */
size_t relit_extract(const char *pattern, int caseless, struct relit *l);

/* The first occurrence of the literal (of any of them) in text[start,
 * len): its offset, or len when there is none. */
size_t relit_find(const struct relit *l, const char *text, size_t len, size_t start);

/* The same for a caller that asks again further on in the same text (a
 * search going from match to match): where each literal was found is
 * kept in m, so that a rare one is not looked for again from every
 * start. m zeroed (or used for another text) before the first call. */
struct relit_memo {
	const char *text;
	size_t len;
	size_t from[RELIT_ALTS], at[RELIT_ALTS];
};
size_t relit_find_memo(const struct relit *l, struct relit_memo *m, const char *text, size_t len, size_t start);

#endif
