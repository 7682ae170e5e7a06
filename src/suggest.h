/* suggest.h: "did you mean" for a mistyped word (a command, an option, a
 * problem name), by edit distance as git does for its commands. */
#ifndef KB_SUGGEST_H
#define KB_SUGGEST_H

#include <getopt.h>
#include <stddef.h>

/* Edits (insert, delete, substitute, swap two neighbours) from a to b. */
int suggest_distance(const char *a, const char *b);
/* The candidate closest to word when it is close enough to be a typo of
 * it (one edit for words of up to four letters, two beyond) and no other
 * is as close; NULL otherwise. Borrowed from cands. */
const char *suggest_closest(const char *word, const char *const *cands, size_t n);
/* The long option of opts closest to arg ("--jsno" or "--jsno=x"), as
 * "--json"; NULL when none. Owned. */
char *suggest_option(const struct option *opts, const char *arg);
/* The problem folder under dir closest to name, by its full name or its
 * name without the number ("fp8_gem" -> 01_fp8_gemm); NULL when none.
 * Owned. */
char *suggest_problem(const char *dir, const char *name);

#endif
