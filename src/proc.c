/* proc.c: fork/exec into a new process group; non-blocking pipes read from
 * poll(). The group (not just the child) is killed on timeout and after the
 * child exits, so a background grandchild can neither outlive the step nor
 * keep its pipes open. */
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Grace between SIGTERM and SIGKILL; nvcc uses it to remove temporaries. */
#define PROC_TERM_GRACE 1.0
/* After the child exited, how long its pipes may stay open. */
#define PROC_DRAIN_GRACE 2.0

struct proc {
	pid_t pid;              /* also the process group id */
	int fd[2];              /* stdout, stderr; -1 once closed */
	struct sbuf line[2];
	proc_line_fn on_line;
	void *ud;
	size_t cap;
	double t0, deadline, kill_at, exit_at;
	int gone;               /* the child exited (not yet reaped) */
	int reaped, status;
	int timed_out, cancelled;
	struct proc_result res;
};


static __thread proc_wrap_fn proc_wrap;
static __thread void *proc_wrap_ud;

void proc_set_wrap(proc_wrap_fn fn, void *ud)
{
	proc_wrap = fn;
	proc_wrap_ud = ud;
}

static void proc_argv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void proc_child(const struct proc_spec *s, char *const *argv, int out, int err, int errfd)
{
	sigset_t none;
	int devnull = open("/dev/null", O_RDONLY);
	setpgid(0, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (devnull >= 0)
		dup2(devnull, 0);
	dup2(out, 1);
	dup2(err, 2);
	for (int i = 0; s->env && s->env[i]; i++)
		putenv(s->env[i]);
	if (s->cwd && chdir(s->cwd) < 0) {
		int e = errno;
		if (write(errfd, &e, sizeof e) < 0)
			_exit(127);
		_exit(127);
	}
	execvp(argv[0], argv);
	int e = errno;
	if (write(errfd, &e, sizeof e) < 0)
		_exit(127);
	_exit(127);
}

static struct proc *proc_alloc(const struct proc_spec *s)
{
	struct proc *p = xcalloc(1, sizeof *p);
	p->fd[0] = p->fd[1] = -1;
	sbuf_init(&p->line[0]);
	sbuf_init(&p->line[1]);
	p->on_line = s->on_line;
	p->ud = s->ud;
	p->cap = s->output_cap;
	p->t0 = util_now();
	p->deadline = s->timeout_s > 0 ? p->t0 + s->timeout_s : 0;
	p->res.limit_s = s->timeout_s > 0 ? s->timeout_s : 0;
	p->res.end = PROC_RUNNING;
	return p;
}

static struct proc *proc_failed(struct proc *p, int err)
{
	p->res.end = PROC_START_FAILED;
	p->res.err = err;
	p->reaped = p->gone = 1;
	return p;
}

struct proc *proc_start(const struct proc_spec *s)
{
	struct proc *p = proc_alloc(s);
	int po[2], pe[2], px[2], e = 0;
	ssize_t n;
	char **wrapped = NULL;

	if (!s->argv || !s->argv[0])
		return proc_failed(p, EINVAL);
	if (proc_wrap && !(wrapped = proc_wrap(proc_wrap_ud, s)))
		return proc_failed(p, EACCES);
	if (pipe2(po, O_CLOEXEC) < 0) {
		proc_argv_free(wrapped);
		return proc_failed(p, errno);
	}
	if (pipe2(pe, O_CLOEXEC) < 0) {
		e = errno;
		close(po[0]);
		close(po[1]);
		proc_argv_free(wrapped);
		return proc_failed(p, e);
	}
	if (pipe2(px, O_CLOEXEC) < 0) {
		e = errno;
		for (int i = 0; i < 2; i++) {
			close(po[i]);
			close(pe[i]);
		}
		proc_argv_free(wrapped);
		return proc_failed(p, e);
	}
	p->pid = fork();
	if (p->pid == 0)
		proc_child(s, wrapped ? wrapped : s->argv, po[1], pe[1], px[1]);
	e = errno;
	proc_argv_free(wrapped);
	close(po[1]);
	close(pe[1]);
	close(px[1]);
	if (p->pid < 0) {
		close(po[0]);
		close(pe[0]);
		close(px[0]);
		return proc_failed(p, e);
	}
	setpgid(p->pid, p->pid);  /* also here: no race with our first kill() */
	/* EOF at exec; an errno when exec (or chdir) failed */
	while ((n = read(px[0], &e, sizeof e)) < 0 && errno == EINTR)
		;
	close(px[0]);
	if (n == (ssize_t)sizeof e) {
		close(po[0]);
		close(pe[0]);
		waitpid(p->pid, NULL, 0);
		return proc_failed(p, e);
	}
	p->fd[0] = po[0];
	p->fd[1] = pe[0];
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	return p;
}

static void proc_emit(struct proc *p, int i, const char *s, size_t n)
{
	if (p->cap && p->res.bytes + n + 1 > p->cap) {
		p->res.truncated = 1;
		return;
	}
	p->res.bytes += n + 1;
	if (p->on_line)
		p->on_line(p->ud, i + 1, s, n);
}

static void proc_take(struct proc *p, int i, const char *buf, size_t n)
{
	struct sbuf *l = &p->line[i];
	const char *s = buf, *e = buf + n, *nl;
	while (s < e && (nl = memchr(s, '\n', (size_t)(e - s)))) {
		if (l->len) {
			sbuf_add(l, s, (size_t)(nl - s));
			proc_emit(p, i, l->s, l->len);
			sbuf_reset(l);
		} else {
			proc_emit(p, i, s, (size_t)(nl - s));
		}
		s = nl + 1;
	}
	sbuf_add(l, s, (size_t)(e - s));
	while (l->len >= PROC_MAX_LINE) {
		proc_emit(p, i, l->s, PROC_MAX_LINE);
		memmove(l->s, l->s + PROC_MAX_LINE, l->len - PROC_MAX_LINE + 1);
		l->len -= PROC_MAX_LINE;
	}
}

static void proc_close_fd(struct proc *p, int i)
{
	if (p->fd[i] < 0)
		return;
	close(p->fd[i]);
	p->fd[i] = -1;
	if (p->line[i].len) {
		proc_emit(p, i, p->line[i].s, p->line[i].len);
		sbuf_reset(&p->line[i]);
	}
}

/* Reads until the pipe is empty, at most a bounded amount per call so that
 * a child printing without pause cannot starve the caller's loop. */
static void proc_read(struct proc *p, int i)
{
	char buf[16384];
	for (int round = 0; p->fd[i] >= 0 && round < 64; round++) {
		ssize_t n = read(p->fd[i], buf, sizeof buf);
		if (n > 0) {
			proc_take(p, i, buf, (size_t)n);
		} else if (n == 0) {
			proc_close_fd(p, i);
		} else if (errno != EINTR) {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				proc_close_fd(p, i);
			return;
		}
	}
}

int proc_pollfds(const struct proc *p, struct pollfd *fds, int max)
{
	int n = 0;
	for (int i = 0; i < 2 && n < max; i++)
		if (p->fd[i] >= 0) {
			fds[n].fd = p->fd[i];
			fds[n].events = POLLIN;
			fds[n++].revents = 0;
		}
	return n;
}

static int proc_ms_until(double t, double now)
{
	double ms = (t - now) * 1000.0;
	return ms <= 0 ? 0 : ms > 1e9 ? 1000000000 : (int)ms + 1;
}

int proc_timeout_ms(const struct proc *p)
{
	double now = util_now();
	int ms = -1;
	if (p->res.end != PROC_RUNNING)
		return 0;
	if (!p->gone && p->deadline && !p->timed_out)
		ms = proc_ms_until(p->deadline, now);
	if (!p->gone && p->kill_at) {
		int k = proc_ms_until(p->kill_at, now);
		ms = ms < 0 || k < ms ? k : ms;
	}
	if (p->gone) {
		int k = proc_ms_until(p->exit_at + PROC_DRAIN_GRACE, now);
		ms = ms < 0 || k < ms ? k : ms;
	}
	/* exit is noticed by polling waitid, not by a SIGCHLD handler */
	if (!p->gone && (ms < 0 || ms > 20))
		ms = 20;
	return ms;
}

/* Notices the exit without reaping, so that the group id cannot be reused
 * while we kill what is left of the group. */
static void proc_check_exit(struct proc *p)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	if (p->gone || waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
		return;
	p->gone = 1;
	p->exit_at = util_now();
	kill(-p->pid, SIGKILL);
	waitpid(p->pid, &p->status, 0);
	p->reaped = 1;
}

static void proc_enforce(struct proc *p, double now)
{
	if (p->gone)
		return;
	if (p->deadline && !p->timed_out && now >= p->deadline) {
		p->timed_out = 1;
		p->res.sig = SIGTERM;
		kill(-p->pid, SIGTERM);
		p->kill_at = now + PROC_TERM_GRACE;
	} else if (p->kill_at && now >= p->kill_at) {
		p->res.sig = SIGKILL;
		kill(-p->pid, SIGKILL);
		p->kill_at = 0;
	}
}

static void proc_finish(struct proc *p)
{
	struct proc_result *r = &p->res;
	r->seconds = util_now() - p->t0;
	if (p->timed_out) {
		r->end = PROC_TIMEOUT;
	} else if (WIFEXITED(p->status)) {
		r->end = PROC_EXITED;
		r->code = WEXITSTATUS(p->status);
	} else {
		r->end = PROC_SIGNALED;
		r->sig = WIFSIGNALED(p->status) ? WTERMSIG(p->status) : 0;
	}
}

int proc_service(struct proc *p)
{
	if (p->res.end != PROC_RUNNING)
		return 0;
	proc_read(p, 0);
	proc_read(p, 1);
	proc_check_exit(p);
	proc_enforce(p, util_now());
	if (p->gone && util_now() >= p->exit_at + PROC_DRAIN_GRACE) {
		proc_close_fd(p, 0);  /* something outside the group holds them */
		proc_close_fd(p, 1);
	}
	if (p->gone && p->fd[0] < 0 && p->fd[1] < 0) {
		proc_finish(p);
		return 0;
	}
	return 1;
}

int proc_wait(struct proc *p, int max_ms)
{
	struct pollfd fds[2];
	int n = proc_pollfds(p, fds, 2), ms = proc_timeout_ms(p);
	if (p->res.end != PROC_RUNNING)
		return 0;
	if (max_ms >= 0 && (ms < 0 || max_ms < ms))
		ms = max_ms;
	poll(fds, (nfds_t)n, ms);  /* EINTR: just service early */
	return proc_service(p);
}

const struct proc_result *proc_result(const struct proc *p)
{
	return &p->res;
}

void proc_kill(struct proc *p)
{
	if (p->res.end == PROC_RUNNING && !p->gone)
		kill(-p->pid, SIGKILL);
	p->cancelled = 1;
}

void proc_free(struct proc *p)
{
	if (!p)
		return;
	if (p->res.end == PROC_RUNNING) {
		if (!p->gone)
			kill(-p->pid, SIGKILL);
		if (!p->reaped)
			waitpid(p->pid, NULL, 0);
		kill(-p->pid, SIGKILL);
	}
	if (p->fd[0] >= 0)
		close(p->fd[0]);
	if (p->fd[1] >= 0)
		close(p->fd[1]);
	sbuf_free(&p->line[0]);
	sbuf_free(&p->line[1]);
	free(p);
}

enum proc_end proc_run(const struct proc_spec *spec, struct proc_result *res)
{
	struct proc *p = proc_start(spec);
	while (proc_wait(p, -1))
		;
	*res = p->res;
	proc_free(p);
	return res->end;
}

const char *proc_describe(const struct proc_result *r, char *buf, size_t n)
{
	switch (r->end) {
	case PROC_RUNNING: snprintf(buf, n, "running"); break;
	case PROC_EXITED: snprintf(buf, n, "exit status %d", r->code); break;
	case PROC_SIGNALED:
		snprintf(buf, n, "killed by signal %d (SIG%s)", r->sig, sigabbrev_np(r->sig) ? sigabbrev_np(r->sig) : "?");
		break;
	case PROC_TIMEOUT: snprintf(buf, n, "timed out after %g s, process group killed", r->limit_s); break;
	case PROC_START_FAILED: snprintf(buf, n, "could not start: %s", strerror(r->err)); break;
	}
	return buf;
}
