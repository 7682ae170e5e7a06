/* cmd_flags.c: `kbtui flags`: the auto-flags of every run of a dataset (or
 * of one run), and over the annotated runs a table of verdict x flagged,
 * which measures the rules. */
#include "config.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "dataset.h"
#include "flags.h"
#include "parser.h"
#include "problem.h"
#include "suggested.h"
#include "textsafe.h"
#include "util.h"

extern const struct cmd_entry cmd_flags_entry;

struct cmd_flags {
	struct flag_rules *rs;
	int json;                    /* an enum cmd_out */
	struct cmd_json_list list;
	FILE *out, *err;
	const char *problems;        /* the dataset's problems/ (borrowed), else the installed */
	char *problems_def;
	size_t *rule_runs;           /* runs each rule trips on */
	const char *annotations;     /* verdicts from here first (--verdicts) */
};

static void cmd_flags_print(struct cmd_flags *c, const char *run_id, const struct flag_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct flag_hit *h = &l->hits[i];
		const char *label = flag_rule_label(c->rs, h->rule);
		if (c->json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "run_id", run_id);
			cJSON_AddNumberToObject(o, "event", (double)(h->event + 1));
			cJSON_AddStringToObject(o, "rule", label);
			cJSON_AddStringToObject(o, "why", flag_rule_why(c->rs, h->rule));
			cJSON_AddStringToObject(o, "in", flag_where_name(h->where));
			cJSON_AddNumberToObject(o, "line", h->line);
			cJSON_AddStringToObject(o, "text", h->text);
			if (h->note)
				cJSON_AddStringToObject(o, "note", h->note);
			if (h->other)
				cJSON_AddStringToObject(o, "other_run", h->other);
			if (h->other && h->overlap >= 0)
				cJSON_AddNumberToObject(o, "overlap", h->overlap);
			char *js = cJSON_PrintUnformatted(o);
			cmd_json_item(&c->list, js);
			cJSON_free(js);
			cJSON_Delete(o);
			continue;
		}
		char *id = textsafe(run_id, strlen(run_id), 0);
		/* the line around the match, cut to a readable width */
		size_t from = h->so > 60 ? h->so - 60 : 0, to = strlen(h->text);
		if (to > from + 160)
			to = from + 160;
		while (from > 0 && ((unsigned char)h->text[from] & 0xC0) == 0x80)  /* whole characters */
			from--;
		while (to < strlen(h->text) && ((unsigned char)h->text[to] & 0xC0) == 0x80)
			to++;
		char *t = textsafe(h->text + from, to - from, 0);
		char *note = h->note ? textsafe(h->note, strlen(h->note), 0) : NULL;
		textsafe_fprintf(c->out, "%s:%zu: %s: %s%s%s%s%s%s\n", id, h->event + 1, label, from ? "..." : "", t,
		        to < strlen(h->text) ? "..." : "", note ? " [" : "", note ? note : "", note ? "]" : "");
		free(note);
		free(t);
		free(id);
	}
}

/* The judge's suggestions kept beside the run's transcript (kbtui judge),
 * listed after its flags as "suggested": never counted as flags. */
static void cmd_flags_suggested(struct cmd_flags *c, const struct run *r, const char *run_id)
{
	if (!r->source)
		return;
	char *path = suggested_path(r->source), *e = NULL;
	struct suggested sg;
	if (suggested_load(path, &sg, &e) < 0) {  /* a broken file is said, the flags still listed */
		textsafe_fprintf(c->err, "kbtui flags: %s\n", e);
		free(e);
	}
	for (size_t i = 0; i < sg.n; i++) {
		const struct suggested_item *it = &sg.it[i];
		if (c->json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "run_id", run_id);
			cJSON_AddNumberToObject(o, "event", (double)it->event);
			cJSON_AddStringToObject(o, "suggested", it->cls);
			cJSON_AddStringToObject(o, "status", it->status);
			cJSON_AddStringToObject(o, "model", sg.model);
			cJSON_AddStringToObject(o, "text", it->quote);
			char *js = cJSON_PrintUnformatted(o);
			cmd_json_item(&c->list, js);
			cJSON_free(js);
			cJSON_Delete(o);
		} else {
			char *id = textsafe(run_id, strlen(run_id), 0), *k = textsafe(it->cls, strlen(it->cls), 0);
			char *mm = textsafe(sg.model, strlen(sg.model), 0), *qq = textsafe(it->quote, strlen(it->quote), 0);
			char *ss = textsafe(it->status, strlen(it->status), 0);
			fprintf(c->out, "%s:%ld: %s (%s, %s): %s\n", id, it->event, k, ss, mm, qq);
			free(id);
			free(k);
			free(mm);
			free(qq);
			free(ss);
		}
	}
	suggested_free(&sg);
	free(path);
}

/* Flags of one loaded run; returns whether it is flagged. */
static int cmd_flags_run(struct cmd_flags *c, const struct run *r, const char *run_id, const char *problem)
{
	struct flag_list l;
	int nf = 0;
	char **forbidden = flag_forbidden(c->problems, problem, &nf);
	flag_eval_in(c->rs, r, problem, c->problems, forbidden, nf, &l);
	cmd_flags_print(c, run_id, &l);
	cmd_flags_suggested(c, r, run_id);
	int seen[64] = { 0 };
	for (size_t i = 0; i < l.n; i++) {
		size_t k = l.hits[i].rule;
		if (k < 64 && !seen[k]++)
			c->rule_runs[k]++;
	}
	int flagged = l.n > 0;
	flag_list_free(&l);
	problem_names_free(forbidden, nf);
	return flagged;
}

/* verdict x flagged over the annotated runs (and the runs without one) */
struct cmd_flags_row {
	const char *verdict;
	size_t flagged, clean;
};

static void cmd_flags_count(struct cmd_flags_row *rows, size_t *nrows, const char *verdict, int flagged)
{
	size_t i;
	for (i = 0; i < *nrows && strcmp(rows[i].verdict, verdict); i++)
		;
	if (i == *nrows) {
		rows[i].verdict = verdict;
		rows[i].flagged = rows[i].clean = 0;
		(*nrows)++;
	}
	if (flagged)
		rows[i].flagged++;
	else
		rows[i].clean++;
}

static void cmd_flags_table(struct cmd_flags *c, struct cmd_flags_row *rows, size_t nrows, size_t nruns)
{
	FILE *out = c->out;
	fprintf(out, "\n%-16s %8s %12s\n", "VERDICT", "FLAGGED", "NOT_FLAGGED");
	for (size_t i = 0; i < nrows; i++) {
		char *v = textsafe(rows[i].verdict, strlen(rows[i].verdict), 0);
		fprintf(out, "%-16s %8zu %12zu\n", v, rows[i].flagged, rows[i].clean);
		free(v);
	}
	textsafe_fprintf(out, "\n%-24s %s\n", "RULE", "RUNS");
	for (size_t k = 0; k < flag_rules_count(c->rs) && k < 64; k++)
		fprintf(out, "%-24s %zu/%zu\n", flag_rule_label(c->rs, k), c->rule_runs[k], nruns);
}

/* The verdict of --verdicts DIR/<run_id>.yaml (owned), NULL when none. */
static char *cmd_flags_verdict(struct cmd_flags *c, const char *run_id)
{
	if (!c->annotations)
		return NULL;
	char *path = xasprintf("%s/%s.yaml", c->annotations, run_id), *e = NULL;
	int line = 0;
	char *v = util_is_file(path) ? dataset_read_verdict(path, &line, &e) : NULL;
	free(e);
	free(path);
	return v;
}

/* A run read for its flags: a file no format reads is said to be no
 * transcript (1: nothing to flag); a transcript's malformed lines are
 * named, as dump names them, since what they held went unchecked. */
static int cmd_flags_unreadable(const struct run *r, const char *file, FILE *err)
{
	int none = cmd_not_a_transcript(r, file, err);
	if (r->malformed)
		cmd_report_run(r, err);
	return none;
}

static int cmd_flags_dataset(struct cmd_flags *c, const char *dir, FILE *err)
{
	char *e = NULL;
	struct dataset *ds = dataset_open(dir, &e);
	if (!ds) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		return CMD_BADINPUT;
	}
	char *pdir = util_path_join(dir, "problems");
	if (util_is_dir(pdir))
		c->problems = pdir;
	struct cmd_flags_row *rows = xcalloc(ds->nruns + 1, sizeof *rows);
	size_t nrows = 0, nloaded = 0, nverdicts = 0;
	char **verdicts = NULL;
	int bad = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		if (!d->transcript)
			continue;
		struct run *r = dataset_load(ds, i);
		if (!r) {
			textsafe_fprintf(err, "kbtui: %s\n", d->load_error);
			bad = 1;
			continue;
		}
		if (cmd_flags_unreadable(r, d->transcript, err)) {
			run_free(r);
			d->run = NULL;
			bad = 1;
			continue;
		}
		bad |= r->malformed > 0;
		nloaded++;
		int f = cmd_flags_run(c, r, d->meta.run_id, d->meta.problem ? d->meta.problem : r->meta.problem);
		char *v = cmd_flags_verdict(c, d->meta.run_id);
		const char *verdict = v ? v : d->verdict ? d->verdict : "(none)";
		for (size_t k = 0; k < nrows; k++)  /* the row keeps the first copy */
			if (!strcmp(rows[k].verdict, verdict))
				verdict = rows[k].verdict;
		if (verdict == v) {
			verdicts = xrealloc(verdicts, (nverdicts + 1) * sizeof *verdicts);
			verdicts[nverdicts++] = v;
		} else {
			free(v);
		}
		cmd_flags_count(rows, &nrows, verdict, f);
		run_free(r);  /* one run in memory at a time */
		d->run = NULL;
	}
	if (!c->json)
		cmd_flags_table(c, rows, nrows, nloaded);
	free(rows);
	problem_names_free(verdicts, (int)nverdicts);
	free(pdir);
	dataset_free(ds);
	return bad ? CMD_BADINPUT : CMD_OK;
}

/* One run: a run directory or a transcript; the problems beside its
 * dataset when it is in one. */
static int cmd_flags_one(struct cmd_flags *c, const char *path, FILE *err)
{
	char *file = util_is_dir(path) ? dataset_find_transcript(path) : xstrdup(path), *e = NULL;
	if (!file) {
		textsafe_fprintf(err, "kbtui: %s: no transcript in it\n", path);
		return CMD_BADINPUT;
	}
	struct run *r = parser_load_final(file, NULL, &e);
	if (!r) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		free(file);
		return CMD_BADINPUT;
	}
	if (cmd_flags_unreadable(r, file, err)) {  /* nothing read: no verdict to give */
		run_free(r);
		free(file);
		return CMD_BADINPUT;
	}
	int bad = r->malformed > 0;  /* flagged over what could be read, and said */
	/* its id: the run's own, else its folder's name (runs/ID/transcript.jsonl)
	 * or a loose transcript's name without the extension */
	char *id = xstrdup(r->meta.run_id ? r->meta.run_id : path);
	size_t n = strlen(id);
	while (n > 1 && id[n - 1] == '/')
		id[--n] = '\0';
	if (!r->meta.run_id) {
		const char *slash = strrchr(id, '/'), *base = slash ? slash + 1 : id;
		if (!util_is_dir(path) && (!strcmp(base, "transcript.jsonl") || !strcmp(base, "codex_session.jsonl"))) {
			char *dir = xstrndup(id, (size_t)(base - id - (slash ? 1 : 0)));
			const char *ds = strrchr(dir, '/');
			char *b = xstrdup(ds ? ds + 1 : dir);
			free(dir);
			free(id);
			id = b;
		} else {
			char *b = util_is_dir(path) ? xstrdup(base) : xstrndup(base, strcspn(base, "."));
			free(id);
			id = b;
		}
	}
	char *pdir = flag_problems_dir(file);
	c->problems = pdir;
	char *problem = flag_run_problem(r, pdir);
	int f = cmd_flags_run(c, r, id, problem);
	if (!c->json)
		textsafe_fprintf(c->out, "%s\n", f ? "flagged" : "not flagged");
	free(problem);
	free(pdir);
	free(id);
	free(file);
	run_free(r);
	return bad ? CMD_BADINPUT : CMD_OK;
}

int cmd_flags(int argc, char **argv, FILE *out, FILE *err)
{
	static const struct option opts[] = {
		{"rules", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"jsonl", no_argument, NULL, 'l'},
		{"verdicts", required_argument, NULL, 'a'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	struct cmd_flags c = { .out = out, .err = err };
	const char *rules = NULL;
	int ch;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (ch) {
		case 'r': rules = optarg; break;
		case 'j': c.json = CMD_OUT_JSON; break;
		case 'l': c.json = CMD_OUT_JSONL; break;
		case 'a': c.annotations = optarg; break;
		case 'h': cmd_help(&cmd_flags_entry, out); return CMD_OK;
		default:
			if (cmd_option_typo(opts, argv[optind - 1]))
				return cmd_unknown_option(err, "flags", argv[optind - 1], opts);
			textsafe_fprintf(err, "kbtui flags: unknown option or missing argument '%s'\nTry 'kbtui flags --help'.\n",
			        argv[optind - 1]);
			return CMD_USAGE;
		}
	}
	if (argc - optind > 1) {
		textsafe_fprintf(err, "kbtui flags: one DIR or RUN, got '%s' too\n", argv[optind + 1]);
		return CMD_USAGE;
	}
	char *e = NULL, *def_rules = rules ? NULL : flag_rules_default_path();
	c.rs = flag_rules_load(rules ? rules : def_rules, &e);
	free(def_rules);
	if (!c.rs) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		return CMD_BADINPUT;
	}
	c.rule_runs = xcalloc(flag_rules_count(c.rs) + 1, sizeof *c.rule_runs);
	c.list = (struct cmd_json_list){out, (enum cmd_out)c.json, 0};
	c.problems = c.problems_def = problem_default_dir();
	char *def = argc > optind ? NULL : cmd_default_dataset(NULL, err);
	const char *path = def ? def : argv[optind];
	struct cmd_run cr = { .idx = -1 };
	int rc;
	if (cmd_is_dataset(path)) {
		rc = cmd_flags_dataset(&c, path, err);
	} else if (util_is_file(path) || util_is_dir(path)) {
		rc = cmd_flags_one(&c, path, err);
	} else if (cmd_run_resolve(path, NULL, NULL, &cr, err) < 0) {  /* a run id */
		rc = CMD_BADINPUT;
	} else if (!cr.transcript) {
		textsafe_fprintf(err, "kbtui: %s: this run has no transcript in the dataset\n", cr.name);
		rc = CMD_BADINPUT;
	} else {
		rc = cmd_flags_one(&c, cr.transcript, err);
	}
	if (c.json)
		cmd_json_end(&c.list);
	cmd_run_free(&cr);
	free(def);
	free(c.rule_runs);
	free(c.problems_def);
	flag_rules_free(c.rs);
	return rc;
}

static int cmd_flags_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_flags(argc, argv, ctx->out, ctx->err);
}

const struct cmd_entry cmd_flags_entry = {
	.name = "flags",
	.usage = "[--rules FILE] [--verdicts DIR] [--json|--jsonl] [DIR|RUN]",
	.summary = "the events the auto-flag rules mark, and verdict x flagged",
	.help = "Each event of each run of the dataset DIR (default: the one the working\n"
	        "directory is in, else the default one) that an auto-flag rule marks, as\n"
	        "run_id:event: rule: the matching line; then over the annotated runs a\n"
	        "table of verdict x flagged, which measures the rules. RUN, a run id, a\n"
	        "unique prefix, a run directory or a transcript: that run alone.\n"
	        "  --rules FILE    the rule file (default: the shipped flags.rules;\n"
	        "                  kbtui(1), FLAG RULES)\n"
	        "  --verdicts DIR  verdicts from DIR/RUN_ID.yaml first (another annotator's\n"
	        "                  files), else the dataset's\n"
	        "  --json          one JSON document: an array of an object per flagged event\n"
	        "  --jsonl         the same objects as JSON Lines, one per line\n"
	        "The judge's suggestions (kbtui judge) follow a run's flags as\n"
	        "run_id:event: class (status, model): quote; they are not counted.\n"
	        "A file no format reads, and a transcript's malformed lines, are named\n"
	        "on stderr (the run flagged over what could be read): exit status 1.\n",
	.exec = cmd_flags_exec,
};
