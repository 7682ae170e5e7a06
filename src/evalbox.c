/* evalbox.c: eval_run with its children in the sandbox (see evalbox.h). */
#include "config.h"

#include "evalbox.h"
#include "problem.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int evalbox_choose(const char *asked, enum sandbox_kind *k, char **why)
{
	const char *s = asked && *asked ? asked : getenv("KBTUI_SANDBOX");
	char *bad = NULL;
	*why = NULL;
	if (s && *s && sandbox_parse(s, k) < 0) {
		*why = xasprintf("the sandbox is none or bwrap, not '%s'%s", s, asked && *asked ? "" : " (KBTUI_SANDBOX)");
		return -1;
	}
	if (s && *s && *k == SANDBOX_NONE)
		return 0;
	*k = SANDBOX_BWRAP;
	if (sandbox_bwrap_works(&bad))
		return 0;
	*why = xasprintf("the eval runs the solution's code only in a bubblewrap sandbox, and %s; install "
	                 "bubblewrap, or run it unsandboxed on purpose with KBTUI_SANDBOX=none", bad);
	free(bad);
	return -1;
}

/* What a step may read under the hidden homes (owned, NULL-ended) and
 * the eval's work directory, the one it may write. */
struct evalbox_ctx {
	const struct evalbox *b;
	char *ro[8];
	int nro;
	char *workdir;
	char *keep[24];             /* b->keep and the eval's own files, per step */
};

/* The files the loop itself writes in its work directory (eval.h: the
 * dataset's run layout). A step runs hostile code with that directory
 * writable: were one of them replaced by a link, the loop, outside the
 * sandbox, would write through it (benchmark.log -> ~/.bashrc). Each is
 * made a plain file before a step starts and stays read-only inside. */
static const char *const evalbox_outputs[] = {"compile.log", "check.log", "benchmark.log", "result.json",
                                              "solution.cu", "solution.py"};

/* Whether a directory is too wide to show: the root, /tmp (private inside),
 * a hidden home itself. */
static int evalbox_too_wide(const char *dir)
{
	const char *home = getenv("HOME");
	static const char *const wide[] = {"/", "/tmp", "/home", "/root", "/run", "/usr", "/var", "/opt"};
	for (size_t i = 0; i < sizeof wide / sizeof *wide; i++)
		if (!strcmp(dir, wide[i]))
			return 1;
	return home && !strcmp(dir, home);
}

/* The installation a program belongs to: two levels above its real path
 * (the CUDA root of bin/nvcc, the prefix of a python's bin/python), or
 * its own directory when that would be too wide. */
static char *evalbox_prefix(const char *prog)
{
	char real[PATH_MAX], *slash;
	if (!prog || !realpath(prog, real))
		return NULL;
	if ((slash = strrchr(real, '/')) && slash != real)
		*slash = 0;
	char *bin = xstrdup(real);
	if ((slash = strrchr(real, '/')) && slash != real)
		*slash = 0;
	if (evalbox_too_wide(real))
		return bin;
	free(bin);
	return xstrdup(real);
}

/* The work directory eval_run will use: the caller's, else its default
 * ./kbtui-eval-NAME (eval_workdir in eval.c), as an absolute path. */
static char *evalbox_workdir(const struct eval_opts *o)
{
	char *pdir = o->problems_dir ? xstrdup(o->problems_dir) : problem_default_dir();
	char *dir = o->problem ? problem_find(pdir, o->problem) : NULL, *err = NULL, *wd = NULL, cwd[PATH_MAX];
	struct problem *pb = dir ? problem_load(dir, &err) : NULL;
	if (o->workdir)
		wd = xstrdup(o->workdir);
	else if (pb)
		wd = xasprintf("kbtui-eval-%s", pb->name);
	if (wd && wd[0] != '/' && getcwd(cwd, sizeof cwd)) {
		char *abs = util_path_join(cwd, wd);
		free(wd);
		wd = abs;
	}
	problem_free(pb);
	free(err);
	free(dir);
	free(pdir);
	return wd;
}

static void evalbox_ctx_init(struct evalbox_ctx *c, const struct eval_opts *o, const struct evalbox *b)
{
	char *nvcc = o->nvcc ? xstrdup(o->nvcc) : eval_find_nvcc();
	memset(c, 0, sizeof *c);
	c->b = b;
	c->workdir = evalbox_workdir(o);
	c->ro[c->nro++] = o->problems_dir ? xstrdup(o->problems_dir) : problem_default_dir();
	if (o->solution) {
		/* its directory, not only the file: nvcc is given -I there, for
		 * headers that sit beside the solution */
		char *d = xstrdup(o->solution), *slash = strrchr(d, '/'), real[PATH_MAX];
		if (slash)
			*(slash == d ? slash + 1 : slash) = '\0';
		c->ro[c->nro++] = xstrdup(realpath(slash ? d : ".", real) ? real : o->solution);
		free(d);
	}
	if (o->kbh)
		c->ro[c->nro++] = xstrdup(o->kbh);
	if ((c->ro[c->nro] = evalbox_prefix(nvcc)))
		c->nro++;
	free(nvcc);
	if (o->kbh) {
		char *py = o->python ? xstrdup(o->python) : util_which("python", NULL);
		if (!py)
			py = util_which("python3", NULL);
		if ((c->ro[c->nro] = evalbox_prefix(py)))
			c->nro++;
		free(py);
	}
	c->ro[c->nro] = NULL;
}

static void evalbox_ctx_free(struct evalbox_ctx *c)
{
	for (int i = 0; i < c->nro; i++)
		free(c->ro[i]);
	for (size_t i = 0; i < sizeof c->keep / sizeof *c->keep; i++)
		free(c->keep[i]);
	free(c->workdir);
}

/* Makes the loop's own files plain files (a link or anything else in
 * their place removed; the logs and result.json created empty when
 * missing, the solution left to the loop's copy) and lists them, with the
 * caller's, in c->keep. */
static void evalbox_guard(struct evalbox_ctx *c)
{
	size_t k = 0;
	for (size_t i = 0; i < sizeof c->keep / sizeof *c->keep; i++) {
		free(c->keep[i]);
		c->keep[i] = NULL;
	}
	for (size_t i = 0; c->b->keep && c->b->keep[i] && k < 16; i++)
		c->keep[k++] = xstrdup(c->b->keep[i]);
	if (!c->workdir)
		return;
	for (size_t i = 0; i < sizeof evalbox_outputs / sizeof *evalbox_outputs; i++) {
		char *p = util_path_join(c->workdir, evalbox_outputs[i]);
		struct stat sb;
		int fd;
		if (lstat(p, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode))
			unlink(p);
		if (strncmp(evalbox_outputs[i], "solution.", 9) && lstat(p, &sb) < 0 &&
		    (fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) >= 0)
			close(fd);
		if (lstat(p, &sb) == 0 && S_ISREG(sb.st_mode))
			c->keep[k++] = p;
		else
			free(p);
	}
	/* the harness objects (eval.c): a folder, read-only in every step,
	 * so no solution's code can put an object of its own among ours */
	char *h = util_path_join(c->workdir, "harness");
	struct stat sb;
	if (lstat(h, &sb) == 0 && !S_ISDIR(sb.st_mode))
		unlink(h);
	if (lstat(h, &sb) < 0)
		mkdir(h, 0755);
	if (lstat(h, &sb) == 0 && S_ISDIR(sb.st_mode))
		c->keep[k++] = h;
	else
		free(h);
}

static char **evalbox_wrap(void *ud, const struct proc_spec *spec)
{
	struct evalbox_ctx *c = ud;
	evalbox_guard(c);
	struct sandbox_spec s = {
		.kind = c->b->kind, .workdir = c->workdir ? c->workdir : spec->cwd, .cwd = spec->cwd,
		.ro = (const char *const *)c->ro, .keep = (const char *const *)c->keep, .gpu = 1, .env = spec->env,
	};
	return sandbox_wrap(&s, spec->argv);
}

char **evalbox_argv(const struct eval_opts *o, const struct evalbox *b, const struct proc_spec *spec)
{
	struct evalbox_ctx c;
	evalbox_ctx_init(&c, o, b);
	char **v = evalbox_wrap(&c, spec);
	evalbox_ctx_free(&c);
	return v;
}

/* Removes what is neither a plain file nor a folder below dir: a reused
 * work directory may hold links an earlier run's code planted where the
 * loop copies files (kbh/problems/NAME/...), which the copy would follow. */
static void evalbox_scrub(const char *dir, int depth)
{
	DIR *d = depth < 16 ? opendir(dir) : NULL;
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		struct stat sb;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *p = util_path_join(dir, de->d_name);
		if (lstat(p, &sb) == 0) {
			if (S_ISDIR(sb.st_mode))
				evalbox_scrub(p, depth + 1);
			else if (!S_ISREG(sb.st_mode))
				unlink(p);
		}
		free(p);
	}
	if (d)
		closedir(d);
}

int evalbox_run(const struct eval_opts *o, const struct evalbox *b, struct eval_result *r)
{
	struct evalbox_ctx c;
	int rc;
	if (!b || b->kind == SANDBOX_NONE)
		return eval_run(o, r);
	evalbox_ctx_init(&c, o, b);
	if (c.workdir) {
		char *kbh = util_path_join(c.workdir, "kbh");
		evalbox_scrub(kbh, 0);
		free(kbh);
	}
	proc_set_wrap(evalbox_wrap, &c);
	rc = eval_run(o, r);
	proc_set_wrap(NULL, NULL);
	evalbox_ctx_free(&c);
	return rc;
}
