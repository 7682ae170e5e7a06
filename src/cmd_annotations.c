/* cmd_annotations.c: `kbtui annotations check|agree`: the schema check of
 * a directory of annotations, and two annotators' agreement. */
#include "textsafe.h"
#include "agree.h"
#include "annot.h"
#include "cmd.h"
#include "dataset.h"
#include "quote.h"
#include "run.h"
#include "suggest.h"
#include "util.h"

#include <dirent.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>


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

/* A *.yaml of dir that is a symbolic link: read only when it resolves to
 * a file inside dir (a folder of annotations may alias one run's file
 * under another name, but not pull in files from elsewhere). Returns 0
 * for a plain file, 1 for a link followed, -1 for a link refused; *why
 * (owned) says which, naming both ends. */
static int annot_link(const char *dir, const char *path, char **why)
{
	struct stat st;
	*why = NULL;
	if (lstat(path, &st) < 0 || !S_ISLNK(st.st_mode))
		return 0;
	char *root = realpath(dir, NULL), *to = realpath(path, NULL);
	size_t n = root ? strlen(root) : 0;
	int inside = root && to && !strncmp(to, root, n) && to[n] == '/' && util_is_file(to);
	if (inside)
		*why = xasprintf("%s: a symbolic link to %s, inside the annotations folder: read", path, to);
	else
		*why = xasprintf("%s: a symbolic link to %s: refused (only links to files inside the annotations "
		                 "folder are followed)", path, to ? to : "nothing that exists");
	free(root);
	free(to);
	return inside ? 1 : -1;
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
		char *p = util_path_join(dir, names[i]), *e = NULL, *why = NULL;
		int line, link = annot_link(dir, p, &why);
		struct annot *a = link < 0 ? NULL : annot_load(p, &line, &e);
		if (link < 0) {
			textsafe_fprintf(err, "%s (skipped)\n", why);
			bad++;
		} else if (!a) {
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
		free(why);
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
	int errors = 0, warnings_files = 0, bad = 0, links = 0;

	if (!names && !util_is_dir(dir)) {
		textsafe_fprintf(err, "kbtui: %s: not a directory\n", dir);
		return CMD_BADINPUT;
	}
	for (size_t i = 0; i < n; i++) {
		char *p = util_path_join(dir, names[i]), *e = NULL, *msgs = NULL, *why = NULL;
		int line, link = annot_link(dir, p, &why);
		struct annot *a = link < 0 ? NULL : annot_load(p, &line, &e);
		links += link != 0;
		if (link > 0)
			textsafe_fprintf(out, "%s\n", why);
		if (link < 0) {
			textsafe_fprintf(err, "%s\n", why);
			bad++;
		} else if (!a) {
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
		free(why);
		annot_free(a);
		free(e);
		free(p);
		free(names[i]);
	}
	free(names);
	fprintf(out, "%zu files: %d unreadable, %d schema errors, %d files with messages", n, bad,
	        errors, warnings_files);
	if (links)
		fprintf(out, ", %d symbolic link%s", links, links == 1 ? "" : "s");
	fputc('\n', out);
	return bad || errors ? CMD_BADINPUT : CMD_OK;
}

/* Tallies of `annotations check --quotes`. */
struct quote_tally {
	size_t files, quoted, quotes, in_file, in_event, by_line, unmapped, no_run, unreadable;
};

/* One annotation's quotes against its run in ds (NULL: none here): a line
 * a quote, the event it maps to or why it maps to none. */
static void cmd_quotes_file(struct dataset *ds, const char *dir, const char *name, struct quote_tally *t,
                            FILE *out, FILE *err)
{
	char *p = util_path_join(dir, name), *e = NULL;
	int line;
	size_t nq;
	struct annot *a = annot_load(p, &line, &e);
	t->files++;
	if (!a) {
		textsafe_fprintf(err, "%s\n", e);
		t->unreadable++;
		free(e);
		free(p);
		return;
	}
	struct quote *q = quote_list(a, &nq);
	const char *id = annot_get(a, "run_id");
	char *stem = xstrndup(name, strlen(name) - 5);
	long ri = ds ? dataset_find(ds, id ? id : stem) : -1;
	struct run *r = ri >= 0 && ds->runs[ri].transcript ? dataset_load(ds, (size_t)ri) : NULL;
	t->quoted += nq > 0;
	for (size_t k = 0; k < nq; k++) {
		struct quote_src src;
		const char *why = NULL;
		char *where = quote_where(&q[k]);
		t->quotes++;
		textsafe_fprintf(out, "%s:%d: quote %zu (%s): ", p, q[k].line, k + 1, where);
		if (!r) {
			t->no_run++;
			fprintf(out, "not mapped: %s\n", ri < 0 ? "its run is not in the dataset" : "its run has no transcript here");
		} else if (quote_map(r, &q[k], &src, &why) == QUOTE_NONE) {
			t->unmapped++;
			fprintf(out, "not mapped: %s\n", why);
		} else {
			size_t *c = src.how == QUOTE_FILE ? &t->in_file : src.how == QUOTE_LINE ? &t->by_line : &t->in_event;
			++*c;
			fprintf(out, "event %ld (transcript line %d), %s\n", src.ev + 1, r->ev[src.ev].line,
			        src.how == QUOTE_FILE ? "the write of a file version holding it"
			        : src.how == QUOTE_LINE ? "from the transcript line it cites"
			                                : "in the event's text");
		}
		free(where);
	}
	if (r && ds->runs[ri].run != r)
		run_free(r);
	free(stem);
	free(q);
	annot_free(a);
	free(p);
}

/* `annotations check --quotes`: where each quote of dir's files comes from
 * in the runs of dataset ds_dir (NULL: none). Exit 1 only for unreadable
 * files: a quote that maps to nothing is reported, not a schema error. */
int cmd_annot_quotes(const char *dir, const char *ds_dir, FILE *out, FILE *err)
{
	size_t n;
	char **names = yaml_names(dir, &n), *e = NULL;
	struct quote_tally t = {0};
	struct dataset *ds = ds_dir ? dataset_open(ds_dir, &e) : NULL;

	if (!names && !util_is_dir(dir)) {
		textsafe_fprintf(err, "kbtui: %s: not a directory\n", dir);
		dataset_free(ds);
		free(e);
		return CMD_BADINPUT;
	}
	if (ds_dir && !ds) {
		textsafe_fprintf(err, "kbtui: %s (quotes not mapped)\n", e);
		free(e);
	}
	for (size_t i = 0; i < n; i++) {
		cmd_quotes_file(ds, dir, names[i], &t, out, err);
		free(names[i]);
	}
	free(names);
	size_t mapped = t.in_file + t.in_event + t.by_line;
	fprintf(out, "%zu files, %zu with quotes: %zu quotes, %zu map to an event (%zu by a file version the run "
	        "wrote, %zu by the transcript line cited, %zu by an event's text), %zu do not, %zu whose run is "
	        "not here; %zu unreadable files\n",
	        t.files, t.quoted, t.quotes, mapped, t.in_file, t.by_line, t.in_event, t.unmapped, t.no_run,
	        t.unreadable);
	dataset_free(ds);
	return t.unreadable ? CMD_BADINPUT : CMD_OK;
}

/* The annotations DIR means: DIR itself, or DIR/annotations when DIR has
 * no *.yaml of its own and that folder is there (a dataset, or a copy of
 * its annotations without runs/); owned. */
static char *cmd_annotations_dir(const char *dir)
{
	size_t n = 0;
	char **names = yaml_names(dir, &n);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	char *sub = util_path_join(dir, "annotations");
	if (n == 0 && (cmd_is_dataset(dir) || util_is_dir(sub)))
		return sub;
	free(sub);
	return xstrdup(dir);
}

static int cmd_annotations_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	const char *what = argc > 1 ? argv[1] : "";
	if (argc > 2 && argv[2][0] == '-' && strcmp(argv[2], "-") && strcmp(what, "check"))
		return cmd_usage_error(ctx->err, "annotations", "unknown option '%s'", argv[2]);
	if (!strcmp(what, "agree")) {
		if (argc != 4)
			return cmd_usage_error(ctx->err, "annotations", "%s", "agree needs DIR_A and DIR_B");
		char *a = cmd_annotations_dir(argv[2]), *b = cmd_annotations_dir(argv[3]);
		int rc = cmd_annot_agree(a, b, ctx->out, ctx->err);
		free(a);
		free(b);
		return rc;
	}
	if (!strcmp(what, "check")) {
		const char *arg = NULL, *runs = NULL;
		int quotes = 0;
		for (int k = 2; k < argc; k++) {
			if (!strcmp(argv[k], "--quotes"))
				quotes = 1;
			else if (!strcmp(argv[k], "--runs") && k + 1 < argc)
				runs = argv[++k];
			else if (!strcmp(argv[k], "--runs"))
				return cmd_usage_error(ctx->err, "annotations", "%s", "--runs needs a DATASET");
			else if (argv[k][0] == '-' && strcmp(argv[k], "-"))
				return cmd_usage_error(ctx->err, "annotations", "unknown option '%s'", argv[k]);
			else if (arg)
				return cmd_usage_error(ctx->err, "annotations", "check takes one DIR, got '%s' too", argv[k]);
			else
				arg = argv[k];
		}
		if (runs && !quotes)
			return cmd_usage_error(ctx->err, "annotations", "%s", "--runs goes with --quotes");
		char *ds = arg ? NULL : cmd_default_dataset(ctx->argv0, ctx->err);
		const char *given = ds ? ds : arg;
		char *dir = cmd_annotations_dir(given);
		int rc;
		if (quotes) {
			/* the runs: --runs, else the dataset DIR is or that holds it */
			char *parent = util_path_join(dir, "..");
			const char *from = runs ? runs : cmd_is_dataset(given) ? given : cmd_is_dataset(parent) ? parent : NULL;
			rc = cmd_annot_quotes(dir, from, ctx->out, ctx->err);
			free(parent);
		} else {
			rc = cmd_annot_check(dir, ctx->out, ctx->err);
		}
		free(dir);
		free(ds);
		return rc;
	}
	static const char *const actions[] = {"check", "agree"};
	const char *hint = suggest_closest(what, actions, 2);
	char *fmt = hint ? xasprintf("unknown action '%%s'; did you mean '%s'?", hint)
	                 : xstrdup("unknown action '%s' (check or agree)");
	int rc = cmd_usage_error(ctx->err, "annotations", fmt, what);
	free(fmt);
	return rc;
}

const struct cmd_entry cmd_annotations_entry = {
	.name = "annotations",
	.usage = "check [--quotes [--runs DATASET]] [DIR]\nagree DIR_A DIR_B",
	.summary = "annotation files checked against the schema, or two annotators compared",
	.help = "check [DIR]: every *.yaml of DIR against the annotation schema; DIR a\n"
	        "dataset: its annotations/ (default: the dataset the working directory\n"
	        "is in, else the default one).\n"
	        "  --quotes  instead: each quote and the event of its run it maps to (the\n"
	        "            write of a file version holding it, the transcript line it\n"
	        "            cites, an event's text), or why none; runs from the dataset\n"
	        "            DIR is or holds\n"
	        "  --runs DATASET  the runs of the quotes, when DIR is not beside them\n"
	        "agree DIR_A DIR_B: the runs both annotated, a confusion table of their\n"
	        "verdicts, the observed agreement and Cohen's kappa.\n",
	.exec = cmd_annotations_exec,
};
