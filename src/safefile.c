/* safefile.c: temporary file, write, rename. */
#include "config.h"

#include "safefile.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int safefile_tmp(const char *path, mode_t mode, char **tmp)
{
	const char *slash = strrchr(path, '/');
	char *t = slash ? xasprintf("%.*s/.%s.XXXXXX", (int)(slash - path), path, slash + 1)
	                : xasprintf(".%s.XXXXXX", path);
	int fd = mkostemp(t, O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0 || fchmod(fd, mode) < 0) {
		int e = errno;
		if (fd >= 0) {
			close(fd);
			unlink(t);
		}
		free(t);
		errno = e;
		return -1;
	}
	*tmp = t;
	return fd;
}

int safefile_commit(int fd, char *tmp, const char *path, int sync)
{
	int bad = fd >= 0 && sync && fsync(fd) < 0, e = errno;
	if (fd >= 0 && close(fd) < 0 && !bad) {
		bad = 1;
		e = errno;
	}
	if (!bad && rename(tmp, path) < 0) {
		bad = 1;
		e = errno;
	}
	if (bad)
		unlink(tmp);
	free(tmp);
	errno = e;
	return bad ? -1 : 0;
}

int safefile_write(const char *path, const void *buf, size_t n, mode_t mode, int sync)
{
	char *tmp;
	int fd = safefile_tmp(path, mode, &tmp);
	if (fd < 0)
		return -1;
	const char *p = buf;
	size_t put = 0;
	while (put < n) {
		ssize_t k = write(fd, p + put, n - put);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			int e = k < 0 ? errno : ENOSPC;
			close(fd);
			unlink(tmp);
			free(tmp);
			errno = e;
			return -1;
		}
		put += (size_t)k;
	}
	return safefile_commit(fd, tmp, path, sync);
}
