/* eval_kbh.c: `kbtui eval --kbh DIR`: the original KernelBench-Hard loop,
 * python check.py and benchmark.py run in a copy of the problem folder of a
 * checkout, their output read into the same result as the native loop's. */
#include "config.h"

#include "eval.h"
#include "eval_int.h"
#include "benchlog.h"
#include "problem.h"
#include "proc.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int eval_kbh_copy(struct eval_ctx *x, const char *name, char **pcopy)
{
	const char *kbh = x->o->kbh;
	char *from = xasprintf("%s/problems/%s", kbh, name), *src = util_path_join(kbh, "src");
	char *to = xasprintf("%s/kbh/problems/%s", x->r->workdir, name);
	char *src_to = xasprintf("%s/kbh/src", x->r->workdir);
	/* check.py imports src.eval from two folders up: the copy keeps that */
	int rc = eval_copy_tree(from, to, 0);
	if (rc == 0 && util_is_dir(src))
		rc = eval_copy_tree(src, src_to, 0);
	if (rc < 0)
		eval_fail(x, EVAL_SETUP, -1, "cannot copy %s into %s/kbh", from, x->r->workdir);
	char *sol = util_path_join(to, "solution.py");
	if (rc == 0 && eval_copy_file(x->r->solution, sol) < 0)
		rc = eval_fail(x, EVAL_SETUP, -1, "cannot copy %s into %s", x->r->solution, to);
	free(sol);
	free(from);
	free(src);
	free(src_to);
	*pcopy = to;
	return rc;
}

static void eval_kbh_env(struct eval_ctx *x, char **env)
{
	const char *wd = x->r->workdir;
	/* every cache the python loop would write under $HOME stays in here */
	env[0] = xstrdup("PYTHONDONTWRITEBYTECODE=1");
	env[1] = xstrdup("PYTHONUNBUFFERED=1");
	env[2] = xasprintf("TMPDIR=%s", x->tmpdir);
	env[3] = xasprintf("XDG_CACHE_HOME=%s/cache", wd);
	env[4] = xasprintf("TORCH_EXTENSIONS_DIR=%s/cache/torch_extensions", wd);
	env[5] = xasprintf("TRITON_CACHE_DIR=%s/cache/triton", wd);
	env[6] = xasprintf("CUDA_CACHE_PATH=%s/cache/nv", wd);
	env[7] = NULL;
}

/* Shape rows for what benchmark.py printed, when our metadata had fewer. */
static void eval_kbh_grow(struct eval_result *r, const struct benchlog *bl)
{
	int n = bl->nshape_peak > r->nshapes ? bl->nshape_peak : r->nshapes;
	for (int i = 0; i < bl->ne; i++)
		if (bl->e[i].kind == BL_VARIANT && bl->e[i].shape >= n && bl->e[i].shape < 1024)
			n = bl->e[i].shape + 1;
	if (n == r->nshapes)
		return;
	r->shapes = xrealloc(r->shapes, (size_t)n * sizeof *r->shapes);
	for (int i = r->nshapes; i < n; i++) {
		struct eval_shape *s = &r->shapes[i];
		memset(s, 0, sizeof *s);
		s->shape = i;
		s->flops = s->bytes = s->ms = s->min_ms = s->max_ms = s->tflops = s->gbps = s->peak_fraction = s->host_ms = -1;
	}
	r->nshapes = n;
}

static void eval_kbh_results(struct eval_ctx *x, const struct benchlog *bl)
{
	eval_kbh_grow(x->r, bl);
	for (int i = 0; i < x->r->nshapes; i++) {
		struct eval_shape *s = &x->r->shapes[i];
		const struct benchlog_entry *e = benchlog_find(bl, BL_VARIANT, i, "solution");
		if (e) {
			s->ms = e->ms;
			s->tflops = e->tflops;
			s->gbps = e->gbps;
		}
		if (i < bl->nshape_peak)
			s->peak_fraction = bl->shape_peak[i];
	}
	x->r->peak_fraction = bl->peak_fraction;
	x->r->verdict = xstrdup(bl->result);
}

static int eval_kbh_step(struct eval_ctx *x, const char *script, const char *logname, const char *cwd,
                         char **env, double timeout, struct benchlog *bl)
{
	struct eval_step st = {.x = x, .stage = strcmp(script, "check.py") ? "bench" : "check", .bl = bl};
	struct proc_result res;
	char *argv[] = {(char *)x->o->python, (char *)script, NULL};
	char why[256];
	st.log = eval_open_log(x, logname);
	eval_step_run(&st, argv, cwd, env, timeout, &res);
	proc_describe(&res, why, sizeof why);
	if (res.end == PROC_TIMEOUT)
		x->r->timed_out = 1;
	if (res.end == PROC_SIGNALED)
		x->r->crashed = 1;
	if (res.end != PROC_EXITED)
		eval_step_printf(&st, "kbtui eval: python %s %s", script, why);
	if (st.log)
		fclose(st.log);
	return res.end == PROC_START_FAILED ? -1 : 0;
}

int eval_kbh(struct eval_ctx *x)
{
	char *copy = NULL, *env[8] = {0};
	struct benchlog *bl = benchlog_new();
	int rc;
	double t_check = x->o->timeout_s > 0 ? x->o->timeout_s : 180;   /* run_hard.sh's budgets */
	double t_bench = x->o->timeout_s > 0 ? x->o->timeout_s : 1800;

	if ((rc = eval_workdir(x, "py")) || (rc = eval_kbh_copy(x, x->r->problem, &copy)))
		goto out;
	eval_kbh_env(x, env);
	eval_stage_begin(x, EVAL_CHECK);
	eval_say(x, "python check.py in %s", copy);
	if (eval_kbh_step(x, "check.py", "check.log", copy, env, t_check, bl) < 0) {
		rc = eval_fail(x, EVAL_SETUP, -1, "cannot run %s", x->o->python);
		goto out;
	}
	/* run_hard.sh: correct when a line starts with PASS */
	if (!bl->npass) {
		rc = eval_fail(x, EVAL_CHECK, 1, "check.py: %s", bl->fail ? bl->fail : "no PASS line");
		goto out;
	}
	x->r->correct = 1;
	if (eval_aborted(x)) {
		rc = eval_fail(x, EVAL_BENCH, 0, "aborted by the user before the benchmark");
		goto out;
	}
	benchlog_free(bl);
	bl = benchlog_new();
	eval_stage_begin(x, EVAL_BENCH);
	eval_say(x, "python benchmark.py in %s", copy);
	eval_kbh_step(x, "benchmark.py", "benchmark.log", copy, env, t_bench, bl);
	eval_kbh_results(x, bl);
	if (x->r->peak_fraction < 0)
		eval_fail(x, EVAL_BENCH, 0, "benchmark.py printed no peak_fraction");
	rc = 0;
out:
	for (int i = 0; env[i]; i++)
		free(env[i]);
	benchlog_free(bl);
	free(copy);
	return rc;
}

/* The problem's shapes for --kbh come from the checkout's shapes (our
 * problems folder, when it has the problem, gives names and formulas). */
int eval_kbh_problem(struct eval_ctx *x)
{
	char *pdir = util_path_join(x->o->kbh, "problems");
	char *dir = problem_find(pdir, x->o->problem);
	if (!dir) {
		eval_fail(x, EVAL_SETUP, -1, "%s: no problem '%s' there", pdir, x->o->problem);
		free(pdir);
		return -1;
	}
	const char *slash = strrchr(dir, '/');
	x->r->problem = xstrdup(slash ? slash + 1 : dir);
	free(dir);
	free(pdir);
	/* shape rows come from benchmark.py's lines; our metadata is optional */
	char *ours = x->o->problems_dir ? xstrdup(x->o->problems_dir) : problem_default_dir();
	char *odir = problem_find(ours, x->r->problem), *err = NULL;
	if (odir && (x->pb = problem_load(odir, &err)))
		eval_shapes_init(x);
	free(err);
	free(odir);
	free(ours);
	return 0;
}
