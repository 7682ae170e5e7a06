/* test_evalbox.c: an eval of transcript code runs in the sandbox (evalbox.h).
 * No GPU needed: KernelBench-Hard's python loop runs against a stand-in
 * checkout and a stand-in python that, as check.py, tries what hostile
 * solution code would -- write outside the work directory, read a secret in
 * $HOME, print the environment and its capabilities, reach 127.0.0.1,
 * leave a file in /dev/shm -- then passes. Inside the sandbox each attempt
 * fails and the loop still gets its verdict; with the sandbox none the
 * same write succeeds (so the check can fail). Without a working bwrap,
 * evaljob (R, eval --tui) refuses to run and says how to override. */
#include "tap.h"
#include "evalbox.h"
#include "evaljob.h"
#include "util.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void eb_write(const char *path, const char *text, int mode)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	chmod(path, (mode_t)mode);
}

static void eb_line(void *ud, const char *stage, const char *line, size_t len)
{
	(void)stage;
	sbuf_add(ud, line, len);
	sbuf_addc(ud, '\n');
}

static int eb_listen(int *fd)
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

struct eb {
	char top[64], far[64];
	char *kbh, *py, *work, *sol, *outside, *secret, *shm, *victim;
	struct eval_opts o;
};

/* The stand-in checkout and python; the probes go to check.py's output. */
static void eb_setup(struct eb *e, int port)
{
	const char *home = getenv("HOME");
	char *pdir, *bin, *script;
	e->kbh = util_path_join(e->top, "kbh");
	pdir = util_path_join(e->kbh, "problems/04_kahan_softmax");
	char *cmd = xasprintf("mkdir -p '%s' '%s/py/bin'", pdir, e->top);
	if (system(cmd) != 0)
		ok(0, "mkdir %s", pdir);
	free(cmd);
	char *f = util_path_join(pdir, "problem.yaml");
	eb_write(f, "name: 04_kahan_softmax\n", 0644);
	free(f);
	f = util_path_join(pdir, "check.py");
	eb_write(f, "# stand-in\n", 0644);
	free(f);
	f = util_path_join(pdir, "benchmark.py");
	eb_write(f, "# stand-in\n", 0644);
	free(f);
	free(pdir);
	e->outside = util_path_join(e->far, "outside.txt");
	eb_write(e->outside, "original\n", 0666);
	e->victim = util_path_join(e->far, "victim.txt");
	eb_write(e->victim, "precious\n", 0666);
	e->work = util_path_join(e->top, "work");
	e->secret = home && *home == '/' && strcmp(home, "/") && access(home, W_OK) == 0
	            ? xasprintf("%s/kbtui-evalbox-secret-%d", home, (int)getpid()) : NULL;
	if (e->secret)
		eb_write(e->secret, "home-secret\n", 0600);
	e->shm = xasprintf("/dev/shm/kbtui-evalbox-%d", (int)getpid());
	bin = xasprintf("%s/py/bin", e->top);
	e->py = util_path_join(bin, "python");
	free(bin);
	script = xasprintf(
		"#!/bin/bash\n"
		"case \"$1\" in\n"
		"check.py)\n"
		"  grep '^CapEff' /proc/self/status\n"
		"  echo pwned > '%s' 2>/dev/null && echo wrote-outside\n"
		"  cat '%s' 2>/dev/null\n"
		"  env | sed 's/^/env: /'\n"
		"  (exec 3<>/dev/tcp/127.0.0.1/%d) 2>/dev/null && echo net-connected\n"
		"  echo x > '%s' 2>/dev/null\n"
		"  echo here > inside.txt && echo wrote-inside\n"
		/* the loop writes benchmark.log next, outside the sandbox */
		"  rm -f '%s/benchmark.log'; ln -sf '%s' '%s/benchmark.log' 2>/dev/null && echo planted-link\n"
		/* the harness objects: a folder no step can write (eval.c) */
		"  echo planted > harness/checker-0.o 2>/dev/null && echo wrote-harness\n"
		"  mv harness harness.old 2>/dev/null && echo moved-harness\n"
		"  echo PASS ;;\n"
		"benchmark.py)\n"
		"  echo 'shape=0 variant=solution tflops=1.2 gbps=800 ms=0.05'\n"
		"  echo 'peak_fraction: 0.42'\n"
		"  echo 'RESULT: OK' ;;\n"
		"esac\n",
		e->outside, e->secret ? e->secret : "/nonexistent", port, e->shm, e->work, e->victim, e->work);
	eb_write(e->py, script, 0755);
	free(script);
	e->sol = util_path_join(e->top, "solution.py");
	eb_write(e->sol, "import torch\n", 0644);
	e->o = (struct eval_opts){.problem = "04_kahan_softmax", .problems_dir = tap_path("problems"),
	                          .kbh = e->kbh, .python = e->py, .solution = e->sol, .workdir = e->work,
	                          .timeout_s = 60, .on_line = eb_line};
}

static void eb_free(struct eb *e)
{
	if (e->secret)
		unlink(e->secret);
	unlink(e->shm);
	char *cmd = xasprintf("rm -rf '%s' '%s'", e->top, e->far);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", e->top);
	free(cmd);
	free(e->kbh);
	free(e->py);
	free(e->work);
	free(e->sol);
	free(e->outside);
	free(e->victim);
	free(e->secret);
	free(e->shm);
}

/* In a child: without bwrap, evaljob refuses unless KBTUI_SANDBOX=none.
 * Exit bits: 1 refused, 2 its failure says how to override, 4 ran with none. */
static int eb_refusal_child(struct eb *e)
{
	int bits = 0;
	struct sbuf out;
	sbuf_init(&out);
	e->o.on_line = NULL;
	setenv("KBTUI_BWRAP", "/nonexistent/bwrap", 1);
	unsetenv("KBTUI_SANDBOX");
	struct evaljob *j = evaljob_start(&e->o);
	if (j && evaljob_wait(j) == -1) {
		bits |= 1;
		const char *why = evaljob_result(j)->failure;
		if (why && strstr(why, "bubblewrap") && strstr(why, "KBTUI_SANDBOX=none"))
			bits |= 2;
	}
	evaljob_free(j);
	setenv("KBTUI_SANDBOX", "none", 1);
	j = evaljob_start(&e->o);
	if (j && evaljob_wait(j) == 0 && evaljob_result(j)->correct)
		bits |= 4;
	evaljob_free(j);
	sbuf_free(&out);
	return bits;
}

int main(void)
{
	struct eb e = {.top = "/tmp/kbtui-evalbox-XXXXXX", .far = "/var/tmp/kbtui-evalbox-XXXXXX"};
	struct eval_result r;
	struct sbuf out;
	enum sandbox_kind k;
	char *why = NULL;
	int fd, port, rc;

	ok(evalbox_choose("none", &k, &why) == 0 && k == SANDBOX_NONE, "--sandbox none is an explicit choice");
	ok(evalbox_choose("docker", &k, &why) < 0 && why && strstr(why, "none or bwrap"), "an unknown sandbox is refused");
	free(why);
	setenv("KBTUI_SANDBOX", "chroot", 1);
	ok(evalbox_choose(NULL, &k, &why) < 0 && why && strstr(why, "KBTUI_SANDBOX"), "... named by KBTUI_SANDBOX too");
	free(why);
	unsetenv("KBTUI_SANDBOX");

	if (!mkdtemp(e.top) || !mkdtemp(e.far)) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return tap_done();
	}
	port = eb_listen(&fd);
	eb_setup(&e, port);

	pid_t pid = fork();
	if (pid == 0)
		_exit(eb_refusal_child(&e));
	int st = 0;
	waitpid(pid, &st, 0);
	int bits = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
	ok(bits & 1, "without bwrap, a re-evaluation (evaljob) does not run");
	ok(bits & 2, "... and says to install bubblewrap or set KBTUI_SANDBOX=none");
	ok(bits & 4, "with KBTUI_SANDBOX=none it runs, on purpose");
	/* that unsandboxed run did what the probes try: undo it */
	eb_write(e.outside, "original\n", 0666);
	eb_write(e.victim, "precious\n", 0666);
	unlink(e.shm);

	if (evalbox_choose(NULL, &k, &why) < 0) {
		tap_skip(why);
		free(why);
		eb_free(&e);
		return tap_done();
	}
	struct evalbox box = {.kind = SANDBOX_BWRAP};
	setenv("HF_TOKEN", "hf_SECRET_TOKEN", 1);
	setenv("GITHUB_TOKEN", "ghp_SECRET_TOKEN", 1);
	sbuf_init(&out);
	e.o.ud = &out;
	rc = evalbox_run(&e.o, &box, &r);
	is_int(rc, 0, "the loop runs in the sandbox and gets its verdict");
	ok(r.correct && r.peak_fraction > 0.41 && r.peak_fraction < 0.43, "... PASS, peak_fraction 0.42");
	has_str(out.s, "CapEff:\t0000000000000000", "the solution's process has no capability");
	ok(out.s && !strstr(out.s, "wrote-outside"), "a write outside the work directory fails");
	char *s = util_read_file(e.outside, NULL);
	is_str(s, "original\n", "... and the file is unchanged");
	free(s);
	has_str(out.s, "wrote-inside", "a write in its own directory works");
	ok(out.s && !strstr(out.s, "home-secret"), "a secret file in $HOME cannot be read");
	ok(out.s && !strstr(out.s, "SECRET_TOKEN"), "no planted token in its environment");
	ok(out.s && !strstr(out.s, "net-connected"), "127.0.0.1 is unreachable");
	ok(access(e.shm, F_OK) != 0, "a file it writes to /dev/shm is not on the host");
	ok(out.s && !strstr(out.s, "planted-link"), "it cannot replace the loop's benchmark.log by a link");
	ok(out.s && !strstr(out.s, "wrote-harness") && !strstr(out.s, "moved-harness"),
	   "it can neither write into the harness objects' folder nor move it away");
	s = util_read_file(e.victim, NULL);
	is_str(s, "precious\n", "... so the loop, outside, writes through no link");
	free(s);
	{
		char *bl = util_path_join(e.work, "benchmark.log");
		struct stat sb;
		s = util_read_file(bl, NULL);
		ok(lstat(bl, &sb) == 0 && S_ISREG(sb.st_mode) && s && strstr(s, "peak_fraction: 0.42"),
		   "... and benchmark.log is a plain file with the benchmark's output");
		free(s);
		free(bl);
	}
	eval_result_free(&r);

	/* a link left in the reused work directory where the loop copies the
	 * checkout's files: the next loop does not write through it */
	{
		char *planted = util_path_join(e.work, "kbh/problems/04_kahan_softmax/check.py");
		unlink(planted);
		ok(symlink(e.victim, planted) == 0, "a link is planted where the loop copies check.py");
		sbuf_reset(&out);
		rc = evalbox_run(&e.o, &box, &r);
		s = util_read_file(e.victim, NULL);
		is_str(s, "precious\n", "... and the next loop in that directory does not write through it");
		free(s);
		is_int(rc, 0, "... and still gets its verdict");
		eval_result_free(&r);
		free(planted);
	}

	/* the same loop unsandboxed: the write outside goes through */
	sbuf_reset(&out);
	box.kind = SANDBOX_NONE;
	rc = evalbox_run(&e.o, &box, &r);
	has_str(out.s, "wrote-outside", "with the sandbox none the same write outside succeeds (the check can fail)");
	s = util_read_file(e.victim, NULL);
	ok(s && strstr(s, "peak_fraction"), "... and so does the link trick");
	free(s);
	eval_result_free(&r);
	sbuf_free(&out);
	close(fd);
	unsetenv("HF_TOKEN");
	unsetenv("GITHUB_TOKEN");
	eb_free(&e);
	return tap_done();
}
