/* diff.h: line-based unified diff (Myers) between two texts. */
#ifndef KB_DIFF_H
#define KB_DIFF_H

/* Returns a newly allocated unified diff with `context` lines of context,
 * headers "--- a/<path>" and "+++ b/<path>", "" when a and b are equal.
 * NULL a or b count as empty (file creation / deletion). */
char *diff_unified(const char *path, const char *a, const char *b, int context);
/* The same, every line of both split and compared (diff_unified first
 * narrows both to the part that differs, byte by byte): tests compare. */
char *diff_unified_whole(const char *path, const char *a, const char *b, int context);

#endif
