/* cachedir.c: the cache's directory, its trust check, its bound. */
#include "config.h"

#include "cachedir.h"
#include "safefile.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char *cd_path(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	if (getenv("KBTUI_NO_CACHE"))
		return NULL;
	if (xdg && *xdg == '/')
		return xasprintf("%s/kbtui", xdg);
	if (home && *home == '/')
		return xasprintf("%s/.cache/kbtui", home);
	return NULL;
}

static pthread_mutex_t cd_lock = PTHREAD_MUTEX_INITIALIZER;
static char cd_why[512];      /* the refusal, said once; "" while trusted */

/* Whether dir may hold the cache: a directory of ours that only we can
 * write. Another user who can write it could plant links or entries. */
static int cd_trusted(const char *dir)
{
	struct stat st;
	const char *why = NULL;
	char buf[128];
	if (stat(dir, &st) < 0) {
		snprintf(buf, sizeof buf, "%s", strerror(errno));
		why = buf;
	} else if (!S_ISDIR(st.st_mode)) {
		why = "not a directory";
	} else if (st.st_uid != geteuid()) {
		snprintf(buf, sizeof buf, "owned by uid %u, not by you (uid %u)", (unsigned)st.st_uid, (unsigned)geteuid());
		why = buf;
	} else if (st.st_mode & 022) {
		const char *who = (st.st_mode & 022) == 022 ? "its group and others" : st.st_mode & 020 ? "its group" : "others";
		snprintf(buf, sizeof buf, "writable by %s (mode %04o): chmod 700 it", who, (unsigned)(st.st_mode & 07777));
		why = buf;
	}
	if (!why)
		return 1;
	pthread_mutex_lock(&cd_lock);
	int first = !cd_why[0];
	if (first) {
		snprintf(cd_why, sizeof cd_why, "%s: %s", dir, why);
		textsafe_fprintf(stderr, "kbtui: not using the cache %s\n", cd_why);
	}
	pthread_mutex_unlock(&cd_lock);
	return 0;
}

/* The directory made (0700, its parents too) when missing, then checked. */
static char *cd_made(char *dir)
{
	if (!dir)
		return NULL;
	char *below = xasprintf("%s/", dir);
	int made = util_mkdir_parents(below);
	free(below);
	if (made < 0 || !cd_trusted(dir)) {
		free(dir);
		return NULL;
	}
	return dir;
}

char *cachedir_root(void)
{
	return cd_made(cd_path());
}

/* Folders (the root, each kind's) already made and checked in this
 * process, by path: a search asks for its folder once a run, and a stat
 * is then enough. */
static char *cd_known[8];

static int cd_known_still(const char *dir)
{
	struct stat st;
	int known = 0;
	pthread_mutex_lock(&cd_lock);
	for (int i = 0; i < 8 && cd_known[i] && !known; i++)
		known = !strcmp(cd_known[i], dir);
	pthread_mutex_unlock(&cd_lock);
	return known && stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022);
}

static void cd_known_add(const char *dir)
{
	pthread_mutex_lock(&cd_lock);
	free(cd_known[7]);
	memmove(cd_known + 1, cd_known, 7 * sizeof *cd_known);
	cd_known[0] = xstrdup(dir);
	pthread_mutex_unlock(&cd_lock);
}

/* cachedir_root, a stat only when this process made and checked it
 * before (each entry written asks for it: making its parents again was
 * four more system calls an entry). */
static char *cd_root_known(void)
{
	char *dir = cd_path();
	if (!dir || cd_known_still(dir))
		return dir;
	free(dir);
	dir = cachedir_root();
	if (dir)
		cd_known_add(dir);
	return dir;
}

char *cachedir_kind(const char *kind)
{
	char *path = cd_path(), *dir = path ? xasprintf("%s/%s", path, kind) : NULL;
	free(path);
	if (!dir || cd_known_still(dir))
		return dir;
	free(dir);
	char *root = cachedir_root();
	dir = cd_made(root ? xasprintf("%s/%s", root, kind) : NULL);
	free(root);
	if (dir) {
		cd_known_add(dir);
		/* the bound read (and a bad one said) by the process that opened
		 * the cache, before a search's helpers, which never speak, fork */
		(void)cachedir_cap();
	}
	return dir;
}

void cachedir_check(void)
{
	static const char *const kinds[] = {"text", "flags", "verdicts", "counts"};
	char *root = cachedir_root();
	for (size_t i = 0; root && i < sizeof kinds / sizeof *kinds; i++) {
		char *dir = xasprintf("%s/%s", root, kinds[i]);
		struct stat st;
		if (lstat(dir, &st) == 0)
			cd_trusted(dir);
		free(dir);
	}
	free(root);
}

const char *cachedir_refused(void)
{
	return cd_why[0] ? cd_why : NULL;
}

/* A size as people write one: a number (a fraction too: 1.5G), then
 * optionally K, M, G or T (1024s, any case) and B or iB: "512M", "5MB",
 * "2GiB", "1073741824". 0 and *v, or -1 for anything else (a minus sign,
 * a unit we do not know, a size past 2^64). */
int cachedir_parse_size(const char *s, uint64_t *v)
{
	const char *p = s;
	long double n = 0, scale = 1;
	int digits = 0;
	while (*p == ' ')
		p++;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		n = n * 10 + (*p - '0');
	if (*p == '.')
		for (long double f = 0.1L; *++p >= '0' && *p <= '9'; f /= 10, digits++)
			n += f * (*p - '0');
	if (!digits)
		return -1;
	const char *units = "KMGT", *u = *p ? strchr(units, *p & ~0x20) : NULL;
	if (u) {
		for (const char *k = units; k <= u; k++)
			scale *= 1024;
		p++;
		if (*p == 'i' && (p[1] == 'B' || p[1] == 'b'))
			p++;
	}
	if (*p == 'B' || *p == 'b')
		p++;
	while (*p == ' ')
		p++;
	long double bytes = n * scale;
	if (*p || bytes >= 18446744073709551616.0L)
		return -1;
	*v = (uint64_t)bytes;
	return 0;
}

static int cd_cap_warned;

uint64_t cachedir_cap(void)
{
	const char *s = getenv("KBTUI_CACHE_MAX");
	uint64_t v;
	if (!s || !*s)
		return CACHEDIR_DEFAULT_MAX;
	if (cachedir_parse_size(s, &v) == 0)
		return v;
	/* said once: a bound the user thinks is set but is not would let the
	 * cache grow to a size they chose against */
	pthread_mutex_lock(&cd_lock);
	if (!cd_cap_warned++)
		textsafe_fprintf(stderr, "kbtui: KBTUI_CACHE_MAX=%s is not a size (a number of bytes, or with K, M, G or T: "
		                 "512M, 2GiB): the cache keeps its default bound of 1 GB\n", s);
	pthread_mutex_unlock(&cd_lock);
	return CACHEDIR_DEFAULT_MAX;
}

int cachedir_cap_set(void)
{
	const char *s = getenv("KBTUI_CACHE_MAX");
	uint64_t v;
	return s && *s && cachedir_parse_size(s, &v) == 0;
}

int cachedir_open(const char *path)
{
	return open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
}

void cachedir_used(int fd, const struct stat *st)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	if (st->st_mtim.tv_sec + 60 < now.tv_sec)
		futimens(fd, NULL);   /* fails on a read-only cache: its order is kept */
}

/* ---- the bound ------------------------------------------------------------- */

/* An entry: a file of 16 hex digits in a kind's folder; ".NAME.XXXXXX" is
 * one being written. Other files there (a work directory) are not ours. */
static int cd_entry_name(const char *n, int *tmp)
{
	*tmp = n[0] == '.';
	n += *tmp;
	size_t k = strspn(n, "0123456789abcdef");
	return k == 16 && (!n[16] || (*tmp && n[16] == '.' && strlen(n + 17) == 6));
}

struct cd_file {
	char *path;
	uint64_t bytes;
	time_t used;
	int tmp;
};

/* Every entry under root, each kind's folder once; fn(ud, file). */
static void cd_walk(const char *root, void (*fn)(void *ud, const struct cd_file *f), void *ud)
{
	DIR *d = opendir(root), *k;
	struct dirent *de, *fe;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *kind = xasprintf("%s/%s", root, de->d_name);
		struct stat st;
		if (lstat(kind, &st) == 0 && S_ISDIR(st.st_mode) && (k = opendir(kind))) {
			while ((fe = readdir(k))) {
				struct cd_file f = { NULL, 0, 0, 0 };
				if (!cd_entry_name(fe->d_name, &f.tmp))
					continue;
				f.path = xasprintf("%s/%s", kind, fe->d_name);
				if (lstat(f.path, &st) == 0 && S_ISREG(st.st_mode)) {
					f.bytes = (uint64_t)st.st_size;
					f.used = st.st_mtim.tv_sec;
					fn(ud, &f);
				}
				free(f.path);
			}
			closedir(k);
		}
		free(kind);
	}
	if (d)
		closedir(d);
}

struct cd_list {
	struct cd_file *f;
	size_t n, cap;
	uint64_t bytes;
};

static void cd_list_add(void *ud, const struct cd_file *f)
{
	struct cd_list *l = ud;
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->f = xrealloc(l->f, l->cap * sizeof *l->f);
	}
	l->f[l->n] = *f;
	l->f[l->n++].path = xstrdup(f->path);
	l->bytes += f->bytes;
}

static int cd_older(const void *a, const void *b)
{
	const struct cd_file *x = a, *y = b;
	return x->used < y->used ? -1 : x->used > y->used;
}

/* Bytes the cache held at the last count, and whether counted yet: a new
 * entry adds its size; past the cap the folder is counted again. */
static uint64_t cd_total;
static int cd_counted;

/* Down to nine tenths of the cap, entries used longest ago first (a temporary
 * file left by a writer that died, an hour old, goes whatever its age). */
static void cd_trim(const char *root, uint64_t cap)
{
	struct cd_list l = { NULL, 0, 0, 0 };
	cd_walk(root, cd_list_add, &l);
	qsort(l.f, l.n, sizeof *l.f, cd_older);
	time_t now = time(NULL);
	for (size_t i = 0; i < l.n; i++) {
		int stale = l.f[i].tmp && l.f[i].used + 3600 < now;
		if ((stale || (l.bytes > cap / 10 * 9 && !l.f[i].tmp)) && unlink(l.f[i].path) == 0)
			l.bytes -= l.f[i].bytes;
		free(l.f[i].path);
	}
	free(l.f);
	cd_total = l.bytes;
	cd_counted = 1;
}

/* A new entry of n bytes is in: counted against the cap, trimmed past it. */
static void cd_added(uint64_t n)
{
	char *root = cd_root_known();
	if (!root)
		return;
	uint64_t cap = cachedir_cap();
	pthread_mutex_lock(&cd_lock);
	if (!cd_counted || (cd_total += n) > cap)
		cd_trim(root, cap);
	pthread_mutex_unlock(&cd_lock);
	free(root);
}

int cachedir_put(const char *path, const void *buf, size_t n)
{
	if (safefile_write(path, buf, n, 0600, 0) < 0)
		return -1;
	cd_added(n);
	return 0;
}

struct cachedir_stream {
	int fd;
	char *tmp;                /* the temporary file (owned) */
	char *path;               /* the entry it becomes (owned) */
	uint64_t n;
	int bad;                  /* a write failed: it is never committed */
};

struct cachedir_stream *cachedir_stream_open(const char *path)
{
	char *tmp = NULL;
	int fd = safefile_tmp(path, 0600, &tmp);
	if (fd < 0)
		return NULL;
	struct cachedir_stream *s = xcalloc(1, sizeof *s);
	s->fd = fd;
	s->tmp = tmp;
	s->path = xstrdup(path);
	return s;
}

void cachedir_stream_write(struct cachedir_stream *s, const void *buf, size_t n)
{
	if (!s || s->bad)
		return;
	if (util_write_all(s->fd, buf, n) < 0)
		s->bad = 1;
	s->n += n;
}

int cachedir_stream_end(struct cachedir_stream *s, int keep)
{
	if (!s)
		return -1;
	int rc = -1;
	if (keep && !s->bad) {
		uint64_t n = s->n;
		rc = safefile_commit(s->fd, s->tmp, s->path, 0);  /* (frees tmp, removes it on failure) */
		if (rc == 0)
			cd_added(n);
	} else {
		close(s->fd);
		unlink(s->tmp);
		free(s->tmp);
	}
	free(s->path);
	free(s);
	return rc;
}

/* ---- kbtui cache --------------------------------------------------------------- */

struct cd_stats {
	struct cachedir_count *c;
	int n, max;
};

static void cd_stats_add(void *ud, const struct cd_file *f)
{
	struct cd_stats *s = ud;
	const char *end = strrchr(f->path, '/'), *start = end;
	while (start > f->path && start[-1] != '/')
		start--;
	int i = 0;
	while (i < s->n && (strlen(s->c[i].kind) != (size_t)(end - start) || strncmp(s->c[i].kind, start, (size_t)(end - start))))
		i++;
	if (i == s->n) {
		if (s->n == s->max)
			return;
		memset(&s->c[s->n], 0, sizeof s->c[s->n]);
		snprintf(s->c[s->n].kind, sizeof s->c[s->n].kind, "%.*s", (int)(end - start), start);
		s->n++;
	}
	s->c[i].files++;
	s->c[i].bytes += f->bytes;
}

int cachedir_stats(struct cachedir_count *c, int max)
{
	char *root = cachedir_root();
	if (!root)
		return -1;
	struct cd_stats s = { c, 0, max };
	cd_walk(root, cd_stats_add, &s);
	free(root);
	return s.n;
}

struct cd_clear {
	long files;
	uint64_t bytes;
};

static void cd_clear_one(void *ud, const struct cd_file *f)
{
	struct cd_clear *x = ud;
	if (unlink(f->path) == 0) {
		x->files++;
		x->bytes += f->bytes;
	}
}

long cachedir_clear(uint64_t *bytes)
{
	char *root = cachedir_root();
	struct cd_clear x = { 0, 0 };
	if (!root)
		return -1;
	cd_walk(root, cd_clear_one, &x);
	free(root);
	pthread_mutex_lock(&cd_lock);
	cd_counted = 0;
	pthread_mutex_unlock(&cd_lock);
	*bytes = x.bytes;
	return x.files;
}
