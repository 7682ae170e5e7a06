/* parse_codex_json.c: `codex exec --json`, the JSONL stream scripted Codex
 * runs print: thread.started, turn.started, item.started / item.updated /
 * item.completed (agent_message, reasoning, command_execution, file_change,
 * mcp_tool_call, web_search, todo_list, error), turn.completed with the
 * turn's usage, turn.failed and error. Unlike the rollout (parse_codex.c)
 * a line carries no timestamp. A call is made when its item starts and
 * answered when it completes; an item seen only completed makes both. */
#include "parser.h"
#include "jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cj_state {
	char **started;          /* ids of items whose call was made at item.started */
	size_t n, cap;
};

static void *cj_state_new(void)
{
	return xcalloc(1, sizeof(struct cj_state));
}

static void cj_state_free(void *p)
{
	struct cj_state *st = p;
	if (!st)
		return;
	for (size_t i = 0; i < st->n; i++)
		free(st->started[i]);
	free(st->started);
	free(st);
}

/* Whether the call of item id was made already; marks it made when add. */
static int cj_started(struct cj_state *st, const char *id, int add)
{
	for (size_t i = 0; id && i < st->n; i++)
		if (!strcmp(st->started[i], id))
			return 1;
	if (add && id) {
		if (st->n == st->cap) {
			st->cap = st->cap ? st->cap * 2 : 16;
			st->started = xrealloc(st->started, st->cap * sizeof *st->started);
		}
		st->started[st->n++] = xstrdup(id);
	}
	return 0;
}

static int cj_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	(void)line;
	(void)len;
	if (!t)
		return 0;
	if (!strcmp(t, "thread.started") && jx_str(obj, "thread_id"))
		return 90;
	if (!strcmp(t, "turn.started") || !strcmp(t, "turn.failed") ||
	    (!strcmp(t, "turn.completed") && cJSON_IsObject(jx_get(obj, "usage"))))
		return 60;
	if (util_starts_with(t, "item.") && jx_pstr(obj, "item.type"))
		return 70;
	return 0;
}

/* "item.completed/command_execution": one key per item type. */
static const char *cj_record_key(const cJSON *obj, char *buf, size_t n)
{
	const char *t = jx_str(obj, "type"), *it = jx_pstr(obj, "item.type");
	if (!t)
		return NULL;
	snprintf(buf, n, "%s%s%s", t, it ? "/" : "", it ? it : "");
	return buf;
}

/* The call an item stands for: its tool name and arguments. */
static struct event *cj_call(struct parse_ctx *ctx, const char *type, const cJSON *item)
{
	const char *id = jx_str(item, "id");
	cJSON *args = cJSON_CreateObject();
	struct event *e;
	char *name = NULL;

	if (!strcmp(type, "command_execution")) {
		cJSON_AddStringToObject(args, "command", jx_str(item, "command") ? jx_str(item, "command") : "");
	} else if (!strcmp(type, "mcp_tool_call")) {
		const char *srv = jx_str(item, "server"), *tool = jx_str(item, "tool");
		name = xasprintf("%s%s%s", srv ? srv : "", srv ? "." : "", tool ? tool : "mcp_tool_call");
		if (jx_get(item, "arguments"))
			cJSON_AddItemToObject(args, "arguments", cJSON_Duplicate(jx_get(item, "arguments"), 1));
	} else if (!strcmp(type, "web_search")) {
		cJSON_AddStringToObject(args, "query", jx_str(item, "query") ? jx_str(item, "query") : "");
	} else if (jx_get(item, "changes")) { /* file_change */
		cJSON_AddItemToObject(args, "changes", cJSON_Duplicate(jx_get(item, "changes"), 1));
	} else if (jx_get(item, "items")) {   /* todo_list */
		cJSON_AddItemToObject(args, "items", cJSON_Duplicate(jx_get(item, "items"), 1));
	}
	/* the stream says what changed, not how: no file versions to record */
	e = parser_tool_call_obj(ctx, name ? name : type, id, args, 0);
	if (!strcmp(type, "file_change")) {
		const cJSON *first = cJSON_GetArrayItem(jx_get(item, "changes"), 0);
		e->path = jx_str(first, "path") ? xstrdup(jx_str(first, "path")) : NULL;
	}
	free(name);
	cJSON_Delete(args);
	return e;
}

/* What a finished item returned, as text, and whether it failed. */
static char *cj_result_text(const char *type, const cJSON *item, int *failed)
{
	const char *status = jx_str(item, "status");
	struct sbuf b;
	const cJSON *it;

	*failed = status && !strcmp(status, "failed");
	sbuf_init(&b);
	if (!strcmp(type, "command_execution")) {
		const cJSON *code = jx_get(item, "exit_code");
		sbuf_adds(&b, jx_str(item, "aggregated_output") ? jx_str(item, "aggregated_output") : "");
		if (cJSON_IsNumber(code) && code->valuedouble != 0)
			*failed = 1;
	} else if (!strcmp(type, "file_change")) {
		cJSON_ArrayForEach(it, jx_get(item, "changes"))
			sbuf_addf(&b, "%s%s %s", b.len ? "\n" : "", jx_str(it, "kind") ? jx_str(it, "kind") : "change",
			          jx_str(it, "path") ? jx_str(it, "path") : "?");
	} else if (!strcmp(type, "mcp_tool_call")) {
		if (jx_pstr(item, "error.message")) {
			sbuf_adds(&b, jx_pstr(item, "error.message"));
			*failed = 1;
		}
		cJSON_ArrayForEach(it, jx_path(item, "result.content"))
			if (jx_str(it, "text"))
				sbuf_addf(&b, "%s%s", b.len ? "\n" : "", jx_str(it, "text"));
	} else if (!strcmp(type, "todo_list")) {
		cJSON_ArrayForEach(it, jx_get(item, "items"))
			sbuf_addf(&b, "%s[%c] %s", b.len ? "\n" : "", jx_bool(it, "completed", 0) ? 'x' : ' ',
			          jx_str(it, "text") ? jx_str(it, "text") : "");
	} else if (!strcmp(type, "web_search")) {
		sbuf_addf(&b, "searched: %s", jx_str(item, "query") ? jx_str(item, "query") : "");
	}
	return b.s ? sbuf_detach(&b) : xstrdup("");
}

static int cj_is_call(const char *type)
{
	static const char *const calls[] = {"command_execution", "file_change", "mcp_tool_call", "web_search",
	                                    "todo_list", NULL};
	for (size_t i = 0; calls[i]; i++)
		if (!strcmp(type, calls[i]))
			return 1;
	return 0;
}

static int cj_item(struct parse_ctx *ctx, const char *phase, const cJSON *item)
{
	struct cj_state *st = ctx->state;
	const char *type = jx_str(item, "type"), *id = jx_str(item, "id");
	int completed = !strcmp(phase, "item.completed");

	if (!type) {
		run_error(ctx->run, ctx->lineno, "%s without \"item.type\"", phase);
		return -1;
	}
	if (cj_is_call(type)) {
		/* the call at its start (a todo list at its first state); its
		 * outcome at completion; updates in between are progress only */
		if (!cj_started(st, id, 0) && (completed || !strcmp(phase, "item.started"))) {
			cj_started(st, id, 1);
			cj_call(ctx, type, item);
		}
		if (completed) {
			int failed = 0;
			char *text = cj_result_text(type, item, &failed);
			parser_tool_result(ctx, id, text, failed);
			free(text);
		}
		return 0;
	}
	if (!completed)
		return 0;  /* messages are whole at completion */
	if (!strcmp(type, "agent_message"))
		parser_text(ctx, EV_TEXT, jx_str(item, "text") ? jx_str(item, "text") : "");
	else if (!strcmp(type, "reasoning"))
		parser_text(ctx, EV_REASONING, jx_str(item, "text") ? jx_str(item, "text") : "");
	else if (!strcmp(type, "error"))
		parser_text(ctx, EV_ERROR, jx_str(item, "message") ? jx_str(item, "message") : "error")->is_error = 1;
	else  /* an item type newer than this parser: kept visible by name */
		parser_text(ctx, EV_SYSTEM, type)->name = xstrdup(type);
	return 0;
}

/* turn.completed: the turn's usage (input_tokens include the cached ones). */
static void cj_usage(struct parse_ctx *ctx, const cJSON *u)
{
	struct event *e = run_add(ctx->run, EV_USAGE, ctx->lineno);
	long long in = jx_ll(u, "input_tokens", 0), cached = jx_ll(u, "cached_input_tokens", 0);
	e->tok_in = in > cached ? in - cached : 0;
	e->tok_cache_read = cached > 0 ? cached : 0;
	e->tok_out = jx_ll(u, "output_tokens", 0);
	e->tok_reasoning = jx_ll(u, "reasoning_output_tokens", 0);
	if (e->tok_out < 0)
		e->tok_out = 0;
}

static int cj_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	struct run_meta *m = &ctx->run->meta;
	(void)line;
	(void)len;

	if (!t) {
		run_error(ctx->run, ctx->lineno, "codex exec --json line without \"type\"");
		return -1;
	}
	if (!strcmp(t, "thread.started")) {
		if (jx_str(obj, "thread_id") && !m->session_id)
			m->session_id = xstrdup(jx_str(obj, "thread_id"));
	} else if (!strcmp(t, "turn.started")) {
		ctx->run->complete_seen = 0;
	} else if (!strcmp(t, "turn.completed")) {
		if (cJSON_IsObject(jx_get(obj, "usage")))
			cj_usage(ctx, jx_get(obj, "usage"));
		ctx->run->complete_seen = 1;
	} else if (!strcmp(t, "turn.failed")) {
		const char *msg = jx_pstr(obj, "error.message");
		char *s = xasprintf("turn failed: %s", msg ? msg : "(no message)");
		struct event *e = parser_text(ctx, EV_ERROR, s);
		e->is_error = 1;
		e->name = xstrdup("turn.failed");
		free(s);
		ctx->run->complete_seen = 1; /* the run ended, badly: not cut short */
	} else if (!strcmp(t, "error")) {
		const char *msg = jx_str(obj, "message");
		struct event *e = parser_text(ctx, EV_ERROR, msg ? msg : "error");
		e->is_error = 1;
		e->name = xstrdup("error");
	} else if (util_starts_with(t, "item.")) {
		const cJSON *item = jx_get(obj, "item");
		if (!cJSON_IsObject(item)) {
			run_error(ctx->run, ctx->lineno, "%s without an \"item\" object", t);
			return -1;
		}
		return cj_item(ctx, t, item);
	} else {
		parser_text(ctx, EV_SYSTEM, t)->name = xstrdup(t);
	}
	return 0;
}

static void cj_finish(struct parse_ctx *ctx)
{
	ctx->run->incomplete = !ctx->run->complete_seen;
}

static const struct parser_ignored cj_ignored[] = {
	{"thread.started", "names the thread: it becomes the run's session id, not an event"},
	{"turn.started", "a turn begins; its items are the events"},
	{"item.updated/todo_list", "a todo list's interim state; its first and final states are the events"},
	{"item.updated/command_execution", "a running command's progress; its completion is the result"},
	{"item.updated/agent_message", "a message still being written; the completed item is the event"},
	{"item.updated/reasoning", "reasoning still being written; the completed item is the event"},
	{"item.started/*", "an item starting that is not a call (a message, reasoning, a newer item type); "
	                   "its completion is the event"},
	{"item.updated/*", "an item's interim state; its completion is the event"},
	{NULL, NULL},
};

static const char *const cj_types[] = {"thread.started", "turn.started", "turn.completed", "turn.failed",
                                       "item.started", "item.updated", "item.completed", "error", NULL};

const struct parser_ops parse_codex_json_ops = {
	.name = "codex-json",
	.description = "codex exec --json (thread.started/turn.*/item.* JSONL)",
	.sniff = cj_sniff,
	.state_new = cj_state_new,
	.state_free = cj_state_free,
	.line = cj_line,
	.finish = cj_finish,
	.record_key = cj_record_key,
	.ignored = cj_ignored,
	.types = cj_types,
	.tokens = "the sum of every turn.completed usage (one per turn); input_tokens less "
	          "cached_input_tokens is input, the cached ones are cache reads",
	.harness = "codex",
};
