/* evalbox.c: eval_run with its children in the sandbox (see evalbox.h). */
#include "config.h"

#include "evalbox.h"
#include "problem.h"
#include "proc.h"
#include "util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

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

/* What a step may read under the hidden homes: owned, NULL-ended. */
struct evalbox_ctx {
	const struct evalbox *b;
	char *ro[8];
	int nro;
};

/* The directory two levels above a program's real path: the CUDA root of
 * bin/nvcc, a python installation's prefix of bin/python. */
static char *evalbox_prefix(const char *prog)
{
	char real[PATH_MAX], *slash;
	if (!prog || !realpath(prog, real))
		return NULL;
	for (int i = 0; i < 2; i++)
		if ((slash = strrchr(real, '/')) && slash != real)
			*slash = 0;
	return xstrdup(real);
}

static char *evalbox_which(const char *name)
{
	const char *path = getenv("PATH");
	while (path && *path) {
		size_t n = strcspn(path, ":");
		char *dir = xstrndup(path, n), *full = util_path_join(*dir ? dir : ".", name);
		free(dir);
		if (util_is_file(full))
			return full;
		free(full);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

static void evalbox_ctx_init(struct evalbox_ctx *c, const struct eval_opts *o, const struct evalbox *b)
{
	char *nvcc = o->nvcc ? xstrdup(o->nvcc) : eval_find_nvcc();
	memset(c, 0, sizeof *c);
	c->b = b;
	c->ro[c->nro++] = o->problems_dir ? xstrdup(o->problems_dir) : problem_default_dir();
	if (o->solution)
		c->ro[c->nro++] = xstrdup(o->solution);
	if (o->kbh)
		c->ro[c->nro++] = xstrdup(o->kbh);
	if ((c->ro[c->nro] = evalbox_prefix(nvcc)))
		c->nro++;
	free(nvcc);
	if (o->kbh) {
		char *py = o->python ? xstrdup(o->python) : evalbox_which("python");
		if (!py)
			py = evalbox_which("python3");
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
}

static char **evalbox_wrap(void *ud, const struct proc_spec *spec)
{
	struct evalbox_ctx *c = ud;
	struct sandbox_spec s = {
		.kind = c->b->kind, .workdir = spec->cwd, .ro = (const char *const *)c->ro,
		.keep = c->b->keep, .gpu = 1, .env = spec->env,
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

int evalbox_run(const struct eval_opts *o, const struct evalbox *b, struct eval_result *r)
{
	struct evalbox_ctx c;
	int rc;
	if (!b || b->kind == SANDBOX_NONE)
		return eval_run(o, r);
	evalbox_ctx_init(&c, o, b);
	proc_set_wrap(evalbox_wrap, &c);
	rc = eval_run(o, r);
	proc_set_wrap(NULL, NULL);
	evalbox_ctx_free(&c);
	return rc;
}
