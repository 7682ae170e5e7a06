/* llm.c: streamed chat turns over libcurl for the OpenAI Chat Completions
 * and Anthropic Messages wire formats (see llm.h). */
#include "llm.h"
#include "jsonx.h"
#include "sse.h"

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#define LLM_ERRBODY_MAX 8192

const char *llm_provider_name(enum llm_provider p)
{
	return p == LLM_ANTHROPIC ? "anthropic" : "openai";
}

int llm_provider_parse(const char *s, enum llm_provider *p)
{
	if (s && !strcmp(s, "openai"))
		*p = LLM_OPENAI;
	else if (s && !strcmp(s, "anthropic"))
		*p = LLM_ANTHROPIC;
	else
		return -1;
	return 0;
}

static const char *llm_env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

const char *llm_env_key(enum llm_provider p)
{
	return llm_env(p == LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
}

const char *llm_env_base_url(enum llm_provider p)
{
	return llm_env(p == LLM_ANTHROPIC ? "ANTHROPIC_BASE_URL" : "OPENAI_BASE_URL");
}

char *llm_scrub(char *s, const char *secret)
{
	struct sbuf b;
	size_t n;
	const char *p, *q;

	if (!s || !secret || strlen(secret) < LLM_KEY_MIN || !strstr(s, secret))
		return s;
	n = strlen(secret);
	sbuf_init(&b);
	for (p = s; (q = strstr(p, secret)) != NULL; p = q + n) {
		sbuf_add(&b, p, (size_t)(q - p));
		sbuf_adds(&b, "[redacted]");
	}
	sbuf_adds(&b, p);
	free(s);
	return sbuf_detach(&b);
}

/* ---- the neutral conversation ------------------------------------------ */

cJSON *llm_conv_new(void)
{
	return cJSON_CreateArray();
}

static cJSON *llm_conv_msg(cJSON *conv, const char *role)
{
	cJSON *m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddItemToArray(conv, m);
	return m;
}

void llm_conv_user(cJSON *conv, const char *text)
{
	cJSON_AddStringToObject(llm_conv_msg(conv, "user"), "text", text ? text : "");
}

void llm_conv_assistant(cJSON *conv, const struct llm_reply *r)
{
	cJSON *m = llm_conv_msg(conv, "assistant"), *calls = cJSON_AddArrayToObject(m, "calls");
	cJSON_AddStringToObject(m, "text", r->text.s ? r->text.s : "");
	cJSON_AddStringToObject(m, "reasoning", r->reasoning.s ? r->reasoning.s : "");
	cJSON_AddStringToObject(m, "signature", r->signature.s ? r->signature.s : "");
	for (int i = 0; i < r->ncalls; i++) {
		cJSON *c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "id", r->calls[i].id ? r->calls[i].id : "");
		cJSON_AddStringToObject(c, "name", r->calls[i].name ? r->calls[i].name : "");
		cJSON_AddStringToObject(c, "arguments", r->calls[i].args.s ? r->calls[i].args.s : "");
		cJSON_AddItemToArray(calls, c);
	}
}

void llm_conv_tool(cJSON *conv, const char *call_id, const char *content, int is_error)
{
	cJSON *m = llm_conv_msg(conv, "tool");
	cJSON_AddStringToObject(m, "call_id", call_id ? call_id : "");
	cJSON_AddStringToObject(m, "content", content ? content : "");
	cJSON_AddBoolToObject(m, "is_error", is_error);
}

/* ---- request bodies ------------------------------------------------------ */

static cJSON *llm_schema(const char *text)
{
	cJSON *s = text ? cJSON_Parse(text) : NULL;
	return s ? s : cJSON_Parse("{\"type\":\"object\",\"properties\":{}}");
}

/* Tool arguments as an object: what the model streamed when it parses,
 * else an empty object (a model that wrote broken JSON sees its error in
 * the tool result, not a rejected request). */
static cJSON *llm_args_object(const char *args)
{
	cJSON *o = args && *args ? jx_parse(args, strlen(args)) : NULL;
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
	}
	return o;
}

static int llm_max_tokens(const struct llm_opts *o)
{
	return o->max_tokens > 0 ? o->max_tokens : 16384;
}

static void llm_openai_messages(const struct llm_opts *o, const cJSON *conv, cJSON *out)
{
	const cJSON *m;
	if (o->system) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "role", "system");
		cJSON_AddStringToObject(s, "content", o->system);
		cJSON_AddItemToArray(out, s);
	}
	cJSON_ArrayForEach(m, conv) {
		const char *role = jx_str(m, "role");
		cJSON *x = cJSON_CreateObject();
		if (!role)
			role = "user";
		if (!strcmp(role, "tool")) {
			cJSON_AddStringToObject(x, "role", "tool");
			cJSON_AddStringToObject(x, "tool_call_id", jx_str(m, "call_id") ? jx_str(m, "call_id") : "");
			cJSON_AddStringToObject(x, "content", jx_str(m, "content") ? jx_str(m, "content") : "");
		} else if (!strcmp(role, "assistant")) {
			const cJSON *c, *calls = jx_get(m, "calls");
			cJSON_AddStringToObject(x, "role", "assistant");
			cJSON_AddStringToObject(x, "content", jx_str(m, "text") ? jx_str(m, "text") : "");
			if (cJSON_GetArraySize(calls) > 0) {
				cJSON *tc = cJSON_AddArrayToObject(x, "tool_calls");
				cJSON_ArrayForEach(c, calls) {
					cJSON *y = cJSON_CreateObject(), *f;
					cJSON_AddStringToObject(y, "id", jx_str(c, "id") ? jx_str(c, "id") : "");
					cJSON_AddStringToObject(y, "type", "function");
					f = cJSON_AddObjectToObject(y, "function");
					cJSON_AddStringToObject(f, "name", jx_str(c, "name") ? jx_str(c, "name") : "");
					cJSON_AddStringToObject(f, "arguments",
					                        jx_str(c, "arguments") && *jx_str(c, "arguments") ?
					                        jx_str(c, "arguments") : "{}");
					cJSON_AddItemToArray(tc, y);
				}
			}
		} else {
			cJSON_AddStringToObject(x, "role", "user");
			cJSON_AddStringToObject(x, "content", jx_str(m, "text") ? jx_str(m, "text") : "");
		}
		cJSON_AddItemToArray(out, x);
	}
}

static void llm_openai_body(const struct llm_opts *o, const cJSON *conv, cJSON *b)
{
	cJSON_AddBoolToObject(b, "stream", 1);
	cJSON_AddBoolToObject(cJSON_AddObjectToObject(b, "stream_options"), "include_usage", 1);
	if (o->max_tokens > 0)
		cJSON_AddNumberToObject(b, "max_tokens", o->max_tokens);
	/* Chat Completions' name for it; servers that do not reason ignore it */
	if (o->effort && *o->effort)
		cJSON_AddStringToObject(b, "reasoning_effort", o->effort);
	llm_openai_messages(o, conv, cJSON_AddArrayToObject(b, "messages"));
	if (o->ntools > 0) {
		cJSON *tools = cJSON_AddArrayToObject(b, "tools");
		for (int i = 0; i < o->ntools; i++) {
			cJSON *t = cJSON_CreateObject(), *f;
			cJSON_AddStringToObject(t, "type", "function");
			f = cJSON_AddObjectToObject(t, "function");
			cJSON_AddStringToObject(f, "name", o->tools[i].name);
			cJSON_AddStringToObject(f, "description", o->tools[i].description ? o->tools[i].description : "");
			cJSON_AddItemToObject(f, "parameters", llm_schema(o->tools[i].schema));
			cJSON_AddItemToArray(tools, t);
		}
	}
}

/* Anthropic wants alternating roles: tool results that follow one another
 * go into one user message. */
static void llm_anthropic_messages(const cJSON *conv, cJSON *out)
{
	const cJSON *m;
	cJSON *results = NULL;
	cJSON_ArrayForEach(m, conv) {
		const char *role = jx_str(m, "role");
		cJSON *x, *content, *blk;
		if (!role)
			role = "user";
		if (!strcmp(role, "tool")) {
			if (!results) {
				x = cJSON_CreateObject();
				cJSON_AddStringToObject(x, "role", "user");
				results = cJSON_AddArrayToObject(x, "content");
				cJSON_AddItemToArray(out, x);
			}
			blk = cJSON_CreateObject();
			cJSON_AddStringToObject(blk, "type", "tool_result");
			cJSON_AddStringToObject(blk, "tool_use_id", jx_str(m, "call_id") ? jx_str(m, "call_id") : "");
			cJSON_AddStringToObject(blk, "content", jx_str(m, "content") ? jx_str(m, "content") : "");
			if (jx_bool(m, "is_error", 0))
				cJSON_AddBoolToObject(blk, "is_error", 1);
			cJSON_AddItemToArray(results, blk);
			continue;
		}
		if (results && strcmp(role, "assistant")) {
			/* a user's words after tool results share their message */
			blk = cJSON_CreateObject();
			cJSON_AddStringToObject(blk, "type", "text");
			cJSON_AddStringToObject(blk, "text", jx_str(m, "text") && *jx_str(m, "text") ?
			                        jx_str(m, "text") : "(empty)");
			cJSON_AddItemToArray(results, blk);
			results = NULL;
			continue;
		}
		results = NULL;
		x = cJSON_CreateObject();
		cJSON_AddStringToObject(x, "role", strcmp(role, "assistant") ? "user" : "assistant");
		content = cJSON_AddArrayToObject(x, "content");
		if (!strcmp(role, "assistant")) {
			const char *sig = jx_str(m, "signature"), *th = jx_str(m, "reasoning");
			const char *text = jx_str(m, "text");
			const cJSON *c;
			/* thinking goes back only with its signature: the API checks it */
			if (sig && *sig && th) {
				blk = cJSON_CreateObject();
				cJSON_AddStringToObject(blk, "type", "thinking");
				cJSON_AddStringToObject(blk, "thinking", th);
				cJSON_AddStringToObject(blk, "signature", sig);
				cJSON_AddItemToArray(content, blk);
			}
			if (text && *text) {
				blk = cJSON_CreateObject();
				cJSON_AddStringToObject(blk, "type", "text");
				cJSON_AddStringToObject(blk, "text", text);
				cJSON_AddItemToArray(content, blk);
			}
			cJSON_ArrayForEach(c, jx_get(m, "calls")) {
				blk = cJSON_CreateObject();
				cJSON_AddStringToObject(blk, "type", "tool_use");
				cJSON_AddStringToObject(blk, "id", jx_str(c, "id") ? jx_str(c, "id") : "");
				cJSON_AddStringToObject(blk, "name", jx_str(c, "name") ? jx_str(c, "name") : "");
				cJSON_AddItemToObject(blk, "input", llm_args_object(jx_str(c, "arguments")));
				cJSON_AddItemToArray(content, blk);
			}
			if (cJSON_GetArraySize(content) == 0) {
				blk = cJSON_CreateObject();
				cJSON_AddStringToObject(blk, "type", "text");
				cJSON_AddStringToObject(blk, "text", "(no content)");
				cJSON_AddItemToArray(content, blk);
			}
		} else {
			blk = cJSON_CreateObject();
			cJSON_AddStringToObject(blk, "type", "text");
			cJSON_AddStringToObject(blk, "text", jx_str(m, "text") && *jx_str(m, "text") ?
			                        jx_str(m, "text") : "(empty)");
			cJSON_AddItemToArray(content, blk);
		}
		cJSON_AddItemToArray(out, x);
	}
}

int llm_effort_budget(const struct llm_opts *o)
{
	static const struct {
		const char *effort;
		int budget;
	} table[] = { {"low", 2048}, {"medium", 8192}, {"high", 16384}, {"xhigh", 16384}, {"max", 16384} };
	int cap = llm_max_tokens(o) - 1024;  /* the budget must leave room for the answer */
	for (size_t i = 0; o->effort && i < sizeof table / sizeof *table; i++)
		if (!strcmp(o->effort, table[i].effort))
			return table[i].budget < cap ? table[i].budget : cap >= 1024 ? cap : 0;
	return 0;
}

static void llm_anthropic_body(const struct llm_opts *o, const cJSON *conv, cJSON *b)
{
	/* the Messages API has no effort: it becomes a thinking budget */
	int budget = o->thinking_budget > 0 ? o->thinking_budget : llm_effort_budget(o);
	cJSON_AddNumberToObject(b, "max_tokens", llm_max_tokens(o));
	cJSON_AddBoolToObject(b, "stream", 1);
	if (o->system)
		cJSON_AddStringToObject(b, "system", o->system);
	if (budget > 0) {
		cJSON *t = cJSON_AddObjectToObject(b, "thinking");
		cJSON_AddStringToObject(t, "type", "enabled");
		cJSON_AddNumberToObject(t, "budget_tokens", budget);
	}
	llm_anthropic_messages(conv, cJSON_AddArrayToObject(b, "messages"));
	if (o->ntools > 0) {
		cJSON *tools = cJSON_AddArrayToObject(b, "tools");
		for (int i = 0; i < o->ntools; i++) {
			cJSON *t = cJSON_CreateObject();
			cJSON_AddStringToObject(t, "name", o->tools[i].name);
			cJSON_AddStringToObject(t, "description", o->tools[i].description ? o->tools[i].description : "");
			cJSON_AddItemToObject(t, "input_schema", llm_schema(o->tools[i].schema));
			cJSON_AddItemToArray(tools, t);
		}
	}
}

char *llm_request_body(const struct llm_opts *o, const cJSON *conv)
{
	cJSON *b = cJSON_CreateObject();
	char *s;
	cJSON_AddStringToObject(b, "model", o->model ? o->model : "");
	if (o->provider == LLM_ANTHROPIC)
		llm_anthropic_body(o, conv, b);
	else
		llm_openai_body(o, conv, b);
	s = cJSON_PrintUnformatted(b);
	cJSON_Delete(b);
	return s;
}

char *llm_url(const struct llm_opts *o)
{
	const char *base = o->base_url;
	size_t n;
	if (!base || !*base)
		base = o->provider == LLM_ANTHROPIC ? "https://api.anthropic.com" : "https://api.openai.com/v1";
	n = strlen(base);
	while (n && base[n - 1] == '/')
		n--;
	return xasprintf("%.*s%s", (int)n, base,
	                 o->provider == LLM_ANTHROPIC ? "/v1/messages" : "/chat/completions");
}

/* ---- the reply ----------------------------------------------------------- */

static void llm_reply_init(struct llm_reply *r)
{
	memset(r, 0, sizeof *r);
	sbuf_init(&r->text);
	sbuf_init(&r->reasoning);
	sbuf_init(&r->signature);
}

/* Forgets what a failed attempt streamed, keeping the attempt count. */
static void llm_reply_clear(struct llm_reply *r)
{
	int attempts = r->attempts;
	llm_reply_free(r);
	llm_reply_init(r);
	r->attempts = attempts;
}

void llm_reply_free(struct llm_reply *r)
{
	free(r->error);
	free(r->id);
	free(r->stop_reason);
	sbuf_free(&r->text);
	sbuf_free(&r->reasoning);
	sbuf_free(&r->signature);
	for (int i = 0; i < r->ncalls; i++) {
		free(r->calls[i].id);
		free(r->calls[i].name);
		sbuf_free(&r->calls[i].args);
	}
	free(r->calls);
	memset(r, 0, sizeof *r);
}

static struct llm_call *llm_call_at(struct llm_reply *r, int index)
{
	struct llm_call *c;
	for (int i = 0; i < r->ncalls; i++)
		if (r->calls[i].index == index)
			return &r->calls[i];
	if (r->ncalls >= 4096)
		return NULL;   /* a hostile stream does not get unbounded calls */
	r->calls = xrealloc(r->calls, (size_t)(r->ncalls + 1) * sizeof *r->calls);
	c = &r->calls[r->ncalls++];
	memset(c, 0, sizeof *c);
	sbuf_init(&c->args);
	c->index = index;
	return c;
}

static long long llm_tok(const cJSON *o, const char *key)
{
	double v = jx_num(o, key, 0);
	return v > 0 && v < 1e15 ? (long long)v : 0;
}

/* ---- stream decoding ----------------------------------------------------- */

struct llm_stream {
	const struct llm_opts *o;
	struct llm_reply *r;
	struct sse *sse;
	int done;              /* the end marker came */
	int finished;          /* OpenAI: a finish_reason came */
	int block_call[256];   /* Anthropic: content block index -> kind (1 tool_use) */
};

static void llm_stream_fail(struct llm_stream *st, enum llm_status s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void llm_stream_fail(struct llm_stream *st, enum llm_status s, const char *fmt, ...)
{
	va_list ap;
	struct sbuf b;
	if (st->r->status != LLM_OK)
		return;
	sbuf_init(&b);
	va_start(ap, fmt);
	{
		char tmp[512];
		vsnprintf(tmp, sizeof tmp, fmt, ap);
		sbuf_adds(&b, tmp);
	}
	va_end(ap);
	st->r->status = s;
	st->r->error = llm_scrub(sbuf_detach(&b), st->o->api_key);
}

static void llm_delta(struct llm_stream *st, enum llm_delta k, int call, const char *s, size_t n)
{
	if (st->o->on_delta && n)
		st->o->on_delta(st->o->ud, k, call, s, n);
}

static void llm_add_text(struct llm_stream *st, struct sbuf *b, enum llm_delta k, const cJSON *v)
{
	if (cJSON_IsString(v) && *v->valuestring) {
		size_t n = strlen(v->valuestring);
		sbuf_add(b, v->valuestring, n);
		llm_delta(st, k, -1, v->valuestring, n);
	}
}

static void llm_openai_tool(struct llm_stream *st, const cJSON *tc)
{
	const cJSON *f = jx_get(tc, "function");
	double idx = jx_num(tc, "index", -1);
	struct llm_call *c;
	const char *id = jx_str(tc, "id"), *name = jx_str(f, "name"), *args = jx_str(f, "arguments");
	int ci;

	/* servers that omit the index send one call per chunk run: a new id
	 * starts a new call */
	if (!(idx >= 0 && idx < 1e6))
		idx = id ? st->r->ncalls : (st->r->ncalls ? st->r->calls[st->r->ncalls - 1].index : 0);
	c = llm_call_at(st->r, (int)idx);
	if (!c)
		return;
	ci = (int)(c - st->r->calls);
	if (id && !c->id)
		c->id = xstrdup(id);
	if (name && *name) {
		if (!c->name) {
			c->name = xstrdup(name);
			llm_delta(st, LLM_D_TOOL, ci, name, strlen(name));
		}
	}
	if (args && *args) {
		sbuf_adds(&c->args, args);
		llm_delta(st, LLM_D_TOOL_ARGS, ci, args, strlen(args));
	}
}

static void llm_openai_usage(struct llm_reply *r, const cJSON *u)
{
	if (!cJSON_IsObject(u))
		return;
	r->tok_in = llm_tok(u, "prompt_tokens");
	r->tok_out = llm_tok(u, "completion_tokens");
	r->tok_cache_read = llm_tok(jx_get(u, "prompt_tokens_details"), "cached_tokens");
	r->tok_reasoning = llm_tok(jx_get(u, "completion_tokens_details"), "reasoning_tokens");
}

static int llm_openai_event(struct llm_stream *st, const char *data)
{
	cJSON *o;
	const cJSON *ch, *d, *tc, *err;

	if (!strcmp(data, "[DONE]")) {
		st->done = 1;
		return 0;
	}
	o = jx_parse(data, strlen(data));  /* a \u0000 shown (U+2400), not an end that hides the rest */
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		llm_stream_fail(st, LLM_ERR_STREAM, "malformed stream data: %.80s", data);
		return -1;
	}
	if ((err = jx_get(o, "error")) != NULL) {
		const char *msg = jx_str(err, "message") ? jx_str(err, "message") : jx_str(o, "error");
		llm_stream_fail(st, LLM_ERR_STREAM, "server error in stream: %.300s", msg ? msg : "(no message)");
		cJSON_Delete(o);
		return -1;
	}
	if (jx_str(o, "id") && !st->r->id)
		st->r->id = xstrdup(jx_str(o, "id"));
	llm_openai_usage(st->r, jx_get(o, "usage"));
	ch = cJSON_GetArrayItem(jx_get(o, "choices"), 0);
	d = jx_get(ch, "delta");
	if (cJSON_IsObject(d)) {
		/* servers that send both names send the same piece twice */
		const cJSON *rc = jx_get(d, "reasoning_content");
		llm_add_text(st, &st->r->reasoning, LLM_D_REASONING,
		             cJSON_IsString(rc) && *rc->valuestring ? rc : jx_get(d, "reasoning"));
		llm_add_text(st, &st->r->text, LLM_D_TEXT, jx_get(d, "content"));
		const cJSON *tcs = jx_get(d, "tool_calls");
		if (cJSON_IsArray(tcs))
			cJSON_ArrayForEach(tc, tcs)
				llm_openai_tool(st, tc);
	}
	if (jx_str(ch, "finish_reason")) {
		st->finished = 1;
		if (!st->r->stop_reason)
			st->r->stop_reason = xstrdup(jx_str(ch, "finish_reason"));
	}
	cJSON_Delete(o);
	return 0;
}

static int llm_block_kind(struct llm_stream *st, double idx)
{
	return idx >= 0 && idx < 256 ? st->block_call[(int)idx] : 0;
}

static void llm_anthropic_start(struct llm_stream *st, const cJSON *o)
{
	const cJSON *b = jx_get(o, "content_block");
	const char *t = jx_str(b, "type");
	double idx = jx_num(o, "index", -1);
	if (!t || !(idx >= 0 && idx < 256))
		return;
	st->block_call[(int)idx] = !strcmp(t, "tool_use") ? 1 : 0;
	if (!strcmp(t, "tool_use")) {
		struct llm_call *c = llm_call_at(st->r, (int)idx);
		const char *name = jx_str(b, "name");
		if (!c)
			return;
		free(c->id);
		c->id = xstrdup(jx_str(b, "id"));
		free(c->name);
		c->name = xstrdup(name ? name : "");
		llm_delta(st, LLM_D_TOOL, (int)(c - st->r->calls), c->name, strlen(c->name));
	} else if (!strcmp(t, "text")) {
		llm_add_text(st, &st->r->text, LLM_D_TEXT, jx_get(b, "text"));
	} else if (!strcmp(t, "thinking")) {
		llm_add_text(st, &st->r->reasoning, LLM_D_REASONING, jx_get(b, "thinking"));
	}
}

static void llm_anthropic_delta(struct llm_stream *st, const cJSON *o)
{
	const cJSON *d = jx_get(o, "delta");
	const char *t = jx_str(d, "type");
	double idx = jx_num(o, "index", -1);
	if (!t)
		return;
	if (!strcmp(t, "text_delta"))
		llm_add_text(st, &st->r->text, LLM_D_TEXT, jx_get(d, "text"));
	else if (!strcmp(t, "thinking_delta"))
		llm_add_text(st, &st->r->reasoning, LLM_D_REASONING, jx_get(d, "thinking"));
	else if (!strcmp(t, "signature_delta") && jx_str(d, "signature"))
		sbuf_adds(&st->r->signature, jx_str(d, "signature"));
	else if (!strcmp(t, "input_json_delta") && llm_block_kind(st, idx) == 1) {
		struct llm_call *c = llm_call_at(st->r, (int)idx);
		const char *p = jx_str(d, "partial_json");
		if (c && p && *p) {
			sbuf_adds(&c->args, p);
			llm_delta(st, LLM_D_TOOL_ARGS, (int)(c - st->r->calls), p, strlen(p));
		}
	}
}

static void llm_anthropic_usage(struct llm_reply *r, const cJSON *u)
{
	long long v;
	if (!cJSON_IsObject(u))
		return;
	/* message_start carries the input side, message_delta the output; a
	 * later count replaces an earlier one only when present */
	if ((v = llm_tok(u, "input_tokens")) > 0)
		r->tok_in = v;
	if ((v = llm_tok(u, "output_tokens")) > 0)
		r->tok_out = v;
	if ((v = llm_tok(u, "cache_read_input_tokens")) > 0)
		r->tok_cache_read = v;
	if ((v = llm_tok(u, "cache_creation_input_tokens")) > 0)
		r->tok_cache_write = v;
}

static int llm_anthropic_event(struct llm_stream *st, const char *data)
{
	cJSON *o = jx_parse(data, strlen(data));  /* (as llm_openai_event) */
	const char *t = jx_str(o, "type");

	if (!cJSON_IsObject(o) || !t) {
		cJSON_Delete(o);
		llm_stream_fail(st, LLM_ERR_STREAM, "malformed stream data: %.80s", data);
		return -1;
	}
	if (!strcmp(t, "message_start")) {
		const cJSON *m = jx_get(o, "message");
		if (jx_str(m, "id") && !st->r->id)
			st->r->id = xstrdup(jx_str(m, "id"));
		llm_anthropic_usage(st->r, jx_get(m, "usage"));
	} else if (!strcmp(t, "content_block_start")) {
		llm_anthropic_start(st, o);
	} else if (!strcmp(t, "content_block_delta")) {
		llm_anthropic_delta(st, o);
	} else if (!strcmp(t, "message_delta")) {
		const char *sr = jx_pstr(o, "delta.stop_reason");
		if (sr) {
			free(st->r->stop_reason);
			st->r->stop_reason = xstrdup(sr);
		}
		llm_anthropic_usage(st->r, jx_get(o, "usage"));
	} else if (!strcmp(t, "message_stop")) {
		st->done = 1;
	} else if (!strcmp(t, "error")) {
		const char *msg = jx_pstr(o, "error.message");
		llm_stream_fail(st, LLM_ERR_STREAM, "server error in stream: %.300s", msg ? msg : "(no message)");
		cJSON_Delete(o);
		return -1;
	}
	/* ping, content_block_stop and new event types need nothing */
	cJSON_Delete(o);
	return 0;
}

static int llm_sse_event(void *ud, const char *event, const char *data, size_t len)
{
	struct llm_stream *st = ud;
	(void)event;
	if (strlen(data) != len) {
		llm_stream_fail(st, LLM_ERR_STREAM, "malformed stream data: NUL byte in an event");
		return -1;
	}
	if (st->done)
		return 0;   /* anything after the end marker is ignored */
	return st->o->provider == LLM_ANTHROPIC ? llm_anthropic_event(st, data) : llm_openai_event(st, data);
}

struct llm_stream *llm_stream_new(const struct llm_opts *o, struct llm_reply *r)
{
	struct llm_stream *st = xcalloc(1, sizeof *st);
	st->o = o;
	st->r = r;
	st->sse = sse_new(llm_sse_event, st);
	return st;
}

int llm_stream_feed(struct llm_stream *st, const char *buf, size_t len)
{
	int rc;
	if (st->r->status != LLM_OK)
		return -1;
	rc = sse_feed(st->sse, buf, len);
	if (rc && st->r->status == LLM_OK)
		llm_stream_fail(st, LLM_ERR_STREAM, "malformed stream: %s",
		                sse_error(st->sse) ? sse_error(st->sse) : "bad event");
	return rc ? -1 : 0;
}

int llm_stream_done(const struct llm_stream *st)
{
	return st->done || (st->o->provider == LLM_OPENAI && st->finished);
}

void llm_stream_free(struct llm_stream *st)
{
	if (!st)
		return;
	sse_free(st->sse);
	free(st);
}

/* ---- HTTP ----------------------------------------------------------------- */

struct llm_xfer {
	const struct llm_opts *o;
	struct llm_reply *r;
	struct llm_stream *st;
	CURL *curl;
	long status;
	double retry_after;        /* seconds from the header, -1 when none */
	struct sbuf errbody;       /* the body of an error response, capped */
};

static size_t llm_on_header(char *buf, size_t size, size_t n, void *ud)
{
	struct llm_xfer *x = ud;
	size_t len = size * n;
	if (len > 12 && !strncasecmp(buf, "retry-after:", 12)) {
		char tmp[64];
		size_t k = len - 12 < sizeof tmp - 1 ? len - 12 : sizeof tmp - 1;
		char *end;
		double v;
		memcpy(tmp, buf + 12, k);
		tmp[k] = 0;
		v = strtod(tmp, &end);
		/* a number of seconds; an HTTP date falls back to our own backoff */
		if (end != tmp && v >= 0 && v < 1e6)
			x->retry_after = v;
	} else if (len > 5 && !strncmp(buf, "HTTP/", 5)) {
		/* a new response (after 100-continue or a redirect) starts over */
		x->retry_after = -1;
	}
	return len;
}

static size_t llm_on_body(char *buf, size_t size, size_t n, void *ud)
{
	struct llm_xfer *x = ud;
	size_t len = size * n;
	if (!x->status)
		curl_easy_getinfo(x->curl, CURLINFO_RESPONSE_CODE, &x->status);
	if (x->status < 200 || x->status >= 300) {
		if (x->errbody.len < LLM_ERRBODY_MAX)
			sbuf_add(&x->errbody, buf, len < LLM_ERRBODY_MAX - x->errbody.len ?
			         len : LLM_ERRBODY_MAX - x->errbody.len);
		return len;
	}
	if (llm_stream_feed(x->st, buf, len) < 0)
		return 0;   /* stops the transfer: the reply holds the error */
	return len;
}

static double llm_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int llm_past_deadline(const struct llm_opts *o)
{
	return o->deadline > 0 && llm_now() >= o->deadline;
}

static int llm_on_progress(void *ud, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
	struct llm_xfer *x = ud;
	(void)a, (void)b, (void)c, (void)d;
	return (x->o->abort && *x->o->abort) || llm_past_deadline(x->o) ? 1 : 0;
}

static void llm_fail(struct llm_reply *r, const struct llm_opts *o, enum llm_status s, char *msg)
{
	free(r->error);
	r->status = s;
	r->error = llm_scrub(msg, o->api_key);
}

/* A short reason from an error body: the API's error.message when JSON. */
static char *llm_error_text(const struct sbuf *body)
{
	cJSON *o = body->s ? jx_parse(body->s, body->len) : NULL;
	const char *m = jx_pstr(o, "error.message");
	char *s;
	if (!m)
		m = jx_str(o, "error");
	if (!m)
		m = jx_str(o, "message");
	if (!m)
		m = body->s ? body->s : "";
	/* xstrndup copies n bytes: bound n by the string */
	s = xstrndup(m, strnlen(m, 300));
	for (char *p = s; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	cJSON_Delete(o);
	return s;
}

static int llm_retryable(long status)
{
	return status == 429 || status == 408 || status == 409 || status >= 500;
}

/* One request. Returns 1 when a retry may help, 0 otherwise. */
static int llm_attempt(const struct llm_opts *o, const char *url, const char *body,
                       struct curl_slist *hdr, struct llm_reply *r, double *retry_after)
{
	struct llm_xfer x = {.o = o, .r = r, .retry_after = -1};
	CURLcode rc;
	char cerr[CURL_ERROR_SIZE] = "";

	sbuf_init(&x.errbody);
	x.st = llm_stream_new(o, r);
	x.curl = curl_easy_init();
	if (!x.curl) {
		llm_fail(r, o, LLM_ERR_CONFIG, xstrdup("cannot start libcurl"));
		llm_stream_free(x.st);
		return 0;
	}
	curl_easy_setopt(x.curl, CURLOPT_URL, url);
	curl_easy_setopt(x.curl, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(x.curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(x.curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	curl_easy_setopt(x.curl, CURLOPT_WRITEFUNCTION, llm_on_body);
	curl_easy_setopt(x.curl, CURLOPT_WRITEDATA, &x);
	curl_easy_setopt(x.curl, CURLOPT_HEADERFUNCTION, llm_on_header);
	curl_easy_setopt(x.curl, CURLOPT_HEADERDATA, &x);
	curl_easy_setopt(x.curl, CURLOPT_XFERINFOFUNCTION, llm_on_progress);
	curl_easy_setopt(x.curl, CURLOPT_XFERINFODATA, &x);
	curl_easy_setopt(x.curl, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(x.curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(x.curl, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(x.curl, CURLOPT_CONNECTTIMEOUT_MS, (long)(1000 * (o->connect_s > 0 ? o->connect_s : 30)));
	curl_easy_setopt(x.curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(x.curl, CURLOPT_LOW_SPEED_TIME, (long)(o->stall_s > 0 ? o->stall_s + 0.999 : 300));
	curl_easy_setopt(x.curl, CURLOPT_USERAGENT, "kbtui-live");
	/* never follow redirects: the key header must not travel to another host */
	curl_easy_setopt(x.curl, CURLOPT_FOLLOWLOCATION, 0L);

	r->attempts++;
	rc = curl_easy_perform(x.curl);
	if (!x.status)
		curl_easy_getinfo(x.curl, CURLINFO_RESPONSE_CODE, &x.status);
	r->http_status = (int)x.status;
	*retry_after = x.retry_after;
	curl_easy_cleanup(x.curl);

	int retry = 0;
	if (r->status != LLM_OK) {
		/* the stream decoder already said what was wrong */
	} else if (o->abort && *o->abort) {
		llm_fail(r, o, LLM_ERR_ABORTED, xstrdup("aborted"));
	} else if (llm_past_deadline(o)) {
		llm_fail(r, o, LLM_ERR_ABORTED, xstrdup("time budget spent"));
	} else if (x.status && (x.status < 200 || x.status >= 300)) {
		char *why = llm_error_text(&x.errbody);
		llm_fail(r, o, LLM_ERR_HTTP, xasprintf("HTTP %ld from %s: %s", x.status, url, why));
		free(why);
		retry = llm_retryable(x.status);
	} else if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST ||
	           rc == CURLE_COULDNT_RESOLVE_PROXY || (rc != CURLE_OK && !x.status)) {
		llm_fail(r, o, LLM_ERR_CONNECT, xasprintf("cannot reach %s: %s", url,
		         cerr[0] ? cerr : curl_easy_strerror(rc)));
	} else if (rc != CURLE_OK) {
		llm_fail(r, o, LLM_ERR_DROPPED, xasprintf("stream from %s dropped: %s", url,
		         cerr[0] ? cerr : curl_easy_strerror(rc)));
	} else {
		sse_finish(x.st->sse);
		if (r->status == LLM_OK && !llm_stream_done(x.st))
			llm_fail(r, o, LLM_ERR_DROPPED, xasprintf("stream from %s ended before its end marker", url));
	}
	llm_stream_free(x.st);
	sbuf_free(&x.errbody);
	return retry;
}

/* Sleeps s seconds in short steps so an abort is seen. 0, or -1 on abort. */
static int llm_sleep(const struct llm_opts *o, double s)
{
	while (s > 0) {
		double step = s < 0.1 ? s : 0.1;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = (long)(step * 1e9)};
		if ((o->abort && *o->abort) || llm_past_deadline(o))
			return -1;
		nanosleep(&ts, NULL);
		s -= step;
	}
	return o->abort && *o->abort ? -1 : 0;
}

static struct curl_slist *llm_headers(const struct llm_opts *o)
{
	struct curl_slist *h = NULL;
	char *line;
	h = curl_slist_append(h, "Content-Type: application/json");
	h = curl_slist_append(h, "Accept: text/event-stream");
	/* no 100-continue round trip before a large body */
	h = curl_slist_append(h, "Expect:");
	if (o->provider == LLM_ANTHROPIC) {
		line = xasprintf("x-api-key: %s", o->api_key);
		h = curl_slist_append(h, "anthropic-version: 2023-06-01");
	} else {
		line = xasprintf("Authorization: Bearer %s", o->api_key);
	}
	h = curl_slist_append(h, line);
	/* the header text held the key: wipe our copy */
	memset(line, 0, strlen(line));
	free(line);
	return h;
}

static int llm_key_ok(const char *k)
{
	for (; *k; k++)
		if ((unsigned char)*k < 0x20 || *k == 0x7f)
			return 0;
	return 1;
}

enum llm_status llm_chat(const struct llm_opts *o, const cJSON *conv, struct llm_reply *r)
{
	static int curl_ready;
	int max_retries = o->max_retries < 0 ? 0 : o->max_retries == 0 ? 5 : o->max_retries;
	double backoff = o->backoff_s > 0 ? o->backoff_s : 1;
	double cap = o->max_wait_s > 0 ? o->max_wait_s : 120;
	char *url, *body;
	struct curl_slist *hdr;

	llm_reply_init(r);
	if (!o->api_key || !*o->api_key) {
		llm_fail(r, o, LLM_ERR_CONFIG, xasprintf("no API key: set %s",
		         o->provider == LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY"));
		return r->status;
	}
	if (!llm_key_ok(o->api_key)) {
		llm_fail(r, o, LLM_ERR_CONFIG, xstrdup("the API key holds control characters"));
		return r->status;
	}
	if (!curl_ready) {
		curl_global_init(CURL_GLOBAL_DEFAULT);
		curl_ready = 1;
	}
	url = llm_url(o);
	body = llm_request_body(o, conv);
	hdr = llm_headers(o);
	for (int attempt = 0;; attempt++) {
		double ra = -1, wait;
		int retry = llm_attempt(o, url, body, hdr, r, &ra);
		if (r->status == LLM_OK || !retry || attempt >= max_retries)
			break;
		wait = ra >= 0 ? ra : backoff * (double)(1 << (attempt < 10 ? attempt : 10));
		if (wait > cap)
			wait = cap;
		if (o->on_retry)
			o->on_retry(o->ud, attempt + 1, wait, r->error);
		if (llm_sleep(o, wait) < 0) {
			llm_reply_clear(r);
			llm_fail(r, o, LLM_ERR_ABORTED, xstrdup(llm_past_deadline(o) ? "time budget spent" : "aborted"));
			break;
		}
		llm_reply_clear(r);
	}
	curl_slist_free_all(hdr);
	free(url);
	free(body);
	return r->status;
}
