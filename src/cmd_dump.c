/* cmd_dump.c: `kbtui dump`: the normalized events of one run, as text or
 * as JSON lines (the DUMP FORMAT of kbtui(1)). */
#include "cmd.h"
#include "dataset.h"
#include "jsonx.h"
#include "parser.h"
#include "textsafe.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char *nz(const char *s)
{
	return s ? s : "";
}

static void cmd_dump_json(struct cmd_json_list *l, const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
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
	const char *diff = run_event_diff(r, i);
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

static void cmd_dump_text(FILE *out, const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
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

int cmd_dump(const char *path, const char *format, int jsonl, FILE *out, FILE *err)
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
	r = parser_load_final(file, forced, &e);
	if (!r) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		free(file);
		return CMD_BADINPUT;
	}
	struct cmd_json_list list = {out, (enum cmd_out)jsonl, 0};
	for (size_t i = 0; i < r->nev; i++) {
		if (jsonl)
			cmd_dump_json(&list, r, i);
		else
			cmd_dump_text(out, r, i);
	}
	if (jsonl)
		cmd_json_end(&list);
	if (cmd_not_a_transcript(r, file, err))
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
		fprintf(ctx->err, "kbtui: %s: this run has no transcript in the dataset\n", cr.name);
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
