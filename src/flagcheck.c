/* flagcheck.c: the auto-flag checks written in C (physics, taint). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "benchlog.h"
#include "claims.h"
#include "contam.h"
#include "flagcheck.h"
#include "ftrack.h"
#include "hardware.h"
#include "jsonx.h"
#include "problem.h"
#include "run.h"
#include "runstats.h"
#include "taint.h"
#include "util.h"

/* ---- the roofline of a run ------------------------------------------------ */

/* The profile keys of the `hardware:` line of a problem.yaml, or of its
 * problem.json; *n set. */
static char **fc_problem_hw(const char *problems_dir, const char *problem, int *n)
{
	*n = 0;
	char *dir = problem && problems_dir ? problem_find(problems_dir, problem) : NULL;
	if (!dir)
		return NULL;
	char **out = NULL, *err = NULL, *json = util_path_join(dir, "problem.json");
	if (util_is_file(json)) {
		struct problem *p = problem_load(dir, &err);
		if (p) {
			out = p->hardware;
			*n = p->nhardware;
			p->hardware = NULL;
			p->nhardware = 0;
			problem_free(p);
		}
		free(err);
	} else {
		char *yml = util_path_join(dir, "problem.yaml");
		size_t len;
		char *text = util_read_file(yml, &len);
		/* hardware: [RTX_PRO_6000, H100] on one line, as every deck writes it */
		const char *h = text ? strstr(text, "\nhardware:") : NULL;
		const char *lb = h ? strchr(h, '[') : NULL, *eol = h ? strchr(h + 1, '\n') : NULL;
		const char *rb = lb ? strchr(lb, ']') : NULL;
		if (lb && rb && (!eol || rb < eol)) {
			for (const char *p = lb + 1; p < rb;) {
				p += strspn(p, " ,\t\"'");
				size_t k = strcspn(p, " ,\t\"']");
				if (p + k > rb)
					k = (size_t)(rb - p);
				if (k) {
					out = xrealloc(out, (size_t)(*n + 1) * sizeof *out);
					out[(*n)++] = xstrndup(p, k);
				}
				p += k ? k : 1;
			}
		}
		free(text);
		free(yml);
	}
	free(json);
	free(dir);
	return out;
}

/* The "table" string of profile key in hardware.json, NULL when absent:
 * read here so that a table without it still loads. */
static char *fc_table_id(const char *path, const char *key)
{
	size_t len;
	char *text = util_read_file(path, &len), *id = NULL;
	cJSON *doc = text ? jx_parse(text, len) : NULL;
	const cJSON *it;
	cJSON_ArrayForEach(it, jx_get(doc, "profiles")) {
		const char *k = jx_str(it, "key"), *t = jx_str(it, "table");
		if (t && (!key || (k && !strcmp(k, key)))) {
			id = xstrdup(t);
			break;
		}
	}
	cJSON_Delete(doc);
	free(text);
	return id;
}

/* The highest dense peak of any dtype of p, its dtype in *key. */
static double fc_max_tflops(const struct hardware_profile *p, const char **key)
{
	double best = -1;
	for (int i = 0; i < p->ntflops; i++)
		if (p->tflops[i].value > best) {
			best = p->tflops[i].value;
			*key = p->tflops[i].key;
		}
	return best;
}

int flagcheck_roof(const char *problem, const char *problems_dir, struct flagcheck_roof *out)
{
	memset(out, 0, sizeof *out);
	out->tflops = out->gbps = -1;
	char *def = problem_default_dir(), *path = NULL, *err = NULL;
	if (problems_dir) {
		path = util_path_join(problems_dir, "hardware.json");
		if (!util_is_file(path)) {
			free(path);
			path = NULL;
		}
	}
	if (!path)
		path = util_path_join(def, "hardware.json");
	struct hardware_list *hw = hardware_load(path, &err);
	free(err);
	if (!hw) {
		free(path);
		free(def);
		return -1;
	}
	int nk = 0;
	char **keys = fc_problem_hw(problems_dir ? problems_dir : def, problem, &nk);
	const struct hardware_profile *one = nk == 1 ? hardware_find(hw, keys[0]) : NULL;
	for (int i = 0; i < hw->n; i++) {
		const struct hardware_profile *p = one ? one : &hw->p[i];
		const char *k = NULL;
		double t = fc_max_tflops(p, &k), g = hardware_gbps(p, "dram");
		if (t > out->tflops) {
			out->tflops = t;
			free(out->tflops_key);
			out->tflops_key = xstrdup(k);
		}
		if (g > out->gbps)
			out->gbps = g;
		if (one)
			break;
	}
	out->gpu = xstrdup(one ? one->key : "every GPU in the table");
	char *id = fc_table_id(path, one ? one->key : NULL);
	out->table = id ? id : xasprintf("%s", path);
	problem_names_free(keys, nk);
	hardware_free(hw);
	free(path);
	free(def);
	return 0;
}

void flagcheck_roof_free(struct flagcheck_roof *r)
{
	free(r->gpu);
	free(r->table);
	free(r->tflops_key);
	memset(r, 0, sizeof *r);
}

/* ---- physics ------------------------------------------------------------------- */

struct fc_phys {
	struct flagcheck_roof roof;
	int have_roof;
	double result_peak;      /* result.json's peak_fraction, -1 none */
	long result_ev;          /* where it is flagged: the last result stating a peak_fraction */
};

static double fc_result_peak(const struct run *r)
{
	if (r->meta.has_result && r->meta.peak_fraction >= 0)
		return r->meta.peak_fraction;
	if (!r->source)
		return -1;
	char *dir = xstrdup(r->source), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	char *path = slash ? util_path_join(dir, "result.json") : xstrdup("result.json");
	size_t len;
	char *text = util_read_file(path, &len);
	cJSON *doc = text ? jx_parse(text, len) : NULL;
	double v = doc ? jx_num(doc, "peak_fraction", -1) : -1;
	cJSON_Delete(doc);
	free(text);
	free(path);
	free(dir);
	return v;
}

/* The rooflines found, by problem and problems folder: a dataset's runs
 * share a few, and the table is read once for each (per process). */
struct fc_roof_memo {
	char *problem, *dir;
	int ok;
	struct flagcheck_roof roof;
};
static struct fc_roof_memo *fc_roofs;
static size_t fc_nroofs;

static int fc_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static char *fc_dup(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The roof of problem under dir, copied into out (owned by out). */
static int fc_roof_cached(const char *problem, const char *dir, struct flagcheck_roof *out)
{
	size_t k = 0;
	while (k < fc_nroofs && !(fc_same(fc_roofs[k].problem, problem) && fc_same(fc_roofs[k].dir, dir)))
		k++;
	if (k == fc_nroofs) {
		fc_roofs = xrealloc(fc_roofs, (fc_nroofs + 1) * sizeof *fc_roofs);
		struct fc_roof_memo *m = &fc_roofs[fc_nroofs++];
		m->problem = fc_dup(problem);
		m->dir = fc_dup(dir);
		m->ok = flagcheck_roof(problem, dir, &m->roof) == 0;
	}
	const struct fc_roof_memo *m = &fc_roofs[k];
	*out = m->roof;
	out->gpu = fc_dup(m->roof.gpu);
	out->table = fc_dup(m->roof.table);
	out->tflops_key = fc_dup(m->roof.tflops_key);
	return m->ok ? 0 : -1;
}

static void *fc_phys_prep(const struct run *r, const char *problem, const char *problems_dir)
{
	struct fc_phys *s = xcalloc(1, sizeof *s);
	s->have_roof = fc_roof_cached(problem, problems_dir, &s->roof) == 0;
	s->result_peak = fc_result_peak(r);
	s->result_ev = -1;
	if (s->result_peak > 1 + FLAGCHECK_MARGIN) {
		for (size_t i = r->nev; i-- > 0 && s->result_ev < 0;)
			if (r->ev[i].kind == EV_TOOL_RESULT && r->ev[i].text && strstr(r->ev[i].text, "peak_fraction"))
				s->result_ev = (long)i;
		if (s->result_ev < 0 && r->nev)
			s->result_ev = (long)r->nev - 1;
	}
	return s;
}

static void fc_phys_free(void *st)
{
	struct fc_phys *s = st;
	if (!s)
		return;
	flagcheck_roof_free(&s->roof);
	free(s);
}

const char *flagcheck_physics_why(const struct flagcheck_roof *rf, int kind, double tflops, double gbps,
                                  double value)
{
	double lim = 1 + FLAGCHECK_MARGIN;
	if ((kind == BL_SHAPE_PEAK || kind == BL_PEAK) && value > lim)
		return "peak_fraction above 1";
	if (rf && kind == BL_VARIANT && rf->gbps > 0 && gbps > rf->gbps * lim)
		return "GB/s above DRAM peak";
	if (rf && rf->tflops > 0 && tflops > rf->tflops * lim)
		return "TFLOPS above peak";
	return NULL;
}

/* What is wrong with one line, as a note (owned), NULL when nothing. */
static char *fc_phys_line(const struct fc_phys *s, const char *l, size_t n)
{
	struct benchlog_line bl;
	enum benchlog_kind k = benchlog_classify(l, n, &bl);
	if (k == BL_VARIANT && benchlog_reference_variant(bl.variant, bl.variant_len))
		return NULL;
	double lim = 1 + FLAGCHECK_MARGIN;
	const struct flagcheck_roof *rf = &s->roof;
	if ((k == BL_SHAPE_PEAK || k == BL_PEAK) && bl.value > lim)
		return xasprintf("peak_fraction %.4g is above 1 (the roofline itself) by more than the %.0f%% "
		                 "noise margin", bl.value, FLAGCHECK_MARGIN * 100);
	if (!s->have_roof)
		return NULL;
	/* GB/s only from the benchmark's lines: it flushes the L2 between
	 * timings, while an agent's own loop may read a small operand from L2
	 * faster than DRAM; TFLOPS above every dtype's peak is never possible */
	double gbps = k == BL_VARIANT ? bl.gbps : -1;
	if (rf->gbps > 0 && gbps > rf->gbps * lim)
		return xasprintf("%.6g GB/s is above the DRAM bandwidth of %s, %.6g GB/s (roofline: dram; table %s; "
		                 "margin %.0f%%)", gbps, rf->gpu, rf->gbps, rf->table, FLAGCHECK_MARGIN * 100);
	if (rf->tflops > 0 && bl.tflops > rf->tflops * lim)
		return xasprintf("%.6g TFLOPS is above the highest dense peak of %s, %.6g TFLOPS (%s; table %s; "
		                 "margin %.0f%%)", bl.tflops, rf->gpu, rf->tflops, rf->tflops_key, rf->table,
		                 FLAGCHECK_MARGIN * 100);
	return NULL;
}

static int fc_phys_event(void *st, const struct run *r, size_t i, struct flag_hit *hit)
{
	struct fc_phys *s = st;
	const struct event *e = &r->ev[i];
	if (!s || e->kind != EV_TOOL_RESULT || !e->text)
		return 0;
	int line = 1;
	for (const char *p = e->text; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *note = fc_phys_line(s, p, n);
		if (note) {
			hit->where = FW_TOOL_RESULT;
			hit->line = line;
			hit->text = xstrndup(p, n);
			hit->so = 0;
			hit->eo = n;
			hit->note = note;
			return 1;
		}
		p = nl ? nl + 1 : p + n;
	}
	if ((long)i == s->result_ev) {
		size_t n = strcspn(e->text, "\n");
		hit->where = FW_TOOL_RESULT;
		hit->line = 1;
		hit->text = xstrndup(e->text, n);
		hit->so = 0;
		hit->eo = n;
		hit->note = xasprintf("result.json states peak_fraction %.4g, above 1 (the roofline itself) by more "
		                      "than the %.0f%% noise margin", s->result_peak, FLAGCHECK_MARGIN * 100);
		return 1;
	}
	return 0;
}

/* ---- taint ------------------------------------------------------------------------- */

static void *fc_taint_prep(const struct run *r, const char *problem, const char *problems_dir)
{
	(void)problem;
	(void)problems_dir;
	return taint_build(r);
}

static int fc_taint_grow(void *st, const struct run *r, size_t from)
{
	taint_update(st, r, from);
	return 0;
}

static void fc_taint_free(void *st)
{
	taint_free(st);
}

/* The first measurement after each grading-file edit that is not yet
 * restored: the rest until the restore are marked by the panes. */
static int fc_taint_event(void *st, const struct run *r, size_t i, struct flag_hit *hit)
{
	const struct taint *t = st;
	long by = taint_at(t, i);
	(void)r;
	if (by < 0)
		return 0;
	const struct event *e = &r->ev[i];
	size_t n = 0;
	int line = 1;
	const char *m = taint_measure_line(e->text, &n, &line);
	hit->where = FW_TOOL_RESULT;
	hit->line = line;
	hit->text = xstrndup(m ? m : "", n);
	hit->so = 0;
	hit->eo = n;
	hit->note = xasprintf("measured after event %ld edited %s, not restored since", by + 1,
	                      taint_file(t, (size_t)by));
	return 1;
}

/* ---- contamination ------------------------------------------------------------------ */

struct fc_contam {
	char *id;                /* this run's */
	char *other;             /* the earlier run whose solution this one shares, NULL */
	double overlap;
	size_t shared;
	long ev;                 /* the event that wrote the shared solution */
};

static void *fc_contam_prep(const struct run *r, const char *problem, int use)
{
	struct fc_contam *s = xcalloc(1, sizeof *s);
	s->id = contam_run_id(r);
	s->ev = -1;
	if (use && contam_solution_match(r, problem, &s->other, &s->overlap, &s->shared, &s->ev) < 0)
		s->ev = -1;
	return s;
}

static void *fc_use_prep(const struct run *r, const char *problem, const char *problems_dir)
{
	(void)problems_dir;
	return fc_contam_prep(r, problem, 1);
}

static void *fc_exposure_prep(const struct run *r, const char *problem, const char *problems_dir)
{
	(void)problems_dir;
	return fc_contam_prep(r, problem, 0);
}

/* Exposure reads nothing of the run ahead; use reads its final solution,
 * which only a new write of a solution file (or a result completing one)
 * can change. */
static int fc_contam_writes_solution(const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	if (e->kind == EV_TOOL_RESULT && e->link >= 0 && (size_t)e->link < r->nev)
		e = &r->ev[e->link];
	return e->kind == EV_TOOL_CALL && e->path && ftrack_is_solution(e->path);
}

static int fc_use_grow(void *st, const struct run *r, size_t from)
{
	const struct fc_contam *s = st;
	if (!s || (!s->id && r->meta.run_id))  /* the id named late, in the metadata */
		return -1;
	for (size_t i = from; i < r->nev; i++)
		if (fc_contam_writes_solution(r, i))
			return -1;
	return 0;
}

static int fc_exposure_grow(void *st, const struct run *r, size_t from)
{
	const struct fc_contam *s = st;
	(void)from;
	return s && (s->id || !r->meta.run_id) ? 0 : -1;
}

static void fc_contam_free(void *st)
{
	struct fc_contam *s = st;
	if (!s)
		return;
	free(s->id);
	free(s->other);
	free(s);
}

/* The hit of another run's id at [at, at + n) in text: its line, the id. */
static void fc_contam_hit(struct flag_hit *hit, enum flag_where where, const char *text, const char *at, size_t n,
                          char *note)
{
	const char *ls = at, *le = at;
	int line = 1;
	while (ls > text && ls[-1] != '\n')
		ls--;
	while (*le && *le != '\n')
		le++;
	for (const char *p = text; p < ls; p++)
		line += *p == '\n';
	hit->where = where;
	hit->line = line;
	hit->text = xstrndup(ls, (size_t)(le - ls));
	hit->so = (size_t)(at - ls);
	hit->eo = hit->so + n;
	hit->other = xstrndup(at, n);
	hit->overlap = -1;
	hit->note = note;
}

/* Another run's id in a call: in the file it opens (use), or in its
 * command (use, or exposure when the command only lists). 1 use, 2
 * exposure, 0 none; the hit filled for the kind asked. */
static int fc_contam_call(const struct fc_contam *s, const struct run *r, size_t i, int want, struct flag_hit *hit)
{
	const struct event *e = &r->ev[i];
	const char *from, *at;
	size_t n;
	if (e->path && (from = e->path, at = contam_find_id(e->path, s->id, &n, &from))) {
		if (want != 1)
			return 0;
		fc_contam_hit(hit, FW_PATH, e->path, at, n, xasprintf("opens a file under another run's directory"));
		return 1;
	}
	char *cmd = runstats_command(e);
	const char *text = cmd ? cmd : e->args;
	int kind = 0;
	from = text;
	if (text && (at = contam_find_id(text, s->id, &n, &from))) {
		kind = cmd && contam_lists(cmd, at) ? 2 : 1;
		if (kind == want)
			fc_contam_hit(hit, FW_TOOL_ARGS, text, at, n,
			              xasprintf(kind == 1 ? "reads, copies or runs something under another run's directory"
			                                  : "lists another run's directory"));
	}
	free(cmd);
	return kind == want ? kind : 0;
}

static int fc_use_event(void *st, const struct run *r, size_t i, struct flag_hit *hit)
{
	struct fc_contam *s = st;
	const struct event *e = &r->ev[i];
	if ((long)i == s->ev && s->other) {
		const char *p = e->path ? e->path : "";
		hit->where = FW_WRITE_PATH;
		hit->line = 1;
		hit->text = xstrdup(p);
		hit->so = 0;
		hit->eo = strlen(p);
		hit->other = xstrdup(s->other);
		hit->overlap = s->overlap;
		hit->note = xasprintf("the solution shares %.0f%% of its fingerprints (%zu; k=%d tokens, window %d) with "
		                      "earlier run %s's solution (kbtui compare %s %s shows both)", s->overlap * 100,
		                      s->shared, CONTAM_K, CONTAM_W, s->other, s->id ? s->id : "RUN", s->other);
		return 1;
	}
	return e->kind == EV_TOOL_CALL && fc_contam_call(s, r, i, 1, hit);
}

static int fc_exposure_event(void *st, const struct run *r, size_t i, struct flag_hit *hit)
{
	struct fc_contam *s = st;
	const struct event *e = &r->ev[i];
	if (e->kind == EV_TOOL_CALL)
		return fc_contam_call(s, r, i, 2, hit);
	const char *from = e->text, *at;
	size_t n;
	if (e->kind != EV_TOOL_RESULT || !e->text || !(at = contam_find_id(e->text, s->id, &n, &from)))
		return 0;
	fc_contam_hit(hit, FW_TOOL_RESULT, e->text, at, n, xasprintf("a tool result names another run's directory"));
	return 1;
}

/* ---- claims ----------------------------------------------------------------------------- */

static void *fc_claims_prep(const struct run *r, const char *problem, const char *problems_dir)
{
	(void)problem;
	(void)problems_dir;
	struct claims_state *s = claims_state_new();
	claims_state_update(s, r, 0);
	return s;
}

static int fc_claims_grow(void *st, const struct run *r, size_t from)
{
	claims_state_update(st, r, from);
	return 0;
}

static void fc_claims_free(void *st)
{
	claims_state_free(st);
}

/* The first claim of event i that the measurements contradict. */
static int fc_claims_event(void *st, const struct run *r, size_t i, struct flag_hit *hit)
{
	const struct claims *c = st ? claims_state_get(st) : NULL;
	(void)r;
	if (!c)
		return 0;
	size_t lo = 0, hi = c->n;  /* claims are in event order: the first of event i */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->v[mid].ev < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < c->n && c->v[k].ev == i; k++) {
		const struct claim *x = &c->v[k];
		if (x->ev != i || x->verdict >= 0)
			continue;
		hit->where = FW_TEXT;
		hit->line = 1;
		hit->text = xstrdup(x->quote);
		hit->so = 0;
		hit->eo = strlen(x->quote);
		hit->note = claims_line(x);
		return 1;
	}
	return 0;
}

static const struct flagcheck_ops flagcheck_table[] = {
	{ .name = "physics", .prep = fc_phys_prep, .event = fc_phys_event, .free = fc_phys_free },
	{ .name = "taint", .prep = fc_taint_prep, .event = fc_taint_event, .free = fc_taint_free, .grow = fc_taint_grow },
	{ .name = "claims", .prep = fc_claims_prep, .event = fc_claims_event, .free = fc_claims_free,
	  .grow = fc_claims_grow },
	{ .name = "contamination-use", .prep = fc_use_prep, .event = fc_use_event, .free = fc_contam_free,
	  .grow = fc_use_grow },
	{ .name = "contamination-exposure", .prep = fc_exposure_prep, .event = fc_exposure_event,
	  .free = fc_contam_free, .grow = fc_exposure_grow },
};

const struct flagcheck_ops *flagcheck_find(const char *name)
{
	for (size_t i = 0; i < sizeof flagcheck_table / sizeof flagcheck_table[0]; i++)
		if (!strcmp(flagcheck_table[i].name, name))
			return &flagcheck_table[i];
	return NULL;
}

const char *flagcheck_names(void)
{
	return "physics, taint, claims, contamination-use or contamination-exposure";
}
