/* parse_opencode.c: `opencode run --format json`, one {type, timestamp,
 * sessionID, part | error} record per line: step_start, text, reasoning,
 * tool_use (a finished tool part: call and result in one record),
 * step_finish (the step's tokens, cost and finish reason) and error.
 *
 * Decisions:
 *  - step_start adds no event (one per model call would flood the view).
 *  - A tool_use record gives a tool_call and, once its state is completed
 *    or error, the tool_result right after it (is_error for "error").
 *  - Completion: OpenCode writes no end record. A run is complete when its
 *    last record is a step_finish that ended the loop (its reason is not
 *    "tool-calls"; without a reason, as in the reconstructed sample, the
 *    step called no tool), or an error (opencode stops at an error: the
 *    run ended, and the error event says why). Anything else (a text, a
 *    tool or a step_start last, or a tool-calls step last) means the
 *    stream was cut while the agent loop would have gone on. */
#include "parser.h"
#include "textsafe.h"
#include "jsonx.h"

#include <stdlib.h>
#include <string.h>

enum oc_last { OC_OTHER, OC_STEP_END, OC_ERROR };

struct oc_state {
	enum oc_last last;   /* what the last record was */
	int step_tools;      /* tool_use records since the last step_start */
	int reason;          /* last step_finish: 0 no reason, 1 tool-calls, 2 other */
};

static int oc_is(const char *t, const char *a)
{
	return t && strcmp(t, a) == 0;
}

static int oc_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	const cJSON *part = jx_get(obj, "part");
	(void)line;
	(void)len;
	if (!t || !jx_str(obj, "sessionID"))
		return 0;
	if (cJSON_IsObject(part)) {
		if (oc_is(t, "step_start") || oc_is(t, "step_finish"))
			return 90;
		if (oc_is(t, "tool_use") && jx_str(part, "tool"))
			return 80;
		if ((oc_is(t, "text") || oc_is(t, "reasoning")) && jx_str(part, "text"))
			return 70;
		return 0;
	}
	return oc_is(t, "error") && cJSON_IsObject(jx_get(obj, "error")) ? 60 : 0;
}

static void *oc_state_new(void)
{
	return xcalloc(1, sizeof(struct oc_state));
}

/* part.time.<key> (ms) in seconds; 0 leaves the record's timestamp. */
static double oc_time(const cJSON *time, const char *key)
{
	return jx_time(jx_get(time, key));
}

/* Reasoning a provider sent through OpenRouter: part.metadata.openrouter
 * .reasoning_details, a list of {type: reasoning.text | reasoning.summary |
 * reasoning.encrypted, text | summary | data}. Owned text of the readable
 * ones, NULL when the part has none; *hidden when only summaries or
 * encrypted blocks came. */
static char *oc_openrouter_reasoning(const cJSON *part, int *hidden)
{
	const cJSON *d, *list = jx_path(part, "metadata.openrouter.reasoning_details");
	struct sbuf b;
	int readable = 0, any = 0;

	if (!cJSON_IsArray(list) || !cJSON_GetArraySize(list))
		return NULL;
	sbuf_init(&b);
	cJSON_ArrayForEach(d, list) {
		const char *t = jx_str(d, "type"), *s = jx_str(d, "text");
		any = 1;
		if (!s)
			s = jx_str(d, "summary");
		if (s && *s) {
			sbuf_addf(&b, "%s%s", b.len ? "\n" : "", s);
			readable += t && !strcmp(t, "reasoning.text");
		}
	}
	*hidden = any && !readable;
	return b.s ? sbuf_detach(&b) : xstrdup("");
}

static int oc_text(struct parse_ctx *ctx, const cJSON *obj, const cJSON *part, enum ev_kind k)
{
	const char *text = jx_str(part, "text");
	struct event *e;
	int hidden = 0;
	char *via = oc_openrouter_reasoning(part, &hidden);

	/* a reasoning part whose text came only in OpenRouter's details, or a
	 * text part that carries the reasoning before it */
	if (via && (k == EV_TEXT || !text || !*text)) {
		e = parser_text(ctx, EV_REASONING, via);
		e->ts = oc_time(jx_get(part, "time"), "start");
		e->redacted = hidden || !*via;
		free(via);
		if (k == EV_REASONING)
			return 0;
	} else {
		free(via);
	}
	if (!text) {
		run_error(ctx->run, ctx->lineno, "opencode %s without part.text", jx_str(obj, "type"));
		return -1;
	}
	if (!*text && k == EV_TEXT)
		return 0;
	e = parser_text(ctx, k, text);
	e->ts = oc_time(jx_get(part, "time"), "start");
	e->redacted = k == EV_REASONING && !*text; /* provider kept it encrypted */
	return 0;
}

static int oc_tool(struct parse_ctx *ctx, struct oc_state *st, const cJSON *part)
{
	const char *tool = jx_str(part, "tool"), *id = jx_str(part, "callID");
	const cJSON *state = jx_get(part, "state"), *time = jx_get(state, "time");
	const char *status = jx_str(state, "status");
	struct event *e;

	if (!tool || !cJSON_IsObject(state)) {
		run_error(ctx->run, ctx->lineno, "opencode tool_use without part.tool or part.state");
		return -1;
	}
	if (!id)
		id = jx_str(part, "id");
	/* the status comes with the call: a failed write or edit changed no file */
	e = parser_tool_call_obj(ctx, tool, id, jx_get(state, "input"), !(status && !strcmp(status, "error")));
	e->ts = oc_time(time, "start");
	st->step_tools++;
	if (oc_is(status, "completed") || oc_is(status, "error")) {
		const cJSON *out = jx_get(state, oc_is(status, "error") ? "error" : "output");
		char *text = out ? jx_text(out) : xstrdup("");
		e = parser_tool_result(ctx, id, text, oc_is(status, "error"));
		e->ts = oc_time(time, "end");
		free(text);
	}
	return 0;
}

static void oc_step_finish(struct parse_ctx *ctx, struct oc_state *st, const cJSON *part)
{
	const cJSON *tok = jx_get(part, "tokens");
	const char *reason = jx_str(part, "reason");
	const cJSON *cost = jx_get(part, "cost");
	struct event *e = run_add(ctx->run, EV_USAGE, ctx->lineno);

	e->tok_in = jx_ll(tok, "input", 0);
	e->tok_out = jx_ll(tok, "output", 0);
	e->tok_reasoning = jx_ll(tok, "reasoning", 0);
	e->tok_cache_read = jx_ll(jx_get(tok, "cache"), "read", 0);
	e->tok_cache_write = jx_ll(jx_get(tok, "cache"), "write", 0);
	if (reason)
		e->name = xstrdup(reason);
	if (cJSON_IsNumber(cost))
		e->text = xasprintf("cost $%.6f", cost->valuedouble);
	st->reason = !reason ? 0 : !strcmp(reason, "tool-calls") ? 1 : 2;
}

static void oc_error(struct parse_ctx *ctx, const cJSON *obj)
{
	const cJSON *err = jx_get(obj, "error");
	const char *msg = jx_pstr(err, "data.message");
	const char *name = jx_str(err, "name");
	char *text;
	struct event *e;

	if (!msg)
		msg = jx_str(err, "message");
	text = msg ? xstrdup(msg) : name ? xstrdup(name) : jx_text(err);
	e = parser_text(ctx, EV_ERROR, text);
	e->is_error = 1;
	if (name)
		e->name = xstrdup(name);
	free(text);
}

static int oc_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	struct oc_state *st = ctx->state;
	const char *t = jx_str(obj, "type"), *sid = jx_str(obj, "sessionID");
	const cJSON *part = jx_get(obj, "part");
	size_t first = ctx->run->nev;
	int rc = 0;

	(void)line;
	(void)len;
	if (!t) {
		run_error(ctx->run, ctx->lineno, "opencode record without \"type\"");
		return -1;
	}
	if (!oc_is(t, "error") && !cJSON_IsObject(part)) {
		run_error(ctx->run, ctx->lineno, "opencode %.*s record without \"part\"", (int)textsafe_cut(t, strlen(t), 40), t);
		return -1;
	}
	if (sid && !ctx->run->meta.session_id)
		ctx->run->meta.session_id = xstrdup(sid);
	st->last = OC_OTHER;
	if (!strcmp(t, "step_start")) {
		st->step_tools = 0;
		st->reason = 0;
	} else if (!strcmp(t, "text")) {
		rc = oc_text(ctx, obj, part, EV_TEXT);
	} else if (!strcmp(t, "reasoning")) {
		rc = oc_text(ctx, obj, part, EV_REASONING);
	} else if (!strcmp(t, "tool_use")) {
		rc = oc_tool(ctx, st, part);
	} else if (!strcmp(t, "step_finish")) {
		oc_step_finish(ctx, st, part);
		st->last = OC_STEP_END;
	} else if (!strcmp(t, "error")) {
		oc_error(ctx, obj);
		st->last = OC_ERROR;
	} else {
		/* records we do not model yet stay visible */
		parser_text(ctx, EV_SYSTEM, t)->name = xstrdup(t);
	}
	for (size_t i = first; i < ctx->run->nev; i++)
		if (!ctx->run->ev[i].ts)
			ctx->run->ev[i].ts = jx_time(jx_get(obj, "timestamp"));
	return rc;
}

static void oc_finish(struct parse_ctx *ctx)
{
	struct oc_state *st = ctx->state;
	int done = st->last == OC_ERROR ||
	           (st->last == OC_STEP_END && (st->reason ? st->reason == 2 : st->step_tools == 0));
	ctx->run->complete_seen = done;
	ctx->run->incomplete = !done;
}

static const struct parser_ignored opencode_ignored[] = {
	{"step_start", "a model step begins (its git snapshot); the step's parts and its step_finish are the events"},
	{NULL, NULL},
};

static const char *const opencode_types[] = {"step_start", "text", "tool_use", "step_finish", "error",
                                             "reasoning", NULL};

const struct parser_ops parse_opencode_ops = {
	.name = "opencode",
	.description = "opencode run --format json (step_start/text/tool_use/step_finish/error)",
	.sniff = oc_sniff,
	.state_new = oc_state_new,
	.state_free = free,
	.line = oc_line,
	.finish = oc_finish,
	.ignored = opencode_ignored,
	.types = opencode_types,
	.harness = "opencode",
	.tokens = "the sum of the step_finish parts' tokens (input, output, reasoning, cache read and "
	          "write), one per model step",
};
