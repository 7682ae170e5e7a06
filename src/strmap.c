/* strmap.c: open addressing with linear probing, grown incrementally.
 * While the table that was outgrown still has slots, each call moves
 * STRMAP_MOVE of them (in order) to the new one; a key found in the old
 * table before its turn moves at once and its old slot is marked gone, so
 * that each key has one place its ints are read and written, and the old
 * probe chains stay whole. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "idcache.h"
#include "strmap.h"
#include "util.h"

#define STRMAP_MOVE 64
#define STRMAP_FIRST 64

struct sm_slot {
	const char *key;          /* NULL: free */
	unsigned hash;
	unsigned char gone;       /* old table: moved over ahead of its turn */
	int v[2];
};

struct sm_table {
	struct sm_slot *s;
	size_t cap;               /* a power of two; 0: none */
};

struct strmap {
	struct sm_table cur, old;
	size_t moved;             /* old slots before this one have moved over */
	size_t n;                 /* keys */
	int own;
	size_t probes;
};

static unsigned sm_hash(const char *s)
{
	unsigned long long h = idcache_fnv(IDCACHE_FNV0, s, strlen(s));
	return (unsigned)(h ^ (h >> 32));
}

struct strmap *strmap_new(int own)
{
	struct strmap *m = xcalloc(1, sizeof *m);
	m->own = own;
	return m;
}

/* The slot of key in t, NULL when absent. */
static struct sm_slot *sm_find(struct strmap *m, struct sm_table *t, const char *key, unsigned h)
{
	if (!t->cap)
		return NULL;
	for (size_t j = h & (t->cap - 1);; j = (j + 1) & (t->cap - 1)) {
		struct sm_slot *s = &t->s[j];
		m->probes++;
		if (!s->key)
			return NULL;
		if (s->hash == h && !s->gone && strcmp(s->key, key) == 0)
			return s;
	}
}

/* A free slot of t for hash h (t has room). */
static struct sm_slot *sm_free_slot(struct sm_table *t, unsigned h)
{
	size_t j = h & (t->cap - 1);
	while (t->s[j].key)
		j = (j + 1) & (t->cap - 1);
	return &t->s[j];
}

/* The old slot o moved into the current table (its key goes with it). */
static struct sm_slot *sm_move(struct strmap *m, const struct sm_slot *o)
{
	struct sm_slot *s = sm_free_slot(&m->cur, o->hash);
	*s = *o;
	s->gone = 0;
	return s;
}

/* Moves up to max old slots over; the old table goes once all have. */
static void sm_migrate(struct strmap *m, size_t max)
{
	for (size_t k = 0; k < max && m->moved < m->old.cap; k++) {
		struct sm_slot *o = &m->old.s[m->moved++];
		if (o->key && !o->gone)
			sm_move(m, o);
	}
	if (m->old.cap && m->moved == m->old.cap) {
		free(m->old.s);
		m->old = (struct sm_table){ 0 };
		m->moved = 0;
	}
}

/* key's slot in the current table, moved over from the old one if it is
 * still there; NULL when absent. */
static struct sm_slot *sm_lookup(struct strmap *m, const char *key, unsigned h)
{
	sm_migrate(m, STRMAP_MOVE);
	struct sm_slot *s = sm_find(m, &m->cur, key, h);
	if (s || !m->old.cap)
		return s;
	struct sm_slot *o = sm_find(m, &m->old, key, h);
	if (!o)
		return NULL;
	s = sm_move(m, o);
	o->gone = 1;
	return s;
}

int *strmap_get(struct strmap *m, const char *key)
{
	struct sm_slot *s = sm_lookup(m, key, sm_hash(key));
	return s ? s->v : NULL;
}

int *strmap_put(struct strmap *m, const char *key, int *made)
{
	unsigned h = sm_hash(key);
	struct sm_slot *s = sm_lookup(m, key, h);
	if (made)
		*made = !s;
	if (s)
		return s->v;
	if ((m->n + 1) * 4 > m->cur.cap * 3) {  /* over three quarters full: double */
		sm_migrate(m, SIZE_MAX);            /* the last doubling's move done first (rare) */
		m->old = m->cur;
		m->moved = 0;
		m->cur.cap = m->old.cap ? m->old.cap * 2 : STRMAP_FIRST;
		m->cur.s = xcalloc(m->cur.cap, sizeof *m->cur.s);
		if (!m->old.cap)
			m->old = (struct sm_table){ 0 };
	}
	s = sm_free_slot(&m->cur, h);
	s->key = m->own ? xstrdup(key) : key;
	s->hash = h;
	s->gone = 0;
	s->v[0] = s->v[1] = -1;
	m->n++;
	return s->v;
}

size_t strmap_count(const struct strmap *m)
{
	return m->n;
}

size_t strmap_probes(const struct strmap *m)
{
	return m->probes;
}

int strmap_moving(const struct strmap *m)
{
	return m->old.cap != 0;
}

void strmap_free(struct strmap *m)
{
	if (!m)
		return;
	if (m->own) {
		for (size_t i = 0; i < m->cur.cap; i++)
			free((char *)m->cur.s[i].key);
		/* old slots not moved yet still own their keys */
		for (size_t i = m->moved; i < m->old.cap; i++)
			if (!m->old.s[i].gone)
				free((char *)m->old.s[i].key);
	}
	free(m->cur.s);
	free(m->old.s);
	free(m);
}
