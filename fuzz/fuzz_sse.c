/* fuzz_sse.c: libFuzzer target for the live mode's stream reading: the SSE
 * reader and, on top of it, the decoding of an OpenAI or Anthropic stream
 * into a reply. The first byte picks the provider and a split point; the
 * rest is the stream. Fed whole or in two pieces, the stream must give the
 * same events and the same reply, and nothing may crash or leak. */
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "llm.h"
#include "sse.h"
#include "util.h"

struct fuzz_count {
	size_t events, bytes;
};

static int fuzz_on_event(void *ud, const char *event, const char *data, size_t len)
{
	struct fuzz_count *c = ud;
	c->events++;
	c->bytes += len + strlen(event);
	if (data[len] != '\0')  /* the reader promises a NUL after the data */
		abort();
	return 0;
}

static void fuzz_sse(const char *d, size_t n, size_t cut, struct fuzz_count *c, int *rc)
{
	struct sse *s = sse_new(fuzz_on_event, c);
	*rc = sse_feed(s, d, cut);
	if (*rc == 0)
		*rc = sse_feed(s, d + cut, n - cut);
	if (*rc == 0)
		*rc = sse_finish(s);
	sse_free(s);
}

static int fuzz_stream(enum llm_provider p, const char *d, size_t n, size_t cut, struct llm_reply *r)
{
	struct llm_opts o;
	memset(&o, 0, sizeof o);
	o.provider = p;
	o.model = "fuzz";
	o.api_key = "sk-fuzz-SECRET";
	memset(r, 0, sizeof *r);
	sbuf_init(&r->text);
	sbuf_init(&r->reasoning);
	sbuf_init(&r->signature);
	struct llm_stream *st = llm_stream_new(&o, r);
	int rc = llm_stream_feed(st, d, cut);
	if (rc == 0)
		rc = llm_stream_feed(st, d + cut, n - cut);
	int done = llm_stream_done(st);
	llm_stream_free(st);
	return rc * 2 + done;
}

static int fuzz_same_sbuf(const struct sbuf *a, const struct sbuf *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->s, b->s, a->len) == 0);
}

static void fuzz_compare(const struct llm_reply *a, const struct llm_reply *b)
{
	if (a->status != b->status || a->ncalls != b->ncalls || a->tok_in != b->tok_in ||
	    a->tok_out != b->tok_out || !fuzz_same_sbuf(&a->text, &b->text) ||
	    !fuzz_same_sbuf(&a->reasoning, &b->reasoning))
		abort();
	for (int i = 0; i < a->ncalls; i++)
		if (!fuzz_same_sbuf(&a->calls[i].args, &b->calls[i].args))
			abort();
	/* the key is never echoed into what the reply says */
	if (a->error && strstr(a->error, "sk-fuzz-SECRET"))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	enum llm_provider p = data[0] & 1 ? LLM_ANTHROPIC : LLM_OPENAI;
	const char *d = (const char *)data + 1;
	size_t n = size - 1;
	size_t cut = n ? (size_t)(data[0] >> 1) * 13u % (n + 1) : 0;

	struct fuzz_count whole = {0, 0}, split = {0, 0};
	int rc1, rc2;
	fuzz_sse(d, n, n, &whole, &rc1);
	fuzz_sse(d, n, cut, &split, &rc2);
	if (rc1 != rc2 || whole.events != split.events || whole.bytes != split.bytes)
		abort();

	struct llm_reply a, b;
	int s1 = fuzz_stream(p, d, n, n, &a);
	int s2 = fuzz_stream(p, d, n, cut, &b);
	if (s1 != s2)
		abort();
	fuzz_compare(&a, &b);
	llm_reply_free(&a);
	llm_reply_free(&b);
	return 0;
}
