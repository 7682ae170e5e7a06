/* The incremental reader: sniffing, split and growing input, unfinished
 * last lines, CRLF, unknown formats. Uses the grok format as the carrier. */
#include "tap.h"
#include "evsig.h"
#include "parser.h"

static const char doc[] =
	"{\"type\":\"thought\",\"data\":\"Read the reference.\"}\n"
	"\n"
	"{\"type\":\"thought\",\"data\":\" Tile by 128.\"}\r\n"
	"{\"type\":\"text\",\"data\":\"Wrote solution.py\"}\n"
	"{\"type\":\"end\",\"sessionId\":\"s1\",\"stopReason\":\"EndTurn\"}\n";

static struct run *feed_chunks(const char *s, size_t n, size_t chunk)
{
	struct run *r = run_new();
	struct reader *rd = reader_new(r, NULL);
	for (size_t i = 0; i < n; i += chunk)
		reader_feed(rd, s + i, n - i < chunk ? n - i : chunk);
	reader_finish(rd);
	reader_free(rd);
	return r;
}

int main(void)
{
	size_t n = strlen(doc);
	struct run *whole = feed_chunks(doc, n, n);
	char *want = evsig(whole);

	is_str(whole->meta.format, "grok", "format sniffed from content");
	is_int(whole->nev, 2, "deltas merged: one reasoning, one text");
	is_str(whole->ev[0].text, "Read the reference. Tile by 128.", "CRLF stripped, blank line skipped");
	is_int(whole->ev[1].line, 4, "events keep their source line");
	is_int(whole->incomplete, 0, "end record marks completion");
	is_str(whole->meta.session_id, "s1", "session id from the end record");

	size_t chunks[] = {1, 2, 3, 7, 64};
	for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
		struct run *r = feed_chunks(doc, n, chunks[i]);
		char *got = evsig(r);
		is_str(got, want, "split into %zu-byte pieces parses the same", chunks[i]);
		free(got);
		run_free(r);
	}

	/* growing file: half, finish (what a watcher does), the rest, finish */
	{
		struct run *r = run_new();
		struct reader *rd = reader_new(r, NULL);
		size_t half = n / 2;
		reader_feed(rd, doc, half);
		reader_finish(rd);
		is_int(r->incomplete, 1, "half a transcript is incomplete");
		is_int(r->malformed, 0, "an unfinished last line is not malformed");
		reader_feed(rd, doc + half, n - half);
		reader_finish(rd);
		char *got = evsig(r);
		is_str(got, want, "growing file ends as the whole file");
		is_int(reader_offset(rd), n, "offset covers every byte");
		free(got);
		reader_free(rd);
		run_free(r);
	}

	/* a watcher's finish lands exactly before a newline: line numbers stay right */
	{
		const char *a = "{\"type\":\"text\",\"data\":\"a\"}";
		const char *b = "\n{\"type\":\"thought\",\"data\":\"b\"}\n{\"type\":\"end\",\"sessionId\":\"x\"}\n";
		struct run *r = run_new();
		struct reader *rd = reader_new(r, NULL);
		reader_feed(rd, a, strlen(a));
		reader_finish(rd);
		is_int(r->nev, 1, "the unterminated whole line is taken at finish");
		reader_feed(rd, b, strlen(b));
		reader_finish(rd);
		is_int(r->nev, 2, "the rest follows");
		is_int(r->ev[1].line, 2, "its newline is not counted as another line");
		is_int(reader_offset(rd), strlen(a) + strlen(b), "offset counts every byte once");
		reader_free(rd);
		run_free(r);
	}
	/* last line without newline: parsed when whole JSON */
	{
		const char *s = "{\"type\":\"text\",\"data\":\"a\"}\n{\"type\":\"end\",\"sessionId\":\"x\"}";
		struct run *r = feed_chunks(s, strlen(s), 5);
		is_int(r->incomplete, 0, "a final line without newline still counts");
		run_free(r);
	}
	/* truncated last line: waits, marks incomplete */
	{
		const char *s = "{\"type\":\"text\",\"data\":\"a\"}\n{\"type\":\"end\",\"sessio";
		struct run *r = feed_chunks(s, strlen(s), 4);
		is_int(r->nev, 1, "the truncated line adds no event");
		is_int(r->incomplete, 1, "a truncated transcript is incomplete");
		is_int(r->malformed, 0, "and not malformed");
		run_free(r);
	}
	/* a malformed line in the middle is reported with its number */
	{
		const char *s = "{\"type\":\"text\",\"data\":\"a\"}\n{\"type\":\"text\",\"data\":\"b\"}\n"
		                "{oops\n{\"type\":\"end\",\"sessionId\":\"x\"}\n";
		struct run *r = feed_chunks(s, strlen(s), 3);
		is_int(r->malformed, 1, "one malformed line");
		is_int(r->errors[0].line, 3, "reported at line 3");
		has_str(r->errors[0].msg, "JSON", "message says what was wrong");
		is_int(r->incomplete, 0, "the rest still parsed to the end record");
		run_free(r);
	}
	/* nothing recognisable: every line reported, no crash, no format */
	{
		struct sbuf b;
		sbuf_init(&b);
		for (int i = 0; i < 10; i++)
			sbuf_adds(&b, "{\"foo\":1}\n");
		struct run *r = feed_chunks(b.s, b.len, 10);
		ok(r->meta.format == NULL, "no format chosen for unknown lines");
		ok(r->malformed >= 8, "unknown lines are reported (%d)", r->malformed);
		is_int(r->errors[0].line, 1, "from line 1");
		sbuf_free(&b);
		run_free(r);
	}
	/* an empty transcript is an empty run */
	{
		struct run *r = feed_chunks("", 0, 1);
		is_int(r->nev, 0, "empty input: no events");
		is_int(r->malformed, 0, "empty input: nothing malformed");
		run_free(r);
	}
	/* forcing a format bypasses the sniffer */
	{
		struct run *r = run_new();
		struct reader *rd = reader_new(r, parser_find("grok"));
		reader_feed(rd, doc, n);
		reader_finish(rd);
		ok(reader_format(rd) == parser_find("grok"), "forced format is used");
		is_int(r->nev, 2, "and parses");
		reader_free(rd);
		run_free(r);
	}
	ok(parser_find("nope") == NULL, "unknown format name is not found");
	ok(parser_sniff(doc, n) == parser_find("grok"), "parser_sniff on a buffer");

	free(want);
	run_free(whole);
	return tap_done();
}
