/* parse_codex.c: Codex CLI session rollouts (~/.codex/sessions/.../
 * rollout-*.jsonl), one {timestamp, type, payload} record per line:
 * session_meta, turn_context, response_item (the model's history: messages,
 * reasoning, tool calls and their outputs), event_msg (UI events: token
 * counts, turn start/end, errors) and compacted. Rollouts written before
 * the {type, payload} wrapping (a bare session meta line, then bare
 * response items and {"record_type": "state"} lines) are read too.
 *
 * Decisions:
 *  - event_msg agent_message, agent_reasoning(_raw_content) and
 *    user_message repeat a response_item: Codex records the item (resuming
 *    a session replays items) and only then emits the event, so once a
 *    message or reasoning item has been seen these events are dropped. A
 *    rollout that has none (trimmed, hand-made) shows the events instead.
 *    context_compacted always repeats the compacted record: dropped.
 *  - Reasoning shows its full text (content) when present; a summary-only
 *    or encrypted-only reasoning item is marked redacted.
 *  - User-role messages that Codex composes itself (AGENTS.md, environment
 *    context) are system events named user_context, so the first user
 *    event is the person's prompt. web_search_call is a call without result.
 *  - One usage event per token_count, from last_token_usage (input minus
 *    cached input as tok_in, cached as tok_cache_read; reasoning tokens are
 *    part of output_tokens, as OpenAI counts them); a token_count whose
 *    running total did not move (rate-limit refreshes repeat it) adds none.
 *  - Completion: the last turn ended with task_complete. A turn started
 *    again, aborted or never closed leaves the run incomplete. */
#include "parser.h"
#include "textsafe.h"
#include "jsonx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum codex_turn { CODEX_TURN_NONE, CODEX_TURN_OPEN, CODEX_TURN_DONE, CODEX_TURN_ABORTED };

struct codex_state {
	enum codex_turn turn;
	int has_items;       /* a message or reasoning response_item was seen */
	int have_total;
	long long total[4];  /* last total_token_usage: input, cached, output, reasoning */
};

/* ---- sniffing ------------------------------------------------------------ */

static int codex_is(const char *t, const char *a)
{
	return t && strcmp(t, a) == 0;
}

/* A bare response item as the first rollouts wrote them (no payload). The
 * shapes are the Responses API's, which no other harness here writes. */
static int codex_legacy_item(const cJSON *o)
{
	const char *t = jx_str(o, "type");
	if (!t || jx_get(o, "payload"))
		return 0;
	if (codex_is(t, "message")) {
		const cJSON *c = jx_get(o, "content");
		const char *bt = cJSON_IsArray(c) ? jx_str(cJSON_GetArrayItem(c, 0), "type") : NULL;
		return jx_str(o, "role") && (codex_is(bt, "input_text") || codex_is(bt, "output_text"));
	}
	if (codex_is(t, "reasoning"))
		return cJSON_IsArray(jx_get(o, "summary"));
	if (codex_is(t, "function_call"))
		return jx_str(o, "call_id") && cJSON_IsString(jx_get(o, "arguments"));
	if (codex_is(t, "function_call_output") || codex_is(t, "custom_tool_call_output"))
		return jx_str(o, "call_id") && jx_get(o, "output");
	if (codex_is(t, "custom_tool_call"))
		return jx_str(o, "call_id") && jx_str(o, "input");
	if (codex_is(t, "local_shell_call"))
		return cJSON_IsObject(jx_get(o, "action"));
	return 0;
}

static int codex_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	(void)line;
	(void)len;
	if (cJSON_IsObject(jx_get(obj, "payload"))) {
		if (codex_is(t, "session_meta"))
			return 90;
		if (codex_is(t, "response_item") || codex_is(t, "event_msg") ||
		    codex_is(t, "turn_context") || codex_is(t, "compacted"))
			return 80;
		return 0;
	}
	if (!t && codex_is(jx_str(obj, "record_type"), "state"))
		return 40;
	/* top-level system/user/assistant records belong to other tools' stores
	 * (Grok's chat history shares the Responses API reasoning items with
	 * legacy rollouts): evidence against */
	if (codex_is(t, "system") || codex_is(t, "user") || codex_is(t, "assistant"))
		return -60;
	return codex_legacy_item(obj) ? 50 : 0;
}

static void *codex_state_new(void)
{
	return xcalloc(1, sizeof(struct codex_state));
}

/* ---- helpers --------------------------------------------------------------- */

static void codex_meta(char **slot, const char *v)
{
	if (!*slot && v && *v)
		*slot = xstrdup(v);
}

static struct event *codex_event(struct parse_ctx *ctx, enum ev_kind k, const char *text, const char *name)
{
	struct event *e = parser_text(ctx, k, text ? text : "");
	if (name)
		e->name = xstrdup(name);
	if (k == EV_ERROR)
		e->is_error = 1;
	return e;
}

/* Texts of an array of {type, text} blocks joined by a blank line, NULL
 * when none (reasoning summaries are separate paragraphs). */
static char *codex_paragraphs(const cJSON *arr)
{
	struct sbuf b;
	const cJSON *it;
	sbuf_init(&b);
	cJSON_ArrayForEach(it, arr) {
		const char *s = cJSON_IsString(it) ? it->valuestring : jx_str(it, "text");
		if (!s || !*s)
			continue;
		if (b.len)
			sbuf_adds(&b, "\n\n");
		sbuf_adds(&b, s);
	}
	if (!b.len) {
		sbuf_free(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

/* ---- tool outputs ---------------------------------------------------------- */

/* Exit code written in a tool output's text, 0 when none is written:
 * "Process exited with code N" or "Exit code: N" in the header lines that
 * precede "Output:", or "exit_code: N" under a flattened "metadata:". */
static long codex_text_exit(const char *s)
{
	const char *p = s, *m;
	for (int i = 0; i < 8 && p && *p; i++) {
		const char *nl = strchr(p, '\n');
		if (util_starts_with(p, "Output:"))
			break;
		if (util_starts_with(p, "Process exited with code "))
			return strtol(p + strlen("Process exited with code "), NULL, 10);
		if (util_starts_with(p, "Exit code: "))
			return strtol(p + strlen("Exit code: "), NULL, 10);
		p = nl ? nl + 1 : NULL;
	}
	if (util_starts_with(s, "output:") && (m = strstr(s, "\nmetadata:\n")) != NULL) {
		const char *ec = strstr(m, "\n  exit_code: ");
		if (ec)
			return strtol(ec + strlen("\n  exit_code: "), NULL, 10);
	}
	return 0;
}

static int codex_exit_failed(const cJSON *metadata)
{
	const cJSON *ec = jx_get(metadata, "exit_code");
	return cJSON_IsNumber(ec) && ec->valuedouble != 0;
}

/* The text of a tool output in its historical shapes: a plain string, a
 * JSON string {output, metadata: {exit_code}}, an object {content,
 * success} or {output, metadata}, or an array of content items. */
static char *codex_output_text(const cJSON *out, int *is_error)
{
	*is_error = 0;
	if (cJSON_IsString(out)) {
		const char *s = out->valuestring;
		cJSON *j = *s == '{' ? jx_parse(s, strlen(s)) : NULL;
		if (j && cJSON_IsString(jx_get(j, "output"))) {
			char *t = xstrdup(jx_str(j, "output"));
			*is_error = codex_exit_failed(jx_get(j, "metadata"));
			cJSON_Delete(j);
			return t;
		}
		cJSON_Delete(j);
		*is_error = codex_text_exit(s) != 0;
		return xstrdup(s);
	}
	if (cJSON_IsObject(out)) {
		const char *s = jx_str(out, "content");
		if (!s)
			s = jx_str(out, "output");
		*is_error = jx_bool(out, "success", 1) == 0 || codex_exit_failed(jx_get(out, "metadata"));
		if (s)
			return xstrdup(s);
		return jx_print(out);
	}
	if (cJSON_IsArray(out)) {
		char *t = jx_blocks_text(out, NULL, "text");
		return t ? t : xstrdup("");
	}
	return out ? jx_print(out) : xstrdup("");
}

/* ---- response items ---------------------------------------------------------- */

/* User-role messages that Codex itself composes (AGENTS.md, environment)
 * rather than the person's prompt. */
static int codex_user_context(const char *text)
{
	static const char *const tags[] = {"<environment_context>", "<user_instructions>",
	                                   "# AGENTS.md instructions", "<permissions instructions>", NULL};
	for (size_t i = 0; tags[i]; i++)
		if (util_starts_with(text, tags[i]))
			return 1;
	return 0;
}

static int codex_message(struct parse_ctx *ctx, struct codex_state *st, const cJSON *p)
{
	const char *role = jx_str(p, "role");
	char *text;

	if (!role) {
		run_error(ctx->run, ctx->lineno, "codex message without \"role\"");
		return -1;
	}
	text = jx_blocks_text(jx_get(p, "content"), NULL, "text");
	if (!text)
		text = xstrdup("");
	st->has_items = 1;
	if (!strcmp(role, "user") && codex_user_context(text))
		codex_event(ctx, EV_SYSTEM, text, "user_context");
	else if (!strcmp(role, "user"))
		codex_event(ctx, EV_USER, text, NULL);
	else if (!strcmp(role, "assistant"))
		codex_event(ctx, EV_TEXT, text, NULL);
	else
		codex_event(ctx, EV_SYSTEM, text, role); /* developer, system */
	free(text);
	return 0;
}

static void codex_reasoning(struct parse_ctx *ctx, struct codex_state *st, const cJSON *p)
{
	char *full = codex_paragraphs(jx_get(p, "content"));
	char *summary = codex_paragraphs(jx_get(p, "summary"));
	const char *enc = jx_str(p, "encrypted_content");

	st->has_items = 1;
	if (full)
		codex_event(ctx, EV_REASONING, full, NULL);
	else if (summary || (enc && *enc))
		/* a summary is not the model's thinking; encrypted is none of it */
		codex_event(ctx, EV_REASONING, summary, NULL)->redacted = 1;
	free(full);
	free(summary);
}

static const char *codex_call_id(const cJSON *p)
{
	const char *id = jx_str(p, "call_id");
	return id ? id : jx_str(p, "id");
}

/* A shell call's command as one line, not its workdir (the first string
 * argument): ["bash", "-lc", "ls -la"] shows as "ls -la", any other array
 * as its words. Owned; NULL when the arguments hold no command array. */
static char *codex_command_line(const cJSON *args)
{
	const cJSON *cmd = jx_get(args, "command"), *w;
	int n = cJSON_GetArraySize(cmd);
	struct sbuf b;

	if (!cJSON_IsArray(cmd) || n == 0)
		return NULL;
	const char *sh, *flag = NULL, *body = NULL;
	sh = cJSON_IsString(cJSON_GetArrayItem(cmd, 0)) ? cJSON_GetArrayItem(cmd, 0)->valuestring : "";
	if (n == 3 && cJSON_IsString(cJSON_GetArrayItem(cmd, 1)) && cJSON_IsString(cJSON_GetArrayItem(cmd, 2))) {
		flag = cJSON_GetArrayItem(cmd, 1)->valuestring;
		body = cJSON_GetArrayItem(cmd, 2)->valuestring;
	}
	const char *base = strrchr(sh, '/') ? strrchr(sh, '/') + 1 : sh;
	if (body && (!strcmp(flag, "-lc") || !strcmp(flag, "-c")) &&
	    (!strcmp(base, "bash") || !strcmp(base, "zsh") || !strcmp(base, "sh")))
		return xstrdup(body);
	sbuf_init(&b);
	cJSON_ArrayForEach(w, cmd)
		if (cJSON_IsString(w))
			sbuf_addf(&b, "%s%s", b.len ? " " : "", w->valuestring);
	return b.s ? sbuf_detach(&b) : NULL;
}

/* An exec_command or shell result as "exit 0: first output line" rather
 * than its "Chunk ID: 6ecf91" header. known: the exit code came from the
 * output's metadata. Owned; NULL when the text has no header and no known
 * exit code (the output is then shown as it is). */
static char *codex_result_line(const char *text, long code, int known)
{
	const char *out = NULL, *p;
	if (util_starts_with(text, "Chunk ID: ") || util_starts_with(text, "Exit code: ")) {
		out = strstr(text, "\nOutput:\n");
		out = out ? out + strlen("\nOutput:\n") : NULL;
		if (strstr(text, "\nProcess running with session ID ") && !strstr(text, "Process exited with code "))
			return xstrdup("still running");
	} else if (!known) {
		return NULL;
	} else {
		out = text;
	}
	/* the first line that says something */
	for (p = out; p && *p;) {
		size_t n = strcspn(p, "\n");
		size_t lead = strspn(p, " \t");
		if (n > lead)
			return xasprintf("exit %ld: %.*s", code, (int)(n - lead > 200 ? 200 : n - lead), p + lead);
		p += n + (p[n] == '\n');
	}
	return xasprintf("exit %ld", code);
}

static int codex_function_call(struct parse_ctx *ctx, const cJSON *p, const char *args_key)
{
	const char *name = jx_str(p, "name");
	const cJSON *args = jx_get(p, args_key);
	char *text;

	if (!name) {
		run_error(ctx->run, ctx->lineno, "codex %s without \"name\"", jx_str(p, "type"));
		return -1;
	}
	/* arguments are JSON text; custom tools (apply_patch) take raw text */
	if (!cJSON_IsString(args)) {
		struct event *e = parser_tool_call_obj(ctx, name, codex_call_id(p), args, 1);
		e->summary = codex_command_line(args);
		return 0;
	}
	text = xstrdup(args->valuestring);
	struct event *e = parser_tool_call(ctx, name, codex_call_id(p), text);
	if (strstr(text, "\"command\"")) {
		cJSON *a = jx_parse(text, strlen(text));
		e->summary = codex_command_line(a);
		cJSON_Delete(a);
	}
	free(text);
	return 0;
}

static void codex_output(struct parse_ctx *ctx, const cJSON *p)
{
	int is_error;
	const cJSON *out = jx_get(p, "output");
	char *text = codex_output_text(out, &is_error);
	struct event *e = parser_tool_result(ctx, codex_call_id(p), text, is_error);
	/* a shell's JSON output ({output, metadata.exit_code}) or exec_command's
	 * text header: the exit code and the first line of output */
	const char *raw = cJSON_IsString(out) ? out->valuestring : "";
	if (*raw == '{' && strstr(raw, "\"exit_code\"")) {
		cJSON *j = jx_parse(raw, strlen(raw));
		const cJSON *ec = jx_path(j, "metadata.exit_code");
		if (cJSON_IsNumber(ec))
			e->summary = codex_result_line(text, (long)ec->valuedouble, 1);
		cJSON_Delete(j);
	} else {
		e->summary = codex_result_line(text, codex_text_exit(text), 0);
	}
	free(text);
}

/* Built-in calls that carry their arguments as an "action" object. */
static void codex_action_call(struct parse_ctx *ctx, const cJSON *p, const char *name)
{
	const cJSON *action = jx_get(p, "action");
	if (action) {
		parser_tool_call_obj(ctx, name, codex_call_id(p), action, 1);
	} else { /* "null" as text, as the arguments always were */
		cJSON *null = cJSON_CreateNull();
		parser_tool_call_obj(ctx, name, codex_call_id(p), null, 1);
		cJSON_Delete(null);
	}
}

static int codex_response_item(struct parse_ctx *ctx, struct codex_state *st, const cJSON *p)
{
	const char *t = jx_str(p, "type");

	if (!t) {
		run_error(ctx->run, ctx->lineno, "codex response_item without payload \"type\"");
		return -1;
	}
	if (!strcmp(t, "message"))
		return codex_message(ctx, st, p);
	if (!strcmp(t, "reasoning"))
		codex_reasoning(ctx, st, p);
	else if (!strcmp(t, "function_call"))
		return codex_function_call(ctx, p, "arguments");
	else if (!strcmp(t, "custom_tool_call"))
		return codex_function_call(ctx, p, "input");
	else if (!strcmp(t, "function_call_output") || !strcmp(t, "custom_tool_call_output"))
		codex_output(ctx, p);
	else if (!strcmp(t, "local_shell_call"))
		codex_action_call(ctx, p, "local_shell");
	else if (!strcmp(t, "web_search_call"))
		codex_action_call(ctx, p, "web_search");
	else if (!strcmp(t, "compaction") || !strcmp(t, "compaction_summary"))
		codex_event(ctx, EV_COMPACTION, "", "encrypted")->redacted = 1;
	else if (strcmp(t, "ghost_snapshot") != 0)
		codex_event(ctx, EV_SYSTEM, t, t); /* not modelled yet: stays visible */
	return 0;
}

/* ---- session, turn context, events ------------------------------------------ */

static void codex_session_meta(struct parse_ctx *ctx, const cJSON *p)
{
	struct run_meta *m = &ctx->run->meta;
	static const char *const keys[] = {"id", "cwd", "cli_version", "originator", "model_provider", NULL};
	const char *instr = jx_str(p, "instructions"), *base = jx_pstr(p, "base_instructions.text");
	struct sbuf b;

	codex_meta(&m->session_id, jx_str(p, "id"));
	codex_meta(&m->cwd, jx_str(p, "cwd"));
	codex_meta(&m->model, jx_str(p, "model"));
	sbuf_init(&b);
	for (size_t i = 0; keys[i]; i++)
		if (jx_str(p, keys[i]))
			sbuf_addf(&b, "%s%s: %s", b.len ? "\n" : "", keys[i], jx_str(p, keys[i]));
	if (jx_pstr(p, "git.branch"))
		sbuf_addf(&b, "%sgit: %s%s%s", b.len ? "\n" : "", jx_pstr(p, "git.branch"),
		          jx_pstr(p, "git.commit_hash") ? " " : "",
		          jx_pstr(p, "git.commit_hash") ? jx_pstr(p, "git.commit_hash") : "");
	if (base)
		sbuf_addf(&b, "%s%s", b.len ? "\n\n" : "", base);
	if (instr)
		sbuf_addf(&b, "%s%s", b.len ? "\n\n" : "", instr);
	codex_event(ctx, EV_SYSTEM, b.s ? b.s : "", "session_meta");
	sbuf_free(&b);
}

static void codex_turn_context(struct parse_ctx *ctx, const cJSON *p)
{
	struct run_meta *m = &ctx->run->meta;
	codex_meta(&m->model, jx_str(p, "model"));
	codex_meta(&m->effort, jx_str(p, "effort"));
	codex_meta(&m->cwd, jx_str(p, "cwd"));
}

static void codex_read_usage(const cJSON *u, long long v[4])
{
	v[0] = jx_ll(u, "input_tokens", 0);
	v[1] = jx_ll(u, "cached_input_tokens", 0);
	v[2] = jx_ll(u, "output_tokens", 0);
	v[3] = jx_ll(u, "reasoning_output_tokens", 0);
}

static void codex_token_count(struct parse_ctx *ctx, struct codex_state *st, const cJSON *info)
{
	const cJSON *tot = jx_get(info, "total_token_usage"), *last = jx_get(info, "last_token_usage");
	long long cur[4], v[4];
	struct event *e;

	if (!cJSON_IsObject(info))
		return; /* null before the first response */
	if (cJSON_IsObject(tot)) {
		codex_read_usage(tot, cur);
		if (st->have_total && !memcmp(cur, st->total, sizeof cur))
			return; /* a repeat: nothing new was used */
	}
	if (cJSON_IsObject(last)) {
		codex_read_usage(last, v);
	} else if (cJSON_IsObject(tot)) {
		for (int i = 0; i < 4; i++)
			v[i] = cur[i] - (st->have_total ? st->total[i] : 0);
	} else {
		return;
	}
	if (cJSON_IsObject(tot)) {
		memcpy(st->total, cur, sizeof cur);
		st->have_total = 1;
	}
	e = run_add(ctx->run, EV_USAGE, ctx->lineno);
	e->tok_in = v[0] > v[1] ? v[0] - v[1] : 0; /* input_tokens include the cached ones */
	e->tok_cache_read = v[1];
	e->tok_out = v[2];
	e->tok_reasoning = v[3];
}

/* The UI events that repeat response items, shown only when the rollout
 * carries no items (see the top of the file). */
static void codex_echo(struct parse_ctx *ctx, const char *t, const cJSON *p)
{
	if (!strcmp(t, "user_message"))
		codex_event(ctx, EV_USER, jx_str(p, "message"), NULL);
	else if (!strcmp(t, "agent_message"))
		codex_event(ctx, EV_TEXT, jx_str(p, "message"), NULL);
	else if (!strcmp(t, "agent_reasoning"))
		codex_event(ctx, EV_REASONING, jx_str(p, "text"), NULL)->redacted = 1; /* a summary */
	else
		codex_event(ctx, EV_REASONING, jx_str(p, "text"), NULL);
}

static void codex_event_msg(struct parse_ctx *ctx, struct codex_state *st, const cJSON *p)
{
	const char *t = jx_str(p, "type");

	if (!t)
		return;
	if (!strcmp(t, "token_count")) {
		codex_token_count(ctx, st, jx_get(p, "info"));
	} else if (!strcmp(t, "task_started") || !strcmp(t, "turn_started")) {
		st->turn = CODEX_TURN_OPEN;
	} else if (!strcmp(t, "task_complete") || !strcmp(t, "turn_complete")) {
		st->turn = CODEX_TURN_DONE;
		ctx->run->complete_seen = 1;
	} else if (!strcmp(t, "turn_aborted")) {
		const char *why = jx_str(p, "reason");
		char *msg = xasprintf("turn aborted: %s", why ? why : "unknown reason");
		codex_event(ctx, EV_ERROR, msg, t);
		free(msg);
		st->turn = CODEX_TURN_ABORTED;
	} else if (!strcmp(t, "error")) {
		const char *msg = jx_str(p, "message");
		codex_event(ctx, EV_ERROR, msg ? msg : "error", t);
	} else if (!strcmp(t, "stream_error")) {
		/* a retry notice: the stream went on */
		codex_event(ctx, EV_SYSTEM, jx_str(p, "message"), t);
	} else if (!strcmp(t, "entered_review_mode") || !strcmp(t, "exited_review_mode")) {
		codex_event(ctx, EV_SYSTEM, t, t);
	} else if (!strcmp(t, "user_message") || !strcmp(t, "agent_message") ||
	           !strcmp(t, "agent_reasoning") || !strcmp(t, "agent_reasoning_raw_content")) {
		if (!st->has_items)
			codex_echo(ctx, t, p);
	}
	/* the rest repeat response items or are UI progress */
}

/* Every event a line produced carries the line's timestamp. */
static void codex_stamp(struct run *r, size_t first, const cJSON *ts)
{
	double t = jx_time(ts);
	for (size_t i = first; i < r->nev; i++)
		if (!r->ev[i].ts)
			r->ev[i].ts = t;
}

static int codex_record(struct parse_ctx *ctx, struct codex_state *st, const char *t, const cJSON *p)
{
	if (!strcmp(t, "response_item"))
		return codex_response_item(ctx, st, p);
	if (!strcmp(t, "event_msg"))
		codex_event_msg(ctx, st, p);
	else if (!strcmp(t, "session_meta"))
		codex_session_meta(ctx, p);
	else if (!strcmp(t, "turn_context"))
		codex_turn_context(ctx, p);
	else if (!strcmp(t, "compacted"))
		codex_event(ctx, EV_COMPACTION, jx_str(p, "message"), NULL);
	else
		codex_event(ctx, EV_SYSTEM, t, t);
	return 0;
}

static int codex_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	struct codex_state *st = ctx->state;
	const char *t = jx_str(obj, "type");
	const cJSON *p = jx_get(obj, "payload");
	size_t first = ctx->run->nev;
	int rc = 0;

	(void)line;
	(void)len;
	if (t && cJSON_IsObject(p)) {
		rc = codex_record(ctx, st, t, p);
	} else if (t && p) {
		run_error(ctx->run, ctx->lineno, "codex %.*s record whose payload is not an object", (int)textsafe_cut(t, strlen(t), 40), t);
		return -1;
	} else if (codex_legacy_item(obj)) {
		rc = codex_response_item(ctx, st, obj);
	} else if (!t && jx_str(obj, "id") && jx_get(obj, "timestamp")) {
		codex_session_meta(ctx, obj); /* legacy first line */
	} else if (!t && jx_str(obj, "record_type")) {
		/* legacy state snapshot: nothing to show */
	} else {
		run_error(ctx->run, ctx->lineno, "not a codex rollout record (needs \"type\" and \"payload\")");
		return -1;
	}
	codex_stamp(ctx->run, first, jx_get(obj, "timestamp"));
	return rc;
}

static void codex_finish(struct parse_ctx *ctx)
{
	struct codex_state *st = ctx->state;
	ctx->run->incomplete = st->turn != CODEX_TURN_DONE;
}

/* "event_msg/token_count": the line's type and its payload's. */
static const char *codex_record_key(const cJSON *obj, char *buf, size_t n)
{
	const char *t = jx_str(obj, "type"), *pt = jx_pstr(obj, "payload.type");
	if (!t)
		return NULL;
	snprintf(buf, n, "%s%s%s", t, pt ? "/" : "", pt ? pt : "");
	return buf;
}

static const struct parser_ignored codex_ignored[] = {
	{"turn_context", "a turn's settings: its model and effort become the run's metadata, not an event"},
	{"event_msg/*", "the UI's event stream, which repeats the response items (messages, reasoning, "
	                "calls and their ends) and reports progress; only token_count, errors, aborted "
	                "turns, compactions and (in files without response items) the messages become events"},
	{"response_item/ghost_snapshot", "a git snapshot Codex takes to undo a turn; no part of the conversation"},
	{NULL, NULL},
};

static const char *const codex_types[] = {"session_meta", "response_item", "event_msg", "turn_context",
                                          "compacted", NULL};
static const char *const codex_names[] = {"codex_session.jsonl", NULL};

const struct parser_ops parse_codex_ops = {
	.name = "codex",
	.description = "Codex CLI session rollout JSONL (session_meta/response_item/event_msg)",
	.sniff = codex_sniff,
	.state_new = codex_state_new,
	.state_free = free,
	.line = codex_line,
	.finish = codex_finish,
	.record_key = codex_record_key,
	.ignored = codex_ignored,
	.types = codex_types,
	.transcript_names = codex_names,
	.tokens = "one usage per token_count event, from its last_token_usage (a token_count whose "
	          "running total did not move adds none); input_tokens less cached_input_tokens is "
	          "input, the cached ones cache reads; reasoning tokens are part of output_tokens, "
	          "as OpenAI counts them",
	.harness = "codex",
};
