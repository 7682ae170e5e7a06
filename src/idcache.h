/* idcache.h: what kbtui worked out from a file, kept under
 * $XDG_CACHE_HOME/kbtui/KIND/ and trusted only while the file is the same
 * file (device, inode, size, modification time) and the key (what else the
 * value depends on: the program, the rules) is the same. The flag counts
 * of transcripts and the verdicts of annotation files live in one. */
#ifndef KB_IDCACHE_H
#define KB_IDCACHE_H

#include <stddef.h>

#define IDCACHE_FNV0 1469598103934665603ull

/* FNV-1a over n bytes at p, from h (IDCACHE_FNV0 to start). */
unsigned long long idcache_fnv(unsigned long long h, const void *p, size_t n);
/* The same over s and its terminating NUL ("" for NULL). */
unsigned long long idcache_str_hash(unsigned long long h, const char *s);

/* $XDG_CACHE_HOME/kbtui/KIND, else ~/.cache/kbtui/KIND (owned, made 0700);
 * NULL when KBTUI_NO_CACHE is set, neither names an absolute directory, or
 * the directory is not trusted (cachedir.h). */
char *idcache_dir(const char *kind);

/* A regular file's identity: device, inode, size, mtime in ns; -1 when
 * path is not a regular file. */
int idcache_identify(const char *path, unsigned long long id[4]);
/* Whether a file of identity id changed too lately to be kept: within
 * the last two seconds, or in the future. */
int idcache_racy(const unsigned long long id[4]);
/* The running program's size and mtime: a new build changes what it
 * would work out (0s when /proc/self/exe cannot be read). */
void idcache_exe(unsigned long long exe[2]);

struct idcache;

/* The table of kind for dataset root (its real path hashed names the
 * file), read at its first use; a table that saves nothing when no cache
 * directory is set. */
struct idcache *idcache_open(const char *kind, const char *root);
/* Saves the table if it changed (cachedir_put: a temporary file renamed
 * over the old one; each line checksummed, so a torn or damaged line is
 * dropped and worked out again), then frees it. */
void idcache_free(struct idcache *c);

/* The value kept for path when its identity and key are still id and
 * key (borrowed, valid until the next put), else NULL. The first
 * lookup reads the table's file. */
const char *idcache_get(struct idcache *c, const char *path, const unsigned long long id[4],
                        unsigned long long key);
/* Keeps value for path (both copied); one with a tab or a newline in the
 * path or the value is not kept (the file's lines could not hold it), nor
 * one of a file that changed too lately (idcache_racy). */
void idcache_put(struct idcache *c, const char *path, const unsigned long long id[4], unsigned long long key,
                 const char *value);

#endif
