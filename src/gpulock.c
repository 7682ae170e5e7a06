/* gpulock.c: the per-GPU flock the eval holds around its GPU steps. */
#include "gpulock.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

int gpulock_take(const char *path, volatile sig_atomic_t *abort, void (*waiting)(void *ud, const char *path),
                 void *ud, char **why)
{
	if (!path || !*path)
		return GPULOCK_NONE;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		*why = xasprintf("%s: cannot open the GPU lock: %s", path, strerror(errno));
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
