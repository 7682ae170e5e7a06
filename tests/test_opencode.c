/* OpenCode parser (`opencode run --format json`): event mapping, tool
 * calls with their results, write-then-edit diffs, usage per step, the
 * completion rule, malformed lines, sniffing, split and growing input, and
 * the real sample's opencode runs against runs.jsonl's session_complete. */
#include "tap.h"
#include "evsig.h"
#include "parser.h"
#include "jsonx.h"
#include "parsetest.h"

#define FULL "tests/fixtures/opencode/run_full.jsonl"
#define CUT "tests/fixtures/opencode/run_cut.jsonl"
#define BAD "tests/fixtures/opencode/run_malformed.jsonl"

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
	long long in, out, cr, cw, rs;

	is_str(r->meta.format, "opencode", "full: sniffed as opencode");
	is_int(r->malformed, 0, "full: no malformed line");
	is_int(r->incomplete, 0, "full: last step finished with reason stop");
	is_kinds(r, "reasoning text tool_call tool_result usage tool_call tool_result tool_call tool_result "
	            "tool_call tool_result usage system error text usage", "full");
	is_str(r->meta.session_id, "ses_4f2a9c1e7ffeAbCdEf012345", "full: session id from sessionID");

	e = EV(nth(r, EV_REASONING, 0));
	is_str(e->text, "I should write sol.py first.", "reasoning text");
	is_int(e->redacted, 0, "visible reasoning is not redacted");
	ok(e->ts > 1761998400.04 && e->ts < 1761998400.06, "reasoning: time from part.time.start (ms)");
	e = EV(nth(r, EV_TEXT, 0));
	is_str(e->text, "Writing the solution.", "text part");
	is_int(e->line, 3, "text: line number");

	e = EV(by_id(r, EV_TOOL_CALL, "call_w"));
	is_str(e->name, "write", "write call");
	is_str(e->path, "/w/oc/sol.py", "write: path from filePath");
	has_str(ev_diff(r, e), "@@ -0,0 +1,4 @@\n+def f(x):\n+    return x + 1\n+\n+print(f(1))\n", "write: diff adds the content");
	has_str(e->args, "\"filePath\":\"/w/oc/sol.py\"", "write: state.input as arguments");
	e = EV(by_id(r, EV_TOOL_RESULT, "call_w"));
	is_str(e->text, "Wrote file successfully.", "write result: output");
	is_int(e->is_error, 0, "completed: no error");
	is_int(e->link, 2, "result follows and links to its call");
	e = EV(by_id(r, EV_TOOL_CALL, "call_e"));
	is_str(e->name, "edit", "edit call");
	is_str(ev_diff(r, e), "--- a/w/oc/sol.py\n+++ b/w/oc/sol.py\n@@ -1,4 +1,4 @@\n def f(x):\n-    return x + 1\n"
	                "+    return x * 2\n \n print(f(1))\n", "edit: diff against the written file");
	e = EV(by_id(r, EV_TOOL_RESULT, "call_b"));
	is_int(e->is_error, 1, "status error: is_error");
	is_str(e->text, "Error: python: can't open file 'missing.py'", "status error: state.error as text");
	e = EV(by_id(r, EV_TOOL_RESULT, "call_r"));
	is_int(e->is_error, 1, "error without text: is_error");
	is_str(e->text, "", "error without text: empty");
	ok(results_linked(r), "full: every result linked");

	e = EV(nth(r, EV_USAGE, 0));
	is_int(e->tok_in, 1200, "usage: input");
	is_int(e->tok_out, 300, "usage: output");
	is_int(e->tok_reasoning, 50, "usage: reasoning");
	is_int(e->tok_cache_read, 800, "usage: cache read");
	is_int(e->tok_cache_write, 100, "usage: cache write");
	is_str(e->name, "tool-calls", "usage: finish reason as name");
	is_str(e->text, "cost $0.003100", "usage: cost as text");
	run_tokens(r, &in, &out, &cr, &cw, &rs);
	is_int(in, 1600, "usage: input summed over steps");
	is_int(cr, 5100, "usage: cache read summed over steps");

	is_str(EV(nth(r, EV_SYSTEM, 0))->name, "session_idle", "unknown record type: visible system event");
	e = EV(nth(r, EV_ERROR, 0));
	is_str(e->text, "Provider returned error", "error: data.message");
	is_str(e->name, "APIError", "error: name");
	is_int(e->is_error, 1, "error: is_error");
	ok(e->ts > 1761998400.89 && e->ts < 1761998400.91, "error: top-level timestamp (ms)");
	run_free(r);
}

static void test_completion(void)
{
	struct run *r = load(CUT);
	is_int(r->incomplete, 1, "cut: last step_finish is tool-calls, incomplete");
	run_free(r);

#define OC_SS "{\"type\":\"step_start\",\"sessionID\":\"ses_x\",\"part\":{\"type\":\"step-start\"}}\n"
#define OC_TX "{\"type\":\"text\",\"sessionID\":\"ses_x\",\"part\":{\"type\":\"text\",\"text\":\"hi\"}}\n"
#define OC_TU "{\"type\":\"tool_use\",\"sessionID\":\"ses_x\",\"part\":{\"tool\":\"bash\",\"callID\":\"c1\"," \
              "\"state\":{\"status\":\"completed\",\"input\":{},\"output\":\"ok\"}}}\n"
#define OC_SF "{\"type\":\"step_finish\",\"sessionID\":\"ses_x\",\"part\":{\"tokens\":{\"input\":1}}}\n"
#define OC_ER "{\"type\":\"error\",\"sessionID\":\"ses_x\",\"error\":{\"name\":\"UnknownError\",\"data\":{\"message\":\"boom\"}}}\n"
	r = feed_str(OC_SS OC_TX OC_SF);
	is_int(r->incomplete, 0, "no reason, text-only last step: complete");
	run_free(r);
	r = feed_str(OC_SS OC_TU OC_SF);
	is_int(r->incomplete, 1, "no reason, last step called a tool: incomplete");
	run_free(r);
	r = feed_str(OC_SS OC_TX);
	is_int(r->incomplete, 1, "text last (step never finished): incomplete");
	run_free(r);
	r = feed_str(OC_SS OC_TU OC_SF OC_ER);
	is_int(r->incomplete, 0, "error last: the run ended, complete");
	is_str(EV(nth(r, EV_ERROR, 0))->text, "boom", "error text");
	run_free(r);
	r = feed_str(OC_ER);
	is_str(r->meta.format, "opencode", "a lone error line: sniffed as opencode");
	is_kinds(r, "error", "lone error");
	run_free(r);
	r = feed_str("{\"type\":\"tool_use\",\"sessionID\":\"s\",\"part\":{\"tool\":\"task\",\"callID\":\"t1\","
	             "\"state\":{\"status\":\"running\",\"input\":{\"prompt\":\"go\"}}}}\n");
	is_kinds(r, "tool_call", "running tool: call without result yet");
	run_free(r);
}

static void test_malformed(void)
{
	struct run *r = load(BAD);
	is_str(r->meta.format, "opencode", "malformed: still sniffed as opencode");
	is_int(r->malformed, 4, "malformed: four bad lines");
	if (r->nerrors == 4) {
		is_int(r->errors[0].line, 2, "record without type: line 2");
		has_str(r->errors[0].msg, "without \"type\"", "record without type: message");
		is_int(r->errors[1].line, 3, "text without part: line 3");
		has_str(r->errors[1].msg, "without \"part\"", "text without part: message");
		is_int(r->errors[2].line, 4, "tool_use without tool: line 4");
		has_str(r->errors[2].msg, "part.tool", "tool_use without tool: message");
		is_int(r->errors[3].line, 5, "cut JSON: line 5");
	}
	is_kinds(r, "text usage", "malformed: good lines still parsed");
	is_int(r->incomplete, 0, "malformed: still complete");
	run_free(r);
}

static void test_sniff(void)
{
	const char *lines[] = {OC_SS, OC_TX, OC_TU, OC_SF, OC_ER};
	for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
		char *l = xstrndup(lines[i], strlen(lines[i]) - 1);
		ok(score("opencode", l) > 0, "opencode sniff: %.30s...", l);
		for (size_t j = 0; parser_all[j]; j++)
			if (strcmp(parser_all[j]->name, "opencode") != 0)
				is_int(score(parser_all[j]->name, l), 0, "%s sniff: opencode line %zu scores 0",
				       parser_all[j]->name, i);
		free(l);
	}
	is_int(score("opencode", "{\"type\":\"text\",\"data\":\"x\"}"), 0, "opencode sniff: grok text line scores 0");
	is_int(score("opencode", "{\"type\":\"text\",\"part\":{\"text\":\"x\"}}"), 0, "opencode sniff: needs sessionID");
}

/* ---- the real sample ------------------------------------------------------- */

struct tally {
	int runs, incomplete, not_complete, missed, extra, foreign_bad, lines;
};

static void corpus_run(const char *id, const char *path, int complete, struct tally *t)
{
	char *err = NULL;
	struct run *r = parser_load_file(path, NULL, &err);
	int others = 0;
	if (!r) {
		ok(0, "%s loads: %s", id, err ? err : "?");
		free(err);
		return;
	}
	is_str(r->meta.format, "opencode", "%s: sniffed as opencode", id);
	is_int(r->malformed, 0, "%s: no malformed line%s%s", id, r->nerrors ? ": " : "",
	       r->nerrors ? r->errors[0].msg : "");
	ok(results_linked(r), "%s: every tool_result linked", id);
	for (size_t i = 0; parser_all[i]; i++)
		if (strcmp(parser_all[i]->name, "opencode") != 0)
			others += claimed(path, parser_all[i]->name, &t->lines);
	is_int(others, 0, "%s: no line scores for another format", id);
	printf("# %s: %zu events, %zu tool calls, %s, session_complete=%s\n", id, r->nev,
	       run_count(r, EV_TOOL_CALL), r->incomplete ? "incomplete" : "complete", complete ? "true" : "false");
	t->runs++;
	t->incomplete += r->incomplete;
	t->not_complete += !complete;
	t->missed += !complete && !r->incomplete;
	t->extra += complete && r->incomplete;
	run_free(r);
}

static void test_corpus(void)
{
	const char *kbh = tap_shared_kbh();
	char *index, *p, *ip;
	size_t n = 0;
	struct tally t = {0};
	int foreign_runs = 0;

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
			if (!strcmp(format, "opencode")) {
				corpus_run(id, path, jx_bool(o, "session_complete", 0), &t);
			} else {
				t.foreign_bad += claimed(path, "opencode", &t.lines);
				foreign_runs++;
			}
			free(path);
		}
		cJSON_Delete(o);
	}
	free(index);
	is_int(t.runs, 69, "all 69 opencode runs of the sample checked");
	ok(foreign_runs > 0, "other formats' runs checked (%d runs)", foreign_runs);
	is_int(t.foreign_bad, 0, "no line of another format scores for opencode");
	printf("# completion rule: %d of %d runs incomplete; session_complete=false: %d; "
	       "false but complete: %d; true but incomplete: %d\n",
	       t.incomplete, t.runs, t.not_complete, t.missed, t.extra);
	is_int(t.missed, 0, "every run with session_complete=false is marked incomplete");
	ok(t.extra <= 7, "at most the 7 runs that stop after a step with tool calls disagree the other way (%d)",
	   t.extra);
}

/* Reasoning a provider sent through OpenRouter arrives in
 * part.metadata.openrouter.reasoning_details: shown as reasoning. */
static void test_openrouter_reasoning(void)
{
	const char *doc =
		"{\"type\":\"step_start\",\"timestamp\":1767036059338,\"sessionID\":\"ses_x\",\"part\":{\"id\":\"p0\","
		"\"sessionID\":\"ses_x\",\"messageID\":\"m1\",\"type\":\"step-start\"}}\n"
		"{\"type\":\"reasoning\",\"timestamp\":1767036059400,\"sessionID\":\"ses_x\",\"part\":{\"id\":\"p1\","
		"\"sessionID\":\"ses_x\",\"messageID\":\"m1\",\"type\":\"reasoning\",\"text\":\"\",\"metadata\":{\"openrouter\":"
		"{\"reasoning_details\":[{\"type\":\"reasoning.text\",\"text\":\"Tile the GEMM.\",\"format\":\"unknown\"}]}},"
		"\"time\":{\"start\":1767036059350,\"end\":1767036059400}}}\n"
		"{\"type\":\"text\",\"timestamp\":1767036059500,\"sessionID\":\"ses_x\",\"part\":{\"id\":\"p2\","
		"\"sessionID\":\"ses_x\",\"messageID\":\"m1\",\"type\":\"text\",\"text\":\"Done.\",\"metadata\":{\"openrouter\":"
		"{\"reasoning_details\":[{\"type\":\"reasoning.encrypted\",\"data\":\"gAAA\"}]}},"
		"\"time\":{\"start\":1767036059450,\"end\":1767036059500}}}\n";
	struct run *r = feed_str(doc);
	const struct event *a = nth(r, EV_REASONING, 0), *b = nth(r, EV_REASONING, 1);
	is_str(a ? a->text : NULL, "Tile the GEMM.", "reasoning text from reasoning_details");
	ok(a && !a->redacted, "readable: not redacted");
	ok(b && b->redacted, "encrypted details on a text part: a redacted reasoning event");
	is_str(nth(r, EV_TEXT, 0) ? nth(r, EV_TEXT, 0)->text : NULL, "Done.", "the text itself stays");
	run_free(r);
}

int main(void)
{
	test_full();
	test_completion();
	test_malformed();
	test_sniff();
	check_split(FULL);
	check_split(CUT);
	check_split(BAD);
	test_corpus();
	test_openrouter_reasoning();
	return tap_done();
}
