/* cmd_runs.c: `kbtui runs`: one row per run of a dataset, as a table or as
 * JSON lines. */
#include "cmd.h"
#include "dataset.h"
#include "jsonx.h"
#include "parser.h"
#include "provenance.h"
#include "idcache.h"
#include "runcount.h"
#include "textsafe.h"
#include "util.h"

#include <getopt.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

static void cmd_report_ds(const struct dataset *ds, FILE *err)
{
	for (int i = 0; i < ds->nerrors; i++) {
		if (ds->errors[i].line > 0)
			textsafe_fprintf(err, "%s:%d: %s\n", ds->error_files[i], ds->errors[i].line, ds->errors[i].msg);
		else
			textsafe_fprintf(err, "%s: %s\n", ds->error_files[i], ds->errors[i].msg);
	}
}

static const char *nz(const char *s)
{
	return s ? s : "";
}

/* A cell of the text table: untrusted, so made safe and cut to width. */
static void cmd_cell(FILE *out, const char *s, int width)
{
	textsafe_fput_cell(out, nz(s), width, 0);
	fputc(' ', out);
}

/* The display width of the widest field at off of the runs' metadata
 * (and of the title), at most cap. */
static int cmd_width(const struct dataset *ds, size_t off, const char *title, int cap)
{
	int w = (int)strlen(title);
	for (size_t i = 0; i < ds->nruns; i++) {
		const char *v = *(char *const *)((const char *)&ds->runs[i].meta + off);
		char *safe = textsafe(nz(v), strlen(nz(v)), 0);
		int n = (int)textsafe_width(safe, strlen(safe));
		free(safe);
		w = n > w ? n : w;
	}
	return w < cap ? w : cap;
}

/* A value as prov_value_text gives it, as JSON: true, false, a number, null. */
static cJSON *cmd_prov_value(const char *v)
{
	if (!strcmp(v, "true") || !strcmp(v, "false"))
		return cJSON_CreateBool(!strcmp(v, "true"));
	if (!strcmp(v, "null"))
		return cJSON_CreateNull();
	return cJSON_CreateNumber(strtod(v, NULL));
}

/* Where the dataset's files disagree on the run's outcome: one object per
 * pair, naming each file with what it says. */
static void cmd_runs_disagreements(cJSON *o, const struct provenance *p)
{
	struct prov_diff d[64];
	size_t n = prov_diffs(p, d, sizeof d / sizeof d[0]);
	cJSON *arr = cJSON_AddArrayToObject(o, "disagreements");
	for (size_t i = 0; i < n && i < sizeof d / sizeof d[0]; i++) {
		cJSON *x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "field", prov_field_name(d[i].field));
		cJSON_AddStringToObject(x, "file_a", prov_source_name(d[i].a));
		cJSON_AddItemToObject(x, "value_a", cmd_prov_value(d[i].va));
		cJSON_AddStringToObject(x, "file_b", prov_source_name(d[i].b));
		cJSON_AddItemToObject(x, "value_b", cmd_prov_value(d[i].vb));
		cJSON_AddItemToArray(arr, x);
	}
}

static void cmd_runs_json(FILE *out, const struct ds_run *d, const struct runcount *n)
{
	cJSON *o = cJSON_CreateObject();
	char *s;
	cJSON_AddStringToObject(o, "run_id", d->meta.run_id);
	cJSON_AddStringToObject(o, "harness", nz(d->meta.harness));
	cJSON_AddStringToObject(o, "model", nz(d->meta.model));
	cJSON_AddStringToObject(o, "effort", nz(d->meta.effort));
	cJSON_AddStringToObject(o, "problem", nz(d->meta.problem));
	if (d->meta.has_result)
		cJSON_AddBoolToObject(o, "correct", d->meta.correct);
	else
		cJSON_AddNullToObject(o, "correct");
	if (d->meta.peak_fraction >= 0)
		cJSON_AddNumberToObject(o, "peak_fraction", d->meta.peak_fraction);
	else
		cJSON_AddNullToObject(o, "peak_fraction");
	if (d->verdict)
		cJSON_AddStringToObject(o, "verdict", d->verdict);
	else
		cJSON_AddNullToObject(o, "verdict");
	cJSON_AddStringToObject(o, "format", n && n->format[0] ? n->format : nz(d->meta.format));
	cJSON_AddBoolToObject(o, "held_out", d->held_out);
	if (n) {
		cJSON_AddNumberToObject(o, "events", (double)n->events);
		cJSON_AddNumberToObject(o, "tool_calls", (double)n->tools);
		cJSON_AddBoolToObject(o, "incomplete", n->incomplete);
		/* the format's token figures are known to undercount (see FORMATS) */
		cJSON_AddBoolToObject(o, "tokens_approximate", n->approx);
		cJSON_AddNumberToObject(o, "malformed", n->malformed);
	} else {
		cJSON_AddNullToObject(o, "events");
		cJSON_AddNullToObject(o, "tool_calls");
	}
	/* a transcript's figures not counted (not in the cache, no --count-events) */
	cJSON_AddBoolToObject(o, "counted", n || !d->transcript);
	cmd_runs_disagreements(o, &d->prov);
	s = cJSON_PrintUnformatted(o);
	cmd_put_json(out, s);
	cJSON_free(s);
	cJSON_Delete(o);
}

/* Run i's figures that need its transcript: from the cache, else (count)
 * by reading it, else unknown (NULL). Problems with the transcript go to
 * err and set *bad; without count it is never opened. */
static const struct runcount *cmd_runs_count(struct dataset *ds, size_t i, struct idcache *cache, int count,
                                             struct runcount *n, FILE *err, int *bad)
{
	struct ds_run *d = &ds->runs[i];
	if (!d->transcript)
		return NULL;
	if (!dataset_transcript_inside(ds, i)) {   /* as dataset_load would say */
		textsafe_fprintf(err, "kbtui: %s: missing, or resolves outside the dataset\n", d->transcript);
		*bad = 1;
		return NULL;
	}
	int known = runcount_get(cache, d, n);
	/* a run with malformed lines is read again to name them */
	if (!count || (known && !n->malformed)) {
		if (known)   /* what the transcript says of completion, as dataset_load notes it */
			prov_set(&d->prov.src[PROV_TRANSCRIPT], PROV_COMPLETE, !n->incomplete);
		return known ? n : NULL;
	}
	struct run *r = dataset_load(ds, i);
	if (!r) {
		textsafe_fprintf(err, "kbtui: %s\n", d->load_error);
		*bad = 1;
		return NULL;
	}
	if (r->malformed) {
		cmd_report_run(r, err);
		*bad = 1;
	}
	runcount_put(cache, d, r);
	runcount_of(r, n);
	/* a listing of all runs need not keep every transcript in memory */
	run_free(d->run);
	d->run = NULL;
	return n;
}

int cmd_runs(const char *dir, int json, int count, FILE *out, FILE *err)
{
	char *e = NULL;
	struct dataset *ds = dataset_open(dir, &e);
	int bad = 0;

	if (!ds) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		return CMD_BADINPUT;
	}
	dataset_fill_meta(ds); /* no runs.jsonl: HARNESS and MODEL from the transcripts */
	/* columns as wide as their longest value (capped), so that no two
	 * models cut to one name */
	int idw = cmd_width(ds, offsetof(struct run_meta, run_id), "RUN_ID", 96);
	int hw = cmd_width(ds, offsetof(struct run_meta, harness), "HARNESS", 24);
	int mw = cmd_width(ds, offsetof(struct run_meta, model), "MODEL", 48);
	int pw = cmd_width(ds, offsetof(struct run_meta, problem), "PROBLEM", 32);
	cmd_report_ds(ds, err);
	bad = ds->nerrors > 0;
	if (!json)
		fprintf(out, "%-*s %-*s %-*s %-*s %-3s %6s %-12s %6s %5s %s\n", idw, "RUN_ID", hw, "HARNESS", mw, "MODEL",
		        pw, "PROBLEM", "OK", "PEAK", "VERDICT", "EVENTS", "TOOLS", "DISAGREE");
	struct idcache *cache = runcount_open(ds);
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		struct runcount nb;
		const struct runcount *n = cmd_runs_count(ds, i, cache, count, &nb, err, &bad);
		if (json) {
			cmd_runs_json(out, d, n);
			continue;
		}
		cmd_cell(out, d->meta.run_id, idw);
		cmd_cell(out, d->meta.harness, hw);
		cmd_cell(out, d->meta.model, mw);
		cmd_cell(out, d->meta.problem, pw);
		cmd_cell(out, !d->meta.has_result ? "-" : d->meta.correct ? "yes" : "no", 3);
		if (d->meta.peak_fraction >= 0)
			fprintf(out, "%6.4f ", d->meta.peak_fraction);
		else
			fprintf(out, "%6s ", "-");
		cmd_cell(out, d->verdict ? d->verdict : "-", 12);
		if (n)
			fprintf(out, "%6zu %5zu ", n->events, n->tools);
		else if (d->transcript)
			fprintf(out, "%6s %5s ", "?", "?");   /* not counted: --count-events */
		else
			fprintf(out, "%6s %5s ", "-", d->held_out ? "held" : "-");
		/* how many pairs of files disagree on the outcome (--json lists them) */
		size_t nd = prov_diffs(&d->prov, NULL, 0);
		if (nd)
			fprintf(out, "!=%zu\n", nd);
		else
			fprintf(out, "-\n");
	}
	idcache_free(cache);
	dataset_free(ds);
	return bad ? CMD_BADINPUT : CMD_OK;
}

static int cmd_runs_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"count-events", no_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	int json = 0, count = 0, ch;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (ch == 'j')
			json = 1;
		else if (ch == 'c')
			count = 1;
		else
			return cmd_usage_error(ctx->err, "runs", ch == ':' ? "option '%s' needs an argument" :
			                       "unknown option '%s'", argv[optind - 1]);
	}
	if (argc - optind > 1)
		return cmd_usage_error(ctx->err, "runs", "takes one DIR, got '%s' too", argv[optind + 1]);
	char *def = optind < argc ? NULL : cmd_default_dataset(ctx->argv0, ctx->err);
	int rc = cmd_runs(def ? def : argv[optind], json, count, ctx->out, ctx->err);
	free(def);
	return rc;
}

const struct cmd_entry cmd_runs_entry = {
	.name = "runs",
	.usage = "[--json] [--count-events] [DIR]",
	.summary = "one row per run: id, model, problem, outcome, verdict, counts",
	.help = "DIR: the dataset (default: the one the working directory is in, else\n"
	        "$KBTUI_DATA, a fetched one, the bundled sample).\n"
	        "DISAGREE: how many pairs of the run's files (transcript, result.json,\n"
	        "runs.jsonl, the leaderboards) state different outcomes (!=N), - none.\n"
	        "EVENTS, TOOLS: from the cache; ? when the transcript has not been\n"
	        "counted (a listing reads runs.jsonl, result.json and the boards, never\n"
	        "a transcript).\n"
	        "  --json          one JSON object per run, one per line; its\n"
	        "                  \"disagreements\" lists which file says what\n"
	        "  --count-events  read each transcript the cache does not know: its\n"
	        "                  events and tool calls, its malformed lines (named\n"
	        "                  on stderr, exit 1), kept in the cache for next time\n",
	.exec = cmd_runs_exec,
};
