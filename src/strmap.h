/* strmap.h: a table from strings to two ints (a message's event, a call
 * id's queue), grown a slice at a time: when it doubles, the old slots move
 * over in the next calls, a few each, so that no one call pays for all
 * (a gigabyte transcript has millions of ids, and moving them at once held
 * a key for a tenth of a second). */
#ifndef KB_STRMAP_H
#define KB_STRMAP_H

#include <stddef.h>

struct strmap;

/* own: the map keeps copies of its keys; else they are borrowed and must
 * outlive it. */
struct strmap *strmap_new(int own);
void strmap_free(struct strmap *m);

/* The two ints of key, NULL when it is absent. The pointer is valid until
 * the next strmap_put. */
int *strmap_get(struct strmap *m, const char *key);
/* The same, made (both -1) when absent; *made (may be NULL) says whether
 * it was. */
int *strmap_put(struct strmap *m, const char *key, int *made);
size_t strmap_count(const struct strmap *m);
/* Slots looked at by lookups so far: the work, which tests hold to a
 * bound. */
size_t strmap_probes(const struct strmap *m);
/* Whether old slots are still to move over (tests). */
int strmap_moving(const struct strmap *m);

#endif
