/* proc.h: a child process in its own process group, its stdout and stderr
 * handed over line by line, a time limit that kills the whole group, and
 * an output cap. Driven by poll(): proc_run blocks until the end; a UI
 * adds proc_pollfds to its own poll set and calls proc_service. */
#ifndef KB_PROC_H
#define KB_PROC_H

#include <poll.h>
#include <stddef.h>

enum proc_end {
	PROC_RUNNING,
	PROC_EXITED,        /* code holds the exit status */
	PROC_SIGNALED,      /* sig killed it (a crash: SIGSEGV, SIGABRT ...) */
	PROC_TIMEOUT,       /* the time limit passed; the group was killed */
	PROC_START_FAILED,  /* exec failed; err holds errno */
};

struct proc_result {
	enum proc_end end;
	int code, sig, err;
	double seconds;     /* wall time from start to end */
	double limit_s;     /* the time limit, 0 for none */
	size_t bytes;       /* output handed to the callback */
	int truncated;      /* output went past the cap and was dropped */
};

/* stream is 1 (stdout) or 2 (stderr); line has no '\n' and is not
 * NUL-terminated. Lines longer than PROC_MAX_LINE come in pieces. */
typedef void (*proc_line_fn)(void *ud, int stream, const char *line, size_t len);

#define PROC_MAX_LINE 65536

struct proc_spec {
	char *const *argv;      /* argv[0] is looked up in PATH */
	const char *cwd;        /* NULL: ours */
	char *const *env;       /* "NAME=value" set in the child, NULL-ended; may be NULL */
	double timeout_s;       /* <= 0: none */
	size_t output_cap;      /* bytes; 0: unlimited */
	proc_line_fn on_line;
	void *ud;
};

struct proc;

/* A wrapper for every child the calling thread starts from now on: it gets
 * the spec and returns the argv to run instead (NULL-ended; the array and
 * each string malloc'd, proc frees them), or NULL to refuse the start
 * (PROC_START_FAILED with EACCES). Thread-local, so that an eval running in
 * a worker thread can put every process it starts, whichever step starts
 * it, in a sandbox (evalbox.h) without the screen's children being
 * affected. fn NULL: none. */
typedef char **(*proc_wrap_fn)(void *ud, const struct proc_spec *spec);
void proc_set_wrap(proc_wrap_fn fn, void *ud);

/* Never NULL: a failed start is a finished proc with PROC_START_FAILED. */
struct proc *proc_start(const struct proc_spec *spec);
/* The descriptors to poll for input; returns how many were written. */
int proc_pollfds(const struct proc *p, struct pollfd *fds, int max);
/* How long a caller may sleep in poll() before proc_service must run again:
 * until the deadline, or briefly while the child is gone but not reaped;
 * -1 when only input can wake it. */
int proc_timeout_ms(const struct proc *p);
/* Reads what is ready without blocking, enforces the deadline, reaps.
 * Returns 1 while running, 0 once finished. */
int proc_service(struct proc *p);
/* poll() for at most max_ms (-1: no limit) then proc_service. */
int proc_wait(struct proc *p, int max_ms);
const struct proc_result *proc_result(const struct proc *p);
/* Kills the group now (the user cancelled); the end is PROC_SIGNALED. */
void proc_kill(struct proc *p);
/* Kills the group if still running, reaps, frees. */
void proc_free(struct proc *p);

/* Start, wait to the end, free: the blocking form. Returns res->end. */
enum proc_end proc_run(const struct proc_spec *spec, struct proc_result *res);
/* "exit status 1", "killed by signal 11 (SIGSEGV)", "timed out after 5 s". */
const char *proc_describe(const struct proc_result *r, char *buf, size_t n);

#endif
