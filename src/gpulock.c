/* gpulock.c: the per-GPU flock the eval holds around its GPU steps. */
#include "gpulock.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Whether the lock's directory is ours alone: owned by us and writable by
 * no one else, so that nobody can put a link or a file of theirs where the
 * lock goes (as ssh asks of ~/.ssh). 0, or -1 with *why. */
static int gpulock_dir_ok(const char *path, char **why)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? (slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path))) : xstrdup(".");
	struct stat st;
	int rc = -1;
	if (stat(dir, &st) < 0)
		*why = xasprintf("%s: the GPU lock's directory %s: %s", path, dir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		*why = xasprintf("%s: the GPU lock's directory %s is not a directory", path, dir);
	else if (st.st_uid != geteuid())
		*why = xasprintf("%s: the GPU lock's directory %s belongs to uid %ld, not to us: refused", path, dir,
		                 (long)st.st_uid);
	else if (st.st_mode & (S_IWGRP | S_IWOTH))
		*why = xasprintf("%s: the GPU lock's directory %s is writable by others (mode %04o): refused", path,
		                 dir, (unsigned)(st.st_mode & 07777));
	else
		rc = 0;
	free(dir);
	return rc;
}

int gpulock_take(const char *path, volatile sig_atomic_t *abort, void (*waiting)(void *ud, const char *path),
                 void *ud, char **why)
{
	if (!path || !*path)
		return GPULOCK_NONE;
	if (gpulock_dir_ok(path, why) < 0)
		return GPULOCK_ERROR;
	/* never through a link: it could point the lock (created, truncated
	 * by nobody, but opened for writing) at any file of ours */
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	struct stat st;
	if (fd < 0) {
		*why = errno == ELOOP ? xasprintf("%s: the GPU lock is a symbolic link: refused", path)
		                      : xasprintf("%s: cannot open the GPU lock: %s", path, strerror(errno));
		return GPULOCK_ERROR;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		*why = xasprintf("%s: the GPU lock is not a regular file: refused", path);
		close(fd);
		return GPULOCK_ERROR;
	}
	/* non-blocking tries: a blocking flock would not see the abort flag
	 * (a signal handler that returns restarts nothing we could check) */
	for (int said = 0;;) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK && errno != EINTR) {
			*why = xasprintf("%s: cannot lock the GPU: %s", path, strerror(errno));
			close(fd);
			return GPULOCK_ERROR;
		}
		if (!said && waiting)
			waiting(ud, path);
		said = 1;
		if (abort && *abort) {
			close(fd);
			return GPULOCK_ABORTED;
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
		if (abort && *abort) {
			close(fd);
			return GPULOCK_ABORTED;
		}
	}
}

void gpulock_release(int fd)
{
	if (fd >= 0)
		close(fd);   /* the lock goes with the last descriptor */
}
