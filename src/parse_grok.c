/* parse_grok.c: Grok Build `--output-format streaming-json`: `thought` and
 * `text` deltas, an `error` record, and an `end` record (sessionId,
 * stopReason, requestId) that marks completion. Consecutive deltas of one
 * kind are merged into one event.
 *
 * The stream carries no tool calls, results or usage: Grok Build keeps
 * those in its session archive (~/.grok/sessions/.../chat_history.jsonl),
 * which KernelBench-Hard's own viewer prefers when it has it. Other
 * records stay visible as system events named by their type. */
#include "parser.h"
#include "jsonx.h"

#include <stdlib.h>
#include <string.h>

struct grok_state {
	int merging;  /* index+1 of the event deltas are being merged into */
	struct sbuf text; /* that event's text, grown in place (owned by the event) */
};

static int grok_sniff(const char *line, size_t len, const cJSON *obj)
{
	const char *t = jx_str(obj, "type");
	if (!t || jx_get(obj, "message") || jx_get(obj, "part"))
		return 0;
	if ((!strcmp(t, "thought") || !strcmp(t, "text")) && cJSON_IsString(jx_get(obj, "data")))
		return 60;
	if (!strcmp(t, "end") && (jx_get(obj, "stopReason") || jx_get(obj, "sessionId")))
		return 80;
	return 0;
}

static void *grok_state_new(void)
{
	return xcalloc(1, sizeof(struct grok_state));
}

static void grok_delta(struct parse_ctx *ctx, struct grok_state *st, enum ev_kind k, const char *data)
{
	struct run *r = ctx->run;
	if (st->merging && (size_t)st->merging == r->nev && r->ev[r->nev - 1].kind == k) {
		parser_append(&r->ev[r->nev - 1], &st->text, data);
		return;
	}
	parser_text(ctx, k, data);
	st->merging = (int)r->nev;
	st->text.s = NULL;
}

static int grok_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	struct grok_state *st = ctx->state;
	const char *t = jx_str(obj, "type");
	const char *data = jx_str(obj, "data");

	if (!t) {
		run_error(ctx->run, ctx->lineno, "grok record without \"type\"");
		return -1;
	}
	if ((!strcmp(t, "thought") || !strcmp(t, "text")) && !data) {
		run_error(ctx->run, ctx->lineno, "grok %s record without string \"data\"", t);
		return -1;
	} else if (!strcmp(t, "thought")) {
		grok_delta(ctx, st, EV_REASONING, data);
	} else if (!strcmp(t, "text")) {
		grok_delta(ctx, st, EV_TEXT, data);
	} else if (!strcmp(t, "end")) {
		const char *sid = jx_str(obj, "sessionId");
		if (sid && !ctx->run->meta.session_id)
			ctx->run->meta.session_id = xstrdup(sid);
		ctx->run->complete_seen = 1;
		st->merging = 0;
	} else if (!strcmp(t, "error")) {
		char *msg = data ? xstrdup(data) : jx_print(obj);
		struct event *e = parser_text(ctx, EV_ERROR, msg);
		e->is_error = 1;
		free(msg);
		st->merging = 0;
	} else {
		/* records we do not model yet stay visible as system events */
		struct event *e = parser_text(ctx, EV_SYSTEM, data ? data : "");
		e->name = xstrdup(t);
		st->merging = 0;
	}
	return 0;
}

static void grok_finish(struct parse_ctx *ctx)
{
	ctx->run->incomplete = !ctx->run->complete_seen;
}

static const struct parser_ignored grok_ignored[] = {
	{NULL, NULL},
};

static const char *const grok_types[] = {"thought", "text", "end", "error", NULL};

const struct parser_ops parse_grok_ops = {
	.name = "grok",
	.description = "Grok Build --output-format streaming-json (thought/text/end)",
	.sniff = grok_sniff,
	.state_new = grok_state_new,
	.state_free = free,
	.line = grok_line,
	.finish = grok_finish,
	.ignored = grok_ignored,
	.types = grok_types,
	.harness = "grok",
	.tokens = "none: the stream records no usage",
};
