/* dataset.c: the dataset index: runs.jsonl (or a scan of runs/), the
 * leaderboard, baselines and annotation verdicts. Transcripts are parsed
 * only by dataset_load, on first need. */
#include "dataset.h"
#include "dirlist.h"
#include "fetch.h"
#include "hub.h"
#include "annot.h"
#include "idcache.h"
#include "jsonx.h"
#include "parser.h"
#include "rundetail.h"
#include "strpool.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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
		ds->runs = xrealloc_big(ds->runs, ds->nruns * sizeof *ds->runs, *cap * sizeof *ds->runs);
	}
	r = &ds->runs[ds->nruns++];
	memset(r, 0, sizeof *r);
	run_meta_init(&r->meta);
	return r;
}

/* What opening a dataset reads once, for every run: the listings of
 * runs/ and annotations/ (a stat(2) a run each was a quarter of opening
 * 14,000 runs), and how. */
struct ds_ctx {
	struct dirlist runs, annots;
	char *runs_dir, *annots_dir;
	int runs_read;            /* runs is read at its first need */
	int lazy;                 /* result.json later (dataset_open_lazy) */
};

/* The listing of runs/, read when first needed: an index whose runs'
 * transcripts lie in runs/<id>/ needs none. */
static const struct dirlist *ds_ctx_runs(struct ds_ctx *cx)
{
	if (!cx->runs_read) {
		dirlist_read(&cx->runs, cx->runs_dir);
		cx->runs_read = 1;
	}
	return &cx->runs;
}

/* Whether transcript is runs_dir/<id>/<one name>: then that is the run's
 * directory whether or not runs/<id> is listed as one. */
static int ds_in_run_dir(const char *transcript, const char *runs_dir, const char *id)
{
	size_t nr = strlen(runs_dir), ni = strlen(id);
	return transcript && !strncmp(transcript, runs_dir, nr) && transcript[nr] == '/' &&
	       !strncmp(transcript + nr + 1, id, ni) && transcript[nr + 1 + ni] == '/' &&
	       transcript[nr + 2 + ni] && !strchr(transcript + nr + 2 + ni, '/');
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

/* The pool's copy of o's string key (NULL when o has none). */
static char *ds_dup(struct dataset *ds, const cJSON *o, const char *key)
{
	return dataset_intern(ds, jx_str(o, key));
}

char *dataset_intern(struct dataset *ds, const char *s)
{
	if (!ds->strs)
		ds->strs = strpool_new();
	return (char *)strpool_get(ds->strs, s);
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

static void ds_set(struct dataset *ds, char **dst, const char *v)
{
	if (!*dst && v)
		*dst = dataset_intern(ds, v);
}

/* The deck result.json records (kbtui eval's "deck"); only that file says it. */
static void ds_result_deck(struct ds_run *r, const cJSON *o)
{
	const char *v = jx_str(o, "deck");
	free(r->deck);
	r->deck = v && *v ? xstrdup(v) : NULL;
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
		jx_arena_begin();   /* the tree goes with the scope: what is kept is copied */
		o = jx_parse(buf, len);
		if (!o) {
			ds_error(ds, path, 1, "result.json is not valid JSON");
		} else if (!merge) {
			prov_read_json(&r->prov.src[PROV_RESULT], o);
			ds_result_deck(r, o);
			cJSON_Delete(o);
		} else {
			prov_read_json(&r->prov.src[PROV_RESULT], o);
			ds_result_deck(r, o);
			ds_set(ds, &r->meta.problem, jx_str(o, "problem"));
			ds_set(ds, &r->meta.harness, jx_str(o, "harness"));
			ds_set(ds, &r->meta.model, jx_str(o, "model"));
			ds_set(ds, &r->meta.effort, jx_str(o, "reasoning_effort"));
			ds_meta_outcome(&r->meta, o);
			cJSON_Delete(o);
		}
		jx_arena_end();
		free(buf);
	}
	free(path);
}

static int ds_load_index_line(struct dataset *ds, struct ds_ctx *cx, size_t *cap, const char *file,
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
	r->meta.harness = ds_dup(ds, o, "harness");
	r->meta.model = ds_dup(ds, o, "model");
	r->meta.effort = ds_dup(ds, o, "effort");
	r->meta.problem = ds_dup(ds, o, "problem");
	r->meta.label = ds_dup(ds, o, "label");
	r->meta.format = ds_dup(ds, o, "format");
	r->leaderboard = ds_dup(ds, o, "leaderboard");
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
	/* runs/<id> when it is a directory, else the transcript's: the same
	 * path when the transcript is in runs/<id>/, which needs no look */
	if (!ds_in_run_dir(r->transcript, cx->runs_dir, id) && dirlist_has(ds_ctx_runs(cx), cx->runs_dir, id, 1)) {
		r->dir = util_path_join(cx->runs_dir, id);
	} else if (r->transcript) {
		char *slash = strrchr(r->transcript, '/');
		r->dir = xstrndup(r->transcript, (size_t)(slash - r->transcript));
	}
	if (r->dir && cx->lazy) {
		r->result_pending = 1;
		ds->details_left++;
	} else if (r->dir) {
		ds_read_result(ds, r, 0);
	}
	cJSON_Delete(o);
	return 0;
}

/* One line of the index, its tree in the arena: what the run keeps is
 * copied out. */
static void ds_index_line(struct dataset *ds, struct ds_ctx *cx, size_t *cap, const char *path, int lineno,
                          const char *p, size_t n)
{
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' '))
		n--;
	if (!n)
		return;
	jx_arena_begin();
	ds_load_index_line(ds, cx, cap, path, lineno, p, n);
	jx_arena_end();
}

/* Read a piece at a time into one buffer: the whole of a 14 MB index
 * was as many fresh pages to fault in and copy into, a fifth of opening it. */
static int ds_load_index(struct dataset *ds, struct ds_ctx *cx, size_t *cap, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	size_t bcap = 1u << 18, have = 0, total = 0;
	char *buf = xmalloc(bcap);
	int lineno = 0;
	for (;;) {
		if (have == bcap)   /* a line longer than the buffer */
			buf = xrealloc(buf, bcap *= 2);
		ssize_t r = read(fd, buf + have, bcap - have);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && !total) {  /* not a file to read (a directory): no index */
			close(fd);
			free(buf);
			return -1;
		}
		if (r < 0)
			ds_error(ds, path, lineno + 1, "read error: %s (the lines before it are kept)", strerror(errno));
		if (r <= 0)
			break;
		have += (size_t)r;
		total += (size_t)r;
		char *p = buf, *end = buf + have, *nl;
		for (; (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1)
			ds_index_line(ds, cx, cap, path, ++lineno, p, (size_t)(nl - p));
		have = (size_t)(end - p);
		memmove(buf, p, have);
	}
	if (have)   /* the last line, without its newline */
		ds_index_line(ds, cx, cap, path, ++lineno, buf, have);
	close(fd);
	free(buf);
	return 0;
}

/* No runs.jsonl: every directory under runs/ is a run, in name order. */
static void ds_scan_runs(struct dataset *ds, struct ds_ctx *cx, size_t *cap)
{
	const struct dirlist *runs = ds_ctx_runs(cx);
	for (size_t i = 0; i < runs->n; i++) {
		const char *name = runs->names[i];
		if (name[0] == '.' || !dirlist_has(runs, cx->runs_dir, name, 1))
			continue;
		struct ds_run *r = ds_add(ds, cap);
		r->meta.run_id = xstrdup(name);
		r->dir = util_path_join(cx->runs_dir, name);
		r->transcript = dataset_find_transcript(r->dir);
		ds_read_result(ds, r, 1);  /* the only file to say the run's problem and model */
	}
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

/* Run r's result.json is being read now: no longer pending. */
static void ds_result_taken(struct dataset *ds, struct ds_run *r)
{
	if (r->result_pending) {
		r->result_pending = 0;
		ds->details_left--;
	}
}

void dataset_reread_run(struct dataset *ds, size_t i)
{
	struct ds_run *r = &ds->runs[i];
	if (!r->dir)
		return;
	if (!r->transcript)
		r->transcript = dataset_find_transcript(r->dir);
	ds_result_taken(ds, r);
	ds_read_result(ds, r, 1);  /* a sweep cell: result.json is what says its outcome */
	run_free(r->run);
	r->run = NULL;
	free(r->load_error);
	r->load_error = NULL;
}

/* The slot of run_id in the find table: where it is, or the empty slot
 * where it would go. Slots hold run index + 1 (0: empty). */
static size_t ds_find_slot(const struct dataset *ds, const char *run_id)
{
	size_t mask = ds->find_nslot - 1;
	for (size_t j = (size_t)idcache_str_hash(IDCACHE_FNV0, run_id) & mask;; j = (j + 1) & mask) {
		size_t k = ds->find_slot[j];
		if (!k || !strcmp(ds->runs[k - 1].meta.run_id, run_id))
			return j;
	}
}

/* The table brought up to ds->nruns (runs are only ever added): a
 * leaderboard that names every run of a big index looked each one up by
 * a scan of all of them. The first of two runs with one id is found. */
static void ds_find_index(struct dataset *ds)
{
	if (!ds->find_slot || ds->nruns * 2 + 2 > ds->find_nslot) {  /* at most half full */
		size_t n = 64;
		while (n < ds->nruns * 2 + 2)
			n *= 2;
		free(ds->find_slot);
		ds->find_slot = xcalloc(n, sizeof *ds->find_slot);
		ds->find_nslot = n;
		ds->find_nruns = 0;
	}
	for (; ds->find_nruns < ds->nruns; ds->find_nruns++) {
		const char *id = ds->runs[ds->find_nruns].meta.run_id;
		size_t j;
		if (id && !ds->find_slot[j = ds_find_slot(ds, id)])
			ds->find_slot[j] = ds->find_nruns + 1;
	}
}

long dataset_find(const struct dataset *ds, const char *run_id)
{
	if (!run_id)
		return -1;
	/* the table is a cache of the runs: filling it changes no answer */
	struct dataset *w = (struct dataset *)ds;
	if (!ds->find_slot || ds->find_nruns != ds->nruns)
		ds_find_index(w);
	size_t k = ds->find_slot[ds_find_slot(ds, run_id)];
	return k ? (long)k - 1 : -1;
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

/* Board bd's verdict for run i: the first a board gives wins, a second
 * that differs marks the split. */
static void ds_board_verdict(struct ds_run *r, const char *v)
{
	if (!v || !*v)
		return;
	if (!r->board_verdict)
		r->board_verdict = xstrdup(v);
	else if (strcmp(r->board_verdict, v))
		r->board_verdict_split = 1;
}

/* A v2 board's per_problem ranked_valid_passes name a row by its label
 * and carry a verdict: the run is that row's cell of the problem. */
static void ds_ranked_verdicts(struct dataset *ds, const cJSON *lb)
{
	const cJSON *pp, *e, *m;
	cJSON_ArrayForEach(pp, jx_get(lb, "per_problem")) {
		cJSON_ArrayForEach(e, jx_get(pp, "ranked_valid_passes")) {
			const char *label = jx_str(e, "model"), *v = jx_str(e, "verdict");
			if (!label || !v || !pp->string)
				continue;
			cJSON_ArrayForEach(m, jx_get(lb, "models")) {
				const char *l = jx_str(m, "label");
				if (!l || strcmp(l, label))
					continue;
				long at = dataset_find(ds, jx_str(jx_get(jx_get(m, "results"), pp->string), "run_id"));
				if (at >= 0)
					ds_board_verdict(&ds->runs[at], v);
				break;
			}
		}
	}
}

/* Leaderboard cells whose run is not in the index are held-out runs: they
 * still belong on the grid, without a transcript. A run the index lacks is
 * named by its first board's name as runs.jsonl would name it. */
static void ds_load_leaderboard(struct dataset *ds, size_t *cap, const char *file)
{
	cJSON *lb = ds_read_json(ds, file);
	const cJSON *m, *cell;
	if (!lb)
		return;
	if (ds->nboards >= BOARD_MAX) {
		ds_error(ds, file, 1, "more than %d boards: this one is not read", BOARD_MAX);
		cJSON_Delete(lb);
		return;
	}
	size_t bi = ds->nboards++;
	struct board *bd = &ds->boards[bi];
	board_read(bd, file, lb);
	enum prov_source src = (enum prov_source)bd->prov;
	/* the names runs.jsonl has always used for the first two */
	const char *lbname = !strcmp(file, "leaderboard.json") ? "kernelbench-hard" :
	                     !strcmp(file, "leaderboard_v1.json") ? "kernelbench.com-v1" : bd->id;
	if (!ds->hardware)
		ds->hardware = xstrdup(bd->gpu);
	cJSON_ArrayForEach(m, jx_get(lb, "models")) {
		cJSON_ArrayForEach(cell, jx_get(m, "results")) {
			const char *id = jx_str(cell, "run_id");
			struct ds_run *r;
			if (!id || !ds_safe_rel(id) || strchr(id, '/'))
				continue;
			board_add_cell(bd, id);
			long at = dataset_find(ds, id);
			if (at >= 0) {
				r = &ds->runs[at];
				ds_set(ds, &r->meta.label, jx_str(m, "label"));
				/* two cells of one board: the file states the first */
				if (!(r->boards & (1u << bi)) && !(r->prov.src[src].known && src == PROV_LEADERBOARD_OTHER))
					prov_read_json(&r->prov.src[src], cell);
				r->boards |= 1u << bi;
				ds_board_verdict(r, jx_str(cell, "annotation_verdict"));
				continue;
			}
			r = ds_add(ds, cap);
			r->held_out = 1;
			r->boards = 1u << bi;
			r->meta.run_id = xstrdup(id);
			r->meta.label = ds_dup(ds, m, "label");
			r->meta.harness = ds_dup(ds, m, "harness");
			r->meta.model = ds_dup(ds, m, "model");
			r->meta.effort = ds_dup(ds, m, "effort");
			r->meta.problem = dataset_intern(ds, cell->string);
			r->leaderboard = dataset_intern(ds, lbname);
			ds_meta_outcome(&r->meta, cell);
			prov_read_json(&r->prov.src[src], cell);
			ds_board_verdict(r, jx_str(cell, "annotation_verdict"));
		}
	}
	ds_ranked_verdicts(ds, lb);
	board_roofline(bd);
	cJSON_Delete(lb);
}

static int ds_cmp_boards(const void *a, const void *b)
{
	return board_cmp_files(*(const char *const *)a, *(const char *const *)b);
}

/* Every leaderboard*.json of the dataset's folder, in board order. */
static void ds_load_leaderboards(struct dataset *ds, size_t *cap)
{
	struct dirlist top;
	dirlist_read(&top, ds->root);
	const char **files = xcalloc(top.n + 1, sizeof *files);
	size_t n = 0;
	for (size_t i = 0; i < top.n; i++)
		if (board_is_file(top.names[i]) && dirlist_has(&top, ds->root, top.names[i], 0))
			files[n++] = top.names[i];
	qsort(files, n, sizeof *files, ds_cmp_boards);
	ds->boards = xcalloc(n < BOARD_MAX ? n + 1 : BOARD_MAX, sizeof *ds->boards);
	for (size_t i = 0; i < n; i++)
		ds_load_leaderboard(ds, cap, files[i]);
	free(files);
	dirlist_free(&top);
}

static void ds_baseline(struct ds_baseline *b, const cJSON *o)
{
	b->ms = jx_num(o, "ms", -1);
	b->tflops = jx_num(o, "tflops", -1);
	b->gbps = jx_num(o, "gbps", -1);
}

/* One problem_baselines file; gpu: "h100" of problem_baselines.h100.json,
 * NULL for the main one. */
static void ds_load_baseline_file(struct dataset *ds, const char *file, const char *gpu)
{
	cJSON *bl = ds_read_json(ds, file);
	const cJSON *p;
	if (!bl)
		return;
	size_t n = (size_t)cJSON_GetArraySize(jx_get(bl, "problems"));
	ds->problems = xrealloc(ds->problems, (ds->nproblems + n + 1) * sizeof *ds->problems);
	cJSON_ArrayForEach(p, jx_get(bl, "problems")) {
		struct ds_problem *q;
		if (!p->string)
			continue;
		q = &ds->problems[ds->nproblems++];
		memset(q, 0, sizeof *q);
		q->name = xstrdup(p->string);
		q->gpu = xstrdup(gpu);
		ds_baseline(&q->eager, jx_get(p, "eager"));
		ds_baseline(&q->compiled, jx_get(p, "compiled"));
		ds_baseline(&q->sota, jx_get(p, "sota"));
		ds_baseline(&q->solution, jx_get(p, "solution"));
	}
	cJSON_Delete(bl);
}

/* problem_baselines.json first (the browser's reference rows found it
 * first before), then each GPU's. */
static void ds_load_baselines(struct dataset *ds)
{
	struct dirlist top;
	ds_load_baseline_file(ds, "problem_baselines.json", NULL);
	dirlist_read(&top, ds->root);
	for (size_t i = 0; i < top.n; i++) {
		const char *f = top.names[i];
		size_t pre = strlen("problem_baselines."), n = strlen(f);
		if (!util_starts_with(f, "problem_baselines.") || !util_ends_with(f, ".json") || n <= pre + 5 ||
		    !dirlist_has(&top, ds->root, f, 0))
			continue;
		char *gpu = xstrndup(f + pre, n - pre - 5);
		ds_load_baseline_file(ds, f, gpu);
		free(gpu);
	}
	dirlist_free(&top);
}

/* A verdict as the verdict cache keeps it: "V" and the verdict, "N" (no
 * verdict in the file), or "E" LINE ":" the error. */
static char *ds_verdict_text(const char *verdict, int line, const char *err)
{
	if (err)
		return xasprintf("E%d:%s", line, err);
	return verdict ? xasprintf("V%s", verdict) : xstrdup("N");
}

/* Run r's verdict from a cached text; 0 when the text is not one. */
static int ds_verdict_cached(struct dataset *ds, struct ds_run *r, const char *text)
{
	if (text[0] == 'V' || text[0] == 'N') {
		r->verdict = text[0] == 'V' ? xstrdup(text + 1) : NULL;
		return 1;
	}
	char *colon;
	long line = text[0] == 'E' ? strtol(text + 1, &colon, 10) : -1;
	if (line < 0 || *colon != ':')
		return 0;
	ds->annot_errors += ds->nerrors < RUN_MAX_ERRORS;
	ds_error(ds, r->annotation, (int)line, "%s", colon + 1);
	return 1;
}

/* Run r's verdict: from the cache while its file is the same file, else
 * read with libyaml (and kept). Reading 3,000 annotation files was most
 * of opening a big annotated dataset. Returns the file's mtime in ns (0:
 * not a regular file). */
static long long ds_read_verdict(struct dataset *ds, struct ds_run *r, struct idcache *cache,
                                 unsigned long long key)
{
	unsigned long long id[4] = { 0 };
	int known = idcache_identify(r->annotation, id) == 0;
	const char *text = known ? idcache_get(cache, r->annotation, id, key) : NULL;
	if (text && ds_verdict_cached(ds, r, text))
		return (long long)id[3];
	char *err = NULL;
	int line = 0;
	r->verdict = dataset_read_verdict(r->annotation, &line, &err);
	if (err) {
		ds->annot_errors += ds->nerrors < RUN_MAX_ERRORS;
		ds_error(ds, r->annotation, line, "%s", err);
	}
	unsigned long long now[4];
	/* kept for the file as it was read (unchanged while it was) */
	if (known && idcache_identify(r->annotation, now) == 0 && !memcmp(now, id, sizeof now)) {
		char *t = ds_verdict_text(r->verdict, line, err);
		idcache_put(cache, r->annotation, id, key, t);
		free(t);
	}
	free(err);
	return (long long)id[3];
}

static void ds_load_verdicts(struct dataset *ds, const struct ds_ctx *cx)
{
	struct idcache *cache = idcache_open("verdicts", ds->root);
	unsigned long long exe[2];
	idcache_exe(exe);   /* a new build may read YAML otherwise */
	unsigned long long key = idcache_fnv(IDCACHE_FNV0, exe, sizeof exe) | 1;
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *r = &ds->runs[i];
		/* "<id>.yaml" made without printf or malloc: it is once a run */
		size_t nid = strlen(r->meta.run_id);
		char buf[256], *name = nid + 6 <= sizeof buf ? buf : xmalloc(nid + 6);
		memcpy(name, r->meta.run_id, nid);
		memcpy(name + nid, ".yaml", 6);
		int own = 0;   /* the index names no other file: annotations/<id>.yaml is it */
		if (dirlist_has(&cx->annots, cx->annots_dir, name, 0)) {
			char *p = util_path_join(cx->annots_dir, name);
			if (!r->annotation) {
				r->annotation = p;
				own = 1;
			} else {
				r->annotation_mtime_ns = annot_mtime_ns(p);
				free(p);
			}
		}
		if (name != buf)
			free(name);
		if (r->annotation) {
			long long m = ds_read_verdict(ds, r, cache, key);
			if (own)
				r->annotation_mtime_ns = m;
		}
	}
	idcache_free(cache);
}

static struct dataset *ds_open(const char *dir, int verdicts, int lazy, char **err);

struct dataset *dataset_open(const char *dir, char **err)
{
	return ds_open(dir, 1, 0, err);
}

struct dataset *dataset_open_lazy(const char *dir, char **err)
{
	return ds_open(dir, 1, 1, err);
}

struct dataset *dataset_open_runs(const char *dir, char **err)
{
	return ds_open(dir, 0, 1, err);
}

static struct dataset *ds_open(const char *dir, int verdicts, int lazy, char **err)
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
	ds->root_fd = -1;
	struct ds_ctx cx = { .lazy = lazy };
	cx.runs_dir = util_path_join(dir, "runs");
	cx.annots_dir = util_path_join(dir, "annotations");
	if (verdicts)
		dirlist_read(&cx.annots, cx.annots_dir);
	index = util_path_join(dir, "runs.jsonl");
	if (ds_load_index(ds, &cx, &cap, index) < 0)
		ds_scan_runs(ds, &cx, &cap);
	free(index);
	ds_load_leaderboards(ds, &cap);
	ds_load_baselines(ds);
	if (verdicts)
		ds_load_verdicts(ds, &cx);
	dirlist_free(&cx.runs);
	dirlist_free(&cx.annots);
	free(cx.runs_dir);
	free(cx.annots_dir);
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

void dataset_details(struct dataset *ds, size_t i)
{
	struct ds_run *r = i < ds->nruns ? &ds->runs[i] : NULL;
	if (!r || !r->result_pending)
		return;
	ds_result_taken(ds, r);
	ds_read_result(ds, r, 0);
}

size_t dataset_details_step(struct dataset *ds, size_t n)
{
	for (; ds->details_left && n && ds->details_next < ds->nruns; ds->details_next++)
		if (ds->runs[ds->details_next].result_pending) {
			dataset_details(ds, ds->details_next);
			n--;
		}
	return ds->details_left;
}

void dataset_free(struct dataset *ds)
{
	if (!ds)
		return;
	if (ds->root_fd >= 0)
		close(ds->root_fd);
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *r = &ds->runs[i];
		free(r->meta.run_id);   /* (the names are the pool's) */
		free(r->meta.session_id);
		free(r->meta.cwd);
		free(r->dir);
		free(r->transcript);
		free(r->annotation);
		free(r->verdict);
		free(r->board_verdict);
		free(r->deck);
		free(r->load_error);
		run_free(r->run);
	}
	for (size_t i = 0; i < ds->nproblems; i++) {
		free(ds->problems[i].name);
		free(ds->problems[i].gpu);
	}
	for (size_t i = 0; i < ds->nboards; i++)
		board_free(&ds->boards[i]);
	free(ds->boards);
	for (int i = 0; i < ds->nerrors; i++)
		free(ds->error_files[i]);
	free(ds->problems);
	free(ds->runs);
	free(ds->find_slot);
	strpool_free(ds->strs);
	free(ds->hardware);
	free(ds->root);
	free(ds);
}

/* ---- boards and GPUs ---------------------------------------------------- */

const char *dataset_gpu(const struct dataset *ds, size_t i)
{
	unsigned m = ds->runs[i].boards;
	for (size_t b = 0; b < ds->nboards; b++)
		if ((m & (1u << b)) && ds->boards[b].gpu)
			return ds->boards[b].gpu;
	return NULL;
}

int dataset_gpu_split(const struct dataset *ds, size_t i)
{
	const char *first = NULL;
	unsigned m = ds->runs[i].boards;
	for (size_t b = 0; b < ds->nboards; b++) {
		const char *g = ds->boards[b].gpu;
		if (!(m & (1u << b)) || !g)
			continue;
		if (first && strcmp(first, g))
			return 1;
		first = g;
	}
	return 0;
}

const char *dataset_verdict(const struct ds_run *r, int *disagree)
{
	if (disagree)
		*disagree = r->board_verdict_split ||
		            (r->verdict && r->board_verdict && strcmp(r->verdict, r->board_verdict));
	return r->verdict ? r->verdict : r->board_verdict;
}

/* Board b is one the selection takes. */
static int ds_board_selected(const struct board *b, const struct ds_select *s)
{
	return (!s->board || board_matches(b, s->board)) && (!s->gpu || board_gpu_matches(b, s->gpu));
}

int dataset_select_check(const struct dataset *ds, const struct ds_select *s, char **err)
{
	if (!s || (!s->board && !s->gpu))
		return 0;
	for (size_t b = 0; b < ds->nboards; b++)
		if (ds_board_selected(&ds->boards[b], s))
			return 0;
	struct sbuf m;
	sbuf_init(&m);
	sbuf_addf(&m, "no board of %s is", ds->root);
	if (s->board)
		sbuf_addf(&m, " '%s'", s->board);
	if (s->gpu)
		sbuf_addf(&m, " on a GPU named like '%s'", s->gpu);
	sbuf_adds(&m, "; its boards:");
	for (size_t b = 0; b < ds->nboards; b++)
		sbuf_addf(&m, "%s %s (%s, %s)", b ? "," : "", ds->boards[b].id, ds->boards[b].file,
		          ds->boards[b].gpu ? ds->boards[b].gpu : "GPU unsaid");
	if (!ds->nboards)
		sbuf_adds(&m, " none");
	*err = sbuf_detach(&m);
	return -1;
}

int dataset_selected(const struct dataset *ds, size_t i, const struct ds_select *s)
{
	if (!s || (!s->board && !s->gpu))
		return 1;
	unsigned m = ds->runs[i].boards;
	for (size_t b = 0; b < ds->nboards; b++)
		if ((m & (1u << b)) && ds_board_selected(&ds->boards[b], s))
			return 1;
	return 0;
}

size_t dataset_board_hacks(const struct dataset *ds, size_t b)
{
	size_t n = 0;
	for (size_t i = 0; i < ds->nruns; i++)
		if ((ds->runs[i].boards & (1u << b)) && ds->runs[i].verdict && !strcmp(ds->runs[i].verdict, "reward_hack"))
			n++;
	return n;
}

char *dataset_rundetail(const struct dataset *ds, size_t i)
{
	return rundetail_path(ds->runs[i].dir, ds->root, ds->runs[i].meta.run_id);
}

/* "v2.h100" -> "h100": the GPU part of a board id, NULL for the main GPU. */
static const char *ds_board_gpu_part(const struct board *b)
{
	const char *dot = b ? strrchr(b->id, '.') : NULL;
	if (dot)
		return dot + 1;
	return b && (!strcmp(b->id, "h100") || !strcmp(b->id, "b200")) ? b->id : NULL;
}

const struct ds_problem *dataset_baseline(const struct dataset *ds, const char *name, const struct board *b)
{
	const char *gpu = ds_board_gpu_part(b);
	const struct ds_problem *main = NULL;
	for (size_t i = 0; name && i < ds->nproblems; i++) {
		const struct ds_problem *p = &ds->problems[i];
		if (strcmp(p->name, name))
			continue;
		if (gpu && p->gpu && !strcmp(gpu, p->gpu))
			return p;
		if (!p->gpu && !main)
			main = p;
	}
	return gpu ? NULL : main;
}

/* The transcript must resolve inside the dataset even through symlinks. */
static int ds_inside(const struct dataset *ds, const char *path)
{
	struct dataset *w = (struct dataset *)ds;  /* the fd is a cache: opened at the first question */
	if (w->root_fd < 0)
		w->root_fd = util_dir_fd(ds->root);
	return util_path_inside_at(w->root_fd, ds->root, path);
}

int dataset_transcript_inside(const struct dataset *ds, size_t i)
{
	return ds->runs[i].transcript && ds_inside(ds, ds->runs[i].transcript);
}

/* Whether run i can be read; load_error says why not. */
static int ds_loadable(struct dataset *ds, size_t i)
{
	struct ds_run *r = &ds->runs[i];
	if (r->run || r->load_error)
		return 0;
	dataset_details(ds, i);  /* the replay's banner says where the files disagree */
	if (!r->transcript) {
		r->load_error = xasprintf("%s: no transcript in this dataset%s", r->meta.run_id,
		                          r->held_out ? " (held out)" : "");
		return 0;
	}
	if (!ds_inside(ds, r->transcript)) {
		r->load_error = xasprintf("%s: missing, or resolves outside the dataset", r->transcript);
		return 0;
	}
	return 1;
}

int dataset_loadable(struct dataset *ds, size_t i)
{
	struct ds_run *r = &ds->runs[i];
	if (r->run)
		return 1;
	return !r->load_error && ds_loadable(ds, i);
}

/* The index's metadata onto a run read from its transcript: it is what
 * the leaderboard shows, so it wins. */
static void ds_meta_onto(struct ds_run *r, struct run *run)
{
	struct run_meta *m = &run->meta;
#define DS_COPY(f) do { if (r->meta.f) { free(m->f); m->f = xstrdup(r->meta.f); } } while (0)
	DS_COPY(run_id);
	DS_COPY(harness);
	DS_COPY(model);
	DS_COPY(effort);
	DS_COPY(problem);
	DS_COPY(label);
#undef DS_COPY
}

/* The format runs.jsonl names; NULL (content decides) when it names none
 * we know. */
static const struct parser_ops *ds_forced(const struct ds_run *r)
{
	return r->meta.format ? parser_find(r->meta.format) : NULL;
}

struct parser_loader *dataset_loader(struct dataset *ds, size_t i)
{
	struct ds_run *r = &ds->runs[i];
	char *err = NULL;
	if (!ds_loadable(ds, i))
		return NULL;
	struct parser_loader *l = parser_loader_open(r->transcript, ds_forced(r), &err);
	if (!l)
		r->load_error = err;
	else
		ds_meta_onto(r, parser_loader_run(l));  /* the header's names while it is read */
	return l;
}

struct run *dataset_adopt(struct dataset *ds, size_t i, struct run *run)
{
	struct ds_run *r = &ds->runs[i];
	r->run = run;
	ds_meta_onto(r, run);
	struct run_meta *m = &run->meta;
	/* no index (or one that names neither): the transcript says them */
	if (!r->meta.harness && r->run->meta.format) {
		const struct parser_ops *ops = parser_find(r->run->meta.format);
		if (ops && ops->harness)
			r->meta.harness = dataset_intern(ds, ops->harness);
	}
	if (!r->meta.model && m->model)
		r->meta.model = dataset_intern(ds, m->model);
	run_meta_outcome(m, &r->meta);
	/* the transcript states one thing: whether it ends with the marker */
	prov_set(&r->prov.src[PROV_TRANSCRIPT], PROV_COMPLETE, !r->run->incomplete);
	free(r->run->prov);
	r->run->prov = xmalloc(sizeof *r->run->prov);
	*r->run->prov = r->prov;
	return r->run;
}

struct run *dataset_load(struct dataset *ds, size_t i)
{
	struct ds_run *r = &ds->runs[i];
	if (r->run || r->load_error)
		return r->run;
	if (!ds_loadable(ds, i))
		return NULL;
	char *err = NULL;
	/* runs.jsonl names the format; trust content when it names none we know */
	struct run *run = parser_load_final(r->transcript, ds_forced(r), &err);
	if (!run) {
		r->load_error = err;
		return NULL;
	}
	return dataset_adopt(ds, i, run);
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
	if (!path || !util_is_file(path))
		return;
	r->annotation = xstrdup(path);
	r->verdict = dataset_read_verdict(path, NULL, NULL);
}
