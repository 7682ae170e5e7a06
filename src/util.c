/* util.c: allocation wrappers, growable buffer, small file helpers. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/openat2.h>  /* struct open_how, RESOLVE_BENEATH */
#include <sys/syscall.h>
#endif

static void util_oom(size_t n)
{
	fprintf(stderr, "kbtui: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		util_oom(n);
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		util_oom(n * m);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		util_oom(n);
	return q;
}

/* 2 MB: a huge page. An array this big that is filled at once (a dataset's
 * runs) took a page fault a 4 kB page, and on a virtual machine each is
 * several microseconds: 15 ms to fill 6 MB, where huge pages take 1-5. */
#define UTIL_HUGE ((size_t)2 << 20)

void *xrealloc_big(void *p, size_t used, size_t n)
{
	if (n < UTIL_HUGE)
		return xrealloc(p, n);
	size_t len = (n + UTIL_HUGE - 1) / UTIL_HUGE * UTIL_HUGE;
	void *q = aligned_alloc(UTIL_HUGE, len);
	if (!q)
		return xrealloc(p, n);
#ifdef MADV_HUGEPAGE
	madvise(q, len, MADV_HUGEPAGE);   /* (advice: where it is refused, 4 kB pages as before) */
#endif
	if (used)
		memcpy(q, p, used < n ? used : n);
	free(p);
	return q;
}

void *xgrow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = *cap < 8 ? 16 : *cap * 2;
	if (c < need)
		c = need;
	*cap = c;
	return xrealloc(p, c * size);
}

char *xstrdup(const char *s)
{
	return s ? xstrndup(s, strlen(s)) : NULL;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xasprintf(const char *fmt, ...)
{
	struct sbuf b;
	va_list ap;
	int n;

	sbuf_init(&b);
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return sbuf_detach(&b);
	b.s = xrealloc(b.s, (size_t)n + 1);
	b.cap = (size_t)n + 1;
	va_start(ap, fmt);
	vsnprintf(b.s, b.cap, fmt, ap);
	va_end(ap);
	return b.s;
}

void sbuf_init(struct sbuf *b)
{
	b->cap = 64;
	b->len = 0;
	b->s = xmalloc(b->cap);
	b->s[0] = '\0';
}

void sbuf_free(struct sbuf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

static void sbuf_grow(struct sbuf *b, size_t extra)
{
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	while (b->cap < need)
		b->cap = b->cap ? b->cap * 2 : 64;
	b->s = xrealloc(b->s, b->cap);
}

void sbuf_add(struct sbuf *b, const char *s, size_t n)
{
	if (!n)
		return;
	sbuf_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s)
{
	if (s)
		sbuf_add(b, s, strlen(s));
}

void sbuf_addc(struct sbuf *b, char c)
{
	sbuf_grow(b, 1);
	b->s[b->len++] = c;
	b->s[b->len] = '\0';
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	sbuf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sbuf_reset(struct sbuf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

/* Leaves b empty and unallocated: it may be reused (it grows again) or
 * dropped without sbuf_free. */
char *sbuf_detach(struct sbuf *b)
{
	char *s = b->s ? b->s : xstrdup("");
	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

/* One read of the size fstat(2) says, where stdio took three and a copy:
 * the index reads a result.json for every run. */
char *util_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct stat st;
	/* a size to trust: /proc's files say 0 and are read in pieces */
	int sized = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	size_t cap = sized ? (size_t)st.st_size + 1 : 65536, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap)
			buf = xrealloc(buf, (cap *= 2) + 1);
		ssize_t r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			free(buf);
			errno = e;
			return NULL;
		}
		n += (size_t)r;
		/* a regular file read short is at its end (a file still growing
		 * is read as far as it was) */
		if (r == 0 || (sized && n < cap))
			break;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int util_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int util_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int util_mkdir_parents(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

char *util_which(const char *name, const char *path)
{
	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? xstrdup(name) : NULL;
	if (!path)
		path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char *dir = xstrndup(path, n), *full = util_path_join(*dir ? dir : ".", name);
		free(dir);
		if (access(full, X_OK) == 0 && util_is_file(full))
			return full;
		free(full);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

void util_fmt_count(char *buf, size_t n, long long v)
{
	if (v < 1000)
		snprintf(buf, n, "%lld", v);
	else if (v < 1000000)
		snprintf(buf, n, "%.1fk", (double)v / 1e3);
	else
		snprintf(buf, n, "%.1fM", (double)v / 1e6);
}

static char *util_data_in(const char *base, const char *rel)
{
	if (!base || !*base)
		return NULL;
	char *p = util_path_join(base, rel);
	struct stat st;
	if (stat(p, &st) == 0)
		return p;
	free(p);
	return NULL;
}

/* Whether the running program is one the build made and did not install:
 * it lies in the build directory (kbtui) or one below it (tests/, bench/,
 * fuzz/). An installed copy, under DESTDIR or not, never is. */
static int util_uninstalled(void)
{
#ifdef KB_TOP_BUILDDIR
	char exe[PATH_MAX], *top = realpath(KB_TOP_BUILDDIR, NULL);
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	int yes = 0;
	if (top && n > 0) {
		exe[n] = '\0';
		for (int up = 0; up < 2 && !yes; up++) {
			char *slash = strrchr(exe, '/');
			if (!slash)
				break;
			*slash = '\0';
			yes = !strcmp(exe, top);
		}
	}
	free(top);
	return yes;
#else
	return 0;
#endif
}

char *util_data_find(const char *rel)
{
	const char *env = getenv("KBTUI_DATADIR");
	if (env && *env)  /* explicit: there and nowhere else */
		return util_data_in(env, rel);
#ifdef KB_TOP_SRCDIR
	if (util_uninstalled())
		return util_data_in(KB_TOP_SRCDIR, rel);
#endif
	return util_data_in(KB_DATADIR, rel);
}

char *util_data_path(const char *rel)
{
	char *p = util_data_find(rel);
	return p ? p : util_path_join(KB_DATADIR, rel);
}

int util_dir_fd(const char *root)
{
	return open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* 1: rel resolves beneath the directory d, 0: it does not exist, -1: the
 * kernel cannot say (no openat2, a link that leaves or is absolute). */
static int util_beneath(int d, const char *rel)
{
#if defined(__linux__) && defined(SYS_openat2)
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS };
	int f = (int)syscall(SYS_openat2, d, rel, &how, sizeof how);
	if (f >= 0) {
		close(f);
		return 1;
	}
	return errno == ENOENT || errno == ENOTDIR ? 0 : -1;
#else
	(void)d;
	(void)rel;
	return -1;
#endif
}

int util_path_inside_at(int root_fd, const char *root, const char *path)
{
	size_t n = strlen(root);
	while (n > 1 && root[n - 1] == '/')
		n--;
	if (n && strncmp(path, root, n) == 0 && path[n] == '/' && path[n + 1]) {
		int d = root_fd >= 0 ? root_fd : util_dir_fd(root);
		int in = d >= 0 ? util_beneath(d, path + n + 1) : -1;
		if (d >= 0 && d != root_fd)
			close(d);
		if (in >= 0)
			return in;
	}
	char real_root[PATH_MAX], real[PATH_MAX];
	if (!realpath(root, real_root) || !realpath(path, real))
		return 0;
	n = strlen(real_root);
	if (n == 1)  /* "/": everything is inside */
		return 1;
	return strncmp(real, real_root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

char *util_path_join(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (!la || b[0] == '/')
		return xstrdup(b);
	/* by hand, not xasprintf: opening an index joins a few paths a run */
	int slash = a[la - 1] != '/';
	char *p = xmalloc(la + (size_t)slash + lb + 1);
	memcpy(p, a, la);
	if (slash)
		p[la] = '/';
	memcpy(p + la + (size_t)slash, b, lb + 1);
	return p;
}

int util_starts_with(const char *s, const char *prefix)
{
	return s && strncmp(s, prefix, strlen(prefix)) == 0;
}

int util_ends_with(const char *s, const char *suffix)
{
	size_t ls, lx;
	if (!s)
		return 0;
	ls = strlen(s);
	lx = strlen(suffix);
	return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

int util_pread_all(int fd, char *buf, size_t n, size_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = EIO;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

int util_write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t k = write(fd, data, len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = ENOSPC;
			return -1;
		}
		data += k;
		len -= (size_t)k;
	}
	return 0;
}

double util_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
