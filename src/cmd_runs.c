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

/* The run's boards by file name, in board order. */
static void cmd_runs_boards(cJSON *o, const struct dataset *ds, const struct ds_run *d)
{
	cJSON *arr = cJSON_AddArrayToObject(o, "boards");
	for (size_t b = 0; b < ds->nboards; b++)
		if (d->boards & (1u << b))
			cJSON_AddItemToArray(arr, cJSON_CreateString(ds->boards[b].file));
}

static void cmd_runs_json(struct cmd_json_list *l, const struct dataset *ds, size_t i, const struct runcount *n)
{
	const struct ds_run *d = &ds->runs[i];
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
	int split;
	const char *v = dataset_verdict(d, &split);
	if (v)
		cJSON_AddStringToObject(o, "verdict", v);
	else
		cJSON_AddNullToObject(o, "verdict");
	/* who says it: the annotation wins over the boards */
	if (v)
		cJSON_AddStringToObject(o, "verdict_from", d->verdict ? "annotation" : "board");
	else
		cJSON_AddNullToObject(o, "verdict_from");
	if (d->board_verdict)
		cJSON_AddStringToObject(o, "board_verdict", d->board_verdict);
	else
		cJSON_AddNullToObject(o, "board_verdict");
	cJSON_AddBoolToObject(o, "verdict_disagrees", split);
	const char *gpu = dataset_gpu(ds, i);
	if (gpu)
		cJSON_AddStringToObject(o, "gpu", gpu);
	else
		cJSON_AddNullToObject(o, "gpu");
	cJSON_AddBoolToObject(o, "gpu_disagrees", dataset_gpu_split(ds, i));
	if (d->deck)   /* the deck kbtui eval ran it as, as its result.json records */
		cJSON_AddStringToObject(o, "deck", d->deck);
	else
		cJSON_AddNullToObject(o, "deck");
	cmd_runs_boards(o, ds, d);
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
	cmd_json_item(l, s);
	cJSON_free(s);
	cJSON_Delete(o);
}

/* The width of the widest GPU name of the runs, at most cap. */
static int cmd_gpu_width(const struct dataset *ds, int cap)
{
	int w = 3;
	for (size_t b = 0; b < ds->nboards; b++) {
		const char *g = ds->boards[b].gpu;
		char *safe = textsafe(nz(g), strlen(nz(g)), 0);
		int n = (int)textsafe_width(safe, strlen(safe));
		free(safe);
		w = n > w ? n : w;
	}
	return w < cap ? w : cap;
}

/* `kbtui runs --boards`: a line a board, its header with the runs it
 * lists, its roofline table and (v2) what it says of reward hacks. */
static void cmd_runs_board_list(const struct dataset *ds, const struct ds_select *sel, FILE *out)
{
	for (size_t b = 0; b < ds->nboards; b++) {
		const struct board *bd = &ds->boards[b];
		if ((sel->board && !board_matches(bd, sel->board)) || (sel->gpu && !board_gpu_matches(bd, sel->gpu)))
			continue;
		char *h = board_header(bd);
		textsafe_fprintf(out, "%s", h);
		free(h);
		if (bd->reward_hack_count >= 0) {
			size_t n = dataset_board_hacks(ds, b);
			fprintf(out, "  reward_hack_count %d (annotations: %zu%s)", bd->reward_hack_count, n,
			        n != (size_t)bd->reward_hack_count ? ", !=" : "");
		}
		if (bd->environment)
			textsafe_fprintf(out, "  env %s", bd->environment);
		fputc('\n', out);
		if (bd->environment_notes)
			textsafe_fprintf(out, "  %s\n", bd->environment_notes);
	}
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
	struct cmd_runs_opts o = { .json = json, .count = count };
	return cmd_runs_sel(dir, &o, out, err);
}

int cmd_runs_sel(const char *dir, const struct cmd_runs_opts *o, FILE *out, FILE *err)
{
	char *e = NULL;
	struct dataset *ds = dataset_open(dir, &e);
	int bad = 0, json = o->json;
	const struct ds_select sel = { o->board, o->gpu };
	struct cmd_json_list list = {out, (enum cmd_out)json, 0};

	if (!ds) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		return CMD_BADINPUT;
	}
	if (dataset_select_check(ds, &sel, &e) < 0) {
		textsafe_fprintf(err, "kbtui: runs: %s\n", e);
		free(e);
		dataset_free(ds);
		return CMD_BADINPUT;
	}
	if (o->boards) {
		cmd_report_ds(ds, err);
		cmd_runs_board_list(ds, &sel, out);
		bad = ds->nerrors > 0;
		dataset_free(ds);
		return bad ? CMD_BADINPUT : CMD_OK;
	}
	dataset_fill_meta(ds); /* no runs.jsonl: HARNESS and MODEL from the transcripts */
	/* columns as wide as their longest value (capped), so that no two
	 * models cut to one name */
	int idw = cmd_width(ds, offsetof(struct run_meta, run_id), "RUN_ID", 96);
	int hw = cmd_width(ds, offsetof(struct run_meta, harness), "HARNESS", 24);
	int mw = cmd_width(ds, offsetof(struct run_meta, model), "MODEL", 48);
	int pw = cmd_width(ds, offsetof(struct run_meta, problem), "PROBLEM", 32);
	/* one board is one GPU: a GPU column only where there are several */
	int gw = ds->nboards > 1 ? cmd_gpu_width(ds, 36) : 0;
	cmd_report_ds(ds, err);
	/* a defect of an annotation file is the dataset's, named above; the
	 * listing is whole without that verdict (annotations check fails) */
	bad = ds->nerrors > ds->annot_errors;
	if (!json)
		fprintf(out, "%-*s %-*s %-*s %-*s %s%*s%-3s %6s %-12s %6s %5s %s\n", idw, "RUN_ID", hw, "HARNESS", mw,
		        "MODEL", pw, "PROBLEM", gw ? "GPU" : "", gw ? gw - 2 : 0, "", "OK", "PEAK", "VERDICT", "EVENTS",
		        "TOOLS", "DISAGREE");
	struct idcache *cache = runcount_open(ds);
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		if (!dataset_selected(ds, i, &sel))
			continue;
		struct runcount nb;
		const struct runcount *n = cmd_runs_count(ds, i, cache, o->count, &nb, err, &bad);
		if (json) {
			cmd_runs_json(&list, ds, i, n);
			continue;
		}
		cmd_cell(out, d->meta.run_id, idw);
		cmd_cell(out, d->meta.harness, hw);
		cmd_cell(out, d->meta.model, mw);
		cmd_cell(out, d->meta.problem, pw);
		if (gw) {   /* "!=" after a GPU another of the run's boards does not name */
			char gbuf[128];
			snprintf(gbuf, sizeof gbuf, "%s%s", dataset_gpu(ds, i) ? dataset_gpu(ds, i) : "-",
			         dataset_gpu_split(ds, i) ? "!=" : "");
			cmd_cell(out, gbuf, gw);
		}
		cmd_cell(out, !d->meta.has_result ? "-" : d->meta.correct ? "yes" : "no", 3);
		if (d->meta.peak_fraction >= 0)
			fprintf(out, "%6.4f ", d->meta.peak_fraction);
		else
			fprintf(out, "%6s ", "-");
		/* the boards' verdict when no annotation gives one; "!=" after a
		 * verdict the annotation and a board (or two boards) disagree on */
		int split;
		const char *v = dataset_verdict(d, &split);
		char vbuf[64];
		snprintf(vbuf, sizeof vbuf, "%s%s", v ? v : "-", split ? "!=" : "");
		cmd_cell(out, vbuf, 12);
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
	if (json)
		cmd_json_end(&list);
	idcache_free(cache);
	dataset_free(ds);
	return bad ? CMD_BADINPUT : CMD_OK;
}

static int cmd_runs_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'l'},
		{"board", required_argument, NULL, 'b'},
		{"gpu", required_argument, NULL, 'g'},
		{"boards", no_argument, NULL, 'B'},
		{"count-events", no_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	struct cmd_runs_opts o = { 0 };
	int ch;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (ch == 'j' || ch == 'l')
			o.json = ch == 'j' ? CMD_OUT_JSON : CMD_OUT_JSONL;
		else if (ch == 'b')
			o.board = optarg;
		else if (ch == 'g')
			o.gpu = optarg;
		else if (ch == 'B')
			o.boards = 1;
		else if (ch == 'c')
			o.count = 1;
		else
			return ch == ':' ? cmd_usage_error(ctx->err, "runs", "option '%s' needs an argument", argv[optind - 1]) :
			       cmd_unknown_option(ctx->err, "runs", argv[optind - 1], opts);
	}
	if (argc - optind > 1)
		return cmd_usage_error(ctx->err, "runs", "takes one DIR, got '%s' too", argv[optind + 1]);
	char *def = optind < argc ? NULL : cmd_default_dataset(ctx->argv0, ctx->err);
	int rc = cmd_runs_sel(def ? def : argv[optind], &o, ctx->out, ctx->err);
	free(def);
	return rc;
}

const struct cmd_entry cmd_runs_entry = {
	.name = "runs",
	.usage = "[--json|--jsonl] [--board B] [--gpu G] [--boards] [--count-events] [DIR]",
	.summary = "one row per run: id, model, problem, outcome, verdict, counts",
	.help = "DIR: the dataset (default: the one the working directory is in, else\n"
	        "$KBTUI_DATA, a fetched one, the bundled sample).\n"
	        "DISAGREE: how many pairs of the run's files (transcript, result.json,\n"
	        "runs.jsonl, the leaderboards) state different outcomes (!=N), - none.\n"
	        "EVENTS, TOOLS: from the cache; ? when the transcript has not been\n"
	        "counted (a listing reads runs.jsonl, result.json and the boards, never\n"
	        "a transcript).\n"
	        "VERDICT: the annotation's, else the boards' (!= where they differ).\n"
	        "GPU (a dataset of several boards): the hardware the run's first board\n"
	        "names (- on none; != when another of its boards names another GPU).\n"
	        "  --json          one JSON document: an array of an object per run;\n"
	        "                  its \"disagreements\" lists which file says what,\n"
	        "                  \"gpu\" and \"boards\" where the run is listed\n"
	        "  --jsonl         the same objects as JSON Lines, one per line\n"
	        "  --board B       only the runs board B lists (leaderboard_v2.h100.json,\n"
	        "                  leaderboard_v2.h100 or its id v2.h100; main for\n"
	        "                  leaderboard.json)\n"
	        "  --gpu G         only the runs of a board whose GPU name holds G\n"
	        "                  (h100, b200, \"rtx pro\"; case ignored)\n"
	        "  --boards        a line per board instead: file, GPU, roofline table,\n"
	        "                  runs, problems, environment, reward_hack_count\n"
	        "  --count-events  read each transcript the cache does not know: its\n"
	        "                  events and tool calls, its malformed lines (named\n"
	        "                  on stderr, exit 1), kept in the cache for next time\n",
	.exec = cmd_runs_exec,
};
