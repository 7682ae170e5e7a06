/* safefile.h: a file replaced whole and atomically. The new content goes
 * to a temporary file that mkstemp makes beside the target (an
 * unpredictable name, created exclusively, opened with O_NOFOLLOW), then
 * is renamed over the target: a link planted at either name is never
 * written through (rename replaces a link, it does not follow it). The
 * one way kbtui writes its caches, results and manifests. */
#ifndef KB_SAFEFILE_H
#define KB_SAFEFILE_H

#include <stddef.h>
#include <sys/types.h>

/* A new empty temporary file in path's directory (".NAME.XXXXXX"), of
 * mode: its descriptor and *tmp (owned), or -1 with errno. */
int safefile_tmp(const char *path, mode_t mode, char **tmp);
/* Ends what safefile_tmp began (fd < 0: the file was written by another
 * program and closed): fsync when sync, close, rename over path; on
 * failure the temporary file is removed. Frees tmp. 0, or -1 with errno. */
int safefile_commit(int fd, char *tmp, const char *path, int sync);
/* buf[0, n) as path's new content, of mode (fsync first when sync). 0, or
 * -1 with errno. */
int safefile_write(const char *path, const void *buf, size_t n, mode_t mode, int sync);

#endif
