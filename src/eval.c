/* eval.c: the native compile / check / benchmark loop (the python loop of
 * --kbh is in eval_kbh.c, result.json in eval_result.c). */
#include "config.h"

#include "eval.h"
#include "eval_int.h"
#include "gpulock.h"
#include "benchlog.h"
#include "forbid.h"
#include "deck.h"
#include "hardware.h"
#include "jsonx.h"
#include "problem.h"
#include "proc.h"
#include "safefile.h"
#include "util.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>


const char *eval_stage_name(enum eval_stage s)
{
	static const char *const n[] = {"setup", "forbidden", "compile", "check", "bench", "done"};
	return s <= EVAL_DONE ? n[s] : "?";
}

static void eval_emit(struct eval_ctx *x, const char *stage, const char *line, size_t len)
{
	if (x->o->on_line)
		x->o->on_line(x->o->ud, stage, line, len);
}

void eval_stage_begin(struct eval_ctx *x, enum eval_stage s)
{
	if (x->o->on_stage)
		x->o->on_stage(x->o->ud, s);
}

int eval_aborted(const struct eval_ctx *x)
{
	return x->o->abort && *x->o->abort;
}

void eval_say(struct eval_ctx *x, const char *fmt, ...)
{
	va_list ap;
	char buf[2048];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	eval_emit(x, "eval", buf, strlen(buf));
}

/* Records why the loop stopped (the first reason wins) and says it. */
int eval_fail(struct eval_ctx *x, enum eval_stage st, int rc, const char *fmt, ...)
{
	va_list ap;
	char buf[2048];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	x->r->stage = st;
	if (!x->r->failure)
		x->r->failure = xstrdup(buf);
	if (rc >= 0)   /* bad input (-1) is the caller's to report */
		eval_emit(x, "eval", buf, strlen(buf));
	return rc;
}

/* ---- files --------------------------------------------------------------- */

static int eval_mkdirs(const char *path)
{
	char *p = xstrdup(path);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0777) < 0 && errno != EEXIST) {
			free(p);
			return -1;
		}
		*s = '/';
	}
	int rc = mkdir(p, 0777) < 0 && errno != EEXIST ? -1 : 0;
	free(p);
	return rc;
}

int eval_copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = util_read_file(from, &len);
	FILE *f;
	if (!data)
		return -1;
	f = fopen(to, "wb");
	int ok = f && fwrite(data, 1, len, f) == len;
	if (f && fclose(f) != 0)
		ok = 0;
	free(data);
	return ok ? 0 : -1;
}

/* Regular files and folders only: a link could lead out of the copy. */
int eval_copy_tree(const char *from, const char *to, int depth)
{
	DIR *d;
	struct dirent *e;
	int rc = 0;
	if (depth > 16 || eval_mkdirs(to) < 0 || !(d = opendir(from)))
		return -1;
	while (rc == 0 && (e = readdir(d))) {
		struct stat st;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || !strcmp(e->d_name, "__pycache__"))
			continue;
		char *a = util_path_join(from, e->d_name), *b = util_path_join(to, e->d_name);
		if (lstat(a, &st) == 0 && S_ISDIR(st.st_mode))
			rc = eval_copy_tree(a, b, depth + 1);
		else if (lstat(a, &st) == 0 && S_ISREG(st.st_mode))
			rc = eval_copy_file(a, b);
		free(a);
		free(b);
	}
	closedir(d);
	return rc;
}

FILE *eval_open_log(struct eval_ctx *x, const char *name)
{
	char *p = util_path_join(x->r->workdir, name);
	FILE *f = fopen(p, "w");
	free(p);
	return f;
}

static char *eval_abs(const char *path)
{
	char *r = realpath(path, NULL);
	return r ? r : xstrdup(path);
}

char *eval_find_nvcc(void)
{
	const char *home = getenv("CUDA_HOME"), *env = getenv("KBTUI_NVCC");
	if (env && *env)
		return xstrdup(env);
#ifdef KB_NVCC
	if (access(KB_NVCC, X_OK) == 0)
		return xstrdup(KB_NVCC);
#endif
	if (home && *home) {
		char *p = xasprintf("%s/bin/nvcc", home);
		if (access(p, X_OK) == 0)
			return p;
		free(p);
	}
	return util_which("nvcc", NULL);
}

/* ---- running a step ------------------------------------------------------ */

/* nvcc says "file(12): error: ..."; editors and people read "file:12: ...". */
static char *eval_nvcc_line(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		size_t j = i + 1;
		if (s[i] != '(')
			continue;
		while (j < n && isdigit((unsigned char)s[j]))
			j++;
		if (j > i + 1 && j + 2 < n && s[j] == ')' && s[j + 1] == ':' && s[j + 2] == ' ')
			return xasprintf("%.*s:%.*s%.*s", (int)i, s, (int)(j - i - 1), s + i + 1, (int)(n - j - 1),
			                 s + j + 1);
	}
	return xstrndup(s, n);
}

static int eval_is_error_line(const char *s)
{
	return strstr(s, ": error") || strstr(s, " error:") || util_starts_with(s, "error") ||
	       strstr(s, "fatal error");
}

static void eval_step_text(struct eval_step *st, const char *s, size_t n)
{
	if (st->log) {
		fwrite(s, 1, n, st->log);
		fputc('\n', st->log);
		fflush(st->log);
	}
	if (st->bl)
		benchlog_line(st->bl, s, n);
	eval_emit(st->x, st->stage, s, n);
}

static void eval_step_line(void *ud, int stream, const char *line, size_t len)
{
	struct eval_step *st = ud;
	if (!strcmp(st->stage, "compile")) {
		char *l = eval_nvcc_line(line, len);
		if (!st->first_error && eval_is_error_line(l))
			st->first_error = xstrdup(l);
		eval_step_text(st, l, strlen(l));
		free(l);
		return;
	}
	if (stream != 1) {
		/* the checker's stderr carries the solution's output: shown and
		 * logged, never read for a verdict or a time */
		struct benchlog *bl = st->bl;
		st->bl = NULL;
		eval_step_text(st, line, len);
		st->bl = bl;
		return;
	}
	eval_step_text(st, line, len);
	if (st->after)
		st->after(st, line, len);
}

static enum eval_stage eval_step_stage(const struct eval_step *st)
{
	return !strcmp(st->stage, "compile") ? EVAL_COMPILE : !strcmp(st->stage, "check") ? EVAL_CHECK : EVAL_BENCH;
}

void eval_step_printf(struct eval_step *st, const char *fmt, ...)
{
	va_list ap;
	char buf[2048];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	eval_step_text(st, buf, strlen(buf));
}

/* proc_run, but the caller's abort kills the group at once; 1 when it did. */
static int eval_proc_run(struct eval_ctx *x, const struct proc_spec *spec, struct proc_result *res)
{
	int killed = 0;
	if (eval_aborted(x)) {   /* no step starts after an abort */
		memset(res, 0, sizeof *res);
		res->end = PROC_SIGNALED;
		res->sig = SIGKILL;
		return 1;
	}
	struct proc *p = proc_start(spec);
	while (proc_wait(p, x->o->abort ? 100 : -1))
		if (eval_aborted(x) && !killed) {
			proc_kill(p);
			killed = 1;
		}
	*res = *proc_result(p);
	proc_free(p);
	return killed;
}

void eval_step_run(struct eval_step *st, char *const *argv, const char *cwd, char *const *env,
                          double timeout, struct proc_result *res)
{
	struct proc_spec spec = {
		.argv = argv, .cwd = cwd, .env = env, .timeout_s = timeout,
		.output_cap = EVAL_OUTPUT_CAP, .on_line = eval_step_line, .ud = st,
	};
	struct eval_ctx *x = st->x;
	if (eval_aborted(x)) {   /* no step starts after an abort */
		eval_proc_run(x, &spec, res);
		return;
	}
	if (eval_proc_run(x, &spec, res))
		eval_fail(x, eval_step_stage(st), 1, "aborted by the user during %s", st->stage);
	if (res->truncated)
		eval_step_printf(st, "kbtui eval: output cut at %u bytes", EVAL_OUTPUT_CAP);
}

/* ---- setup --------------------------------------------------------------- */

void eval_shapes_init(struct eval_ctx *x)
{
	struct eval_result *r = x->r;
	r->nshapes = x->pb->nshapes;
	r->shapes = xcalloc((size_t)r->nshapes, sizeof *r->shapes);
	for (int i = 0; i < r->nshapes; i++) {
		struct eval_shape *s = &r->shapes[i];
		s->shape = i;
		s->desc = problem_shape_desc(x->pb, i);
		problem_work(x->pb, i, &s->flops, &s->bytes, NULL);
		s->ms = s->min_ms = s->max_ms = s->tflops = s->gbps = s->peak_fraction = s->host_ms = -1;
		s->compute_util = s->mem_util = -1;
	}
}

static int eval_load_problem(struct eval_ctx *x)
{
	const struct eval_opts *o = x->o;
	char *err = NULL, *dir, *hwpath;

	x->pdir = o->problems_dir ? xstrdup(o->problems_dir) : problem_default_dir();
	if (!util_is_dir(x->pdir))
		return eval_fail(x, EVAL_SETUP, -1, "%s: no problems directory there (see --problems)", x->pdir);
	if (!(dir = problem_find(x->pdir, o->problem)))
		return eval_fail(x, EVAL_SETUP, -1, "%s: no problem '%s' there (or more than one matches)", x->pdir,
		                 o->problem);
	x->pb = problem_load(dir, &err);
	free(dir);
	if (!x->pb) {
		eval_fail(x, EVAL_SETUP, -1, "%s", err);
		free(err);
		return -1;
	}
	x->r->problem = xstrdup(x->pb->name);
	hwpath = util_path_join(x->pdir, "hardware.json");
	x->hw = hardware_load(hwpath, &err);
	free(hwpath);
	if (!x->hw) {
		eval_fail(x, EVAL_SETUP, -1, "%s", err);
		free(err);
		return -1;
	}
	if (o->hardware && !(x->prof = hardware_find(x->hw, o->hardware)))
		return eval_fail(x, EVAL_SETUP, -1, "unknown hardware '%s' (kbtui eval --list-hardware)", o->hardware);
	eval_shapes_init(x);
	return eval_deck_choose(x, 0);
}

int eval_workdir(struct eval_ctx *x, const char *ext)
{
	struct eval_result *r = x->r;
	char *wd = x->o->workdir ? xstrdup(x->o->workdir) : xasprintf("kbtui-eval-%s", x->pb->name);
	if (eval_mkdirs(wd) < 0) {
		eval_fail(x, EVAL_SETUP, -1, "%s: cannot create the work directory: %s", wd, strerror(errno));
		free(wd);
		return -1;
	}
	r->workdir = eval_abs(wd);
	free(wd);
	x->tmpdir = util_path_join(r->workdir, "tmp");
	eval_mkdirs(x->tmpdir);
	char *copy = xasprintf("%s/solution.%s", r->workdir, ext);
	int rc;
	free(x->src);
	if ((x->src = util_read_file(r->solution, &x->srclen))) {
		FILE *f = fopen(copy, "wb");
		rc = f && fwrite(x->src, 1, x->srclen, f) == x->srclen ? 0 : -1;
		if (f && fclose(f) != 0)
			rc = -1;
	} else {
		rc = -1;
	}
	free(copy);
	if (rc < 0)
		return eval_fail(x, EVAL_SETUP, -1, "%s: cannot copy the solution into %s", r->solution, r->workdir);
	return 0;
}

static int eval_forbidden(struct eval_ctx *x)
{
	size_t len = x->srclen;
	const char *src = x->src;
	char *err = NULL;
	struct forbid_hit hit;
	struct forbid *f = forbid_new((const char *const *)x->pb->forbidden, x->pb->nforbidden, &err);
	FILE *log;
	int rc = 0;

	if (!f) {
		eval_fail(x, EVAL_SETUP, -1, "%s/problem.json: %s", x->pb->dir, err);
		free(err);
		return -1;
	}
	if (src && forbid_scan(f, src, len, &hit)) {
		/* check.log says it as KernelBench-Hard's check.py does */
		if ((log = eval_open_log(x, "check.log"))) {
			fprintf(log, "FAIL: forbidden op used: %s\n", x->pb->forbidden[hit.pattern]);
			fclose(log);
		}
		x->r->refused = 1;
		rc = eval_fail(x, EVAL_FORBID, 1, "%s:%d:%d: forbidden pattern \"%s\" matches: %s", x->r->solution,
		               hit.line, hit.col, x->pb->forbidden[hit.pattern], hit.text);
		forbid_hit_free(&hit);
	}
	forbid_free(f);
	return rc;
}

/* ---- which GPU ----------------------------------------------------------- */

static void eval_capture_line(void *ud, int stream, const char *line, size_t len)
{
	struct sbuf *b = ud;
	if (stream == 1 && !b->len)
		sbuf_add(b, line, len);
}

/* "NVIDIA H200, 9.0" from nvidia-smi, when it is there. */
static void eval_query_gpu(struct eval_ctx *x)
{
	char *smi = util_which("nvidia-smi", NULL);
	char *argv[] = {smi, "--query-gpu=name,compute_cap", "--format=csv,noheader", NULL};
	struct sbuf b;
	struct proc_result res;
	if (!smi)
		return;
	sbuf_init(&b);
	struct proc_spec spec = {.argv = argv, .timeout_s = 30, .output_cap = 65536,
	                         .on_line = eval_capture_line, .ud = &b};
	proc_run(&spec, &res);
	char *comma = strrchr(b.s, ',');
	if (res.end == PROC_EXITED && res.code == 0 && comma) {
		double cc = atof(comma + 1);
		*comma = '\0';
		x->r->device = xstrdup(b.s);
		x->device_cc = (int)lround(cc * 10);
	}
	sbuf_free(&b);
	free(smi);
}

/* "sm_90a", "90a", "90" -> "90a"/"90"; NULL when not an arch. */
static char *eval_arch_digits(const char *arch)
{
	const char *s = util_starts_with(arch, "sm_") ? arch + 3 : util_starts_with(arch, "compute_") ? arch + 8 : arch;
	size_t n = 0;
	while (isdigit((unsigned char)s[n]))
		n++;
	if (n < 2 || n > 3 || (s[n] && (!islower((unsigned char)s[n]) || s[n + 1])))
		return NULL;
	return xstrdup(s);
}

static int eval_target(struct eval_ctx *x)
{
	const struct eval_opts *o = x->o;
	if (!x->prof)
		eval_query_gpu(x);
	if (!x->prof && x->r->device)
		x->prof = hardware_detect(x->hw, x->r->device);
	if (o->arch)
		x->r->arch = xstrdup(o->arch);
	else if (x->prof && x->prof->arch)
		x->r->arch = xstrdup(x->prof->arch);
	else if (x->device_cc)
		x->r->arch = hardware_arch_for_cc(x->device_cc);
	else {
		/* the default path on a machine without a GPU: say so plainly */
		x->r->no_device = 1;
		return eval_fail(x, EVAL_SETUP, -1, "no CUDA device here (nvidia-smi found no GPU), so nothing was "
		                 "compiled or run: pass --arch SM or --hardware KEY to compile and run the static "
		                 "checks without one");
	}
	char *d = eval_arch_digits(x->r->arch);
	if (!d)
		return eval_fail(x, EVAL_SETUP, -1, "--arch '%s': expected an nvcc target such as sm_90a or sm_120a",
		                 x->r->arch);
	free(x->r->arch);
	x->r->arch = xasprintf("sm_%s", d);
	free(d);
	if (x->prof)
		x->r->hardware = xstrdup(x->prof->key);
	return 0;
}

/* ---- compile ------------------------------------------------------------- */

/* Everything an nvcc call needs besides its files. */
struct eval_nvcc {
	struct eval_ctx *x;
	struct eval_step st;
	const char *nvcc;
	char *gencode, *inc1, *inc2, *envtmp;
	double deadline;            /* the time limit covers all the calls */
	struct proc_result res;
	int refused;                /* the static checks said no (already reported) */
};

/* One nvcc call: args after the common flags, NULL-ended. 0 or -1. */
static int eval_nvcc_run(struct eval_nvcc *n, char *const *args)
{
	char *argv[32];
	char *env[] = {n->envtmp, NULL};
	struct sbuf cmd;
	int k = 0;
	const char *common[] = {n->nvcc, "-std=c++17", "-O3", "-lineinfo", n->gencode, n->inc1, n->inc2};
	for (size_t i = 0; i < sizeof common / sizeof *common; i++)
		argv[k++] = (char *)common[i];
	for (int i = 0; args[i] && k < 31; i++)
		argv[k++] = args[i];
	argv[k] = NULL;
	sbuf_init(&cmd);
	for (int i = 0; argv[i]; i++)
		sbuf_addf(&cmd, "%s%s", i ? " " : "", argv[i]);
	eval_step_text(&n->st, cmd.s, cmd.len);
	sbuf_free(&cmd);
	double left = n->deadline - util_now();
	eval_step_run(&n->st, argv, n->x->r->workdir, env, left > 1 ? left : 1, &n->res);
	return n->res.end == PROC_EXITED && n->res.code == 0 ? 0 : -1;
}

/* The hex sha256 of what an object is built from: the compiler, its
 * flags, the source and every header named, by content (a file's mtime is
 * anyone's to set). NULL without libcrypto: then nothing is reused. */
static char *eval_object_key(const struct eval_nvcc *n, const char *src, const char *const *deps)
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	const char *parts[] = {"kbtui-harness-1", n->nvcc, n->gencode, n->inc1, n->inc2, src};
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	int ok = c && EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	for (size_t i = 0; ok && i < sizeof parts / sizeof *parts; i++)
		ok = EVP_DigestUpdate(c, parts[i], strlen(parts[i]) + 1);
	for (int i = -1; ok && (i < 0 || deps[i]); i++) {
		size_t sz = 0;
		char *d = util_read_file(i < 0 ? src : deps[i], &sz);
		if (!d)   /* a header that is not there: nvcc says so if it mattered */
			sz = (size_t)-1;
		ok = EVP_DigestUpdate(c, &sz, sizeof sz) && (!d || EVP_DigestUpdate(c, d, sz));
		free(d);
	}
	ok = ok && EVP_DigestFinal_ex(c, md, &len) && len >= 16;
	EVP_MD_CTX_free(c);
	if (!ok)
		return NULL;
	char *hex = xmalloc(2 * 16 + 1);
	for (int i = 0; i < 16; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return hex;
}

/* The harness, driver and reference objects live in WORKDIR/harness/ARCH,
 * a folder no step can write (evalbox binds it read-only), named by the
 * content they are built from: an agent's next try compiles its solution
 * alone, and an object left by a solution's code is never taken for one
 * of ours. nvcc writes into tmp/ (writable); we move the object in, with
 * no solution code running. *obj: the object's path (owned). */
static int eval_nvcc_object(struct eval_nvcc *n, const char *src, char **obj, const char *const *deps,
                            const char *name)
{
	struct eval_ctx *x = n->x;
	char *key = eval_object_key(n, src, deps), *hdir = xasprintf("%s/harness/%s", x->r->workdir, x->r->arch);
	struct stat st;
	*obj = xasprintf("%s/%s-%s.o", hdir, name, key ? key : "uncached");
	free(key);
	int made = eval_mkdirs(hdir);
	free(hdir);
	if (made < 0)
		return -1;   /* nvcc's failure to write there says more than we could */
	if (!strstr(*obj, "-uncached.o") && lstat(*obj, &st) == 0 && S_ISREG(st.st_mode))
		return 0;
	/* nvcc (a step: harness/ is read-only to it) writes into tmp/ over a
	 * name no one could predict; the object is moved in with no solution
	 * code running */
	char *tmp, *near = xasprintf("%s/%s.o", x->tmpdir, name);
	int fd = safefile_tmp(near, 0644, &tmp);
	free(near);
	if (fd < 0)
		return -1;
	close(fd);
	char *args[] = {"-c", (char *)src, "-o", tmp, NULL};
	if (eval_nvcc_run(n, args) < 0) {
		unlink(tmp);
		free(tmp);
		return -1;
	}
	return safefile_commit(-1, tmp, *obj, 0);
}

/* A built program, copied into a sealed memfd (nothing can write, grow or
 * shrink it again) and reopened read-only: the steps execute it as
 * /proc/self/fd/N, a file no path leads to, so replacing WORKDIR/kbcheck
 * during a step changes nothing after it. The descriptor is inherited by
 * the steps (and passes through bwrap). -1 when it cannot be made. */
static int eval_seal(const char *path, const char *name)
{
	size_t len = 0;
	char *data = util_read_file(path, &len), proc[64];
	int fd = data ? memfd_create(name, MFD_ALLOW_SEALING) : -1, ro;
	int ok = fd >= 0 && write(fd, data, len) == (ssize_t)len &&
	         fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == 0;
	free(data);
	if (!ok) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if ((ro = open(proc, O_RDONLY)) >= 0) {   /* no writable descriptor left at all */
		close(fd);
		fd = ro;
	}
	return fd;
}

/* The checker and the runner as sealed copies; x->exe and x->runner
 * become their /proc/self/fd paths. 0, or a failure said. */
static int eval_seal_programs(struct eval_ctx *x)
{
	x->exe_fd = eval_seal(x->exe, "kbcheck");
	x->runner_fd = eval_seal(x->runner, "kbrun");
	if (x->exe_fd < 0 || x->runner_fd < 0)
		return eval_fail(x, EVAL_COMPILE, 1, "cannot keep the built checker and runner out of the steps' reach "
		                 "(a sealed memfd): %s", strerror(errno));
	free(x->exe);
	free(x->runner);
	x->exe = xasprintf("/proc/self/fd/%d", x->exe_fd);
	x->runner = xasprintf("/proc/self/fd/%d", x->runner_fd);
	return 0;
}

/* Empties dir (regular files only: nvcc's intermediate files). */
static void eval_clear_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		char *p = util_path_join(dir, e->d_name);
		if (util_is_file(p))
			unlink(p);
		free(p);
	}
	if (d)
		closedir(d);
}

/* The solution as read once, into path with a #line naming the original. */
static int eval_snapshot(struct eval_ctx *x, const char *path)
{
	FILE *f = fopen(path, "wb");
	int ok = f && fprintf(f, "#line 1 \"%s\"\n", x->r->solution) > 0 && fwrite(x->src, 1, x->srclen, f) == x->srclen;
	if (f && fclose(f) != 0)
		ok = 0;
	return ok ? 0 : -1;
}

/* The copy still holds what was read (nothing rewrote it mid-build). */
static int eval_snapshot_same(struct eval_ctx *x, const char *path)
{
	size_t n;
	char *d = util_read_file(path, &n), *head = xasprintf("#line 1 \"%s\"\n", x->r->solution);
	size_t h = strlen(head);
	int same = d && n == h + x->srclen && !memcmp(d, head, h) && !memcmp(d + h, x->src, x->srclen);
	free(d);
	free(head);
	return same;
}

/* The solution's object (always) and its preprocessed text, checked; then
 * the checker's objects (checker, driver, reference) and the runner's
 * (runner, call), kept between tries; then the two programs linked apart:
 * the checker never holds solution code. */
enum { EO_CHECKER, EO_DRIVER, EO_REFERENCE, EO_RUNNER, EO_CALL, EO_SOLUTION, EO_N };

static int eval_compile_all(struct eval_nvcc *n)
{
	struct eval_ctx *x = n->x;
	char *objdir = xasprintf("%s/obj-%s", x->r->workdir, x->r->arch);
	char *kbh = xasprintf("%s/include/kb_problem.h", x->pdir), *iface = util_path_join(x->pb->dir, "interface.h");
	char *proto = xasprintf("%s/include/kb_proto.h", x->pdir), *util = xasprintf("%s/include/kb_driver_util.h", x->pdir);
	char *src[EO_N] = {xasprintf("%s/harness/checker.cu", x->pdir), util_path_join(x->pb->dir, "driver.cu"),
	                   util_path_join(x->pb->dir, "reference.cu"), xasprintf("%s/harness/runner.cu", x->pdir),
	                   util_path_join(x->pb->dir, "call.cu"), xstrdup(x->r->solution)};
	static const char *const names[EO_N] = {"checker.o", "driver.o", "reference.o", "runner.o", "call.o",
	                                        "solution.o"};
	char *seccomp = xasprintf("%s/harness/kb_seccomp.h", x->pdir);
	const char *deps[] = {kbh, iface, proto, util, util_is_file(seccomp) ? seccomp : NULL, NULL};
	char *obj[EO_N], *keep = util_path_join(objdir, "keep");
	int rc = eval_mkdirs(objdir);
	for (int i = 0; i < EO_N; i++)
		obj[i] = util_path_join(objdir, names[i]);
	/* the bytes read once, built and checked from a copy of our own; #line
	 * keeps the solution's name and lines in nvcc's messages */
	free(src[EO_SOLUTION]);
	src[EO_SOLUTION] = util_path_join(objdir, "solution.cu");
	if (rc == 0 && eval_snapshot(x, src[EO_SOLUTION]) < 0)
		rc = eval_fail(x, EVAL_COMPILE, 1, "%s: cannot write the solution's copy", src[EO_SOLUTION]);
	unlink(obj[EO_SOLUTION]);   /* the solution always: its file may change within a second */
	eval_clear_dir(keep);
	/* the solution first: a refusal needs none of the harness built */
	/* its own folder for its quoted includes: for the solution only, never
	 * the harness (a header there must not shadow ours) */
	char *dir = xstrdup(x->r->solution), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *own = xasprintf("-I%s", slash ? dir : ".");
	/* --keep: the preprocessed texts nvcc compiled, host and device side
	 * (code under __CUDA_ARCH__ too), are what the static checks read */
	if (rc == 0 && eval_mkdirs(keep) < 0)
		rc = eval_fail(x, EVAL_COMPILE, 1, "%s: cannot create it", keep);
	if (rc == 0) {
		char *args[] = {"-c", src[EO_SOLUTION], "-o", obj[EO_SOLUTION], own, "--keep", "--keep-dir", keep, NULL};
		rc = eval_nvcc_run(n, args);
	}
	free(own);
	free(dir);
	if (rc == 0 && !eval_snapshot_same(x, src[EO_SOLUTION])) {
		x->r->refused = 1;
		rc = eval_fail(x, EVAL_FORBID, 1, "%s changed while it was being built", src[EO_SOLUTION]);
	}
	if (rc == 0 ? (rc = eval_static(x, obj[EO_SOLUTION], keep, n->nvcc)) != 0 : x->r->refused)
		n->refused = 1;
	for (int i = 0; i < EO_SOLUTION && rc == 0; i++) {
		char nm[32];
		snprintf(nm, sizeof nm, "%.*s", (int)(strlen(names[i]) - 2), names[i]);
		free(obj[i]);
		rc = eval_nvcc_object(n, src[i], &obj[i], deps, nm);
	}
	if (rc == 0) {
		char *args[] = {"-o", x->exe, obj[EO_CHECKER], obj[EO_DRIVER], obj[EO_REFERENCE], NULL};
		rc = eval_nvcc_run(n, args);
	}
	if (rc == 0) {
		char *args[] = {"-o", x->runner, obj[EO_RUNNER], obj[EO_CALL], obj[EO_SOLUTION], NULL};
		rc = eval_nvcc_run(n, args);
	}
	for (int i = 0; i < EO_N; i++) {
		free(src[i]);
		free(obj[i]);
	}
	free(keep);
	free(kbh);
	free(iface);
	free(proto);
	free(util);
	free(seccomp);
	free(objdir);
	return rc;
}

static int eval_compile(struct eval_ctx *x, const char *nvcc)
{
	struct eval_result *r = x->r;
	const char *d = r->arch + 3;
	struct eval_nvcc n = {.x = x, .nvcc = nvcc, .st = {.x = x, .stage = "compile"}};
	int rc = 0;

	n.gencode = xasprintf("-gencode=arch=compute_%s,code=sm_%s", d, d);
	n.inc1 = xasprintf("-I%s/include", x->pdir);
	n.inc2 = xasprintf("-I%s", x->pb->dir);
	n.envtmp = xasprintf("TMPDIR=%s", x->tmpdir);
	n.deadline = util_now() + x->timeout;
	n.st.log = eval_open_log(x, "compile.log");
	unlink(x->exe);   /* a stale binary must not pass for this solution */
	unlink(x->runner);
	int built = eval_compile_all(&n);
	if (n.refused) {
		rc = 1;
	} else if (built != 0 || !util_is_file(x->exe) || !util_is_file(x->runner)) {
		char why[256];
		const char *fe = n.st.first_error;
		proc_describe(&n.res, why, sizeof why);
		FILE *log = eval_open_log(x, "check.log");
		if (log) {
			fprintf(log, "FAIL: compilation failed (%s): %s\n", why, fe ? fe : "see compile.log");
			fclose(log);
		}
		r->timed_out = n.res.end == PROC_TIMEOUT;
		rc = eval_fail(x, EVAL_COMPILE, 1, "compilation failed (nvcc %s)%s%s", why, fe ? ": " : "", fe ? fe : "");
	}
	if (n.st.log)
		fclose(n.st.log);
	free(n.st.first_error);
	free(n.gencode);
	free(n.inc1);
	free(n.inc2);
	free(n.envtmp);
	return rc;
}

/* ---- check --------------------------------------------------------------- */

/* What a harness step's end means; 0 when it exited 0. */
static int eval_harness_end(struct eval_ctx *x, struct eval_step *st, const struct proc_result *res,
                            enum eval_stage stage)
{
	char why[256];
	const char *msg = st->bl && st->bl->fail ? st->bl->fail : NULL;
	proc_describe(res, why, sizeof why);
	if (res->end == PROC_EXITED && res->code == H_PASS)
		return 0;
	if (res->end == PROC_TIMEOUT) {
		x->r->timed_out = 1;
		eval_step_printf(st, "FAIL: %s %s", stage == EVAL_CHECK ? "check" : "benchmark", why);
		return eval_fail(x, stage, 1, "%s %s", eval_stage_name(stage), why);
	}
	if (res->end == PROC_SIGNALED) {
		x->r->crashed = 1;
		eval_step_printf(st, "FAIL: the %s crashed: %s", stage == EVAL_CHECK ? "check" : "benchmark", why);
		return eval_fail(x, stage, 1, "%s crashed: %s", eval_stage_name(stage), why);
	}
	if (res->end == PROC_START_FAILED)
		return eval_fail(x, stage, 1, "%s: %s", x->exe, why);
	switch (res->code) {
	case H_REFUSED:   /* the runner's seccomp filter ended it: the checker names the call */
		x->r->refused = 1;
		return eval_fail(x, stage, 1, "%s", msg && strstr(msg, "REFUSED: ") ? strstr(msg, "REFUSED: ")
		                                                                     : "REFUSED: a forbidden system call");
	case H_INVALID:
		x->r->invalid = 1;
		return eval_fail(x, stage, 1, "INVALID: %s", msg ? msg : "the checker found the timing impossible");
	case H_NODEV:
		x->r->no_device = 1;
		return eval_fail(x, stage, 1, "no CUDA device here: the %s step needs a GPU", eval_stage_name(stage));
	case H_CUDA:
		x->r->crashed = 1;
		return eval_fail(x, stage, 1, "%s crashed: %s", eval_stage_name(stage), msg ? msg : "CUDA error");
	case H_SETUP:
		return eval_fail(x, stage, 1, "%s could not run the problem's driver or reference (%s)",
		                 eval_stage_name(stage), why);
	default:
		return eval_fail(x, stage, 1, "%s failed: %s", eval_stage_name(stage), msg ? msg : why);
	}
}

static void eval_info_line(void *ud, int stream, const char *line, size_t len)
{
	struct eval_ctx *x = ud;
	char *l = xstrndup(line, len), *cc;
	if (stream == 1 && util_starts_with(l, "device=") && (cc = strstr(l, " cc="))) {
		*cc = '\0';
		free(x->r->device);
		x->r->device = xstrdup(l + 7);
		x->device_cc = atoi(cc + 4);
		*cc = ' ';
	}
	eval_emit(x, "check", line, len);
	free(l);
}

/* "shape 3: batch=4 vocab=262144": the driver's own words for a shape. */
static void eval_shape_line(void *ud, int stream, const char *line, size_t len)
{
	struct eval_result *r = ud;
	char *l = xstrndup(line, len), *colon;
	int i;
	if (stream == 1 && sscanf(l, "shape %d:", &i) == 1 && i >= 0 && i < r->nshapes && (colon = strchr(l, ':'))) {
		free(r->shapes[i].desc);
		r->shapes[i].desc = xstrdup(colon[1] == ' ' ? colon + 2 : colon + 1);
	}
	free(l);
}

/* `harness shapes` (no GPU needed) then `harness info`: which device will
 * run it; says so when there is none. */
static int eval_info(struct eval_ctx *x)
{
	char *argv[] = {x->exe, "info", NULL}, *sargv[] = {x->exe, "shapes", NULL};
	char *cache = xasprintf("CUDA_CACHE_PATH=%s/nvcache", x->tmpdir);
	char *env[] = {cache, NULL};
	struct proc_result res;
	struct proc_spec shapes = {.argv = sargv, .cwd = x->r->workdir, .env = env, .timeout_s = 30,
	                           .output_cap = 65536, .on_line = eval_shape_line, .ud = x->r};
	/* abortable: a user closing a re-evaluation does not wait for these */
	eval_proc_run(x, &shapes, &res);
	struct proc_spec spec = {.argv = argv, .cwd = x->r->workdir, .env = env, .timeout_s = 60,
	                         .output_cap = 65536, .on_line = eval_info_line, .ud = x};
	eval_proc_run(x, &spec, &res);
	free(cache);
	if (eval_aborted(x))
		return eval_fail(x, EVAL_CHECK, 1, "aborted by the user while asking the device");
	if (res.end == PROC_EXITED && res.code == H_NODEV) {
		x->r->no_device = 1;
		return eval_fail(x, EVAL_CHECK, 1, "no CUDA device here: compiled, but check and benchmark need a GPU");
	}
	if (!x->prof && x->r->device && (x->prof = hardware_detect(x->hw, x->r->device))) {
		free(x->r->hardware);
		x->r->hardware = xstrdup(x->prof->key);
	}
	if (x->device_cc && atoi(x->r->arch + 3) != x->device_cc)
		eval_say(x, "warning: built for %s but %s is compute capability %d", x->r->arch,
		         x->r->device ? x->r->device : "the device", x->device_cc);
	return 0;
}

/* The two named parts of the check, from the checker's own lines. */
static void eval_check_after(struct eval_step *st, const char *line, size_t len)
{
	struct eval_result *r = st->x->r;
	if (len >= 20 && !memcmp(line, "kbh-equivalent: PASS", 20))
		r->kbh_correct = 1;
	else if (len >= 17 && !memcmp(line, "adversarial: PASS", 17))
		r->adversarial_correct = 1;
	else if (len > 6 && !memcmp(line, "FAIL: ", 6)) {
		/* the first FAIL ends the check: the part it was in failed */
		if (r->kbh_correct < 0)
			r->kbh_correct = 0;
		else if (r->adversarial_correct < 0)
			r->adversarial_correct = 0;
	}
}

/* problem.json "adversarial_tolerance": {atol, rtol} for our inputs, when
 * they need other figures than KernelBench-Hard's (01's one-sign sums). */
static void eval_adv_tolerance(struct eval_ctx *x, double *atol, double *rtol)
{
	char *path = util_path_join(x->pb->dir, "problem.json"), *text = util_read_file(path, NULL);
	cJSON *o = text ? jx_parse(text, strlen(text)) : NULL;
	const cJSON *t = o ? jx_get(o, "adversarial_tolerance") : NULL;
	*atol = x->pb->atol;
	*rtol = x->pb->rtol;
	if (cJSON_IsObject(t)) {
		*atol = jx_num(t, "atol", *atol);
		*rtol = jx_num(t, "rtol", *rtol);
	}
	cJSON_Delete(o);
	free(text);
	free(path);
}

/* --no-own-checks: the deck's verdict alone. The checker runs the deck's
 * seeds first, so when they passed and only our adversarial input failed,
 * the solution is correct as the deck judges it (the failure stays in
 * check.log and adversarial_correct). */
static int eval_check_own(struct eval_ctx *x, int rc)
{
	struct eval_result *r = x->r;
	if (rc == 0 || !x->o->no_own_checks || r->kbh_correct != 1 || r->adversarial_correct != 0 || r->crashed ||
	    r->timed_out || r->invalid)
		return rc;
	eval_say(x, "our adversarial check failed; not counted (--no-own-checks): %s", r->failure ? r->failure : "?");
	free(r->failure);
	r->failure = NULL;
	r->stage = EVAL_CHECK;
	return 0;
}

static int eval_check(struct eval_ctx *x)
{
	struct eval_step st = {.x = x, .stage = "check", .after = eval_check_after};
	struct proc_result res;
	char seeds[32], atol[64], rtol[64];
	int n = x->o->seeds > 0 ? x->o->seeds : x->dprob && x->dprob->seeds ? x->dprob->seeds : x->pb->seeds;
	snprintf(seeds, sizeof seeds, "%d", n);
	snprintf(atol, sizeof atol, "%.17g", x->dprob ? x->dprob->atol : x->pb->atol);
	snprintf(rtol, sizeof rtol, "%.17g", x->dprob ? x->dprob->rtol : x->pb->rtol);
	char aatol[64], artol[64];
	double aa, ar;
	eval_adv_tolerance(x, &aa, &ar);
	snprintf(aatol, sizeof aatol, "%.17g", aa);
	snprintf(artol, sizeof artol, "%.17g", ar);
	char *argv[] = {x->exe, "check", "--seeds", seeds, "--atol", atol, "--rtol", rtol, "--runner", x->runner,
	                "--adv-atol", aatol, "--adv-rtol", artol, NULL};
	char *cache = xasprintf("CUDA_CACHE_PATH=%s/nvcache", x->tmpdir);
	char *env[] = {cache, NULL};

	st.log = eval_open_log(x, "check.log");
	st.bl = benchlog_new();
	eval_step_run(&st, argv, x->r->workdir, env, x->timeout, &res);
	int rc = eval_harness_end(x, &st, &res, EVAL_CHECK);
	int own_off = rc != 0 && (rc = eval_check_own(x, rc)) == 0;
	if (rc == 0 && st.bl->status != 1 && !own_off)
		rc = eval_fail(x, EVAL_CHECK, 1, "check ended without PASS");
	x->r->correct = rc == 0;
	benchlog_free(st.bl);
	if (st.log)
		fclose(st.log);
	free(cache);
	return rc;
}

/* ---- bench --------------------------------------------------------------- */

static double eval_peak_of(struct eval_ctx *x, double tflops, double gbps)
{
	double peak;
	const struct hardware_profile *roof = eval_roof(x);
	if (!roof)
		return -1;
	if (!strcmp(x->pb->regime, "memory"))
		return (peak = hardware_gbps(roof, x->pb->peak_bandwidth_key)) > 0 ? fmax(0, gbps / peak) : -1;
	return (peak = hardware_tflops(roof, x->pb->peak_tflops_key)) > 0 ? fmax(0, tflops / peak) : -1;
}

/* The shape's utilisations and bound against the deck's table, which
 * result.json names beside them (peak_fraction stays eval_peak_of's). */
static void eval_shape_utils(struct eval_ctx *x, struct eval_shape *s)
{
	const struct hardware_profile *roof = eval_roof(x);
	double pt = roof ? hardware_tflops(roof, x->pb->peak_tflops_key) : -1;
	double pg = roof ? hardware_gbps(roof, x->pb->peak_bandwidth_key) : -1;
	double pf = s->peak_fraction;
	struct eval_result *r = x->r;
	eval_shape_roofline(s, x->pb->regime, pt, pg);
	s->peak_fraction = pf;
	if (!r->regime) {
		r->regime = xstrdup(x->pb->regime);
		r->dtype = xstrdup(x->pb->peak_tflops_key);
		r->peak_tflops = pt;
		r->peak_gbps = pg;
	}
}

/* A number above the roofline (beyond noise) cannot have been measured:
 * the shape's numbers are INVALID, said once, and never a score. */
static void eval_roofline(struct eval_ctx *x, struct eval_step *st, struct eval_shape *s)
{
	const struct hardware_profile *roof = eval_roof(x);
	double peak = roof ? hardware_gbps(roof, x->pb->peak_bandwidth_key) : -1;
	char why[256] = "";
	if (s->peak_fraction > EVAL_ROOFLINE_NOISE)
		snprintf(why, sizeof why, "peak_fraction %.4f is above the %s roofline (%s)", s->peak_fraction,
		         roof->key, roof->table);
	else if (peak > 0 && s->gbps > peak * EVAL_ROOFLINE_NOISE)
		snprintf(why, sizeof why, "%.1f GB/s is above %s's memory peak of %.0f GB/s", s->gbps, roof->key, peak);
	if (!why[0])
		return;
	eval_step_printf(st, "INVALID: shape=%d: %s", s->shape, why);
	if (!x->r->invalid) {
		x->r->invalid = 1;
		eval_fail(x, EVAL_BENCH, 1, "INVALID: shape=%d: %s", s->shape, why);
	}
}

/* After each `time shape=` line: benchmark.py's lines for that shape. */
static void eval_bench_after(struct eval_step *st, const char *line, size_t len)
{
	struct benchlog_line l;
	struct eval_ctx *x = st->x;
	if (len > 9 && !memcmp(line, "INVALID: ", 9) && !x->r->invalid) {
		x->r->invalid = 1;
		eval_fail(x, EVAL_BENCH, 1, "%.*s", (int)len, line);
	}
	if (benchlog_classify(line, len, &l) != BL_HTIME || l.shape < 0 || l.shape >= x->r->nshapes)
		return;
	struct eval_shape *s = &x->r->shapes[l.shape];
	s->ms = l.ms;
	s->min_ms = l.min;
	s->max_ms = l.max;
	/* src/eval/roofline.py, in its order of operations */
	s->tflops = l.ms > 0 ? s->flops / (l.ms * 1e-3) / 1e12 : 0;
	s->gbps = l.ms > 0 ? s->bytes / (l.ms * 1e-3) / 1e9 : 0;
	s->peak_fraction = eval_peak_of(x, s->tflops, s->gbps);
	eval_shape_utils(x, s);
	char *h = xstrndup(line, len), *hm = strstr(h, " host_ms=");
	s->host_ms = hm ? atof(hm + 9) : -1;
	free(h);
	eval_step_printf(st, "shape=%d variant=solution tflops=%.3f gbps=%.3f ms=%.3f", l.shape, s->tflops, s->gbps,
	                 s->ms);
	if (s->peak_fraction >= 0)
		eval_step_printf(st, "shape=%d solution_peak_fraction=%.4f", l.shape, s->peak_fraction);
	eval_roofline(x, st, s);
}

/* benchmark.py: the geomean of the shapes' fractions, each at least 1e-9. */
static void eval_geomean(struct eval_ctx *x, struct eval_step *st)
{
	double sum = 0;
	for (int i = 0; i < x->r->nshapes; i++) {
		if (x->r->shapes[i].peak_fraction < 0)
			return;
		sum += log(fmax(x->r->shapes[i].peak_fraction, 1e-9));
	}
	if (x->r->invalid) {   /* never a score: result.json's peak_fraction stays null */
		x->r->verdict = xstrdup("INVALID");
		eval_step_printf(st, "geomean %.4f is INVALID, not a peak_fraction", exp(sum / x->r->nshapes));
		eval_step_printf(st, "RESULT: INVALID");
		return;
	}
	x->r->peak_fraction = exp(sum / x->r->nshapes);
	x->r->verdict = xstrdup(x->r->peak_fraction >= 0.1 ? "OK" : "LOW");
	eval_step_printf(st, "peak_fraction: %.4f", x->r->peak_fraction);
	eval_step_printf(st, "RESULT: %s", x->r->verdict);
}

static int eval_bench(struct eval_ctx *x)
{
	struct eval_step st = {.x = x, .stage = "bench", .after = eval_bench_after};
	struct proc_result res;
	char trials[32], flush[32], warmup[32];
	double l2 = x->prof ? 2 * x->prof->l2_bytes : 0;
	snprintf(trials, sizeof trials, "%d",
	         x->o->trials > 0 ? x->o->trials : x->dprob && x->dprob->trials ? x->dprob->trials : x->pb->trials);
	/* a deck's flush is the dataset's (128 MB); without one, at least
	 * twice the device's L2 */
	snprintf(flush, sizeof flush, "%.0f", x->deck ? x->deck->l2_flush_bytes : fmax(l2, EVAL_L2_FLUSH_MIN));
	snprintf(warmup, sizeof warmup, "%d", x->deck ? x->deck->warmup : 10);
	char atol[64], rtol[64];
	snprintf(atol, sizeof atol, "%.17g", x->dprob ? x->dprob->atol : x->pb->atol);
	snprintf(rtol, sizeof rtol, "%.17g", x->dprob ? x->dprob->rtol : x->pb->rtol);
	char *argv[] = {x->exe, "bench", "--trials", trials, "--warmup", warmup, "--l2-flush", flush, "--atol", atol,
	                "--rtol", rtol, "--runner", x->runner, NULL};
	char *cache = xasprintf("CUDA_CACHE_PATH=%s/nvcache", x->tmpdir);
	char *env[] = {cache, NULL};

	st.log = eval_open_log(x, "benchmark.log");
	st.bl = benchlog_new();
	if (!eval_roof(x))
		eval_say(x, "no hardware profile for %s: TFLOPS and GB/s only, no peak_fraction (see --hardware)",
		         x->r->device ? x->r->device : "this device");
	eval_step_run(&st, argv, x->r->workdir, env, x->timeout, &res);
	int rc = eval_harness_end(x, &st, &res, EVAL_BENCH);
	/* a timed output that fails the comparison: the solution is wrong */
	if (res.end == PROC_EXITED && res.code == H_FAIL && st.bl->fail && strstr(st.bl->fail, " timed trial="))
		x->r->correct = 0;
	if (rc == 0 || x->r->invalid)
		eval_geomean(x, &st);
	if (x->r->invalid && !x->r->verdict)
		x->r->verdict = xstrdup("INVALID");
	benchlog_free(st.bl);
	if (st.log)
		fclose(st.log);
	free(cache);
	return rc;
}

/* ---- the GPU lock ---------------------------------------------------------- */

static void eval_lock_waiting(void *ud, const char *path)
{
	struct eval_ctx *x = ud;
	char *msg = xasprintf("waiting for the GPU lock %s (another eval uses this GPU)", path);
	eval_emit(x, "lock", msg, strlen(msg));
	free(msg);
}

/* The GPU's lock ($KBTUI_GPU_LOCK, see gpulock.h) before the steps that
 * run on it; *fd the held lock (or below 0). 0, or a failure when the
 * wait was aborted. A lock that cannot be taken is said and gone without:
 * the eval still runs, unserialised. */
static int eval_gpu_lock(struct eval_ctx *x, int *fd)
{
	char *why = NULL;
	*fd = gpulock_take(getenv(GPULOCK_ENV), x->o->abort, eval_lock_waiting, x, &why);
	if (*fd == GPULOCK_ABORTED)
		return eval_fail(x, EVAL_CHECK, 1, "aborted while waiting for the GPU lock %s", getenv(GPULOCK_ENV));
	if (*fd == GPULOCK_ERROR) {
		eval_say(x, "warning: %s; running without it", why);
		free(why);
	} else if (*fd >= 0) {
		char *msg = xasprintf("holding the GPU lock %s", getenv(GPULOCK_ENV));
		eval_emit(x, "lock", msg, strlen(msg));
		free(msg);
	}
	return 0;
}

/* ---- the native loop ----------------------------------------------------- */

/* The steps on the GPU, with its lock held. */
static int eval_native_gpu(struct eval_ctx *x)
{
	int rc;
	if ((rc = eval_info(x)) || (rc = eval_deck_choose(x, 1)) || (rc = eval_check(x)))
		return rc;
	if (eval_aborted(x))
		return 0;
	eval_stage_begin(x, EVAL_BENCH);
	/* correct even when the benchmark fails, as run_hard.sh scores it;
	 * but not when a timed output was wrong, and INVALID is never 0 */
	eval_bench(x);
	return x->r->invalid || !x->r->correct ? 1 : 0;
}

static int eval_native(struct eval_ctx *x)
{
	char *nvcc;
	int rc;
	if ((rc = eval_workdir(x, "cu")))
		return rc;
	eval_stage_begin(x, EVAL_FORBID);
	if ((rc = eval_forbidden(x)))
		return rc;
	nvcc = x->o->nvcc ? xstrdup(x->o->nvcc) : eval_find_nvcc();
	if (!nvcc || access(nvcc, X_OK) < 0) {
		free(nvcc);
		return eval_fail(x, EVAL_SETUP, -1, "the GPU backend needs the CUDA Toolkit: nvcc not found "
		                 "(looked at configure's path, $CUDA_HOME/bin and PATH)");
	}
	if ((rc = eval_target(x)) == 0) {
		x->exe = util_path_join(x->r->workdir, "kbcheck");
		x->runner = util_path_join(x->r->workdir, "kbrun");
		eval_stage_begin(x, EVAL_COMPILE);
		eval_say(x, "compiling %s for %s", x->r->solution, x->r->arch);
		rc = eval_compile(x, nvcc);
	}
	free(nvcc);
	if (rc == 0)
		rc = eval_seal_programs(x);
	if (rc || eval_aborted(x))
		return rc ? rc : 1;
	eval_stage_begin(x, EVAL_CHECK);
	int lock;
	if ((rc = eval_gpu_lock(x, &lock)))
		return rc;
	rc = eval_native_gpu(x);
	gpulock_release(lock);
	return rc;
}

/* ---- entry --------------------------------------------------------------- */

int eval_run(const struct eval_opts *o, struct eval_result *r)
{
	struct eval_ctx x = {.o = o, .r = r, .t0 = util_now(), .exe_fd = -1, .runner_fd = -1};
	struct eval_opts oo = *o;
	int rc;

	memset(r, 0, sizeof *r);
	r->peak_fraction = r->peak_tflops = r->peak_gbps = -1;
	r->kbh_correct = r->adversarial_correct = -1;
	r->stage = EVAL_SETUP;
	r->mode = xstrdup(o->kbh ? "kbh" : "native");
	r->model = xstrdup(o->model);
	x.timeout = o->timeout_s > 0 ? o->timeout_s : EVAL_DEFAULT_TIMEOUT;
	if (!o->problem || !o->solution)
		return eval_fail(&x, EVAL_SETUP, -1, "needs a problem and a solution");
	r->solution = eval_abs(o->solution);
	r->has_solution = util_is_file(r->solution);
	if (!r->has_solution)
		return eval_fail(&x, EVAL_SETUP, -1, "%s: no such solution file", o->solution);
	if (o->kbh) {
		char *py = o->python ? xstrdup(o->python) : util_which("python", NULL);
		if (!py)
			py = util_which("python3", NULL);
		oo.python = py;
		x.o = &oo;
		rc = !py ? eval_fail(&x, EVAL_SETUP, -1, "--kbh needs python (neither python nor python3 in PATH)")
		         : eval_kbh_problem(&x);
		int lock = -1;
		if (rc == 0 && (rc = eval_gpu_lock(&x, &lock)) == 0)
			rc = eval_kbh(&x);   /* python check.py and benchmark.py: all on the GPU */
		gpulock_release(lock);
		free(py);
		x.o = o;
	} else {
		rc = eval_load_problem(&x);
		if (rc == 0)
			rc = eval_native(&x);
	}
	if (rc == 0 && !r->failure)
		r->stage = EVAL_DONE;
	r->elapsed_seconds = util_now() - x.t0;
	if (r->workdir) {
		char *path = util_path_join(r->workdir, "result.json"), *err = NULL;
		if (eval_write_result(r, path, &err) < 0) {
			eval_say(&x, "%s", err);
			free(err);
		}
		free(path);
		rmdir(x.tmpdir);   /* only when empty */
	}
	problem_free(x.pb);
	deck_free(x.deck);
	hardware_free(x.hw);
	free(x.pdir);
	free(x.exe);
	free(x.runner);
	if (x.exe_fd >= 0)
		close(x.exe_fd);
	if (x.runner_fd >= 0)
		close(x.runner_fd);
	free(x.src);
	free(x.tmpdir);
	return rc;
}
