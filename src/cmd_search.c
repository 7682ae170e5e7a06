/* cmd_search.c: `kbtui search`: grep over every run of a dataset. An
 * event's text is its parts in the order flag_fields walks them (text, each
 * argument, path, diff), lines numbered on across the parts. */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "dataset.h"
#include "flags.h"
#include "parser.h"
#include "runtext.h"
#include "search.h"
#include "textsafe.h"
#include "util.h"

extern const struct cmd_entry cmd_search_entry;

/* grep's statuses: a match, none, trouble */
enum { SEARCH_FOUND = 0, SEARCH_NONE = 1, SEARCH_TROUBLE = 2 };

struct cmd_search {
	struct search *s;
	int list, count;
	FILE *out;
	char *run_id;             /* owned: the run's id, made safe to show */
};

/* text made safe to show, as textsafe makes it: printable ASCII is itself
 * there, so the run of it a line nearly always is goes out as it is */
static void cmd_search_put(FILE *out, const char *text, size_t len)
{
	size_t k = 0;
	while (k < len && (unsigned char)text[k] >= 0x20 && (unsigned char)text[k] < 0x7f)
		k++;
	fwrite(text, 1, k, out);
	if (k < len) {
		char *t = textsafe(text + k, len - k, 0);
		fputs(t, out);
		free(t);
	}
}

static int cmd_search_line(void *ud, size_t ev, int line, const char *text, size_t len)
{
	struct cmd_search *c = ud;
	if (c->list)
		return 1;  /* one is enough */
	if (!c->count) {
		/* "id:event:line: ", without printf: a common search prints
		 * thousands of lines */
		char num[48], *p = num + sizeof num;
		*--p = ' ';
		*--p = ':';
		for (unsigned long v = (unsigned long)(line > 0 ? line : 0);; v /= 10) {
			*--p = (char)('0' + v % 10);
			if (v < 10)
				break;
		}
		*--p = ':';
		for (size_t v = ev + 1;; v /= 10) {
			*--p = (char)('0' + v % 10);
			if (v < 10)
				break;
		}
		*--p = ':';
		fputs(c->run_id, c->out);
		fwrite(p, 1, (size_t)(num + sizeof num - p), c->out);
		cmd_search_put(c->out, text, len);
		putc('\n', c->out);
	}
	return 0;
}

/* Searches one run's text; 1 when it matched. */
static int cmd_search_run(struct cmd_search *c, const struct runtext *t, const char *run_id)
{
	c->run_id = textsafe(run_id, strlen(run_id), 0);
	size_t hits = runtext_grep(c->s, t, cmd_search_line, c);
	if (hits && c->list)
		fprintf(c->out, "%s\n", c->run_id);
	else if (hits && c->count)
		fprintf(c->out, "%s:%zu\n", c->run_id, hits);
	free(c->run_id);
	c->run_id = NULL;
	return hits > 0;
}

/* The text of a loaded run, kept in the cache for the next search when
 * key says what the transcript was before it was read. Frees r. */
static struct runtext *cmd_search_text(struct run *r, const char *file, const struct parser_ops *fmt,
                                       const struct runtext_key *key)
{
	struct runtext *t = runtext_new(r);
	run_free(r);
	if (key->ok)
		runtext_save(t, file, fmt ? fmt->name : NULL, key);
	return t;
}

/* The pattern, case ignored with -i; an error names the offset in the
 * pattern as typed. */
static struct search *cmd_search_compile(const char *pat, int icase, char **err)
{
	if (!icase)
		return search_new(pat, err);
	char *p = xasprintf("(?i)%s", pat);
	struct search *s = *pat ? search_new(p, err) : NULL;
	free(p);
	if (!s) {
		free(*err);
		s = search_new(pat, err);  /* fails the same way, at its own offsets */
		if (s) {
			search_free(s);
			s = NULL;
			*err = xstrdup("bad regular expression");
		}
	}
	return s;
}

/* The transcript of path when it is one run rather than a dataset (a
 * transcript file, or a directory with no runs.jsonl or runs/ and one
 * transcript); owned, NULL for a dataset. */
static char *cmd_search_one_file(const char *path)
{
	if (util_is_file(path))
		return xstrdup(path);
	char *idx = util_path_join(path, "runs.jsonl"), *runs = util_path_join(path, "runs");
	int dataset = !util_is_dir(path) || util_is_file(idx) || util_is_dir(runs);
	free(idx);
	free(runs);
	return dataset ? NULL : dataset_find_transcript(path);
}

/* Whether path resolves inside the dataset whose real root is root, as
 * dataset_load requires of a transcript. */
static int cmd_search_inside(const char *root, const char *path)
{
	char real[PATH_MAX];
	size_t n = strlen(root);
	return realpath(path, real) && strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* Searches the one run of file; it is named as its directory (a run
 * directory's name is the run id) or, given as a file, by the file. */
static int cmd_search_file(struct cmd_search *c, const char *file, const char *path,
                           const struct parser_ops *fmt, FILE *err)
{
	char *e = NULL, *name = xstrdup(path);
	size_t n = strlen(name);
	while (n > 1 && name[n - 1] == '/')
		name[--n] = '\0';
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	struct runtext_key key;
	struct runtext *t = runtext_load(file, fmt ? fmt->name : NULL, &key);
	struct run *r = t ? NULL : parser_load_final(file, fmt, &e);
	int rc = SEARCH_TROUBLE;
	if (!t && r)
		t = cmd_search_text(r, file, fmt, &key);
	if (!t) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
	} else {
		rc = cmd_search_run(c, t, base) ? SEARCH_FOUND : SEARCH_NONE;
		runtext_free(t);
	}
	free(name);
	return rc;
}

int cmd_search(int argc, char **argv, FILE *out, FILE *err)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cmd_search c = { .out = out };
	const char *format = NULL;
	int icase = 0, ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+ilcf:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'i': icase = 1; break;
		case 'l': c.list = 1; break;
		case 'c': c.count = 1; break;
		case 'f': format = optarg; break;
		case 'h': cmd_help(&cmd_search_entry, out); return SEARCH_FOUND;
		default:
			if (cmd_option_typo(opts, argv[optind - 1])) {
				cmd_unknown_option(err, "search", argv[optind - 1], opts);
				return SEARCH_TROUBLE;
			}
			textsafe_fprintf(err, "kbtui search: unknown option or missing argument '%s'\nTry 'kbtui search --help'.\n",
			        argv[optind - 1]);
			return SEARCH_TROUBLE;
		}
	}
	if (argc - optind < 1 || argc - optind > 2) {
		textsafe_fprintf(err, "kbtui search: %s\nTry 'kbtui search --help'.\n",
		        argc - optind < 1 ? "needs a REGEX" : "one REGEX and one DIR at most");
		return SEARCH_TROUBLE;
	}
	const struct parser_ops *fmt = format ? parser_find(format) : NULL;
	if (format && !fmt) {
		char *f = cmd_format_unknown(format);
		cmd_usage_error(err, "search", f, format);
		free(f);
		return SEARCH_TROUBLE;
	}
	char *e = NULL;
	c.s = cmd_search_compile(argv[optind], icase, &e);
	if (!c.s) {
		char *safe = textsafe(e, strlen(e), 0);
		textsafe_fprintf(err, "kbtui search: bad regular expression: %s\n", safe);
		free(safe);
		free(e);
		return SEARCH_TROUBLE;
	}
	char *def = argc - optind > 1 ? NULL : cmd_default_dataset(NULL, err);
	const char *dir = def ? def : argv[optind + 1];
	char *one = cmd_search_one_file(dir);
	if (one) {  /* a run directory or a transcript: that run alone */
		int rc = cmd_search_file(&c, one, dir, fmt, err);
		free(one);
		free(def);
		search_free(c.s);
		return rc;
	}
	if (!util_is_dir(dir)) {  /* a run id or a prefix of one: that run alone */
		struct cmd_run cr;
		int rc = SEARCH_TROUBLE;
		if (cmd_run_resolve(dir, NULL, NULL, &cr, err) == 0) {
			if (cr.transcript)
				rc = cmd_search_file(&c, cr.transcript, cr.name, fmt, err);
			else
				textsafe_fprintf(err, "kbtui: %s: this run has no transcript in the dataset\n", cr.name);
		}
		cmd_run_free(&cr);
		search_free(c.s);
		return rc;
	}
	struct dataset *ds = dataset_open_runs(dir, &e);  /* verdicts unused */
	int rc = SEARCH_NONE;
	if (!ds) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		rc = SEARCH_TROUBLE;
	}
	char root[PATH_MAX];
	int have_root = ds && realpath(ds->root, root) != NULL;
	for (size_t i = 0; ds && i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		if (!d->transcript)
			continue;
		/* the format dataset_load reads it as: the index's, when known */
		const struct parser_ops *as = fmt ? fmt : d->meta.format ? parser_find(d->meta.format) : NULL;
		struct runtext_key key = { .ok = 0 };
		struct runtext *t = NULL;
		/* the cache only for a transcript dataset_load would read (inside
		 * the dataset; with --format it reads any) */
		if (fmt || (have_root && cmd_search_inside(root, d->transcript)))
			t = runtext_load(d->transcript, as ? as->name : NULL, &key);
		if (!t) {
			struct run *r = fmt ? parser_load_final(d->transcript, fmt, &e) : dataset_load(ds, i);
			if (!r) {
				textsafe_fprintf(err, "kbtui: %s\n", fmt ? e : d->load_error);
				free(e);
				e = NULL;
				continue;
			}
			d->run = NULL;  /* one run in memory at a time: the text takes it */
			t = cmd_search_text(r, d->transcript, as, &key);
		}
		if (cmd_search_run(&c, t, d->meta.run_id))
			rc = SEARCH_FOUND;
		runtext_free(t);
	}
	dataset_free(ds);
	free(def);
	search_free(c.s);
	return rc;
}

static int cmd_search_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_search(argc, argv, ctx->out, ctx->err);
}

const struct cmd_entry cmd_search_entry = {
	.name = "search",
	.usage = "[-i] [-l] [-c] [--format FMT] REGEX [DIR|RUN]",
	.summary = "every line of every run that matches a regular expression",
	.help = "Prints run_id:event:line: text for every line of every event of every\n"
	        "run of the dataset DIR (default: the one the working directory is in,\n"
	        "else the default one) that matches REGEX (PCRE2; all lower case: case\n"
	        "ignored). RUN, a run id, a unique prefix, a run directory or a\n"
	        "transcript: that run alone.\n"
	        "  -i              ignore case\n"
	        "  -l              the ids of the matching runs only\n"
	        "  -c              the number of matching lines per run\n"
	        "  -f, --format FMT  read the transcripts as FMT\n"
	        "Exit status: 0 a match, 1 none, 2 bad regular expression or usage.\n",
	.exec = cmd_search_exec,
	.trouble = 2,
};
