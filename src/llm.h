/* llm.h: one streamed chat turn with a language model over HTTP, for the
 * two wire formats most servers speak: the OpenAI-compatible Chat
 * Completions API (OpenAI, OpenRouter, DeepSeek, vLLM, llama.cpp) and the
 * Anthropic Messages API. The conversation is kept provider-neutral and
 * turned into either request body; the streamed reply (text, reasoning,
 * tool calls, usage) comes back in one struct, and as deltas while it
 * streams. The API key goes into a request header and nowhere else: it is
 * scrubbed from every message this module returns. */
#ifndef KB_LLM_H
#define KB_LLM_H

#include <signal.h>
#include <stddef.h>
#include "util.h"

struct cJSON;

enum llm_provider { LLM_OPENAI, LLM_ANTHROPIC };

enum llm_status {
	LLM_OK,
	LLM_ERR_CONFIG,     /* no key, bad URL: nothing was sent */
	LLM_ERR_CONNECT,    /* the server could not be reached */
	LLM_ERR_HTTP,       /* an error status (after the retries for 429/5xx) */
	LLM_ERR_DROPPED,    /* the stream ended before its end marker: retry the turn */
	LLM_ERR_STREAM,     /* the stream held data that is not the protocol */
	LLM_ERR_ABORTED,    /* *abort was set */
};

/* What a delta carries: text and reasoning grow; a tool call starts (s is
 * its name) and its JSON arguments grow (s is the next piece). */
enum llm_delta { LLM_D_TEXT, LLM_D_REASONING, LLM_D_TOOL, LLM_D_TOOL_ARGS };

typedef void (*llm_delta_fn)(void *ud, enum llm_delta kind, int call, const char *s, size_t n);
/* A retry is coming after wait_s seconds; why says what failed. */
typedef void (*llm_retry_fn)(void *ud, int attempt, double wait_s, const char *why);

struct llm_tool {
	const char *name, *description;
	const char *schema;        /* JSON Schema of the arguments, as text */
};

struct llm_opts {
	enum llm_provider provider;
	const char *base_url;      /* NULL: the provider's public endpoint */
	const char *api_key;       /* borrowed; never copied into messages */
	const char *model;
	const char *system;        /* may be NULL */
	const struct llm_tool *tools;
	int ntools;
	int max_tokens;            /* per reply; <= 0: 16384 (required by Anthropic) */
	int thinking_budget;       /* Anthropic extended thinking tokens; 0: off */
	/* reasoning effort (minimal, low, medium, high ...): OpenAI's
	 * reasoning_effort; Anthropic: the thinking budget when none is given
	 * (llm_effort_budget). NULL or "": not sent. */
	const char *effort;
	int max_retries;           /* for 429/5xx; < 0: none, 0: 5 */
	double backoff_s;          /* first wait without Retry-After; <= 0: 1 */
	double max_wait_s;         /* cap on one wait, Retry-After included; <= 0: 120 */
	double stall_s;            /* no byte for this long drops the stream; <= 0: 300 */
	double connect_s;          /* <= 0: 30 */
	volatile sig_atomic_t *abort;  /* may be NULL */
	double deadline;           /* CLOCK_REALTIME seconds; past it the turn ends
	                            * as LLM_ERR_ABORTED "time budget spent"; 0: none */
	llm_delta_fn on_delta;
	llm_retry_fn on_retry;
	void *ud;
};

struct llm_call {
	char *id, *name;
	struct sbuf args;          /* JSON text as streamed */
	int index;                 /* the provider's index of the call/block */
};

struct llm_reply {
	enum llm_status status;
	char *error;               /* owned; NULL when status is LLM_OK */
	int http_status;           /* the last response's, 0 when none */
	int attempts;              /* requests sent */
	char *id, *stop_reason;    /* owned, may be NULL */
	struct sbuf text, reasoning, signature;
	struct llm_call *calls;
	int ncalls;
	long long tok_in, tok_out, tok_cache_read, tok_cache_write, tok_reasoning;
};

/* The neutral conversation: a JSON array of messages
 *   {"role":"user","text"}
 *   {"role":"assistant","text","reasoning","signature","calls":[{id,name,arguments}]}
 *   {"role":"tool","call_id","content","is_error"}
 * built with the helpers below. */
struct cJSON *llm_conv_new(void);
void llm_conv_user(struct cJSON *conv, const char *text);
void llm_conv_assistant(struct cJSON *conv, const struct llm_reply *r);
void llm_conv_tool(struct cJSON *conv, const char *call_id, const char *content, int is_error);

/* The request body for o->provider (owned JSON text). */
char *llm_request_body(const struct llm_opts *o, const struct cJSON *conv);
/* The endpoint URL (owned). */
char *llm_url(const struct llm_opts *o);

/* One turn: sends conv, streams the reply into r (which it initialises).
 * Returns r->status. Free r with llm_reply_free. */
enum llm_status llm_chat(const struct llm_opts *o, const struct cJSON *conv, struct llm_reply *r);
void llm_reply_free(struct llm_reply *r);

/* Stream decoding without HTTP, for tests and fuzzing: feed SSE bytes in
 * any pieces; finish says whether the end marker came. */
struct llm_stream;
struct llm_stream *llm_stream_new(const struct llm_opts *o, struct llm_reply *r);
/* 0, or -1 once the stream is malformed (r->status/r->error say why). */
int llm_stream_feed(struct llm_stream *st, const char *buf, size_t len);
/* 1 when the stream reached its end marker, else 0. */
int llm_stream_done(const struct llm_stream *st);
void llm_stream_free(struct llm_stream *st);

/* Anthropic's thinking budget for an effort with no budget given: low
 * 2048, medium 8192, high (and above) 16384, kept below max_tokens; 0 for
 * none, minimal or a word it does not know. */
int llm_effort_budget(const struct llm_opts *o);

const char *llm_provider_name(enum llm_provider p);
int llm_provider_parse(const char *s, enum llm_provider *p);   /* 0 or -1 */
/* OPENAI_API_KEY / ANTHROPIC_API_KEY; NULL when unset or empty. */
const char *llm_env_key(enum llm_provider p);
/* OPENAI_BASE_URL / ANTHROPIC_BASE_URL; NULL when unset or empty. */
const char *llm_env_base_url(enum llm_provider p);
/* The shortest API key kbtui takes: a shorter one would be scrubbed out
 * of ordinary text (a one-letter key out of every word), so it is refused
 * at start. */
#define LLM_KEY_MIN 8
/* Replaces every occurrence of the whole secret in s with "[redacted]";
 * returns s, reallocated when needed (owned). A secret shorter than
 * LLM_KEY_MIN is no key: s is returned as it is. */
char *llm_scrub(char *s, const char *secret);

#endif
