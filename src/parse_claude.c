/* parse_claude.c: Claude Code transcripts in the two shapes it writes:
 *  - "claude": `--print --verbose --output-format stream-json`, one SDK
 *    message per line (system/init, assistant, user, system task and
 *    compaction notices, a final result line);
 *  - "claude-session": the session files under ~/.claude/projects, one
 *    record per line with parentUuid/isSidechain/sessionId/timestamp.
 * Both carry Anthropic messages; each content block type is mapped by one
 * function that both shapes share. Consecutive lines of one API message
 * repeat its usage, so usage is counted once per message id. */
#include "parser.h"
#include "strmap.h"
#include "jsonx.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CLAUDE_SUMMARY_PREFIX "This session is being continued"

/* Tool calls of a chain's latest assistant message still waiting for a
 * result: a session file that ends with one is cut short. */
struct claude_pending {
	char *msg_id;
	char **ids;
	size_t n, cap;
};

struct claude_state {
	int session;                  /* 1: session-file shape */
	/* message id -> index of its usage event (-1 while its usage was all
	 * zero), so that repeated lines of one message add no second usage
	 * event (owned, made on first use) */
	struct strmap *ids;
	size_t compaction;            /* index+1 of a compaction awaiting its summary */
	struct claude_pending pending[2]; /* main chain, sidechain */
	long long out_at_result;      /* the run's output total at the last result line */
	long long reasoning_at_result; /* and its reasoning total */
	struct strmap *seen;          /* uuids of subagent messages taken from progress records */
};

/* What holds for every event one line produces. */
struct claude_line {
	int sidechain;
	const char *parent;           /* borrowed from the line */
	double ts;
	int api_error;                /* assistant text is an API error report */
	int compact_summary;          /* user text is a post-compaction summary */
	int meta;                     /* session user line marked isMeta */
	const char *err;              /* first problem found in the line */
};

/* ---- message ids ------------------------------------------------------- */

/* The slot for id in *t (made on first use), created (holding -1) when
 * absent; valid until the next call on *t. */
static int *claude_ids_slot(struct strmap **t, const char *id)
{
	if (!*t)
		*t = strmap_new(1);
	return strmap_put(*t, id, NULL);
}

/* ---- pending tool calls (session completeness) -------------------------- */

static void claude_pending_clear(struct claude_pending *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->ids[i]);
	p->n = 0;
	free(p->msg_id);
	p->msg_id = NULL;
}

/* A new assistant message replaces what the chain was waiting for. */
static void claude_pending_message(struct claude_pending *p, const char *msg_id)
{
	if (msg_id && p->msg_id && strcmp(msg_id, p->msg_id) == 0)
		return;
	claude_pending_clear(p);
	p->msg_id = xstrdup(msg_id ? msg_id : "");
}

static void claude_pending_add(struct claude_pending *p, const char *id)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->ids = xrealloc(p->ids, p->cap * sizeof *p->ids);
	}
	p->ids[p->n++] = xstrdup(id ? id : "");
}

static void claude_pending_answer(struct claude_pending *p, const char *id)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->ids[i], id ? id : "") == 0) {
			free(p->ids[i]);
			p->ids[i] = p->ids[--p->n];
			return;
		}
}

/* ---- state ------------------------------------------------------------- */

static void *claude_state_new(void)
{
	return xcalloc(1, sizeof(struct claude_state));
}

static void *claude_session_state_new(void)
{
	struct claude_state *st = claude_state_new();
	st->session = 1;
	return st;
}

static void claude_state_free(void *p)
{
	struct claude_state *st = p;
	if (!st)
		return;
	strmap_free(st->ids);
	strmap_free(st->seen);
	for (int i = 0; i < 2; i++) {
		claude_pending_clear(&st->pending[i]);
		free(st->pending[i].ids);
	}
	free(st);
}

/* ---- sniffing ---------------------------------------------------------- */

static int claude_has_tool_result(const cJSON *content)
{
	const cJSON *arr = cJSON_IsArray(content) ? content : NULL, *b;
	cJSON_ArrayForEach(b, arr) {
		const char *t = jx_str(b, "type");
		if (t && strcmp(t, "tool_result") == 0)
			return 1;
	}
	return 0;
}

/* stream-json lines carry snake-case session_id and never parentUuid;
 * Cursor's look alike but lack tools/mcp_servers on init, message ids,
 * usage, parent_tool_use_id and result cost; Droid's init names a
 * reasoning_effort and its messages are type "message". */
static int claude_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	const char *sub = jx_str(obj, "subtype");
	const cJSON *msg = jx_get(obj, "message");
	(void)line;
	(void)len;

	if (!t || jx_get(obj, "parentUuid") || jx_get(obj, "sessionId") ||
	    !jx_str(obj, "session_id"))
		return 0;
	if (!strcmp(t, "system") && sub) {
		if (!strcmp(sub, "init"))
			return cJSON_IsArray(jx_get(obj, "mcp_servers")) &&
			       !jx_get(obj, "reasoning_effort") ? 40 : 0;
		if (!strcmp(sub, "task_started") || !strcmp(sub, "task_notification") ||
		    !strcmp(sub, "compact_boundary"))
			return 30;
		return 0;
	}
	if (!strcmp(t, "assistant") && cJSON_IsObject(msg)) {
		int ids = jx_str(msg, "id") && cJSON_IsObject(jx_get(msg, "usage"));
		int ptu = jx_get(obj, "parent_tool_use_id") != NULL;
		return ids ? (ptu ? 80 : 70) : (ptu ? 40 : 0);
	}
	if (!strcmp(t, "user") && cJSON_IsObject(msg))
		return jx_get(obj, "parent_tool_use_id") ||
		       claude_has_tool_result(jx_get(msg, "content")) ? 40 : 0;
	if (!strcmp(t, "result"))
		/* Cursor's result line has a camelCase usage object: not ours */
		return jx_path(obj, "usage.input_tokens") || jx_get(obj, "total_cost_usd") ? 50 : 0;
	return 0;
}

static int claude_session_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	(void)line;
	(void)len;

	if (!t)
		return 0;
	if (jx_get(obj, "parentUuid") && jx_str(obj, "sessionId")) {
		if (!strcmp(t, "user") || !strcmp(t, "assistant") || !strcmp(t, "system"))
			return 80;
		return 40;
	}
	if (!strcmp(t, "summary") && jx_str(obj, "summary") && jx_get(obj, "leafUuid"))
		return 40;
	if (!strcmp(t, "file-history-snapshot") && jx_get(obj, "snapshot") && jx_get(obj, "messageId"))
		return 20;
	return 0;
}

/* ---- content blocks ---------------------------------------------------- */

/* Tool output as text: a string, or the text of its blocks with images and
 * other non-text blocks shown as a bracketed placeholder. */
static char *claude_result_text(const cJSON *content)
{
	struct sbuf b;
	const cJSON *it;

	if (!content || cJSON_IsNull(content))
		return xstrdup("");
	if (cJSON_IsString(content))
		return xstrdup(content->valuestring);
	if (!cJSON_IsArray(content))
		return jx_print(content);
	sbuf_init(&b);
	cJSON_ArrayForEach(it, content) {
		const char *t = jx_str(it, "type");
		if (b.len)
			sbuf_addc(&b, '\n');
		if (cJSON_IsString(it))
			sbuf_adds(&b, it->valuestring);
		else if (t && !strcmp(t, "text"))
			sbuf_adds(&b, jx_str(it, "text"));
		else if (t && !strcmp(t, "image") && jx_pstr(it, "source.media_type"))
			sbuf_addf(&b, "[image %s]", jx_pstr(it, "source.media_type"));
		else if (t && !strcmp(t, "tool_reference"))
			sbuf_addf(&b, "[tool %s]", jx_str(it, "tool_name") ? jx_str(it, "tool_name") : "");
		else
			sbuf_addf(&b, "[%s]", t ? t : "?");
	}
	return sbuf_detach(&b);
}

/* A post-compaction summary becomes the text of the compaction it follows
 * (or of a new one when the boundary was not seen). */
static void claude_compact_summary(struct parse_ctx *ctx, struct claude_state *st, const char *text)
{
	struct run *r = ctx->run;
	if (st->compaction && st->compaction <= r->nev &&
	    r->ev[st->compaction - 1].kind == EV_COMPACTION) {
		struct event *e = &r->ev[st->compaction - 1];
		free(e->text);
		e->text = xstrdup(text);
	} else {
		parser_text(ctx, EV_COMPACTION, text);
	}
	st->compaction = 0;
}

/* Text of a text block, or a message's whole string content. */
static int claude_blank(const char *s)
{
	for (; s && *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	return 1;
}

static void claude_text(struct parse_ctx *ctx, struct claude_state *st,
                        struct claude_line *lc, const char *text, int user)
{
	/* a text block of only whitespace (between thinking and a tool call)
	 * says nothing: no row */
	if (!text || (claude_blank(text) && !lc->api_error))
		return;
	if (!user) {
		struct event *e = parser_text(ctx, lc->api_error ? EV_ERROR : EV_TEXT, text);
		e->is_error = lc->api_error ? 1 : 0;
	} else if (lc->compact_summary || util_starts_with(text, CLAUDE_SUMMARY_PREFIX)) {
		claude_compact_summary(ctx, st, text);
	} else if (lc->meta) {
		parser_text(ctx, EV_SYSTEM, text)->name = xstrdup("meta");
	} else {
		parser_text(ctx, EV_USER, text);
	}
}

/* Thinking whose text is not returned (empty, or redacted_thinking) still
 * happened: it is kept as a redacted reasoning event. */
static void claude_block_thinking(struct parse_ctx *ctx, const cJSON *b)
{
	const char *text = jx_str(b, "thinking");
	struct event *e = parser_text(ctx, EV_REASONING, text ? text : "");
	if (!text || !*text)
		e->redacted = 1;
}

static void claude_block_tool_use(struct parse_ctx *ctx, struct claude_state *st,
                                  struct claude_line *lc, const cJSON *b)
{
	const char *id = jx_str(b, "id"), *name = jx_str(b, "name");
	const cJSON *input = jx_get(b, "input");

	if ((!id || !name) && !lc->err)
		lc->err = "tool_use block without \"id\" or \"name\"";
	parser_tool_call_obj(ctx, name, id, input, 1);
	claude_pending_add(&st->pending[lc->sidechain], id);
}

static void claude_block_tool_result(struct parse_ctx *ctx, struct claude_state *st,
                                     struct claude_line *lc, const cJSON *b)
{
	const char *id = jx_str(b, "tool_use_id");
	char *text = claude_result_text(jx_get(b, "content"));

	if (!id && !lc->err)
		lc->err = "tool_result block without \"tool_use_id\"";
	parser_tool_result(ctx, id, text, jx_bool(b, "is_error", 0));
	for (int i = 0; i < 2; i++)
		claude_pending_answer(&st->pending[i], id);
	free(text);
}

/* Images and other blocks a person pasted or a newer Claude Code writes:
 * kept visible as a placeholder rather than dropped. */
static void claude_block_other(struct parse_ctx *ctx, const char *type, int user)
{
	if (!strcmp(type, "image") || !strcmp(type, "document")) {
		char *s = xasprintf("[%s]", type);
		parser_text(ctx, user ? EV_USER : EV_TEXT, s);
		free(s);
		return;
	}
	char *s = xasprintf("[%s block]", type);
	parser_text(ctx, EV_SYSTEM, s)->name = xstrdup(type);
	free(s);
}

static void claude_block(struct parse_ctx *ctx, struct claude_state *st,
                         struct claude_line *lc, const cJSON *b, int user)
{
	const char *t = jx_str(b, "type");

	if (!t) {
		if (!lc->err)
			lc->err = "content block without \"type\"";
	} else if (!strcmp(t, "text")) {
		claude_text(ctx, st, lc, jx_str(b, "text"), user);
	} else if (!strcmp(t, "thinking") || !strcmp(t, "redacted_thinking")) {
		claude_block_thinking(ctx, b);
	} else if (util_ends_with(t, "tool_use")) { /* tool_use, server_tool_use, mcp_tool_use */
		claude_block_tool_use(ctx, st, lc, b);
	} else if (util_ends_with(t, "tool_result")) { /* also web_search_tool_result, ... */
		claude_block_tool_result(ctx, st, lc, b);
	} else {
		claude_block_other(ctx, t, user);
	}
}

/* A message's content: a plain string or an array of blocks. */
static void claude_content(struct parse_ctx *ctx, struct claude_state *st,
                           struct claude_line *lc, const cJSON *content, int user)
{
	const cJSON *b;
	if (cJSON_IsString(content)) {
		claude_text(ctx, st, lc, content->valuestring, user);
		return;
	}
	if (!cJSON_IsArray(content)) {
		lc->err = user ? "user message without string or array \"content\""
		               : "assistant message without array \"content\"";
		return;
	}
	cJSON_ArrayForEach(b, content) {
		if (cJSON_IsString(b)) /* tolerated: a bare string as a text block */
			claude_text(ctx, st, lc, b->valuestring, user);
		else
			claude_block(ctx, st, lc, b, user);
	}
}

/* ---- messages ---------------------------------------------------------- */

/* A token count from untrusted JSON: negative, fractional or absurd
 * values must not overflow the conversion. */
static long long claude_tokens(const cJSON *u, const char *key)
{
	double v = jx_num(u, key, 0);
	if (!(v > 0))
		return 0;
	return v < 1e15 ? (long long)v : (long long)1e15;
}

static int claude_usage_zero(const cJSON *u)
{
	return !claude_tokens(u, "input_tokens") && !claude_tokens(u, "output_tokens") &&
	       !claude_tokens(u, "cache_read_input_tokens") &&
	       !claude_tokens(u, "cache_creation_input_tokens");
}

static long long claude_max(long long a, long long b)
{
	return a > b ? a : b;
}

/* One usage event per API message. Later lines of a message normally
 * repeat the same numbers; where one grows, the event takes the larger. */
static void claude_usage(struct parse_ctx *ctx, struct claude_state *st, const cJSON *msg)
{
	const cJSON *u = jx_get(msg, "usage");
	const char *id = jx_str(msg, "id");
	int *slot = NULL;
	struct event *e;

	if (!cJSON_IsObject(u))
		return;
	if (id)
		slot = claude_ids_slot(&st->ids, id);
	if (claude_usage_zero(u))
		return;
	if (slot && *slot >= 0) {
		e = &ctx->run->ev[*slot];
	} else {
		e = run_add(ctx->run, EV_USAGE, ctx->lineno);
		if (slot)
			*slot = (int)(ctx->run->nev - 1);
	}
	e->tok_in = claude_max(e->tok_in, claude_tokens(u, "input_tokens"));
	e->tok_out = claude_max(e->tok_out, claude_tokens(u, "output_tokens"));
	e->tok_cache_read = claude_max(e->tok_cache_read, claude_tokens(u, "cache_read_input_tokens"));
	e->tok_cache_write = claude_max(e->tok_cache_write, claude_tokens(u, "cache_creation_input_tokens"));
	e->tok_reasoning = claude_max(e->tok_reasoning,
	                              claude_tokens(jx_get(u, "output_tokens_details"), "thinking_tokens"));
}

/* An API failure Claude Code reports as an assistant message: model
 * "<synthetic>", or a lone text that starts "API Error". */
static int claude_api_error(const cJSON *obj, const cJSON *msg)
{
	const char *model = jx_str(msg, "model");
	const cJSON *content = jx_get(msg, "content"), *b;
	const cJSON *arr = cJSON_IsArray(content) ? content : NULL;
	const char *first = NULL;
	int ntext = 0, nother = 0;

	if ((model && !strcmp(model, "<synthetic>")) || jx_bool(obj, "isApiErrorMessage", 0))
		return 1;
	cJSON_ArrayForEach(b, arr) {
		const char *t = jx_str(b, "type");
		if (t && !strcmp(t, "text")) {
			if (!ntext++)
				first = jx_str(b, "text");
		} else if (t && strcmp(t, "thinking") && strcmp(t, "redacted_thinking")) {
			nother++;
		}
	}
	if (cJSON_IsString(content)) {
		first = content->valuestring;
		ntext = 1;
	}
	return ntext == 1 && !nother && util_starts_with(first, "API Error");
}

static void claude_assistant(struct parse_ctx *ctx, struct claude_state *st,
                             struct claude_line *lc, const cJSON *obj)
{
	const cJSON *msg = jx_get(obj, "message");
	const char *model = jx_str(msg, "model");

	if (!cJSON_IsObject(msg)) {
		lc->err = "assistant line without \"message\" object";
		return;
	}
	if (model && strcmp(model, "<synthetic>") && !ctx->run->meta.model)
		ctx->run->meta.model = xstrdup(model);
	lc->api_error = claude_api_error(obj, msg);
	claude_pending_message(&st->pending[lc->sidechain], jx_str(msg, "id"));
	st->compaction = 0;
	claude_content(ctx, st, lc, jx_get(msg, "content"), 0);
	claude_usage(ctx, st, msg);
}

static void claude_user(struct parse_ctx *ctx, struct claude_state *st,
                        struct claude_line *lc, const cJSON *obj)
{
	const cJSON *msg = jx_get(obj, "message");
	if (!cJSON_IsObject(msg)) {
		lc->err = "user line without \"message\" object";
		return;
	}
	lc->compact_summary = jx_bool(obj, "isCompactSummary", 0);
	lc->meta = jx_bool(obj, "isMeta", 0);
	claude_content(ctx, st, lc, jx_get(msg, "content"), 1);
}

/* ---- system, result, summary ------------------------------------------ */

static void claude_init(struct parse_ctx *ctx, const cJSON *obj)
{
	struct run_meta *m = &ctx->run->meta;
	const char *model = jx_str(obj, "model"), *cwd = jx_str(obj, "cwd");
	const char *perm = jx_str(obj, "permissionMode");
	const cJSON *tools = jx_get(obj, "tools"), *mcp = jx_get(obj, "mcp_servers");
	struct sbuf b;

	if (model && !m->model)
		m->model = xstrdup(model);
	if (cwd && !m->cwd)
		m->cwd = xstrdup(cwd);
	sbuf_init(&b);
	sbuf_addf(&b, "model %s", model ? model : "?");
	if (cwd)
		sbuf_addf(&b, ", cwd %s", cwd);
	if (cJSON_IsArray(tools))
		sbuf_addf(&b, ", %d tools", cJSON_GetArraySize(tools));
	if (cJSON_IsArray(mcp) && cJSON_GetArraySize(mcp))
		sbuf_addf(&b, ", %d MCP servers", cJSON_GetArraySize(mcp));
	if (perm)
		sbuf_addf(&b, ", permissions %s", perm);
	parser_text(ctx, EV_SYSTEM, b.s ? b.s : "")->name = xstrdup("init");
	sbuf_free(&b);
}

/* Background tasks and subagents: the text says what ran; call_id names
 * the tool call that started it. */
static void claude_task(struct parse_ctx *ctx, const cJSON *obj, const char *sub)
{
	const char *text = jx_str(obj, "description"), *id = jx_str(obj, "task_id"), *status = jx_str(obj, "status");
	struct event *e;

	if (!text)
		text = jx_str(obj, "summary");
	/* a bare task id says nothing in a list of events: say what happened */
	char *said = text ? NULL : xasprintf("task %s %s", id ? id : "?", status ? status :
	                                     !strcmp(sub, "task_started") ? "started" : "ended");
	e = parser_text(ctx, EV_SYSTEM, text ? text : said);
	free(said);
	e->name = xstrdup(sub);
	e->call_id = xstrdup(jx_str(obj, "tool_use_id"));
}

static void claude_boundary(struct parse_ctx *ctx, struct claude_state *st, const cJSON *obj)
{
	const cJSON *md = jx_get(obj, "compact_metadata");
	const char *content = jx_str(obj, "content");
	long long pre;
	struct event *e;

	if (!md)
		md = jx_get(obj, "compactMetadata");
	if (!md)
		md = jx_get(obj, "microcompactMetadata");
	pre = claude_tokens(md, jx_get(md, "pre_tokens") ? "pre_tokens" : "preTokens");
	long long saved = claude_tokens(md, "tokensSaved");
	if (content && saved > 0) { /* a microcompaction says what it saved */
		char *s = xasprintf("%s, %lld tokens saved", content, saved);
		e = parser_text(ctx, EV_COMPACTION, s);
		free(s);
	} else if (content) {
		e = parser_text(ctx, EV_COMPACTION, content);
	} else {
		char *s = pre > 0 ? xasprintf("compacted at %lld tokens", pre) : xstrdup("compacted");
		e = parser_text(ctx, EV_COMPACTION, s);
		free(s);
	}
	e->name = xstrdup(jx_str(md, "trigger"));
	st->compaction = ctx->run->nev;
}

/* What an HTTP status means, for an error whose type says no more
 * ("api_error", "server_error": a proxy's 429 is a rate limit). */
static const char *claude_http_word(long long status)
{
	static const struct { int status; const char *word; } words[] = {
		{400, "bad request"}, {401, "unauthorized"}, {403, "forbidden"}, {404, "not found"},
		{413, "request too large"}, {429, "rate limited"}, {500, "server error"},
		{502, "bad gateway"}, {503, "unavailable"}, {504, "gateway timeout"}, {529, "overloaded"},
	};
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (words[i].status == status)
			return words[i].word;
	return NULL;
}

/* "529 overloaded, retry 3/10" from an api_error record, rather than its
 * raw JSON with HTTP headers. Owned. */
static char *claude_api_error_text(const cJSON *obj)
{
	const cJSON *err = jx_get(obj, "error");
	const char *type = jx_pstr(err, "error.error.type");
	const char *msg = jx_pstr(err, "error.error.message");
	long long status = jx_ll(err, "status", 0);
	long long attempt = jx_ll(obj, "retryAttempt", 0), max = jx_ll(obj, "maxRetries", 0);
	struct sbuf b;
	char *word = NULL;

	if (!type)
		type = jx_pstr(err, "error.type");
	if (!msg)
		msg = jx_str(err, "message");
	if (!msg)
		msg = jx_str(obj, "content");
	if (!msg)
		msg = jx_pstr(obj, "cause.message");
	if (type && util_ends_with(type, "_error")) /* overloaded_error -> overloaded */
		word = xstrndup(type, strlen(type) - 6);
	sbuf_init(&b);
	if (status > 0)
		sbuf_addf(&b, "%lld ", status);
	if (word && strcmp(word, "api") && strcmp(word, "server"))
		sbuf_adds(&b, word);
	else if (claude_http_word(status))
		sbuf_adds(&b, claude_http_word(status));
	else if (msg)
		sbuf_add(&b, msg, strcspn(msg, "\n") < 160 ? strcspn(msg, "\n") : 160);
	else
		sbuf_adds(&b, "API error");
	if (max > 0)
		sbuf_addf(&b, ", retry %lld/%lld", attempt, max);
	free(word);
	return sbuf_detach(&b);
}

/* turn_duration: how long the turn took, as a compact row. */
static void claude_turn_duration(struct parse_ctx *ctx, const cJSON *obj)
{
	double ms = jx_num(obj, "durationMs", 0);
	long long nmsg = jx_ll(obj, "messageCount", 0);
	char *s = nmsg > 0 ? xasprintf("turn took %.1f s (%lld messages)", ms / 1000.0, nmsg)
	                   : xasprintf("turn took %.1f s", ms / 1000.0);
	struct event *e = parser_text(ctx, EV_SYSTEM, s);
	e->name = xstrdup("turn_duration");
	/* the number, for the time split (runstats: a turn's active time) */
	if (ms > 0)
		e->args = xasprintf("%.0f", ms);
	free(s);
}

/* stop_hook_summary: a row only when a hook failed or stopped the turn. */
static void claude_stop_hooks(struct parse_ctx *ctx, const cJSON *obj)
{
	const cJSON *errs = jx_get(obj, "hookErrors");
	int nerr = cJSON_IsArray(errs) ? cJSON_GetArraySize(errs) : 0;
	int stopped = jx_bool(obj, "preventedContinuation", 0);
	char *s;

	if (!nerr && !stopped) {
		ctx->folded = 1; /* looked at, and nothing to say: see claude_session_ignored */
		return;
	}
	const cJSON *first = cJSON_GetArrayItem(errs, 0);
	const char *why = cJSON_IsString(first) ? first->valuestring : jx_str(obj, "stopReason");
	s = xasprintf("stop hook %s%s%s", stopped ? "stopped the turn" : "failed", why && *why ? ": " : "",
	              why ? why : "");
	struct event *e = parser_text(ctx, EV_ERROR, s);
	e->is_error = 1;
	e->name = xstrdup("stop_hook_summary");
	free(s);
}

/* System records that are bookkeeping: no row (claude_session_ignored). */
static int claude_system_quiet(const char *sub)
{
	static const char *const quiet[] = {"session_start", "status", "hook_response", "hook_started",
	                                    "thinking_tokens", NULL};
	for (size_t i = 0; quiet[i]; i++)
		if (!strcmp(sub, quiet[i]))
			return 1;
	return 0;
}

static void claude_system(struct parse_ctx *ctx, struct claude_state *st, const cJSON *obj)
{
	const char *sub = jx_str(obj, "subtype");
	const char *level = jx_str(obj, "level");
	const char *text = jx_str(obj, "content");
	struct event *e;

	if (!sub)
		sub = "system";
	if (!strcmp(sub, "init")) {
		claude_init(ctx, obj);
	} else if (!strcmp(sub, "compact_boundary") || !strcmp(sub, "microcompact_boundary")) {
		claude_boundary(ctx, st, obj);
	} else if (util_starts_with(sub, "task_")) {
		claude_task(ctx, obj, sub);
	} else if (!strcmp(sub, "turn_duration")) {
		claude_turn_duration(ctx, obj);
	} else if (!strcmp(sub, "stop_hook_summary")) {
		claude_stop_hooks(ctx, obj);
	} else if (claude_system_quiet(sub)) {
		return;
	} else if (!strcmp(sub, "api_error") || !strcmp(sub, "error") || (level && !strcmp(level, "error"))) {
		int api = !strcmp(sub, "api_error") || cJSON_IsObject(jx_get(obj, "error"));
		char *s = api || !text ? claude_api_error_text(obj) : xstrdup(text);
		e = parser_text(ctx, EV_ERROR, s);
		e->is_error = 1;
		e->name = xstrdup(sub);
		free(s);
	} else {
		if (!text)
			text = jx_str(obj, "message");
		/* a subtype this parser does not model: its name says what it was */
		e = parser_text(ctx, EV_SYSTEM, text && *text ? text : sub);
		e->name = xstrdup(sub);
	}
}

/* stream-json gives each message's usage as the message started, so its
 * output count is a small part of the real one (110k output tokens over a
 * run show as 2.5k); the result's usage has the session's. What its
 * output has beyond the messages' sum becomes one usage event, before the
 * result, so that the run's output total is the result's. Input and cache
 * counts per message are whole and stay as they are. */
static void claude_result_usage(struct parse_ctx *ctx, struct claude_state *st, const cJSON *obj)
{
	const cJSON *u = jx_get(obj, "usage");
	long long out, total, think, thought;
	if (!cJSON_IsObject(u))
		return;
	/* a stream of several turns has one result per turn, each with that
	 * turn's usage (not a running total): compare with the turn's messages */
	run_tokens(ctx->run, NULL, &total, NULL, NULL, &thought);
	out = claude_tokens(u, "output_tokens") - (total - st->out_at_result);
	/* the messages' lines carry no output_tokens_details: the turn's
	 * thinking tokens are only here */
	think = claude_tokens(jx_get(u, "output_tokens_details"), "thinking_tokens") -
	        (thought - st->reasoning_at_result);
	if (out > 16 || think > 0) { /* a message or two cut before their last line: not worth an event */
		struct event *e = run_add(ctx->run, EV_USAGE, ctx->lineno);
		e->tok_out = out > 16 ? out : 0;
		e->tok_reasoning = think > 0 ? think : 0;
		total += e->tok_out;
		thought += e->tok_reasoning;
	}
	st->out_at_result = total;
	st->reasoning_at_result = thought;
}

/* The completion marker; its usage completes the messages' (above). */
static void claude_result(struct parse_ctx *ctx, struct claude_state *st, const cJSON *obj)
{
	const char *sub = jx_str(obj, "subtype");
	const char *text = jx_str(obj, "result");
	int failed = jx_bool(obj, "is_error", 0) || util_starts_with(sub, "error");
	char *owned = NULL;
	struct event *e;

	if (!text && cJSON_IsArray(jx_get(obj, "errors")))
		text = owned = claude_result_text(jx_get(obj, "errors"));
	if (!text)
		text = sub ? sub : "";
	claude_result_usage(ctx, st, obj);
	e = parser_text(ctx, failed ? EV_ERROR : EV_SYSTEM, text);
	e->is_error = failed ? 1 : 0;
	/* an error subtype (error_max_turns, ...) names the failure */
	e->name = xstrdup(failed && sub && strcmp(sub, "success") ? sub : "result");
	ctx->run->complete_seen = 1;
	free(owned);
}

/* ---- lines ------------------------------------------------------------- */

/* A subagent's message inside a session file: a progress record with
 * data.type "agent_progress" carries it in data.message, under the Task
 * call parentToolUseID names; its events nest under that call as
 * stream-json's parent_tool_use_id events do. Other progress (hooks,
 * running commands) is bookkeeping: claude_session_ignored. */
static void claude_progress(struct parse_ctx *ctx, struct claude_state *st,
                            struct claude_line *lc, const cJSON *obj)
{
	const cJSON *data = jx_get(obj, "data");
	const cJSON *inner = jx_get(data, "message");
	const char *dt = jx_str(data, "type"), *it = jx_str(inner, "type");
	double ts;

	if (!dt || strcmp(dt, "agent_progress") || !it || !cJSON_IsObject(jx_get(inner, "message")))
		return;
	/* a message repeated by a later progress record is not a second one */
	const char *uuid = jx_str(inner, "uuid");
	if (uuid) {
		int *slot = claude_ids_slot(&st->seen, uuid);
		if (*slot >= 0) {
			ctx->folded = 1;
			return;
		}
		*slot = 1;
	}
	lc->sidechain = 1;
	lc->parent = jx_str(obj, "parentToolUseID");
	ts = jx_time(jx_get(inner, "timestamp"));
	if (ts)
		lc->ts = ts;
	if (!strcmp(it, "assistant"))
		claude_assistant(ctx, st, lc, inner);
	else if (!strcmp(it, "user"))
		claude_user(ctx, st, lc, inner);
}

/* stream-json rate_limit_event: a row only when the request was refused. */
static void claude_rate_limit(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *status = jx_pstr(obj, "rate_limit_info.status");
	if (!status || !strcmp(status, "allowed") || !strcmp(status, "allowed_warning")) {
		ctx->folded = 1;
		return;
	}
	char *s = xasprintf("rate limit: %s", status);
	struct event *e = parser_text(ctx, EV_ERROR, s);
	e->is_error = 1;
	e->name = xstrdup("rate_limit_event");
	free(s);
}

/* Whether Claude Code version v ("2.1.3") wrote session files whose
 * usage is the stream's start: about 2.0.76 to 2.1.37 record 1 to 9
 * output tokens per message whatever the message's length. */
static int claude_version_undercounts(const char *v)
{
	int a = 0, b = 0, c = 0;
	if (!v || sscanf(v, "%d.%d.%d", &a, &b, &c) != 3)
		return 0;
	long key = a * 1000000L + b * 1000L + c;
	return key >= 2000076L && key <= 2001037L;
}

static void claude_meta(struct parse_ctx *ctx, const cJSON *obj, int session)
{
	struct run_meta *m = &ctx->run->meta;
	if (session && jx_str(obj, "type") && !strcmp(jx_str(obj, "type"), "assistant") &&
	    claude_version_undercounts(jx_str(obj, "version")))
		ctx->run->tokens_approx = 1;
	const char *sid = jx_str(obj, session ? "sessionId" : "session_id");
	const char *cwd = session ? jx_str(obj, "cwd") : NULL;
	if (sid && !m->session_id)
		m->session_id = xstrdup(sid);
	if (cwd && !m->cwd)
		m->cwd = xstrdup(cwd);
}

/* Gives the events one line produced its thread and time. */
static void claude_stamp(struct parse_ctx *ctx, size_t first, const struct claude_line *lc)
{
	for (size_t i = first; i < ctx->run->nev; i++) {
		struct event *e = &ctx->run->ev[i];
		e->sidechain = lc->sidechain ? 1 : 0;
		if (lc->parent && !e->parent)
			e->parent = xstrdup(lc->parent);
		if (!e->ts)
			e->ts = lc->ts;
	}
}

static int claude_dispatch(struct parse_ctx *ctx, const cJSON *obj, int session)
{
	struct claude_state *st = ctx->state;
	struct claude_line lc = {0};
	const char *t = jx_str(obj, "type");
	size_t first = ctx->run->nev;

	if (!t) {
		run_error(ctx->run, ctx->lineno, "claude line without \"type\"");
		return -1;
	}
	claude_meta(ctx, obj, session);
	lc.ts = jx_time(jx_get(obj, "timestamp"));
	if (session) {
		lc.sidechain = jx_bool(obj, "isSidechain", 0);
	} else {
		lc.parent = jx_str(obj, "parent_tool_use_id");
		lc.sidechain = lc.parent != NULL;
	}

	if (!strcmp(t, "assistant")) {
		ctx->run->complete_seen = 0;
		claude_assistant(ctx, st, &lc, obj);
	} else if (!strcmp(t, "user")) {
		ctx->run->complete_seen = 0;
		claude_user(ctx, st, &lc, obj);
	} else if (!strcmp(t, "system")) {
		claude_system(ctx, st, obj);
	} else if (!strcmp(t, "result") && !session) {
		claude_result(ctx, st, obj);
	} else if (!strcmp(t, "progress") && session) {
		claude_progress(ctx, st, &lc, obj);
	} else if (!strcmp(t, "rate_limit_event") && !session) {
		claude_rate_limit(ctx, obj);
	} else if (!strcmp(t, "summary") && session) {
		struct event *e = parser_text(ctx, EV_COMPACTION, jx_str(obj, "summary") ?
		                              jx_str(obj, "summary") : "");
		e->name = xstrdup("summary");
	} else if (!session && strcmp(t, "stream_event") && strcmp(t, "keep_alive")) {
		/* a record type this parser does not model stays visible */
		parser_text(ctx, EV_SYSTEM, t)->name = xstrdup(t);
	}
	/* session files hold bookkeeping records (file-history-snapshot,
	 * queue-operation, ...) that are not part of the conversation */
	claude_stamp(ctx, first, &lc);
	if (lc.err) {
		run_error(ctx->run, ctx->lineno, "%s", lc.err);
		return -1;
	}
	return 0;
}

static int claude_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	(void)line;
	(void)len;
	return claude_dispatch(ctx, obj, 0);
}

static int claude_session_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	(void)line;
	(void)len;
	return claude_dispatch(ctx, obj, 1);
}

static void claude_finish(struct parse_ctx *ctx)
{
	ctx->run->incomplete = !ctx->run->complete_seen;
}

/* A compaction boundary waits for the summary that may follow it
 * (claude_compact_summary replaces its text) until the next assistant
 * line; nothing else of an earlier line is read again but usage tokens. */
static size_t claude_open_from(const struct parse_ctx *ctx)
{
	const struct claude_state *st = ctx->state;
	return st->compaction ? st->compaction - 1 : ctx->run->nev;
}

/* Session files have no completion marker: a session whose latest
 * assistant message still waits for a tool result was cut short. */
static void claude_session_finish(struct parse_ctx *ctx)
{
	struct claude_state *st = ctx->state;
	ctx->run->incomplete = st->pending[0].n + st->pending[1].n > 0;
}

/* "progress/agent_progress": a session record's type, its subtype, and
 * for progress records the kind of progress. */
static const char *claude_record_key(const cJSON *obj, char *buf, size_t n)
{
	const char *t = jx_str(obj, "type"), *sub = jx_str(obj, "subtype");
	const char *dt = jx_pstr(obj, "data.type");
	if (!t)
		return NULL;
	if (!sub && !strcmp(t, "progress"))
		sub = dt;
	snprintf(buf, n, "%s%s%s", t, sub ? "/" : "", sub ? sub : "");
	return buf;
}

static const struct parser_ignored claude_ignored[] = {
	{"stream_event", "partial-message deltas (--include-partial-messages); the whole messages that follow are the events"},
	{"keep_alive", "a heartbeat of the stream"},
	{"rate_limit_event", "rate-limit status while the request was allowed; a rejected one is an error row"},
	{"system/status", "\"compacting\" while a compaction runs; the compact_boundary that follows is the event"},
	{"system/hook_response", "a hook's output; hooks are not part of the conversation"},
	{"system/hook_started", "a hook starting; hooks are not part of the conversation"},
	{"system/thinking_tokens", "a running estimate of the thinking so far; the result line's thinking_tokens is the count"},
	{NULL, NULL},
};

static const struct parser_ignored claude_session_ignored[] = {
	{"file-history-snapshot", "Claude Code's undo checkpoints of edited files; the edits are the tool calls"},
	{"queue-operation", "a prompt queued while the agent worked; it appears as the user message when sent"},
	{"progress/hook_progress", "a hook running; hooks are not part of the conversation"},
	{"progress/bash_progress", "a running command's partial output; the tool result holds all of it"},
	{"progress/mcp_progress", "an MCP call's progress; the tool result is the event"},
	{"progress/query_update", "a web search's progress; the tool result is the event"},
	{"progress/search_results_received", "a web search's progress; the tool result is the event"},
	{"progress/waiting_for_task", "a background task being awaited; its result is the event"},
	{"system/stop_hook_summary", "the stop hooks that ran; a row only when one failed or stopped the turn"},
	{"system/session_start", "the session (re)started; the messages that follow are the events"},
	{"attachment", "context Claude Code attached (hook output, file mentions, todo state) outside the messages"},
	{"permission-mode", "the permission mode chosen in the UI"},
	{"mode", "the input mode chosen in the UI"},
	{"worktree-state", "git worktree bookkeeping"},
	{"custom-title", "a title the user gave the session"},
	{"ai-title", "a title Claude Code generated for the session"},
	{"agent-name", "the name of the agent the session runs as"},
	{"last-prompt", "the last prompt, kept for the prompt history"},
	{"pr-link", "a pull request linked to the session"},
	{"frame-link", "a UI frame linked to the session"},
	{"bridge-session", "remote-control bookkeeping"},
	{"relocated", "the session file was moved"},
	{"atis-latch", "UI bookkeeping"},
	{"started", "UI bookkeeping"},
	{"progress/*", "other progress (hooks, running commands, searches); only agent_progress, a "
	               "subagent's messages, becomes events"},
	{"result", "a print-mode result record copied into a session file; the messages are the events"},
	{"tool_use", "a top-level tool_use record no Claude Code version writes (seen in an edited "
	             "fixture); calls are the assistant messages' tool_use blocks"},
	{"tool_result", "a top-level tool_result record no Claude Code version writes (seen in an edited "
	                "fixture); results are the user messages' tool_result blocks"},
	{"system/status", "\"compacting\" while a compaction runs; the compact_boundary that follows is the event"},
	{"system/hook_response", "a hook's output; hooks are not part of the conversation"},
	{"system/hook_started", "a hook starting; hooks are not part of the conversation"},
	{NULL, NULL},
};

static const char *const claude_types[] = {"system", "assistant", "user", "result", "stream_event",
                                           "keep_alive", "rate_limit_event", NULL};
static const char *const claude_session_types[] = {"user", "assistant", "system", "summary", "progress",
                                                   "file-history-snapshot", "queue-operation",
                                                   "attachment", NULL};

const struct parser_ops parse_claude_ops = {
	.name = "claude",
	.description = "Claude Code --print --verbose --output-format stream-json",
	.sniff = claude_sniff,
	.state_new = claude_state_new,
	.state_free = claude_state_free,
	.line = claude_line,
	.finish = claude_finish,
	.open_from = claude_open_from,
	.ignored = claude_ignored,
	.types = claude_types,
	.thinking = 1,
	.tokens = "per API message, counted once per message id; stream-json gives a message's output "
	          "as it began, so each result line's usage (one per turn, not a running total) stands "
	          "for its turn's output where it says more; modelUsage, which also counts Claude Code's "
	          "side calls on other models, is not added; output_tokens_details.thinking_tokens "
	          "count as reasoning",
	.harness = "claude",
};

const struct parser_ops parse_claude_session_ops = {
	.name = "claude-session",
	.description = "Claude Code session file (~/.claude/projects/<project>/<session>.jsonl)",
	.sniff = claude_session_sniff,
	.state_new = claude_session_state_new,
	.state_free = claude_state_free,
	.line = claude_session_line,
	.finish = claude_session_finish,
	.open_from = claude_open_from,
	.record_key = claude_record_key,
	.ignored = claude_session_ignored,
	.types = claude_session_types,
	.thinking = 1,
	.tokens = "per API message, the largest figure any of its lines gives (counted once per "
	          "message id); files from about 2.0.76 to 2.1.37 record output_tokens at stream start, "
	          "so their output totals are marked approximate (tokens_approximate in runs --json); "
	          "a subagent's messages (agent_progress) count once each",
	.harness = "claude",
};
