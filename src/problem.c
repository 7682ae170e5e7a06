/* problem.c: problem.json loading and problem lookup. */
#include "problem.h"
#include "jsonx.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* KernelBench-Hard's src/eval/correctness.py defaults, by precision. */
static void problem_default_tolerance(struct problem *p)
{
	const char *s = p->precision ? p->precision : "fp32";
	double t = 1e-4;
	if (strstr(s, "fp8") || strstr(s, "float8"))
		t = 1e-1;
	else if (strstr(s, "bf16") || strstr(s, "fp16") || strstr(s, "bfloat16") || strstr(s, "float16"))
		t = 1e-2;
	else if (!strncmp(s, "int", 3) && !strchr(s, '_'))
		t = 0;
	p->atol = p->rtol = t;
}

/* A number, or a string holding one ("5e-2": how YAML leaves it). */
static int problem_num(const cJSON *v, double *out)
{
	char *end;
	if (cJSON_IsNumber(v)) {
		*out = v->valuedouble;
		return 0;
	}
	if (cJSON_IsString(v)) {
		*out = strtod(v->valuestring, &end);
		return end != v->valuestring && !*end ? 0 : -1;
	}
	return -1;
}

/* One tolerance value: a number for both, or {"atol": a, "rtol": r}. */
static int problem_tol_value(struct problem *p, const cJSON *v)
{
	double a, r;
	if (problem_num(v, &a) == 0) {
		p->atol = p->rtol = a;
		return 0;
	}
	if (problem_num(jx_get(v, "atol"), &a) == 0) {
		p->atol = a;
		p->rtol = problem_num(jx_get(v, "rtol"), &r) == 0 ? r : 0;
		return 0;
	}
	return -1;
}

/* One spelling per dtype: "torch.bfloat16", "bfloat16" and "bf16" are all
 * "bf16"; of "int4_bf16" (weights_output) the output's part counts. */
static const char *problem_dtype(const char *s)
{
	static const char *const syn[][2] = {
		{"float32", "fp32"}, {"float", "fp32"}, {"bfloat16", "bf16"}, {"float16", "fp16"}, {"half", "fp16"},
		{"float8_e4m3fn", "fp8"}, {"fp8_e4m3fn", "fp8"}, {"fp8_e4m3", "fp8"}, {"float8_e5m2", "fp8_e5m2"},
	};
	const char *us;
	if (util_starts_with(s, "torch."))
		s += 6;
	for (size_t i = 0; i < sizeof syn / sizeof *syn; i++)
		if (!strcasecmp(s, syn[i][0]))
			return syn[i][1];
	if (!strncmp(s, "int", 3) && (us = strrchr(s, '_')))
		return problem_dtype(us + 1);
	return s;
}

/* "tolerance" is a value, or a map dtype -> value (keys spelt "bfloat16",
 * "torch.bfloat16"...) of which the output dtype's entry, else the only or
 * first one, applies. */
static int problem_tolerance(struct problem *p, const cJSON *t, const char *dtype)
{
	const cJSON *it, *pick = NULL;
	if (!t)
		return 0;
	if (problem_tol_value(p, t) == 0)
		return 0;
	if (!cJSON_IsObject(t) || !t->child)
		return -1;
	cJSON_ArrayForEach(it, t)
		if (dtype && it->string && !strcasecmp(problem_dtype(it->string), problem_dtype(dtype)))
			pick = it;
	return problem_tol_value(p, pick ? pick : t->child);
}

static char **problem_strings(const cJSON *a, int *n)
{
	const cJSON *it;
	char **v = xcalloc((size_t)cJSON_GetArraySize(a) + 1, sizeof *v);
	*n = 0;
	cJSON_ArrayForEach(it, a)
		if (cJSON_IsString(it))
			v[(*n)++] = xstrdup(it->valuestring);
	return v;
}

static int problem_shapes(struct problem *p, const cJSON *a)
{
	const cJSON *s, *v;
	if (!cJSON_IsArray(a) || !cJSON_GetArraySize(a))
		return -1;
	p->shapes = xcalloc((size_t)cJSON_GetArraySize(a), sizeof *p->shapes);
	cJSON_ArrayForEach(s, a) {
		struct problem_shape *sh = &p->shapes[p->nshapes++];
		if (!cJSON_IsObject(s))
			return -1;
		sh->vars = xcalloc((size_t)cJSON_GetArraySize(s) + 1, sizeof *sh->vars);
		cJSON_ArrayForEach(v, s) {
			double x;
			if (cJSON_IsBool(v))
				x = cJSON_IsTrue(v);
			else if (problem_num(v, &x) < 0)
				continue;   /* a label, not a size */
			sh->vars[sh->nvars].name = xstrdup(v->string);
			sh->vars[sh->nvars++].value = x;
		}
	}
	return 0;
}

static const char *problem_str2(const cJSON *o, const char *a, const char *b)
{
	return jx_str(o, a) ? jx_str(o, a) : jx_str(o, b);
}

static long long problem_ll2(const cJSON *o, const char *a, const char *b, long long dflt)
{
	return jx_ll(o, a, jx_ll(o, b, dflt));
}

/* Every formula must evaluate for every shape, so a typo is reported at
 * load time with its column, not halfway through a benchmark. */
static char *problem_check_formulas(const struct problem *p)
{
	for (int i = 0; i < p->nshapes; i++) {
		double f, b;
		struct formula_error fe;
		if (problem_work(p, i, &f, &b, &fe) < 0)
			return xasprintf("shape %d: %s", i, fe.msg);
	}
	return NULL;
}

static char *problem_fill(struct problem *p, const cJSON *o)
{
	const char *fl = problem_str2(o, "flops_formula", "flops");
	const char *by = problem_str2(o, "bytes_formula", "bytes");
	p->name = xstrdup(jx_str(o, "name"));
	p->display_name = xstrdup(jx_str(o, "display_name"));
	p->precision = xstrdup(jx_str(o, "precision"));
	p->regime = xstrdup(jx_str(o, "regime") ? jx_str(o, "regime") : "compute");
	p->peak_tflops_key = xstrdup(jx_str(o, "peak_tflops_key"));
	p->peak_bandwidth_key = xstrdup(jx_str(o, "peak_bandwidth_key") ? jx_str(o, "peak_bandwidth_key") : "dram");
	if (!fl || !by)
		return xstrdup("needs \"flops_formula\" and \"bytes_formula\"");
	p->flops_formula = xstrdup(fl);
	p->bytes_formula = xstrdup(by);
	if (problem_shapes(p, jx_get(o, "shapes")) < 0)
		return xstrdup("\"shapes\" must be a non-empty array of objects");
	problem_default_tolerance(p);
	if (problem_tolerance(p, jx_get(o, "tolerance"), problem_str2(o, "output_dtype", "precision")) < 0)
		return xstrdup("\"tolerance\" must be a number, {\"atol\", \"rtol\"} or a map of dtype to those");
	p->forbidden = problem_strings(jx_get(o, "forbidden"), &p->nforbidden);
	p->hardware = problem_strings(jx_get(o, "hardware"), &p->nhardware);
	p->seeds = (int)problem_ll2(o, "seeds", "num_correct_seeds", jx_ll(o, "num_correct_trials", 3));
	p->trials = (int)problem_ll2(o, "trials", "num_perf_trials", 30);
	if (p->seeds < 1 || p->trials < 1)
		return xstrdup("\"seeds\" and \"trials\" must be at least 1");
	if (strcmp(p->regime, "compute") && strcmp(p->regime, "memory"))
		return xasprintf("\"regime\" is \"%s\", not \"compute\" or \"memory\"", p->regime);
	return problem_check_formulas(p);
}

struct problem *problem_load(const char *dir, char **err)
{
	char *path = util_path_join(dir, "problem.json"), *why;
	size_t len;
	char *text = util_read_file(path, &len);
	struct problem *p;
	cJSON *doc;

	if (!text) {
		*err = xasprintf("%s: cannot read: %s", path, strerror(errno));
		free(path);
		return NULL;
	}
	doc = jx_parse(text, len);
	free(text);
	p = xcalloc(1, sizeof *p);
	p->dir = xstrdup(dir);
	why = cJSON_IsObject(doc) ? problem_fill(p, doc) : xstrdup("not a JSON object");
	cJSON_Delete(doc);
	if (why) {
		*err = xasprintf("%s: %s", path, why);
		free(why);
		free(path);
		problem_free(p);
		return NULL;
	}
	if (!p->name) {
		const char *slash = strrchr(dir, '/');
		p->name = xstrdup(slash && slash[1] ? slash + 1 : dir);
	}
	free(path);
	return p;
}

void problem_free(struct problem *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nshapes; i++) {
		for (int j = 0; j < p->shapes[i].nvars; j++)
			free((char *)p->shapes[i].vars[j].name);
		free(p->shapes[i].vars);
	}
	free(p->shapes);
	problem_names_free(p->forbidden, p->nforbidden);
	problem_names_free(p->hardware, p->nhardware);
	free(p->dir);
	free(p->name);
	free(p->display_name);
	free(p->precision);
	free(p->regime);
	free(p->flops_formula);
	free(p->bytes_formula);
	free(p->peak_tflops_key);
	free(p->peak_bandwidth_key);
	free(p);
}

/* Names the formula in the message: "bytes_formula column 7: ...". */
static int problem_formula_err(struct formula_error *err, const char *which)
{
	if (err) {
		char *m = xasprintf("%s column %d: %s", which, err->col, err->msg);
		size_t n = strlen(m) < sizeof err->msg - 1 ? strlen(m) : sizeof err->msg - 1;
		memcpy(err->msg, m, n);
		err->msg[n] = '\0';
		free(m);
	}
	return -1;
}

int problem_work(const struct problem *p, int shape, double *flops, double *bytes,
                 struct formula_error *err)
{
	const struct problem_shape *s = &p->shapes[shape];
	if (formula_eval(p->flops_formula, s->vars, s->nvars, flops, err) < 0)
		return problem_formula_err(err, "flops_formula");
	if (formula_eval(p->bytes_formula, s->vars, s->nvars, bytes, err) < 0)
		return problem_formula_err(err, "bytes_formula");
	return 0;
}

char *problem_shape_desc(const struct problem *p, int shape)
{
	struct sbuf b;
	const struct problem_shape *s = &p->shapes[shape];
	sbuf_init(&b);
	for (int i = 0; i < s->nvars; i++)
		sbuf_addf(&b, "%s%s=%.15g", i ? " " : "", s->vars[i].name, s->vars[i].value);
	return sbuf_detach(&b);
}

char *problem_default_dir(void)
{
	/* include/ tells the problems apart from a build directory's objects */
	char *p = util_data_path("problems/include");
	p[strlen(p) - strlen("/include")] = '\0';
	return p;
}

static int problem_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **problem_names(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	int cap = 0;
	*n = 0;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* problem.yaml: a KernelBench-Hard checkout's problems */
		char *pj = xasprintf("%s/%s/problem.json", dir, e->d_name);
		char *py = xasprintf("%s/%s/problem.yaml", dir, e->d_name);
		int is = util_is_file(pj) || util_is_file(py);
		free(pj);
		free(py);
		if (!is)
			continue;
		if (*n + 1 >= cap)
			v = xrealloc(v, (size_t)(cap = cap ? cap * 2 : 16) * sizeof *v);
		v[(*n)++] = xstrdup(e->d_name);
	}
	if (d)
		closedir(d);
	if (v)
		qsort(v, (size_t)*n, sizeof *v, problem_cmp);
	return v;
}

void problem_names_free(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* "04" matches "04_kahan_softmax"; so does "kahan_softmax". */
static int problem_name_matches(const char *folder, const char *name)
{
	size_t ln = strlen(name);
	const char *us = strchr(folder, '_');
	if (!strcmp(folder, name))
		return 2;
	if (us && (size_t)(us - folder) == ln && !strncmp(folder, name, ln))
		return 1;
	return us && !strcmp(us + 1, name);
}

char *problem_find(const char *dir, const char *name)
{
	int n, hits = 0;
	char **v = problem_names(dir, &n), *found = NULL;
	for (int i = 0; name && *name && i < n; i++) {
		int m = problem_name_matches(v[i], name);
		if (m == 2) {
			free(found);
			found = util_path_join(dir, v[i]);
			hits = 1;
			break;
		}
		if (m == 1 && !hits++)
			found = util_path_join(dir, v[i]);
	}
	problem_names_free(v, n);
	if (hits != 1) {
		free(found);
		return NULL;
	}
	return found;
}
