/* cmd_dump.c: `kbtui dump`: the normalized events of one run, as text or
 * as JSON lines (the DUMP FORMAT of kbtui(1)). */
#include "cmd.h"
#include "dataset.h"
#include "ftrack.h"
#include "jsonx.h"
#include "parser.h"
#include "textsafe.h"
#include "util.h"

#include <getopt.h>
#include <malloc.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *nz(const char *s)
{
	return s ? s : "";
}

static void cmd_dump_json(struct cmd_json_list *l, const struct event *e, size_t i, const char *diff)
{
	cJSON *o = cJSON_CreateObject();
	char *s;

	cJSON_AddNumberToObject(o, "i", (double)i);
	cJSON_AddStringToObject(o, "kind", ev_kind_name(e->kind));
	if (e->name)
		cJSON_AddStringToObject(o, "name", e->name);
	else
		cJSON_AddNullToObject(o, "name");
	if (e->call_id)
		cJSON_AddStringToObject(o, "call_id", e->call_id);
	else
		cJSON_AddNullToObject(o, "call_id");
	cJSON_AddBoolToObject(o, "is_error", e->is_error);
	if (e->text)
		cJSON_AddStringToObject(o, "text", e->text);
	else
		cJSON_AddNullToObject(o, "text");
	cJSON_AddNumberToObject(o, "line", e->line);
	if (e->ts > 0)
		cJSON_AddNumberToObject(o, "ts", e->ts);
	if (e->sidechain)
		cJSON_AddBoolToObject(o, "sidechain", 1);
	if (e->redacted)
		cJSON_AddBoolToObject(o, "redacted", 1);
	if (e->link >= 0)
		cJSON_AddNumberToObject(o, "link", e->link);
	if (e->parent)
		cJSON_AddStringToObject(o, "parent", e->parent);
	if (e->path)
		cJSON_AddStringToObject(o, "path", e->path);
	if (e->args)
		cJSON_AddStringToObject(o, "args", e->args);
	if (e->summary)
		cJSON_AddStringToObject(o, "summary", e->summary);
	if (diff && *diff)
		cJSON_AddStringToObject(o, "diff", diff);
	if (e->kind == EV_USAGE) {
		cJSON *t = cJSON_AddObjectToObject(o, "tokens");
		cJSON_AddNumberToObject(t, "input", (double)e->tok_in);
		cJSON_AddNumberToObject(t, "output", (double)e->tok_out);
		cJSON_AddNumberToObject(t, "cache_read", (double)e->tok_cache_read);
		cJSON_AddNumberToObject(t, "cache_write", (double)e->tok_cache_write);
		cJSON_AddNumberToObject(t, "reasoning", (double)e->tok_reasoning);
	}
	s = jx_print(o);  /* cJSON_PrintUnformatted's text, faster */
	cmd_json_item(l, s);
	free(s);
	cJSON_Delete(o);
}

static void cmd_dump_text(FILE *out, const struct event *e, size_t i)
{
	const char *body = e->kind == EV_TOOL_CALL ? (e->path ? e->path : e->args) : e->text;
	char *tokens = e->kind == EV_USAGE ? xasprintf("in %lld out %lld cache_read %lld cache_write %lld reasoning %lld",
	                                               e->tok_in, e->tok_out, e->tok_cache_read, e->tok_cache_write,
	                                               e->tok_reasoning) : NULL;
	if (tokens)
		body = tokens;
	char *safe = textsafe(nz(body), strlen(nz(body)), 0);
	char *name = textsafe(nz(e->name), strlen(nz(e->name)), 0);

	/* numbered from 1, as the replay, search and flags number events */
	textsafe_fprintf(out, "%5zu %-11s%s %s%s%.*s\n", i + 1, ev_kind_name(e->kind),
	        e->sidechain ? "*" : " ", name, *name ? ": " : "", (int)textsafe_cut(safe, strlen(safe), 160), safe);
	free(tokens);
	free(safe);
	free(name);
}

/* ---- streaming ----------------------------------------------------------
 *
 * A dump reads the transcript twice, a slice at a time, so that its memory
 * follows the number of events rather than their text (issue #28):
 *
 *  1. the facts pass parses the file, freeing each event's strings once it
 *     is settled (reader_settled: no later line nor the finish reads or
 *     changes them), and keeps what only the end of the file decides: each
 *     call's link (its result may come at any distance, or never) and each
 *     usage event's tokens (Claude Code raises a message's usage on any
 *     later line of that message id);
 *  2. the print pass parses the same bytes again and prints each event as
 *     soon as it is settled, with the facts of pass 1, then frees its
 *     strings. Its diff is rendered then: versions are immutable and made
 *     by the call itself, so the text is the one a whole load renders.
 *
 * What stays is a struct event per event (the parsers and run_link index
 * the run), their short strings (name, call id, path, parent), the file
 * versions written (ftrack) and the facts: not the transcript's text. */

struct dump_facts {
	size_t nev;
	int *link;                 /* per event */
	long long (*tok)[5];       /* per usage event, in order */
	size_t ntok;
};


struct dump_pass1 {
	size_t done;
};

static void dump_facts_settled(void *arg, struct run *r, size_t settled)
{
	struct dump_pass1 *p = arg;
	for (; p->done < settled; p->done++)
		run_event_drop_text(&r->ev[p->done]);
	ftrack_forget(r->files, p->done);   /* (this pass renders no diff) */
}

static void dump_facts_take(struct dump_facts *f, const struct run *r)
{
	f->nev = r->nev;
	f->link = xcalloc(r->nev ? r->nev : 1, sizeof *f->link);
	f->ntok = run_count(r, EV_USAGE);
	f->tok = xcalloc(f->ntok ? f->ntok : 1, sizeof *f->tok);
	for (size_t i = 0, u = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		f->link[i] = e->link;
		if (e->kind == EV_USAGE) {
			long long t[5] = {e->tok_in, e->tok_out, e->tok_cache_read, e->tok_cache_write, e->tok_reasoning};
			memcpy(f->tok[u++], t, sizeof t);
		}
	}
}

static void dump_facts_free(struct dump_facts *f)
{
	free(f->link);
	free(f->tok);
}

struct dump_pass2 {
	const struct dump_facts *facts;
	struct cmd_json_list *list;
	FILE *out;
	int jsonl;
	size_t done, ntok;
	int changed;               /* the file is not what pass 1 read */
};

static void dump_print_settled(void *arg, struct run *r, size_t settled)
{
	struct dump_pass2 *p = arg;
	for (; p->done < settled && !p->changed; p->done++) {
		size_t i = p->done;
		struct event e = r->ev[i];
		if (i >= p->facts->nev || (e.kind == EV_USAGE && p->ntok >= p->facts->ntok)) {
			p->changed = 1;
			break;
		}
		e.link = p->facts->link[i];
		if (e.kind == EV_USAGE) {
			const long long *t = p->facts->tok[p->ntok++];
			e.tok_in = t[0], e.tok_out = t[1], e.tok_cache_read = t[2], e.tok_cache_write = t[3];
			e.tok_reasoning = t[4];
		}
		if (p->jsonl) {
			char *diff = ftrack_diff(r->files, i);
			cmd_dump_json(p->list, &e, i, diff);
			free(diff);
		} else {
			cmd_dump_text(p->out, &e, i);
		}
		run_event_drop_text(&r->ev[i]);
	}
	ftrack_forget(r->files, p->done);
}

/* Prints the events of file; *ran gets the run as the facts pass left it
 * (errors, format, counts: what the tail of cmd_dump reports), NULL with
 * *e on an I/O failure; *nev the number of events (r keeps none of
 * them). Returns 0, or -1 when the file changed between
 * the passes (the output is then not that of one file). */
static int dump_stream(const char *file, const struct parser_ops *forced, int jsonl, size_t slice,
                       struct cmd_json_list *list, FILE *out, struct run **ran, size_t *nev, char **e)
{
	/* Each pass grows an event array a block doubles; the first's, freed,
	 * would raise malloc's size for mapping a block to its own, so that
	 * the second's grew in the heap, where a doubling keeps the old block
	 * beside the new: 30 MB at 100k events where 23 MB do. */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	struct dump_pass1 p1 = {0};
	struct dump_facts facts = {0};
	size_t bytes = SIZE_MAX;
	struct run *r = parser_load_stream(file, forced, e, slice, &bytes, dump_facts_settled, &p1);
	*ran = r;
	if (!r)
		return 0;
	dump_facts_take(&facts, r);
	/* the events' structs go before the second pass makes its own */
	for (size_t i = 0; i < r->nev; i++)
		run_event_free(&r->ev[i]);
	free(r->ev);
	r->ev = NULL;
	r->nev = r->cap = 0;
	ftrack_free(r->files);
	r->files = NULL;
	run_linker_free(r->linker);
	r->linker = NULL;

	struct dump_pass2 p2 = {&facts, list, out, jsonl, 0, 0, 0};
	char *e2 = NULL;
	size_t again = bytes;
	struct run *r2 = parser_load_stream(file, forced, &e2, slice, &again, dump_print_settled, &p2);
	int changed = !r2 || again != bytes || r2->nev != facts.nev || p2.done != facts.nev || p2.changed;
	free(e2);
	run_free(r2);
	dump_facts_free(&facts);
	*nev = facts.nev;
	return changed ? -1 : 0;
}

/* The old way, kept for tests that hold the stream to it: load the whole
 * run, then print it. */
static struct run *dump_whole(const char *file, const struct parser_ops *forced, int jsonl,
                              struct cmd_json_list *list, FILE *out, char **e)
{
	struct run *r = parser_load_final(file, forced, e);
	for (size_t i = 0; r && i < r->nev; i++) {
		if (jsonl)
			cmd_dump_json(list, &r->ev[i], i, run_event_diff(r, i));
		else
			cmd_dump_text(out, &r->ev[i], i);
	}
	return r;
}

int cmd_dump(const char *path, const char *format, int jsonl, FILE *out, FILE *err)
{
	return cmd_dump_how(path, format, jsonl, 0, out, err);
}

int cmd_dump_how(const char *path, const char *format, int jsonl, size_t slice, FILE *out, FILE *err)
{
	const struct parser_ops *forced = NULL;
	char *file = NULL, *e = NULL;
	struct run *r;
	int rc = CMD_OK;

	if (format && !(forced = parser_find(format))) {
		textsafe_fprintf(err, "kbtui: unknown format '%s' (kbtui formats lists them)\n", format);
		return CMD_USAGE;
	}
	if (util_is_dir(path)) {
		file = dataset_find_transcript(path);
		if (!file) {
			char *idx = util_path_join(path, "runs.jsonl");
			int dataset = util_is_file(idx);
			free(idx);
			if (dataset)  /* the next thing a user tries: say what dump wants */
				textsafe_fprintf(err, "kbtui: %s: a dataset, not a run: dump takes a run directory (%s/runs/RUN_ID) "
				        "or a transcript; kbtui runs %s lists the runs\n", path, path, path);
			else
				textsafe_fprintf(err, "kbtui: %s: no transcript (transcript.jsonl or one *.jsonl) in this directory\n", path);
			return CMD_BADINPUT;
		}
	} else {
		file = xstrdup(path);
	}
	struct cmd_json_list list = {out, (enum cmd_out)jsonl, 0};
	int changed = 0;
	size_t nev = 0;
	/* a file that is not regular (a pipe) cannot be read twice */
	if (slice == (size_t)-1 || !util_is_file(file))
		r = dump_whole(file, forced, jsonl, &list, out, &e);
	else
		changed = dump_stream(file, forced, jsonl, slice, &list, out, &r, &nev, &e) < 0;
	if (!r) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		free(file);
		return CMD_BADINPUT;
	}
	if (jsonl)
		cmd_json_end(&list);
	if (changed) {
		textsafe_fprintf(err, "kbtui: %s: the file changed while it was read; dump it again\n", file);
		rc = CMD_BADINPUT;
	}
	struct run counts = *r;  /* the tail reads the count of events, not them */
	if (!r->ev)
		counts.nev = nev;
	if (cmd_not_a_transcript(&counts, file, err))
		rc = CMD_BADINPUT;
	if (r->malformed) {
		cmd_report_run(r, err);
		rc = CMD_BADINPUT;
	}
	run_free(r);
	free(file);
	return rc;
}

static int cmd_dump_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{"jsonl", no_argument, NULL, 'l'},
		{"json", no_argument, NULL, 'j'},
		{"format", required_argument, NULL, 'f'},
		{NULL, 0, NULL, 0},
	};
	const char *format = NULL;
	int jsonl = 0, ch;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":f:", opts, NULL)) != -1) {
		switch (ch) {
		case 'l': jsonl = CMD_OUT_JSONL; break;
		case 'j': jsonl = CMD_OUT_JSON; break;
		case 'f': format = optarg; break;
		case ':': return cmd_usage_error(ctx->err, "dump", "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(ctx->err, "dump", argv[optind - 1], opts);
		}
	}
	if (argc - optind != 1)
		return cmd_usage_error(ctx->err, "dump", "%s", "needs exactly one RUN (a run id, a run directory or a transcript)");
	if (format && !parser_find(format))
	{
		char *fmt = cmd_format_unknown(format);
		int rc = cmd_usage_error(ctx->err, "dump", fmt, format);
		free(fmt);
		return rc;
	}
	const char *arg = argv[optind];
	if (util_is_file(arg) || util_is_dir(arg))
		return cmd_dump(arg, format, jsonl, ctx->out, ctx->err);
	/* a run id or a prefix of one, in the dataset the command is run in */
	struct cmd_run cr;
	if (cmd_run_resolve(arg, NULL, ctx->argv0, &cr, ctx->err) < 0)
		return CMD_BADINPUT;
	int rc;
	if (!cr.transcript) {
		textsafe_fprintf(ctx->err, "kbtui: %s: this run has no transcript in the dataset\n", cr.name);
		rc = CMD_BADINPUT;
	} else {
		rc = cmd_dump(cr.transcript, format, jsonl, ctx->out, ctx->err);
	}
	cmd_run_free(&cr);
	return rc;
}

const struct cmd_entry cmd_dump_entry = {
	.name = "dump",
	.usage = "[--jsonl|--json] [--format FMT] RUN",
	.summary = "the normalized events of one run, numbered from 1",
	.help = "RUN: a run id or a unique prefix of one (in the dataset the working\n"
	        "directory is in, else the default one), a run directory or a transcript.\n"
	        "  --jsonl         one JSON object per event, one per line (kbtui(1), DUMP FORMAT)\n"
	        "  --json          the same objects as one JSON document, an array\n"
	        "  -f, --format FMT  read the transcript as FMT instead of sniffing the content\n",
	.exec = cmd_dump_exec,
};
