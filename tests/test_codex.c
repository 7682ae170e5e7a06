/* Codex parsers: session rollouts ("codex") and the human-readable output
 * of `codex exec` ("codex-exec"): event mapping, duplicate event_msgs
 * dropped, reasoning redaction, tool outputs and exit codes, apply_patch
 * diffs that follow a file, usage, completion, malformed lines, sniffing,
 * split and growing input, and the real sample's codex runs. */
#include "tap.h"
#include "evsig.h"
#include "parser.h"
#include "jsonx.h"
#include "parsetest.h"

#define FULL "tests/fixtures/codex/rollout_full.jsonl"
#define CUT "tests/fixtures/codex/rollout_cut.jsonl"
#define BAD "tests/fixtures/codex/rollout_malformed.jsonl"
#define LEGACY "tests/fixtures/codex/rollout_legacy.jsonl"
#define XFULL "tests/fixtures/codex-exec/exec_full.txt"
#define XSTAMPED "tests/fixtures/codex-exec/exec_stamped.txt"
#define XCUT "tests/fixtures/codex-exec/exec_cut.txt"
#define XBAD "tests/fixtures/codex-exec/exec_malformed.txt"

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

static struct run *feed_str(const char *s)
{
	return feed_chunks(s, strlen(s), strlen(s) + 1, NULL);
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
 * rest, finish) must parse exactly like the whole file, wherever the cut
 * falls (plain text included: an unterminated plain-text tail waits). */
static void check_split(const char *rel, int plain)
{
	size_t n = 0, half;
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
	half = n / 2;
	(void)plain;
	{
		struct run *r = run_new();
		struct reader *rd = reader_new(r, NULL);
		reader_feed(rd, buf, half);
		reader_finish(rd);
		reader_feed(rd, buf + half, n - half);
		reader_finish(rd);
		reader_finish(rd); /* finish is idempotent */
		char *got = evsig(r);
		is_str(got, want, "%s: growing file (cut at byte %zu) ends as the whole file", rel, half);
		free(got);
		reader_free(rd);
		run_free(r);
	}
	free(want);
	run_free(whole);
	free(buf);
}

/* ---- codex rollouts ------------------------------------------------------ */

static void test_full(void)
{
	struct run *r = load(FULL);
	const struct event *e;
	long long in, out, cr, cw, rs;

	is_str(r->meta.format, "codex", "full: sniffed as codex");
	is_int(r->malformed, 0, "full: no malformed line");
	is_int(r->incomplete, 0, "full: last turn ends with task_complete");
	is_int(r->complete_seen, 1, "full: completion marker seen");
	is_kinds(r, "system system system user reasoning text tool_call tool_result usage reasoning "
	            "tool_call tool_result reasoning tool_call tool_result tool_call tool_result "
	            "tool_call tool_result tool_call usage error error compaction text usage", "full");
	is_str(r->meta.session_id, "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b", "full: session id from session_meta");
	is_str(r->meta.cwd, "/w/cx", "full: cwd from session_meta");
	is_str(r->meta.model, "gpt-5-codex", "full: model from turn_context");
	is_str(r->meta.effort, "high", "full: effort from turn_context");

	e = EV(nth(r, EV_SYSTEM, 0));
	is_str(e->name, "session_meta", "session_meta: a system event");
	has_str(e->text, "cli_version: 0.46.0", "session_meta: names the CLI version");
	has_str(e->text, "Be brief.", "session_meta: carries the instructions");
	is_int((long long)e->ts, 1756720800, "session_meta: timestamp of its line");
	is_str(EV(nth(r, EV_SYSTEM, 1))->name, "developer", "developer message: system event");
	is_str(EV(nth(r, EV_SYSTEM, 2))->name, "user_context", "environment context: system, not user");
	is_str(EV(nth(r, EV_USER, 0))->text, "Make sol.py double its input.", "user prompt");
	is_int(run_count(r, EV_USER), 1, "user_message event_msg not added again");
	is_int(run_count(r, EV_TEXT), 2, "agent_message event_msg not added again");

	e = EV(nth(r, EV_REASONING, 0));
	is_str(e->text, "**Reading first**\n\nThen patch.", "summary-only reasoning: summaries as paragraphs");
	is_int(e->redacted, 1, "summary-only reasoning: redacted");
	e = EV(nth(r, EV_REASONING, 1));
	is_str(e->text, "The file does not exist; create it.", "reasoning content: full text");
	is_int(e->redacted, 0, "reasoning content: not redacted");
	e = EV(nth(r, EV_REASONING, 2));
	is_str(e->text, "", "encrypted-only reasoning: no text");
	is_int(e->redacted, 1, "encrypted-only reasoning: redacted");
	is_int(run_count(r, EV_REASONING), 3, "agent_reasoning event_msg not added again");

	e = EV(by_id(r, EV_TOOL_CALL, "call_read"));
	is_str(e->name, "exec_command", "function_call: name");
	is_str(e->args, "{\"cmd\":\"cat sol.py\",\"workdir\":\"/w/cx\"}", "function_call: arguments kept");
	is_int(e->line, 13, "function_call: line number");
	e = EV(by_id(r, EV_TOOL_RESULT, "call_read"));
	is_int(e->is_error, 1, "unified exec output: 'Process exited with code 1' is an error");
	has_str(e->text, "No such file or directory", "unified exec output text kept");

	e = EV(by_id(r, EV_TOOL_CALL, "call_add"));
	is_str(e->name, "apply_patch", "custom_tool_call: name");
	is_str(e->path, "/w/cx/sol.py", "apply_patch Add: path");
	has_str(ev_diff(r, e), "@@ -0,0 +1,4 @@\n+def f(x):\n+    return x + 1\n+\n+print(f(1))\n",
	        "apply_patch Add: diff adds the whole file");
	has_str(e->args, "*** Add File: /w/cx/sol.py", "custom_tool_call: raw input kept as a JSON string");
	e = EV(by_id(r, EV_TOOL_RESULT, "call_add"));
	is_str(e->text, "Success. Updated the following files:\nA /w/cx/sol.py\n",
	       "custom output JSON {output, metadata}: the output text");
	is_int(e->is_error, 0, "custom output: exit_code 0 is no error");
	e = EV(by_id(r, EV_TOOL_CALL, "call_upd"));
	is_str(e->path, "/w/cx/sol.py", "apply_patch Update: path");
	has_str(ev_diff(r, e), "@@ -1,4 +1,4 @@\n def f(x):\n-    return x + 1\n+    return x * 2\n \n print(f(1))\n",
	        "apply_patch Update: hunk against the added content");
	is_int(EV(by_id(r, EV_TOOL_RESULT, "call_upd"))->is_error, 0, "'Exit code: 0' output: no error");

	e = EV(by_id(r, EV_TOOL_RESULT, "call_run"));
	is_int(e->is_error, 1, "old JSON output with metadata.exit_code 1: error");
	is_str(e->text, "Traceback (most recent call last):\nNameError\n", "old JSON output: the output text");
	e = EV(by_id(r, EV_TOOL_CALL, "call_ls"));
	is_str(e->name, "local_shell", "local_shell_call: a tool call");
	has_str(e->args, "\"command\":[\"ls\",\"-la\"]", "local_shell_call: action as arguments");
	e = EV(by_id(r, EV_TOOL_RESULT, "call_ls"));
	is_int(e->is_error, 1, "object output with success false: error");
	is_str(e->text, "sandbox denied", "object output: its content");
	e = EV(by_id(r, EV_TOOL_CALL, "ws_1"));
	is_str(e->name, "web_search", "web_search_call: a tool call");
	is_int(e->link, -1, "web_search_call: no result");
	ok(results_linked(r), "full: every result linked to its call");

	is_int(run_count(r, EV_USAGE), 3, "usage: null info and a repeated total add none");
	e = EV(nth(r, EV_USAGE, 0));
	is_int(e->tok_in, 400, "usage 1: input without cached");
	is_int(e->tok_cache_read, 600, "usage 1: cached input");
	is_int(e->tok_out, 50, "usage 1: output");
	is_int(e->tok_reasoning, 20, "usage 1: reasoning");
	e = EV(nth(r, EV_USAGE, 1));
	is_int(e->tok_in, 600, "usage 2 (total only): input is the difference of totals");
	is_int(e->tok_cache_read, 1400, "usage 2: cached difference");
	run_tokens(r, &in, &out, &cr, &cw, &rs);
	is_int(in, 1200, "usage: total input equals total_token_usage less cached");
	is_int(out, 170, "usage: total output");
	is_int(cr, 2300, "usage: total cached");
	is_int(rs, 60, "usage: total reasoning");

	e = EV(nth(r, EV_ERROR, 0));
	is_str(e->text, "stream disconnected before completion", "error event_msg");
	is_int(e->is_error, 1, "error event: is_error");
	is_str(EV(nth(r, EV_ERROR, 1))->text, "turn aborted: interrupted", "turn_aborted: error event");
	is_str(EV(nth(r, EV_COMPACTION, 0))->text, "Summary: sol.py now doubles its input.",
	       "compacted: compaction with its summary");
	is_int(run_count(r, EV_COMPACTION), 1, "context_compacted event_msg not added again");
	run_free(r);
}

static void test_cut(void)
{
	struct run *r = load(CUT);
	is_str(r->meta.format, "codex", "cut: sniffed as codex");
	is_int(r->incomplete, 1, "cut: a second turn without task_complete is incomplete");
	is_int(r->complete_seen, 1, "cut: the first turn's marker was seen");
	is_kinds(r, "system user text user tool_call", "cut");
	is_int(r->ev[r->nev - 1].link, -1, "cut: last call has no result");
	run_free(r);

	r = feed_str("{\"type\":\"session_meta\",\"payload\":{\"id\":\"s\"}}\n"
	             "{\"type\":\"event_msg\",\"payload\":{\"type\":\"task_started\"}}\n"
	             "{\"type\":\"event_msg\",\"payload\":{\"type\":\"turn_aborted\",\"reason\":\"interrupted\"}}\n");
	is_int(r->incomplete, 1, "aborted last turn: incomplete");
	is_int(r->ev[r->nev - 1].is_error, 1, "aborted last turn: an error event");
	run_free(r);
}

static void test_malformed(void)
{
	struct run *r = load(BAD);
	is_str(r->meta.format, "codex", "malformed: still sniffed as codex");
	is_int(r->malformed, 4, "malformed: four bad lines");
	is_int(r->nerrors, 4, "malformed: four errors recorded");
	if (r->nerrors == 4) {
		is_int(r->errors[0].line, 3, "non-object payload: line 3");
		has_str(r->errors[0].msg, "payload is not an object", "non-object payload: message");
		is_int(r->errors[1].line, 4, "foreign record: line 4");
		has_str(r->errors[1].msg, "not a codex rollout record", "foreign record: message");
		is_int(r->errors[2].line, 5, "nameless function_call: line 5");
		has_str(r->errors[2].msg, "without \"name\"", "nameless function_call: message");
		is_int(r->errors[3].line, 6, "cut JSON: line 6");
	}
	is_kinds(r, "system text", "malformed: good lines still parsed");
	is_int(r->incomplete, 0, "malformed: task_complete still counts");
	run_free(r);
}

static void test_event_only(void)
{
	struct run *r = feed_str(
		"{\"type\":\"session_meta\",\"payload\":{\"id\":\"ev\"}}\n"
		"{\"type\":\"event_msg\",\"payload\":{\"type\":\"user_message\",\"message\":\"Hi.\"}}\n"
		"{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_reasoning\",\"text\":\"**Greeting**\"}}\n"
		"{\"type\":\"event_msg\",\"payload\":{\"type\":\"agent_message\",\"message\":\"Hello.\"}}\n"
		"{\"type\":\"event_msg\",\"payload\":{\"type\":\"task_complete\"}}\n");
	is_kinds(r, "system user reasoning text", "rollout without response items: events shown");
	is_str(EV(nth(r, EV_TEXT, 0))->text, "Hello.", "event-only: agent_message text");
	is_int(EV(nth(r, EV_REASONING, 0))->redacted, 1, "event-only: agent_reasoning is a summary");
	is_int(r->incomplete, 0, "event-only: complete");
	run_free(r);
}

static void test_legacy(void)
{
	struct run *r = load(LEGACY);
	is_str(r->meta.format, "codex", "legacy: bare response items sniffed as codex");
	is_int(r->malformed, 0, "legacy: no malformed line");
	is_kinds(r, "system user reasoning tool_call tool_result text", "legacy");
	is_str(r->meta.session_id, "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "legacy: session id from the first line");
	is_str(EV(by_id(r, EV_TOOL_RESULT, "call_1"))->text, "a.txt\n", "legacy: output text from JSON string");
	is_int(r->incomplete, 1, "legacy: no task_complete ever written, so incomplete");
	run_free(r);
}

/* ---- codex exec output --------------------------------------------------- */

static void test_exec_full(void)
{
	struct run *r = load(XFULL);
	const struct event *e;
	long long in;

	is_str(r->meta.format, "codex-exec", "exec: sniffed as codex-exec");
	is_int(r->malformed, 0, "exec: no malformed line");
	is_int(r->incomplete, 0, "exec: final 'tokens used' marks completion");
	is_kinds(r, "system system user system system reasoning tool_call tool_result tool_call "
	            "tool_result tool_call tool_call tool_result tool_result text tool_call tool_result "
	            "tool_call tool_result tool_call tool_result tool_call system compaction system error "
	            "text usage", "exec");
	is_str(r->meta.cwd, "/w/proj", "exec: cwd from workdir");
	is_str(r->meta.model, "gpt-5.3-codex", "exec: model from header");
	is_str(r->meta.effort, "high", "exec: effort from header");
	is_str(r->meta.session_id, "019c5c6a-0000-7dd1-b8b1-fb250a349be0", "exec: session id from header");

	is_str(EV(nth(r, EV_SYSTEM, 0))->name, "output", "stray line before the banner: output event");
	e = EV(nth(r, EV_SYSTEM, 1));
	is_str(e->name, "session", "header: system event");
	has_str(e->text, "sandbox: danger-full-access", "header: lists its settings");
	is_int(e->line, 2, "header: from the banner line");
	e = EV(nth(r, EV_USER, 0));
	is_str(e->text, "Write a kernel in sol.py.\n\nKeep the interface.", "user: prompt with its blank line");
	is_int(e->line, 13, "user: line of the section word");
	is_str(EV(nth(r, EV_SYSTEM, 2))->name, "mcp", "mcp notice: system event");
	is_str(EV(nth(r, EV_SYSTEM, 3))->name, "log", "codex's own log line: system event");
	e = EV(nth(r, EV_REASONING, 0));
	is_str(e->text, "**Planning the kernel**\n\nI will read the reference first.", "thinking: text");
	is_int(e->redacted, 1, "thinking: a summary, so redacted");

	e = EV(by_id(r, EV_TOOL_CALL, "exec-1"));
	is_str(e->name, "exec", "exec: tool call named exec");
	is_str(e->args, "{\"command\":\"/bin/bash -lc 'cat ref.py'\",\"workdir\":\"/w/proj\"}",
	       "exec: command and workdir as arguments");
	e = EV(by_id(r, EV_TOOL_RESULT, "exec-1"));
	is_str(e->text, "def ref(x):\n    return x * 2", "exec result: output, trailing blank dropped");
	is_int(e->is_error, 0, "exec result: succeeded");
	e = EV(by_id(r, EV_TOOL_RESULT, "exec-2"));
	is_int(e->is_error, 1, "exec result: 'exited 2' is an error");
	is_str(e->text, "python: can't open file 'missing.py'", "exec result: error output");
	is_str(EV(by_id(r, EV_TOOL_CALL, "exec-3"))->args, "{\"command\":\"/bin/bash -lc ls\",\"workdir\":\"/w/proj\"}",
	       "glued 'exec': the first command keeps its own workdir");
	is_str(EV(by_id(r, EV_TOOL_RESULT, "exec-4"))->text, "GPU 0: H200", "glued 'exec': second command's result");
	is_str(EV(by_id(r, EV_TOOL_RESULT, "exec-3"))->text, "ref.py", "bare ' succeeded' line: the pending call's result");

	e = EV(nth(r, EV_TOOL_CALL, 4));
	is_str(e->name, "apply_patch", "file update: apply_patch call");
	is_str(e->path, "/w/proj/sol.py", "file update A: path");
	has_str(ev_diff(r, e), "@@ -0,0 +1,4 @@\n+def f(x):\n+    return x + 1\n+\n+print(f(1))\n",
	        "file update A: adds the content, blank line included");
	is_int(e->line, 40, "file update: line of the block");
	e = EV(nth(r, EV_TOOL_CALL, 5));
	has_str(ev_diff(r, e), "@@ -1,4 +1,4 @@\n def f(x):\n-    return x + 1\n+    return x * 2\n \n print(f(1))\n",
	        "file update M: hunk against the added content");
	e = EV(nth(r, EV_TOOL_RESULT, 5));
	is_str(e->text, "Success. Updated the following files:\nM /w/proj/sol.py", "apply_patch result text");
	ok(e->link >= 0 && r->ev[e->link].name && !strcmp(r->ev[e->link].name, "apply_patch"),
	   "apply_patch result linked to its call");
	ok(!strstr(EV(nth(r, EV_TEXT, 0))->text, "diff --git"), "turn diff dropped");

	e = EV(nth(r, EV_TOOL_CALL, 6));
	is_str(e->name, "docs.search", "MCP tool: server.tool name");
	is_str(e->args, "{\"q\":\"cuda\"}", "MCP tool: arguments");
	is_str(EV(by_id(r, EV_TOOL_RESULT, e->call_id ? e->call_id : "-"))->text, "{\n  \"hits\": 1\n}",
	       "MCP tool: result text");
	e = EV(nth(r, EV_TOOL_CALL, 7));
	is_str(e->name, "web_search", "web search: a tool call");
	is_str(e->args, "{\"query\":\"cuda fp8 gemm\"}", "web search: query");
	is_str(EV(nth(r, EV_SYSTEM, 4))->name, "warning", "warning: system event");
	is_str(EV(nth(r, EV_COMPACTION, 0))->text, "context compacted", "context compacted: compaction event");
	e = EV(nth(r, EV_SYSTEM, 5));
	is_str(e->name, "plan", "Plan update: system event named plan");
	is_str(e->text, "  \xE2\x9C\x93 read ref.py\n  \xE2\x86\x92 write sol.py", "Plan update: its steps");
	e = EV(nth(r, EV_ERROR, 0));
	is_str(e->text, "stream disconnected before completion", "ERROR: error event");
	is_int(e->is_error, 1, "ERROR: is_error");
	is_int(run_count(r, EV_TEXT), 2, "final message echoed on stdout not added again");
	run_tokens(r, &in, NULL, NULL, NULL, NULL);
	is_int(in, 12345, "tokens used: the total");
	ok(results_linked(r), "exec: every result linked");
	run_free(r);
}

static void test_exec_stamped(void)
{
	struct run *r = load(XSTAMPED);
	const struct event *e;
	long long in;

	is_str(r->meta.format, "codex-exec", "stamped: sniffed as codex-exec");
	is_int(r->malformed, 0, "stamped: no malformed line");
	is_int(r->incomplete, 0, "stamped: ends with a token count");
	is_kinds(r, "system user reasoning tool_call tool_result usage tool_call tool_result tool_call "
	            "tool_result tool_call tool_result usage text usage", "stamped");
	is_str(r->meta.model, "o4-mini", "stamped: model");
	e = EV(nth(r, EV_USER, 0));
	is_str(e->text, "Fix the bug.\ncodex\nThe word above is part of the prompt.",
	       "stamped: an unstamped section word is body text");
	is_int((long long)e->ts, 1754481601, "stamped: timestamp of the section line");
	e = EV(by_id(r, EV_TOOL_CALL, "exec-1"));
	is_str(e->args, "{\"command\":\"bash -lc 'ls'\",\"workdir\":\"/w/old\"}", "stamped exec: one-line call");
	e = EV(by_id(r, EV_TOOL_RESULT, "exec-4"));
	is_int(e->is_error, 1, "stamped exec: exited 1 is an error");
	is_str(e->text, "FAIL: exit status 1", "stamped exec: output");
	e = EV(nth(r, EV_TOOL_CALL, 2));
	has_str(ev_diff(r, e), "@@ -1,4 +1,4 @@\n int main(void)\n {\n-\treturn 0;\n+\treturn 1;\n }\n",
	        "stamped patch: Update against the added file");
	run_tokens(r, &in, NULL, NULL, NULL, NULL);
	is_int(in, 6000, "stamped: per-turn counts add up");
	ok(results_linked(r), "stamped: every result linked");
	run_free(r);
}

static void test_exec_cut_and_bad(void)
{
	struct run *r = load(XCUT);
	is_str(r->meta.format, "codex-exec", "exec cut: sniffed");
	is_int(r->incomplete, 1, "exec cut: no token count, incomplete");
	is_kinds(r, "system user reasoning tool_call tool_result", "exec cut");
	run_free(r);

	r = load(XBAD);
	is_int(r->malformed, 2, "exec malformed: two bad lines");
	if (r->nerrors == 2) {
		is_int(r->errors[0].line, 7, "apply_patch result without block: line 7");
		has_str(r->errors[0].msg, "without its \"file update\" block", "orphan patch result: message");
		is_int(r->errors[1].line, 12, "count missing after 'tokens used': line 12");
	}
	is_int(r->incomplete, 0, "exec malformed: the final 'tokens used' was printed, count or not");
	run_free(r);

	r = feed_str("\x1b[1mOpenAI Codex v0.50.0\x1b[0m\n--------\nmodel: m\n--------\n"
	             "\x1b[35m\x1b[3mcodex\x1b[0m\nhi\n\x1b[35mtokens used\x1b[0m\n1,000\n");
	is_str(r->meta.format, "codex-exec", "colour escapes: sniffed");
	is_kinds(r, "system text usage", "colour escapes removed before parsing");
	is_str(EV(nth(r, EV_TEXT, 0))->text, "hi", "colour escapes: text");
	is_int(r->incomplete, 0, "colour escapes: complete");
	run_free(r);

	r = feed_str("[2025-08-06T12:00:00] OpenAI Codex v0.20.0\n--------\n--------\n"
	             "[2025-08-06T12:00:01] tokens used: 10\n[2025-08-06T12:00:02] ERROR: boom\n");
	is_int(r->incomplete, 1, "error after the last count: incomplete");
	is_str(EV(nth(r, EV_ERROR, 0))->text, "boom", "stamped ERROR text");
	run_free(r);
}

/* ---- sniffing -------------------------------------------------------------- */

static void test_sniff(void)
{
	const char *rollout = "{\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":[]}}";
	const char *oc = "{\"type\":\"step_start\",\"sessionID\":\"ses_1\",\"part\":{\"type\":\"step-start\"}}";
	const char *droid = "{\"type\":\"message\",\"role\":\"user\",\"id\":\"x\",\"text\":\"hi\"}";
	ok(score("codex", rollout) > 0, "codex sniff: response_item");
	is_int(score("codex", oc), 0, "codex sniff: opencode line scores 0");
	is_int(score("codex", droid), 0, "codex sniff: droid message scores 0");
	is_int(score("codex", "{\"type\":\"text\",\"data\":\"x\"}"), 0, "codex sniff: grok line scores 0");
	is_int(score("codex-exec", rollout), 0, "codex-exec sniff: JSON scores 0");
	is_int(score("codex-exec", "OpenAI Codex v0.101.0 (research preview)"), 90, "codex-exec sniff: banner");
	is_int(score("codex-exec", "[2025-08-06T12:00:03] thinking"), 40, "codex-exec sniff: stamped section");
	is_int(score("codex-exec", "--------"), 0, "codex-exec sniff: dashes alone score 0");
	is_int(score("codex-exec", "codex"), 0, "codex-exec sniff: a bare word scores 0");
	is_int(score("codex-exec", "[2025-08-06T12:00:03] hello"), 0, "codex-exec sniff: stamp without section word");
	ok(parser_sniff("hello\nworld\n", 12) == NULL, "plain prose is no known format");
	for (size_t i = 0; parser_all[i]; i++)
		if (strcmp(parser_all[i]->name, "codex") != 0)
			is_int(score(parser_all[i]->name, rollout), 0, "%s sniff: codex rollout line scores 0",
			       parser_all[i]->name);
}

/* ---- the real sample ------------------------------------------------------- */

static size_t with_diff(const struct run *r)
{
	size_t k = 0;
	for (size_t i = 0; i < r->nev; i++)
		k += r->ev[i].kind == EV_TOOL_CALL && r->ev[i].diff && *r->ev[i].diff;
	return k;
}

static void corpus_run(const char *id, const char *path, int complete, int *runs)
{
	char *err = NULL;
	struct run *r = parser_load_file(path, NULL, &err);
	int lines = 0;
	if (!r) {
		ok(0, "%s loads: %s", id, err ? err : "?");
		free(err);
		return;
	}
	is_str(r->meta.format, "codex", "%s: sniffed as codex", id);
	is_int(r->malformed, 0, "%s: no malformed line%s%s", id, r->nerrors ? ": " : "",
	       r->nerrors ? r->errors[0].msg : "");
	ok(results_linked(r), "%s: every tool_result linked", id);
	is_int(r->incomplete, !complete, "%s: incomplete matches session_complete", id);
	is_int(run_count(r, EV_USAGE), 1, "%s: the one token_count gives one usage event", id);
	for (size_t i = 0; parser_all[i]; i++)
		if (strcmp(parser_all[i]->name, "codex") != 0)
			is_int(claimed(path, parser_all[i]->name, &lines), 0, "%s: no line scores for %s", id,
			       parser_all[i]->name);
	printf("# %s: %zu events, %zu tool calls, %zu with a diff, %s\n", id, r->nev,
	       run_count(r, EV_TOOL_CALL), with_diff(r), r->incomplete ? "incomplete" : "complete");
	(*runs)++;
	run_free(r);
}

static void test_corpus(void)
{
	const char *kbh = tap_shared_kbh();
	char *index, *p, *ip;
	size_t n = 0;
	int runs = 0, foreign_runs = 0, foreign_lines = 0, foreign_bad = 0;

	if (!kbh) {
		tap_skip("no ../shared/kbh: corpus check skipped");
		return;
	}
	ip = util_path_join(kbh, "runs.jsonl");
	index = util_read_file(ip, &n);
	free(ip);
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
		if (format && rel && id) {
			char *path = util_path_join(kbh, rel);
			if (!strcmp(format, "codex")) {
				corpus_run(id, path, jx_bool(o, "session_complete", 0), &runs);
			} else {
				foreign_bad += claimed(path, "codex", &foreign_lines);
				foreign_bad += claimed(path, "codex-exec", &foreign_lines);
				foreign_runs++;
			}
			free(path);
		}
		cJSON_Delete(o);
	}
	free(index);
	is_int(runs, 5, "all 5 codex runs of the sample checked");
	ok(foreign_runs > 0, "other formats' runs checked (%d runs, %d line checks)", foreign_runs, foreign_lines);
	is_int(foreign_bad, 0, "no line of another format scores for codex or codex-exec");
}

/* ---- real transcripts: shell commands, exec_command results, exec --json -- */

static const struct event *first_kind(const struct run *r, enum ev_kind k)
{
	return nth(r, k, 0);
}

/* Codex `shell` calls carry the command as an array: the list shows the
 * command, not the workdir (the first string argument). */
static void test_real_shell(void)
{
	struct run *r = load("tests/realworld/acmd-codex-piece-function-shell.jsonl");
	const struct event *c = first_kind(r, EV_TOOL_CALL);
	is_str(c ? c->name : NULL, "shell", "a real shell call");
	is_str(c ? c->summary : NULL, "ls", "shows its command (zsh -lc ls), not its workdir");
	run_free(r);
	r = load("tests/realworld/acmd-codex-rollout-019982b8.jsonl");
	const struct event *res = first_kind(r, EV_TOOL_RESULT);
	is_str(res ? res->summary : NULL, "exit 0: CLAUDE.md", "a real shell result: exit code and first line");
	run_free(r);
	/* exec_command's text header is not the summary */
	r = feed_str("{\"timestamp\":\"2026-04-27T23:23:40Z\",\"type\":\"session_meta\","
	             "\"payload\":{\"id\":\"x\",\"cwd\":\"/w\"}}\n"
	             "{\"timestamp\":\"2026-04-27T23:23:41Z\",\"type\":\"response_item\","
	             "\"payload\":{\"type\":\"function_call\",\"name\":\"exec_command\","
	             "\"arguments\":\"{\\\"cmd\\\":\\\"pytest\\\"}\",\"call_id\":\"c1\"}}\n"
	             "{\"timestamp\":\"2026-04-27T23:23:42Z\",\"type\":\"response_item\","
	             "\"payload\":{\"type\":\"function_call_output\",\"call_id\":\"c1\","
	             "\"output\":\"Chunk ID: 6ecf91\\nWall time: 0.1 seconds\\nProcess exited with code 2\\n"
	             "Original token count: 9\\nOutput:\\n\\n   ==== 3 errors ====\\nmore\\n\"}}\n");
	res = first_kind(r, EV_TOOL_RESULT);
	is_str(res ? res->summary : NULL, "exit 2: ==== 3 errors ====",
	       "exec_command result: exit code and first meaningful line, not \"Chunk ID\"");
	ok(res && res->is_error, "exit 2 is a failed result");
	run_free(r);
}

/* codex exec --json: a format of its own, told apart from codex-exec. */
static void test_codex_json(void)
{
	struct run *r = load("tests/realworld/acmd-codex-exec-json-5.jsonl");
	is_str(r->meta.format, "codex-json", "a real codex exec --json file is codex-json");
	is_kinds(r, "reasoning tool_call tool_result reasoning text usage", "codex exec --json");
	const struct event *c = first_kind(r, EV_TOOL_CALL), *res = first_kind(r, EV_TOOL_RESULT);
	is_str(c ? c->name : NULL, "command_execution", "the command is a call");
	has_str(c ? c->args : NULL, "zsh -lc ls", "with its command");
	has_str(res ? res->text : NULL, "hello.txt", "its output is the result");
	ok(results_linked(r), "the result is linked to its call (item id)");
	const struct event *u = first_kind(r, EV_USAGE);
	is_int(u ? u->tok_in : -1, 6086 - 2944, "input less the cached");
	is_int(u ? u->tok_cache_read : -1, 2944, "cached input as cache reads");
	is_int(u ? u->tok_out : -1, 223, "output");
	is_str(r->meta.session_id, "019a2d7b-7fb8-78e1-8cfa-5bdbe274a3aa", "thread id as session id");
	is_int(r->incomplete, 0, "turn.completed: complete");
	run_free(r);

	r = load("tests/realworld/takopi-codex_exec_json_all_formats.jsonl");
	is_str(r->meta.format, "codex-json", "every item type: codex-json");
	const struct event *fc = by_id(r, EV_TOOL_RESULT, "item_3"), *fcbad = by_id(r, EV_TOOL_RESULT, "item_4");
	is_str(fc ? fc->text : NULL, "update src/compute_answer.py\nadd README.md", "file_change lists its changes");
	ok(fcbad && fcbad->is_error, "a failed file_change is a failed result");
	const struct event *mcp = by_id(r, EV_TOOL_CALL, "item_5");
	is_str(mcp ? mcp->name : NULL, "github.search_issues", "an MCP call is named server.tool");
	const struct event *mcpbad = by_id(r, EV_TOOL_RESULT, "item_6");
	ok(mcpbad && mcpbad->is_error && mcpbad->text && !strcmp(mcpbad->text, "tool timeout"), "an MCP error is said");
	const struct event *cmdbad = by_id(r, EV_TOOL_RESULT, "item_2");
	ok(cmdbad && cmdbad->is_error, "exit code 1: a failed command");
	const struct event *todo = by_id(r, EV_TOOL_RESULT, "item_0");
	is_str(todo ? todo->text : NULL, "[x] Inspect repo structure\n[x] Run tests\n[x] Fix failing tests",
	       "a todo list's final state");
	is_int(run_count(r, EV_TOOL_CALL), 8, "one call per item (8), whatever its updates");
	int failed_turn = 0;
	for (size_t i = 0; i < r->nev; i++)
		failed_turn += r->ev[i].name && !strcmp(r->ev[i].name, "turn.failed") && r->ev[i].kind == EV_ERROR;
	is_int(failed_turn, 1, "turn.failed is an error row");
	is_int(r->incomplete, 0, "a failed turn ended the run: not cut short");
	long long out;
	run_tokens(r, NULL, &out, NULL, NULL, NULL);
	is_int(out, 732, "turn.completed usage");
	ok(results_linked(r), "every result linked");
	run_free(r);

	/* the sniffer tells the two codex exec outputs apart */
	size_t n = 0;
	char *txt = util_read_file(tap_path(XFULL), &n);
	const struct parser_ops *ops = txt ? parser_sniff(txt, n) : NULL;
	is_str(ops ? ops->name : NULL, "codex-exec", "plain codex exec output stays codex-exec");
	free(txt);
	r = feed_str("{\"type\":\"thread.started\",\"thread_id\":\"t\"}\n{\"type\":\"turn.started\"}\n"
	             "{\"type\":\"item.completed\",\"item\":{\"id\":\"item_0\",\"type\":\"agent_message\",\"text\":\"4\"}}\n");
	is_str(r->meta.format, "codex-json", "JSON lines are codex-json");
	is_int(r->incomplete, 1, "no turn.completed: incomplete");
	run_free(r);
}

int main(void)
{
	test_full();
	test_cut();
	test_malformed();
	test_legacy();
	test_event_only();
	test_exec_full();
	test_exec_stamped();
	test_exec_cut_and_bad();
	test_sniff();
	check_split(FULL, 0);
	check_split(CUT, 0);
	check_split(BAD, 0);
	check_split(LEGACY, 0);
	check_split(XFULL, 1);
	check_split(XSTAMPED, 1);
	check_split(XCUT, 1);
	check_split(XBAD, 1);
	test_corpus();
	test_real_shell();
	test_codex_json();
	return tap_done();
}
