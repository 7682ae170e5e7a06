/* strpool.c: interned strings (strpool.h). The table holds pointers into
 * blocks of text, open addressing at most half full; a block is never
 * moved, so a pointer once given stays valid. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "idcache.h"
#include "strpool.h"
#include "util.h"

#define STRPOOL_BLOCK 16384

struct sp_block {
	struct sp_block *next;
	size_t used, cap;
	char text[];
};

struct strpool {
	const char **slot;            /* NULL: empty */
	size_t nslot, n;
	struct sp_block *blocks;      /* the newest first */
};

struct strpool *strpool_new(void)
{
	struct strpool *p = xcalloc(1, sizeof *p);
	p->nslot = 64;
	p->slot = xcalloc(p->nslot, sizeof *p->slot);
	return p;
}

void strpool_free(struct strpool *p)
{
	if (!p)
		return;
	for (struct sp_block *b = p->blocks, *next; b; b = next) {
		next = b->next;
		free(b);
	}
	free(p->slot);
	free(p);
}

static size_t sp_find(const struct strpool *p, const char *s, size_t h)
{
	size_t mask = p->nslot - 1;
	for (size_t j = h & mask;; j = (j + 1) & mask)
		if (!p->slot[j] || !strcmp(p->slot[j], s))
			return j;
}

static void sp_grow(struct strpool *p)
{
	const char **old = p->slot;
	size_t nold = p->nslot;
	p->nslot *= 2;
	p->slot = xcalloc(p->nslot, sizeof *p->slot);
	for (size_t j = 0; j < nold; j++)
		if (old[j])
			p->slot[sp_find(p, old[j], (size_t)idcache_str_hash(IDCACHE_FNV0, old[j]))] = old[j];
	free(old);
}

/* Room for n bytes: in the newest block, else a new one (a string longer
 * than a block gets one of its own, behind the newest). */
static char *sp_room(struct strpool *p, size_t n)
{
	struct sp_block *b = p->blocks;
	if (b && b->cap - b->used >= n) {
		char *at = b->text + b->used;
		b->used += n;
		return at;
	}
	size_t cap = n > STRPOOL_BLOCK / 4 ? n : STRPOOL_BLOCK;
	struct sp_block *nb = xmalloc(sizeof *nb + cap);
	nb->used = n;
	nb->cap = cap;
	if (b && cap == n) {   /* (the newest keeps its room) */
		nb->next = b->next;
		b->next = nb;
	} else {
		nb->next = b;
		p->blocks = nb;
	}
	return nb->text;
}

const char *strpool_get(struct strpool *p, const char *s)
{
	if (!s)
		return NULL;
	size_t j = sp_find(p, s, (size_t)idcache_str_hash(IDCACHE_FNV0, s));
	if (p->slot[j])
		return p->slot[j];
	size_t n = strlen(s) + 1;
	char *copy = sp_room(p, n);
	memcpy(copy, s, n);
	p->slot[j] = copy;
	if (++p->n * 2 > p->nslot)
		sp_grow(p);
	return copy;
}

size_t strpool_count(const struct strpool *p)
{
	return p->n;
}
