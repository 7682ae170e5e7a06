/* The droid, kimi, cursor, grok and gemini parsers: event mapping, file diffs,
 * completion rules, malformed lines, sniffing (each scores 0 on every other
 * format, in the fixtures and in the real sample), split and growing input,
 * and the real sample's droid, kimi and grok runs. */
#include "tap.h"
#include "evsig.h"
#include "parser.h"
#include "dataset.h"
#include "jsonx.h"

#include <math.h>

static const char *const formats[] = {"droid", "kimi", "cursor", "grok", "gemini", NULL};
static const char *const fixtures[] = {"full", "malformed", "incomplete", NULL};

static char *fixture(const char *fmt, const char *name)
{
	return xasprintf("tests/fixtures/%s/%s.jsonl", fmt, name);
}

static struct run *load(const char *fmt, const char *name)
{
	char *rel = fixture(fmt, name), *err = NULL;
	struct run *r = parser_load_file(tap_path(rel), NULL, &err);
	if (!r) {
		printf("# %s: %s\n", rel, err ? err : "load failed");
		free(err);
		r = run_new();
	}
	free(rel);
	return r;
}

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

/* The kinds of a run's events, space separated, for order checks. */
static void is_kinds(const struct run *r, const char *want, const char *what)
{
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < r->nev; i++)
		sbuf_addf(&b, "%s%s", i ? " " : "", ev_kind_name(r->ev[i].kind));
	is_str(b.s ? b.s : "", want, "%s: event kinds in order", what);
	sbuf_free(&b);
}

static const struct event none; /* stands in for a missing event */

static const struct event *ev(const struct run *r, size_t i)
{
	return i < r->nev ? &r->ev[i] : &none;
}

static int ts_is(double got, double want)
{
	return fabs(got - want) < 1e-3;
}

/* Each fixture parses the same whole, in 1, 3 and 7 byte pieces, and fed
 * as a growing file (half, finish, rest, finish). */
static void check_streaming(const char *fmt, const char *name)
{
	char *rel = fixture(fmt, name);
	size_t n = 0;
	char *buf = util_read_file(tap_path(rel), &n);
	struct run *whole = load(fmt, name);
	char *want = evsig(whole);
	size_t chunks[] = {1, 3, 7};

	ok(buf != NULL && whole->nev > 0, "%s: fixture reads and has events", rel);
	for (size_t i = 0; buf && i < sizeof chunks / sizeof *chunks; i++) {
		struct run *r = feed_chunks(buf, n, chunks[i]);
		char *got = evsig(r);
		is_str(got, want, "%s: %zu-byte pieces parse as the whole file", rel, chunks[i]);
		free(got);
		run_free(r);
	}
	if (buf) {
		struct run *r = run_new();
		struct reader *rd = reader_new(r, NULL);
		reader_feed(rd, buf, n / 2);
		reader_finish(rd);
		reader_feed(rd, buf + n / 2, n - n / 2);
		reader_finish(rd);
		char *got = evsig(r);
		is_str(got, want, "%s: growing file ends as the whole file", rel);
		free(got);
		reader_free(rd);
		run_free(r);
	}
	free(want);
	run_free(whole);
	free(buf);
	free(rel);
}

/* ---- droid ------------------------------------------------------------- */

static void test_droid(void)
{
	struct run *r = load("droid", "full");

	is_str(r->meta.format, "droid", "droid: sniffed");
	is_kinds(r, "system user text tool_call tool_result tool_call tool_call tool_result tool_result "
	            "error text system usage", "droid full");
	is_str(r->meta.model, "glm-5.1", "droid: model from init");
	is_str(r->meta.session_id, "d-1", "droid: session id from init");
	is_str(r->meta.cwd, "/w/p", "droid: cwd from init");
	is_str(r->meta.effort, "high", "droid: reasoning effort from init");
	is_str(ev(r, 0)->name, "init", "droid: init is a system event named init");
	has_str(ev(r, 0)->text, "4 tools", "droid: init text counts the tools");
	is_str(ev(r, 1)->text, "Write solution.py", "droid: user message");
	ok(ts_is(ev(r, 1)->ts, 1778245000.0), "droid: millisecond timestamp to seconds");
	is_str(ev(r, 2)->text, "Creating the file.", "droid: assistant message is text");
	is_str(ev(r, 3)->name, "Create", "droid: tool name from toolName");
	is_str(ev(r, 3)->call_id, "call_1", "droid: call id");
	is_str(ev(r, 3)->path, "/w/p/solution.py", "droid: Create names its file");
	has_str(run_event_diff(r, 3), "+x = 1\n+y = 2\n", "droid: Create diff adds the content");
	is_int(ev(r, 3)->link, 4, "droid: Create linked to its result");
	is_str(ev(r, 4)->text, "File created", "droid: result value");
	is_str(ev(r, 5)->path, "solution.py", "droid: Edit path as written");
	has_str(run_event_diff(r, 5), " x = 1\n-y = 2\n+y = 3\n", "droid: Edit of the relative path diffs the created file");
	is_int(ev(r, 5)->link, 7, "droid: Edit linked to its result");
	has_str(ev(r, 7)->text, "\"linesChanged\":1", "droid: object value kept as JSON");
	is_str(ev(r, 8)->call_id, "call_3", "droid: result without id answers the oldest pending call");
	is_int(ev(r, 8)->link, 6, "droid: id-less result linked to Execute");
	is_int(ev(r, 8)->is_error, 1, "droid: isError result");
	is_str(ev(r, 8)->text, "exit code 1: FAIL", "droid: error message as result text");
	is_str(ev(r, 9)->name, "model", "droid: error record named by its source");
	is_int(ev(r, 9)->is_error, 1, "droid: error record is an error");
	is_str(ev(r, 11)->name, "completion", "droid: completion is a system event");
	is_str(ev(r, 11)->text, "Done.", "droid: completion carries the final text");
	is_int(ev(r, 12)->tok_in, 1200, "droid: completion input tokens");
	is_int(ev(r, 12)->tok_out, 300, "droid: completion output tokens");
	is_int(ev(r, 12)->tok_cache_read, 800, "droid: completion cache reads");
	is_int(ev(r, 12)->tok_cache_write, 50, "droid: completion cache writes");
	is_int(r->incomplete, 0, "droid: completion marks the run complete");
	is_int(r->malformed, 0, "droid: nothing malformed");
	run_free(r);

	r = load("droid", "malformed");
	is_int(r->malformed, 2, "droid malformed: two bad lines counted");
	is_int(r->nerrors > 0 ? r->errors[0].line : 0, 2, "droid malformed: line without type is line 2");
	has_str(r->errors[0].msg, "\"type\"", "droid malformed: message names the missing key");
	is_int(r->nerrors > 1 ? r->errors[1].line : 0, 3, "droid malformed: message without text is line 3");
	is_kinds(r, "system text system", "droid malformed: the good lines still parse");
	is_int(r->incomplete, 0, "droid malformed: completion still seen");
	run_free(r);

	r = load("droid", "incomplete");
	is_int(r->incomplete, 1, "droid: no completion record means incomplete");
	is_int(r->nev, 4, "droid incomplete: all four events");
	run_free(r);
}

/* ---- kimi -------------------------------------------------------------- */

static void test_kimi(void)
{
	struct run *r = load("kimi", "full");

	is_str(r->meta.format, "kimi", "kimi: sniffed");
	is_kinds(r, "user reasoning text tool_call tool_result reasoning tool_call tool_call tool_result "
	            "tool_result system text", "kimi full");
	is_str(ev(r, 0)->text, "Write solution.py", "kimi: user message with string content");
	is_str(ev(r, 1)->text, "Plan the kernel.", "kimi: think part is reasoning");
	is_str(ev(r, 2)->text, "I will write it.", "kimi: text part");
	is_str(ev(r, 3)->name, "WriteFile", "kimi: tool name");
	is_str(ev(r, 3)->call_id, "tc_1", "kimi: tool call id");
	is_str(ev(r, 3)->path, "solution.py", "kimi: WriteFile path");
	has_str(run_event_diff(r, 3), "@@ -0,0 +1,2 @@\n+a = 1\n+b = 2\n", "kimi: WriteFile diff adds both lines");
	is_int(ev(r, 3)->link, 4, "kimi: WriteFile linked to its result");
	is_int(ev(r, 4)->is_error, 0, "kimi: a <system> success message is no error");
	is_int(ev(r, 5)->redacted, 1, "kimi: empty think with encrypted content is redacted");
	is_str(ev(r, 6)->name, "StrReplaceFile", "kimi: edit tool name");
	has_str(run_event_diff(r, 6), "@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n",
	        "kimi: StrReplaceFile diff against the written file");
	is_str(ev(r, 7)->args, "\"{\\\"command\\\":\"", "kimi: cut-off argument JSON kept as a JSON string");
	is_int(ev(r, 7)->link, 9, "kimi: the cut-off call is still linked");
	is_int(ev(r, 9)->is_error, 1, "kimi: <system>ERROR marks a failed tool");
	is_str(ev(r, 9)->text, "<system>ERROR: Command failed with exit code: 1.</system>\n"
	       "Traceback (most recent call last):", "kimi: text parts joined by newlines");
	is_str(ev(r, 10)->name, "notification", "kimi: role-less notification is a system event");
	is_str(ev(r, 10)->text, "Background task finished\nexit 0", "kimi: notification title and body");
	is_str(ev(r, 11)->text, "Done: solution.py sets b = 3.", "kimi: final answer");
	is_int(r->incomplete, 0, "kimi: ends on an assistant message without tool calls: complete");
	is_int(r->malformed, 0, "kimi: cut-off arguments are not malformed lines");
	run_free(r);

	r = load("kimi", "malformed");
	is_int(r->malformed, 2, "kimi malformed: two bad lines counted");
	is_int(r->nerrors > 0 ? r->errors[0].line : 0, 2, "kimi malformed: line without role is line 2");
	is_int(r->nerrors > 1 ? r->errors[1].line : 0, 3, "kimi malformed: tool without tool_call_id is line 3");
	has_str(r->errors[1].msg, "tool_call_id", "kimi malformed: message names the missing key");
	is_kinds(r, "text text", "kimi malformed: the good lines still parse");
	run_free(r);

	r = load("kimi", "incomplete");
	is_int(r->incomplete, 1, "kimi: ends on an assistant that still calls tools: incomplete");
	is_int(ev(r, 3)->link, -1, "kimi incomplete: the last call has no result");
	run_free(r);

	/* cut after the tool result: also incomplete */
	{
		char *rel = fixture("kimi", "incomplete");
		size_t n = 0;
		char *buf = util_read_file(tap_path(rel), &n);
		char *nl = buf ? strchr(strchr(buf, '\n') + 1, '\n') : NULL;
		struct run *cut = feed_chunks(buf ? buf : "", nl ? (size_t)(nl + 1 - buf) : 0, 4096);
		is_int(cut->incomplete, 1, "kimi: a run ending on a tool result is incomplete");
		run_free(cut);
		free(buf);
		free(rel);
	}
}

/* ---- cursor ------------------------------------------------------------ */

static void test_cursor(void)
{
	struct run *r = load("cursor", "full");

	is_str(r->meta.format, "cursor", "cursor: sniffed");
	is_kinds(r, "system user reasoning text tool_call tool_result tool_call tool_result tool_call "
	            "tool_result tool_call tool_result text system usage", "cursor full");
	is_str(r->meta.model, "GPT-5", "cursor: model from init");
	is_str(r->meta.cwd, "/w/p", "cursor: cwd from init");
	is_str(r->meta.session_id, "c-1", "cursor: session id");
	has_str(ev(r, 0)->text, "permissions default", "cursor: init text names the permission mode");
	is_str(ev(r, 2)->text, "Plan it.", "cursor: thinking deltas merged into one reasoning event");
	ok(ts_is(ev(r, 2)->ts, 1778245000.0), "cursor: timestamp_ms of the first delta");
	is_str(ev(r, 3)->text, "I will write the file.", "cursor: whole assistant message");
	is_str(ev(r, 4)->name, "write", "cursor: writeToolCall is \"write\"");
	is_str(ev(r, 4)->call_id, "w1", "cursor: call id");
	is_str(ev(r, 4)->path, "solution.py", "cursor: write path");
	has_str(ev(r, 4)->args, "\"fileText\"", "cursor: write keeps its own arguments");
	has_str(run_event_diff(r, 4), "+a = 1\n+b = 2\n", "cursor: write diff from fileText");
	is_int(ev(r, 4)->link, 5, "cursor: write linked to its completion");
	has_str(ev(r, 5)->text, "\"linesCreated\":2", "cursor: write success as JSON");
	is_int(ev(r, 5)->is_error, 0, "cursor: success is no error");
	is_str(ev(r, 6)->name, "edit", "cursor: editToolCall is \"edit\"");
	has_str(ev(r, 6)->args, "\"streamContent\"", "cursor: edit keeps its own arguments");
	has_str(run_event_diff(r, 6), " a = 1\n-b = 2\n+b = 3\n", "cursor: edit's whole new content diffs the written file");
	is_str(ev(r, 8)->name, "shell", "cursor: shellToolCall is \"shell\"");
	has_str(ev(r, 8)->args, "python check.py", "cursor: shell command in args");
	is_int(ev(r, 9)->is_error, 1, "cursor: failure result is an error");
	is_str(ev(r, 9)->text, "FAIL: shape 0", "cursor: shell output as result text");
	is_str(ev(r, 10)->name, "read", "cursor: a completed call without its start still shows the call");
	is_int(ev(r, 10)->line, 13, "cursor: the call comes from the completed line");
	is_int(ev(r, 11)->link, 10, "cursor: and its result links to it");
	is_str(ev(r, 11)->text, "File not found", "cursor: error message as result text");
	is_int(ev(r, 11)->is_error, 1, "cursor: error result is an error");
	is_str(ev(r, 12)->text, "All done.", "cursor: text deltas merged, whole-message repeats skipped");
	is_int(run_count(r, EV_TEXT), 2, "cursor: no duplicate text from the repeats");
	is_str(ev(r, 13)->name, "result", "cursor: result record is a system event");
	is_int(ev(r, 14)->tok_in, 1000, "cursor: usage input tokens");
	is_int(ev(r, 14)->tok_out, 200, "cursor: usage output tokens");
	is_int(ev(r, 14)->tok_cache_read, 500, "cursor: usage cache reads");
	is_int(r->incomplete, 0, "cursor: result marks the run complete");
	is_int(r->malformed, 0, "cursor: nothing malformed");
	run_free(r);

	r = load("cursor", "malformed");
	is_int(r->malformed, 3, "cursor malformed: three bad lines counted");
	is_int(r->nerrors > 0 ? r->errors[0].line : 0, 2, "cursor malformed: line without type is line 2");
	is_int(r->nerrors > 1 ? r->errors[1].line : 0, 3, "cursor malformed: tool_call without a tool is line 3");
	is_int(r->nerrors > 2 ? r->errors[2].line : 0, 4, "cursor malformed: user without message is line 4");
	has_str(r->errors[1].msg, "ToolCall", "cursor malformed: message says what is missing");
	is_kinds(r, "system text system", "cursor malformed: the good lines still parse");
	run_free(r);

	r = load("cursor", "incomplete");
	is_int(r->incomplete, 1, "cursor: no result record means incomplete");
	is_int(ev(r, 3)->link, -1, "cursor incomplete: the started call has no result");
	run_free(r);
}

/* Writes and edits whose new text is not in the record leave the tracked
 * file alone; older strReplace / multiStrReplace edits diff like Edit. */
static void test_cursor_edits(void)
{
	static const char doc[] =
		"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"a\",\"tool_call\":{\"writeToolCall\":"
		"{\"args\":{\"path\":\"/w/x.py\",\"fileText\":\"one\\ntwo\\n\"}}}}\n"
		"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"b\",\"tool_call\":{\"writeToolCall\":"
		"{\"args\":{\"path\":\"/w/x.py\"}}}}\n"
		"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"c\",\"tool_call\":{\"editToolCall\":"
		"{\"args\":{\"path\":\"/w/x.py\",\"applyPatch\":{\"patchContent\":\"@@ -1 +1 @@\\n-one\\n+uno\"}}}}}\n"
		"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"d\",\"tool_call\":{\"editToolCall\":"
		"{\"args\":{\"path\":\"/w/x.py\",\"strReplace\":{\"oldText\":\"two\",\"newText\":\"dos\"}}}}}\n"
		"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"e\",\"tool_call\":{\"editToolCall\":"
		"{\"args\":{\"path\":\"/w/x.py\",\"multiStrReplace\":{\"edits\":[{\"oldText\":\"one\",\"newText\":\"1\"}]}}}}}\n"
		"{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"f\",\"tool_call\":{\"function\":"
		"{\"name\":\"rg\",\"arguments\":\"{\\\"pattern\\\":\\\"TODO\\\"}\"}}}\n";
	struct run *r = feed_chunks(doc, strlen(doc), sizeof doc);

	is_str(r->meta.format, "cursor", "cursor edits: sniffed from tool_call lines alone");
	is_kinds(r, "tool_call tool_call tool_call tool_call tool_call tool_call", "cursor edits");
	is_str(ev(r, 1)->name, "write", "cursor edits: a write without text keeps its name");
	is_str(ev(r, 1)->path, "/w/x.py", "cursor edits: and its path");
	ok(run_event_diff(r, 1) == NULL, "cursor edits: but claims no change");
	is_str(ev(r, 2)->name, "edit", "cursor edits: an applyPatch edit keeps its name");
	ok(run_event_diff(r, 2) == NULL, "cursor edits: applyPatch hunks are not replayed");
	has_str(run_event_diff(r, 3), " one\n-two\n+dos\n", "cursor edits: strReplace diffs the file as written");
	has_str(run_event_diff(r, 4), "-one\n+1\n dos\n", "cursor edits: multiStrReplace diffs the file as edited");
	is_str(ev(r, 5)->name, "rg", "cursor edits: a function tool is named by its function");
	is_str(ev(r, 5)->args, "{\"pattern\":\"TODO\"}", "cursor edits: function arguments kept as JSON");
	is_int(r->incomplete, 1, "cursor edits: no result record: incomplete");
	run_free(r);
}

/* ---- grok -------------------------------------------------------------- */

static void test_grok(void)
{
	struct run *r = load("grok", "full");

	is_str(r->meta.format, "grok", "grok: sniffed");
	is_kinds(r, "reasoning text error text", "grok full");
	is_str(ev(r, 0)->text, "Read the reference.", "grok: thought deltas merged");
	is_str(ev(r, 2)->text, "stream reset", "grok: error record");
	is_int(ev(r, 2)->is_error, 1, "grok: error record is an error");
	is_str(ev(r, 3)->text, "Wrote solution.py", "grok: text after an error starts a new event");
	is_str(r->meta.session_id, "g-1", "grok: session id from end");
	is_int(r->incomplete, 0, "grok: end marks the run complete");
	run_free(r);

	r = load("grok", "malformed");
	is_int(r->malformed, 1, "grok malformed: one bad line");
	is_int(r->nerrors > 0 ? r->errors[0].line : 0, 2, "grok malformed: on line 2");
	is_kinds(r, "reasoning text", "grok malformed: the rest parses");
	run_free(r);

	r = load("grok", "incomplete");
	is_int(r->incomplete, 1, "grok: no end record means incomplete");
	run_free(r);
}

/* ---- sniffing ---------------------------------------------------------- */

static int sniff(const char *format, const char *line, size_t len)
{
	cJSON *obj = jx_parse(line, len);
	int s = obj ? parser_find(format)->sniff(line, len, obj) : 0;
	cJSON_Delete(obj);
	return s;
}

/* The highest score sniffer gives to any of the first max lines of a file
 * (max 0: every line); *lines counts the lines looked at. */
static int max_score(const char *format, const char *path, int max, int *lines)
{
	size_t n = 0;
	char *buf = util_read_file(path, &n);
	int best = 0, seen = 0;

	for (char *p = buf; p && p < buf + n && (!max || seen < max);) {
		char *nl = memchr(p, '\n', (size_t)(buf + n - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(buf + n - p);
		if (len) {
			int s = sniff(format, p, len);
			best = s > best ? s : best;
			seen++;
		}
		p = nl ? nl + 1 : buf + n;
	}
	free(buf);
	*lines += seen;
	return best;
}

/* ---- gemini ------------------------------------------------------------ */

/* Gemini CLI stream-json (ours, tests/fixtures/gemini: written to the
 * field names of @google/gemini-cli-core's output/types.d.ts). */
static void test_gemini(void)
{
	struct run *r = load("gemini", "full");
	is_str(r->meta.format, "gemini", "gemini: sniffed");
	is_kinds(r, "user text tool_call tool_result tool_call tool_result tool_call tool_result system text usage",
	         "gemini full");
	is_str(ev(r, 1)->text, "I will read the reference first.", "gemini: streamed pieces joined into one message");
	is_str(ev(r, 9)->text, "The check failed; I stop here.", "gemini: a later answer is a message of its own");
	is_str(ev(r, 2)->name, "read_file", "gemini: tool_name");
	is_int(ev(r, 3)->link, 2, "gemini: the result pairs with its call by tool_id");
	is_int(ev(r, 6)->link, 7, "gemini: the failed call pairs with its result");
	is_int(ev(r, 7)->is_error, 1, "gemini: status error is a failed result");
	ok(ev(r, 7)->text && strstr(ev(r, 7)->text, "exit code 1: FAIL shape 0"), "gemini: its error message is its text");
	is_str(ev(r, 4)->path, "solution.py", "gemini: write_file names its file");
	is_str(ev(r, 8)->name, "warning", "gemini: a warning error record is a system row");
	is_str(r->meta.session_id, "ours-0001", "gemini: session id from init");
	is_str(r->meta.model, "gemini-3-pro-preview", "gemini: model from init");
	long long in = 0, out = 0, cr = 0, cw = 0, rs = 0;
	run_tokens(r, &in, &out, &cr, &cw, &rs);
	ok(in == 600 && out == 300 && cr == 400 && rs == 200,
	   "gemini: tokens from result.stats (in %lld out %lld cached %lld rest %lld)", in, out, cr, rs);
	ok(ts_is(ev(r, 0)->ts, 1782900000.010), "gemini: timestamps read (%.3f)", ev(r, 0)->ts);
	is_int(r->incomplete, 0, "gemini: the result record completes the run");
	run_free(r);

	r = load("gemini", "malformed");
	is_int(r->malformed, 1, "gemini malformed: one bad line");
	is_int(r->nerrors > 0 ? r->errors[0].line : 0, 2, "gemini malformed: on line 2");
	run_free(r);

	r = load("gemini", "incomplete");
	is_int(r->incomplete, 1, "gemini: no result record means incomplete");
	run_free(r);

	/* a failed session: its result says status error */
	const char *failed = "{\"type\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}\n"
	                     "{\"type\":\"result\",\"status\":\"error\",\"error\":{\"type\":\"quota\","
	                     "\"message\":\"quota exceeded\"},\"stats\":{\"total_tokens\":0}}\n";
	r = feed_chunks(failed, strlen(failed), 4096);
	is_kinds(r, "error usage", "gemini failed result");
	is_str(ev(r, 0)->text, "result: error: quota exceeded", "gemini: an error status is a failed result");
	is_int(ev(r, 0)->is_error, 1, "gemini: marked as an error");
	run_free(r);
}

static void test_sniff_fixtures(void)
{
	for (int i = 0; formats[i]; i++)
		for (int j = 0; formats[j]; j++) {
			int lines = 0, best = 0;
			if (i == j)
				continue;
			for (int k = 0; fixtures[k]; k++) {
				char *rel = fixture(formats[j], fixtures[k]);
				int s = max_score(formats[i], tap_path(rel), 0, &lines);
				best = s > best ? s : best;
				free(rel);
			}
			is_int(best, 0, "%s sniff scores 0 on every line of the %s fixtures (%d lines)",
			       formats[i], formats[j], lines);
		}

	/* Claude Code's init shares apiKeySource/permissionMode with Cursor's */
	const char *claude_init = "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"s\","
	                          "\"tools\":[\"Bash\"],\"mcp_servers\":[],\"model\":\"m\","
	                          "\"permissionMode\":\"default\",\"apiKeySource\":\"none\",\"uuid\":\"u\"}";
	const char *claude_asst = "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_1\",\"role\":\"assistant\","
	                          "\"content\":[{\"type\":\"text\",\"text\":\"hi\"}],\"usage\":{\"output_tokens\":1}},"
	                          "\"parent_tool_use_id\":null,\"session_id\":\"s\",\"uuid\":\"u\"}";
	const char *cursor_init = "{\"type\":\"system\",\"subtype\":\"init\",\"apiKeySource\":\"login\",\"cwd\":\"/w\","
	                          "\"session_id\":\"s\",\"model\":\"m\",\"permissionMode\":\"default\"}";
	const char *cursor_call = "{\"type\":\"tool_call\",\"subtype\":\"started\",\"call_id\":\"c\","
	                          "\"tool_call\":{\"readToolCall\":{\"args\":{\"path\":\"a\"}}}}";
	const char *droid_init = "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"s\","
	                         "\"tools\":[],\"model\":\"m\",\"reasoning_effort\":\"none\"}";
	int s;

	is_int(sniff("cursor", claude_init, strlen(claude_init)), 0, "cursor sniff: Claude Code init scores 0");
	is_int(sniff("cursor", claude_asst, strlen(claude_asst)), 0, "cursor sniff: Claude assistant scores 0");
	s = sniff("cursor", cursor_init, strlen(cursor_init));
	ok(s > 0 && s <= 40, "cursor sniff: its init alone scores moderately (%d)", s);
	ok(sniff("cursor", cursor_call, strlen(cursor_call)) >= 80, "cursor sniff: tool_call scores high");
	ok(sniff("droid", droid_init, strlen(droid_init)) >= 80, "droid sniff: init with reasoning_effort scores high");
	is_int(sniff("cursor", droid_init, strlen(droid_init)), 0, "cursor sniff: droid init scores 0");
	is_int(sniff("claude", droid_init, strlen(droid_init)), 0, "claude sniff: droid init scores 0");
}

/* ---- the real sample --------------------------------------------------- */

static int is_mine(const char *fmt)
{
	for (int i = 0; formats[i]; i++)
		if (fmt && !strcmp(fmt, formats[i]))
			return 1;
	return 0;
}

/* Every sniffer of this file scores 0 on the first 8 lines of every run of
 * another format. */
static void sample_sniff(struct dataset *ds)
{
	for (int i = 0; formats[i]; i++) {
		int lines = 0, best = 0, runs = 0;
		const char *worst = NULL;
		for (size_t k = 0; k < ds->nruns; k++) {
			struct ds_run *d = &ds->runs[k];
			if (!d->transcript || !d->meta.format || !strcmp(d->meta.format, formats[i]))
				continue;
			int s = max_score(formats[i], d->transcript, 8, &lines);
			if (s > best) {
				best = s;
				worst = d->meta.run_id;
			}
			runs++;
		}
		is_int(best, 0, "%s sniff scores 0 on the first 8 lines of %d other runs (%d lines)%s%s",
		       formats[i], runs, lines, worst ? ", not on " : "", worst ? worst : "");
	}
}

static void sample_runs(struct dataset *ds)
{
	int nruns[sizeof formats / sizeof *formats] = {0};

	for (size_t k = 0; k < ds->nruns; k++) {
		struct ds_run *d = &ds->runs[k];
		const char *fmt = d->meta.format, *id = d->meta.run_id;
		char *err = NULL;
		struct run *r;
		size_t unlinked = 0, calls;

		if (!d->transcript || !is_mine(fmt))
			continue;
		for (int i = 0; formats[i]; i++)
			nruns[i] += !strcmp(fmt, formats[i]);
		r = parser_load_file(d->transcript, NULL, &err);
		if (!r) {
			ok(0, "%s loads: %s", id, err ? err : "?");
			free(err);
			continue;
		}
		calls = run_count(r, EV_TOOL_CALL);
		for (size_t j = 0; j < r->nev; j++)
			unlinked += r->ev[j].kind == EV_TOOL_RESULT && r->ev[j].link < 0;
		if (r->nev == 0) {
			/* the empty kimi transcripts: nothing to sniff; the dataset
			 * index names their format, and with it they are incomplete */
			struct run *f = parser_load_file(d->transcript, parser_find(fmt), &err);
			is_int(r->malformed, 0, "%s is empty and has nothing malformed", id);
			ok(f && f->nev == 0 && f->incomplete == 1 && f->malformed == 0,
			   "%s loaded as %s: 0 events, incomplete", id, fmt);
			run_free(f);
		} else {
			is_str(r->meta.format, fmt, "%s sniffed as %s", id, fmt);
			is_int(r->malformed, 0, "%s has no malformed line%s%s", id, r->nerrors ? ": " : "",
			       r->nerrors ? r->errors[0].msg : "");
			is_int(unlinked, 0, "%s: every tool result is linked to its call", id);
			if (!strcmp(fmt, "droid"))
				is_int(r->incomplete, 1, "%s: cut by the wall clock, no completion: incomplete", id);
			if (!strcmp(fmt, "kimi"))
				is_int(r->incomplete, !d->meta.session_complete,
				       "%s: completion rule agrees with result.json (%s)", id,
				       d->meta.session_complete ? "complete" : "not complete");
			if (!strcmp(fmt, "grok"))
				is_int(r->incomplete, 0, "%s: ends with an end record: complete", id);
		}
		printf("# %s: %zu events, %zu tool calls%s\n", id, r->nev, calls,
		       r->incomplete ? ", incomplete" : "");
		run_free(r);
	}
	is_int(nruns[0], 7, "the sample has 7 droid runs");
	is_int(nruns[1], 7, "the sample has 7 kimi runs");
	is_int(nruns[3], 6, "the sample has 6 grok runs");
}

static void test_sample(void)
{
	const char *kbh = tap_shared_kbh();
	char *err = NULL;
	struct dataset *ds;

	if (!kbh) {
		tap_skip("../shared/kbh is absent: sample checks skipped");
		return;
	}
	ds = dataset_open(kbh, &err);
	ok(ds != NULL, "the real sample opens%s%s", err ? ": " : "", err ? err : "");
	free(err);
	if (!ds)
		return;
	sample_sniff(ds);
	sample_runs(ds);
	dataset_free(ds);
}

/* Kimi CLI session files (context.jsonl, the record shapes kimi-cli's
 * soul/context.py writes): _checkpoint records make no event, _usage
 * records give the context's size and do not make a finished run
 * INCOMPLETE. */
static void test_kimi_session(void)
{
	struct run *r = load("kimi", "session_usage");
	is_str(r->meta.format, "kimi", "a Kimi session file is kimi");
	is_int(r->incomplete, 0, "ending with _usage after the final answer: complete");
	long long in;
	run_tokens(r, &in, NULL, NULL, NULL, NULL);
	is_int(in, 5400, "the input total is the last _usage token_count");
	is_int(run_count(r, EV_SYSTEM), 0, "_checkpoint and _usage make no system rows");
	is_int(run_count(r, EV_TOOL_CALL), 1, "the call");
	is_int(r->malformed, 0, "nothing malformed");
	run_free(r);
}

int main(void)
{
	test_droid();
	test_kimi();
	test_kimi_session();
	test_cursor();
	test_cursor_edits();
	test_grok();
	test_gemini();
	for (int i = 0; formats[i]; i++)
		for (int k = 0; fixtures[k]; k++)
			check_streaming(formats[i], fixtures[k]);
	test_sniff_fixtures();
	test_sample();
	return tap_done();
}
