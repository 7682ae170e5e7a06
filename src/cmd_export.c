/* cmd_export.c: `kbtui export`: one row per run with its verdict, as CSV,
 * JSON or Markdown. */
#include "textsafe.h"
#include "cmd.h"
#include "dataset.h"
#include "export.h"
#include "htmlexport.h"
#include "parser.h"
#include "run.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* --format html: a run's page, or a dataset's index. */
static int cmd_export_html(const char *arg, const char *argv0, FILE *out, FILE *err)
{
	struct sbuf b;
	sbuf_init(&b);
	if (!arg || cmd_is_dataset(arg)) {
		struct dataset *ds = cmd_open_dataset(arg, argv0, err);
		if (!ds)
			return CMD_BADINPUT;
		htmlexport_index(&b, ds);
		dataset_free(ds);
	} else {
		struct cmd_run cr;
		if (cmd_run_resolve(arg, NULL, argv0, &cr, err) < 0)
			return CMD_BADINPUT;
		char *e = NULL;
		struct run *r = NULL;
		if (!cr.transcript)
			e = xasprintf("%s: this run has no transcript", cr.name);
		else if (cr.ds)
			r = dataset_load(cr.ds, (size_t)cr.idx);
		else
			r = parser_load_final(cr.transcript, NULL, &e);
		if (!r) {
			textsafe_fprintf(err, "kbtui export: %s\n", e ? e : cr.ds && cr.ds->runs[cr.idx].load_error
			                                                     ? cr.ds->runs[cr.idx].load_error : cr.name);
			free(e);
			cmd_run_free(&cr);
			return CMD_BADINPUT;
		}
		htmlexport_run(&b, r, cr.name, cr.ds ? cr.ds->runs[cr.idx].annotation : NULL, out);
		if (!cr.ds)
			run_free(r);
		cmd_run_free(&cr);
	}
	fwrite(b.s, 1, b.len, out);
	sbuf_free(&b);
	return CMD_OK;
}

/* The dataset of a csv, json or md export, and in *only the run id of its
 * one row when arg is a run (an id, a prefix, its directory or its
 * transcript) rather than a dataset: a row comes from the dataset's index,
 * so a run outside any dataset has none. */
static struct dataset *cmd_export_open(const char *arg, const char *argv0, char **only, FILE *err)
{
	*only = NULL;
	if (!arg || cmd_is_dataset(arg))
		return cmd_open_dataset(arg, argv0, err);
	struct cmd_run cr;
	if (cmd_run_resolve(arg, NULL, argv0, &cr, err) < 0)
		return NULL;
	if (!cr.ds) {
		textsafe_fprintf(err, "kbtui export: %s: a run outside any dataset has no row (the row is the "
		                 "dataset's index, runs.jsonl); --format html makes its page\n", arg);
		cmd_run_free(&cr);
		return NULL;
	}
	struct dataset *ds = cr.ds;
	*only = xstrdup(ds->runs[cr.idx].meta.run_id);
	cr.ds = NULL;
	cmd_run_free(&cr);
	return ds;
}

int cmd_export(int argc, char **argv, const char *argv0, FILE *out, FILE *err)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"full", no_argument, NULL, 'F'},
		{"annotations", required_argument, NULL, 'a'},
		{"board", required_argument, NULL, 'b'},
		{"gpu", required_argument, NULL, 'g'},
		{NULL, 0, NULL, 0},
	};
	int c, fmt = -1;
	struct export_opts o = {0};
	struct sbuf b;
	char *warn = NULL;
	size_t n;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((fmt = export_format_parse(optarg)) < 0)
				return cmd_usage_error(err, "export", "unknown format '%s' (csv, json, jsonl, md or html)", optarg);
			break;
		case 'F': o.full = 1; break;
		case 'a': o.annot_dir = optarg; break;
		case 'b': o.board = optarg; break;
		case 'g': o.gpu = optarg; break;
		case ':': return cmd_usage_error(err, "export", "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(err, "export", argv[optind - 1], opts);
		}
	}
	if (fmt < 0)
		return cmd_usage_error(err, "export", "%s", "needs --format csv, json, jsonl, md or html");
	if (argc - optind > 1)
		return cmd_usage_error(err, "export", "takes one DIR, got '%s' too", argv[optind + 1]);
	if (fmt == EXPORT_HTML)
		return cmd_export_html(optind < argc ? argv[optind] : NULL, argv0, out, err);
	char *only = NULL;  /* one run's row, or all */
	struct dataset *ds = cmd_export_open(optind < argc ? argv[optind] : NULL, argv0, &only, err);
	if (!ds)
		return CMD_BADINPUT;
	if (o.annot_dir && !util_is_dir(o.annot_dir)) {
		textsafe_fprintf(err, "kbtui export: %s: not a directory (--annotations)\n", o.annot_dir);
		free(only);
		dataset_free(ds);
		return CMD_BADINPUT;
	}
	const struct ds_select sel = { o.board, o.gpu };
	char *e = NULL;
	if (dataset_select_check(ds, &sel, &e) < 0) {
		textsafe_fprintf(err, "kbtui export: %s\n", e);
		free(e);
		free(only);
		dataset_free(ds);
		return CMD_BADINPUT;
	}
	/* a dataset of one board has one GPU: its columns say nothing */
	int bits = (o.full ? EXPORT_FULL : 0) | (ds->nboards > 1 ? EXPORT_BOARDS : 0);
	struct export_row *rows = export_rows(ds, &o, &n, &warn);
	if (o.full && export_rows_detail(rows, n))   /* the publisher's per-run detail */
		bits |= EXPORT_DETAIL;
	if (warn)
		textsafe_fputs(err, warn, TS_KEEP_NL | TS_KEEP_TAB);
	size_t from = 0, count = n;
	if (only) {  /* that run's row alone (none when --board left it out) */
		count = 0;
		for (size_t i = 0; i < n && !count; i++)
			if (rows[i].run_id && !strcmp(rows[i].run_id, only))
				from = i, count = 1;
	}
	sbuf_init(&b);
	if (fmt == EXPORT_CSV)
		export_csv(&b, rows + from, count, bits);
	else if (fmt == EXPORT_JSON)
		export_json(&b, rows + from, count, bits);
	else if (fmt == EXPORT_JSONL)
		export_jsonl(&b, rows + from, count, bits);
	else
		export_md(&b, rows + from, count, bits);
	fwrite(b.s, 1, b.len, out);
	sbuf_free(&b);
	export_rows_free(rows, n);
	free(warn);
	free(only);
	dataset_free(ds);
	return CMD_OK;
}

static int cmd_export_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_export(argc, argv, ctx->argv0, ctx->out, ctx->err);
}

const struct cmd_entry cmd_export_entry = {
	.name = "export",
	.usage = "--format csv|json|jsonl|md|html [--full] [--annotations DIR] [--board B] [--gpu G] [DIR|RUN]",
	.summary = "one row per run with its verdict: CSV, JSON or Markdown; a run as an HTML page",
	.help = "DIR: the dataset (default: the one the working directory is in, else\n"
	        "the default one). RUN, a run of a dataset (an id, a prefix, its directory\n"
	        "or its transcript): its row alone; html: its page.\n"
	        "  -f, --format F  csv (RFC 4180, cells guarded against formulas), json\n"
	        "                  (one document, an array of objects), jsonl (the same\n"
	        "                  objects one a line) or md (a table of runs, then\n"
	        "                  models by problems); each row has the run key: label,\n"
	        "                  harness, model, effort, problem, gpu; html: RUN as one\n"
	        "                  self-contained page (events with anchors #eN,\n"
	        "                  annotation, flags, hack timeline, timing plot, claims),\n"
	        "                  DIR as an index page linking RUN_ID.html\n"
	        "  --full          also summary, implication, quotes (FILE [START-END]\n"
	        "                  LABEL: TEXT) and flags (the shipped rules that trip,\n"
	        "                  LABEL (event N)): lists joined with \"; \" in csv and\n"
	        "                  md, arrays of strings in json; claims; deck (the\n"
	        "                  deck the run's result.json records, else null)\n"
	        "  --annotations DIR  verdicts from there (default: the dataset's)\n"
	        "  --board B, --gpu G  only the runs of that board, or of boards on that\n"
	        "                  GPU (as kbtui runs)\n"
	        "The verdict is the annotation's, else the boards'. A dataset of several\n"
	        "boards adds boards (their files) and board_verdict. With --full,\n"
	        "where runs have the publisher's per-run detail (rundetail.json), also\n"
	        "agent_s, check_s, benchmark_s, cost_usd, template_mutated,\n"
	        "gpu_lock_wait_s and shapes (csv and json; md leaves them out).\n",
	.exec = cmd_export_exec,
};
