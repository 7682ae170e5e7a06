/* parse_cursor.c: Cursor CLI `cursor-agent --print --output-format
 * stream-json`:
 *
 *   {type: system, subtype: init, apiKeySource, cwd, session_id, model, permissionMode}
 *   {type: user|assistant, message: {role, content: [{type: text, text}]}, session_id}
 *   {type: thinking, subtype: delta|completed, text, timestamp_ms}
 *   {type: tool_call, subtype: started|completed, call_id,
 *    tool_call: {<kind>ToolCall: {args, result: {success | error | rejected | failure}}}
 *              | {function: {name, arguments}}}
 *   {type: result, subtype, is_error, result, duration_ms, session_id, usage}
 *
 * The result record marks a finished run. Assistant messages carry no id
 * and no usage; the result carries the run's token totals.
 *
 * With --stream-partial-output, text arrives as deltas (timestamp_ms and no
 * model_call_id) and each model call then repeats its whole text once
 * (with model_call_id; the turn's last repeat has neither field). Deltas
 * are merged into one text event and, once deltas were seen, the repeats
 * are skipped. Without deltas every assistant line is one message. */
#include "parser.h"
#include "jsonx.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct cursor_state {
	int merging;      /* nev when the last event took deltas, else 0 */
	struct sbuf text; /* that event's text, grown in place (owned by the event) */
	int partial;      /* text deltas seen: whole-message repeats follow */
	char **started;   /* call ids whose started line was seen */
	size_t nstarted, cap;
};

/* Claude Code's stream-json shares the record names; its lines carry a
 * uuid (and parent_tool_use_id), its init lists tools and MCP servers, its
 * assistant messages have ids and usage. Droid's init names a
 * reasoning_effort and its tool_call has a toolName, not a tool_call. */
static int cursor_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type"), *sub = jx_str(obj, "subtype");
	const cJSON *msg = jx_get(obj, "message");
	(void)line;
	(void)len;

	if (!t || jx_get(obj, "uuid") || jx_get(obj, "parent_tool_use_id") || jx_get(obj, "parentUuid"))
		return 0;
	if (!strcmp(t, "system"))
		return sub && !strcmp(sub, "init") && (jx_get(obj, "apiKeySource") || jx_get(obj, "permissionMode")) &&
		       !jx_get(obj, "tools") && !jx_get(obj, "mcp_servers") && !jx_get(obj, "reasoning_effort") ? 30 : 0;
	if (!strcmp(t, "tool_call"))
		return sub && cJSON_IsObject(jx_get(obj, "tool_call")) ? 90 : 0;
	if (!strcmp(t, "thinking"))
		return sub && (!strcmp(sub, "delta") || !strcmp(sub, "completed")) ? 80 : 0;
	if (!strcmp(t, "assistant"))
		return cJSON_IsObject(msg) && !jx_get(msg, "id") && !jx_get(msg, "usage") ? 60 : 0;
	if (!strcmp(t, "user"))
		return cJSON_IsObject(msg) ? 40 : 0;
	if (!strcmp(t, "result"))
		return !jx_get(obj, "total_cost_usd") && !jx_get(obj, "num_turns") &&
		       (jx_get(obj, "request_id") || jx_get(jx_get(obj, "usage"), "inputTokens")) ? 40 : 0;
	return 0;
}

static void *cursor_state_new(void)
{
	return xcalloc(1, sizeof(struct cursor_state));
}

static void cursor_state_free(void *p)
{
	struct cursor_state *st = p;
	if (!st)
		return;
	for (size_t i = 0; i < st->nstarted; i++)
		free(st->started[i]);
	free(st->started);
	free(st);
}

static int cursor_was_started(const struct cursor_state *st, const char *id)
{
	for (size_t i = 0; id && i < st->nstarted; i++)
		if (!strcmp(st->started[i], id))
			return 1;
	return 0;
}

static void cursor_mark_started(struct cursor_state *st, const char *id)
{
	if (!id)
		return;
	if (st->nstarted == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 16;
		st->started = xrealloc(st->started, st->cap * sizeof *st->started);
	}
	st->started[st->nstarted++] = xstrdup(id);
}

static void cursor_meta_set(char **slot, const char *v)
{
	if (v && *v && !*slot)
		*slot = xstrdup(v);
}

static double cursor_ts(const cJSON *obj)
{
	return jx_time(jx_get(obj, "timestamp_ms"));
}

/* Adds text to the event deltas are merging into when it is of kind k,
 * else starts a new event that later deltas join. */
static void cursor_delta(struct parse_ctx *ctx, struct cursor_state *st, enum ev_kind k,
                         const char *text, double ts)
{
	struct run *r = ctx->run;
	if (st->merging && (size_t)st->merging == r->nev && r->ev[r->nev - 1].kind == k) {
		parser_append(&r->ev[r->nev - 1], &st->text, text);
		return;
	}
	parser_text(ctx, k, text)->ts = ts;
	st->merging = (int)r->nev;
	st->text.s = NULL;
}

static void cursor_init(struct parse_ctx *ctx, const cJSON *obj)
{
	struct run_meta *m = &ctx->run->meta;
	const char *model = jx_str(obj, "model"), *cwd = jx_str(obj, "cwd");
	const char *perm = jx_str(obj, "permissionMode"), *key = jx_str(obj, "apiKeySource");
	struct sbuf b;

	cursor_meta_set(&m->model, model);
	cursor_meta_set(&m->cwd, cwd);
	sbuf_init(&b);
	sbuf_addf(&b, "model %s", model ? model : "?");
	if (cwd)
		sbuf_addf(&b, ", cwd %s", cwd);
	if (perm)
		sbuf_addf(&b, ", permissions %s", perm);
	if (key)
		sbuf_addf(&b, ", API key from %s", key);
	parser_text(ctx, EV_SYSTEM, b.s ? b.s : "")->name = xstrdup("init");
	sbuf_free(&b);
}

static int cursor_message(struct parse_ctx *ctx, struct cursor_state *st, const cJSON *obj, int user)
{
	const cJSON *msg = jx_get(obj, "message");
	char *text;

	if (!cJSON_IsObject(msg)) {
		run_error(ctx->run, ctx->lineno, "cursor %s record without a \"message\" object",
		          user ? "user" : "assistant");
		return -1;
	}
	text = jx_blocks_text(jx_get(msg, "content"), "text", "text");
	if (!text)
		return 0;
	if (user) {
		parser_text(ctx, EV_USER, text)->ts = cursor_ts(obj);
		st->merging = 0;
	} else if (jx_get(obj, "timestamp_ms") && !jx_get(obj, "model_call_id")) {
		st->partial = 1;
		cursor_delta(ctx, st, EV_TEXT, text, cursor_ts(obj));
	} else if (st->partial) {
		/* the whole text of deltas already shown: it ends the message */
		st->merging = 0;
	} else {
		parser_text(ctx, EV_TEXT, text)->ts = cursor_ts(obj);
		st->merging = 0;
	}
	free(text);
	return 0;
}

static void cursor_thinking(struct parse_ctx *ctx, struct cursor_state *st, const cJSON *obj)
{
	const char *sub = jx_str(obj, "subtype"), *text = jx_str(obj, "text");

	if (sub && !strcmp(sub, "completed")) {
		st->merging = 0;
		return;
	}
	if (text)
		cursor_delta(ctx, st, EV_REASONING, text, cursor_ts(obj));
}

/* The tool of a tool_call record: name from its "<kind>ToolCall" key (or a
 * function entry), the body holding args and result. */
struct cursor_tool {
	char *name;            /* owned */
	const cJSON *args;     /* borrowed; may be a string (function arguments) */
	const cJSON *result;   /* borrowed; NULL until completed */
	const cJSON *body;
};

static int cursor_tool_find(const cJSON *tc, struct cursor_tool *t)
{
	const cJSON *obj = cJSON_IsObject(tc) ? tc : NULL, *it;

	memset(t, 0, sizeof *t);
	cJSON_ArrayForEach(it, obj) {
		size_t n = it->string ? strlen(it->string) : 0;
		if (n > 8 && cJSON_IsObject(it) && !strcmp(it->string + n - 8, "ToolCall")) {
			t->name = xstrndup(it->string, n - 8);
			t->body = it;
			t->args = jx_get(it, "args");
			t->result = jx_get(it, "result");
			return 0;
		}
	}
	it = jx_get(tc, "function");
	if (cJSON_IsObject(it) && jx_str(it, "name")) {
		t->name = xstrdup(jx_str(it, "name"));
		t->body = it;
		t->args = jx_get(it, "arguments");
		t->result = jx_get(it, "result");
		return 0;
	}
	return -1;
}

/* Cursor's write (fileText) and edit (streamContent) carry the whole new
 * file; older edits carry strReplace or multiStrReplace. Returns the
 * arguments, in the key names parser_tool_call knows, that make the same
 * change (owned JSON text) and sets *as to the tool name to compute it
 * under; NULL when the call's own arguments serve. */
static char *cursor_effect_args(const char *name, const cJSON *args, const char **as)
{
	const char *path = jx_str(args, "path");
	const char *whole = jx_str(args, "fileText");
	const cJSON *sr = jx_get(args, "strReplace"), *multi = jx_get(jx_get(args, "multiStrReplace"), "edits");
	cJSON *o, *edits, *it;
	char *s;

	if (!path || (strcasecmp(name, "write") && strcasecmp(name, "edit")))
		return NULL;
	if (!whole)
		whole = jx_str(args, "streamContent");
	if (!whole)
		whole = jx_str(args, "contents");
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "file_path", path);
	if (whole) {
		*as = "Write";
		cJSON_AddStringToObject(o, "content", whole);
	} else if (jx_str(sr, "oldText") && jx_str(sr, "newText")) {
		*as = "Edit";
		cJSON_AddStringToObject(o, "old_string", jx_str(sr, "oldText"));
		cJSON_AddStringToObject(o, "new_string", jx_str(sr, "newText"));
		cJSON_AddBoolToObject(o, "replace_all", jx_bool(sr, "replaceAll", 0));
	} else if (cJSON_IsArray(multi)) {
		*as = "MultiEdit";
		edits = cJSON_AddArrayToObject(o, "edits");
		cJSON_ArrayForEach(it, multi) {
			cJSON *e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "old_string", jx_str(it, "oldText") ? jx_str(it, "oldText") : "");
			cJSON_AddStringToObject(e, "new_string", jx_str(it, "newText") ? jx_str(it, "newText") : "");
			cJSON_AddBoolToObject(e, "replace_all", jx_bool(it, "replaceAll", 0));
			cJSON_AddItemToArray(edits, e);
		}
	} else {
		/* the new text is not in the record (a start line that names only
		 * the path, an applyPatch hunk): a name parser_tool_call does not
		 * treat as a write, so the file is not taken to be emptied */
		*as = "cursor-file-change";
		cJSON_Delete(o);
		return NULL;
	}
	s = jx_print(o);
	cJSON_Delete(o);
	return s;
}

/* Adds the call; the event keeps Cursor's own name and arguments while its
 * path and diff come from the equivalent Write/Edit/MultiEdit. */
static void cursor_call(struct parse_ctx *ctx, const struct cursor_tool *t, const char *id, double ts)
{
	const char *as = t->name;
	char *args = t->args ? jx_text(t->args) : NULL;
	char *effect = cJSON_IsObject(t->args) ? cursor_effect_args(t->name, t->args, &as) : NULL;
	struct event *e = parser_tool_call(ctx, as, id, effect ? effect : args);

	if (as != t->name) {
		free(e->name);
		e->name = xstrdup(t->name);
	}
	if (effect) {
		free(e->args);
		e->args = args;
		args = NULL;
	}
	e->ts = ts;
	free(effect);
	free(args);
}

/* Words of an outcome object: a shell's output, a read's content, an MCP
 * tool's text parts, an error's message; else the object as JSON. */
static char *cursor_outcome_text(const cJSON *o)
{
	static const char *const keys[] = {"content", "output", "errorMessage", "error", "reason",
	                                   "message", "text", NULL};
	const char *out = jx_str(o, "stdout"), *err = jx_str(o, "stderr");

	if (cJSON_IsString(o))
		return xstrdup(o->valuestring);
	if (out || err) {
		if (out && *out && err && *err)
			return xasprintf("%s\n%s", out, err);
		return xstrdup(out && *out ? out : err ? err : "");
	}
	for (size_t i = 0; keys[i]; i++) {
		const cJSON *v = jx_get(o, keys[i]);
		if (cJSON_IsString(v))
			return xstrdup(v->valuestring);
		if (cJSON_IsArray(v)) { /* MCP: [{text: {text}}] */
			struct sbuf b;
			const cJSON *it;
			sbuf_init(&b);
			cJSON_ArrayForEach(it, v) {
				const char *s = jx_pstr(it, "text.text");
				if (!s)
					s = jx_str(it, "text");
				if (s) {
					if (b.len)
						sbuf_addc(&b, '\n');
					sbuf_adds(&b, s);
				}
			}
			if (b.len)
				return sbuf_detach(&b);
			sbuf_free(&b);
		}
		if (cJSON_IsObject(v) && (jx_str(v, "message") || jx_str(v, "errorMessage")))
			return xstrdup(jx_str(v, "message") ? jx_str(v, "message") : jx_str(v, "errorMessage"));
	}
	return jx_print(o);
}

/* A result holds one of success, error, rejected or failure: anything but
 * success (or an MCP success that says isError) is a failed call. */
static char *cursor_result_text(const cJSON *result, int *is_error)
{
	const cJSON *ok = jx_get(result, "success");

	if (ok) {
		*is_error = jx_bool(ok, "isError", 0);
		return cursor_outcome_text(ok);
	}
	*is_error = result && !cJSON_IsNull(result);
	if (cJSON_IsObject(result) && result->child)
		return cursor_outcome_text(result->child);
	return result && !cJSON_IsNull(result) ? jx_text(result) : xstrdup("");
}

static int cursor_tool_call(struct parse_ctx *ctx, struct cursor_state *st, const cJSON *obj)
{
	const char *sub = jx_str(obj, "subtype"), *id = jx_str(obj, "call_id");
	struct cursor_tool t;
	double ts = cursor_ts(obj);

	st->merging = 0;
	if (cursor_tool_find(jx_get(obj, "tool_call"), &t) < 0) {
		run_error(ctx->run, ctx->lineno, "cursor tool_call without a \"...ToolCall\" or \"function\" entry");
		return -1;
	}
	if (!id)
		id = jx_str(jx_get(obj, "tool_call"), "toolCallId");
	if (!sub || strcmp(sub, "completed")) {
		cursor_call(ctx, &t, id, ts);
		cursor_mark_started(st, id);
	} else {
		int is_error = 0;
		char *text = cursor_result_text(t.result, &is_error);
		if (!cursor_was_started(st, id)) /* its start was not in the stream */
			cursor_call(ctx, &t, id, ts);
		parser_tool_result(ctx, id, text, is_error)->ts = ts;
		free(text);
	}
	free(t.name);
	return 0;
}

/* The completion marker: the final text, and the run's token totals. */
static void cursor_result(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *sub = jx_str(obj, "subtype"), *text = jx_str(obj, "result");
	const cJSON *u = jx_get(obj, "usage");
	int failed = jx_bool(obj, "is_error", 0) || (sub && strcmp(sub, "success"));
	double ts = cursor_ts(obj);
	struct event *e;

	e = parser_text(ctx, failed ? EV_ERROR : EV_SYSTEM, text ? text : "");
	e->name = xstrdup(failed && sub ? sub : "result");
	e->is_error = failed ? 1 : 0;
	e->ts = ts;
	if (cJSON_IsObject(u)) {
		e = run_add(ctx->run, EV_USAGE, ctx->lineno);
		e->ts = ts;
		e->tok_in = jx_ll(u, "inputTokens", 0);
		e->tok_out = jx_ll(u, "outputTokens", 0);
		e->tok_cache_read = jx_ll(u, "cacheReadTokens", 0);
		e->tok_cache_write = jx_ll(u, "cacheWriteTokens", 0);
	}
	ctx->run->complete_seen = 1;
}

static int cursor_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	struct cursor_state *st = ctx->state;
	const char *t = jx_str(obj, "type");
	(void)line;
	(void)len;

	if (!t) {
		run_error(ctx->run, ctx->lineno, "cursor record without \"type\"");
		return -1;
	}
	cursor_meta_set(&ctx->run->meta.session_id, jx_str(obj, "session_id"));
	if (!strcmp(t, "assistant") || !strcmp(t, "user"))
		return cursor_message(ctx, st, obj, !strcmp(t, "user"));
	if (!strcmp(t, "thinking")) {
		cursor_thinking(ctx, st, obj);
		return 0;
	}
	if (!strcmp(t, "tool_call"))
		return cursor_tool_call(ctx, st, obj);
	st->merging = 0;
	if (!strcmp(t, "system")) {
		const char *sub = jx_str(obj, "subtype");
		if (sub && !strcmp(sub, "init"))
			cursor_init(ctx, obj);
		else
			parser_text(ctx, EV_SYSTEM, sub ? sub : "system")->name = xstrdup(sub ? sub : "system");
	} else if (!strcmp(t, "result")) {
		cursor_result(ctx, obj);
	} else {
		/* records we do not model stay visible as system events */
		parser_text(ctx, EV_SYSTEM, t)->name = xstrdup(t);
	}
	return 0;
}

static void cursor_finish(struct parse_ctx *ctx)
{
	ctx->run->incomplete = !ctx->run->complete_seen;
}

static const struct parser_ignored cursor_ignored[] = {
	{NULL, NULL},
};

static const char *const cursor_types[] = {"system", "user", "assistant", "thinking", "tool_call", "result", NULL};

const struct parser_ops parse_cursor_ops = {
	.name = "cursor",
	.description = "Cursor CLI cursor-agent --print --output-format stream-json",
	.sniff = cursor_sniff,
	.state_new = cursor_state_new,
	.state_free = cursor_state_free,
	.line = cursor_line,
	.finish = cursor_finish,
	.ignored = cursor_ignored,
	.types = cursor_types,
	.harness = "cursor",
	.tokens = "the result line's usage (inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens)",
};
