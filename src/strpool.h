/* strpool.h: interned strings, one copy of each, kept in big blocks and
 * freed with the pool. A dataset of 14,000 runs names a dozen models and
 * seven problems: a copy a run of each was 2 MB of small allocations to
 * make and to fault in, a tenth of opening it (issue #28). */
#ifndef KB_STRPOOL_H
#define KB_STRPOOL_H

#include <stddef.h>

struct strpool;

struct strpool *strpool_new(void);
void strpool_free(struct strpool *p);

/* The pool's copy of s (NULL for NULL), valid until strpool_free; equal
 * strings give the same pointer. */
const char *strpool_get(struct strpool *p, const char *s);
size_t strpool_count(const struct strpool *p);

#endif
