/* parse_droid.c: Factory `droid exec --output-format stream-json`.
 *
 *   {type: system, subtype: init, cwd, session_id, tools, model, reasoning_effort}
 *   {type: message, role: user|assistant, id, text, timestamp, session_id}
 *   {type: tool_call, id, messageId, toolId, toolName, parameters, timestamp}
 *   {type: tool_result, id, messageId, toolId, isError, value | error, timestamp}
 *   {type: error, source, message, timestamp}
 *   {type: completion, finalText, numTurns, durationMs, usage, session_id}
 *
 * The completion record marks a finished run. Token usage is only in the
 * completion record (Factory keeps per-turn usage in a sidecar file). */
#include "parser.h"
#include "jsonx.h"

#include <stdlib.h>
#include <string.h>

struct droid_state {
	/* ids of calls still waiting for their result, oldest first: some droid
	 * versions write tool_result without an id, which then answers the
	 * oldest pending call */
	char **pending;
	size_t npending, cap;
};

static int droid_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	const char *sub = jx_str(obj, "subtype");
	(void)line;
	(void)len;

	if (!t)
		return 0;
	if (!strcmp(t, "system"))
		return sub && !strcmp(sub, "init") && jx_get(obj, "reasoning_effort") &&
		       !jx_get(obj, "mcp_servers") ? 80 : 0;
	if (!strcmp(t, "message"))
		return jx_str(obj, "role") && jx_str(obj, "text") ? 80 : 0;
	if (!strcmp(t, "tool_call"))
		return jx_str(obj, "toolName") && jx_get(obj, "parameters") ? 80 : 0;
	if (!strcmp(t, "tool_result"))
		return jx_str(obj, "toolId") && jx_get(obj, "isError") ? 80 : 0;
	if (!strcmp(t, "completion"))
		return jx_str(obj, "finalText") ? 80 : 0;
	if (!strcmp(t, "error"))
		return jx_str(obj, "source") && jx_str(obj, "message") && !jx_get(obj, "sessionID") ? 30 : 0;
	return 0;
}

static void *droid_state_new(void)
{
	return xcalloc(1, sizeof(struct droid_state));
}

static void droid_state_free(void *p)
{
	struct droid_state *st = p;
	if (!st)
		return;
	for (size_t i = 0; i < st->npending; i++)
		free(st->pending[i]);
	free(st->pending);
	free(st);
}

static void droid_pending_add(struct droid_state *st, const char *id)
{
	if (st->npending == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 8;
		st->pending = xrealloc(st->pending, st->cap * sizeof *st->pending);
	}
	st->pending[st->npending++] = xstrdup(id);
}

/* Removes id from the pending calls (the oldest when id is NULL) and
 * returns it, owned by the caller; NULL when nothing matches. */
static char *droid_pending_take(struct droid_state *st, const char *id)
{
	for (size_t i = 0; i < st->npending; i++) {
		if (id && strcmp(st->pending[i], id) != 0)
			continue;
		char *s = st->pending[i];
		memmove(st->pending + i, st->pending + i + 1, (st->npending - i - 1) * sizeof *st->pending);
		st->npending--;
		return s;
	}
	return NULL;
}

static void droid_meta_set(char **slot, const char *v)
{
	if (v && *v && !*slot)
		*slot = xstrdup(v);
}

static void droid_init(struct parse_ctx *ctx, const cJSON *obj)
{
	struct run_meta *m = &ctx->run->meta;
	const char *model = jx_str(obj, "model"), *cwd = jx_str(obj, "cwd");
	const char *effort = jx_str(obj, "reasoning_effort");
	const cJSON *tools = jx_get(obj, "tools");
	struct sbuf b;

	droid_meta_set(&m->model, model);
	droid_meta_set(&m->cwd, cwd);
	droid_meta_set(&m->effort, effort);
	sbuf_init(&b);
	sbuf_addf(&b, "model %s", model ? model : "?");
	if (cwd)
		sbuf_addf(&b, ", cwd %s", cwd);
	if (cJSON_IsArray(tools))
		sbuf_addf(&b, ", %d tools", cJSON_GetArraySize(tools));
	if (effort)
		sbuf_addf(&b, ", reasoning effort %s", effort);
	parser_text(ctx, EV_SYSTEM, b.s ? b.s : "")->name = xstrdup("init");
	sbuf_free(&b);
}

static int droid_message(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *role = jx_str(obj, "role"), *text = jx_str(obj, "text");
	enum ev_kind k = EV_SYSTEM;
	struct event *e;

	if (!role || !text) {
		run_error(ctx->run, ctx->lineno, "droid message without string \"role\" and \"text\"");
		return -1;
	}
	if (!strcmp(role, "user"))
		k = EV_USER;
	else if (!strcmp(role, "assistant"))
		k = EV_TEXT;
	e = parser_text(ctx, k, text);
	e->ts = jx_time(jx_get(obj, "timestamp"));
	if (k == EV_SYSTEM)
		e->name = xstrdup(role);
	return 0;
}

static int droid_tool_call(struct parse_ctx *ctx, struct droid_state *st, const cJSON *obj)
{
	const char *name = jx_str(obj, "toolName"), *id = jx_str(obj, "id");
	const cJSON *params = jx_get(obj, "parameters");
	char *args;
	struct event *e;

	if (!name)
		name = jx_str(obj, "toolId");
	if (!name) {
		run_error(ctx->run, ctx->lineno, "droid tool_call without \"toolName\"");
		return -1;
	}
	if (params && !cJSON_IsString(params)) {
		e = parser_tool_call_obj(ctx, name, id, params, 1);
		args = NULL;
	} else {
		args = params ? jx_text(params) : NULL;
		e = parser_tool_call(ctx, name, id, args);
	}
	e->ts = jx_time(jx_get(obj, "timestamp"));
	free(args);
	if (id)
		droid_pending_add(st, id);
	return 0;
}

/* The result text: `value` as text, else the error's message. */
static char *droid_result_text(const cJSON *obj)
{
	const cJSON *value = jx_get(obj, "value"), *err = jx_get(obj, "error");

	if (value && !cJSON_IsNull(value))
		return jx_text(value);
	if (err) {
		const char *msg = jx_str(err, "message");
		return msg ? xstrdup(msg) : jx_text(err);
	}
	return xstrdup("");
}

static void droid_tool_result(struct parse_ctx *ctx, struct droid_state *st, const cJSON *obj)
{
	const char *id = jx_str(obj, "id");
	char *call = droid_pending_take(st, id);
	char *text = droid_result_text(obj);
	int is_error = jx_bool(obj, "isError", 0) || cJSON_IsObject(jx_get(obj, "error"));
	struct event *e;

	e = parser_tool_result(ctx, id ? id : call, text, is_error);
	e->ts = jx_time(jx_get(obj, "timestamp"));
	free(call);
	free(text);
}

static void droid_error(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *msg = jx_str(obj, "message");
	char *owned = msg ? NULL : jx_print(obj);
	struct event *e = parser_text(ctx, EV_ERROR, msg ? msg : owned);

	e->is_error = 1;
	e->name = xstrdup(jx_str(obj, "source"));
	e->ts = jx_time(jx_get(obj, "timestamp"));
	free(owned);
}

/* Token counts under either spelling droid versions have used. */
static long long droid_tokens(const cJSON *u, const char *snake, const char *camel)
{
	long long v = jx_ll(u, snake, -1);
	if (v < 0)
		v = jx_ll(u, camel, 0);
	return v > 0 ? v : 0;
}

/* The completion marker: the final text, and the run's token totals. */
static void droid_completion(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *text = jx_str(obj, "finalText");
	const cJSON *u = jx_get(obj, "usage");
	int failed = jx_bool(obj, "isError", 0) || jx_bool(obj, "is_error", 0);
	double ts = jx_time(jx_get(obj, "timestamp"));
	struct event *e;

	e = parser_text(ctx, failed ? EV_ERROR : EV_SYSTEM, text ? text : "");
	e->name = xstrdup("completion");
	e->is_error = failed ? 1 : 0;
	e->ts = ts;
	if (cJSON_IsObject(u)) {
		e = run_add(ctx->run, EV_USAGE, ctx->lineno);
		e->ts = ts;
		e->tok_in = droid_tokens(u, "input_tokens", "inputTokens");
		e->tok_out = droid_tokens(u, "output_tokens", "outputTokens");
		e->tok_cache_read = droid_tokens(u, "cache_read_input_tokens", "cacheReadTokens");
		e->tok_cache_write = droid_tokens(u, "cache_creation_input_tokens", "cacheCreationTokens");
		e->tok_reasoning = droid_tokens(u, "thinking_tokens", "thinkingTokens");
	}
	ctx->run->complete_seen = 1;
}

static int droid_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	struct droid_state *st = ctx->state;
	const char *t = jx_str(obj, "type");
	(void)line;
	(void)len;

	if (!t) {
		run_error(ctx->run, ctx->lineno, "droid record without \"type\"");
		return -1;
	}
	droid_meta_set(&ctx->run->meta.session_id, jx_str(obj, "session_id"));
	if (!strcmp(t, "system")) {
		const char *sub = jx_str(obj, "subtype");
		if (sub && !strcmp(sub, "init")) {
			droid_init(ctx, obj);
		} else {
			const char *msg = jx_str(obj, "message");
			parser_text(ctx, EV_SYSTEM, msg && *msg ? msg : sub ? sub : "system")->name = xstrdup(sub ? sub : "system");
		}
	} else if (!strcmp(t, "message")) {
		return droid_message(ctx, obj);
	} else if (!strcmp(t, "tool_call")) {
		return droid_tool_call(ctx, st, obj);
	} else if (!strcmp(t, "tool_result")) {
		droid_tool_result(ctx, st, obj);
	} else if (!strcmp(t, "error")) {
		droid_error(ctx, obj);
	} else if (!strcmp(t, "completion")) {
		droid_completion(ctx, obj);
	} else {
		/* records we do not model stay visible as system events */
		parser_text(ctx, EV_SYSTEM, t)->name = xstrdup(t);
	}
	return 0;
}

static void droid_finish(struct parse_ctx *ctx)
{
	ctx->run->incomplete = !ctx->run->complete_seen;
}

static const struct parser_ignored droid_ignored[] = {
	{NULL, NULL},
};

static const char *const droid_types[] = {"system", "message", "tool_call", "tool_result", "completion", "error", NULL};

const struct parser_ops parse_droid_ops = {
	.name = "droid",
	.description = "Factory droid exec --output-format stream-json",
	.sniff = droid_sniff,
	.state_new = droid_state_new,
	.state_free = droid_state_free,
	.line = droid_line,
	.finish = droid_finish,
	.thinking = 1,
	.ignored = droid_ignored,
	.types = droid_types,
	.harness = "droid",
	.tokens = "the completion record's usage, the session's (input, output, cache read and write; "
	          "thinking tokens as reasoning)",
};
