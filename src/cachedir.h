/* cachedir.h: the directory kbtui keeps what it worked out in,
 * $XDG_CACHE_HOME/kbtui (else ~/.cache/kbtui), one folder per kind of
 * entry (text, flags, verdicts). It is trusted as ssh trusts a key file and
 * git a repository: created 0700, and used only while it and each kind's
 * folder are directories owned by this user that no group or other user
 * can write. Otherwise it is not used (every lookup misses, nothing is
 * written) and stderr says why, once. Its size is bounded: past the cap
 * (KBTUI_CACHE_MAX, default 1 GB) the entries used longest ago go. */
#ifndef KB_CACHEDIR_H
#define KB_CACHEDIR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct stat;

#define CACHEDIR_DEFAULT_MAX (1024ull * 1024 * 1024)

/* The root (owned), created when missing, or NULL: KBTUI_NO_CACHE set,
 * no absolute $XDG_CACHE_HOME or $HOME, or the directory refused (said on
 * stderr the first time). */
char *cachedir_root(void);
/* ROOT/kind, created 0700 when missing and checked as the root is. */
char *cachedir_kind(const char *kind);
/* The root and the kinds' folders checked now: a front end that takes the
 * terminal calls it first, so that a refusal is said before the screen is. */
void cachedir_check(void);
/* Why the cache is not used (static), NULL while it is: for `kbtui cache`. */
const char *cachedir_refused(void);

/* A new entry: buf[0, n) as path's content (safefile_write, mode 0600),
 * counted against the cap, entries used longest ago removed past it.
 * 0, or -1 with errno. */
int cachedir_put(const char *path, const void *buf, size_t n);
/* A new entry written as it is made (an entry too big to build in
 * memory first): opened as a temporary file beside path (safefile_tmp),
 * written in pieces, then renamed into place and counted against the cap
 * when keep, else removed. NULL when the temporary file cannot be made;
 * a failed write makes the end fail. 0, or -1. */
struct cachedir_stream;
struct cachedir_stream *cachedir_stream_open(const char *path);
void cachedir_stream_write(struct cachedir_stream *s, const void *buf, size_t n);
int cachedir_stream_end(struct cachedir_stream *s, int keep);
/* An entry was used: its modification time, the cache's clock of use, is
 * moved to now (at most once a minute). fd open on it, st its fstat. */
void cachedir_used(int fd, const struct stat *st);
/* Opens an entry to read, never through a symbolic link: fd or -1. */
int cachedir_open(const char *path);

/* The cap in bytes: KBTUI_CACHE_MAX (a size, cachedir_parse_size), else
 * CACHEDIR_DEFAULT_MAX; a value that is not a size is said once on stderr
 * and the default kept. cachedir_cap_set: whether KBTUI_CACHE_MAX set it. */
uint64_t cachedir_cap(void);
int cachedir_cap_set(void);
/* s as a size in bytes: a number, a fraction too, then optionally K, M, G
 * or T (1024s, any case) and B or iB ("512M", "5MB", "1.5GiB"): 0, or -1
 * when it is not one (a sign, an unknown unit, past 2^64). */
int cachedir_parse_size(const char *s, uint64_t *v);

struct cachedir_count {
	char kind[32];
	size_t files;
	uint64_t bytes;
};
/* Each kind's entries and bytes into c[0, max): the kinds found, or -1
 * when there is no cache directory to read. */
int cachedir_stats(struct cachedir_count *c, int max);
/* Removes every entry (the folders stay): the files removed, -1 when
 * there is no cache directory. *bytes gets their size. */
long cachedir_clear(uint64_t *bytes);

#endif
