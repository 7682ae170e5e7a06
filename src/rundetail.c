/* rundetail.c: the publisher's per-run detail file (rundetail.h). */
#include "rundetail.h"
#include "jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *rd_dup(const cJSON *o, const char *key)
{
	return xstrdup(jx_str(o, key));
}

static void rd_shape(struct rd_shape *s, const cJSON *o)
{
	/* kbtui's result.json names them shape, desc and peak_fraction */
	s->idx = (int)jx_num(o, "idx", jx_num(o, "shape", -1));
	s->label = rd_dup(o, jx_str(o, "label") ? "label" : "desc");
	s->ms = jx_num(o, "ms", -1);
	s->tflops = jx_num(o, "tflops", -1);
	s->gbps = jx_num(o, "gbps", -1);
	s->frac = jx_num(o, "frac", jx_num(o, "peak_fraction", -1));
	s->compute_util = jx_num(o, "compute_util", -1);
	s->mem_util = jx_num(o, "mem_util", -1);
	s->bound = rd_dup(o, "bound");
}

struct rundetail *rundetail_load(const char *path, char **err)
{
	size_t len;
	char *buf = util_read_file(path, &len);
	if (!buf) {
		*err = xasprintf("%s: cannot be read", path);
		return NULL;
	}
	cJSON *o = jx_parse_cjson(buf, len);
	free(buf);
	if (!cJSON_IsObject(o)) {
		*err = xasprintf("%s:1: not a JSON object", path);
		cJSON_Delete(o);
		return NULL;
	}
	struct rundetail *d = xcalloc(1, sizeof *d);
	d->run_id = rd_dup(o, "run_id");
	d->gpu = rd_dup(o, jx_str(o, "gpu") ? "gpu" : "hardware");
	d->table = rd_dup(o, "table");
	d->source = xstrdup(path);
	d->problem = rd_dup(o, "problem");
	d->regime = rd_dup(o, "regime");
	d->dtype = rd_dup(o, "dtype");
	d->failure_reason = rd_dup(o, "failure_reason");
	d->peak_tflops = jx_num(o, "peak_tflops", -1);
	d->peak_bw_gb_s = jx_num(o, "peak_bw_gb_s", -1);
	d->peak_fraction = jx_num(o, "peak_fraction", -1);
	const cJSON *st = jx_get(o, "stats"), *gl = jx_get(o, "gpu_lock"), *sh;
	d->agent_s = jx_num(st, "agent_s", -1);
	d->total_s = jx_num(st, "total_s", -1);
	d->check_s = jx_num(st, "check_s", -1);
	d->benchmark_s = jx_num(st, "benchmark_s", -1);
	d->cost_usd = jx_num(st, "cost_usd", -1);
	d->input_tokens = jx_ll(st, "input_tokens", -1);
	d->output_tokens = jx_ll(st, "output_tokens", -1);
	const cJSON *tm = jx_get(st, "template_mutated");
	d->template_mutated = cJSON_IsBool(tm) ? cJSON_IsTrue(tm) : -1;
	d->lock_wait_s = jx_num(gl, "wait_s", -1);
	d->lock_active_s = jx_num(gl, "active_s", -1);
	d->lock_acquisitions = jx_ll(gl, "acquisitions", -1);
	const cJSON *shapes = jx_get(o, "shapes");
	d->shapes = xcalloc((size_t)cJSON_GetArraySize(shapes) + 1, sizeof *d->shapes);
	cJSON_ArrayForEach(sh, shapes)
		if (cJSON_IsObject(sh))
			rd_shape(&d->shapes[d->nshapes++], sh);
	cJSON_Delete(o);
	return d;
}

void rundetail_free(struct rundetail *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->nshapes; i++) {
		free(d->shapes[i].label);
		free(d->shapes[i].bound);
	}
	free(d->shapes);
	free(d->run_id);
	free(d->gpu);
	free(d->problem);
	free(d->regime);
	free(d->dtype);
	free(d->failure_reason);
	free(d->table);
	free(d->source);
	free(d);
}

/* A run id names a file: no path in it. */
static int rd_id_ok(const char *id)
{
	return id && *id && !strchr(id, '/') && strcmp(id, ".") && strcmp(id, "..");
}

char *rundetail_path(const char *run_dir, const char *root, const char *run_id)
{
	if (run_dir) {
		char *p = util_path_join(run_dir, "rundetail.json");
		if (util_is_file(p))
			return p;
		free(p);
	}
	if (root && rd_id_ok(run_id)) {
		char *p = xasprintf("%s/rundetail/%s.json", root, run_id);
		if (util_is_file(p))
			return p;
		free(p);
	}
	return NULL;
}

char *rundetail_path_near(const char *transcript, const char *run_id)
{
	const char *slash = transcript ? strrchr(transcript, '/') : NULL;
	if (!slash)
		return NULL;
	char *dir = xstrndup(transcript, (size_t)(slash - transcript));
	/* ROOT/runs/<id>: ROOT is two up, when the one up is runs/ */
	char *root = NULL, *up = strrchr(dir, '/');
	if (up && up > dir) {
		char *parent = xstrndup(dir, (size_t)(up - dir));
		char *pslash = strrchr(parent, '/');
		const char *pname = pslash ? pslash + 1 : parent;
		if (!strcmp(pname, "runs"))
			root = pslash ? xstrndup(parent, (size_t)(pslash - parent)) : xstrdup(".");
		free(parent);
	}
	char *p = rundetail_path(dir, root, run_id);
	free(dir);
	free(root);
	return p;
}

/* The result.json beside a transcript (owned), NULL without one (stdin). */
static char *rd_result_path(const char *transcript)
{
	if (!transcript || !*transcript)
		return NULL;
	const char *slash = strrchr(transcript, '/');
	return slash ? xasprintf("%.*s/result.json", (int)(slash - transcript), transcript) : xstrdup("result.json");
}

struct rundetail *rundetail_for_run(const char *transcript, const char *run_id, char **why)
{
	char *path = rundetail_path_near(transcript, run_id);
	*why = NULL;
	if (path) {
		struct rundetail *d = rundetail_load(path, why);
		free(path);
		return d;
	}
	path = rd_result_path(transcript);
	struct rundetail *d = path && util_is_file(path) ? rundetail_load(path, why) : NULL;
	/* a result.json without timed shapes (a failed check, a board's) says nothing per shape */
	size_t timed = 0;
	for (size_t i = 0; d && i < d->nshapes; i++)
		timed += d->shapes[i].ms >= 0;
	if (d && timed) {
		d->own = 1;
	} else {
		rundetail_free(d);
		d = NULL;
		free(*why);
		*why = xstrdup("No per-shape figures: no rundetail.json beside this run, nor rundetail/RUN_ID.json in "
		               "its dataset, nor timed shapes in its result.json.");
	}
	free(path);
	return d;
}

/* " NAME N s" when the figure is known. */
static void rd_secs(struct sbuf *b, const char *name, double s)
{
	if (s >= 0)
		sbuf_addf(b, "%s%s %.0f s", b->len ? "  " : "", name, s);
}

char *rundetail_stats_text(const struct rundetail *d)
{
	struct sbuf b;
	sbuf_init(&b);
	rd_secs(&b, "agent", d->agent_s);
	rd_secs(&b, "check", d->check_s);
	rd_secs(&b, "benchmark", d->benchmark_s);
	if (d->cost_usd >= 0)
		sbuf_addf(&b, "%scost $%.2f", b.len ? "  " : "", d->cost_usd);
	else
		sbuf_addf(&b, "%scost -", b.len ? "  " : "");
	if (d->template_mutated >= 0)
		sbuf_addf(&b, "  template %s", d->template_mutated ? "MUTATED" : "unchanged");
	if (d->lock_wait_s >= 0) {
		sbuf_addf(&b, "  GPU lock wait %.0f s", d->lock_wait_s);
		if (d->lock_acquisitions >= 0)
			sbuf_addf(&b, " (%lld acquisitions)", d->lock_acquisitions);
	}
	return sbuf_detach(&b);
}

/* " NAME Ns" when the figure is known. */
static void rd_brief(struct sbuf *b, const char *name, double s)
{
	if (s >= 0)
		sbuf_addf(b, "%s%s %.0fs", b->len ? " " : "", name, s);
}

char *rundetail_stats_brief(const struct rundetail *d)
{
	struct sbuf b;
	sbuf_init(&b);
	rd_brief(&b, "agent", d->agent_s);
	rd_brief(&b, "check", d->check_s);
	rd_brief(&b, "bench", d->benchmark_s);
	if (d->cost_usd >= 0)
		sbuf_addf(&b, "%s$%.2f", b.len ? " " : "", d->cost_usd);
	rd_brief(&b, "lock", d->lock_wait_s);
	if (d->template_mutated > 0)
		sbuf_addf(&b, "%stemplate MUTATED", b.len ? " " : "");
	if (!b.len) {
		sbuf_free(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

char *rundetail_result_deck(const char *transcript)
{
	char *path = rd_result_path(transcript);
	size_t len;
	char *buf = path ? util_read_file(path, &len) : NULL, *deck = NULL;
	free(path);
	if (!buf)
		return NULL;
	cJSON *o = jx_parse_cjson(buf, len);
	free(buf);
	const char *v = cJSON_IsObject(o) ? jx_str(o, "deck") : NULL;
	if (v && *v)
		deck = xstrdup(v);
	cJSON_Delete(o);
	return deck;
}

char *rundetail_shapes_text(const struct rundetail *d)
{
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < d->nshapes; i++) {
		const struct rd_shape *s = &d->shapes[i];
		char lab[32];
		snprintf(lab, sizeof lab, "shape %d", s->idx);
		sbuf_addf(&b, "%s%s %.4g ms %.4g TFLOPS %.4g GB/s frac %.4f %s", i ? "; " : "", s->label ? s->label : lab,
		          s->ms, s->tflops, s->gbps, s->frac, s->bound ? s->bound : "?");
	}
	if (!b.len)
		sbuf_adds(&b, "");
	return sbuf_detach(&b);
}

/* A bar of w cells filled to f (0..1; past 1 the whole bar). */
static void rd_bar(struct sbuf *b, double f, int w, const char *full, const char *empty)
{
	int n = f <= 0 ? 0 : f >= 1 ? w : (int)(f * w + 0.5);
	for (int i = 0; i < w; i++)
		sbuf_adds(b, i < n ? full : empty);
}

void rundetail_render(struct sbuf *b, const struct rundetail *d, int cols, const char *full, const char *empty)
{
	int bw = cols - 2 > 4 ? cols - 2 : 4;
	/* where the figures come from, so kbtui's are not taken for the publisher's */
	const char *base = d->source ? strrchr(d->source, '/') : NULL;
	base = base ? base + 1 : d->source ? d->source : "?";
	if (d->own)
		sbuf_addf(b, "from %s (kbtui's own eval), table %s\n", base, d->table ? d->table : "unsaid");
	else
		sbuf_addf(b, "from %s (the publisher's per-run detail), table %s\n", base,
		          d->table ? d->table : "as the file's peaks");
	sbuf_addf(b, "roofline: %s  %s %s  peak %.4g TFLOPS, %.4g GB/s\n", d->gpu ? d->gpu : "GPU unsaid",
	          d->dtype ? d->dtype : "", d->regime ? d->regime : "", d->peak_tflops, d->peak_bw_gb_s);
	if (!d->own) {
		char *st = rundetail_stats_text(d);
		sbuf_addf(b, "%s\n", st);
		free(st);
	}
	if (!d->nshapes)
		sbuf_adds(b, "no per-shape figures\n");
	for (size_t i = 0; i < d->nshapes; i++) {
		const struct rd_shape *s = &d->shapes[i];
		char lab[32];
		snprintf(lab, sizeof lab, "shape %d", s->idx);
		sbuf_addf(b, "%s  %.4g ms  %.4g TFLOPS  %.4g GB/s  %.1f%% %s-bound (compute %.1f%%, memory %.1f%%)\n",
		          s->label ? s->label : lab, s->ms, s->tflops, s->gbps, s->frac * 100, s->bound ? s->bound : "?",
		          s->compute_util * 100, s->mem_util * 100);
		sbuf_adds(b, " ");
		rd_bar(b, s->frac, bw, full, empty);
		sbuf_adds(b, "\n");
	}
}
