/* Claude Code parsers: stream-json ("claude") and session files
 * ("claude-session"): event mapping, usage counted once per message,
 * subagents, compaction, completion, malformed lines, sniffing, split and
 * growing input, and the real sample's claude runs. */
#include "tap.h"
#include "evsig.h"
#include "parser.h"
#include "jsonx.h"

#include <math.h>
#include "parsetest.h"

#define FULL "tests/fixtures/claude/stream_full.jsonl"
#define CUT "tests/fixtures/claude/stream_truncated.jsonl"
#define BAD "tests/fixtures/claude/stream_malformed.jsonl"
#define SESSION "tests/fixtures/claude/session.jsonl"

static struct run *load(const char *rel)
{
	char *err = NULL;
	struct run *r = parser_load_file(tap_path(rel), NULL, &err);
	if (!r) {
		printf("# %s\n", err ? err : "load failed");
		free(err);
		r = run_new();
	}
	return r;
}

static struct run *feed_chunks(const char *s, size_t n, size_t chunk, const struct parser_ops *ops)
{
	struct run *r = run_new();
	struct reader *rd = reader_new(r, ops);
	for (size_t i = 0; i < n; i += chunk)
		reader_feed(rd, s + i, n - i < chunk ? n - i : chunk);
	reader_finish(rd);
	reader_free(rd);
	return r;
}

static struct run *feed_str(const char *s, const char *format)
{
	return feed_chunks(s, strlen(s), strlen(s) + 1, format ? parser_find(format) : NULL);
}

static void is_kinds(const struct run *r, const char *want, const char *what)
{
	char *got = kinds(r);
	is_str(got, want, "%s: event kinds in order", what);
	free(got);
}

static const struct event none; /* stands in for a missing event */
#define EV(x) ((x) ? (x) : &none)

/* Split into 1-, 3- and 7-byte pieces and a growing file (half, finish,
 * rest, finish) must parse exactly like the whole file. */
static void check_split(const char *rel)
{
	size_t n = 0;
	char *buf = util_read_file(tap_path(rel), &n);
	struct run *whole;
	char *want;
	size_t chunks[] = {1, 3, 7};

	if (!buf) {
		ok(0, "%s readable", rel);
		return;
	}
	whole = feed_chunks(buf, n, n, NULL);
	want = evsig(whole);
	for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
		struct run *r = feed_chunks(buf, n, chunks[i], NULL);
		char *got = evsig(r);
		is_str(got, want, "%s: %zu-byte pieces parse as the whole file", rel, chunks[i]);
		free(got);
		run_free(r);
	}
	{
		struct run *r = run_new();
		struct reader *rd = reader_new(r, NULL);
		reader_feed(rd, buf, n / 2);
		reader_finish(rd);
		reader_feed(rd, buf + n / 2, n - n / 2);
		reader_finish(rd);
		reader_finish(rd); /* finish is idempotent */
		char *got = evsig(r);
		is_str(got, want, "%s: growing file ends as the whole file", rel);
		free(got);
		reader_free(rd);
		run_free(r);
	}
	free(want);
	run_free(whole);
	free(buf);
}

static void test_full(void)
{
	struct run *r = load(FULL);
	const struct event *e;
	long long in, out, cr, cw;

	is_str(r->meta.format, "claude", "full: sniffed as claude");
	is_int(r->malformed, 0, "full: no malformed line");
	is_int(r->incomplete, 0, "full: result line marks completion");
	is_kinds(r, "system reasoning usage tool_call tool_result reasoning usage reasoning tool_call "
	            "tool_result tool_call usage tool_result tool_call usage tool_result tool_call usage "
	            "system user tool_call usage tool_result text usage system tool_result compaction "
	            "error text usage system", "full");
	is_str(r->meta.model, "claude-opus-4-7", "full: model from init");
	is_str(r->meta.session_id, "sess-full-1", "full: session id from init");
	is_str(r->meta.cwd, "/work/proj", "full: cwd from init");

	e = EV(nth(r, EV_SYSTEM, 0));
	is_str(e->name, "init", "init: system event named init");
	has_str(e->text, "claude-opus-4-7", "init: summary names the model");
	has_str(e->text, "6 tools", "init: summary counts tools");

	e = EV(nth(r, EV_REASONING, 0));
	is_str(e->text, "Read the reference first.", "thinking text kept");
	is_int(e->redacted, 0, "visible thinking is not redacted");
	e = EV(nth(r, EV_REASONING, 1));
	is_int(e->redacted, 1, "redacted_thinking: redacted");
	is_str(e->text, "", "redacted_thinking: empty text");
	e = EV(nth(r, EV_REASONING, 2));
	is_int(e->redacted, 1, "empty thinking with signature: redacted");

	/* usage: one event per message id, the synthetic message adds none */
	is_int(run_count(r, EV_USAGE), 8, "usage: one per API message (8 messages with tokens)");
	run_tokens(r, &in, &out, &cr, &cw, NULL);
	is_int(out, 38, "usage: output tokens equal the result line's total");
	is_int(in, 29, "usage: input tokens");
	is_int(cr, 1254, "usage: cache read tokens");
	is_int(cw, 90, "usage: cache write tokens");
	e = EV(nth(r, EV_USAGE, 0));
	is_int(e->tok_in, 10, "usage of msg_A: input");
	is_int(e->tok_cache_write, 50, "usage of msg_A: cache creation");
	is_int(e->line, 2, "usage of msg_A: from its first line");

	/* Write, Edit, MultiEdit on one file: diffs against tracked content */
	e = EV(by_id(r, EV_TOOL_CALL, "toolu_1"));
	is_str(e->name, "Write", "Write call");
	is_str(e->path, "/work/proj/sol.py", "Write path");
	has_str(ev_diff(r, e), "+b = 2", "Write diff adds the content");
	has_str(e->args, "\"file_path\":\"/work/proj/sol.py\"", "Write args as JSON text");
	e = EV(by_id(r, EV_TOOL_CALL, "toolu_2"));
	is_str(e->path, "sol.py", "Edit path as given (relative)");
	has_str(ev_diff(r, e), "-b = 2", "Edit diff removes the old line");
	has_str(ev_diff(r, e), "+b = 20", "Edit diff adds the new line");
	has_str(ev_diff(r, e), " a = 1", "Edit diff has context from the written file (cwd-relative path joined)");
	e = EV(by_id(r, EV_TOOL_CALL, "toolu_3"));
	is_str(e->name, "MultiEdit", "MultiEdit call");
	has_str(ev_diff(r, e), "-a = 1", "MultiEdit diff: first edit old");
	has_str(ev_diff(r, e), "+a = 10", "MultiEdit diff: first edit new");
	has_str(ev_diff(r, e), "+c = 30", "MultiEdit diff: second edit new");
	has_str(ev_diff(r, e), " b = 20", "MultiEdit diff is against the content after the Edit");

	e = EV(by_id(r, EV_TOOL_RESULT, "toolu_2"));
	is_str(e->text, "The file sol.py has been updated.\n[image image/png]",
	       "tool_result array content: text and image placeholder");
	is_int(EV(by_id(r, EV_TOOL_RESULT, "toolu_4"))->is_error, 1, "tool_result is_error kept");
	is_int(EV(by_id(r, EV_TOOL_RESULT, "toolu_1"))->is_error, 0, "successful tool_result not an error");
	ok(results_linked(r), "full: every tool_result linked to its call");
	is_int(EV(by_id(r, EV_TOOL_CALL, "toolu_5"))->link,
	       (int)(by_id(r, EV_TOOL_RESULT, "toolu_5") - r->ev), "Agent call linked to its result");

	/* subagent */
	e = EV(nth(r, EV_SYSTEM, 1));
	is_str(e->name, "task_started", "task_started system event");
	is_str(e->text, "Explore tests", "task_started text is the description");
	is_str(e->call_id, "toolu_5", "task_started names its tool call");
	e = EV(nth(r, EV_SYSTEM, 2));
	is_str(e->name, "task_notification", "task_notification system event");
	is_str(e->text, "Explore tests finished", "task_notification text is the summary");
	e = EV(nth(r, EV_USER, 0));
	is_str(e->text, "Find the tests", "subagent prompt is a user event");
	is_int(e->sidechain, 1, "subagent prompt on the sidechain");
	is_str(e->parent, "toolu_5", "subagent prompt's parent is the Agent call");
	e = EV(by_id(r, EV_TOOL_CALL, "toolu_s1"));
	is_int(e->sidechain, 1, "subagent tool call on the sidechain");
	is_str(e->parent, "toolu_5", "subagent tool call parent");
	is_int(EV(nth(r, EV_USAGE, 5))->sidechain, 1, "subagent usage on the sidechain");
	e = EV(by_id(r, EV_TOOL_CALL, "toolu_5"));
	is_int(e->sidechain, 0, "Agent call itself on the main chain");
	ok(e->parent == NULL, "main-chain events have no parent");

	/* compaction: the summary is the compaction's text, not a user turn */
	e = EV(nth(r, EV_COMPACTION, 0));
	is_str(e->name, "auto", "compaction trigger");
	has_str(e->text, "This session is being continued", "compaction text is the summary");
	has_str(e->text, "found test_a.py", "whole summary kept");
	is_int(run_count(r, EV_USER), 1, "summary is not a user event");

	e = EV(nth(r, EV_ERROR, 0));
	is_str(e->text, "API Error: 500 Internal server error", "synthetic API error text");
	is_int(e->is_error, 1, "synthetic API error is an error");
	is_int(run_count(r, EV_TEXT), 2, "API error is not a text event");

	e = EV(nth(r, EV_TEXT, 1));
	is_str(e->text, "Done: sol.py written.", "final text");
	ok(fabs(e->ts - 1777629630.5) < 1e-3, "timestamp from the line (%.3f)", e->ts);
	ok(EV(nth(r, EV_TEXT, 0))->ts == 0, "no timestamp: ts 0");
	e = &r->ev[r->nev - 1];
	is_int(e->kind, EV_SYSTEM, "result is a system event");
	is_str(e->name, "result", "named result");
	is_str(e->text, "Done: sol.py written.", "result text");
	run_free(r);
}

static void test_truncated(void)
{
	struct run *r = load(CUT);
	long long out;
	is_str(r->meta.format, "claude", "truncated: sniffed as claude");
	is_int(r->incomplete, 1, "truncated: no result line, incomplete");
	is_int(r->malformed, 0, "truncated: nothing malformed");
	is_kinds(r, "system text usage tool_call tool_result tool_call usage", "truncated");
	is_int(EV(by_id(r, EV_TOOL_CALL, "toolu_t2"))->link, -1, "truncated: last call unanswered");
	run_tokens(r, NULL, &out, NULL, NULL, NULL);
	is_int(out, 11, "truncated: usage once per message (8 + 3)");
	run_free(r);
}

static void test_malformed(void)
{
	struct run *r = load(BAD);
	is_str(r->meta.format, "claude", "malformed: still sniffed as claude");
	is_int(r->malformed, 2, "malformed: two bad lines");
	is_int(r->nerrors, 2, "malformed: two errors recorded");
	is_int(r->errors[0].line, 3, "assistant without message reported at line 3");
	has_str(r->errors[0].msg, "message", "message names the missing field");
	is_int(r->errors[1].line, 5, "cut JSON reported at line 5");
	has_str(r->errors[1].msg, "JSON", "message says it is not JSON");
	is_int(r->incomplete, 0, "malformed: later result line still seen");
	is_kinds(r, "system text usage text usage error", "malformed");
	const struct event *e = &r->ev[r->nev - 1];
	is_str(e->text, "API Error: 400 Network error", "error result: text");
	is_int(e->is_error, 1, "error result: is_error");
	is_str(e->name, "result", "error result with subtype success: named result");
	is_int(run_count(r, EV_USAGE), 2, "result line adds no usage");
	is_int(EV(nth(r, EV_TEXT, 1))->line, 4, "events after a bad line keep their line numbers");
	run_free(r);
}

static void test_session(void)
{
	struct run *r = load(SESSION);
	const struct event *e;
	long long out;

	is_str(r->meta.format, "claude-session", "session: sniffed as claude-session");
	is_int(r->malformed, 0, "session: no malformed line");
	is_kinds(r, "compaction user reasoning usage tool_call tool_result text usage compaction "
	            "system system tool_call usage", "session");
	is_int(r->incomplete, 1, "session: last assistant tool_use without result is incomplete");
	is_str(r->meta.session_id, "sess-file-1", "session: sessionId");
	is_str(r->meta.cwd, "/work/proj", "session: cwd");
	is_str(r->meta.model, "claude-sonnet-4-5", "session: model from the first message");

	e = EV(nth(r, EV_COMPACTION, 0));
	is_str(e->text, "Write sol.py for the FP8 GEMM", "summary line: compaction text");
	is_str(e->name, "summary", "summary line: named summary");
	e = EV(nth(r, EV_USER, 0));
	is_str(e->text, "Write sol.py please", "string user content");
	ok(fabs(e->ts - 1777629600.0) < 1e-3, "ISO timestamp parsed (%.3f)", e->ts);
	is_int(e->line, 3, "user event line");
	is_int(run_count(r, EV_USAGE), 3, "session: usage once per message id");
	run_tokens(r, NULL, &out, NULL, NULL, NULL);
	is_int(out, 22, "session: output tokens 11 + 4 + 7");

	e = EV(by_id(r, EV_TOOL_CALL, "toolu_a"));
	is_str(e->path, "sol.py", "session Write path");
	has_str(ev_diff(r, e), "+x = 1", "session Write diff");
	e = EV(by_id(r, EV_TOOL_CALL, "toolu_b"));
	has_str(ev_diff(r, e), "-x = 1", "session Edit diff against the relative Write (cwd joined)");
	has_str(ev_diff(r, e), "+x = 2", "session Edit diff new text");
	is_int(e->link, -1, "session: last call unanswered");
	ok(results_linked(r), "session: results linked");

	e = EV(nth(r, EV_TEXT, 0));
	is_int(e->sidechain, 1, "isSidechain -> sidechain");
	is_int(EV(nth(r, EV_USAGE, 1))->sidechain, 1, "sidechain usage");
	is_int(EV(nth(r, EV_TOOL_CALL, 0))->sidechain, 0, "main chain call");

	e = EV(nth(r, EV_COMPACTION, 1));
	is_str(e->name, "manual", "compact_boundary trigger");
	has_str(e->text, "sol.py holds x = 1", "isCompactSummary text replaces the boundary text");
	is_int(e->line, 8, "compaction at the boundary's line");
	e = EV(nth(r, EV_SYSTEM, 0));
	is_str(e->name, "meta", "isMeta user line is a meta system event");
	has_str(e->text, "Caveat", "meta text");
	e = EV(nth(r, EV_SYSTEM, 1));
	is_str(e->name, "local_command", "system line named by subtype");
	is_str(e->text, "<command-name>/cost</command-name>", "system content");
	run_free(r);

	/* the same file cut before its last assistant message is complete */
	{
		size_t n = 0;
		char *buf = util_read_file(tap_path(SESSION), &n);
		char *last = buf ? strstr(buf, "\"msg_03\"") : NULL;
		while (last && last > buf && last[-1] != '\n')
			last--;
		if (last) {
			struct run *h = feed_chunks(buf, (size_t)(last - buf), 5, NULL);
			is_int(h->incomplete, 0, "session without a pending tool_use is complete");
			is_int(h->nev, 11, "session prefix events");
			run_free(h);
		} else {
			ok(0, "session fixture has msg_03");
		}
		free(buf);
	}
}

/* Interleaved and growing usage, completion after more turns, hostile
 * input: wrong types, missing keys, invalid UTF-8. */
static void test_inline(void)
{
	struct run *r;
	long long out;

	r = feed_str(
		"{\"type\":\"assistant\",\"message\":{\"id\":\"A\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}],"
		"\"usage\":{\"input_tokens\":1,\"output_tokens\":3}},\"parent_tool_use_id\":null,\"session_id\":\"s\"}\n"
		"{\"type\":\"assistant\",\"message\":{\"id\":\"B\",\"content\":[{\"type\":\"text\",\"text\":\"b\"}],"
		"\"usage\":{\"input_tokens\":1,\"output_tokens\":4}},\"parent_tool_use_id\":\"toolu_p\",\"session_id\":\"s\"}\n"
		"{\"type\":\"assistant\",\"message\":{\"id\":\"A\",\"content\":[{\"type\":\"text\",\"text\":\"a2\"}],"
		"\"usage\":{\"input_tokens\":1,\"output_tokens\":5}},\"parent_tool_use_id\":null,\"session_id\":\"s\"}\n"
		"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"ok\",\"session_id\":\"s\","
		"\"usage\":{\"output_tokens\":9}}\n"
		"{\"type\":\"assistant\",\"message\":{\"id\":\"C\",\"content\":[{\"type\":\"text\",\"text\":\"more\"}],"
		"\"usage\":{\"input_tokens\":1,\"output_tokens\":1}},\"parent_tool_use_id\":null,\"session_id\":\"s\"}\n",
		NULL);
	is_str(r->meta.format, "claude", "inline: sniffed without an init line");
	is_int(run_count(r, EV_USAGE), 3, "interleaved message ids: one usage each");
	run_tokens(r, NULL, &out, NULL, NULL, NULL);
	is_int(out, 5 + 4 + 1, "a message whose usage grows keeps the larger count");
	is_int(r->incomplete, 1, "turns after a result line: incomplete again");
	run_free(r);

	/* a task notification that kept only its task id says what it is */
	r = feed_str("{\"type\":\"system\",\"subtype\":\"task_started\",\"task_id\":\"461a5d2\","
	             "\"tool_use_id\":\"toolu_1\",\"session_id\":\"s\"}\n"
	             "{\"type\":\"system\",\"subtype\":\"task_notification\",\"task_id\":\"461a5d2\","
	             "\"tool_use_id\":\"toolu_1\",\"session_id\":\"s\"}\n"
	             "{\"type\":\"system\",\"subtype\":\"task_notification\",\"task_id\":\"9\",\"status\":\"failed\","
	             "\"session_id\":\"s\"}\n", "claude");
	is_str(EV(nth(r, EV_SYSTEM, 0))->text, "task 461a5d2 started", "task_started without a description");
	is_str(EV(nth(r, EV_SYSTEM, 1))->text, "task 461a5d2 ended", "task_notification without a summary");
	is_str(EV(nth(r, EV_SYSTEM, 2))->text, "task 9 failed", "task_notification with a status only");
	run_free(r);

	r = feed_str("{\"type\":\"result\",\"subtype\":\"error_max_turns\",\"is_error\":true,"
	             "\"session_id\":\"s\",\"usage\":{\"output_tokens\":1}}\n", "claude");
	is_kinds(r, "error", "error result");
	is_str(EV(nth(r, EV_ERROR, 0))->name, "error_max_turns", "error result named by subtype");
	is_str(EV(nth(r, EV_ERROR, 0))->text, "error_max_turns", "error result without text: subtype");
	is_int(r->incomplete, 0, "an error result still completes the run");
	run_free(r);

	r = feed_str(
		"{\"type\":\"assistant\",\"message\":{\"id\":7,\"content\":[42,{\"type\":null},"
		"{\"type\":\"tool_use\",\"id\":5,\"name\":[\"x\"],\"input\":\"str\"}],\"usage\":\"x\"},"
		"\"session_id\":\"s\",\"parent_tool_use_id\":12}\n"
		"{\"type\":\"user\",\"message\":{\"content\":42},\"session_id\":\"s\"}\n"
		"{\"type\":\"user\",\"message\":{\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t\","
		"\"content\":{\"weird\":true},\"is_error\":\"yes\"}]},\"session_id\":\"s\"}\n"
		"[1,2]\n"
		"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\xfe bytes\"}]},"
		"\"session_id\":\"s\"}\n"
		"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"thinking\"},{\"type\":\"future_block\"}]},"
		"\"session_id\":\"s\"}\n"
		"{\"type\":\"control_ping\",\"session_id\":\"s\"}\n",
		"claude");
	is_int(r->malformed, 3, "hostile: three malformed lines");
	is_int(r->errors[0].line, 1, "wrong-typed blocks reported at line 1");
	has_str(r->errors[0].msg, "type", "block without type named");
	is_int(r->errors[1].line, 2, "non-text user content at line 2");
	has_str(r->errors[1].msg, "content", "names content");
	is_int(r->errors[2].line, 4, "an array line is not a claude record");
	const struct event *e = EV(nth(r, EV_TOOL_CALL, 0));
	is_str(e->name, "", "tool_use with non-string name: empty name");
	ok(e->call_id == NULL, "tool_use with numeric id: no id");
	is_str(e->args, "\"str\"", "non-object input kept as JSON text");
	is_int(e->sidechain, 0, "non-string parent_tool_use_id is not a subagent");
	e = EV(nth(r, EV_TOOL_RESULT, 0));
	is_str(e->text, "{\"weird\":true}", "object tool content kept as JSON text");
	is_int(e->is_error, 0, "non-boolean is_error is false");
	is_str(EV(nth(r, EV_TEXT, 0))->text, "bad \xff\xfe bytes", "invalid UTF-8 stored as-is");
	is_int(EV(nth(r, EV_REASONING, 0))->redacted, 1, "thinking without text: redacted");
	is_str(EV(nth(r, EV_SYSTEM, 0))->name, "future_block", "unknown block kept visible by type");
	is_str(EV(nth(r, EV_SYSTEM, 1))->name, "control_ping", "unknown record kept visible by type");
	is_int(run_count(r, EV_USAGE), 0, "non-object usage ignored");
	run_free(r);

	/* absurd token counts are clamped; a boundary without summary keeps
	 * its own text */
	r = feed_str("{\"type\":\"assistant\",\"message\":{\"id\":\"m\",\"content\":[],"
	             "\"usage\":{\"output_tokens\":1e300,\"input_tokens\":-5,\"cache_read_input_tokens\":2.9}},"
	             "\"session_id\":\"s\",\"parent_tool_use_id\":null}\n"
	             "{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"session_id\":\"s\","
	             "\"compact_metadata\":{\"trigger\":\"manual\",\"pre_tokens\":150000}}\n", "claude");
	e = EV(nth(r, EV_USAGE, 0));
	is_int(e->tok_out, 1000000000000000LL, "huge output_tokens clamped");
	is_int(e->tok_in, 0, "negative input_tokens read as 0");
	is_int(e->tok_cache_read, 2, "fractional tokens truncated");
	is_str(EV(nth(r, EV_COMPACTION, 0))->text, "compacted at 150000 tokens", "boundary text from its metadata");
	is_str(EV(nth(r, EV_COMPACTION, 0))->name, "manual", "boundary trigger");
	run_free(r);

	/* a summary without its boundary still becomes a compaction */
	r = feed_str("{\"parentUuid\":null,\"isSidechain\":false,\"sessionId\":\"x\",\"type\":\"user\","
	             "\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
	             "\"This session is being continued from before.\"}]},\"uuid\":\"u\"}\n"
	             "{\"parentUuid\":\"u\",\"isSidechain\":false,\"sessionId\":\"x\",\"type\":\"queue-operation\"}\n",
	             NULL);
	is_str(r->meta.format, "claude-session", "session record sniffed");
	is_kinds(r, "compaction", "lone summary");
	is_int(r->malformed, 0, "bookkeeping records are not malformed");
	is_int(r->incomplete, 0, "no pending tool call: complete");
	run_free(r);
}

static int sniff(const char *format, const char *line)
{
	const struct parser_ops *ops = parser_find(format);
	cJSON *obj = jx_parse(line, strlen(line));
	int s = ops && obj ? ops->sniff(line, strlen(line), obj) : -1;
	cJSON_Delete(obj);
	return s;
}

static void test_sniff(void)
{
	static const char *const foreign[] = {
		/* droid */
		"{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/tmp/x\",\"session_id\":\"s\",\"tools\":[\"a\"],"
		"\"model\":\"m\",\"reasoning_effort\":\"none\"}",
		"{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/tmp/x\",\"session_id\":\"s\",\"tools\":[\"a\"],"
		"\"mcp_servers\":[],\"model\":\"m\",\"reasoning_effort\":\"high\"}",
		"{\"type\":\"message\",\"role\":\"assistant\",\"id\":\"x\",\"text\":\"hi\",\"session_id\":\"s\"}",
		/* cursor */
		"{\"type\":\"system\",\"subtype\":\"init\",\"apiKeySource\":\"login\",\"cwd\":\"/x\",\"session_id\":\"s\","
		"\"model\":\"Claude 4 Sonnet\",\"permissionMode\":\"default\"}",
		"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},"
		"\"session_id\":\"s\"}",
		"{\"type\":\"assistant\",\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"ok\"}]},"
		"\"session_id\":\"s\"}",
		"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"c1\",\"tool_call\":{\"readToolCall\":"
		"{\"args\":{\"path\":\"a\"}}},\"session_id\":\"s\"}",
		"{\"type\":\"result\",\"subtype\":\"success\",\"duration_ms\":10,\"duration_api_ms\":10,\"is_error\":false,"
		"\"result\":\"ok\",\"session_id\":\"s\",\"request_id\":\"r\"}",
		/* codex, opencode, kimi, grok */
		"{\"type\":\"session_meta\",\"payload\":{\"cwd\":\"/x\"}}",
		"{\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\",\"turn_id\":\"t\"}}",
		"{\"type\":\"step_start\",\"sessionID\":\"ses_1\",\"part\":{\"id\":\"p\",\"type\":\"step-start\"}}",
		"{\"type\":\"tool_use\",\"sessionID\":\"ses_1\",\"part\":{\"callID\":\"c\",\"tool\":\"bash\"}}",
		"{\"role\":\"assistant\",\"content\":[{\"type\":\"think\",\"think\":\"x\"}]}",
		"{\"role\":\"tool\",\"content\":[{\"type\":\"text\",\"text\":\"x\"}],\"tool_call_id\":\"t\"}",
		"{\"type\":\"end\",\"sessionId\":\"s\",\"stopReason\":\"EndTurn\"}",
		"{\"type\":\"text\",\"data\":\"hello\"}",
		NULL,
	};
	for (int i = 0; foreign[i]; i++) {
		is_int(sniff("claude", foreign[i]), 0, "claude sniff: foreign line %d scores 0", i);
		is_int(sniff("claude-session", foreign[i]), 0, "claude-session sniff: foreign line %d scores 0", i);
	}

	const char *init = "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"s\","
	                   "\"tools\":[\"Bash\"],\"mcp_servers\":[],\"model\":\"m\",\"permissionMode\":\"default\","
	                   "\"apiKeySource\":\"none\"}";
	const char *asst = "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_1\",\"content\":[],"
	                   "\"usage\":{\"output_tokens\":1}},\"parent_tool_use_id\":null,\"session_id\":\"s\"}";
	const char *sess = "{\"parentUuid\":null,\"isSidechain\":false,\"sessionId\":\"s\",\"type\":\"assistant\","
	                   "\"message\":{\"id\":\"msg_1\",\"content\":[],\"usage\":{\"output_tokens\":1}},"
	                   "\"uuid\":\"u\",\"timestamp\":\"2026-01-01T00:00:00Z\"}";
	int s = sniff("claude", init);
	ok(s > 0 && s <= 50, "claude init alone scores moderately (%d)", s);
	ok(sniff("claude", asst) >= 70, "assistant with message id and usage scores high");
	is_int(sniff("claude-session", init), 0, "stream init is not a session record");
	is_int(sniff("claude-session", asst), 0, "stream assistant is not a session record");
	ok(sniff("claude-session", sess) >= 70, "session record with parentUuid scores high");
	is_int(sniff("claude", sess), 0, "session record scores 0 for stream-json");
	is_int(sniff("claude", "{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"u\"}"), 0,
	       "summary line scores 0 for stream-json");
	ok(sniff("claude-session", "{\"type\":\"summary\",\"summary\":\"x\",\"leafUuid\":\"u\"}") > 0,
	   "summary line scores for claude-session");
}

/* ---- the real sample ---------------------------------------------------- */

/* output_tokens of the last result line, -1 when the run has none. */
static long long result_output(const char *path)
{
	size_t n = 0;
	char *buf = util_read_file(path, &n);
	long long out = -1;
	const char *p = buf, *end = buf + n;
	while (buf && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (len > 16 && memcmp(p, "{\"type\":\"result\"", 16) == 0) {
			cJSON *o = jx_parse(p, len);
			out = jx_ll(jx_get(o, "usage"), "output_tokens", -1);
			cJSON_Delete(o);
		}
		p = nl ? nl + 1 : end;
	}
	free(buf);
	return out;
}

/* Every line of a foreign-format run scores 0 for both claude sniffers. */
static int foreign_zero(const char *path, int *lines)
{
	size_t n = 0;
	char *buf = util_read_file(path, &n);
	const char *p = buf, *end = buf + n;
	const struct parser_ops *cl = parser_find("claude"), *cs = parser_find("claude-session");
	int bad = 0;
	while (buf && p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		cJSON *o = jx_parse(p, len);
		if (o) {
			bad += cl->sniff(p, len, o) != 0;
			bad += cs->sniff(p, len, o) != 0;
			(*lines)++;
		}
		cJSON_Delete(o);
		p = nl ? nl + 1 : end;
	}
	free(buf);
	return bad;
}

static void test_corpus(void)
{
	const char *kbh = tap_shared_kbh();
	char *index, *p;
	size_t n = 0;
	int runs = 0, foreign_runs = 0, foreign_lines = 0, foreign_bad = 0, session_bad = 0;

	if (!kbh) {
		tap_skip("no ../shared/kbh: corpus check skipped");
		return;
	}
	{
		char *ip = util_path_join(kbh, "runs.jsonl");
		index = util_read_file(ip, &n);
		free(ip);
	}
	if (!index) {
		ok(0, "runs.jsonl readable");
		return;
	}
	for (p = index; p && *p;) {
		char *nl = strchr(p, '\n');
		cJSON *o = jx_parse(p, nl ? (size_t)(nl - p) : strlen(p));
		const char *format = jx_str(o, "format"), *rel = jx_str(o, "transcript");
		const char *id = jx_str(o, "run_id");
		p = nl ? nl + 1 : NULL;
		if (!format || !rel || !id) {
			cJSON_Delete(o);
			continue;
		}
		char *path = util_path_join(kbh, rel);
		if (strcmp(format, "claude") != 0) {
			foreign_bad += foreign_zero(path, &foreign_lines);
			foreign_runs++;
			free(path);
			cJSON_Delete(o);
			continue;
		}
		char *err = NULL;
		struct run *r = parser_load_file(path, NULL, &err);
		if (!r) {
			ok(0, "%s loads: %s", id, err ? err : "?");
			free(err);
			free(path);
			cJSON_Delete(o);
			continue;
		}
		long long out, res = result_output(path);
		run_tokens(r, NULL, &out, NULL, NULL, NULL);
		is_str(r->meta.format, "claude", "%s: sniffed as claude", id);
		is_int(r->malformed, 0, "%s: no malformed line", id);
		ok(results_linked(r), "%s: every tool_result linked", id);
		is_int(r->incomplete, res < 0, "%s: incomplete exactly when no result line", id);
		if (res >= 0)
			ok(out >= res - 16 && out <= res + 16, "%s: usage output %lld is the result's total %lld", id, out, res);
		{
			/* claude's own lines never look like session records */
			size_t m = 0;
			char *buf = util_read_file(path, &m);
			const char *q = buf, *end = buf + m;
			while (buf && q < end) {
				const char *e = memchr(q, '\n', (size_t)(end - q));
				size_t len = e ? (size_t)(e - q) : (size_t)(end - q);
				cJSON *x = jx_parse(q, len);
				if (x)
					session_bad += parser_find("claude-session")->sniff(q, len, x) != 0;
				cJSON_Delete(x);
				q = e ? e + 1 : end;
			}
			free(buf);
		}
		printf("# %s: %zu events, %zu tool calls, %zu usage, output %lld, result %lld, %s\n", id,
		       r->nev, run_count(r, EV_TOOL_CALL), run_count(r, EV_USAGE), out, res,
		       r->incomplete ? "incomplete" : "complete");
		runs++;
		run_free(r);
		free(path);
		cJSON_Delete(o);
	}
	free(index);
	is_int(runs, 33, "all 33 claude runs of the sample checked");
	is_int(session_bad, 0, "no claude stream line scores for claude-session");
	ok(foreign_runs > 0, "foreign runs checked (%d runs, %d lines)", foreign_runs, foreign_lines);
	is_int(foreign_bad, 0, "no line of another format scores for either claude sniffer");
}

/* Turns: a model turn begins at reasoning/text/tool_call after anything
 * else; usage and subagent events neither begin nor break one. */
static void test_turns(void)
{
	static const enum ev_kind k[] = { EV_SYSTEM, EV_USER, EV_REASONING, EV_USAGE, EV_TOOL_CALL,
	                                  EV_TOOL_RESULT, EV_TEXT, EV_TOOL_CALL, EV_TOOL_CALL, EV_TOOL_RESULT,
	                                  EV_TOOL_RESULT, EV_REASONING, EV_TEXT };
	static const int side[] = { 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0 };
	static const int want[] = { 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 };
	struct run *r = run_new();
	char got[32] = "", exp[32] = "";
	for (size_t i = 0; i < sizeof k / sizeof *k; i++)
		run_add(r, k[i], (int)i + 1)->sidechain = side[i] & 1;
	for (size_t i = 0; i < r->nev; i++) {
		got[i] = (char)('0' + run_turn_starts(r, i));
		exp[i] = (char)('0' + want[i]);
	}
	is_str(got, exp, "turns: begin after user/tool results, not after usage or a subagent's events");
	is_int(run_turns(r), 3, "turns: three in all");
	run_free(r);
}

/* ---- real transcripts and the records issue 15 names --------------------- */

#define AGENT_PROGRESS "tests/fixtures/claude/session_agent_progress.jsonl"

/* A subagent's messages in a session file (progress/agent_progress) nest
 * under their Task call as stream-json's do; bookkeeping makes no rows. */
static void test_agent_progress(void)
{
	struct run *r = load(AGENT_PROGRESS);
	is_str(r->meta.format, "claude-session", "agent_progress file: a session file");
	is_int(run_count(r, EV_TOOL_CALL), 2, "the Task call and the Bash call the subagent ran, "
	       "once though a progress record repeats its message");
	const struct event *bash = by_id(r, EV_TOOL_CALL, "toolu_sub_bash");
	ok(bash && bash->sidechain, "the subagent's call is a sidechain event");
	is_str(bash ? bash->parent : NULL, "toolu_task", "nested under the Task call");
	const struct event *res = by_id(r, EV_TOOL_RESULT, "toolu_sub_bash");
	ok(res && res->sidechain && res->link >= 0 && r->ev[res->link].call_id &&
	   !strcmp(r->ev[res->link].call_id, "toolu_sub_bash"), "its result is linked, in the sidechain");
	const struct event *sub_text = nth(r, EV_TEXT, 0);
	is_str(sub_text ? sub_text->text : NULL, "It is /w/solution.py.", "the subagent's answer is a text event");
	ok(sub_text && sub_text->sidechain, "in the sidechain");
	ok(results_linked(r), "every result linked");
	is_int(r->incomplete, 0, "every call answered: complete");
	/* turn_duration: a compact row; api_error: one readable row */
	const struct event *td = NULL, *ae = NULL;
	for (size_t i = 0; i < r->nev; i++) {
		if (r->ev[i].name && !strcmp(r->ev[i].name, "turn_duration"))
			td = &r->ev[i];
		if (r->ev[i].name && !strcmp(r->ev[i].name, "api_error"))
			ae = &r->ev[i];
	}
	is_str(td ? td->text : NULL, "turn took 6.1 s (7 messages)", "turn_duration is a compact row");
	is_str(ae ? ae->text : NULL, "529 overloaded, retry 3/10", "api_error is one readable row");
	ok(ae && ae->kind == EV_ERROR && ae->is_error, "an error row");
	/* the whitespace-only text block before "Found it." makes no row */
	is_int(run_count(r, EV_TEXT), 2, "whitespace-only text blocks are not rows");
	is_str(nth(r, EV_TEXT, 1) ? nth(r, EV_TEXT, 1)->text : NULL, "Found it.", "the real text stays");
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_SYSTEM && (!r->ev[i].text || !*r->ev[i].text))
			ok(0, "no empty system row (line %d)", r->ev[i].line);
	/* usage: the subagent's messages count once each */
	long long in, out;
	run_tokens(r, &in, &out, NULL, NULL, NULL);
	is_int(out, 50 + 20 + 9 + 4, "output tokens of main and subagent messages");
	is_int(r->tokens_approx, 0, "2.1.63 records whole figures: not approximate");
	run_free(r);
}

/* Real session files: bookkeeping records are quiet; stop hooks that ran
 * cleanly make no row; turn_duration a compact one. */
static void test_real_bookkeeping(void)
{
	struct run *r = load("tests/realworld/as-claude-small.jsonl");
	int stop = 0, empty = 0, raw = 0;
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		stop += e->name && !strcmp(e->name, "stop_hook_summary");
		empty += e->kind == EV_SYSTEM && (!e->text || !*e->text);
		raw += e->name && !strcmp(e->name, "api_error") && e->text && e->text[0] == '{';
	}
	is_int(stop, 0, "as-claude-small: stop hooks without errors make no row");
	is_int(empty, 0, "as-claude-small: no empty system row");
	is_int(raw, 0, "as-claude-small: no api_error shown as raw JSON");
	const struct event *se = NULL;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].name && !strcmp(r->ev[i].name, "error"))
			se = &r->ev[i];
	ok(se && se->kind == EV_ERROR && util_starts_with(se->text, "429 "),
	   "as-claude-small: a system error record with an HTTP status is an error row that names it (%s)",
	   se ? se->text : "none");
	run_free(r);
	r = load("tests/realworld/as-claude-schema-drift.jsonl");
	const struct event *td = NULL;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].name && !strcmp(r->ev[i].name, "turn_duration"))
			td = &r->ev[i];
	is_str(td ? td->text : NULL, "turn took 1.2 s (5 messages)", "as-claude-schema-drift: turn_duration row");
	run_free(r);
	/* a hook that failed is said */
	r = feed_str("{\"parentUuid\":null,\"sessionId\":\"s\",\"type\":\"system\",\"subtype\":\"stop_hook_summary\","
	             "\"hookCount\":1,\"hookErrors\":[\"lint failed\"],\"preventedContinuation\":false}\n",
	             "claude-session");
	is_str(r->nev ? r->ev[0].text : NULL, "stop hook failed: lint failed", "a failed stop hook is an error row");
	run_free(r);
}

/* Claude Code 2.0.76 to 2.1.37 wrote stream-start output counts: the
 * run's totals are marked approximate; real 2.0.14 files are not. */
static void test_token_rules(void)
{
	struct run *r = feed_str("{\"parentUuid\":null,\"sessionId\":\"s\",\"version\":\"2.1.3\",\"type\":\"assistant\","
	                         "\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":[{\"type\":\"text\","
	                         "\"text\":\"hi\"}],\"usage\":{\"input_tokens\":3,\"output_tokens\":2}}}\n",
	                         "claude-session");
	is_int(r->tokens_approx, 1, "a 2.1.3 session file's tokens are approximate");
	run_free(r);
	r = load("tests/realworld/acmd-claude-2.0.14.jsonl");
	is_int(r->tokens_approx, 0, "a real 2.0.14 session file's are not");
	run_free(r);
	/* several result lines (one per turn) are not one cumulative total */
	const char *two =
		"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"model\":\"m\",\"tools\":[],\"mcp_servers\":[]}\n"
		"{\"type\":\"assistant\",\"session_id\":\"s\",\"parent_tool_use_id\":null,\"message\":{\"id\":\"m1\","
		"\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}],\"usage\":{\"input_tokens\":1,"
		"\"output_tokens\":3}}}\n"
		"{\"type\":\"result\",\"subtype\":\"success\",\"session_id\":\"s\",\"result\":\"a\",\"total_cost_usd\":0.1,"
		"\"usage\":{\"input_tokens\":1,\"output_tokens\":300}}\n"
		"{\"type\":\"assistant\",\"session_id\":\"s\",\"parent_tool_use_id\":null,\"message\":{\"id\":\"m2\","
		"\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"b\"}],\"usage\":{\"input_tokens\":1,"
		"\"output_tokens\":2,\"output_tokens_details\":{\"thinking_tokens\":40}}}}\n"
		"{\"type\":\"result\",\"subtype\":\"success\",\"session_id\":\"s\",\"result\":\"b\",\"total_cost_usd\":0.1,"
		"\"usage\":{\"input_tokens\":1,\"output_tokens\":432}}\n";
	r = feed_str(two, "claude");
	long long out, reasoning;
	run_tokens(r, NULL, &out, NULL, NULL, &reasoning);
	is_int(out, 732, "two turns' results add up (300 + 432), not the last one alone");
	is_int(reasoning, 40, "thinking tokens (output_tokens_details.thinking_tokens) are counted");
	run_free(r);
}

int main(void)
{
	test_turns();
	test_full();
	test_truncated();
	test_malformed();
	test_session();
	test_inline();
	test_sniff();
	check_split(FULL);
	check_split(CUT);
	check_split(BAD);
	check_split(SESSION);
	test_corpus();
	test_agent_progress();
	test_real_bookkeeping();
	test_token_rules();
	return tap_done();
}
