/* test_sandbox.c: the live agent's bash tool inside bubblewrap. Writes in the
 * work directory succeed; writes anywhere else (a temp dir outside it,
 * $HOME, through a symlink out of it) fail and leave the real files alone;
 * the network is unreachable; the time limit kills a command with its
 * children; output over the cap is cut with a note. Skips when bwrap is
 * missing or cannot make namespaces here. */
#include "tap.h"
#include "agent.h"
#include "sandbox.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

/* Runs a bash command through the agent's tool; returns its result (owned). */
static char *sb_bash(const struct agent_opts *o, const char *cmd, double timeout, int *is_error)
{
	char *args, *s;
	struct sbuf b;
	sbuf_init(&b);
	for (const char *p = cmd; *p; p++) {
		if (*p == '"' || *p == '\\')
			sbuf_addc(&b, '\\');
		sbuf_addc(&b, *p);
	}
	args = timeout > 0 ? xasprintf("{\"command\":\"%s\",\"timeout\":%g}", b.s, timeout)
	                   : xasprintf("{\"command\":\"%s\"}", b.s);
	sbuf_free(&b);
	s = agent_tool(o, "bash", args, is_error);
	free(args);
	return s;
}

static void sb_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *sb_slurp(const char *path)
{
	return util_read_file(path, NULL);
}

/* A TCP port listening on 127.0.0.1 outside the sandbox; fd in *fd. */
static int sb_listen(int *fd)
{
	struct sockaddr_in a = {.sin_family = AF_INET};
	socklen_t n = sizeof a;
	*fd = socket(AF_INET, SOCK_STREAM, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (*fd < 0 || bind(*fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(*fd, 4) < 0 ||
	    getsockname(*fd, (struct sockaddr *)&a, &n) < 0)
		return -1;
	return ntohs(a.sin_port);
}

/* A fifo in dir that a command's background child holds open for writing
 * (it writes "up" first): the read end, non-blocking; -1 on failure. */
static int sb_alive_open(const char *dir, const char *name)
{
	char *p = util_path_join(dir, name);
	int fd = mkfifo(p, 0600) == 0 ? open(p, O_RDONLY | O_NONBLOCK) : -1;
	free(p);
	return fd;
}

/* Whether the child that held the fifo started ("up" came) and is gone
 * (end of file: no writer left), waiting up to 20 s: the condition that
 * nothing it would do later can happen, instead of a fixed sleep. */
static int sb_alive_gone(int fd)
{
	int up = 0;
	for (int i = 0; i < 2000; i++) {
		char buf[16];
		ssize_t n = read(fd, buf, sizeof buf);
		if (n > 0)
			up = 1;
		else if (n == 0 && up)
			return 1;
		else if (n < 0 && errno != EAGAIN)
			return 0;
		if (n <= 0)
			usleep(10000);
	}
	return 0;
}

/* Sets *stop once the child holding the fifo is up: the abort comes while
 * the command and its child run, whatever the machine's load. */
struct sb_abort_when_up {
	int fd;
	volatile sig_atomic_t *stop;
};

static void *sb_abort_when_up(void *arg)
{
	struct sb_abort_when_up *w = arg;
	for (int i = 0; i < 2000; i++) {
		char buf[16];
		if (read(w->fd, buf, sizeof buf) > 0)
			break;
		usleep(10000);
	}
	*w->stop = 1;
	return NULL;
}

int main(void)
{
	char top[] = "/tmp/kbtui-sandbox-XXXXXX", far[] = "/var/tmp/kbtui-sandbox-XXXXXX", *why = NULL, *work, *outside, *s, *p, *cmd, *home_probe;
	struct agent_opts o = {0};
	int is_error, fd, port;
	const char *home = getenv("HOME");

	/* the pure parts first: they do not need bwrap */
	enum sandbox_kind k = SANDBOX_NONE;
	ok(sandbox_parse("bwrap", &k) == 0 && k == SANDBOX_BWRAP, "sandbox_parse knows bwrap");
	ok(sandbox_parse("docker", &k) < 0, "sandbox_parse refuses an unknown kind");
	{
		char *const inner[] = {"echo", "hi", NULL};
		char **v = sandbox_argv(SANDBOX_NONE, "/tmp", inner);
		ok(v && !strcmp(v[0], "echo") && !strcmp(v[1], "hi") && !v[2], "sandbox none runs the command as it is");
		sandbox_argv_free(v);
		setenv("KBTUI_BWRAP", "/nonexistent/bwrap", 1);
		ok(sandbox_argv(SANDBOX_BWRAP, "/tmp", inner) == NULL, "no bwrap: no argv, never a silent fallback");
		unsetenv("KBTUI_BWRAP");
	}

	if (!sandbox_bwrap_works(&why)) {
		tap_skip(why);
		free(why);
		return tap_done();
	}
	if (!mkdtemp(top) || !mkdtemp(far)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	work = util_path_join(top, "work");
	/* outside on the read-only root; a sibling under /tmp would only meet
	 * the sandbox's private /tmp */
	outside = util_path_join(far, "outside.txt");
	mkdir(work, 0777);
	sb_write(outside, "original\n");
	o.workdir = work;
	o.sandbox = SANDBOX_BWRAP;
	o.bash_timeout_s = 30;

	s = sb_bash(&o, "echo made > inside.txt && pwd", 0, &is_error);
	ok(!is_error, "a write in the work directory succeeds");
	has_str(s, work, "... and the command runs in the work directory");
	p = util_path_join(work, "inside.txt");
	free(s);
	s = sb_slurp(p);
	is_str(s, "made\n", "... and the file is there outside the sandbox");
	free(s);
	free(p);

	cmd = xasprintf("echo changed > %s", outside);
	s = sb_bash(&o, cmd, 0, &is_error);
	ok(is_error, "a write to a file outside the work directory fails");
	free(s);
	free(cmd);
	s = sb_slurp(outside);
	is_str(s, "original\n", "... and the file is unchanged");
	free(s);
	p = util_path_join(top, "sibling.txt");
	sb_write(p, "original\n");
	cmd = xasprintf("echo changed > %s; echo changed > ../sibling.txt", p);
	s = sb_bash(&o, cmd, 0, &is_error);
	free(s);
	free(cmd);
	s = sb_slurp(p);
	is_str(s, "original\n", "a file beside the work directory under /tmp is unchanged by writes to it");
	free(s);
	free(p);

	home_probe = xasprintf("%s/kbtui-sandbox-probe-%d", home && *home ? home : "/root", (int)getpid());
	cmd = xasprintf("echo x > %s", home_probe);
	s = sb_bash(&o, cmd, 0, &is_error);
	ok(is_error, "a write to $HOME fails");
	ok(access(home_probe, F_OK) != 0, "... and no file appears there");
	unlink(home_probe);
	free(s);
	free(cmd);
	free(home_probe);

	p = util_path_join(work, "link");
	symlink(outside, p);
	free(p);
	s = sb_bash(&o, "echo through > link", 0, &is_error);
	ok(is_error, "a write through a symlink out of the work directory fails");
	free(s);
	s = sb_slurp(outside);
	is_str(s, "original\n", "... and its target is unchanged");
	free(s);

	port = sb_listen(&fd);
	ok(port > 0, "a port listens on 127.0.0.1 outside");
	cmd = xasprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port);
	s = sb_bash(&o, cmd, 0, &is_error);
	ok(is_error && !strstr(s, "connected"), "the network is unreachable from inside");
	free(s);
	free(cmd);
	o.sandbox = SANDBOX_NONE;   /* the check itself can fail: outside it connects */
	cmd = xasprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port);
	s = sb_bash(&o, cmd, 0, &is_error);
	has_str(s, "connected", "... while without the sandbox the same command connects");
	free(s);
	free(cmd);
	close(fd);
	o.sandbox = SANDBOX_BWRAP;

	/* the child writes late.txt after the limit unless it is killed with the command */
	int alive = sb_alive_open(work, "alive");
	s = sb_bash(&o, "(exec 3>alive; echo up >&3; sleep 2; echo late > late.txt) & sleep 30", 0.7, &is_error);
	ok(is_error && strstr(s, "timed out"), "a sleeping command is killed at its time limit");
	free(s);
	ok(alive >= 0 && sb_alive_gone(alive), "... its background child started and is gone");
	close(alive);
	p = util_path_join(work, "late.txt");
	ok(access(p, F_OK) != 0, "... with its children (nothing they would write later appears)");
	free(p);

	{
		/* the user's abort kills a running command at once, in the sandbox too */
		volatile sig_atomic_t stop = 0;
		o.abort = &stop;
		struct sb_abort_when_up w = { sb_alive_open(work, "alive2"), &stop };
		pthread_t th;
		int started = w.fd >= 0 && pthread_create(&th, NULL, sb_abort_when_up, &w) == 0;
		if (!started)
			stop = 1;
		s = sb_bash(&o, "(exec 3>alive2; echo up >&3; sleep 2; echo late > late2.txt) & sleep 30", 0, &is_error);
		o.abort = NULL;
		if (started)
			pthread_join(th, NULL);
		has_str(s, "[killed: the run was aborted]", "an abort kills the running command");
		free(s);
		/* "up" was read by the thread: the end of file alone says it is gone */
		int gone = 0;
		for (int i = 0; started && i < 2000 && !gone; i++) {
			char buf[16];
			ssize_t n = read(w.fd, buf, sizeof buf);
			gone = n == 0;
			if (n < 0 && errno != EAGAIN)
				break;
			if (!gone)
				usleep(10000);
		}
		ok(gone, "... its background child is gone");
		if (w.fd >= 0)
			close(w.fd);
		p = util_path_join(work, "late2.txt");
		ok(access(p, F_OK) != 0, "... with its children");
		free(p);
	}

	o.output_cap = 1000;
	s = sb_bash(&o, "head -c 200000 /dev/zero | tr '\\0' a", 0, &is_error);
	has_str(s, "[output truncated at 1000 bytes]", "output over the cap is cut with a note");
	ok(s && strlen(s) < 1200, "... and the result stays near the cap (%zu bytes)", s ? strlen(s) : 0);
	free(s);

	s = sb_bash(&o, "mkdir -p \"$XDG_CACHE_HOME/x\" && echo \"$XDG_CACHE_HOME\"", 0, &is_error);
	ok(!is_error && s && !strncmp(s, "/tmp/.cache\n", 12), "caches go to the private /tmp (XDG_CACHE_HOME)");
	free(s);

	s = sb_bash(&o, "echo tmp > /tmp/kbtui-sandbox-private && cat /tmp/kbtui-sandbox-private", 0, &is_error);
	ok(!is_error && access("/tmp/kbtui-sandbox-private", F_OK) != 0, "/tmp inside is private");
	free(s);

	cmd = xasprintf("rm -rf '%s' '%s'", top, far);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
	free(cmd);
	free(work);
	free(outside);
	return tap_done();
}
