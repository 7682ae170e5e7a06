/* parse_gemini.c: Gemini CLI `--output-format stream-json`, as its
 * StreamJsonFormatter writes it (@google/gemini-cli-core,
 * dist/src/output/types.d.ts): one record a line, each with "type" and an
 * ISO "timestamp":
 *   init         session_id, model
 *   message      role (user|assistant), content, delta: true for a piece
 *                of a streamed answer
 *   tool_use     tool_name, tool_id, parameters
 *   tool_result  tool_id, status (success|error), output, error {type, message}
 *   error        severity (warning|error), message
 *   result       status (success|error), error, stats {total_tokens,
 *                input_tokens, output_tokens, cached, input, duration_ms,
 *                tool_calls, models}
 * Consecutive streamed pieces of one answer are joined into one event;
 * results pair with their call by tool_id; the result record ends the run
 * and carries its only token counts. */
#include "parser.h"
#include "jsonx.h"

#include <stdlib.h>
#include <string.h>

struct gemini_state {
	size_t merging;    /* index+1 of the answer streamed pieces are joined into */
	struct sbuf text;  /* that event's text, grown in place (owned by the event) */
};

static int gemini_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	(void)line;
	(void)len;
	/* Claude Code's records nest a "message" and have a "subtype" */
	if (!t || jx_get(obj, "message") || jx_get(obj, "subtype"))
		return 0;
	if (!strcmp(t, "init") && jx_str(obj, "session_id") && jx_str(obj, "model"))
		return 80;
	if ((!strcmp(t, "tool_use") && jx_str(obj, "tool_name") && jx_get(obj, "tool_id")) ||
	    (!strcmp(t, "tool_result") && jx_get(obj, "tool_id") && jx_str(obj, "status")))
		return 80;
	if (!strcmp(t, "result") && jx_str(obj, "status") && cJSON_IsObject(jx_get(obj, "stats")))
		return 70;
	if (!strcmp(t, "message") && jx_str(obj, "role") && cJSON_IsString(jx_get(obj, "content")))
		return 50;
	return 0;
}

static void *gemini_state_new(void)
{
	return xcalloc(1, sizeof(struct gemini_state));
}

/* The record's time on its event. */
static void gemini_ts(struct event *e, const cJSON *obj)
{
	if (e)
		e->ts = jx_time(jx_get(obj, "timestamp"));
}

static void gemini_message(struct parse_ctx *ctx, struct gemini_state *st, const cJSON *obj)
{
	struct run *r = ctx->run;
	const char *role = jx_str(obj, "role"), *content = jx_str(obj, "content");
	int user = role && !strcmp(role, "user"), delta = jx_bool(obj, "delta", 0);
	if (!user && delta && st->merging && st->merging == r->nev && r->ev[r->nev - 1].kind == EV_TEXT) {
		parser_append(&r->ev[r->nev - 1], &st->text, content);
		ctx->folded = 1;
		return;
	}
	struct event *e = parser_text(ctx, user ? EV_USER : EV_TEXT, content);
	gemini_ts(e, obj);
	/* a piece starts an answer the next pieces join; a whole message not */
	st->merging = !user && delta ? r->nev : 0;
	st->text.s = NULL;
}

static void gemini_tool_result(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *status = jx_str(obj, "status"), *out = jx_str(obj, "output");
	int failed = status && strcmp(status, "success");
	/* a failed call may say why only in its error */
	const char *why = jx_pstr(obj, "error.message");
	char *text = out && *out ? xstrdup(out) : why ? xstrdup(why) : xstrdup(out ? out : "");
	if (out && *out && why && failed && !strstr(out, why)) {
		char *t = xasprintf("%s\n%s", out, why);
		free(text);
		text = t;
	}
	gemini_ts(parser_tool_result(ctx, jx_str(obj, "tool_id"), text, failed), obj);
	free(text);
}

/* The result's stats are the run's only token counts: input_tokens is the
 * prompt with its cached part, input the part not cached, output_tokens the
 * answer without thoughts; total_tokens adds thoughts and tool prompts. */
static void gemini_usage(struct parse_ctx *ctx, const cJSON *obj)
{
	const cJSON *s = jx_get(obj, "stats");
	if (!cJSON_IsObject(s))
		return;
	long long prompt = jx_ll(s, "input_tokens", 0), cached = jx_ll(s, "cached", 0);
	long long out = jx_ll(s, "output_tokens", 0), total = jx_ll(s, "total_tokens", 0);
	struct event *e = run_add(ctx->run, EV_USAGE, ctx->lineno);
	e->tok_in = jx_ll(s, "input", prompt > cached ? prompt - cached : 0);
	e->tok_cache_read = cached;
	e->tok_out = out;
	e->tok_reasoning = total > prompt + out ? total - prompt - out : 0;
	gemini_ts(e, obj);
}

static int gemini_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	struct gemini_state *st = ctx->state;
	const char *t = jx_str(obj, "type");
	(void)line;
	(void)len;
	if (!t) {
		run_error(ctx->run, ctx->lineno, "gemini record without \"type\"");
		return -1;
	}
	if (!strcmp(t, "message")) {
		if (!cJSON_IsString(jx_get(obj, "content"))) {
			run_error(ctx->run, ctx->lineno, "gemini message without string \"content\"");
			return -1;
		}
		gemini_message(ctx, st, obj);
		return 0;
	}
	st->merging = 0;
	if (!strcmp(t, "init")) {
		const char *sid = jx_str(obj, "session_id"), *model = jx_str(obj, "model");
		if (sid && !ctx->run->meta.session_id)
			ctx->run->meta.session_id = xstrdup(sid);
		if (model && !ctx->run->meta.model)
			ctx->run->meta.model = xstrdup(model);
	} else if (!strcmp(t, "tool_use")) {
		const char *name = jx_str(obj, "tool_name");
		if (!name) {
			run_error(ctx->run, ctx->lineno, "gemini tool_use without \"tool_name\"");
			return -1;
		}
		const cJSON *args = jx_get(obj, "parameters");
		struct event *e = parser_tool_call_obj(ctx, name, jx_str(obj, "tool_id"), args, 1);
		/* run_shell_command: the list shows its command line, not its JSON */
		const char *cmd = jx_str(args, "command");
		if (e && cmd && !e->path && !e->summary)
			e->summary = xstrdup(cmd);
		gemini_ts(e, obj);
	} else if (!strcmp(t, "tool_result")) {
		gemini_tool_result(ctx, obj);
	} else if (!strcmp(t, "error")) {
		const char *sev = jx_str(obj, "severity"), *msg = jx_str(obj, "message");
		int warning = sev && !strcmp(sev, "warning");
		struct event *e = parser_text(ctx, warning ? EV_SYSTEM : EV_ERROR, msg ? msg : "");
		if (warning)
			e->name = xstrdup("warning");
		else
			e->is_error = 1;
		gemini_ts(e, obj);
	} else if (!strcmp(t, "result")) {
		const char *status = jx_str(obj, "status");
		if (status && strcmp(status, "success")) {  /* the session failed: said as an error */
			const char *why = jx_pstr(obj, "error.message");
			char *msg = xasprintf("result: %s%s%s", status, why ? ": " : "", why ? why : "");
			struct event *e = parser_text(ctx, EV_ERROR, msg);
			e->is_error = 1;
			gemini_ts(e, obj);
			free(msg);
		}
		gemini_usage(ctx, obj);
		ctx->run->complete_seen = 1;
	} else {
		/* records we do not model stay visible as system events */
		struct event *e = parser_text(ctx, EV_SYSTEM, "");
		e->name = xstrdup(t);
		gemini_ts(e, obj);
	}
	return 0;
}

static void gemini_finish(struct parse_ctx *ctx)
{
	ctx->run->incomplete = !ctx->run->complete_seen;
}

static const struct parser_ignored gemini_ignored[] = {
	{"init", "the session id and model: the run's metadata, no event"},
	{NULL, NULL},
};

static const char *const gemini_types[] = {"init", "message", "tool_use", "tool_result", "error", "result", NULL};

const struct parser_ops parse_gemini_ops = {
	.name = "gemini",
	.description = "Gemini CLI --output-format stream-json (init/message/tool_use/tool_result/result)",
	.sniff = gemini_sniff,
	.state_new = gemini_state_new,
	.state_free = free,
	.line = gemini_line,
	.finish = gemini_finish,
	.ignored = gemini_ignored,
	.types = gemini_types,
	.harness = "gemini",
	.tokens = "the result record's stats: input (the prompt less its cached part) in, cached as cache "
	          "reads, output_tokens out, the rest of total_tokens (thoughts, tool prompts) as reasoning",
};
