/* dataset.c: the dataset index: runs.jsonl (or a scan of runs/), the
 * leaderboard, baselines and annotation verdicts. Transcripts are parsed
 * only by dataset_load, on first need. */
#include "dataset.h"
#include "fetch.h"
#include "hub.h"
#include "annot.h"
#include "jsonx.h"
#include "parser.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void ds_error(struct dataset *ds, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void ds_error(struct dataset *ds, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	if (ds->nerrors >= RUN_MAX_ERRORS)
		return;
	ds->errors[ds->nerrors].line = line;
	ds->error_files[ds->nerrors] = xstrdup(file);
	va_start(ap, fmt);
	textsafe_vsnprintf(ds->errors[ds->nerrors].msg, sizeof ds->errors[0].msg, fmt, ap);
	va_end(ap);
	ds->nerrors++;
}

static struct ds_run *ds_add(struct dataset *ds, size_t *cap)
{
	struct ds_run *r;
	if (ds->nruns == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		ds->runs = xrealloc(ds->runs, *cap * sizeof *ds->runs);
	}
	r = &ds->runs[ds->nruns++];
	memset(r, 0, sizeof *r);
	run_meta_init(&r->meta);
	return r;
}

/* A path from the index must stay inside the dataset: relative, no "..". */
static int ds_safe_rel(const char *p)
{
	const char *s = p;
	if (!p || !*p || p[0] == '/')
		return 0;
	while (*s) {
		if (s[0] == '.' && s[1] == '.' && (s[2] == '/' || s[2] == '\0'))
			return 0;
		s = strchr(s, '/');
		if (!s)
			break;
		s++;
	}
	return 1;
}

static char *ds_dup(const cJSON *o, const char *key)
{
	return xstrdup(jx_str(o, key));
}

/* Fills outcome fields from a runs.jsonl line, result.json or a
 * leaderboard cell: the three share key names. */
static void ds_meta_outcome(struct run_meta *m, const cJSON *o)
{
	const cJSON *pf = jx_get(o, "peak_fraction");
	if (jx_get(o, "correct") || pf) {
		m->has_result = 1;
		m->correct = jx_bool(o, "correct", 0);
	}
	m->has_solution = jx_bool(o, "has_solution", m->has_solution);
	m->session_complete = jx_bool(o, "session_complete", m->session_complete);
	if (cJSON_IsNumber(pf))
		m->peak_fraction = pf->valuedouble;
	m->elapsed_seconds = jx_num(o, "elapsed_seconds", m->elapsed_seconds);
}

static void ds_set(char **dst, const char *v)
{
	if (!*dst && v)
		*dst = xstrdup(v);
}

/* Reads result.json of a run dir: what it says goes to the run's
 * provenance; with merge (no index said it) into meta too (missing fields
 * stay). */
static void ds_read_result(struct dataset *ds, struct ds_run *r, int merge)
{
	char *path = util_path_join(r->dir, "result.json");
	size_t len;
	char *buf = util_read_file(path, &len);
	cJSON *o;

	if (buf) {
		o = jx_parse(buf, len);
		if (!o) {
			ds_error(ds, path, 1, "result.json is not valid JSON");
		} else if (!merge) {
			prov_read_json(&r->prov.src[PROV_RESULT], o);
			cJSON_Delete(o);
		} else {
			prov_read_json(&r->prov.src[PROV_RESULT], o);
			ds_set(&r->meta.problem, jx_str(o, "problem"));
			ds_set(&r->meta.harness, jx_str(o, "harness"));
			ds_set(&r->meta.model, jx_str(o, "model"));
			ds_set(&r->meta.effort, jx_str(o, "reasoning_effort"));
			ds_meta_outcome(&r->meta, o);
			cJSON_Delete(o);
		}
		free(buf);
	}
	free(path);
}

static int ds_load_index_line(struct dataset *ds, size_t *cap, const char *file,
                              int lineno, const char *line, size_t len)
{
	cJSON *o = jx_parse(line, len);
	const char *id, *tr, *an;
	struct ds_run *r;

	if (!o || !cJSON_IsObject(o)) {
		ds_error(ds, file, lineno, "not a JSON object");
		cJSON_Delete(o);
		return -1;
	}
	id = jx_str(o, "run_id");
	if (!id || !*id || strchr(id, '/') || !ds_safe_rel(id)) {
		ds_error(ds, file, lineno, "missing or unsafe \"run_id\"");
		cJSON_Delete(o);
		return -1;
	}
	r = ds_add(ds, cap);
	r->meta.run_id = xstrdup(id);
	r->meta.harness = ds_dup(o, "harness");
	r->meta.model = ds_dup(o, "model");
	r->meta.effort = ds_dup(o, "effort");
	r->meta.problem = ds_dup(o, "problem");
	r->meta.label = ds_dup(o, "label");
	r->meta.format = ds_dup(o, "format");
	r->leaderboard = ds_dup(o, "leaderboard");
	ds_meta_outcome(&r->meta, o);
	prov_read_json(&r->prov.src[PROV_INDEX], o);
	tr = jx_str(o, "transcript");
	if (tr && !ds_safe_rel(tr))
		ds_error(ds, file, lineno, "transcript path \"%s\" leaves the dataset; ignored", tr);
	else if (tr)
		r->transcript = util_path_join(ds->root, tr);
	an = jx_str(o, "annotation");
	if (an && !ds_safe_rel(an))
		ds_error(ds, file, lineno, "annotation path \"%s\" leaves the dataset; ignored", an);
	else if (an)
		r->annotation = util_path_join(ds->root, an);
	char *rel = xasprintf("runs/%s", id);
	r->dir = util_path_join(ds->root, rel);
	free(rel);
	if (!util_is_dir(r->dir)) {
		free(r->dir);
		r->dir = NULL;
		if (r->transcript) {
			char *slash = strrchr(r->transcript, '/');
			r->dir = xstrndup(r->transcript, (size_t)(slash - r->transcript));
		}
	}
	if (r->dir)
		ds_read_result(ds, r, 0);
	cJSON_Delete(o);
	return 0;
}

static int ds_load_index(struct dataset *ds, size_t *cap, const char *path)
{
	size_t len;
	char *buf = util_read_file(path, &len);
	const char *p, *end;
	int lineno = 0;

	if (!buf)
		return -1;
	for (p = buf, end = buf + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		lineno++;
		while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
			n--;
		if (n)
			ds_load_index_line(ds, cap, path, lineno, p, n);
		p = nl ? nl + 1 : end;
	}
	free(buf);
	return 0;
}

static int ds_cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* No runs.jsonl: every directory under runs/ is a run. */
static void ds_scan_runs(struct dataset *ds, size_t *cap)
{
	char *runs = util_path_join(ds->root, "runs");
	DIR *d = opendir(runs);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, ncap = 0;

	if (!d) {
		free(runs);
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == ncap)
			names = xrealloc(names, (ncap = ncap ? ncap * 2 : 64) * sizeof *names);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)   /* an empty runs/ (a sweep not started): no array at all */
		qsort(names, n, sizeof *names, ds_cmp_name);
	for (size_t i = 0; i < n; i++) {
		char *dir = util_path_join(runs, names[i]);
		if (util_is_dir(dir)) {
			struct ds_run *r = ds_add(ds, cap);
			r->meta.run_id = names[i];
			r->dir = dir;
			r->transcript = dataset_find_transcript(dir);
			ds_read_result(ds, r, 1);
		} else {
			free(dir);
			free(names[i]);
		}
	}
	free(names);
	free(runs);
}

struct ds_run *dataset_add_run(struct dataset *ds, const char *run_id)
{
	ds->runs = xrealloc(ds->runs, (ds->nruns + 1) * sizeof *ds->runs);
	struct ds_run *r = &ds->runs[ds->nruns++];
	memset(r, 0, sizeof *r);
	run_meta_init(&r->meta);
	r->meta.run_id = xstrdup(run_id);
	char *rel = xasprintf("runs/%s", run_id);
	r->dir = util_path_join(ds->root, rel);
	free(rel);
	return r;
}

void dataset_reread_run(struct dataset *ds, size_t i)
{
	struct ds_run *r = &ds->runs[i];
	if (!r->dir)
		return;
	if (!r->transcript)
		r->transcript = dataset_find_transcript(r->dir);
	ds_read_result(ds, r, 1);  /* a sweep cell: result.json is what says its outcome */
	run_free(r->run);
	r->run = NULL;
	free(r->load_error);
	r->load_error = NULL;
}

long dataset_find(const struct dataset *ds, const char *run_id)
{
	for (size_t i = 0; i < ds->nruns; i++)
		if (run_id && strcmp(ds->runs[i].meta.run_id, run_id) == 0)
			return (long)i;
	return -1;
}

static cJSON *ds_read_json(struct dataset *ds, const char *name)
{
	char *path = util_path_join(ds->root, name);
	size_t len;
	char *buf = util_read_file(path, &len);
	cJSON *o = NULL;
	if (buf) {
		o = jx_parse(buf, len);
		if (!o)
			ds_error(ds, path, 1, "not valid JSON");
		free(buf);
	}
	free(path);
	return o;
}

/* The leaderboards a dataset may have: KernelBench-Hard's and
 * kernelbench.com's later v1 (same schema); a run only the second lists
 * is named by its "leaderboard" as runs.jsonl names it. */
static const struct ds_board {
	const char *file, *name;
	enum prov_source src;
} ds_boards[] = {
	{"leaderboard.json", "kernelbench-hard", PROV_LEADERBOARD},
	{"leaderboard_v1.json", "kernelbench.com-v1", PROV_LEADERBOARD_V1},
};

/* Leaderboard cells whose run is not in the index are held-out runs: they
 * still belong on the grid, without a transcript. */
static void ds_load_leaderboard(struct dataset *ds, size_t *cap, const struct ds_board *bd)
{
	cJSON *lb = ds_read_json(ds, bd->file);
	const cJSON *m, *cell;
	if (!lb)
		return;
	if (!ds->hardware)
		ds->hardware = xstrdup(jx_pstr(lb, "hardware.name"));
	cJSON_ArrayForEach(m, jx_get(lb, "models")) {
		cJSON_ArrayForEach(cell, jx_get(m, "results")) {
			const char *id = jx_str(cell, "run_id");
			struct ds_run *r;
			if (!id || !ds_safe_rel(id) || strchr(id, '/'))
				continue;
			long at = dataset_find(ds, id);
			if (at >= 0) {
				ds_set(&ds->runs[at].meta.label, jx_str(m, "label"));
				prov_read_json(&ds->runs[at].prov.src[bd->src], cell);
				continue;
			}
			r = ds_add(ds, cap);
			r->held_out = 1;
			r->meta.run_id = xstrdup(id);
			r->meta.label = ds_dup(m, "label");
			r->meta.harness = ds_dup(m, "harness");
			r->meta.model = ds_dup(m, "model");
			r->meta.effort = ds_dup(m, "effort");
			r->meta.problem = cell->string ? xstrdup(cell->string) : NULL;
			r->leaderboard = xstrdup(bd->name);
			ds_meta_outcome(&r->meta, cell);
			prov_read_json(&r->prov.src[bd->src], cell);
		}
	}
	cJSON_Delete(lb);
}

static void ds_baseline(struct ds_baseline *b, const cJSON *o)
{
	b->ms = jx_num(o, "ms", -1);
	b->tflops = jx_num(o, "tflops", -1);
	b->gbps = jx_num(o, "gbps", -1);
}

static void ds_load_baselines(struct dataset *ds)
{
	cJSON *bl = ds_read_json(ds, "problem_baselines.json");
	const cJSON *p;
	size_t n = 0;
	if (!bl)
		return;
	n = (size_t)cJSON_GetArraySize(jx_get(bl, "problems"));
	ds->problems = xcalloc(n ? n : 1, sizeof *ds->problems);
	cJSON_ArrayForEach(p, jx_get(bl, "problems")) {
		struct ds_problem *q;
		if (!p->string)
			continue;
		q = &ds->problems[ds->nproblems++];
		q->name = xstrdup(p->string);
		ds_baseline(&q->eager, jx_get(p, "eager"));
		ds_baseline(&q->compiled, jx_get(p, "compiled"));
		ds_baseline(&q->sota, jx_get(p, "sota"));
		ds_baseline(&q->solution, jx_get(p, "solution"));
	}
	cJSON_Delete(bl);
}

static void ds_load_verdicts(struct dataset *ds)
{
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *r = &ds->runs[i];
		char *err = NULL;
		int line = 0;
		if (!r->annotation) {
			char *rel = xasprintf("annotations/%s.yaml", r->meta.run_id);
			char *p = util_path_join(ds->root, rel);
			free(rel);
			if (util_is_file(p))
				r->annotation = p;
			else
				free(p);
		}
		if (!r->annotation)
			continue;
		r->verdict = dataset_read_verdict(r->annotation, &line, &err);
		if (err) {
			ds_error(ds, r->annotation, line, "%s", err);
			free(err);
		}
	}
}

static struct dataset *ds_open(const char *dir, int verdicts, char **err);

struct dataset *dataset_open(const char *dir, char **err)
{
	return ds_open(dir, 1, err);
}

struct dataset *dataset_open_runs(const char *dir, char **err)
{
	return ds_open(dir, 0, err);
}

static struct dataset *ds_open(const char *dir, int verdicts, char **err)
{
	struct dataset *ds;
	size_t cap = 0;
	char *index;

	if (!util_is_dir(dir)) {
		if (err)
			*err = xasprintf("%s: not a directory", dir);
		return NULL;
	}
	ds = xcalloc(1, sizeof *ds);
	ds->root = xstrdup(dir);
	index = util_path_join(dir, "runs.jsonl");
	if (ds_load_index(ds, &cap, index) < 0)
		ds_scan_runs(ds, &cap);
	free(index);
	for (size_t b = 0; b < sizeof ds_boards / sizeof ds_boards[0]; b++)
		ds_load_leaderboard(ds, &cap, &ds_boards[b]);
	ds_load_baselines(ds);
	if (verdicts)
		ds_load_verdicts(ds);
	/* a sweep that has not finished a cell yet is a dataset all the same */
	char *sweep = util_path_join(dir, "sweep.json");
	int is_sweep = util_is_file(sweep);
	free(sweep);
	if (!ds->nruns && !is_sweep) {
		if (err)
			*err = xasprintf("%s: no runs found (no runs.jsonl, runs/ or leaderboard.json)", dir);
		dataset_free(ds);
		return NULL;
	}
	return ds;
}

void dataset_free(struct dataset *ds)
{
	if (!ds)
		return;
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *r = &ds->runs[i];
		run_meta_free(&r->meta);
		free(r->dir);
		free(r->transcript);
		free(r->annotation);
		free(r->verdict);
		free(r->leaderboard);
		free(r->load_error);
		run_free(r->run);
	}
	for (size_t i = 0; i < ds->nproblems; i++)
		free(ds->problems[i].name);
	for (int i = 0; i < ds->nerrors; i++)
		free(ds->error_files[i]);
	free(ds->problems);
	free(ds->runs);
	free(ds->hardware);
	free(ds->root);
	free(ds);
}

/* The transcript must resolve inside the dataset even through symlinks. */
static int ds_inside(const struct dataset *ds, const char *path)
{
	char root[PATH_MAX], real[PATH_MAX];
	size_t n;
	if (!realpath(ds->root, root) || !realpath(path, real))
		return 0;
	n = strlen(root);
	return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

struct run *dataset_load(struct dataset *ds, size_t i)
{
	struct ds_run *r = &ds->runs[i];
	char *err = NULL;
	const struct parser_ops *forced = NULL;

	if (r->run || r->load_error)
		return r->run;
	if (!r->transcript) {
		r->load_error = xasprintf("%s: no transcript in this dataset%s", r->meta.run_id,
		                          r->held_out ? " (held out)" : "");
		return NULL;
	}
	if (!ds_inside(ds, r->transcript)) {
		r->load_error = xasprintf("%s: missing, or resolves outside the dataset", r->transcript);
		return NULL;
	}
	/* runs.jsonl names the format; trust content when it names none we know */
	if (r->meta.format)
		forced = parser_find(r->meta.format);
	r->run = parser_load_final(r->transcript, forced, &err);
	if (!r->run) {
		r->load_error = err;
		return NULL;
	}
	/* the index's metadata wins: it is what the leaderboard shows */
	struct run_meta *m = &r->run->meta;
#define DS_COPY(f) do { if (r->meta.f) { free(m->f); m->f = xstrdup(r->meta.f); } } while (0)
	DS_COPY(run_id);
	DS_COPY(harness);
	DS_COPY(model);
	DS_COPY(effort);
	DS_COPY(problem);
	DS_COPY(label);
#undef DS_COPY
	/* no index (or one that names neither): the transcript says them */
	if (!r->meta.harness && r->run->meta.format) {
		const struct parser_ops *ops = parser_find(r->run->meta.format);
		if (ops && ops->harness)
			r->meta.harness = xstrdup(ops->harness);
	}
	if (!r->meta.model && m->model)
		r->meta.model = xstrdup(m->model);
	m->has_result = r->meta.has_result;
	m->correct = r->meta.correct;
	m->has_solution = r->meta.has_solution;
	m->session_complete = r->meta.session_complete;
	m->peak_fraction = r->meta.peak_fraction;
	m->elapsed_seconds = r->meta.elapsed_seconds;
	/* the transcript states one thing: whether it ends with the marker */
	prov_set(&r->prov.src[PROV_TRANSCRIPT], PROV_COMPLETE, !r->run->incomplete);
	r->run->prov = xmalloc(sizeof *r->run->prov);
	*r->run->prov = r->prov;
	return r->run;
}

void dataset_fill_meta(struct dataset *ds)
{
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		if ((d->meta.harness && d->meta.model) || !d->transcript || d->run || d->load_error)
			continue;
		if (dataset_load(ds, i)) {
			/* only the names were wanted: the caller loads again if it must */
			run_free(d->run);
			d->run = NULL;
		}
	}
}

char *dataset_artifact(const struct dataset *ds, size_t i, const char *name)
{
	const struct ds_run *r = &ds->runs[i];
	char *p;
	if (!r->dir || strchr(name, '/'))
		return NULL;
	p = util_path_join(r->dir, name);
	if (!util_is_file(p)) {
		free(p);
		return NULL;
	}
	return p;
}

/* A run directory's transcript under one name. */
static char *ds_named_transcript(const char *run_dir, const char *name)
{
	char *p = util_path_join(run_dir, name);
	if (util_is_file(p))
		return p;
	free(p);
	return NULL;
}

char *dataset_find_transcript(const char *run_dir)
{
	DIR *d;
	struct dirent *de;
	char *found = NULL;
	int count = 0;

	/* the generic name first, then the names each format's runs use
	 * (parser_ops.transcript_names), in registry order */
	if ((found = ds_named_transcript(run_dir, "transcript.jsonl")))
		return found;
	for (size_t i = 0; parser_all[i]; i++)
		for (const char *const *n = parser_all[i]->transcript_names; n && *n; n++)
			if ((found = ds_named_transcript(run_dir, *n)))
				return found;
	if (!(d = opendir(run_dir)))
		return NULL;
	while ((de = readdir(d))) {
		if (!util_ends_with(de->d_name, ".jsonl") || !strcmp(de->d_name, "runs.jsonl"))
			continue;  /* runs.jsonl is a dataset's index, never a transcript */
		count++;
		free(found);
		found = util_path_join(run_dir, de->d_name);
	}
	closedir(d);
	if (count != 1) { /* ambiguous: refuse to guess */
		free(found);
		return NULL;
	}
	return found;
}

char *dataset_default_dir(const char *argv0)
{
	const char *env = getenv("KBTUI_DATA");
	char *p;

	if (env && *env)
		return xstrdup(env);
	/* where `kbtui fetch` puts the real dataset: one rule, in fetch.c */
	p = fetch_default_dest(HUB_DEFAULT_REPO);
	char *idx = util_path_join(p, "runs.jsonl");
	int fetched = util_is_file(idx);
	free(idx);
	if (fetched)
		return p;
	free(p);
	(void)argv0;
	/* uninstalled: data/sample of the source tree; else the installed one */
	return util_data_path("data/sample");
}

/* ---- annotation verdicts ------------------------------------------------ */

char *dataset_read_verdict(const char *yaml_path, int *err_line, char **err)
{
	int line = 0;
	char *e = NULL;
	struct annot *a = annot_load(yaml_path, &line, &e);
	char *v;

	if (err_line)
		*err_line = line;
	if (!a) {
		/* the caller names file and line itself: keep only the message */
		char *prefix = xasprintf("%s:%d: ", yaml_path, line);
		if (err)
			*err = xstrdup(util_starts_with(e, prefix) ? e + strlen(prefix) : e);
		free(prefix);
		free(e);
		return NULL;
	}
	v = xstrdup(annot_get(a, "verdict"));
	annot_free(a);
	return v;
}

void dataset_set_verdict(struct dataset *ds, size_t i, const char *path)
{
	struct ds_run *r = &ds->runs[i];
	free(r->verdict);
	free(r->annotation);
	r->verdict = r->annotation = NULL;
	if (!util_is_file(path))
		return;
	r->annotation = xstrdup(path);
	r->verdict = dataset_read_verdict(path, NULL, NULL);
}
