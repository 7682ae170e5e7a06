/* gpulock.h: one GPU's timings undisturbed by a neighbour: an flock on the
 * file $KBTUI_GPU_LOCK names (a sweep's local executor gives each cell its
 * GPU's, DIR/gpu/N.lock), held by the eval around its GPU steps (device
 * info, check, benchmark) and waited for without hanging: an abort (a
 * signal, the run's budget) ends the wait. */
#ifndef KB_GPULOCK_H
#define KB_GPULOCK_H

#include <signal.h>

/* The variable that names the lock file. */
#define GPULOCK_ENV "KBTUI_GPU_LOCK"

enum { GPULOCK_NONE = -1, GPULOCK_ABORTED = -2, GPULOCK_ERROR = -3 };

/* Takes the lock on path (NULL or "": none to take, GPULOCK_NONE),
 * polling every 50 ms while another process holds it; waiting(ud, path)
 * is called once when it has to wait (may be NULL). Returns the held
 * descriptor, GPULOCK_ABORTED when *abort became nonzero while waiting, or
 * GPULOCK_ERROR with *why (owned) when the file cannot be opened or
 * locked, or when it is not safe: a symbolic link (opened O_NOFOLLOW), not
 * a regular file, or in a directory that is not ours alone (another owner,
 * or writable by group or others). */
int gpulock_take(const char *path, volatile sig_atomic_t *abort, void (*waiting)(void *ud, const char *path),
                 void *ud, char **why);
/* Releases what gpulock_take returned (anything below 0: nothing). */
void gpulock_release(int fd);

#endif
