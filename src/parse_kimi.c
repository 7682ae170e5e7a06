/* parse_kimi.c: Kimi CLI (MoonshotAI/kimi-cli) `--print --output-format
 * stream-json`: one chat message per line, OpenAI style, no "type" key:
 *
 *   {role: assistant, content: string | [{type: think, think, encrypted?} |
 *                                          {type: text, text} | ...],
 *    tool_calls: [{type: function, id, function: {name, arguments}}]}
 *   {role: tool, content: string | [text parts], tool_call_id}
 *   {role: user | system, content}
 *
 * Newer versions also print a few role-less records between messages
 * (notifications, plans, /btw side questions); they become system events.
 *
 * The stream has no completion record. Print mode writes the final answer
 * as an assistant message without tool calls and exits, while a run cut
 * short (timeout, kill, step interrupted) ends on a tool result or on an
 * assistant message that still asks for tools. So a run is complete when
 * its last message is an assistant message without tool calls. */
#include "parser.h"
#include "jsonx.h"

#include <stdlib.h>
#include <string.h>

struct kimi_state {
	long long context;        /* the last _usage token_count */
};

static void *kimi_state_new(void)
{
	return xcalloc(1, sizeof(struct kimi_state));
}

static int kimi_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *role = jx_str(obj, "role");
	const cJSON *content = jx_get(obj, "content");
	(void)line;
	(void)len;

	if (!role || jx_get(obj, "type") || jx_get(obj, "message"))
		return 0;
	/* session files' bookkeeping records */
	if (!strcmp(role, "_usage"))
		return cJSON_IsNumber(jx_get(obj, "token_count")) ? 50 : 0;
	if (!strcmp(role, "_checkpoint"))
		return jx_get(obj, "id") ? 50 : 0;
	if (!strcmp(role, "assistant")) {
		if (cJSON_IsArray(jx_get(obj, "tool_calls")))
			return 70;
		return cJSON_IsArray(content) || cJSON_IsString(content) ? 60 : 0;
	}
	if (!strcmp(role, "tool"))
		return jx_str(obj, "tool_call_id") ? 70 : 0;
	if (!strcmp(role, "user") || !strcmp(role, "system"))
		return cJSON_IsArray(content) || cJSON_IsString(content) ? 30 : 0;
	return 0;
}

/* Text of a content value: a string, or its parts joined by newlines
 * (text parts as they are, other media as a bracketed placeholder). NULL
 * when there is no part at all. */
static char *kimi_parts_text(const cJSON *content)
{
	struct sbuf b;
	const cJSON *p;
	int any = 0;

	if (cJSON_IsString(content))
		return xstrdup(content->valuestring);
	if (!cJSON_IsArray(content))
		return NULL;
	sbuf_init(&b);
	cJSON_ArrayForEach(p, content) {
		const char *t = jx_str(p, "type");
		const char *s = jx_str(p, "text");
		if (cJSON_IsString(p))
			s = p->valuestring;
		if (any)
			sbuf_addc(&b, '\n');
		if (s)
			sbuf_adds(&b, s);
		else
			sbuf_addf(&b, "[%s]", t ? t : "part");
		any = 1;
	}
	if (!any) {
		sbuf_free(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

/* Appends a reasoning or text fragment, joining it to the event before when
 * that came from the same line and is of the same kind. */
static struct event *kimi_append(struct parse_ctx *ctx, size_t first, enum ev_kind k, const char *s)
{
	struct run *r = ctx->run;
	if (r->nev > first && r->ev[r->nev - 1].kind == k) {
		struct event *e = &r->ev[r->nev - 1];
		char *j = xasprintf("%s\n%s", e->text, s);
		free(e->text);
		e->text = j;
		return e;
	}
	return parser_text(ctx, k, s);
}

/* Reasoning and text of an assistant message, in the order of its parts. */
static void kimi_assistant_content(struct parse_ctx *ctx, const cJSON *content)
{
	size_t first = ctx->run->nev;
	const cJSON *p;

	if (cJSON_IsString(content)) {
		if (*content->valuestring)
			parser_text(ctx, EV_TEXT, content->valuestring);
		return;
	}
	cJSON_ArrayForEach(p, content) {
		const char *t = jx_str(p, "type");
		if (t && !strcmp(t, "think")) {
			const char *s = jx_str(p, "think");
			struct event *e = kimi_append(ctx, first, EV_REASONING, s ? s : "");
			/* an empty think that carries only its encrypted form */
			if ((!s || !*s) && jx_str(p, "encrypted"))
				e->redacted = 1;
		} else if (t && !strcmp(t, "text")) {
			const char *s = jx_str(p, "text");
			if (s)
				kimi_append(ctx, first, EV_TEXT, s);
		} else {
			char *s = xasprintf("[%s]", t ? t : "part");
			kimi_append(ctx, first, EV_TEXT, s);
			free(s);
		}
	}
}

/* One tool call; 0, or -1 when the entry is not a function call. Cut-off
 * argument JSON is kept as it is (parser_tool_call stores it as a string). */
static int kimi_tool_call(struct parse_ctx *ctx, const cJSON *tc)
{
	const cJSON *fn = jx_get(tc, "function");
	const cJSON *args = jx_get(fn, "arguments");
	const char *name = jx_str(fn, "name");
	char *a = NULL;

	if (!name)
		return -1;
	if (args && !cJSON_IsString(args) && !cJSON_IsNull(args)) {
		parser_tool_call_obj(ctx, name, jx_str(tc, "id"), args, 1);
		return 0;
	}
	if (cJSON_IsString(args))
		a = xstrdup(args->valuestring);
	parser_tool_call(ctx, name, jx_str(tc, "id"), a);
	free(a);
	return 0;
}

static int kimi_assistant(struct parse_ctx *ctx, const cJSON *obj)
{
	const cJSON *content = jx_get(obj, "content"), *calls = jx_get(obj, "tool_calls"), *tc;
	const cJSON *list = cJSON_IsArray(calls) ? calls : NULL;
	int bad = 0, ncalls = 0;

	if (content && !cJSON_IsNull(content) && !cJSON_IsString(content) && !cJSON_IsArray(content)) {
		run_error(ctx->run, ctx->lineno, "kimi assistant \"content\" is neither a string nor a list of parts");
		return -1;
	}
	if (calls && !cJSON_IsNull(calls) && !cJSON_IsArray(calls)) {
		run_error(ctx->run, ctx->lineno, "kimi assistant \"tool_calls\" is not a list");
		return -1;
	}
	kimi_assistant_content(ctx, content);
	cJSON_ArrayForEach(tc, list) {
		ncalls++;
		if (kimi_tool_call(ctx, tc) < 0)
			bad++;
	}
	/* the last assistant message without tool calls is the final answer */
	ctx->run->complete_seen = ncalls == 0;
	if (bad) {
		run_error(ctx->run, ctx->lineno, "kimi tool call without \"function.name\" (%d of %d)", bad, ncalls);
		return -1;
	}
	return 0;
}

/* Kimi marks a failed tool with a leading "<system>ERROR" part (older
 * versions "<system>ERROR</system>", newer "<system>ERROR: why</system>"). */
static int kimi_tool(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *id = jx_str(obj, "tool_call_id");
	char *text;

	ctx->run->complete_seen = 0;
	if (!id) {
		run_error(ctx->run, ctx->lineno, "kimi tool message without \"tool_call_id\"");
		return -1;
	}
	text = kimi_parts_text(jx_get(obj, "content"));
	parser_tool_result(ctx, id, text, util_starts_with(text, "<system>ERROR"));
	free(text);
	return 0;
}

static void kimi_other_role(struct parse_ctx *ctx, const char *role, const cJSON *obj)
{
	char *text = kimi_parts_text(jx_get(obj, "content"));
	struct event *e = parser_text(ctx, strcmp(role, "user") ? EV_SYSTEM : EV_USER, text ? text : "");

	if (e->kind == EV_SYSTEM)
		e->name = xstrdup(role);
	ctx->run->complete_seen = 0;
	free(text);
}

/* The role-less records of newer print modes; -1 when the line is none. */
static int kimi_record(struct parse_ctx *ctx, const cJSON *obj)
{
	const char *title = jx_str(obj, "title"), *body = jx_str(obj, "body");
	struct event *e;

	if (jx_str(obj, "category") && (title || body)) {
		char *s = xasprintf("%s%s%s", title ? title : "", title && body ? "\n" : "", body ? body : "");
		e = parser_text(ctx, EV_SYSTEM, s);
		e->name = xstrdup("notification");
		e->ts = jx_time(jx_get(obj, "created_at"));
		free(s);
	} else if (jx_str(obj, "file_path") && jx_str(obj, "content")) {
		e = parser_text(ctx, EV_SYSTEM, jx_str(obj, "content"));
		e->name = xstrdup("plan");
		e->path = xstrdup(jx_str(obj, "file_path"));
	} else if (jx_str(obj, "id") && jx_str(obj, "question")) {
		parser_text(ctx, EV_USER, jx_str(obj, "question"))->name = xstrdup("btw");
	} else if (jx_str(obj, "id") && (jx_get(obj, "response") || jx_get(obj, "error"))) {
		const char *resp = jx_str(obj, "response"), *err = jx_str(obj, "error");
		e = parser_text(ctx, resp ? EV_TEXT : EV_ERROR, resp ? resp : err ? err : "");
		e->name = xstrdup("btw");
		e->is_error = resp ? 0 : 1;
	} else {
		return -1;
	}
	return 0;
}

/* Kimi CLI session files (context.jsonl) interleave the messages with
 * _checkpoint records (undo points: no event) and _usage records, the
 * context's size in tokens after a step. The growth since the previous
 * _usage becomes a usage event's input, so the run's input total is the
 * last size; neither record says anything about completion. */
static int kimi_bookkeeping(struct parse_ctx *ctx, const char *role, const cJSON *obj)
{
	struct kimi_state *st = ctx->state;
	if (!strcmp(role, "_checkpoint"))
		return 1;
	if (strcmp(role, "_usage"))
		return 0;
	long long n = jx_ll(obj, "token_count", 0);
	if (n > st->context) {
		run_add(ctx->run, EV_USAGE, ctx->lineno)->tok_in = n - st->context;
		st->context = n;
	} else {
		ctx->folded = 1; /* the context shrank (compaction) or held: nothing to add */
		if (n > 0)
			st->context = n;
	}
	return 1;
}

static int kimi_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	const char *role = jx_str(obj, "role");
	(void)line;
	(void)len;

	if (!role) {
		if (cJSON_IsObject(obj) && kimi_record(ctx, obj) == 0)
			return 0;
		run_error(ctx->run, ctx->lineno, "kimi line without \"role\"");
		return -1;
	}
	if (kimi_bookkeeping(ctx, role, obj))
		return 0;
	if (!strcmp(role, "assistant"))
		return kimi_assistant(ctx, obj);
	if (!strcmp(role, "tool"))
		return kimi_tool(ctx, obj);
	kimi_other_role(ctx, role, obj);
	return 0;
}

static void kimi_finish(struct parse_ctx *ctx)
{
	ctx->run->incomplete = !ctx->run->complete_seen;
}

static const struct parser_ignored kimi_ignored[] = {
	{"_checkpoint", "an undo point of a Kimi CLI session file; no part of the conversation"},
	{NULL, NULL},
};

static const char *const kimi_types[] = {"assistant", "tool", "user", "system", NULL};

const struct parser_ops parse_kimi_ops = {
	.name = "kimi",
	.description = "Kimi CLI --print --output-format stream-json",
	.sniff = kimi_sniff,
	.line = kimi_line,
	.finish = kimi_finish,
	.thinking = 1,
	.state_new = kimi_state_new,
	.state_free = free,
	.ignored = kimi_ignored,
	.tokens = "Kimi records no per-call usage; in session files the _usage records give the "
	          "context's size, and the run's input total is the last of them",
	.types = kimi_types,
	.harness = "kimi",
};
