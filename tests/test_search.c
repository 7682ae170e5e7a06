/* Regular-expression search: compile errors, smart case, offsets, untrusted
 * text, which fields of an event are searched, moving between matching
 * events with wrap-around. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "run.h"
#include "search.h"
#include "tap.h"
#include "util.h"

static int matches(const char *pat, const char *text)
{
	char *err = NULL;
	struct search *s = search_new(pat, &err);
	size_t so, eo;
	int hit = s && search_next(s, text, strlen(text), 0, &so, &eo);
	search_free(s);
	free(err);
	return hit;
}

static void test_compile(void)
{
	char *err = NULL;
	ok(search_new("", &err) == NULL, "an empty pattern is refused");
	is_str(err, "empty pattern", "and said so");
	free(err);
	ok(search_new("kernel(", &err) == NULL, "an unbalanced parenthesis is refused");
	has_str(err, "at offset 7", "the message gives the offset");
	free(err);
	struct search *s = search_new("ptxas|nvcc", &err);
	ok(s != NULL, "an alternation compiles");
	is_str(search_pattern(s), "ptxas|nvcc", "the pattern is kept");
	search_free(s);
}

static void test_case(void)
{
	ok(matches("error", "RuntimeError: CUDA ERROR"), "lower case ignores case");
	ok(!matches("Error", "a compile error"), "an upper-case letter makes it case-sensitive");
	ok(matches("Error", "RuntimeError"), "which still matches itself");
	ok(matches("\\S+error", "cudaerror"), "an escape like \\S is not an upper-case letter");
	ok(matches("^ptxas", "ok\nptxas info"), "^ matches at the start of each line");
	ok(matches("\u00e9t\u00e9", "r\u00e9sum\u00e9 de l'\u00e9t\u00e9"), "UTF-8 in pattern and text");
	ok(matches("abc", "\xff\xfe abc"), "invalid UTF-8 before the match does not stop the search");
	ok(!matches("xyz", "\xff\xfe abc"), "nor make a false match");
}

static void test_offsets(void)
{
	char *err = NULL;
	struct search *s = search_new("ms=[0-9.]+", &err);
	const char *t = "shape=0 ms=0.297 shape=1 ms=12.5";
	size_t so = 0, eo = 0;
	ok(search_next(s, t, strlen(t), 0, &so, &eo), "first match");
	is_int((long long)so, 8, "starts at byte 8");
	is_int((long long)eo, 16, "ends at byte 16");
	ok(search_next(s, t, strlen(t), eo, &so, &eo), "a second match from the end of the first");
	is_int((long long)so, 25, "at byte 25");
	ok(!search_next(s, t, strlen(t), eo, &so, &eo), "no third");
	ok(!search_next(s, t, strlen(t), strlen(t) + 1, &so, &eo), "a start past the end finds nothing");
	search_free(s);
	s = search_new("x*", &err);
	ok(search_next(s, "abc", 3, 0, &so, &eo) && so == 0 && eo == 0, "an empty match is reported as empty");
	search_free(s);
}

static struct run *test_run(void)
{
	struct run *r = run_new();
	struct event *e = run_add(r, EV_TEXT, 1);
	e->text = xstrdup("I will write the kernel.");
	e = run_add(r, EV_TOOL_CALL, 2);
	e->name = xstrdup("Bash");
	e->args = xstrdup("{\"command\":\"echo \\\"hi\\\"\\nnvcc --version\",\"description\":\"check the compiler\"}");
	e = run_add(r, EV_TOOL_RESULT, 3);
	e->text = xstrdup("bash: nvcc: command not found");
	e = run_add(r, EV_TOOL_CALL, 4);
	e->name = xstrdup("Write");
	e->path = xstrdup("/w/solution.py");
	e->diff = xstrdup("+import triton\n+x = 1\n");
	e = run_add(r, EV_REASONING, 5);
	e->text = xstrdup("The TFLOPS are low.");
	return r;
}

static void test_events(void)
{
	struct run *r = test_run();
	char *err = NULL;
	struct search *s;
#define EV_HIT(pat, i, want, what) do { s = search_new(pat, &err); \
	is_int(search_event(s, &r->ev[i]), want, what); search_free(s); } while (0)
	EV_HIT("kernel", 0, 1, "event text");
	EV_HIT("^bash", 1, 1, "the tool name");
	EV_HIT("echo \"hi\"", 1, 1, "arguments are searched decoded: quotes");
	EV_HIT("^nvcc --version", 1, 1, "and newlines (^ after a decoded \\n)");
	EV_HIT("description", 1, 1, "argument keys");
	EV_HIT("solution\\.py$", 3, 1, "the file path");
	EV_HIT("^\\+import triton", 3, 1, "the diff");
	EV_HIT("command not found", 3, 0, "a call does not match its result's text");
	EV_HIT("tflops", 4, 1, "smart case in event text");
#undef EV_HIT
	s = search_new("nvcc", &err);
	size_t *idx = NULL;
	size_t n = search_events(s, r, &idx);
	is_int((long long)n, 2, "search_events: two events mention nvcc");
	ok(n == 2 && idx[0] == 1 && idx[1] == 2, "events 1 and 2, in order");
	free(idx);
	int wrapped = -1;
	is_int(search_run(s, r, 0, 1, &wrapped), 1, "forward from event 0: event 1");
	is_int(wrapped, 0, "without wrapping");
	is_int(search_run(s, r, 2, 1, &wrapped), 1, "forward from event 2 wraps to event 1");
	is_int(wrapped, 1, "and says it wrapped");
	is_int(search_run(s, r, 2, -1, &wrapped), 1, "backward from event 2: event 1");
	is_int(search_run(s, r, 1, -1, &wrapped), 2, "backward from event 1 wraps to event 2");
	is_int(wrapped, 1, "and says so");
	search_free(s);
	s = search_new("nothing like this", &err);
	is_int(search_run(s, r, 0, 1, &wrapped), -1, "no match anywhere: -1");
	is_int((long long)search_events(s, r, &idx), 0, "and no events");
	ok(idx == NULL, "nor an array");
	search_free(s);
	run_free(r);
}

static void test_corpus(void)
{
	const char *kbh = tap_shared_kbh();
	if (!kbh) {
		tap_skip("no ../shared/kbh: the corpus search is skipped");
		return;
	}
	char *path = xasprintf("%s/runs/20260428_070610_claude_claude-opus-4-7_05_topk_bitonic/transcript.jsonl", kbh);
	char *err = NULL;
	struct run *r = util_is_file(path) ? parser_load_file(path, NULL, &err) : NULL;
	if (!r) {
		tap_skip("the claude topk run is not in the sample");
		free(err);
		free(path);
		return;
	}
	struct search *s = search_new("^ptxas info", &err);
	size_t *idx = NULL;
	size_t n = search_events(s, r, &idx);
	ok(n >= 1, "the real run has ptxas output (%zu events)", n);
	ok(n >= 1 && r->ev[idx[0]].kind == EV_TOOL_RESULT, "in a tool result");
	printf("# %s: %zu events, %zu match ^ptxas info\n", path, r->nev, n);
	free(idx);
	search_free(s);
	run_free(r);
	free(path);
}

/* A run that grows (watch): the matches kept up to date with
 * search_events_more equal search_events over the whole run every time,
 * the last old event searched again (it may have grown). */
static void test_events_more(void)
{
	char *err = NULL;
	struct search *s = search_new("nvcc|tflops", &err);
	struct run *r = run_new();
	size_t *kept = NULL, n = 0;
	int same = 1, steps = 0;
	for (int i = 0; i < 300; i++) {
		size_t old = r->nev;
		for (int k = 0; k <= i % 4; k++) {
			struct event *e = run_add(r, EV_TEXT, i);
			e->text = xasprintf(i % 7 == 0 ? "nvcc -O3 %d" : i % 5 == 0 ? "tflops=%d" : "step %d", i);
		}
		if (old && i % 3 == 0) {  /* the last old event grows and now matches */
			free(r->ev[old - 1].text);
			r->ev[old - 1].text = xstrdup("grew: tflops");
		}
		n = search_events_more(s, r, old ? old - 1 : 0, &kept, n);
		size_t *all = NULL, m = search_events(s, r, &all);
		same &= m == n && (!m || !memcmp(all, kept, m * sizeof *all));
		free(all);
		steps++;
	}
	ok(same, "grown in %d steps: search_events_more keeps the matches search_events finds", steps);
	ok(n > 100, "and they are many (%zu)", n);
	free(kept);
	run_free(r);
	search_free(s);
}

int main(void)
{
	test_events_more();
	test_compile();
	test_case();
	test_offsets();
	test_events();
	test_corpus();
	return tap_done();
}
