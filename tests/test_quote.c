/* test_quote.c: the core of the replay's annotation and timeline panes
 * and of its s key, on real runs (tests/fixtures/kbh, data/sample):
 *   - quote_in and quote_find: an annotation's quotes lead to the event that
 *     first wrote their lines (the transcript lines below were read off the
 *     transcripts by hand: the first Write / tool_use holding the lines);
 *   - timeline_build: one row per solution version (and per edit the file
 *     tracker could not follow), with the check, peak_fraction and flags
 *     that followed it;
 *   - noise_command_reads / noise_event: which events s hides. */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "annot.h"
#include "compilerlog.h"
#include "flags.h"
#include "ftrack.h"
#include "milestones.h"
#include "noise.h"
#include "parser.h"
#include "quote.h"
#include "run.h"
#include "tap.h"
#include "timeline.h"
#include "util.h"

#define OPUS_ID "20260428_040539_claude_claude-opus-4-7_01_fp8_gemm"
#define OPUS "tests/fixtures/kbh/runs/" OPUS_ID
#define CODEX "tests/fixtures/kbh/runs/20260427_232335_codex_gpt-5.5_02_kda_cutlass"
#define SAMPLE_C_ID "20260601_100000_opencode_sample_sample-model-c_07_w4a16_gemm"

static struct run *load(const char *rel)
{
	char *err = NULL;
	struct run *r = parser_load_file(tap_path(rel), NULL, &err);
	ok(r != NULL, "%s loads", rel);
	if (!r)
		printf("#   %s\n", err ? err : "?");
	free(err);
	return r;
}

static int has_line(const char *text, const char *word)
{
	return text && strstr(text, word) != NULL;
}

static struct annot *load_annot(const char *rel)
{
	int line = 0;
	char *err = NULL;
	struct annot *a = annot_load(tap_path(rel), &line, &err);
	ok(a != NULL, "%s loads", rel);
	free(err);
	return a;
}

static void test_quote_in(void)
{
	const char *file = "def f():\n    x = 1\n\n    return x\n";
	ok(quote_in(file, strlen(file), "x = 1\n\nreturn x\n"), "quote_in: indentation does not count");
	ok(quote_in(file, strlen(file), "\n  x = 1  \n\n"), "quote_in: blank lines at the quote's ends do not count");
	ok(!quote_in(file, strlen(file), "def f():\nreturn x\n"), "quote_in: the lines must follow one another");
	ok(!quote_in(file, strlen(file), "x = 2\n"), "quote_in: a line the text lacks");
	ok(!quote_in(file, strlen(file), "\n\n"), "quote_in: a quote of blank lines is in nothing");
	ok(!quote_in(file, strlen(file), "x = 1\n\nreturn x\nmore\n"), "quote_in: a quote longer than the text");
	ok(quote_in("a\r\nb\r\n", 6, "a\nb"), "quote_in: CRLF lines compare as lines");
}

/* The opus run's annotation: two quotes of solution.py, both written by the
 * Write at transcript line 272 (the pivot to a BF16 CUTLASS GEMM); the four
 * writes before it (lines 196, 208, 210, 222) hold neither. */
static void test_quote_opus(void)
{
	struct annot *a = load_annot("tests/fixtures/kbh/annotations/" OPUS_ID ".yaml");
	struct run *r = load(OPUS "/transcript.jsonl");
	if (!a || !r)
		goto out;
	size_t nq;
	struct quote *q = quote_list(a, &nq);
	is_int(nq, 2, "opus: the annotation has two quotes");
	if (nq != 2) {
		free(q);
		goto out;
	}
	is_str(q[0].file, "solution.py", "quote 1: of solution.py");
	is_int(q[0].start, 1, "quote 1: from line 1");
	is_int(q[0].end, 11, "quote 1: to line 11");
	is_str(q[1].label, "Pinned to Ampere (Sm80), not Blackwell (Sm120)", "quote 2: its label");
	is_int(q[1].start, 60, "quote 2: line 60");
	for (size_t k = 0; k < nq; k++) {
		struct quote_src s;
		is_int(quote_find(r, q[k].file, q[k].text, &s), QUOTE_FILE, "quote %zu: found in a version of a file", k + 1);
		ok(s.ev >= 0 && r->ev[s.ev].line == 272, "quote %zu: written by the Write at transcript line 272 (got line %d)",
		   k + 1, s.ev >= 0 ? r->ev[s.ev].line : -1);
		ok(s.ev >= 0 && r->ev[s.ev].kind == EV_TOOL_CALL && !strcmp(r->ev[s.ev].name, "Write"),
		   "quote %zu: that event is the Write tool call", k + 1);
		ok(s.path && strstr(s.path, "/solution.py"), "quote %zu: the file is solution.py", k + 1);
		const char *prev = s.ev > 0 ? ftrack_file_at(r->files, 0, (size_t)s.ev - 1, NULL) : NULL;
		ok(prev && !quote_in(prev, strlen(prev), q[k].text), "quote %zu: the version before lacks the lines", k + 1);
	}
	/* the final solution.py in the run's directory holds the lines too */
	char *fin = util_read_file(tap_path(OPUS "/solution.py"), NULL);
	ok(fin && quote_in(fin, strlen(fin), q[0].text) && quote_in(fin, strlen(fin), q[1].text),
	   "opus: the run's final solution.py holds both quotes");
	free(fin);
	free(q);

	/* lines in no file: the first event whose text holds them (the first
	 * line of the first TodoWrite result) */
	long todo = -1;
	for (size_t i = 0; todo < 0 && i < r->nev; i++)
		if (r->ev[i].kind == EV_TOOL_RESULT && has_line(r->ev[i].text, "Todos have been modified"))
			todo = (long)i;
	ok(todo >= 0, "opus: a TodoWrite result");
	if (todo >= 0) {
		const char *t = r->ev[todo].text;
		char *first = xstrndup(t, strcspn(t, "\n"));
		struct quote_src s;
		is_int(quote_find(r, "solution.py", first, &s), QUOTE_EVENT, "a line of a tool result only: found in the event's text");
		is_int(s.ev, todo, "it is the first result that holds it (event %ld)", todo + 1);
		free(first);
	}
	struct quote_src s;
	is_int(quote_find(r, "solution.py", "this line xyzzy is in no event\n", &s), QUOTE_NONE, "lines no event holds: none");
	is_int(s.ev, -1, "none: event -1");
out:
	annot_free(a);
	run_free(r);
}

/* data/sample's opencode run: its first quote comes from the edit at
 * transcript line 23, the second (the line that stores the result) from
 * the edit after it, at line 24. */
static void test_quote_sample(void)
{
	struct annot *a = load_annot("data/sample/annotations/" SAMPLE_C_ID ".yaml");
	struct run *r = load("data/sample/runs/" SAMPLE_C_ID "/transcript.jsonl");
	if (!a || !r)
		goto out;
	size_t nq;
	struct quote *q = quote_list(a, &nq);
	is_int(nq, 2, "sample opencode: two quotes");
	for (size_t k = 0; k < nq; k++) {
		struct quote_src s;
		quote_find(r, q[k].file, q[k].text, &s);
		ok(s.how == QUOTE_FILE && r->ev[s.ev].line == 23 + (int)k, "sample quote %zu: the edit at transcript line %zu",
		   k + 1, 23 + k);
	}
	free(q);
out:
	annot_free(a);
	run_free(r);
}

/* The opus run's solution.py: 21 successful Write/Edit calls (read off the
 * transcript), two of them edits whose old text the cut transcript lacks. */
static void test_timeline_opus(void)
{
	static const int lines[] = { 196, 208, 210, 222, 272, 279, 288, 301, 311, 329, 344, 352, 390, 412, 418,
		                     420, 422, 424, 431, 456, 459 };
	struct run *r = load(OPUS "/transcript.jsonl");
	if (!r)
		return;
	const struct flag_rules *rs;
	struct flag_list *fl = flag_run_default(r, &rs);
	struct timeline t;
	is_int(timeline_build(r, fl, NULL, &t), 0, "opus: a solution file");
	ok(t.path && strstr(t.path, "/solution.py"), "opus: the timeline is solution.py's");
	is_int(t.n, 21, "opus: 21 rows, one per successful write of solution.py");
	int same = t.n == 21;
	for (size_t k = 0; same && k < t.n; k++)
		same = r->ev[t.rows[k].ev].line == lines[k];
	ok(same, "opus: the rows are those writes, in order");
	if (t.n != 21)
		goto out;
	ok(!t.rows[0].lost && t.rows[0].added == 157 && t.rows[0].removed == 0 && t.rows[0].lines == 157,
	   "row 1: the first Write, 157 lines added");
	ok(t.rows[2].lost && t.rows[3].lost, "rows 3 and 4 (lines 210, 222): edits the tracker could not follow");
	int others = 0;
	for (size_t k = 0; k < t.n; k++)
		others += t.rows[k].lost;
	is_int(others, 2, "no other row is lost");
	/* the FAIL after row 4, the PASS and peak after row 12 (line 352) */
	is_int(t.rows[3].check, -1, "row 4: the check that followed FAILed");
	ok(t.rows[3].check_ev > (long)t.rows[3].ev && has_line(r->ev[t.rows[3].check_ev].text, "FAIL"),
	   "row 4: its check result says FAIL");
	is_int(t.rows[11].check, 1, "row 12: PASS");
	ok(has_line(r->ev[t.rows[11].check_ev].text, "PASS"), "row 12: its check result says PASS");
	ok(fabs(t.rows[11].peak - 0.093) < 1e-9, "row 12: peak_fraction 0.093");
	ok(has_line(r->ev[t.rows[11].peak_ev].text, "peak_fraction"), "row 12: from a benchmark output");
	ok(t.rows[11].peak_ev < (long)t.rows[11].until && t.rows[11].until == t.rows[12].ev,
	   "row 12: its results come before the next version");
	double best = -1;
	for (size_t k = 0; k < t.n; k++)
		if (t.rows[k].peak > best)
			best = t.rows[k].peak;
	double mbest;
	milestones_best(r, &mbest);
	ok(fabs(best - mbest) < 1e-9, "the best row peak_fraction is the run's best (%g)", mbest);
	/* the flags of the rows are the flags from the first version on */
	size_t nf = 0, inrows = 0;
	for (size_t k = 0; k < t.n; k++)
		inrows += t.rows[k].nflags;
	for (size_t i = t.rows[0].ev; i < r->nev; i++)
		nf += flag_list_find(fl, i) != NULL;
	ok(nf > 0 && inrows == nf, "every flagged event from the first version on is in a row (%zu)", nf);
	ok(t.rows[0].nflags && flag_list_find(fl, (size_t)t.rows[0].flag_ev), "row 1: its first flag is a flagged event");
	is_int(timeline_at(&t, 0), -1, "before the first version: no row");
	is_int(timeline_at(&t, t.rows[4].ev + 1), 4, "just after row 5's event: row 5");
out:
	timeline_free(&t);
	flag_list_delete(fl);
	run_free(r);
}

static void test_timeline_codex(void)
{
	struct run *r = load(CODEX "/transcript.jsonl");
	if (!r)
		return;
	struct timeline t;
	timeline_build(r, NULL, NULL, &t);
	/* three patches of solution.py (transcript lines 110, 146, 167; the one
	 * at 196 adds test_solution.py); the tracker follows only the first */
	is_int(t.n, 3, "codex: three rows, one per apply_patch of solution.py");
	if (t.n == 3) {
		is_int(r->ev[t.rows[0].ev].line, 110, "codex: the Add File at transcript line 110");
		ok(!t.rows[0].lost && t.rows[1].lost && t.rows[2].lost, "codex: the two Update File patches are lost edits");
		is_int(r->ev[t.rows[2].ev].line, 167, "codex: the last at line 167");
		is_int(t.rows[0].check, 1, "codex: check PASS after the first");
		ok(fabs(t.rows[0].peak - 0.0306) < 1e-9, "codex: peak_fraction 0.0306");
		is_int(t.rows[2].until, r->nev, "codex: the last row runs to the end");
	}
	timeline_free(&t);
	run_free(r);
	/* a run that wrote no solution */
	struct run *e = run_new();
	is_int(timeline_build(e, NULL, NULL, &t), -1, "a run without a solution file: -1");
	is_int(t.n, 0, "and no rows");
	run_free(e);
}

/* A run read a slice at a time, its timeline made again after each
 * through kept facts (timeline_make, as the timeline pane follows a
 * growing run), is at every step the timeline a fresh build makes of the
 * run as it stands: the versions, checks, peaks, compiler errors and
 * taint of the rows. */
static int timeline_rows_same(const struct timeline *a, const struct timeline *b)
{
	if (a->n != b->n || (!a->path) != (!b->path) || (a->path && strcmp(a->path, b->path)))
		return 0;
	for (size_t k = 0; k < a->n; k++) {
		const struct timeline_row *x = &a->rows[k], *y = &b->rows[k];
		if (x->ev != y->ev || x->until != y->until || x->deleted != y->deleted || x->lost != y->lost ||
		    x->lines != y->lines || x->added != y->added || x->removed != y->removed || x->check != y->check ||
		    x->check_ev != y->check_ev || x->peak != y->peak || x->peak_ev != y->peak_ev ||
		    x->compile_errors != y->compile_errors || x->nflags != y->nflags || x->flag_ev != y->flag_ev ||
		    x->ntainted != y->ntainted || x->peak_tainted != y->peak_tainted || x->peak_over != y->peak_over)
			return 0;
	}
	return 1;
}

static void timeline_grow_check(const char *rel, size_t slice)
{
	char *err = NULL;
	struct compilerlog *cl = compilerlog_new();
	if (compilerlog_load(cl, tap_path("data/compiler_patterns.txt"), &err) < 0) {
		compilerlog_free(cl);
		cl = NULL;
	}
	free(err);
	err = NULL;
	struct parser_loader *ld = parser_loader_open(tap_path(rel), NULL, &err);
	ok(ld != NULL && cl != NULL, "%s opens a slice at a time, the compiler rules read", rel);
	if (!ld) {
		free(err);
		compilerlog_free(cl);
		return;
	}
	struct timeline_facts *tf = timeline_facts_new(cl);
	size_t old = 0, steps = 0, differ = 0, rows = 0, checks = 0, peaks = 0;
	int rc;
	while ((rc = parser_loader_step(ld, slice, &err)) >= 0) {
		struct run *r = parser_loader_run(ld);
		timeline_facts_grow(tf, old ? old - 1 : 0);   /* (the last old event may have grown) */
		old = r->nev;
		struct timeline kept, fresh;
		int a = timeline_make(r, NULL, tf, &kept), b = timeline_build(r, NULL, cl, &fresh);
		differ += a != b || !timeline_rows_same(&kept, &fresh);
		rows = kept.n;
		checks = peaks = 0;
		for (size_t k = 0; k < kept.n; k++) {
			checks += kept.rows[k].check != 0;
			peaks += kept.rows[k].peak_ev >= 0;
		}
		timeline_free(&kept);
		timeline_free(&fresh);
		steps++;
		if (rc == 0)
			break;
	}
	ok(rc == 0 && steps > 10 && differ == 0 && rows >= 3 && checks > 0,
	   "%s: read in %zu slices of %zu bytes, its timeline made from kept facts after each: a fresh build's every "
	   "time (%zu differed; at the end %zu rows, %zu with a check, %zu with a peak)",
	   rel, steps, slice, differ, rows, checks, peaks);
	/* a result whose text changed (a stream completing it): kept facts
	 * are stale until the change is said, and right once it is */
	struct run *r = parser_loader_run(ld);
	struct timeline kept, fresh;
	timeline_make(r, NULL, tf, &kept);
	long at = -1;
	for (size_t k = 0; k < kept.n && at < 0; k++)
		at = kept.rows[k].check_ev;
	timeline_free(&kept);
	if (at >= 0) {
		free(r->ev[at].text);
		r->ev[at].text = xstrdup("the check ran; nothing decided here");
		timeline_make(r, NULL, tf, &kept);
		timeline_build(r, NULL, cl, &fresh);
		int stale = !timeline_rows_same(&kept, &fresh);
		timeline_free(&kept);
		timeline_facts_grow(tf, (size_t)at);
		timeline_make(r, NULL, tf, &kept);
		ok(stale && timeline_rows_same(&kept, &fresh), "%s: event %ld's verdict taken away: the kept facts still "
		   "had it until the change was said, then a fresh build's rows", rel, at + 1);
		timeline_free(&kept);
		timeline_free(&fresh);
	}
	timeline_facts_free(tf);
	compilerlog_free(cl);
	parser_loader_free(ld);
	free(err);
}

static void test_noise_commands(void)
{
	static const struct { const char *cmd; int reads; } c[] = {
		{ "cat a.py | grep -n forward", 1 },
		{ "grep -rn \"Sm120\\|sm_120\" /x", 1 },
		{ "sed -n '1,240p' check.py", 1 },
		{ "ls /x 2>/dev/null && echo ---; ls -la", 1 },
		{ "cat /x/check.log 2>&1", 1 },
		{ "bash -lc 'ls -la'", 1 },
		{ "pwd && rg --files", 1 },
		{ "cat a > b", 0 },
		{ "echo hi >> log", 0 },
		{ "sed -i 's/a/b/' f.py", 0 },
		{ "find . -name '*.o' -delete", 0 },
		{ "uv run python check.py", 0 },
		{ "echo \"$(rm -rf x)\"", 0 },
		{ "cat <<'EOF' > solution.py", 0 },
		{ "ls | tee listing", 0 },
		{ "rm -f solution.py", 0 },
		{ "CUDA_HOME=/usr/local/cuda nvidia-smi", 1 },
		{ "nvidia-smi --query-gpu=name,clocks.sm --format=csv -i 0", 1 },
		{ "sed 's/a/b/' f.py", 1 },
		/* what a hack could hide behind s: each writes, runs code or changes the GPU */
		{ "LD_PRELOAD=./x.so cat f", 0 },
		{ "GIT_EXTERNAL_DIFF=./hack.sh git diff", 0 },
		{ "env python hack.py", 0 },
		{ "sed -ni 's/0.15/0.5/p' problem.yaml", 0 },
		{ "sed --in-place 's/a/b/' f", 0 },
		{ "sed -n '1w /tmp/copy' check.py", 0 },
		{ "sed -n 's/x/date/ep' f", 0 },
		{ "sed -f script.sed f", 0 },
		{ "sort -o check.py x", 0 },
		{ "sort --compress-program=./hack x", 0 },
		{ "uniq in.txt problem.yaml", 0 },
		{ "xxd dump.hex solution.cu", 0 },
		{ "rg --pre ./hack.sh x", 0 },
		{ "find . -okdir rm {} ;", 0 },
		{ "find . -fls out", 0 },
		{ "git -c core.pager=./hack.sh log", 0 },
		{ "git diff --output=check.py", 0 },
		{ "git diff --ext-diff", 0 },
		{ "nvidia-smi -lgc 2100", 0 },
		{ "nvidia-smi -pm 1", 0 },
		{ "cat <(python hack.py)", 0 },
		{ "date -s 2020-01-01", 0 },
		{ "tree -o listing", 0 },
		{ "git status --short && git log -3 --oneline", 1 },
		{ "git checkout -- solution.py", 0 },
		{ "git diff > patch.txt", 0 },
	};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		is_int(noise_command_reads(c[i].cmd), c[i].reads, "noise: %s %s", c[i].cmd, c[i].reads ? "reads" : "writes or runs");
	is_int(noise_command_reads(NULL), 0, "noise: no command is not a read");
}

/* Invariants on a real run: usage and system events are noise; no event
 * that changed a file is; a result is noise exactly when its call is. */
static void noise_check(const char *rel, size_t *nread)
{
	struct run *r = load(rel);
	if (!r)
		return;
	unsigned char *h = xcalloc(r->nev + 1, 1);
	size_t n = noise_mark(r, 0, h), count = 0;
	int kinds = 1, diffs = 1, pairs = 1;
	*nread = 0;
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		count += h[i];
		if ((e->kind == EV_USAGE || e->kind == EV_SYSTEM) && !h[i])
			kinds = 0;
		if ((e->kind == EV_TEXT || e->kind == EV_REASONING || e->kind == EV_USER) && h[i])
			kinds = 0;
		if (h[i] && run_event_diff(r, i))
			diffs = 0;
		if (e->kind == EV_TOOL_RESULT && e->link >= 0 && r->ev[e->link].kind == EV_TOOL_CALL && h[i] != h[e->link])
			pairs = 0;
		*nread += e->kind == EV_TOOL_CALL && h[i];
	}
	is_int(count, n, "%s: noise_mark counts what it marks (%zu)", rel, n);
	ok(kinds, "%s: usage and system are noise, text and reasoning are not", rel);
	ok(diffs, "%s: no event that changed a file is noise", rel);
	ok(pairs, "%s: a result is hidden with its call", rel);
	size_t ns, nh;
	size_t *shown = noise_shown(r, &ns, &nh);
	int order = 1;
	for (size_t k = 0; k < ns; k++)
		order &= (k == 0 || shown[k] > shown[k - 1]) && shown[k] < r->nev && !h[shown[k]];
	ok(nh == n && ns + nh == r->nev && order, "%s: noise_shown lists the other %zu events, in order", rel, ns);
	free(shown);
	free(h);
	run_free(r);
}

/* The marks of a run read a slice at a time (as the pager reads a big
 * file), each slice marked from the last old event on (noise_marks_update),
 * end where one marking of the whole run ends. */
static void noise_grow_check(const char *rel, size_t slice)
{
	char *err = NULL;
	struct parser_loader *ld = parser_loader_open(tap_path(rel), NULL, &err);
	ok(ld != NULL, "%s opens a slice at a time", rel);
	if (!ld) {
		free(err);
		return;
	}
	struct noise_marks m = { 0 };
	size_t old = 0, steps = 0;
	int rc;
	while ((rc = parser_loader_step(ld, slice, &err)) >= 0) {
		struct run *r = parser_loader_run(ld);
		noise_marks_update(&m, r, old ? old - 1 : 0);  /* (as replay_grew: the last old event may have grown) */
		old = r->nev;
		steps++;
		if (rc == 0)
			break;
	}
	struct run *r = parser_loader_run(ld);
	size_t ns, nh;
	size_t *shown = noise_shown(r, &ns, &nh);
	ok(rc == 0 && steps > 10 && m.nshown == ns && m.nhidden == nh && !memcmp(m.shown, shown, ns * sizeof *shown),
	   "%s: read in %zu slices of %zu bytes, marked as it grew: the %zu shown and %zu hidden of one whole marking", rel,
	   steps, slice, ns, nh);
	free(shown);
	noise_marks_free(&m);
	parser_loader_free(ld);
	free(err);
}

/* The corpus of tests/fixtures/noise/corpus.txt: each command hidden or
 * shown as the line says. */
static void test_noise_corpus(void)
{
	size_t len = 0;
	char *text = util_read_file(tap_path("tests/fixtures/noise/corpus.txt"), &len);
	ok(text != NULL, "the noise corpus reads");
	size_t n = 0, hidden = 0;
	for (char *line = text, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *tab = strchr(line, '\t');
		if (!*line || *line == '#' || !tab)
			continue;
		*tab = '\0';
		int want = !strcmp(line, "hidden");
		ok(want || !strcmp(line, "shown"), "corpus: '%s' is hidden or shown", line);
		is_int(noise_command_reads(tab + 1), want, "corpus: %s %s", want ? "hidden" : "shown", tab + 1);
		n++;
		hidden += want;
	}
	ok(n > 100 && hidden > 20, "corpus: %zu commands, %zu of them hidden", n, hidden);
	free(text);
}

static void test_noise_runs(void)
{
	size_t nread;
	noise_check(OPUS "/transcript.jsonl", &nread);
	ok(nread > 50, "opus: many read-only calls (%zu)", nread);
	struct run *r = load(OPUS "/transcript.jsonl");
	if (r) {
		int read_hidden = 1, check_shown = 0, write_shown = 1;
		for (size_t i = 0; i < r->nev; i++) {
			const struct event *e = &r->ev[i];
			if (e->kind != EV_TOOL_CALL)
				continue;
			if (!strcmp(e->name, "Read") && !noise_event(r, i))
				read_hidden = 0;
			if ((!strcmp(e->name, "Write") || !strcmp(e->name, "Edit")) && noise_event(r, i))
				write_shown = 0;
			if (e->args && strstr(e->args, "python check.py") && !noise_event(r, i))
				check_shown = 1;
		}
		ok(read_hidden, "opus: every Read is noise");
		ok(write_shown, "opus: no Write or Edit is noise");
		ok(check_shown, "opus: the check.py runs are shown");
		run_free(r);
	}
	noise_grow_check(OPUS "/transcript.jsonl", 4096);
	noise_grow_check(CODEX "/transcript.jsonl", 4096);
	noise_check(CODEX "/transcript.jsonl", &nread);
	ok(nread > 10, "codex: its sed -n / rg / nvidia-smi calls are noise (%zu)", nread);
	noise_check("data/sample/runs/" SAMPLE_C_ID "/transcript.jsonl", &nread);
	noise_check("data/sample/runs/20260601_093000_codex_sample-model-b_01_fp8_gemm/transcript.jsonl", &nread);
}

int main(void)
{
	test_quote_in();
	test_quote_opus();
	test_quote_sample();
	test_timeline_opus();
	test_timeline_codex();
	timeline_grow_check(OPUS "/transcript.jsonl", 4096);
	timeline_grow_check(CODEX "/transcript.jsonl", 4096);
	test_noise_commands();
	test_noise_corpus();
	test_noise_runs();
	return tap_done();
}
