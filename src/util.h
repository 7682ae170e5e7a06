/* util.h: allocation wrappers, a growable byte buffer, file reading.
 * Allocation failure is not recoverable here: it aborts through one place. */
#ifndef KB_UTIL_H
#define KB_UTIL_H

#include <stddef.h>
#include <stdarg.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
/* xrealloc for a big array filled soon after (used: its bytes in use, the
 * ones kept): from 2 MB on, a new block on huge pages. free() frees it. */
void *xrealloc_big(void *p, size_t used, size_t n);
/* p grown to hold need items of size bytes, *cap (its items now) at least
 * doubled: an array that grows by a few items a turn (a followed run's
 * events) is copied O(log n) times, not once a turn. */
void *xgrow(void *p, size_t *cap, size_t need, size_t size);
char *xstrdup(const char *s);          /* NULL in, NULL out */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Monotonic seconds (CLOCK_MONOTONIC): for intervals, never dates. */
double util_now(void);

/* A growable, always NUL-terminated byte buffer that owns its bytes. */
struct sbuf {
	char *s;
	size_t len, cap;
};
void sbuf_init(struct sbuf *b);
void sbuf_free(struct sbuf *b);
void sbuf_add(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addc(struct sbuf *b, char c);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_reset(struct sbuf *b);
char *sbuf_detach(struct sbuf *b);     /* caller owns the result; b is left empty */

/* Whole file into memory. Returns NULL and sets errno on failure. */
char *util_read_file(const char *path, size_t *len);
/* All len bytes to fd, again after EINTR; 0, or -1 with errno (ENOSPC when
 * write(2) took nothing). */
int util_write_all(int fd, const char *data, size_t len);
/* Reads n bytes at offset off of fd into buf, all of them (EINTR taken):
 * 0, or -1 with errno (EIO: the file ended before them). */
int util_pread_all(int fd, char *buf, size_t n, size_t off);
int util_is_dir(const char *path);
int util_is_file(const char *path);
/* Creates every directory above path's last '/' (mode 0700; existing ones
 * are fine): 0, or -1 with errno. */
int util_mkdir_parents(const char *path);
/* name if it holds a '/', else the first executable regular file of that
 * name in the directories of path (NULL: $PATH, else /usr/local/bin:/usr/bin:/bin).
 * Owned; NULL when none. */
char *util_which(const char *name, const char *path);
char *util_path_join(const char *a, const char *b);
/* Whether path resolves to an existing file inside the directory root
 * (symbolic links followed: one that leads out is outside), as realpath
 * would say. Where path is root/REL it asks the kernel to resolve REL
 * beneath root (openat2, one call; root_fd: root already open, see
 * util_dir_fd, or -1 to open it), else, or when that cannot say (an
 * absolute link, an old kernel), compares the real paths. */
int util_path_inside_at(int root_fd, const char *root, const char *path);
/* root opened for util_path_inside_at: the fd, or -1 (then each question
 * opens it). */
int util_dir_fd(const char *root);
/* The program's own data (data/, problems/, themes/): REL under
 * $KBTUI_DATADIR when set (the test runner sets it), else under the source
 * tree when the program is the build's own, uninstalled one, else under the
 * installed data directory (pkgdatadir) only: an installed kbtui never reads
 * the build tree. Owned; NULL when REL is not there. */
char *util_data_find(const char *rel);
/* As util_data_find, else the installed path (for the error message). */
char *util_data_path(const char *rel);
/* A count as a person reads it: 950, 12.3k, 4.5M. */
void util_fmt_count(char *buf, size_t n, long long v);
int util_starts_with(const char *s, const char *prefix);
int util_ends_with(const char *s, const char *suffix);

#endif
