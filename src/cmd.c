/* cmd.c: what the subcommands share: the table's help and dispatch, write
 * errors, and the dataset and run a command works on. */
#include "cmd.h"
#include "dataset.h"
#include "fetch.h"
#include "hub.h"
#include "parser.h"
#include "problem.h"
#include "suggest.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- the table -------------------------------------------------------- */

const struct cmd_entry *cmd_lookup(const struct cmd_entry *const *table, const char *name)
{
	for (size_t i = 0; table && table[i]; i++)
		if (!strcmp(table[i]->name, name))
			return table[i];
	return NULL;
}

/* Each form of e's usage, one per line, after prefix and "kbtui NAME"; a
 * line that starts with a space goes on the form above it. */
static void cmd_forms(const struct cmd_entry *e, const char *first, const char *next, FILE *out)
{
	const char *u = e->usage;
	int i = 0;
	do {
		size_t n = strcspn(u, "\n");
		if (*u == ' ') {
			size_t sp = strspn(u, " ");
			fprintf(out, "%s%*s%.*s\n", next, (int)(7 + strlen(e->name)), "", (int)(n - sp), u + sp);
		} else {
			fprintf(out, "%skbtui %s%s%.*s\n", i ? next : first, e->name, n ? " " : "", (int)n, u);
		}
		i++;
		u += n;
	} while (*u && *++u);
}

void cmd_help(const struct cmd_entry *e, FILE *out)
{
	cmd_forms(e, "Usage: ", "       ", out);
	fprintf(out, "\n%c%s.\n", e->summary[0] >= 'a' && e->summary[0] <= 'z' ? e->summary[0] - 'a' + 'A' :
	        e->summary[0], e->summary + 1);
	if (e->help && *e->help)
		fprintf(out, "\n%s", e->help);
	fprintf(out, "  -h, --help      show this help and exit\n\nSee kbtui(1).\n");
}

void cmd_usage_lines(const struct cmd_entry *const *table, FILE *out)
{
	for (size_t i = 0; table[i]; i++)
		cmd_forms(table[i], "       ", "       ", out);
}

void cmd_list(const struct cmd_entry *const *table, FILE *out)
{
	for (size_t i = 0; table[i]; i++)
		fprintf(out, "  %-14s %s\n", table[i]->name, table[i]->summary);
}

int cmd_usage_error(FILE *err, const char *name, const char *fmt, const char *arg)
{
	char *a = textsafe(arg ? arg : "", strlen(arg ? arg : ""), 0);
	/* "kbtui compare: compare needs ..." reads twice: a message that names
	 * the command itself goes after "kbtui: " */
	int named = !strncmp(fmt, "%s", 2) && !strncmp(a, name, strlen(name)) && a[strlen(name)] == ' ';
	fprintf(err, named ? "kbtui: " : "kbtui %s: ", name);
	fprintf(err, fmt, a);
	textsafe_fprintf(err, "\nTry 'kbtui %s --help'.\n", name);
	free(a);
	return CMD_USAGE;
}

int cmd_unknown_option(FILE *err, const char *name, const char *arg, const struct option *opts)
{
	char *hint = suggest_option(opts, arg);
	if (!hint)
		return cmd_usage_error(err, name, "unknown option '%s'", arg);
	char *fmt = xasprintf("unknown option '%%s'; did you mean '%s'?", hint);
	int rc = cmd_usage_error(err, name, fmt, arg);
	free(fmt);
	free(hint);
	return rc;
}

char *cmd_format_unknown(const char *name)
{
	const char *names[64];
	size_t n = 0;
	for (; parser_all[n] && n < 64; n++)
		names[n] = parser_all[n]->name;
	const char *hint = name ? suggest_closest(name, names, n) : NULL;
	return hint ? xasprintf("unknown format '%%s'; did you mean '%s'?", hint)
	            : xstrdup("unknown format '%s' (kbtui formats lists them)");
}

int cmd_option_typo(const struct option *opts, const char *arg)
{
	char *hint = suggest_option(opts, arg);
	int typo = hint != NULL;
	free(hint);
	return typo;
}

void cmd_no_problem(FILE *err, const char *name, const char *dir, const char *problem)
{
	char *hint = suggest_problem(dir, problem);
	char *p = textsafe(problem, strlen(problem), 0), *d = textsafe(dir, strlen(dir), 0);
	textsafe_fprintf(err, "kbtui %s: no problem '%s' in %s", name, p, d);
	if (hint) {
		textsafe_fprintf(err, "; did you mean '%s'?\n", hint);
	} else {
		int n;
		char **v = problem_names(dir, &n);
		fprintf(err, n ? "; the problems there:" : " (no problems there)");
		for (int i = 0; i < n; i++)
			textsafe_fprintf(err, " %s", v[i]);
		fputc('\n', err);
		problem_names_free(v, n);
	}
	free(p);
	free(d);
	free(hint);
}

const char *cmd_suggest(const struct cmd_entry *const *table, const char *word)
{
	const char *names[64];
	size_t n = 0;
	for (; table[n] && n < 64; n++)
		names[n] = table[n]->name;
	return suggest_closest(word, names, n);
}

int cmd_write_failed(FILE *out, FILE *err)
{
	errno = 0;
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	textsafe_fprintf(err, "kbtui: write error on the standard output: %s\n", errno ? strerror(errno) : "failed");
	return 1;
}

int cmd_dispatch(const struct cmd_entry *e, int argc, char **argv, const struct cmd_ctx *ctx)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			cmd_help(e, ctx->out);
			return cmd_write_failed(ctx->out, ctx->err) ? CMD_BADINPUT : CMD_OK;
		}
	int rc = e->exec(argc, argv, ctx);
	if (cmd_write_failed(ctx->out, ctx->err) && (rc == CMD_OK || e->trouble))
		rc = e->trouble ? e->trouble : CMD_BADINPUT;
	return rc;
}

/* ---- the dataset ------------------------------------------------------- */

int cmd_is_dataset(const char *dir)
{
	char *idx = util_path_join(dir, "runs.jsonl"), *runs = util_path_join(dir, "runs");
	int yes = util_is_dir(dir) && (util_is_file(idx) || util_is_dir(runs));
	free(idx);
	free(runs);
	return yes;
}

/* The dataset the working directory is in (it or its nearest parent that is
 * one); owned, NULL when none. *depth: how many levels up. */
static char *cmd_dataset_here(int *depth)
{
	char *cwd = getcwd(NULL, 0);
	*depth = 0;
	while (cwd && *cwd) {
		if (cmd_is_dataset(cwd))
			return cwd;
		char *slash = strrchr(cwd, '/');
		if (!slash || slash == cwd)
			break;
		*slash = '\0';
		(*depth)++;
	}
	free(cwd);
	return NULL;
}

char *cmd_default_dataset(const char *argv0, FILE *err)
{
	int depth;
	char *here = cmd_dataset_here(&depth);
	if (here) {
		if (err && depth > 0)
			textsafe_fprintf(err, "kbtui: dataset: %s (the working directory is in it)\n", here);
		return here;
	}
	char *d = dataset_default_dir(argv0);
	if (err) {
		const char *env = getenv("KBTUI_DATA");
		char *safe = textsafe(d, strlen(d), 0), *fetched = fetch_default_dest(HUB_DEFAULT_REPO);
		textsafe_fprintf(err, "kbtui: dataset: %s (%s)\n", safe,
		        env && *env ? "$KBTUI_DATA"
		        : strcmp(d, fetched) == 0 ? "no DIR given and none here: the fetched one"
		        : "no DIR given and none here: the bundled sample; kbtui fetch gets the real one");
		free(fetched);
		free(safe);
	}
	return d;
}

struct dataset *cmd_open_dataset(const char *dir, const char *argv0, FILE *err)
{
	char *def = dir ? NULL : cmd_default_dataset(argv0, err), *e = NULL;
	struct dataset *ds = dataset_open(dir ? dir : def, &e);
	if (!ds && err) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
	}
	free(def);
	return ds;
}

/* ---- the run ----------------------------------------------------------- */

long cmd_run_in_dataset(const char *path, struct dataset **dsp)
{
	char *real = realpath(path, NULL), *run_dir, *slash;
	long found = -1;
	*dsp = NULL;
	if (!real)
		return -1;
	run_dir = util_is_dir(real) ? xstrdup(real) : xstrndup(real, (size_t)(strrchr(real, '/') - real));
	slash = strrchr(run_dir, '/');
	if (slash && slash > run_dir) {
		char *runs = xstrndup(run_dir, (size_t)(slash - run_dir));
		char *root = strrchr(runs, '/');
		if (root && !strcmp(root, "/runs") && root > runs) {
			*root = '\0';
			char *err = NULL;
			struct dataset *ds = cmd_is_dataset(runs) ? dataset_open(runs, &err) : NULL;
			for (size_t i = 0; ds && i < ds->nruns && found < 0; i++) {
				char *d = ds->runs[i].dir ? realpath(ds->runs[i].dir, NULL) : NULL;
				char *t = ds->runs[i].transcript ? realpath(ds->runs[i].transcript, NULL) : NULL;
				/* the run's own transcript, not another file of its directory */
				if (d && !strcmp(d, run_dir) && (util_is_dir(real) || (t && !strcmp(t, real))))
					found = (long)i;
				free(d);
				free(t);
			}
			if (found >= 0)
				*dsp = ds;
			else if (ds)
				dataset_free(ds);
			free(err);
		}
		free(runs);
	}
	free(run_dir);
	free(real);
	return found;
}

long cmd_find_run(const struct dataset *ds, const char *id, FILE *err)
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
	if (!err)
		return -1;
	char *safe = textsafe(id, len, 0);
	if (n == 0)
		textsafe_fprintf(err, "kbtui: %s: no run `%s` (and no such file; kbtui runs lists the runs)\n", ds->root, safe);
	else
		textsafe_fprintf(err, "kbtui: %s: `%s` matches %ld runs:\n", ds->root, safe, n);
	free(safe);
	for (size_t i = 0, shown = 0; n > 1 && i < ds->nruns && shown < 10; i++)
		if (ds->runs[i].meta.run_id && !strncmp(ds->runs[i].meta.run_id, id, len)) {
			textsafe_fprintf(err, "  %s\n", ds->runs[i].meta.run_id);
			shown++;
		}
	return -1;
}

int cmd_run_resolve(const char *arg, const char *dir, const char *argv0, struct cmd_run *cr, FILE *err)
{
	memset(cr, 0, sizeof *cr);
	cr->idx = -1;
	if (util_is_file(arg) || util_is_dir(arg)) {
		cr->idx = cmd_run_in_dataset(arg, &cr->ds);
		if (cr->idx >= 0) {
			const struct ds_run *d = &cr->ds->runs[cr->idx];
			cr->transcript = d->transcript ? xstrdup(d->transcript) : NULL;
			cr->name = xstrdup(d->meta.run_id ? d->meta.run_id : arg);
			return 0;
		}
		cr->transcript = util_is_dir(arg) ? dataset_find_transcript(arg) : xstrdup(arg);
		if (!cr->transcript) {
			if (err)
				textsafe_fprintf(err, "kbtui: %s: no transcript (transcript.jsonl or one *.jsonl) in this directory\n", arg);
			return -1;
		}
		cr->name = xstrdup(arg);
		return 0;
	}
	if (!(cr->ds = cmd_open_dataset(dir, argv0, err)))
		return -1;
	if ((cr->idx = cmd_find_run(cr->ds, arg, err)) < 0) {
		cmd_run_free(cr);
		return -1;
	}
	const struct ds_run *d = &cr->ds->runs[cr->idx];
	cr->transcript = d->transcript ? xstrdup(d->transcript) : NULL;
	cr->name = xstrdup(d->meta.run_id);
	return 0;
}

void cmd_run_free(struct cmd_run *cr)
{
	dataset_free(cr->ds);
	free(cr->transcript);
	free(cr->name);
	memset(cr, 0, sizeof *cr);
	cr->idx = -1;
}

/* ---- what the commands print ------------------------------------------ */

void cmd_report_run(const struct run *r, FILE *err)
{
	for (int i = 0; i < r->nerrors; i++)
		textsafe_fprintf(err, "%s:%d: %s\n", r->source ? r->source : "-", r->errors[i].line,
		        r->errors[i].msg);
	if (r->malformed > r->nerrors)
		textsafe_fprintf(err, "%s: %d more malformed lines\n", r->source ? r->source : "-",
		        r->malformed - r->nerrors);
}

/* Whether a file holds nothing but white space (an agent that exited at
 * once leaves an empty transcript). */
static int cmd_blank_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	int c = EOF;
	if (!f)
		return 1;
	while ((c = getc(f)) != EOF && (c == ' ' || c == '\n' || c == '\r' || c == '\t'))
		;
	fclose(f);
	return c == EOF;
}

int cmd_not_a_transcript(const struct run *r, const char *file, FILE *err)
{
	if (r->meta.format)
		return 0;
	if (r->nev == 0 && r->malformed == 0 && cmd_blank_file(file))
		return 0;  /* an empty transcript: nothing to recognise, nothing wrong */
	if (r->malformed)  /* the lines that failed say why (the caller reports them) */
		return r->nev == 0;
	char *safe = textsafe(file, strlen(file), 0);
	textsafe_fprintf(err, "%s:1: unrecognised transcript format (try --format; kbtui formats lists them)\n", safe);
	free(safe);
	return 1;
}


/* Writes cJSON's output with DEL, the C1 controls (U+0080..U+009F), line
 * separators and bidi overrides escaped as \uXXXX and invalid UTF-8 bytes
 * as \ufffd (cJSON passes them through raw), so that a terminal showing
 * `dump --jsonl` or `runs --json` acts on none of a transcript's bytes (an
 * 8-bit CSI is as live as ESC [). They only occur inside strings, so this
 * stays JSON. */
void cmd_json_item(struct cmd_json_list *l, const char *json)
{
	struct sbuf b;
	sbuf_init(&b);
	if (l->mode == CMD_OUT_JSON)
		sbuf_adds(&b, l->n ? ",\n" : "[\n");
	textsafe_json_fix(&b, json);
	if (l->mode != CMD_OUT_JSON)
		sbuf_addc(&b, '\n');
	fwrite(b.s, 1, b.len, l->out);
	sbuf_free(&b);
	l->n++;
}

void cmd_json_end(struct cmd_json_list *l)
{
	if (l->mode == CMD_OUT_JSON)
		fputs(l->n ? "\n]\n" : "[]\n", l->out);
}

void cmd_put_json(FILE *out, const char *s)
{
	struct sbuf b;
	sbuf_init(&b);
	textsafe_json_fix(&b, s);
	sbuf_addc(&b, '\n');
	fwrite(b.s, 1, b.len, out);
	sbuf_free(&b);
}
