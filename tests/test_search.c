/* Regular-expression search: compile errors, smart case, offsets, untrusted
 * text, which fields of an event are searched, moving between matching
 * events with wrap-around. */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "relit.h"
#include "run.h"
#include "runtext.h"
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

/* The literal every match must hold, as relit reads the pattern: NULL
 * where there is none (or it is not sure). */
static void test_relit(void)
{
	static const struct { const char *pat; int icase; const char *lit; int one_line; } cases[] = {
		{"Error", 0, "Error", 1},
		{"tflops=", 1, "tflop", 1},               /* s folds with U+017F: it ends the run */
		{"speedup", 1, "peedup", 1},
		{"cudaMalloc|cudaFree|torch\\.cuda", 0, "cuda", 1},   /* common to the branches */
		{"colou?r", 1, "colo", 1},               /* an optional letter ends the run */
		{"x+yz", 0, "xyz", 1},                   /* the last x is followed by yz */
		{"a{2,}b", 0, "ab", 1},
		{"ab*c", 0, "a", 1},
		{"foo(bar)?qux", 0, "foo", 1},
		{"(foo|foobar)qu", 0, "foo", 1},
		{"ptx(as)+info", 0, "info", 1},
		{"^ptxas", 1, "ptxa", 1},
		{"\\bnvcc\\b", 1, "nvcc", 1},
		{"(?i)Kernel", 0, "ernel", 1},           /* kbtui search -i; k folds with U+212A */
		{"Kernel", 1, "ernel", 1},
		{"(?=foo)bar", 0, "bar", 1},             /* a lookahead consumes nothing */
		{"(?<=ms=)\\d+", 0, NULL, 0},
		{"(\\w+) \\1", 0, " ", 0},               /* a back reference may hold anything */
		{"[[:alpha:]]+_kernel", 0, "_kernel", 0},
		{"[0-9]+\\.[0-9]+ ms", 0, " ms", 1},
		{"\\d+\\.\\d+ ms", 0, " ms", 1},
		{"tflops=\\s*\\d", 0, "tflops=", 0},      /* \\s may be a newline */
		{"[^x]foo", 0, "foo", 0},
		{"foo\\nbar", 0, "foo\nbar", 0},
		{"\u00e9+t", 0, "\u00e9t", 1},           /* a quantifier takes the whole character */
		{"r\u00e9sum\u00e9", 1, "um", 1},           /* Unicode case folding is PCRE2's */
		{"(?<name>abc)d", 0, "abc", 1},
		{"a.c", 0, "a", 1},
		{"k", 1, NULL, 0},
		{"a|", 0, NULL, 0},
		{"a{,3}b", 0, NULL, 0},                  /* read differently by PCRE2 versions */
		{"\\x41bc", 0, NULL, 0},
		{"\\Qa.b\\E", 0, NULL, 0},
		{"(?s)def.*return", 0, NULL, 0},
		{"a(?i)bc", 0, NULL, 0},
		{"(*UTF)abc", 0, NULL, 0},
		{"x*", 0, NULL, 0},
		{"[[:alpha:]]foo", 0, "foo", 0},
		{"[*:[:*:*]:]sff|", 0, NULL, 0},   /* not a POSIX class: PCRE2 ends the class at the first ] */
		{"x[a[:]yz", 0, NULL, 0},
		{"[[:x]|:]ab]cd", 0, NULL, 0},
		{"(?<*>Dr|r)|r", 0, NULL, 0},   /* "(?<*" is a lookbehind (non-atomic), not a group named "*" */   /* a class, then a branch: "cd" was taken, and "x" matches */
		{"[abc]", 0, NULL, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct relit l;
		size_t n = relit_extract(cases[i].pat, cases[i].icase, &l);
		if (!cases[i].lit) {
			is_int((long long)n, 0, "/%s/%s: no literal", cases[i].pat, cases[i].icase ? "i" : "");
			continue;
		}
		char got[RELIT_MAX + 1];
		memcpy(got, l.s, n);
		got[n] = '\0';
		is_str(got, cases[i].lit, "/%s/%s: the literal", cases[i].pat, cases[i].icase ? "i" : "");
		is_int(l.one_line, cases[i].one_line, "/%s/: %s", cases[i].pat,
		       cases[i].one_line ? "a match stays on one line" : "a match may cross lines");
	}
	struct relit l;
	ok(relit_extract("a\\\n", 0, &l) == 2 && !memcmp(l.s, "a\n", 2) && !l.one_line,
	   "a backslash before a newline: the newline, and a match may cross lines");
	relit_extract("cuda", 1, &l);
	const char *t = "xx CUDA cUdA";
	is_int((long long)relit_find(&l, t, strlen(t), 0), 3, "found case-blind");
	is_int((long long)relit_find(&l, t, strlen(t), 4), 8, "from an offset");
	is_int((long long)relit_find(&l, t, strlen(t), 9), (long long)strlen(t), "none: the length");
	ok(matches("k", "\u212a") && matches("s", "\u017f"), "PCRE2 folds k and s beyond ASCII: why they end a literal");
	int placed = 1;
	struct relit cs;
	relit_extract("cuda_graph", 1, &l);
	relit_extract("cudaMalloc", 0, &cs);
	for (size_t at = 0; at + 10 <= 200; at++) {   /* every place, the sixteen-byte steps and the tail */
		char buf[201];
		memset(buf, 'a', 200);
		buf[200] = '\0';
		memcpy(buf + at, "CUDA_Graph", 10);
		placed &= relit_find(&l, buf, 200, 0) == at && relit_find(&l, buf, 200, at + 1) == 200;
		memset(buf + at, 'a', 10);
		memcpy(buf + at, "cudaMalloc", 10);
		placed &= relit_find(&cs, buf, 200, 0) == at && relit_find(&cs, buf, at + 9, 0) == at + 9;
		buf[at] = 'C';
		placed &= relit_find(&cs, buf, 200, 0) == 200;
	}
	ok(placed, "a literal found at every place of a text, case-blind or not, and not past the end given");
	relit_extract("tflops=", 1, &l);
	t = "TFLOP\u017f=";
	ok(matches("tflops=", t) && relit_find(&l, t, strlen(t), 0) == 0, "tflops= matches TFLOP\u017f=, and its literal is there");

	/* an alternation whose branches share nothing: each branch's literal */
	ok(relit_extract("error|warning", 0, &l) == 5 && !memcmp(l.s, "error", 5) && l.nalt == 1 && l.alt[0].n == 7 &&
	   !memcmp(l.alt[0].s, "warning", 7), "/error|warning/: two literals, one a match must hold");
	ok(relit_extract("kernel|speedup", 1, &l) && !memcmp(l.s, "ernel", l.n) && l.nalt == 1 &&
	   !memcmp(l.alt[0].s, "peedup", l.alt[0].n), "/kernel|speedup/i: each branch's literal, k and s left out");
	t = "Warn.. the KERNEL ran, a SPEEDUP of 2x";
	is_int((long long)relit_find(&l, t, strlen(t), 0), 12, "either found case-blind: the first place of any");
	is_int((long long)relit_find(&l, t, strlen(t), 13), 26, "and the next one after it");
	ok(relit_extract("ab|x", 0, &l) == 0, "a branch of one byte: no literal (the scan would stop everywhere)");
	ok(relit_extract("foo1|foo2", 0, &l) == 3 && l.nalt == 0, "branches sharing three bytes: that string alone");
	ok(relit_extract("aa|bb|cc|dd|ee", 0, &l) == 0, "more branches than kept (%d): no literal", RELIT_ALTS);
	ok(relit_extract("(error|warning)", 0, &l) == 5 && l.nalt == 1 && relit_extract("(?:error|warning)", 0, &l) == 5 &&
	   l.nalt == 1 && relit_extract("(?<w>error|warning)", 0, &l) == 5 && l.nalt == 1,
	   "a group that is the whole pattern (capturing, not, named) is split as the top level");
	ok(relit_extract("(error|warning)s", 0, &l) <= 2 && l.nalt == 0 && relit_extract("(error|warning)+", 0, &l) <= 1 &&
	   l.nalt == 0 && relit_extract("(?=error|warning)", 0, &l) == 0,
	   "a group with more after it, repeated, or a lookaround: what its branches share alone");
	/* relit_find_memo gives relit_find's answer from any start, in order or not */
	relit_extract("ab|cd|ef", 0, &l);
	char txt2[400];
	unsigned long x = 99;
	int agree = 1;
	for (size_t i = 0; i < sizeof txt2; i++)
		txt2[i] = "abcdefxy"[(x = x * 6364136223846793005UL + 1442695040888963407UL) >> 61];
	struct relit_memo m = { NULL, 0, {0}, {0} };
	for (int k = 0; k < 3000; k++) {
		size_t st = k < 400 ? (size_t)k : (size_t)((x = x * 6364136223846793005UL + 1442695040888963407UL) >> 33) % 401;
		agree &= relit_find_memo(&l, &m, txt2, sizeof txt2, st) == relit_find(&l, txt2, sizeof txt2, st);
	}
	ok(l.nalt == 2 && agree, "a memo of where each literal was found answers as a fresh scan, starts in order and not");
}

/* Random patterns over a small alphabet of regex syntax, random texts
 * with the letters PCRE2 folds beyond ASCII (U+212A, U+017F): wherever
 * PCRE2 finds a match, the literal is in the text, and a match said to
 * stay on one line holds no newline. A fixed seed: the same draw always. */
static void test_relit_random(void)
{
	static const char syn[] = "ab(?:)|[]^-\\*+?{2}ks<=!KwWd1.$\n\xc3\xa9\xe2\x84\xaa\xc5\xbf";
	static const char txt[] = "abkKsS01.\n-=\xe2\x84\xaa\xc5\xbf\xc3\xa9 ";
	unsigned long x = 12345;
	long tried = 0, bad = 0, compiled = 0;
#define RND() (x = x * 6364136223846793005UL + 1442695040888963407UL, (unsigned)(x >> 33))
	for (int it = 0; it < 20000; it++) {
		char p[16], t[32];
		int n = 1 + (int)(RND() % 14);
		for (int i = 0; i < n; i++)
			p[i] = syn[RND() % (sizeof syn - 1)];
		p[n] = '\0';
		char *err = NULL;
		struct search *s = search_new(p, &err);
		free(err);
		if (!s)
			continue;
		compiled++;
		search_set_prefilter(s, SEARCH_PREFILTER_ALWAYS);
		const struct relit *l = search_literal(s);
		for (int k = 0; l && k < 20; k++) {
			size_t m = RND() % 32, so, eo;
			for (size_t i = 0; i < m; i++)
				t[i] = txt[RND() % (sizeof txt - 1)];
			tried++;
			if (search_next(s, t, m, 0, &so, &eo) &&
			    (relit_find(l, t, m, 0) == m || (l->one_line && so < eo && memchr(t + so, '\n', eo - so))))
				bad++;
		}
		search_free(s);
	}
#undef RND
	ok(compiled > 2000 && tried > 10000, "random patterns: %ld compiled, %ld texts tried", compiled, tried);
	is_int(bad, 0, "every match PCRE2 finds holds the literal, on one line where it says so");
}

static int lines_of(void *ud, size_t ev, int line, const char *text, size_t len)
{
	sbuf_addf(ud, "%zu:%d:%.*s\n", ev, line, (int)len, text);
	return 0;
}

static int transcripts(const char *dir, char **out, int max, int n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && n < max && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = util_path_join(dir, de->d_name);
		size_t l = strlen(p);
		if (util_is_dir(p)) {
			n = transcripts(p, out, max, n);
			free(p);
		} else if (l > 6 && !strcmp(p + l - 6, ".jsonl") && strcmp(de->d_name, "runs.jsonl")) {
			out[n++] = p;
		} else {
			free(p);
		}
	}
	if (d)
		closedir(d);
	return n;
}

/* What a search finds with the literal prefilter (forced on, and as it is
 * by default) and without it: the same lines (kbtui search) and the same
 * events (the replay's / and n). */
static int same_with_and_without(struct search *s, const struct run *r, const struct runtext *t, size_t *lines)
{
	struct sbuf a, b;
	size_t *ea = NULL, *eb = NULL;
	sbuf_init(&a);
	sbuf_init(&b);
	search_set_prefilter(s, SEARCH_PREFILTER_ALWAYS);
	size_t na = runtext_grep(s, t, lines_of, &a), ma = search_events(s, r, &ea);
	search_set_prefilter(s, SEARCH_PREFILTER_OFF);
	size_t nb = runtext_grep(s, t, lines_of, &b), mb = search_events(s, r, &eb);
	int same = na == nb && a.len == b.len && (!a.len || !memcmp(a.s, b.s, a.len)) && ma == mb &&
	           (!ma || !memcmp(ea, eb, ma * sizeof *ea));
	search_set_prefilter(s, SEARCH_PREFILTER_AUTO);
	if (search_literal(s)) {
		sbuf_free(&a);
		sbuf_init(&a);
		na = runtext_grep(s, t, lines_of, &a);
		same &= na == nb && a.len == b.len && (!a.len || !memcmp(a.s, b.s, a.len));
	}
	*lines += na;
	sbuf_free(&a);
	sbuf_free(&b);
	free(ea);
	free(eb);
	return same;
}

static const char *const prefilter_pats[] = {
	"tflops=", "speedup", "cudaMalloc|cudaFree|torch\\.cuda", "colou?r", "error|warning", "Error", "(?i)ERROR",
	"^import ", "return$", "\\bnvcc\\b", "ptxas info\\s*:", "[0-9]+\\.[0-9]+ ms", "peak_fraction:\\s*[0-9.]+",
	"def \\w+\\(", "(self|cls)?\\.forward", "x+yz", "torch\\.(float|bfloat)16", "(?<=\\.)cuda", "cuda(?!Malloc)",
	"(?=.*kernel)def", "(\\w)\\1{2}", "(['\"]).{0,20}\\1", "\u00e9", "r\u00e9sum\u00e9|na\u00efve|\u2014",
	"\\p{Lu}\\p{Ll}+Error", "[[:upper:]]{3}_", "^$", "\\s+$", "(?s)def.*return", "a{2,}", "\\d{3,}",
	"(?>\\w+)\\s*=", "shared_?mem", "__global__", "\\.cu\\b", "k", "sk", "Kernel", "(?i)kernel", "\\x41",
	"\\Qa.b\\E", "foo\\nbar", "\\n\\s*return", "ms$", "ab|cd|", "#include <cuda", "\\bthe\\b.*\\bkernel\\b",
	"[^\\x00-\\x7f]+", "tflops=\\s*[0-9]", "\\.pyc?", "solution_?\\.py",
	"\\.cuh?\\b", "(_an_optional_group)?kernel", "kernel|speedup", "ptxas|nvcc|error", "PASS|FAIL",
	"reward_hack|rubric_leak|contamination|clean", "tflops|gb/s|ms\\b", "(error|warning)", "(?:PASS|FAIL)",
	"(?<v>clean|reward_hack)", "(kernel|speedup)+", NULL,
};

/* When the prefilter is used by default: where PCRE2 knows the first code
 * unit its JIT scans for it as fast; where it knows only a set of first
 * bytes it tries a match at each of them. A lower-case word starting with
 * s or k is such a case (smart case is caseless, and in UTF mode s and k
 * have a third case, U+017F and U+212A): 'speedup' took 54 ms warm over
 * the sample where 'tflops=' takes 12. */
static void test_prefilter_choice(void)
{
	static const struct { const char *pat; int used; } c[] = {
		{"speedup", 1}, {"kernel", 1}, {"sparse_kernel", 1}, {"Speedup", 0},
		{"tflops=", 0}, {"peak_fraction", 0}, {"cudaMalloc", 0}, {"reward hack", 0},
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		char *err = NULL;
		struct search *s = search_new(c[i].pat, &err);
		ok(s && (search_literal(s) != NULL) == c[i].used, "/%s/: the literal prefilter is %s by default", c[i].pat,
		   c[i].used ? "used (PCRE2 knows no first code unit)" : "left to PCRE2's own scan");
		search_free(s);
		free(err);
	}
}

/* Every shipped transcript (fixtures, tests/realworld, ../shared/kbh when
 * present), every pattern: the prefilter changes nothing found. */
static void test_prefilter_corpus(void)
{
	enum { MAX = 1200 };
	char **files = xcalloc(MAX, sizeof *files);
	int n = transcripts(tap_path("tests/fixtures"), files, MAX, 0);
	n = transcripts(tap_path("tests/realworld"), files, MAX, n);
	const char *kbh = tap_shared_kbh();
	char *runs = kbh ? util_path_join(kbh, "runs") : NULL;
	if (runs)
		n = transcripts(runs, files, MAX, n);
	else
		printf("# no ../shared/kbh: fixtures and tests/realworld only\n");
	free(runs);
	struct search *s[64];
	int np = 0, same = 1, nrun = 0, filtered = 0, byauto = 0;
	size_t lines = 0;
	for (const char *const *p = prefilter_pats; *p; p++) {
		char *err = NULL;
		s[np] = search_new(*p, &err);
		if (!s[np]) {
			printf("# /%s/: %s\n", *p, err);
			same = 0;
		} else {
			search_set_prefilter(s[np], SEARCH_PREFILTER_ALWAYS);
			filtered += search_literal(s[np]) != NULL;
			search_set_prefilter(s[np], SEARCH_PREFILTER_AUTO);
			byauto += search_literal(s[np]) != NULL;
			np++;
		}
		free(err);
	}
	for (int i = 0; i < n; i++) {
		char *e = NULL;
		struct run *r = parser_load_final(files[i], NULL, &e);
		free(e);
		if (r) {
			nrun++;
			struct runtext *t = runtext_new(r);
			for (int k = 0; k < np; k++)
				if (!same_with_and_without(s[k], r, t, &lines)) {
					printf("# %s, /%s/: the prefilter changed what is found\n", files[i], search_pattern(s[k]));
					same = 0;
				}
			runtext_free(t);
			run_free(r);
		}
		free(files[i]);
	}
	free(files);
	for (int k = 0; k < np; k++)
		search_free(s[k]);
	printf("# %d runs, %d patterns (%d with a literal, used by default for %d), %zu lines found\n", nrun, np, filtered,
	       byauto, lines);
	ok(nrun >= 40, "the shipped transcripts load (%d runs)", nrun);
	ok(np >= 40 && filtered >= 25, "%d patterns compile, %d of them with a literal", np, filtered);
	ok(byauto >= 3 && byauto < filtered, "used by default where PCRE2 has no first code unit (%d)", byauto);
	ok(lines > 1000, "and they find lines (%zu)", lines);
	ok(same, "with the prefilter and without it: the same lines and the same events, every run, every pattern");
}

int main(void)
{
	test_relit();
	test_relit_random();
	test_prefilter_choice();
	test_prefilter_corpus();
	test_events_more();
	test_compile();
	test_case();
	test_offsets();
	test_events();
	test_corpus();
	return tap_done();
}
