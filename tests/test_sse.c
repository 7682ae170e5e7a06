/* test_sse.c: the Server-Sent-Events reader, fed in pieces of every size,
 * with CRLF, CR, multi-line data, comments and hostile input. */
#include "tap.h"
#include "sse.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* What the callback saw, as "name=data|" records. */
static struct sbuf seen;
static int stop_after = -1;

static int on_event(void *ud, const char *event, const char *data, size_t len)
{
	int *n = ud;
	sbuf_adds(&seen, event);
	sbuf_addc(&seen, '=');
	sbuf_add(&seen, data, len);
	sbuf_addc(&seen, '|');
	(*n)++;
	return stop_after >= 0 && *n >= stop_after ? 7 : 0;
}

/* Feeds s in pieces of k bytes (0: whole); returns what was seen. */
static char *feed(const char *s, size_t len, size_t k, int *rc)
{
	int n = 0;
	struct sse *p = sse_new(on_event, &n);
	sbuf_reset(&seen);
	*rc = 0;
	if (!k)
		k = len ? len : 1;
	for (size_t i = 0; i < len && !*rc; i += k)
		*rc = sse_feed(p, s + i, len - i < k ? len - i : k);
	if (!*rc)
		*rc = sse_finish(p);
	sse_free(p);
	return xstrdup(seen.s ? seen.s : "");
}

static const char stream[] =
	"\xEF\xBB\xBF: a comment\r\n"
	"event: message_start\r\n"
	"data: {\"a\":1}\r\n"
	"\r\n"
	"data: line one\n"
	"data: line two\n"
	"data:no space\n"
	"id: 42\n"
	"retry: 1000\n"
	"unknown: field\n"
	"\n"
	"event: ping\r"
	"data\r"
	"\r"
	"event: only-name\n"
	"\n"
	"data: [DONE]\n"
	"\n"
	"data: unterminated";

static const char want[] =
	"message_start={\"a\":1}|"
	"message=line one\nline two\nno space|"
	"ping=|"
	"message=[DONE]|";

static void test_pieces(void)
{
	int bad = 0, rc;
	for (size_t k = 0; k <= sizeof stream; k++) {
		char *got = feed(stream, sizeof stream - 1, k, &rc);
		if (strcmp(got, want) || rc) {
			if (!bad)
				printf("# pieces of %zu: got \"%s\"\n", k, got);
			bad++;
		}
		free(got);
	}
	is_int(bad, 0, "every piece size from 1 to the whole stream gives the same 4 events");
	char *got = feed(stream, sizeof stream - 1, 0, &rc);
	is_str(got, want, "events: names, joined data lines, empty data, BOM and comments skipped");
	free(got);
}

static void test_crlf_split(void)
{
	/* a CR at the end of one piece and its LF at the start of the next is one line end */
	int n = 0;
	struct sse *p = sse_new(on_event, &n);
	sbuf_reset(&seen);
	sse_feed(p, "data: a\r", 8);
	sse_feed(p, "\n", 1);
	sse_feed(p, "\r", 1);
	sse_feed(p, "\ndata: b\n\n", 10);
	sse_finish(p);
	is_str(seen.s, "message=a|message=b|", "CR|LF across pieces is one line end, CR LF CR LF ends the event");
	is_int((long long)sse_count(p), 2, "sse_count counts dispatched events");
	sse_free(p);
}

static void test_stop(void)
{
	int rc;
	char *got;
	stop_after = 1;
	got = feed("data: 1\n\ndata: 2\n\n", 18, 0, &rc);
	stop_after = -1;
	is_int(rc, 7, "a nonzero callback value stops the reader and comes back");
	is_str(got, "message=1|", "nothing after the stop is dispatched");
	free(got);
}

static void test_hostile(void)
{
	int rc, n = 0;
	char *got;
	struct sse *p;
	size_t big = SSE_MAX_LINE + 10;
	char *s = xmalloc(big + 16);

	/* NUL bytes and binary stay inside data, with their length */
	got = feed("data: a\0b\n\n", 11, 1, &rc);
	ok(rc == 0 && !memcmp(got, "message=a", 9), "NUL byte inside data is carried, not a crash");
	free(got);

	got = feed("\n\n\n::::\n:\ndata\n\n", 16, 3, &rc);
	is_str(got, "message=|", "blank lines and bare colons: one empty event from the bare data field");
	free(got);

	memset(s, 'x', big);
	memcpy(s, "data: ", 6);
	p = sse_new(on_event, &n);
	rc = 0;
	for (size_t i = 0; i < big && !rc; i += 65536)
		rc = sse_feed(p, s + i, big - i < 65536 ? big - i : 65536);
	is_int(rc, -1, "a line past SSE_MAX_LINE fails the reader");
	is_str(sse_error(p), "line too long", "... and says why");
	is_int(sse_feed(p, "data: x\n\n", 9), -1, "a failed reader stays failed");
	sse_free(p);

	/* many data lines: the event cap, not memory exhaustion */
	p = sse_new(on_event, &n);
	rc = 0;
	{
		size_t line = 1u << 20;
		char *l = xmalloc(line + 8);
		memset(l, 'y', line);
		memcpy(l, "data:", 5);
		l[line - 1] = '\n';
		for (int i = 0; i < 64 && !rc; i++)
			rc = sse_feed(p, l, line);
		free(l);
	}
	is_int(rc, -1, "event data past SSE_MAX_DATA fails the reader");
	is_str(sse_error(p), "event data too long", "... and says why");
	sse_free(p);

	/* random bytes in random pieces decode as the whole does */
	srand(5);
	n = 0;
	for (int round = 0; round < 200; round++) {
		size_t len = (size_t)(rand() % 2000);
		const char alphabet[] = "data:event: \r\n\n:x\0\xff";
		for (size_t i = 0; i < len; i++)
			s[i] = alphabet[rand() % (int)(sizeof alphabet - 1)];
		char *whole = feed(s, len, 0, &rc);
		int rc2;
		char *piece = feed(s, len, 1 + (size_t)(rand() % 17), &rc2);
		if (strcmp(whole, piece) || rc != rc2)
			n++;
		free(whole);
		free(piece);
	}
	is_int(n, 0, "200 random streams: pieces of random size give the same events as the whole");
	free(s);
}

int main(void)
{
	sbuf_init(&seen);
	test_pieces();
	test_crlf_split();
	test_stop();
	test_hostile();
	sbuf_free(&seen);
	return tap_done();
}
