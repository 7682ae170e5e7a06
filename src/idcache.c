/* idcache.c: an open-addressing table of path -> (identity, key, value),
 * one line a path in its file: "CRC DEV INO SIZE MTIME KEY\tVALUE\tPATH",
 * CRC the CRC-32C (8 hex digits) of what follows its space: a damaged line
 * is dropped, and its value worked out again. */
#include "idcache.h"
#include "cachedir.h"
#include "crc32c.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct ic_entry {
	char *path, *value;           /* owned; path NULL: a free slot */
	unsigned long long id[4], key;
};

struct idcache {
	char *file;                   /* owned; NULL: nothing is saved */
	struct ic_entry *ent;         /* owned, power-of-two slots */
	size_t nslot, nent;
	int dirty;
	int loaded;                   /* the file is read at the first lookup, not at open */
};

unsigned long long idcache_fnv(unsigned long long h, const void *p, size_t n)
{
	const unsigned char *s = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 1099511628211ull;
	return h;
}

unsigned long long idcache_str_hash(unsigned long long h, const char *s)
{
	return idcache_fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

char *idcache_dir(const char *kind)
{
	return cachedir_kind(kind);
}

static unsigned long long ic_mtime_ns(const struct stat *st)
{
	return (unsigned long long)st->st_mtim.tv_sec * 1000000000ull + (unsigned long long)st->st_mtim.tv_nsec;
}

int idcache_identify(const char *path, unsigned long long id[4])
{
	struct stat st;
	if (!path || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return -1;
	id[0] = (unsigned long long)st.st_dev;
	id[1] = (unsigned long long)st.st_ino;
	id[2] = (unsigned long long)st.st_size;
	id[3] = ic_mtime_ns(&st);
	return 0;
}

/* A file changed within the last IDCACHE_RACY_S seconds may change again
 * within the clock tick its mtime was taken in (a few ms), keeping its
 * size and mtime: kept now, a second change could go unseen. Such a file
 * is worked out again each time until it is older (git's "racily clean"). */
#define IDCACHE_RACY_S 2

int idcache_racy(const unsigned long long id[4])
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	unsigned long long t = (unsigned long long)now.tv_sec * 1000000000ull + (unsigned long long)now.tv_nsec;
	return id[3] + IDCACHE_RACY_S * 1000000000ull > t;
}

/* the running program's file, found once: /proc/self/exe stays the file
 * this process runs even when a rebuild replaces it (a stat a lookup was
 * 5% of a warm search over 14k runs) */
static unsigned long long ic_exe[2];
static pthread_once_t ic_exe_once = PTHREAD_ONCE_INIT;

static void ic_exe_find(void)
{
	struct stat st;
	if (stat("/proc/self/exe", &st) == 0) {
		ic_exe[0] = (unsigned long long)st.st_size;
		ic_exe[1] = ic_mtime_ns(&st);
	}
}

void idcache_exe(unsigned long long exe[2])
{
	pthread_once(&ic_exe_once, ic_exe_find);
	exe[0] = ic_exe[0];
	exe[1] = ic_exe[1];
}

static struct ic_entry *ic_slot(const struct idcache *c, const char *path)
{
	unsigned long long h = idcache_str_hash(IDCACHE_FNV0, path);
	for (size_t j = (size_t)h & (c->nslot - 1);; j = (j + 1) & (c->nslot - 1))
		if (!c->ent[j].path || !strcmp(c->ent[j].path, path))
			return &c->ent[j];
}

/* Room for one more entry: the table doubles at three quarters full. */
static void ic_grow(struct idcache *c)
{
	if ((c->nent + 1) * 4 <= c->nslot * 3)
		return;
	struct ic_entry *old = c->ent;
	size_t n = c->nslot;
	c->nslot = n ? 2 * n : 256;
	c->ent = xcalloc(c->nslot, sizeof *c->ent);
	for (size_t i = 0; i < n; i++)
		if (old[i].path)
			*ic_slot(c, old[i].path) = old[i];
	free(old);
}

/* Stores without the checks idcache_put makes for the file's sake. */
static void ic_store(struct idcache *c, const char *path, const unsigned long long id[4], unsigned long long key,
                     const char *value, size_t vlen)
{
	ic_grow(c);
	struct ic_entry *e = ic_slot(c, path);
	if (!e->path) {
		e->path = xstrdup(path);
		c->nent++;
	}
	free(e->value);
	e->value = xstrndup(value, vlen);
	memcpy(e->id, id, sizeof e->id);
	e->key = key;
}

/* "DEV INO SIZE MTIME KEY" (decimal, then hex) filling p up to end
 * exactly; strtoull, not sscanf: a line an annotated run. */
static int ic_numbers(const char *p, const char *end, unsigned long long id[4], unsigned long long *key)
{
	for (int k = 0; k < 5; k++) {
		int hex = k == 4;
		char *e;
		if (!(*p >= '0' && *p <= '9') && !(hex && *p >= 'a' && *p <= 'f'))
			return 0;   /* strtoull would take a sign or spaces */
		errno = 0;
		unsigned long long v = strtoull(p, &e, hex ? 16 : 10);
		if (errno || (hex ? e != end : *e != ' '))
			return 0;
		if (hex)
			*key = v;
		else
			id[k] = v;
		p = e + !hex;
	}
	return 1;
}

/* A line's checksum: its first 8 hex digits, over what follows the space. */
static int ic_line_ok(const char *p, size_t n)
{
	char want[9];
	if (n < 10 || p[8] != ' ')
		return 0;
	snprintf(want, sizeof want, "%08x", (unsigned)crc32c(0, p + 9, n - 9));
	return memcmp(p, want, 8) == 0;
}

/* The table's file, read without following a link; its use noted (LRU). */
static char *ic_read(const char *file, size_t *len)
{
	int fd = cachedir_open(file);
	struct stat st;
	char *text = NULL;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		size_t n = (size_t)st.st_size, got = 0;
		text = xmalloc(n + 1);
		ssize_t k;
		while (got < n && ((k = read(fd, text + got, n - got)) > 0 || (k < 0 && errno == EINTR)))
			got += k > 0 ? (size_t)k : 0;
		*len = got;
		cachedir_used(fd, &st);
	}
	close(fd);
	return text;
}

static void ic_load(struct idcache *c)
{
	size_t len = 0;
	c->loaded = 1;
	char *text = c->file ? ic_read(c->file, &len) : NULL;
	for (char *p = text, *nl; p && p < text + len; p = nl + 1) {
		if (!(nl = memchr(p, '\n', len - (size_t)(p - text))))
			break;  /* a torn last line */
		*nl = '\0';
		if (!ic_line_ok(p, (size_t)(nl - p)))
			continue;
		p += 9;
		unsigned long long id[4], key;
		char *tab1 = strchr(p, '\t'), *tab2 = tab1 ? strchr(tab1 + 1, '\t') : NULL;
		if (tab2 && tab2[1] && ic_numbers(p, tab1, id, &key))
			ic_store(c, tab2 + 1, id, key, tab1 + 1, (size_t)(tab2 - tab1 - 1));
	}
	free(text);
}

struct idcache *idcache_open(const char *kind, const char *root)
{
	struct idcache *c = xcalloc(1, sizeof *c);
	char real[PATH_MAX], *dir = idcache_dir(kind);
	if (dir && root && realpath(root, real))
		c->file = xasprintf("%s/%016llx", dir, idcache_str_hash(IDCACHE_FNV0, real));
	free(dir);
	return c;
}

static void ic_save(struct idcache *c)
{
	if (!c->file || !c->dirty)
		return;
	struct sbuf b, line;
	sbuf_init(&b);
	sbuf_init(&line);
	for (size_t i = 0; i < c->nslot; i++) {
		const struct ic_entry *e = &c->ent[i];
		if (!e->path)
			continue;
		sbuf_reset(&line);
		sbuf_addf(&line, "%llu %llu %llu %llu %llx\t%s\t%s", e->id[0], e->id[1], e->id[2], e->id[3], e->key,
		          e->value, e->path);
		sbuf_addf(&b, "%08x %s\n", (unsigned)crc32c(0, line.s, line.len), line.s);
	}
	cachedir_put(c->file, b.s, b.len);   /* a cache needs no fsync: a torn line fails its check */
	sbuf_free(&line);
	sbuf_free(&b);
}

void idcache_free(struct idcache *c)
{
	if (!c)
		return;
	ic_save(c);
	for (size_t i = 0; i < c->nslot; i++) {
		free(c->ent[i].path);
		free(c->ent[i].value);
	}
	free(c->ent);
	free(c->file);
	free(c);
}

const char *idcache_get(struct idcache *c, const char *path, const unsigned long long id[4],
                        unsigned long long key)
{
	if (!c || !path)
		return NULL;
	if (!c->loaded)   /* a table opened for a browser's first screen costs nothing */
		ic_load(c);
	if (!c->nslot)
		return NULL;
	const struct ic_entry *e = ic_slot(c, path);
	if (!e->path || e->key != key || memcmp(e->id, id, sizeof e->id))
		return NULL;
	return e->value;
}

void idcache_put(struct idcache *c, const char *path, const unsigned long long id[4], unsigned long long key,
                 const char *value)
{
	if (!c || !path || !value || strpbrk(path, "\t\n") || strpbrk(value, "\t\n") || idcache_racy(id))
		return;
	const char *old = idcache_get(c, path, id, key);   /* (reads the table's file first) */
	if (old && !strcmp(old, value))
		return;
	ic_store(c, path, id, key, value, strlen(value));
	c->dirty = 1;
}
