/* cmd_annot.c: `kbtui annotations check|agree`, `kbtui annotate` and
 * `kbtui export`, headless. */
#include "agree.h"
#include "annot.h"
#include "annotate.h"
#include "cmd.h"
#include "dataset.h"
#include "export.h"
#include "util.h"
#include "textsafe.h"

#include <dirent.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct verdicts {
	char **ids, **verdicts;
	size_t n;
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.yaml names of a directory, sorted (owned). */
static char **yaml_names(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0;
	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		if (!util_ends_with(de->d_name, ".yaml") || de->d_name[0] == '.')
			continue;
		if (*n == cap)
			v = xrealloc(v, (cap = cap ? cap * 2 : 64) * sizeof *v);
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof *v, cmp_str);
	return v;
}

/* Reads run_id -> verdict of every annotation in dir; bad files are
 * reported and skipped. Returns the number of bad files, -1 if no dir. */
static int load_verdicts(const char *dir, struct verdicts *out, FILE *err)
{
	size_t n;
	char **names = yaml_names(dir, &n);
	int bad = 0;

	memset(out, 0, sizeof *out);
	if (!names && !util_is_dir(dir)) {
		textsafe_fprintf(err, "kbtui: %s: not a directory\n", dir);
		return -1;
	}
	out->ids = xcalloc(n + 1, sizeof *out->ids);
	out->verdicts = xcalloc(n + 1, sizeof *out->verdicts);
	for (size_t i = 0; i < n; i++) {
		char *p = util_path_join(dir, names[i]), *e = NULL;
		int line;
		struct annot *a = annot_load(p, &line, &e);
		if (!a) {
			textsafe_fprintf(err, "%s (skipped)\n", e);
			bad++;
		} else {
			const char *id = annot_get(a, "run_id");
			/* the file name is the run id when the document lacks one */
			out->ids[out->n] = id ? xstrdup(id) : xstrndup(names[i], strlen(names[i]) - 5);
			out->verdicts[out->n] = xstrdup(annot_get(a, "verdict"));
			out->n++;
		}
		annot_free(a);
		free(e);
		free(p);
		free(names[i]);
	}
	free(names);
	return bad;
}

static void verdicts_free(struct verdicts *v)
{
	for (size_t i = 0; i < v->n; i++) {
		free(v->ids[i]);
		free(v->verdicts[i]);
	}
	free(v->ids);
	free(v->verdicts);
}

static const char *verdict_of(const struct verdicts *v, const char *id)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->ids[i], id))
			return v->verdicts[i] ? v->verdicts[i] : "(none)";
	return NULL;
}

int cmd_annot_agree(const char *dir_a, const char *dir_b, FILE *out, FILE *err)
{
	struct verdicts A, B;
	struct agree g;
	int only_a = 0, only_b = 0, bad = 0;

	int ba = load_verdicts(dir_a, &A, err);
	if (ba < 0)
		return CMD_BADINPUT;
	int bb = load_verdicts(dir_b, &B, err);
	if (bb < 0) {
		verdicts_free(&A);
		return CMD_BADINPUT;
	}
	bad = ba + bb;
	agree_init(&g);
	for (size_t i = 0; i < A.n; i++) {
		const char *vb = verdict_of(&B, A.ids[i]);
		if (!vb) {
			only_a++;
			continue;
		}
		agree_add(&g, A.verdicts[i] ? A.verdicts[i] : "(none)", vb);
	}
	for (size_t i = 0; i < B.n; i++)
		only_b += verdict_of(&A, B.ids[i]) == NULL;
	fprintf(out, "runs annotated by both: %d (only in A: %d, only in B: %d)\n", g.n, only_a, only_b);
	if (g.n) {
		fprintf(out, "\n%-16s", "A \\ B");
		/* the labels are the annotations' verdicts: untrusted */
		for (int j = 0; j < g.nlabels; j++) {
			fputc(' ', out);
			textsafe_fput_cell(out, g.labels[j], 12, 1);
		}
		fprintf(out, "\n");
		for (int i = 0; i < g.nlabels; i++) {
			textsafe_fput_cell(out, g.labels[i], 16, 0);
			for (int j = 0; j < g.nlabels; j++)
				fprintf(out, " %12d", g.table[i][j]);
			fprintf(out, "\n");
		}
		fprintf(out, "\nobserved agreement: %.3f\nCohen's kappa: %.3f\n", agree_observed(&g),
		        agree_kappa(&g));
	}
	agree_free(&g);
	verdicts_free(&A);
	verdicts_free(&B);
	return bad ? CMD_BADINPUT : CMD_OK;
}

int cmd_annot_check(const char *dir, FILE *out, FILE *err)
{
	size_t n;
	char **names = yaml_names(dir, &n);
	int errors = 0, warnings_files = 0, bad = 0;

	if (!names && !util_is_dir(dir)) {
		textsafe_fprintf(err, "kbtui: %s: not a directory\n", dir);
		return CMD_BADINPUT;
	}
	for (size_t i = 0; i < n; i++) {
		char *p = util_path_join(dir, names[i]), *e = NULL, *msgs = NULL;
		int line;
		struct annot *a = annot_load(p, &line, &e);
		if (!a) {
			textsafe_fprintf(err, "%s\n", e);
			bad++;
		} else {
			errors += annot_check(a, &msgs);
			if (msgs) {
				textsafe_fputs(out, msgs, TS_KEEP_NL | TS_KEEP_TAB);
				warnings_files++;
			}
		}
		free(msgs);
		annot_free(a);
		free(e);
		free(p);
		free(names[i]);
	}
	free(names);
	fprintf(out, "%zu files: %d unreadable, %d schema errors, %d files with messages\n", n, bad,
	        errors, warnings_files);
	return bad || errors ? CMD_BADINPUT : CMD_OK;
}

/* ---- kbtui annotate, kbtui export ------------------------------------ */

static int cmd_usage_error(FILE *err, const char *cmd, const char *fmt, const char *arg)
{
	textsafe_fprintf(err, "kbtui %s: ", cmd);
	textsafe_fprintf(err, fmt, arg);
	fprintf(err, "\nTry 'kbtui --help'.\n");
	return CMD_USAGE;
}

/* The run named by id or by a prefix of one id only; -1 (with a message)
 * when none or several match. */
static long cmd_find_run(const struct dataset *ds, const char *id, FILE *err)
{
	long hit = dataset_find(ds, id), n = 0;
	size_t len = strlen(id);
	if (hit >= 0)
		return hit;
	for (size_t i = 0; i < ds->nruns; i++)
		if (ds->runs[i].meta.run_id && !strncmp(ds->runs[i].meta.run_id, id, len)) {
			if (n++ == 0)
				hit = (long)i;
		}
	if (n == 1)
		return hit;
	if (n == 0) {
		textsafe_fprintf(err, "kbtui: %s: no run `%s` (kbtui runs lists them)\n", ds->root, id);
		return -1;
	}
	textsafe_fprintf(err, "kbtui: %s: `%s` matches %ld runs:\n", ds->root, id, n);
	for (size_t i = 0, shown = 0; i < ds->nruns && shown < 10; i++)
		if (ds->runs[i].meta.run_id && !strncmp(ds->runs[i].meta.run_id, id, len)) {
			textsafe_fprintf(err, "  %s\n", ds->runs[i].meta.run_id);
			shown++;
		}
	return -1;
}

static struct dataset *cmd_open(const char *dir, const char *argv0, FILE *err)
{
	char *def = dir ? NULL : dataset_default_dir(argv0), *e = NULL;
	struct dataset *ds = dataset_open(dir ? dir : def, &e);
	if (!ds) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
	}
	free(def);
	return ds;
}

int cmd_annotate(int argc, char **argv, const char *argv0, FILE *out, FILE *err)
{
	enum { O_VERDICT = 256, O_SUMMARY, O_IMPLICATION, O_ANNOTATIONS, O_ANNOTATOR };
	static const struct option opts[] = {
		{"verdict", required_argument, NULL, O_VERDICT},
		{"summary", required_argument, NULL, O_SUMMARY},
		{"implication", required_argument, NULL, O_IMPLICATION},
		{"annotations", required_argument, NULL, O_ANNOTATIONS},
		{"annotator", required_argument, NULL, O_ANNOTATOR},
		{NULL, 0, NULL, 0},
	};
	struct annotate_change ch = {0};
	struct annotate_result res;
	const char *annot_dir = NULL;
	char *def_dir = NULL;
	int c, rc;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case O_VERDICT: ch.verdict = optarg; break;
		case O_SUMMARY: ch.summary = optarg; break;
		case O_IMPLICATION: ch.implication = optarg; break;
		case O_ANNOTATIONS: annot_dir = optarg; break;
		case O_ANNOTATOR: ch.annotator = optarg; break;
		case ':': return cmd_usage_error(err, "annotate", "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_usage_error(err, "annotate", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return cmd_usage_error(err, "annotate", "%s", "needs RUN (a run id or a unique prefix of one)");
	if (argc - optind > 2)
		return cmd_usage_error(err, "annotate", "takes RUN and one DIR, got '%s' too", argv[optind + 2]);
	if (!ch.verdict || !*ch.verdict)
		return cmd_usage_error(err, "annotate", "%s", "needs --verdict (clean, rubric_leak, reward_hack, interesting, bug)");

	struct dataset *ds = cmd_open(argc - optind == 2 ? argv[optind + 1] : NULL, argv0, err);
	if (!ds)
		return CMD_BADINPUT;
	long i = cmd_find_run(ds, argv[optind], err);
	if (i < 0) {
		dataset_free(ds);
		return CMD_BADINPUT;
	}
	if (!annot_dir) {
		/* the dataset's own annotations/, made on the first annotation */
		annot_dir = def_dir = util_path_join(ds->root, "annotations");
		mkdir(def_dir, 0755);
	}
	switch (annotate_apply(annot_dir, &ds->runs[i].meta, &ch, &res)) {
	case ANNOTATE_OK:
		if (res.msgs)
			textsafe_fputs(err, res.msgs, TS_KEEP_NL | TS_KEEP_TAB);
		textsafe_fprintf(out, "%s: %s %s\n", res.path, res.undo->existed ? "updated" : "written", ch.verdict);
		rc = CMD_OK;
		break;
	case ANNOTATE_INVALID:
		if (res.msgs)
			textsafe_fputs(err, res.msgs, TS_KEEP_NL | TS_KEEP_TAB);
		textsafe_fprintf(err, "kbtui: %s: %d schema error%s; nothing written\n", res.path, res.errors,
		        res.errors == 1 ? "" : "s");
		rc = CMD_BADINPUT;
		break;
	default:
		textsafe_fprintf(err, "kbtui: %s\n", res.err ? res.err : "cannot write the annotation");
		rc = CMD_BADINPUT;
		break;
	}
	annotate_result_free(&res);
	free(def_dir);
	dataset_free(ds);
	return rc;
}

int cmd_export(int argc, char **argv, const char *argv0, FILE *out, FILE *err)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};
	int c, fmt = -1;
	struct sbuf b;
	char *warn = NULL;
	size_t n;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":f:", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if ((fmt = export_format_parse(optarg)) < 0)
				return cmd_usage_error(err, "export", "unknown format '%s' (csv, json or md)", optarg);
			break;
		case ':': return cmd_usage_error(err, "export", "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_usage_error(err, "export", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (fmt < 0)
		return cmd_usage_error(err, "export", "%s", "needs --format csv, json or md");
	if (argc - optind > 1)
		return cmd_usage_error(err, "export", "takes one DIR, got '%s' too", argv[optind + 1]);
	struct dataset *ds = cmd_open(optind < argc ? argv[optind] : NULL, argv0, err);
	if (!ds)
		return CMD_BADINPUT;
	struct export_row *rows = export_rows(ds, &n, &warn);
	if (warn)
		textsafe_fputs(err, warn, TS_KEEP_NL | TS_KEEP_TAB);
	sbuf_init(&b);
	if (fmt == EXPORT_CSV)
		export_csv(&b, rows, n);
	else if (fmt == EXPORT_JSON)
		export_json(&b, rows, n);
	else
		export_md(&b, rows, n);
	fwrite(b.s, 1, b.len, out);
	sbuf_free(&b);
	export_rows_free(rows, n);
	free(warn);
	dataset_free(ds);
	return CMD_OK;
}
