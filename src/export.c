/* export.c: leaderboard cells with verdicts as CSV, JSON and Markdown. */
#include "config.h"
#include "claims.h"
#include "export.h"
#include "quote.h"
#include "annot.h"
#include "annotate.h"
#include "dataset.h"
#include "flags.h"
#include "run.h"
#include "rundetail.h"
#include "textsafe.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const export_columns[] = {"run_id", "model", "harness", "problem", "correct",
                                             "peak_fraction", "verdict", "annotator", "label", "effort",
                                             "gpu", NULL};
static const char *const export_board_columns[] = {"boards", "board_verdict", NULL};
static const char *const export_full_columns[] = {"summary", "implication", "quotes", "flags", "claims", "deck",
                                                  NULL};
static const char *const export_detail_columns[] = {"agent_s", "check_s", "benchmark_s", "cost_usd", "template_mutated",
                                                    "gpu_lock_wait_s", "shapes", NULL};

int export_format_parse(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "csv"))
		return EXPORT_CSV;
	if (!strcmp(s, "json"))
		return EXPORT_JSON;
	if (!strcmp(s, "jsonl"))
		return EXPORT_JSONL;
	if (!strcmp(s, "md") || !strcmp(s, "markdown"))
		return EXPORT_MD;
	if (!strcmp(s, "html"))
		return EXPORT_HTML;
	return -1;
}

/* The leaderboard's name for a run's row, as the grid shows it. */
static char *export_label(const struct run_meta *m)
{
	if (m->label)
		return xstrdup(m->label);
	if (m->harness && m->model)
		return m->effort && *m->effort ? xasprintf("%s/%s [%s]", m->harness, m->model, m->effort)
		                               : xasprintf("%s/%s", m->harness, m->model);
	return xstrdup(m->model ? m->model : m->harness ? m->harness : "?");
}

/* The annotation's quotes, one string each, raw (made safe when written):
 * "FILE [LINES] LABEL: TEXT", where as quote_where says it. */
static void export_quotes(struct export_row *r, const struct annot *a)
{
	size_t n;
	struct quote *q = quote_list(a, &n);
	if (!q)
		return;
	r->quotes = xcalloc(n + 1, sizeof *r->quotes);
	for (size_t i = 0; i < n; i++) {
		char *where = quote_where(&q[i]);
		r->quotes[r->nquotes++] = xasprintf("%s%s%s: %s", where, q[i].label && *q[i].label ? " " : "",
		                                    q[i].label ? q[i].label : "", q[i].text ? q[i].text : "");
		free(where);
	}
	free(q);
}

/* The shipped rules on run i's transcript: each rule that trips, with the
 * first event it trips on (1-based, as the replay counts). */
static void export_flags(struct export_row *r, struct dataset *ds, size_t i, struct sbuf *w)
{
	const struct flag_rules *rs = NULL;
	struct run *run;
	if (!ds->runs[i].transcript)
		return;
	if (!(run = dataset_load(ds, i))) {
		sbuf_addf(w, "%s (no flags exported)\n", ds->runs[i].load_error ? ds->runs[i].load_error : "unreadable");
		return;
	}
	struct claims c;
	claims_build(run, &c);
	r->claims = xcalloc(c.n + 1, sizeof *r->claims);
	for (size_t k = 0; k < c.n; k++)
		r->claims[r->nclaims++] = claims_line(&c.v[k]);
	claims_free(&c);
	struct flag_list *l = flag_run_default(run, &rs);
	/* one run in memory at a time: an export of every run stays bounded */
	ds->runs[i].run = NULL;
	if (!l) {
		sbuf_adds(w, "the shipped flag rules cannot be read (no flags exported)\n");
		run_free(run);
		return;
	}
	r->flags = xcalloc(l->n + 1, sizeof *r->flags);
	for (size_t k = 0; k < l->n; k++) {
		const char *label = flag_rule_label(rs, l->hits[k].rule);
		int seen = 0;
		for (size_t j = 0; j < k && !seen; j++)
			seen = l->hits[j].rule == l->hits[k].rule;
		if (!seen)
			r->flags[r->nflags++] = xasprintf("%s (event %zu)", label ? label : "?", l->hits[k].event + 1);
	}
	flag_list_delete(l);
	run_free(run);
}

/* Run i's per-run detail, when the dataset has one for it. */
static void export_detail(struct export_row *r, struct dataset *ds, size_t i, struct sbuf *w)
{
	char *path = dataset_rundetail(ds, i), *err = NULL;
	struct rundetail *d = path ? rundetail_load(path, &err) : NULL;
	if (path && !d)
		sbuf_addf(w, "%s (no detail exported)\n", err);
	if (d) {
		r->agent_s = d->agent_s;
		r->check_s = d->check_s;
		r->benchmark_s = d->benchmark_s;
		r->cost_usd = d->cost_usd;
		r->lock_wait_s = d->lock_wait_s;
		r->template_mutated = d->template_mutated;
		r->shapes = rundetail_shapes_text(d);
	}
	rundetail_free(d);
	free(err);
	free(path);
}

int export_rows_detail(const struct export_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].shapes)
			return 1;
	return 0;
}

struct export_row *export_rows(struct dataset *ds, const struct export_opts *o, size_t *n, char **warn)
{
	struct export_row *rows = xcalloc(ds->nruns + 1, sizeof *rows);
	struct sbuf w;
	size_t k = 0;
	const struct ds_select sel = { o ? o->board : NULL, o ? o->gpu : NULL };

	sbuf_init(&w);
	for (size_t i = 0; i < ds->nruns; i++) {
		const struct ds_run *d = &ds->runs[i];
		if (!dataset_selected(ds, i, &sel))
			continue;
		struct export_row *r = &rows[k++];
		r->gpu = xstrdup(dataset_gpu(ds, i) ? dataset_gpu(ds, i) : ds->hardware);
		r->board_verdict = xstrdup(d->board_verdict);
		struct sbuf bl;
		sbuf_init(&bl);
		for (size_t b = 0; b < ds->nboards; b++)
			if (d->boards & (1u << b))
				sbuf_addf(&bl, "%s%s", bl.len ? "; " : "", ds->boards[b].file);
		r->boards = bl.len ? sbuf_detach(&bl) : NULL;
		sbuf_free(&bl);
		r->run_id = xstrdup(d->meta.run_id);
		r->model = xstrdup(d->meta.model);
		r->harness = xstrdup(d->meta.harness);
		r->problem = xstrdup(d->meta.problem);
		r->label = export_label(&d->meta);
		r->effort = d->meta.effort && *d->meta.effort ? xstrdup(d->meta.effort) : NULL;
		r->correct = d->meta.has_result ? d->meta.correct : -1;
		r->peak_fraction = d->meta.peak_fraction;
		r->deck = o && o->full ? xstrdup(d->deck) : NULL;
		char *own = o && o->annot_dir ? annotate_path(o->annot_dir, d->meta.run_id) : NULL;
		const char *path = o && o->annot_dir ? own : d->annotation;
		if (path && util_is_file(path)) {
			int line;
			char *e = NULL;
			struct annot *a = annot_load(path, &line, &e);
			if (a) {
				r->verdict = xstrdup(annot_get(a, "verdict"));
				r->annotator = xstrdup(annot_get(a, "annotator"));
				if (o && o->full) {
					r->summary = xstrdup(annot_get(a, "summary"));
					r->implication = xstrdup(annot_get(a, "implication"));
					export_quotes(r, a);
				}
				annot_free(a);
			} else {
				sbuf_addf(&w, "%s (no verdict exported)\n", e);
				free(e);
			}
		}
		free(own);
		r->agent_s = r->check_s = r->benchmark_s = r->cost_usd = r->lock_wait_s = -1;
		r->template_mutated = -1;
		if (o && o->full)
			export_detail(r, ds, i, &w);
		if (!r->verdict)   /* an annotation wins; without one the boards say it */
			r->verdict = xstrdup(d->board_verdict);
		if (o && o->full)
			export_flags(r, ds, i, &w);
	}
	*n = k;
	*warn = w.len ? sbuf_detach(&w) : NULL;
	sbuf_free(&w);
	return rows;
}

void export_rows_free(struct export_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].run_id);
		free(rows[i].model);
		free(rows[i].harness);
		free(rows[i].problem);
		free(rows[i].label);
		free(rows[i].effort);
		free(rows[i].deck);
		free(rows[i].verdict);
		free(rows[i].annotator);
		free(rows[i].gpu);
		free(rows[i].boards);
		free(rows[i].board_verdict);
		free(rows[i].shapes);
		free(rows[i].summary);
		free(rows[i].implication);
		for (size_t k = 0; k < rows[i].nquotes; k++)
			free(rows[i].quotes[k]);
		free(rows[i].quotes);
		for (size_t k = 0; k < rows[i].nclaims; k++)
			free(rows[i].claims[k]);
		free(rows[i].claims);
		for (size_t k = 0; k < rows[i].nflags; k++)
			free(rows[i].flags[k]);
		free(rows[i].flags);
	}
	free(rows);
}

/* ---- CSV ------------------------------------------------------------- */

/* A cell a spreadsheet would read as a formula (OWASP's CSV injection:
 * =, +, -, @, tab or CR first) gets a ' in front, which spreadsheets take
 * as "text" and do not show; the annotations' free text reaches here. */
static int export_csv_formula(const char *s)
{
	return *s && strchr("=+-@\t\r", *s) != NULL;
}

void export_csv_field(struct sbuf *b, const char *raw)
{
	if (!raw)
		return;
	/* CSV is read on terminals too: made safe first, tabs and line breaks
	 * kept (a quoted field holds them) */
	char *s = textsafe(raw, strlen(raw), TS_KEEP_NL | TS_KEEP_TAB);
	const char *guard = export_csv_formula(raw) || export_csv_formula(s) ? "'" : "";
	if (!strpbrk(s, ",\"\r\n")) {
		sbuf_adds(b, guard);
		sbuf_adds(b, s);
		free(s);
		return;
	}
	sbuf_addc(b, '"');
	sbuf_adds(b, guard);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			sbuf_addc(b, '"');
		sbuf_addc(b, *p);
	}
	sbuf_addc(b, '"');
	free(s);
}

static const char *export_bool(int v, const char *yes, const char *no, const char *unknown)
{
	return v > 0 ? yes : v == 0 ? no : unknown;
}

static void export_number(struct sbuf *b, double v, const char *none)
{
	if (v < 0)
		sbuf_adds(b, none);
	else
		sbuf_addf(b, "%.10g", v);
}

/* Records end with CRLF, as RFC 4180 has them. */
/* A list as one string, "; " between (owned; raw: the writer makes it safe). */
static char *export_join(char *const *v, size_t n)
{
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < n; i++)
		sbuf_addf(&b, "%s%s", i ? "; " : "", v[i]);
	char *s = sbuf_detach(&b);
	sbuf_free(&b);
	return s;
}

void export_csv(struct sbuf *b, const struct export_row *rows, size_t n, int full)
{
	for (int c = 0; export_columns[c]; c++)
		sbuf_addf(b, "%s%s", c ? "," : "", export_columns[c]);
	for (int c = 0; (full & EXPORT_BOARDS) && export_board_columns[c]; c++)
		sbuf_addf(b, ",%s", export_board_columns[c]);
	for (int c = 0; (full & EXPORT_FULL) && export_full_columns[c]; c++)
		sbuf_addf(b, ",%s", export_full_columns[c]);
	for (int c = 0; (full & EXPORT_DETAIL) && export_detail_columns[c]; c++)
		sbuf_addf(b, ",%s", export_detail_columns[c]);
	sbuf_adds(b, "\r\n");
	for (size_t i = 0; i < n; i++) {
		const struct export_row *r = &rows[i];
		export_csv_field(b, r->run_id);
		sbuf_addc(b, ',');
		export_csv_field(b, r->model);
		sbuf_addc(b, ',');
		export_csv_field(b, r->harness);
		sbuf_addc(b, ',');
		export_csv_field(b, r->problem);
		sbuf_addf(b, ",%s,", export_bool(r->correct, "true", "false", ""));
		export_number(b, r->peak_fraction, "");
		sbuf_addc(b, ',');
		export_csv_field(b, r->verdict);
		sbuf_addc(b, ',');
		export_csv_field(b, r->annotator);
		sbuf_addc(b, ',');
		export_csv_field(b, r->label);
		sbuf_addc(b, ',');
		export_csv_field(b, r->effort);
		sbuf_addc(b, ',');
		export_csv_field(b, r->gpu);
		if (full & EXPORT_BOARDS) {
			sbuf_addc(b, ',');
			export_csv_field(b, r->boards);
			sbuf_addc(b, ',');
			export_csv_field(b, r->board_verdict);
		}
		if (full & EXPORT_FULL) {
			char *q = export_join(r->quotes, r->nquotes), *f = export_join(r->flags, r->nflags);
			char *cl = export_join(r->claims, r->nclaims);
			sbuf_addc(b, ',');
			export_csv_field(b, r->summary);
			sbuf_addc(b, ',');
			export_csv_field(b, r->implication);
			sbuf_addc(b, ',');
			export_csv_field(b, q);
			sbuf_addc(b, ',');
			export_csv_field(b, f);
			sbuf_addc(b, ',');
			export_csv_field(b, cl);
			sbuf_addc(b, ',');
			export_csv_field(b, r->deck);
			free(cl);
			free(q);
			free(f);
		}
		if (full & EXPORT_DETAIL) {
			const double v[] = { r->agent_s, r->check_s, r->benchmark_s, r->cost_usd };
			for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
				sbuf_addc(b, ',');
				export_number(b, v[k], "");
			}
			sbuf_addf(b, ",%s,", export_bool(r->template_mutated, "true", "false", ""));
			export_number(b, r->lock_wait_s, "");
			sbuf_addc(b, ',');
			export_csv_field(b, r->shapes);
		}
		sbuf_adds(b, "\r\n");
	}
}

/* ---- JSON ------------------------------------------------------------ */

/* A JSON string; control characters, DEL, C1, separators and bidi
 * overrides escaped so a terminal showing the output acts on none of the
 * dataset's bytes. */
static void export_json_str(struct sbuf *b, const char *s)
{
	if (!s)
		sbuf_adds(b, "null");
	else
		textsafe_json_str(b, s, strlen(s));
}

/* One object per line, keys in the columns' order. */
static void export_json_list(struct sbuf *b, char *const *v, size_t n)
{
	sbuf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			sbuf_adds(b, ", ");
		export_json_str(b, v[i]);
	}
	sbuf_addc(b, ']');
}

/* One run as an object, keys in the columns' order. */
static void export_json_obj(struct sbuf *b, const struct export_row *r, int full)
{
	sbuf_adds(b, "{\"run_id\": ");
	export_json_str(b, r->run_id);
	sbuf_adds(b, ", \"model\": ");
	export_json_str(b, r->model);
	sbuf_adds(b, ", \"harness\": ");
	export_json_str(b, r->harness);
	sbuf_adds(b, ", \"problem\": ");
	export_json_str(b, r->problem);
	sbuf_addf(b, ", \"correct\": %s, \"peak_fraction\": ", export_bool(r->correct, "true", "false", "null"));
	export_number(b, r->peak_fraction, "null");
	sbuf_adds(b, ", \"verdict\": ");
	export_json_str(b, r->verdict);
	sbuf_adds(b, ", \"annotator\": ");
	export_json_str(b, r->annotator);
	sbuf_adds(b, ", \"label\": ");
	export_json_str(b, r->label);
	sbuf_adds(b, ", \"effort\": ");
	export_json_str(b, r->effort);
	sbuf_adds(b, ", \"gpu\": ");
	export_json_str(b, r->gpu);
	if (full & EXPORT_BOARDS) {
		sbuf_adds(b, ", \"boards\": ");
		export_json_str(b, r->boards);
		sbuf_adds(b, ", \"board_verdict\": ");
		export_json_str(b, r->board_verdict);
	}
	if (full & EXPORT_FULL) {
		sbuf_adds(b, ", \"summary\": ");
		export_json_str(b, r->summary);
		sbuf_adds(b, ", \"implication\": ");
		export_json_str(b, r->implication);
		sbuf_adds(b, ", \"quotes\": ");
		export_json_list(b, r->quotes, r->nquotes);
		sbuf_adds(b, ", \"flags\": ");
		export_json_list(b, r->flags, r->nflags);
		sbuf_adds(b, ", \"claims\": ");
		export_json_list(b, r->claims, r->nclaims);
		sbuf_adds(b, ", \"deck\": ");
		export_json_str(b, r->deck);
	}
	if (full & EXPORT_DETAIL) {
		const double v[] = { r->agent_s, r->check_s, r->benchmark_s, r->cost_usd };
		for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
			sbuf_addf(b, ", \"%s\": ", export_detail_columns[k]);
			export_number(b, v[k], "null");
		}
		sbuf_addf(b, ", \"template_mutated\": %s, \"gpu_lock_wait_s\": ",
		          export_bool(r->template_mutated, "true", "false", "null"));
		export_number(b, r->lock_wait_s, "null");
		sbuf_adds(b, ", \"shapes\": ");
		export_json_str(b, r->shapes);
	}
	sbuf_addc(b, '}');
}

void export_json(struct sbuf *b, const struct export_row *rows, size_t n, int full)
{
	sbuf_adds(b, n ? "[\n" : "[]\n");
	for (size_t i = 0; i < n; i++) {
		sbuf_adds(b, "  ");
		export_json_obj(b, &rows[i], full);
		sbuf_adds(b, i + 1 < n ? ",\n" : "\n]\n");
	}
}

void export_jsonl(struct sbuf *b, const struct export_row *rows, size_t n, int full)
{
	for (size_t i = 0; i < n; i++) {
		export_json_obj(b, &rows[i], full);
		sbuf_addc(b, '\n');
	}
}

/* ---- Markdown -------------------------------------------------------- */

/* A table cell: made safe (Markdown is read on terminals), '|' escaped,
 * line breaks as spaces. */
static void export_md_cell(struct sbuf *b, const char *raw)
{
	char *s = textsafe(raw ? raw : "", raw ? strlen(raw) : 0, 0);
	sbuf_adds(b, " ");
	for (const char *p = s; *p; p++) {
		if (*p == '|')
			sbuf_adds(b, "\\|");
		else
			sbuf_addc(b, *p);
	}
	sbuf_adds(b, " |");
	free(s);
}

/* One letter per schema verdict, as the grid marks its cells. */
static const char *export_mark(const char *verdict)
{
	static const char *const marks[][2] = {
		{"clean", "C"}, {"rubric_leak", "L"}, {"reward_hack", "H"}, {"interesting", "I"}, {"bug", "B"},
	};
	if (!verdict || !*verdict)
		return NULL;
	for (size_t i = 0; i < sizeof marks / sizeof *marks; i++)
		if (!strcmp(verdict, marks[i][0]))
			return marks[i][1];
	return "?";
}

static int export_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The distinct non-NULL strings at offset off of each row, sorted (the
 * array is owned, the strings borrowed). */
static const char **export_distinct(const struct export_row *rows, size_t n, size_t off, size_t *out_n)
{
	const char **v = xcalloc(n + 1, sizeof *v);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = *(char *const *)((const char *)&rows[i] + off);
		if (s)
			v[k++] = s;
	}
	if (k)
		qsort(v, k, sizeof *v, export_cmp);
	size_t u = 0;
	for (size_t i = 0; i < k; i++)
		if (!u || strcmp(v[u - 1], v[i]))
			v[u++] = v[i];
	*out_n = u;
	return v;
}

/* Which of two runs of one cell to show, as the grid does: a known
 * outcome, then the later run. */
static int export_better(const struct export_row *cur, const struct export_row *cand)
{
	if (!cur)
		return 1;
	if ((cur->correct >= 0) != (cand->correct >= 0))
		return cand->correct >= 0;
	return strcmp(cand->run_id ? cand->run_id : "", cur->run_id ? cur->run_id : "") > 0;
}

static void export_md_grid(struct sbuf *b, const struct export_row *rows, size_t n)
{
	size_t nm, np;
	const char **models = export_distinct(rows, n, offsetof(struct export_row, label), &nm);
	const char **probs = export_distinct(rows, n, offsetof(struct export_row, problem), &np);

	sbuf_adds(b, "\n## peak_fraction by model and problem\n\n| model |");
	for (size_t p = 0; p < np; p++)
		export_md_cell(b, probs[p]);
	sbuf_adds(b, "\n| --- |");
	for (size_t p = 0; p < np; p++)
		sbuf_adds(b, " ---: |");
	sbuf_adds(b, "\n");
	for (size_t m = 0; m < nm; m++) {
		sbuf_adds(b, "|");
		export_md_cell(b, models[m]);
		for (size_t p = 0; p < np; p++) {
			const struct export_row *best = NULL;
			for (size_t i = 0; i < n; i++)
				if (rows[i].label && rows[i].problem && !strcmp(rows[i].label, models[m]) &&
				    !strcmp(rows[i].problem, probs[p]) && export_better(best, &rows[i]))
					best = &rows[i];
			if (!best) {
				sbuf_adds(b, "  |");
				continue;
			}
			const char *mk = export_mark(best->verdict);
			if (best->peak_fraction >= 0 && best->correct != 0)
				sbuf_addf(b, " %.3f", best->peak_fraction);
			else
				sbuf_adds(b, " -");
			sbuf_addf(b, "%s%s |", mk ? " " : "", mk ? mk : "");
		}
		sbuf_adds(b, "\n");
	}
	sbuf_adds(b, "\nMarks: C clean, L rubric_leak, H reward_hack, I interesting, B bug, "
	             "? another verdict; - not correct.\n");
	free(models);
	free(probs);
}

void export_md(struct sbuf *b, const struct export_row *rows, size_t n, int full)
{
	sbuf_adds(b, "## Runs\n\n|");
	for (int c = 0; export_columns[c]; c++)
		export_md_cell(b, export_columns[c]);
	for (int c = 0; (full & EXPORT_BOARDS) && export_board_columns[c]; c++)
		export_md_cell(b, export_board_columns[c]);
	for (int c = 0; (full & EXPORT_FULL) && export_full_columns[c]; c++)
		export_md_cell(b, export_full_columns[c]);
	sbuf_adds(b, "\n| --- | --- | --- | --- | --- | ---: | --- | --- | --- | --- | --- |");
	sbuf_adds(b, full & EXPORT_BOARDS ? " --- | --- |" : "");
	sbuf_adds(b, full & EXPORT_FULL ? " --- | --- | --- | --- | --- | --- |\n" : "\n");
	for (size_t i = 0; i < n; i++) {
		const struct export_row *r = &rows[i];
		char num[64] = "";
		if (r->peak_fraction >= 0)
			snprintf(num, sizeof num, "%.10g", r->peak_fraction);
		sbuf_adds(b, "|");
		export_md_cell(b, r->run_id);
		export_md_cell(b, r->model);
		export_md_cell(b, r->harness);
		export_md_cell(b, r->problem);
		export_md_cell(b, export_bool(r->correct, "yes", "no", ""));
		export_md_cell(b, num);
		export_md_cell(b, r->verdict);
		export_md_cell(b, r->annotator);
		export_md_cell(b, r->label);
		export_md_cell(b, r->effort);
		export_md_cell(b, r->gpu);
		if (full & EXPORT_BOARDS) {
			export_md_cell(b, r->boards);
			export_md_cell(b, r->board_verdict);
		}
		if (full & EXPORT_FULL) {
			char *q = export_join(r->quotes, r->nquotes), *f = export_join(r->flags, r->nflags);
			char *cl = export_join(r->claims, r->nclaims);
			export_md_cell(b, r->summary);
			export_md_cell(b, r->implication);
			export_md_cell(b, q);
			export_md_cell(b, f);
			export_md_cell(b, cl);
			export_md_cell(b, r->deck);
			free(cl);
			free(q);
			free(f);
		}
		sbuf_adds(b, "\n");
	}
	export_md_grid(b, rows, n);
}
