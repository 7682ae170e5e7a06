/* agent.c: the live agent loop, its tools and its transcript (see agent.h). */
#include "agent.h"
#include "eval.h"
#include "evalbox.h"
#include "jsonx.h"
#include "proc.h"
#include "write_claude.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define AGENT_READ_MAX (256u << 10)

static const char agent_system[] =
	"You are working on a GPU kernel problem in a work directory. Use the tools to read "
	"and write files, run shell commands and evaluate your solution. Paths are relative "
	"to the work directory. When you are done, answer without calling a tool.";


const char *agent_end_name(enum agent_end e)
{
	switch (e) {
	case AGENT_DONE: return "done";
	case AGENT_BUDGET_TIME: return "time budget spent";
	case AGENT_BUDGET_TURNS: return "turn budget spent";
	case AGENT_BUDGET_TOKENS: return "token budget spent";
	case AGENT_ABORTED: return "aborted";
	case AGENT_ERROR: return "error";
	}
	return "?";
}

void agent_result_free(struct agent_result *r)
{
	free(r->error);
	r->error = NULL;
}

double agent_parse_duration(const char *s)
{
	double total = 0;
	int any = 0;
	if (!s || !*s)
		return -1;
	while (*s) {
		char *end;
		double v = strtod(s, &end);
		if (end == s || v < 0 || v > 1e9)
			return -1;
		s = end;
		switch (*s) {
		case 'h': v *= 3600; s++; break;
		case 'm': v *= 60; s++; break;
		case 's': s++; break;
		case 0: break;
		default: return -1;
		}
		total += v;
		any = 1;
	}
	return any ? total : -1;
}

static double agent_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Replaces bytes that are not UTF-8 by '?', so tool output can go into a
 * JSON request that the server will accept. In place. */
static void agent_utf8_fix(char *s)
{
	unsigned char *p = (unsigned char *)s;
	while (*p) {
		int n = *p < 0x80 ? 0 : (*p & 0xE0) == 0xC0 ? 1 : (*p & 0xF0) == 0xE0 ? 2 :
		        (*p & 0xF8) == 0xF0 ? 3 : -1;
		int okay = n >= 0 && !(n == 1 && *p < 0xC2);
		for (int i = 1; okay && i <= n; i++)
			okay = (p[i] & 0xC0) == 0x80;
		if (!okay) {
			*p++ = '?';
			continue;
		}
		p += n + 1;
	}
}

/* ---- paths ---------------------------------------------------------------- */

static int agent_within(const char *root, const char *real)
{
	size_t n = strlen(root);
	return !strncmp(real, root, n) && (real[n] == 0 || real[n] == '/' || (n == 1 && root[0] == '/'));
}

/* Why path cannot name a file as given, NULL when it can: a control byte
 * (a terminal would act on it, a listing would hide it) is refused with
 * the byte shown escaped. (A NUL never gets here: agent_nul refuses it in
 * the arguments' JSON, where it still is.) Owned. */
static char *agent_path_bytes(const char *path)
{
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			struct sbuf b;
			sbuf_init(&b);
			for (const unsigned char *d = (const unsigned char *)path; *d && b.len < 200; d++)
				if (*d == '\\')
					sbuf_adds(&b, "\\\\");
				else if (*d < 0x20 || *d == 0x7f)
					sbuf_addf(&b, "\\x%02x", *d);
				else
					sbuf_addc(&b, (char)*d);
			char *msg = xasprintf("the path \"%s\" holds the control byte \\x%02x: refused", b.s, *c);
			sbuf_free(&b);
			return msg;
		}
	return NULL;
}

/* Whether the JSON text escapes a NUL (\u0000) in a string: cJSON would
 * hand the string back cut there, a path "a\u0000b" as "a". */
static int agent_nul(const char *json)
{
	for (const char *p = json; p && (p = strstr(p, "\\u0000")) != NULL; p++) {
		size_t bs = 0;
		while (p - bs > json && p[-(long)bs - 1] == '\\')
			bs++;
		if (bs % 2 == 0)   /* the backslash is not itself escaped */
			return 1;
	}
	return 0;
}

/* The absolute path of a tool's path argument inside the work directory,
 * or NULL with *err: no "..", no absolute path elsewhere, no symlink out.
 * With mkparents, missing parent directories are created. Owned. */
static char *agent_path(const char *workdir, const char *path, int mkparents, char **err)
{
	char root[PATH_MAX], real[PATH_MAX];
	char *full, *probe;
	const char *rel = path;

	*err = NULL;
	if (!path || !*path) {
		*err = xstrdup("no path given");
		return NULL;
	}
	if ((*err = agent_path_bytes(path)) != NULL)
		return NULL;
	if (!realpath(workdir, root)) {
		*err = xasprintf("work directory %s: %s", workdir, strerror(errno));
		return NULL;
	}
	if (path[0] == '/') {
		size_t n = strlen(root);
		if (strncmp(path, root, n) || (path[n] != '/' && path[n] != 0)) {
			*err = xasprintf("%s is outside the work directory", path);
			return NULL;
		}
		rel = path + n;
		while (*rel == '/')
			rel++;
	}
	for (const char *c = rel; *c;) {
		size_t k = strcspn(c, "/");
		if (k == 2 && c[0] == '.' && c[1] == '.') {
			*err = xasprintf("%s leaves the work directory (..)", path);
			return NULL;
		}
		c += k;
		while (*c == '/')
			c++;
	}
	full = *rel ? util_path_join(root, rel) : xstrdup(root);
	/* the deepest part that exists must resolve inside the root; the rest
	 * has no ".." and no links, so it stays inside */
	probe = xstrdup(full);
	for (;;) {
		struct stat sb;
		char *slash;
		if (lstat(probe, &sb) == 0) {
			if (!realpath(probe, real) || !agent_within(root, real)) {
				*err = xasprintf("%s resolves outside the work directory", path);
				free(probe);
				free(full);
				return NULL;
			}
			if (!strcmp(probe, full)) {
				/* a link inside the work directory: its target, which
				 * is then opened without following links */
				free(full);
				full = xstrdup(real);
			}
			break;
		}
		slash = strrchr(probe, '/');
		if (!slash || slash == probe)
			break;
		*slash = 0;
	}
	if (mkparents && strlen(probe) < strlen(full)) {
		/* create each missing directory below the existing part */
		char *dir = xstrdup(full);
		for (char *q = dir + strlen(probe) + 1; (q = strchr(q, '/')) != NULL; q++) {
			*q = 0;
			if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
				*err = xasprintf("cannot create %s: %s", dir + strlen(root) + 1, strerror(errno));
				free(dir);
				free(probe);
				free(full);
				return NULL;
			}
			*q = '/';
		}
		free(dir);
	}
	free(probe);
	return full;
}

/* ---- tools ----------------------------------------------------------------- */

static size_t agent_cap(const struct agent_opts *o)
{
	return o->output_cap ? o->output_cap : 64u << 10;
}

struct agent_out {
	struct sbuf b;
	size_t cap;
	int truncated;
};

static void agent_on_line(void *ud, int stream, const char *line, size_t len)
{
	struct agent_out *out = ud;
	(void)stream;
	if (out->b.len >= out->cap) {
		out->truncated = 1;
		return;
	}
	if (len > out->cap - out->b.len) {
		len = out->cap - out->b.len;
		out->truncated = 1;
	}
	sbuf_add(&out->b, line, len);
	sbuf_addc(&out->b, '\n');
}

static char *agent_bash(const struct agent_opts *o, const cJSON *args, int *is_error, double max_s)
{
	const char *cmd = jx_str(args, "command");
	double limit = jx_num(args, "timeout", 0);
	struct agent_out out = {.cap = agent_cap(o)};
	struct proc_result res;
	char desc[128];

	if (!cmd) {
		*is_error = 1;
		return xstrdup("bash: \"command\" (a string) is required");
	}
	if (!(limit > 0))
		limit = o->bash_timeout_s > 0 ? o->bash_timeout_s : 300;
	if (limit > 3600)
		limit = 3600;
	if (max_s > 0 && limit > max_s)
		limit = max_s;
	/* the environment is the sandbox's allowlist: no key, no token */
	char *const inner[] = {"bash", "-c", (char *)cmd, NULL};
	char **argv = sandbox_argv(o->sandbox, o->workdir, inner);
	if (!argv) {
		*is_error = 1;
		return xstrdup("bash: the sandbox (bwrap) is unavailable; the command did not run");
	}
	struct proc_spec spec = {
		.argv = argv, .cwd = o->workdir, .timeout_s = limit,
		.output_cap = out.cap + 4096, .on_line = agent_on_line, .ud = &out,
	};
	sbuf_init(&out.b);
	/* proc_run's loop, with the user's abort killing the command at once */
	struct proc *p = proc_start(&spec);
	int aborted = 0;
	while (proc_wait(p, 200))
		if (o->abort && *o->abort && !aborted) {
			proc_kill(p);
			aborted = 1;
		}
	res = *proc_result(p);
	proc_free(p);
	sandbox_argv_free(argv);
	if (out.truncated || res.truncated)
		sbuf_addf(&out.b, "[output truncated at %zu bytes]\n", out.cap);
	if (aborted)
		sbuf_adds(&out.b, "[killed: the run was aborted]\n");
	proc_describe(&res, desc, sizeof desc);
	sbuf_addf(&out.b, "[%s]", desc);
	*is_error = !(res.end == PROC_EXITED && res.code == 0);
	return sbuf_detach(&out.b);
}

/* ---- files the agent made ------------------------------------------------ */

static const char *agent_kind_of(mode_t m)
{
	return S_ISDIR(m) ? "a directory" : S_ISFIFO(m) ? "a FIFO" : S_ISSOCK(m) ? "a socket" :
	       S_ISCHR(m) ? "a character device" : S_ISBLK(m) ? "a block device" :
	       S_ISLNK(m) ? "a symbolic link" : "not a regular file";
}

/* Opens a regular file and nothing else: no link followed, no wait on a
 * FIFO or a device (the agent made them, and a FIFO would block the run
 * for good). flags: O_RDONLY, or O_WRONLY|O_CREAT|O_TRUNC. The fd, or -1
 * with *err naming shown and why. */
static int agent_open(const char *path, const char *shown, int flags, struct stat *sb, char **err)
{
	struct stat lsb;
	int fd;
	if (lstat(path, &lsb) == 0 && !S_ISREG(lsb.st_mode)) {
		*err = xasprintf("%s is %s: only regular files are read or written", shown, agent_kind_of(lsb.st_mode));
		return -1;
	}
	if ((fd = open(path, flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0666)) < 0) {
		*err = errno == ELOOP ? xasprintf("%s is a symbolic link: only regular files are read or written", shown)
		                      : xasprintf("cannot open %s: %s", shown, strerror(errno));
		return -1;
	}
	if (fstat(fd, sb) < 0) {
		*err = xasprintf("cannot open %s: %s", shown, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(sb->st_mode)) {   /* replaced between lstat and open */
		*err = xasprintf("%s is %s: only regular files are read or written", shown, agent_kind_of(sb->st_mode));
		close(fd);
		return -1;
	}
	return fd;
}

/* At most max bytes of fd, NUL-terminated; *len what was read. */
static char *agent_read_fd(int fd, size_t max, size_t *len)
{
	char *buf = xmalloc(max + 1);
	size_t n = 0;
	while (n < max) {
		ssize_t k = read(fd, buf + n, max - n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

/* A regular file's first max bytes and its size; NULL with *err. Owned. */
static char *agent_slurp(const char *path, const char *shown, size_t max, size_t *len, off_t *size, char **err)
{
	struct stat sb;
	int fd = agent_open(path, shown, O_RDONLY, &sb, err);
	if (fd < 0)
		return NULL;
	char *data = agent_read_fd(fd, max, len);
	close(fd);
	*size = sb.st_size > (off_t)*len ? sb.st_size : (off_t)*len;
	return data;
}

/* Writes a whole file, every step checked (and with durable, fsync'd: a
 * run's outputs); a regular file only. 0, or -1 with *err naming shown. */
static int agent_save(const char *path, const char *shown, const char *data, size_t len, int durable, char **err)
{
	struct stat sb;
	int fd = agent_open(path, shown, O_WRONLY | O_CREAT | O_TRUNC, &sb, err), e;
	if (fd < 0)
		return -1;
	if (util_write_all(fd, data, len) < 0 || (durable && fsync(fd) < 0)) {
		e = errno;
		close(fd);
		*err = xasprintf("cannot write %s: %s", shown, strerror(e));
		return -1;
	}
	if (close(fd) < 0) {
		*err = xasprintf("cannot write %s: %s", shown, strerror(errno));
		return -1;
	}
	return 0;
}

/* The biggest file edit_file rewrites: it reads it whole. */
#define AGENT_EDIT_MAX (8u << 20)

static char *agent_read(const struct agent_opts *o, const cJSON *args, int *is_error, double max_s)
{
	(void)max_s;
	const char *shown = jx_str(args, "path");
	char *err, *path = agent_path(o->workdir, shown, 0, &err), *data;
	size_t len;
	off_t size;
	*is_error = 1;
	if (!path)
		return err;
	data = agent_slurp(path, shown, AGENT_READ_MAX, &len, &size, &err);
	free(path);
	if (!data)
		return err;
	*is_error = 0;
	if ((off_t)len < size) {
		char *s = xasprintf("%s\n[file truncated: %zu of %lld bytes shown]", data, len, (long long)size);
		free(data);
		return s;
	}
	return data;
}

static int agent_write_all(const char *path, const char *data, size_t len, char **err)
{
	return agent_save(path, strrchr(path, '/') ? strrchr(path, '/') + 1 : path, data, len, 0, err);
}

static char *agent_write(const struct agent_opts *o, const cJSON *args, int *is_error, double max_s)
{
	(void)max_s;
	const char *content = jx_str(args, "content");
	char *err, *path;
	if (!content) {
		*is_error = 1;
		return xstrdup("write_file: \"content\" (a string) is required");
	}
	path = agent_path(o->workdir, jx_str(args, "path"), 1, &err);
	if (!path || agent_write_all(path, content, strlen(content), &err) < 0) {
		free(path);
		*is_error = 1;
		return err;
	}
	free(path);
	*is_error = 0;
	return xasprintf("wrote %zu bytes to %s", strlen(content), jx_str(args, "path"));
}

static size_t agent_count(const char *hay, const char *needle)
{
	size_t n = 0, k = strlen(needle);
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += k)
		n++;
	return n;
}

static char *agent_edit(const struct agent_opts *o, const cJSON *args, int *is_error, double max_s)
{
	(void)max_s;
	const char *old = jx_str(args, "old_string"), *new = jx_str(args, "new_string");
	char *err = NULL, *path, *data, *at;
	size_t len, n;
	struct sbuf b;

	*is_error = 1;
	if (!old || !new || !*old)
		return xstrdup("edit_file: \"old_string\" (non-empty) and \"new_string\" are required");
	if (!(path = agent_path(o->workdir, jx_str(args, "path"), 0, &err)))
		return err;
	off_t size;
	if (!(data = agent_slurp(path, jx_str(args, "path"), AGENT_EDIT_MAX, &len, &size, &err))) {
		free(path);
		return err;
	}
	if ((off_t)len < size) {
		err = xasprintf("%s is %lld bytes: edit_file rewrites files up to %u bytes; use bash", jx_str(args, "path"),
		                (long long)size, AGENT_EDIT_MAX);
		free(data);
		free(path);
		return err;
	}
	n = agent_count(data, old);
	if (n != 1) {
		err = n ? xasprintf("old_string occurs %zu times in %s; give more context", n, jx_str(args, "path"))
		        : xasprintf("old_string not found in %s", jx_str(args, "path"));
		free(data);
		free(path);
		return err;
	}
	at = strstr(data, old);
	sbuf_init(&b);
	sbuf_add(&b, data, (size_t)(at - data));
	sbuf_adds(&b, new);
	sbuf_adds(&b, at + strlen(old));
	if (agent_write_all(path, b.s, b.len, &err) == 0) {
		*is_error = 0;
		err = xasprintf("edited %s", jx_str(args, "path"));
	}
	sbuf_free(&b);
	free(data);
	free(path);
	return err;
}

/* The work directory's solution.cu, copied by us to dst so that the eval
 * and the run's record get the agent's file and never what a link in its
 * place points to. 0; -1 with *err saying why it was refused; -2 with
 * *err when dst could not be written. */
static int agent_take_solution(const struct agent_opts *o, const char *dst, char **err)
{
	char *sol = util_path_join(o->workdir, "solution.cu"), *data, *e2 = NULL;
	size_t len;
	off_t size;
	int rc = -1;
	struct stat sb;
	*err = NULL;
	/* a second name of the same file may be outside the work directory
	 * (made without the sandbox: ln /etc/shadow solution.cu) */
	if (lstat(sol, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_nlink > 1) {
		*err = xstrdup("solution.cu is a hard link (it has other names, maybe outside the work directory)");
		free(sol);
		return -1;
	}
	data = agent_slurp(sol, "solution.cu", AGENT_EDIT_MAX, &len, &size, err);
	free(sol);
	if (!data)
		return -1;
	if ((off_t)len < size)
		*err = xasprintf("solution.cu is %lld bytes: more than %u is not a solution", (long long)size, AGENT_EDIT_MAX);
	else if (agent_save(dst, dst, data, len, 1, &e2) < 0) {
		*err = e2;
		rc = -2;
	} else {
		rc = 0;
	}
	free(data);
	return rc;
}

/* Stops an eval when the run is aborted or its budget is spent: the eval
 * checks one flag, and its steps each have their own time limit. */
struct agent_watch {
	const struct agent_opts *o;
	double deadline;            /* 0: none */
	volatile sig_atomic_t stop, done;
	int expired;
};

static void *agent_watch_thread(void *arg)
{
	struct agent_watch *w = arg;
	struct timespec ts = {0, 50 * 1000 * 1000};
	while (!w->done) {
		if (w->o->abort && *w->o->abort)
			w->stop = 1;
		if (w->deadline > 0 && agent_now() >= w->deadline) {
			w->expired = 1;
			w->stop = 1;
		}
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static char *agent_eval(const struct agent_opts *o, const cJSON *args, int *is_error, double max_s)
{
	(void)args;
	struct eval_opts eo = {0};
	struct eval_result r;
	struct evalbox box = {.kind = o->sandbox};
	char *sol, *dir, *s, *why = NULL;
	int rc;

	*is_error = 1;
	if (!o->problem)
		return xstrdup("eval backend unavailable: this run has no problem");
	sol = util_path_join(o->workdir, "solution.cu");
	if (access(sol, F_OK) != 0) {
		free(sol);
		return xstrdup("eval: there is no solution.cu in the work directory yet");
	}
	free(sol);
	dir = util_path_join(o->rundir ? o->rundir : o->workdir, "eval");
	mkdir(dir, 0777);
	sol = util_path_join(dir, "solution.cu");
	if (agent_take_solution(o, sol, &why) < 0) {
		s = xasprintf("eval: %s; the solution was not evaluated", why);
		free(why);
		free(sol);
		free(dir);
		return s;
	}
	eo.problem = o->problem;
	eo.problems_dir = o->problems_dir;
	eo.workdir = dir;
	eo.solution = sol;
	eo.model = o->llm.model;
	/* the whole eval inside what is left of the run's budget */
	struct agent_watch w = {.o = o, .deadline = max_s > 0 ? agent_now() + max_s : 0};
	pthread_t watcher;
	int watching = pthread_create(&watcher, NULL, agent_watch_thread, &w) == 0;
	eo.abort = watching ? &w.stop : o->abort;
	if (max_s > 0)
		eo.timeout_s = max_s < 300 ? max_s : 300;
	rc = evalbox_run(&eo, &box, &r);
	w.done = 1;
	if (watching)
		pthread_join(watcher, NULL);
	if (w.expired) {
		free(r.failure);
		r.failure = xstrdup("stopped: the run's time budget ran out during the eval");
	}
	if (rc < 0)
		s = xasprintf("eval backend unavailable: %s", r.failure ? r.failure : "unknown reason");
	else {
		struct sbuf b;
		sbuf_init(&b);
		sbuf_addf(&b, "correct: %s\n", r.correct ? "yes" : "no");
		if (r.failure)
			sbuf_addf(&b, "failure (%s): %s\n", eval_stage_name(r.stage), r.failure);
		for (int i = 0; i < r.nshapes; i++)
			sbuf_addf(&b, "shape %d %s: %.4f ms, %.2f TFLOPS, %.1f GB/s, peak %.3f\n", r.shapes[i].shape,
			          r.shapes[i].desc ? r.shapes[i].desc : "", r.shapes[i].ms, r.shapes[i].tflops,
			          r.shapes[i].gbps, r.shapes[i].peak_fraction);
		if (r.peak_fraction >= 0)
			sbuf_addf(&b, "peak_fraction: %.4f\n", r.peak_fraction);
		s = sbuf_detach(&b);
		*is_error = rc != 0;
	}
	eval_result_free(&r);
	free(dir);
	free(sol);
	return s;
}

/* Where a tool runs, which is what it needs of the sandbox. */
enum agent_where {
	AGENT_HERE,     /* in this process: every path it takes is kept inside the work directory (agent_path) */
	AGENT_SANDBOX,  /* a child in o->sandbox (bash: sandbox_argv; eval: evalbox), its time limited by the budget's rest */
};

/* The agent's tools, one row each: what the model is told (name, what the
 * tool does, the JSON Schema of its arguments), where it runs, and the
 * function that does it (max_s: the time left of the budget, 0 none; a
 * tool that runs here gets 0). Adding a tool is adding a row. */
static const struct agent_tool {
	const char *name, *description, *schema;
	enum agent_where where;
	char *(*run)(const struct agent_opts *o, const cJSON *args, int *is_error, double max_s);
} agent_tools[] = {
	{"bash", "Run a shell command in the work directory. Output is capped; the command is "
	 "killed after timeout seconds.",
	 "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\"},"
	 "\"timeout\":{\"type\":\"number\",\"description\":\"seconds\"}},\"required\":[\"command\"]}",
	 AGENT_SANDBOX, agent_bash},
	{"read_file", "Read a file of the work directory.",
	 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"}},\"required\":[\"path\"]}",
	 AGENT_HERE, agent_read},
	{"write_file", "Create or overwrite a file of the work directory.",
	 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"content\":{\"type\":\"string\"}},"
	 "\"required\":[\"path\",\"content\"]}",
	 AGENT_HERE, agent_write},
	{"edit_file", "Replace one exact, unique occurrence of old_string by new_string in a file.",
	 "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\"},\"old_string\":{\"type\":\"string\"},"
	 "\"new_string\":{\"type\":\"string\"}},\"required\":[\"path\",\"old_string\",\"new_string\"]}",
	 AGENT_HERE, agent_edit},
	{"eval", "Compile, check and benchmark the current solution.cu with the benchmark's own harness.",
	 "{\"type\":\"object\",\"properties\":{}}",
	 AGENT_SANDBOX, agent_eval},
};
#define AGENT_NTOOLS ((int)(sizeof agent_tools / sizeof *agent_tools))

/* The table as the model client takes it (owned). */
static struct llm_tool *agent_llm_tools(void)
{
	struct llm_tool *t = xcalloc(AGENT_NTOOLS, sizeof *t);
	for (int i = 0; i < AGENT_NTOOLS; i++)
		t[i] = (struct llm_tool){ agent_tools[i].name, agent_tools[i].description, agent_tools[i].schema };
	return t;
}

static char *agent_tool_within(const struct agent_opts *o, const char *name, const char *args_json,
                               int *is_error, double max_s);

char *agent_tool(const struct agent_opts *o, const char *name, const char *args_json, int *is_error)
{
	return agent_tool_within(o, name, args_json, is_error, 0);
}

/* The row of agent_tools named name does it; none: the names there are. */
static char *agent_tool_run(const struct agent_opts *o, const char *name, const cJSON *args, int *is_error,
                            double max_s)
{
	struct sbuf names;
	for (int i = 0; i < AGENT_NTOOLS; i++)
		if (!strcmp(name, agent_tools[i].name))
			return agent_tools[i].run(o, args, is_error, agent_tools[i].where == AGENT_SANDBOX ? max_s : 0);
	sbuf_init(&names);
	for (int i = 0; i < AGENT_NTOOLS; i++)
		sbuf_addf(&names, "%s%s", i ? ", " : "", agent_tools[i].name);
	char *s = xasprintf("no tool named %s; the tools are %s", name, names.s);
	sbuf_free(&names);
	return s;
}

/* max_s > 0: what is left of the time budget caps a command's time limit. */
static char *agent_tool_within(const struct agent_opts *o, const char *name, const char *args_json,
                               int *is_error, double max_s)
{
	/* jx_parse: a \u0000 in the model's arguments is the U+2400 the replay
	 * shows, not an end: what runs is what is shown */
	cJSON *args = args_json && *args_json ? jx_parse(args_json, strlen(args_json)) : cJSON_CreateObject();
	char *s;

	*is_error = 1;
	if (!cJSON_IsObject(args))
		s = xasprintf("the arguments of %s are not a JSON object", name ? name : "the tool");
	else if (agent_nul(args_json))
		s = xasprintf("the arguments of %s hold a NUL byte (\\u0000): refused (a path or a text would end "
		              "there)", name ? name : "the tool");
	else if (!name)
		s = xstrdup("a tool call without a name");
	else
		s = agent_tool_run(o, name, args, is_error, max_s);
	cJSON_Delete(args);
	agent_utf8_fix(s);
	return llm_scrub(s, o->llm.api_key);
}

/* ---- the transcript (src/write_claude.c writes it) -------------------------- */

struct agent {
	const struct agent_opts *o;
	struct llm_opts llm;
	struct write_claude tr;     /* transcript.jsonl */
	char *write_err;            /* the first failed write of the run, or NULL */
	double t0;
	int turn;
	long long tok_in, tok_out, tok_cache_read, tok_cache_write;
};

/* The event to the caller's log or screen, with the key scrubbed as in the file. */
static void agent_emit(struct agent *a, const char *kind, const char *name, const char *text, int is_error)
{
	char *s;
	if (!a->o->on_event)
		return;
	s = llm_scrub(xstrdup(text ? text : ""), a->o->llm.api_key);
	a->o->on_event(a->o->ud, kind, name, s, is_error);
	free(s);
}

/* The first failed write of the run, the transcript's included; NULL: none. */
static const char *agent_write_failed(struct agent *a)
{
	if (!a->write_err && a->tr.err)
		a->write_err = xstrdup(a->tr.err);
	return a->write_err;
}

static void agent_tr_init(struct agent *a)
{
	const char *names[AGENT_NTOOLS];
	for (int i = 0; i < AGENT_NTOOLS; i++)
		names[i] = agent_tools[i].name;
	write_claude_init(&a->tr, a->o->workdir, names, AGENT_NTOOLS, llm_provider_name(a->o->llm.provider),
	                  a->o->problem);
	agent_emit(a, "init", NULL, a->o->llm.model, 0);
}

static void agent_tr_user(struct agent *a, const char *text)
{
	write_claude_user(&a->tr, text);
	agent_emit(a, "user", NULL, text, 0);
}

static void agent_tr_system(struct agent *a, const char *subtype, const char *text)
{
	write_claude_system(&a->tr, subtype, text);
	agent_emit(a, strcmp(subtype, "api_error") ? subtype : "error", NULL, text, 1);
}

/* Each block written, then told: the screen finds it in the file then. */
static void agent_tr_reply(struct agent *a, const struct llm_reply *r)
{
	if (r->reasoning.len) {
		write_claude_reasoning(&a->tr, r, a->turn);
		agent_emit(a, "reasoning", NULL, r->reasoning.s, 0);
	}
	if (r->text.len || !r->ncalls) {
		write_claude_text(&a->tr, r, a->turn);
		agent_emit(a, "text", NULL, r->text.s, 0);
	}
	for (int i = 0; i < r->ncalls; i++) {
		write_claude_call(&a->tr, r, a->turn, &r->calls[i]);
		agent_emit(a, "tool_call", r->calls[i].name, r->calls[i].args.s, 0);
	}
	if (r->tok_in || r->tok_out) {
		char *s = xasprintf("in %lld, out %lld, cache read %lld", r->tok_in, r->tok_out, r->tok_cache_read);
		agent_emit(a, "usage", NULL, s, 0);
		free(s);
	}
}

static void agent_tr_result(struct agent *a, const char *call_id, const char *name,
                            const char *text, int is_error)
{
	write_claude_result(&a->tr, call_id, text, is_error);
	agent_emit(a, "tool_result", name, text, is_error);
}

static const char *agent_result_subtype(enum agent_end e)
{
	switch (e) {
	case AGENT_DONE: return "success";
	case AGENT_BUDGET_TURNS: return "error_max_turns";
	case AGENT_BUDGET_TIME:
	case AGENT_BUDGET_TOKENS: return "error_budget";
	case AGENT_ABORTED: return "error_aborted";
	case AGENT_ERROR: break;
	}
	return "error_during_execution";
}

static void agent_tr_final(struct agent *a, const struct agent_result *r, const char *text)
{
	struct write_claude_end e = {
		.subtype = agent_result_subtype(r->end), .is_error = r->end != AGENT_DONE, .turns = r->turns,
		.text = text ? text : agent_end_name(r->end), .seconds = r->seconds,
		.tok_in = a->tok_in, .tok_out = a->tok_out, .tok_cache_read = a->tok_cache_read,
		.tok_cache_write = a->tok_cache_write,
	};
	write_claude_final(&a->tr, &e);
	agent_emit(a, "result", e.subtype, e.text, e.is_error);
}

/* ---- result.json ------------------------------------------------------------ */

/* The backend's own verdict when it can give one; otherwise a result.json
 * that says the solution was not judged (never the agent's claim). The
 * solution is copied and judged only when solution.cu is a regular file
 * of the work directory: a link there (to /etc/shadow) is refused, said in
 * result.json and as an error event. 0, or -1 with *err (owned) when
 * result.json or the solution's copy could not be written. */
static int agent_result_json(struct agent *a, const struct agent_result *r, char **err)
{
	const struct agent_opts *o = a->o;
	char *sol = util_path_join(o->workdir, "solution.cu"), *dst = util_path_join(o->rundir, "solution.cu");
	char *path = util_path_join(o->rundir, "result.json"), *s, *why = NULL, *refused = NULL;
	struct stat sb;
	int have = 0, rc = 0;
	cJSON *j;

	*err = NULL;
	if (lstat(sol, &sb) == 0) {
		/* the dataset layout: the solution beside the transcript */
		int took = agent_take_solution(o, dst, &refused);
		if (took == 0) {
			have = 1;
		} else if (took == -2) {
			*err = refused;
			refused = NULL;
			rc = -1;
		} else {
			char *msg = xasprintf("solution.cu refused, not copied nor judged: %s", refused);
			agent_emit(a, "error", NULL, msg, 1);
			free(msg);
		}
	}
	if (have && o->problem && o->final_eval) {
		/* the eval's steps write in the run directory; what is already
		 * recorded there stays read-only to them */
		char *keep[] = {a->tr.path, util_path_join(o->rundir, "final.txt"), xstrdup(dst),
		                xstrdup(o->workdir), NULL};
		struct evalbox box = {.kind = o->sandbox, .keep = (const char *const *)keep};
		struct eval_opts eo = {.problem = o->problem, .problems_dir = o->problems_dir,
		                       .workdir = o->rundir, .solution = dst, .model = o->llm.model};
		struct eval_result er;
		int erc = evalbox_run(&eo, &box, &er);
		for (int i = 1; keep[i]; i++)
			free(keep[i]);
		/* why it could not judge goes into our result.json */
		if (erc < 0)
			why = xstrdup(er.failure ? er.failure : "unknown reason");
		eval_result_free(&er);
		if (erc >= 0) {
			free(sol);
			free(dst);
			free(path);
			return rc;
		}
	}
	j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "harness", "kbtui-live");
	cJSON_AddStringToObject(j, "provider", llm_provider_name(o->llm.provider));
	cJSON_AddStringToObject(j, "model", o->llm.model ? o->llm.model : "");
	cJSON_AddStringToObject(j, "reasoning_effort", o->llm.effort ? o->llm.effort : "");
	if (o->problem)
		cJSON_AddStringToObject(j, "problem", o->problem);
	cJSON_AddBoolToObject(j, "has_solution", have);
	cJSON_AddBoolToObject(j, "correct", 0);
	cJSON_AddNullToObject(j, "peak_fraction");
	if (refused) {
		char *judged = xasprintf("no: solution.cu was refused: %s", refused);
		cJSON_AddStringToObject(j, "judged", judged);
		cJSON_AddStringToObject(j, "solution_refused", refused);
		free(judged);
	} else if (why) {
		char *judged = xasprintf("no: the eval backend did not run: %s", why);
		cJSON_AddStringToObject(j, "judged", judged);
		free(judged);
	} else {
		cJSON_AddStringToObject(j, "judged", "no: the eval backend did not run");
	}
	cJSON_AddNumberToObject(j, "elapsed_seconds", r->seconds);
	cJSON_AddBoolToObject(j, "session_complete", r->end == AGENT_DONE);
	cJSON_AddStringToObject(j, "end", agent_end_name(r->end));
	cJSON_AddNumberToObject(j, "turns", r->turns);
	{
		cJSON *u = cJSON_AddObjectToObject(j, "usage");
		cJSON_AddNumberToObject(u, "input_tokens", (double)a->tok_in);
		cJSON_AddNumberToObject(u, "output_tokens", (double)a->tok_out);
		cJSON_AddNumberToObject(u, "cache_read_tokens", (double)a->tok_cache_read);
		cJSON_AddNumberToObject(u, "cache_creation_tokens", (double)a->tok_cache_write);
		cJSON_AddNullToObject(u, "total_cost_usd");
	}
	if (r->end == AGENT_ERROR && r->error)
		cJSON_AddStringToObject(j, "error", r->error);
	s = llm_scrub(cJSON_Print(j), o->llm.api_key);
	s = xrealloc(s, strlen(s) + 2);
	strcat(s, "\n");
	if (agent_save(path, path, s, strlen(s), 1, rc < 0 ? &why : err) < 0)
		rc = -1;
	free(s);
	free(why);
	free(refused);
	cJSON_Delete(j);
	free(sol);
	free(dst);
	free(path);
	return rc;
}

/* ---- the loop ---------------------------------------------------------------- */

static void agent_on_retry(void *ud, int attempt, double wait_s, const char *why)
{
	struct agent *a = ud;
	char *s = xasprintf("retry %d in %.1f s: %s", attempt, wait_s, why ? why : "");
	agent_tr_system(a, "retry", s);
	free(s);
}

static void agent_on_delta(void *ud, enum llm_delta kind, int call, const char *s, size_t n)
{
	struct agent *a = ud;
	if (a->o->llm.on_delta)
		a->o->llm.on_delta(a->o->llm.ud, kind, call, s, n);
}

static void agent_progress(struct agent *a)
{
	if (a->o->on_progress)
		a->o->on_progress(a->o->ud, a->turn, a->tok_in, a->tok_out);
}

/* Why the loop must stop before the next turn, or -1 to go on. */
static int agent_budget(struct agent *a)
{
	const struct agent_opts *o = a->o;
	if (agent_write_failed(a))
		return AGENT_ERROR;
	if (o->abort && *o->abort)
		return AGENT_ABORTED;
	if (o->budget_s > 0 && agent_now() - a->t0 >= o->budget_s)
		return AGENT_BUDGET_TIME;
	if (o->max_turns > 0 && a->turn >= o->max_turns)
		return AGENT_BUDGET_TURNS;
	if (o->max_tokens > 0 && a->tok_in + a->tok_out >= o->max_tokens)
		return AGENT_BUDGET_TOKENS;
	return -1;
}

/* One model turn with the retries of a dropped stream. */
static enum llm_status agent_turn(struct agent *a, const cJSON *conv, struct llm_reply *rep)
{
	int retries = a->o->stream_retries < 0 ? 0 : a->o->stream_retries == 0 ? 2 : a->o->stream_retries;
	for (int i = 0;; i++) {
		enum llm_status st = llm_chat(&a->llm, conv, rep);
		if (st != LLM_ERR_DROPPED && st != LLM_ERR_STREAM)
			return st;
		agent_tr_system(a, "api_error", rep->error);
		if (i >= retries)
			return st;
		agent_tr_system(a, "retry", "retrying the turn");
		llm_reply_free(rep);
	}
}

static void agent_run_tools(struct agent *a, cJSON *conv, struct llm_reply *rep, struct agent_result *r)
{
	for (int i = 0; i < rep->ncalls; i++) {
		struct llm_call *c = &rep->calls[i];
		int is_error;
		char *out;
		if (a->o->abort && *a->o->abort) {
			out = xstrdup("aborted by the user");
			is_error = 1;
		} else if (agent_write_failed(a)) {
			/* a call the transcript cannot show is not made */
			out = xstrdup("not run: the run's transcript cannot be written");
			is_error = 1;
		} else {
			double left = a->o->budget_s > 0 ? a->o->budget_s - (agent_now() - a->t0) : 0;
			out = agent_tool_within(a->o, c->name, c->args.s, &is_error,
			                        a->o->budget_s > 0 ? (left > 1 ? left : 1) : 0);
		}
		r->tool_calls++;
		agent_tr_result(a, c->id, c->name, out, is_error);
		llm_conv_tool(conv, c->id, out, is_error);
		free(out);
	}
}

int agent_run(const struct agent_opts *o, struct agent_result *r)
{
	struct agent a = {.o = o};
	struct llm_tool *llm_tools;
	char *path, *final = NULL;
	cJSON *conv;
	int stop;

	memset(r, 0, sizeof *r);
	a.t0 = agent_now();
	a.llm = o->llm;
	a.llm.system = agent_system;
	a.llm.ntools = AGENT_NTOOLS;
	a.llm.abort = o->abort;
	if (o->budget_s > 0)
		a.llm.deadline = a.t0 + o->budget_s;
	a.llm.on_retry = agent_on_retry;
	a.llm.on_delta = agent_on_delta;
	a.llm.ud = &a;

	mkdir(o->rundir, 0777);
	path = util_path_join(o->rundir, "transcript.jsonl");
	if (write_claude_open(&a.tr, path, o->llm.api_key, o->llm.model, &r->error) < 0) {
		r->end = AGENT_ERROR;
		free(path);
		return -1;
	}
	free(path);
	a.llm.tools = llm_tools = agent_llm_tools();
	agent_tr_init(&a);
	conv = llm_conv_new();
	llm_conv_user(conv, o->prompt);
	agent_tr_user(&a, o->prompt ? o->prompt : "");

	while ((stop = agent_budget(&a)) < 0) {
		struct llm_reply rep;
		enum llm_status st;
		char *msg = a.turn > 0 && o->inbox ? o->inbox(o->ud) : NULL;
		if (msg) {
			llm_conv_user(conv, msg);
			agent_tr_user(&a, msg);
			free(msg);
		}
		/* the inbox may have held the run paused: an abort or the budget
		 * may have come meanwhile */
		if (a.turn > 0 && o->inbox && (stop = agent_budget(&a)) >= 0)
			break;
		a.turn++;
		agent_progress(&a);
		st = agent_turn(&a, conv, &rep);
		if (st != LLM_OK) {
			stop = st != LLM_ERR_ABORTED ? AGENT_ERROR :
			       o->abort && *o->abort ? AGENT_ABORTED : AGENT_BUDGET_TIME;
			if (st != LLM_ERR_DROPPED && st != LLM_ERR_STREAM && st != LLM_ERR_ABORTED)
				agent_tr_system(&a, "api_error", rep.error);
			r->error = xstrdup(rep.error);
			llm_reply_free(&rep);
			break;
		}
		for (int i = 0; i < rep.ncalls; i++)
			if (!rep.calls[i].id || !*rep.calls[i].id) {
				free(rep.calls[i].id);
				rep.calls[i].id = xasprintf("call_live_%d_%d", a.turn, i);
			}
		a.tok_in += rep.tok_in;
		a.tok_out += rep.tok_out;
		a.tok_cache_read += rep.tok_cache_read;
		a.tok_cache_write += rep.tok_cache_write;
		agent_progress(&a);
		agent_tr_reply(&a, &rep);
		llm_conv_assistant(conv, &rep);
		if (!rep.ncalls) {
			free(final);
			final = xstrdup(rep.text.s ? rep.text.s : "");
			llm_reply_free(&rep);
			stop = AGENT_DONE;
			break;
		}
		agent_run_tools(&a, conv, &rep, r);
		llm_reply_free(&rep);
	}
	if (agent_write_failed(&a)) {
		stop = AGENT_ERROR;
		free(r->error);
		r->error = xstrdup(a.write_err);
	}
	r->end = (enum agent_end)stop;
	r->turns = a.turn;
	r->tok_in = a.tok_in;
	r->tok_out = a.tok_out;
	r->seconds = agent_now() - a.t0;
	agent_tr_final(&a, r, r->end == AGENT_ERROR ? r->error : final);
	write_claude_close(&a.tr);
	agent_write_failed(&a);
	if (final) {
		char *fp = util_path_join(o->rundir, "final.txt"), *err = NULL;
		final = llm_scrub(final, o->llm.api_key);
		if (agent_save(fp, fp, final, strlen(final), 1, &err) < 0 && !a.write_err)
			a.write_err = err;
		else
			free(err);
		free(fp);
	}
	if (a.write_err && r->end != AGENT_ERROR) {
		r->end = AGENT_ERROR;
		free(r->error);
		r->error = xstrdup(a.write_err);
	}
	{
		char *err = NULL;
		if (agent_result_json(&a, r, &err) < 0 && !a.write_err)
			a.write_err = err;
		else
			free(err);
	}
	cJSON_Delete(conv);
	free(final);
	write_claude_free(&a.tr);
	free(llm_tools);
	if (a.write_err) {
		r->end = AGENT_ERROR;
		free(r->error);
		r->error = a.write_err;
		return -1;
	}
	return 0;
}
