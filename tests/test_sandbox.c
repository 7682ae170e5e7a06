/* test_sandbox.c: the live agent's bash tool inside bubblewrap. Writes in the
 * work directory succeed; writes anywhere else (a temp dir outside it,
 * $HOME, through a symlink out of it) fail and leave the real files alone;
 * the network is unreachable; the time limit kills a command with its
 * children; output over the cap is cut with a note. Skips when bwrap is
 * missing or cannot make namespaces here. */
#include "tap.h"
#include "agent.h"
#include "eval.h"
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
#include <sys/un.h>
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

/* The allowlist and the GPU nodes, without bwrap. */
static void test_pure(void)
{
	char dev[] = "/tmp/kbtui-sandbox-dev-XXXXXX";
	ok(sandbox_env_allowed("PATH=/bin") && sandbox_env_allowed("CUDA_VISIBLE_DEVICES") &&
	   sandbox_env_allowed("LC_ALL") && sandbox_env_allowed("LANG"), "the allowlist keeps PATH, CUDA_*, LC_*, LANG");
	ok(!sandbox_env_allowed("HF_TOKEN") && !sandbox_env_allowed("GITHUB_TOKEN=x") &&
	   !sandbox_env_allowed("OPENAI_API_KEY") && !sandbox_env_allowed("CUDA_") && !sandbox_env_allowed("PATHX") &&
	   !sandbox_env_allowed("LD_PRELOAD"), "... and drops tokens, keys, LD_PRELOAD and look-alikes");
	if (!mkdtemp(dev)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	const char *names[] = {"nvidia0", "nvidiactl", "nvidia-uvm", "sda", "shm", "kvm", "fuse"};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char *p = util_path_join(dev, names[i]);
		sb_write(p, "");
		free(p);
	}
	char *dri = util_path_join(dev, "dri");
	mkdir(dri, 0777);
	free(dri);
	char **nodes = sandbox_gpu_nodes(dev);
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; nodes[i]; i++)
		sbuf_addf(&b, "%s ", strrchr(nodes[i], '/') + 1);
	is_str(b.s, "dri nvidia-uvm nvidia0 nvidiactl ", "the GPU nodes are nvidia* and dri, nothing else of /dev");
	sbuf_free(&b);
	sandbox_argv_free(nodes);
	char *cmd = xasprintf("rm -rf '%s'", dev);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dev);
	free(cmd);
}

/* A listening unix socket at path, or -1. */
static int sb_unix_listen(const char *path)
{
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 1) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* What the attack pass did from inside, and a few more: each must fail. */
static void test_contained(struct agent_opts *o, const char *work, const char *far)
{
	int is_error, ufd;
	char *s, *cmd, *p, *outside = util_path_join(far, "outside.txt");

	s = sb_bash(o, "grep -E '^(Cap|NoNewPrivs)' /proc/self/status", 0, &is_error);
	has_str(s, "CapEff:\t0000000000000000", "no effective capability inside, root or not");
	has_str(s, "CapBnd:\t0000000000000000", "... and none to regain (bounding set empty)");
	has_str(s, "NoNewPrivs:\t1", "... nor through a setuid program (no_new_privs)");
	free(s);

	/* its own pid namespace: no process of ours to signal or trace */
	cmd = xasprintf("ls /proc | grep -c '^[0-9]'; test -e /proc/%d/cmdline && grep -q test_sandbox /proc/%d/cmdline "
	                "&& echo sees-us", (int)getpid(), (int)getpid());
	s = sb_bash(o, cmd, 0, &is_error);
	ok(s && atoi(s) > 0 && atoi(s) < 10 && !strstr(s, "sees-us"),
	   "only the command's own processes are in its /proc (%d)", s ? atoi(s) : -1);
	free(s);
	free(cmd);

	/* the escape of the attack pass: a writable bind of / */
	cmd = xasprintf("mkdir -p x && mount --bind / x && mount -o remount,rw,bind x && echo pwned > x%s", outside);
	s = sb_bash(o, cmd, 0, &is_error);
	ok(is_error, "mount --bind / and remount rw fail");
	free(s);
	free(cmd);
	s = sb_slurp(outside);
	is_str(s, "original\n", "... and the file they aimed at is unchanged");
	free(s);
	s = sb_bash(o, "mount -t tmpfs none /mnt 2>&1; mount -o remount,rw / 2>&1; unshare -r true 2>&1", 0, &is_error);
	ok(is_error, "no tmpfs mount, no remount of /, no new user namespace to gain capabilities in");
	free(s);

	/* /dev is fresh: its /dev/shm is not the host's */
	p = xasprintf("/dev/shm/kbtui-sandbox-shm-%d", (int)getpid());
	cmd = xasprintf("echo leak > %s && cat %s", p, p);
	s = sb_bash(o, cmd, 0, &is_error);
	ok(access(p, F_OK) != 0, "a file written to /dev/shm inside does not appear on the host");
	unlink(p);
	free(s);
	free(cmd);
	free(p);
	s = sb_bash(o, "ls /dev", 0, &is_error);
	ok(!is_error && !strstr(s, "loop") && !strstr(s, "kvm") && !strstr(s, "sda") && !strstr(s, "vda") &&
	   !strstr(s, "fuse"), "/dev inside holds no host disk, loop, kvm or fuse node");
	has_str(s, "null", "... but null, zero, random are there");
	free(s);

	/* the environment: an allowlist, HOME the work directory */
	setenv("HF_TOKEN", "hf_SECRET_TOKEN_1", 1);
	setenv("GITHUB_TOKEN", "ghp_SECRET_TOKEN_2", 1);
	setenv("AWS_SECRET_ACCESS_KEY", "aws_SECRET_3", 1);
	setenv("OPENAI_API_KEY", "sk-SECRET_4", 1);
	setenv("LD_PRELOAD", "", 1);
	setenv("CUDA_VISIBLE_DEVICES", "3", 1);
	for (int k = 0; k < 2; k++) {
		const char *kind = k ? "without the sandbox" : "in the sandbox";
		o->sandbox = k ? SANDBOX_NONE : SANDBOX_BWRAP;
		s = sb_bash(o, "env", 0, &is_error);
		ok(s && !strstr(s, "SECRET") && !strstr(s, "LD_PRELOAD"), "%s: no planted secret in the tools' environment",
		   kind);
		cmd = xasprintf("HOME=%s\n", work);
		has_str(s, cmd, "%s: HOME is the work directory", kind);
		free(cmd);
		has_str(s, "CUDA_VISIBLE_DEVICES=3\n", "%s: CUDA variables pass", kind);
		has_str(s, "PATH=", "%s: PATH passes", kind);
		free(s);
	}
	o->sandbox = SANDBOX_BWRAP;
	unsetenv("HF_TOKEN");
	unsetenv("GITHUB_TOKEN");
	unsetenv("AWS_SECRET_ACCESS_KEY");
	unsetenv("OPENAI_API_KEY");
	unsetenv("LD_PRELOAD");
	unsetenv("CUDA_VISIBLE_DEVICES");

	/* files a command must not read: the home, the shadow file, sockets in /run */
	const char *home = getenv("HOME");
	if (home && *home == '/' && strcmp(home, "/") && access(home, W_OK) == 0) {
		p = xasprintf("%s/kbtui-sandbox-secret-%d", home, (int)getpid());
		sb_write(p, "home-secret\n");
		cmd = xasprintf("cat %s", p);
		s = sb_bash(o, cmd, 0, &is_error);
		ok(is_error && !strstr(s, "home-secret"), "a file in $HOME cannot be read inside");
		free(s);
		free(cmd);
		unlink(p);
		free(p);
	}
	s = sb_bash(o, "cat /etc/shadow; ls /etc/ssh", 0, &is_error);
	ok(s && !strstr(s, "root:"), "/etc/shadow reads empty inside");
	free(s);
	p = xasprintf("/run/kbtui-sandbox-%d.sock", (int)getpid());
	if ((ufd = sb_unix_listen(p)) >= 0) {
		cmd = xasprintf("test -e %s && echo visible", p);
		s = sb_bash(o, cmd, 0, &is_error);
		ok(s && !strstr(s, "visible"), "a daemon's socket in /run is not there to connect to");
		free(s);
		free(cmd);
		close(ufd);
		unlink(p);
	}
	free(p);
	/* a work directory that is $HOME itself stays writable (its mask is skipped) */
	{
		char *old = home ? xstrdup(home) : NULL;
		setenv("HOME", work, 1);
		s = sb_bash(o, "echo ok > in-home.txt && cat in-home.txt", 0, &is_error);
		ok(!is_error && s && strstr(s, "ok\n"), "a work directory that is $HOME is still writable");
		free(s);
		if (old)
			setenv("HOME", old, 1);
		else
			unsetenv("HOME");
		free(old);
	}
	/* still a place to work: the CUDA toolkit compiles there */
	char *nvcc = eval_find_nvcc();
	if (nvcc) {
		cmd = xasprintf("printf 'int main(void) { return 0; }\\n' > t.cu && '%s' -o t t.cu && ./t && echo built-and-ran", nvcc);
		s = sb_bash(o, cmd, 120, &is_error);
		has_str(s, "built-and-ran", "nvcc compiles and the program runs inside the sandbox");
		free(s);
		free(cmd);
		free(nvcc);
	} else {
		tap_skip("no nvcc: the compile inside the sandbox is not tried");
	}
	s = sb_bash(o, "exec 3< /dev/tty && echo has-tty", 0, &is_error);
	ok(s && !strstr(s, "has-tty"), "no controlling terminal inside (nothing to push keys into)");
	free(s);
	free(outside);
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
		size_t n = 0;
		while (v && v[n])
			n++;
		ok(v && !strcmp(v[0], "env") && !strcmp(v[1], "-i") && n >= 4 && !strcmp(v[n - 2], "echo") &&
		   !strcmp(v[n - 1], "hi"), "sandbox none runs the command as it is, in the allowlisted environment");
		sandbox_argv_free(v);
		setenv("KBTUI_BWRAP", "/nonexistent/bwrap", 1);
		ok(sandbox_argv(SANDBOX_BWRAP, "/tmp", inner) == NULL, "no bwrap: no argv, never a silent fallback");
		unsetenv("KBTUI_BWRAP");
	}

	test_pure();
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

	test_contained(&o, work, far);

	cmd = xasprintf("rm -rf '%s' '%s'", top, far);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", top);
	free(cmd);
	free(work);
	free(outside);
	return tap_done();
}
