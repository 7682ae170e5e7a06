/* test_milestones.c: milestones (first compile, first PASS, best
 * peak_fraction, end), the model/tool time split and reasoning honesty, on
 * hand-written transcripts with known events and timestamps; then, on the
 * real sample when present, each run's milestones as # lines and the
 * invariants they must keep. */
#include "config.h"

#include <ftw.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "benchlog.h"
#include "compilerlog.h"
#include "dataset.h"
#include "milestones.h"
#include "parser.h"
#include "run.h"
#include "runstats.h"
#include "tap.h"
#include "util.h"

static struct compilerlog *rules;

static struct run *load(const char *rel)
{
	char *err = NULL;
	struct run *r = parser_load_file(tap_path(rel), NULL, &err);
	ok(r != NULL, "%s loads", rel);
	if (!r) {
		printf("#   %s\n", err ? err : "?");
		free(err);
	}
	return r;
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-6;
}

/* Claude session file: redacted thinking, nvcc, check, two benchmarks. */
static void test_claude(void)
{
	struct run *r = load("tests/fixtures/milestones/claude_redacted.jsonl");
	if (!r)
		return;
	struct milestones m;
	milestones_find(r, rules, &m);
	is_int(m.ev[MS_COMPILE], 3, "claude: first compile is the nvcc call (event 3)");
	is_int(m.ev[MS_PASS], 8, "claude: first PASS is the check's result (event 8)");
	is_int(m.ev[MS_BEST], 12, "claude: best peak_fraction is the first benchmark (event 12)");
	ok(near(m.best, 0.40), "claude: best peak_fraction 0.40 (the overall line, not the shapes' mean)");
	is_int(m.ev[MS_END], 17, "claude: end is the last event");
	double pk;
	is_int(milestones_best(r, &pk), 12, "milestones_best agrees");
	ok(near(pk, 0.40), "milestones_best gives the value");

	struct runstats *s = runstats_new(r);
	ok(s->timed, "claude: timestamps seen");
	ok(near(s->total, 180), "claude: 180 s from first to last event");
	ok(near(s->part[RS_MODEL], 40), "claude: model 40 s (10+2+8+5+5+10)");
	ok(near(s->part[RS_TOOL], 140), "claude: tool 140 s");
	ok(near(s->tool[RS_COMPILE], 30), "claude: compile 30 s (nvcc)");
	ok(near(s->tool[RS_CHECK], 20), "claude: check 20 s");
	ok(near(s->tool[RS_BENCH], 90), "claude: benchmark 90 s (60+30)");
	ok(near(s->tool[RS_OTHER], 0), "claude: no other tool time");
	is_int(s->ev[4].part, RS_TOOL, "claude: event 4 (nvcc's result) is tool time");
	is_int(s->ev[4].tool, RS_COMPILE, "claude: ... classified compile");
	ok(near(s->ev[4].secs, 30), "claude: ... 30 s from call to result");
	is_int(s->ev[1].part, RS_MODEL, "claude: event 1 (thinking) is model time");
	ok(near(s->ev[1].secs, 10), "claude: ... 10 s after the prompt");
	is_int(s->ev[0].part, RS_NONE, "claude: the first event has no gap before it");
	char *t = runstats_split_text(s);
	is_str(t, "model 40s tool 2m: compile 30s check 20s bench 90s", "claude: split text");
	free(t);
	t = runstats_event_text(s, 12);
	is_str(t, "tool 60s bench", "claude: event 12's time");
	free(t);
	is_int(s->reasoning, RS_R_REDACTED, "claude: reasoning redacted");
	is_int(s->nreasoning, 2, "claude: two reasoning blocks");
	is_int(s->nhidden, 2, "claude: both hidden");
	is_int(s->chars_shown, 0, "claude: no reasoning character shown");
	t = runstats_reasoning_text(s);
	is_str(t, "reasoning redacted: 2 blocks (no token count), 0 chars shown", "claude: honesty mark");
	free(t);
	runstats_free(s);
	run_free(r);
}

/* Codex rollout: encrypted reasoning with reasoning tokens; the kernel is
 * written by a heredoc, so the first check.py builds it. */
static void test_codex(void)
{
	struct run *r = load("tests/fixtures/milestones/codex_encrypted.jsonl");
	if (!r)
		return;
	struct milestones m;
	milestones_find(r, rules, &m);
	is_int(m.ev[MS_COMPILE], 7, "codex: first compile is the first check.py after load_inline was written");
	is_int(m.ev[MS_PASS], 10, "codex: first PASS is the second check (the first FAILed)");
	is_int(m.ev[MS_BEST], 12, "codex: best peak_fraction from the shape lines");
	ok(near(m.best, 0.40), "codex: the geometric mean of 0.25 and 0.64 is 0.40");
	is_int(m.ev[MS_END], 14, "codex: end");

	struct runstats *s = runstats_new(r);
	ok(near(s->total, 300), "codex: 300 s");
	ok(near(s->part[RS_MODEL], 73), "codex: model 73 s");
	ok(near(s->part[RS_TOOL], 226), "codex: tool 226 s");
	ok(near(s->part[RS_WAIT], 1), "codex: 1 s before the prompt is neither");
	ok(near(s->tool[RS_CHECK], 105), "codex: check 105 s (60+45)");
	ok(near(s->tool[RS_BENCH], 120), "codex: benchmark 120 s");
	ok(near(s->tool[RS_OTHER], 1), "codex: the heredoc is other tool time");
	ok(near(s->tool[RS_COMPILE], 0), "codex: no separate compile step");
	is_int(s->ev[8].tool, RS_CHECK, "codex: event 8 is check time");
	ok(near(s->ev[8].secs, 60), "codex: ... 60 s");
	is_int(s->reasoning, RS_R_ENCRYPTED, "codex: reasoning encrypted");
	is_int(s->tok_reasoning, 18200, "codex: 18200 reasoning tokens reported");
	char *t = runstats_reasoning_text(s);
	is_str(t, "reasoning encrypted: 18.2k reasoning tokens, 0 chars shown", "codex: honesty mark");
	free(t);
	t = runstats_split_text(s);
	is_str(t, "model 73s tool 4m: check 2m bench 2m other 1s wait 1s", "codex: split text");
	free(t);
	runstats_free(s);
	run_free(r);
}

/* No reasoning block, yet usage counts reasoning tokens: both are said. */
static void test_reasoning_contradiction(void)
{
	struct runstats s;
	memset(&s, 0, sizeof s);
	s.reasoning = RS_R_NONE;
	char *t = runstats_reasoning_text(&s);
	is_str(t, "reasoning: none recorded", "no block, no tokens: none recorded");
	free(t);
	s.tok_reasoning = 52812;
	t = runstats_reasoning_text(&s);
	is_str(t, "reasoning: no block in the transcript, but its usage counts 52.8k reasoning tokens "
	          "(the harness did not record them)", "no block but reasoning tokens: both said, not \"none\"");
	free(t);
}

/* Runs without timestamps, with visible reasoning. */
static void test_untimed(void)
{
	struct run *r = load("tests/fixtures/milestones/codex_visible.jsonl");
	if (!r)
		return;
	struct runstats *s = runstats_new(r);
	is_int(s->reasoning, RS_R_PARTIAL, "visible+summary: partly redacted");
	is_int(s->chars_shown, 11, "visible: 11 characters shown");
	is_int(s->chars_summary, 7, "summary: 7 characters");
	char *t = runstats_reasoning_text(s);
	is_str(t, "reasoning partly redacted: 3 blocks (no token count), 11 chars shown + 7 of summaries, 1 of 3 hidden",
	       "partial: honesty mark");
	free(t);
	ok(!s->timed, "no timestamps: not timed");
	t = runstats_split_text(s);
	ok(t == NULL, "no timestamps: no split text");
	free(t);
	struct milestones m;
	milestones_find(r, rules, &m);
	is_int(m.ev[MS_COMPILE], -1, "no compile: absent");
	is_int(m.ev[MS_PASS], -1, "no PASS: absent");
	is_int(m.ev[MS_BEST], -1, "no benchmark: absent");
	ok(m.best < 0, "no best value");
	runstats_free(s);
	run_free(r);
}

static void test_classify(void)
{
	is_int(runstats_classify("nvcc -O3 k.cu"), RS_COMPILE, "nvcc compiles");
	is_int(runstats_classify("/usr/local/cuda/bin/nvcc x.cu"), RS_COMPILE, "nvcc by path compiles");
	is_int(runstats_classify("cd /w && python check.py 2>&1 | tail"), RS_CHECK, "check.py is check");
	is_int(runstats_classify("python3.11 benchmark.py"), RS_BENCH, "benchmark.py is benchmark");
	is_int(runstats_classify("uv run python -c 'import torch.utils.cpp_extension as c; c.load_inline()'"),
	       RS_COMPILE, "python with cpp_extension compiles");
	is_int(runstats_classify("cat check.py"), RS_OTHER, "reading check.py is other");
	is_int(runstats_classify("ls -la"), RS_OTHER, "ls is other");
	is_int(runstats_classify("nvidia-smi"), RS_OTHER, "nvidia-smi is other");
	is_int(runstats_classify("make -j8"), RS_COMPILE, "make compiles");
	ok(!runstats_runs_python("cat mypython.txt"), "a word containing python is not python");
	ok(runstats_runs_python("python3 x.py"), "python3 runs python");
	char b[32];
	runstats_duration(b, sizeof b, 41 * 60 + 10);
	is_str(b, "41m", "41m10s is 41m");
	runstats_duration(b, sizeof b, 3725);
	is_str(b, "1h02m", "3725 s is 1h02m");
}

/* The peak of one tool result, computed apart from milestones.c. */
static double peak_of(const char *text)
{
	struct benchlog *b = benchlog_new();
	benchlog_feed(b, text, strlen(text));
	benchlog_finish(b);
	double p = b->peak_fraction, logsum = 0;
	int n = 0;
	for (int i = 0; i < b->nshape_peak; i++)
		if (b->shape_peak[i] > 0) {
			logsum += log(b->shape_peak[i]);
			n++;
		}
	benchlog_free(b);
	return p >= 0 ? p : n ? exp(logsum / n) : -1;
}

static void test_kbh(void)
{
	const char *kbh = tap_shared_kbh();
	char *err = NULL;
	if (!kbh) {
		tap_skip("../shared/kbh is absent: real-sample milestone checks skipped");
		return;
	}
	struct dataset *ds = dataset_open(kbh, &err);
	ok(ds != NULL, "the real sample opens");
	if (!ds) {
		free(err);
		return;
	}
	int order_bad = 0, best_bad = 0, runs = 0, with_pass = 0, with_compile = 0, with_best = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		struct run *r = ds->runs[i].transcript ? dataset_load(ds, i) : NULL;
		if (!r)
			continue;
		struct milestones m;
		milestones_find(r, rules, &m);
		struct runstats *s = runstats_new(r);
		char *h = runstats_reasoning_text(s);
		runs++;
		with_pass += m.ev[MS_PASS] >= 0;
		with_compile += m.ev[MS_COMPILE] >= 0;
		with_best += m.ev[MS_BEST] >= 0;
		printf("# %-60s compile %5ld  PASS %5ld  best %5ld (%.4f)  end %5ld  %s\n",
		       ds->runs[i].meta.run_id ? ds->runs[i].meta.run_id : "?", m.ev[MS_COMPILE], m.ev[MS_PASS],
		       m.ev[MS_BEST], m.best, m.ev[MS_END], h);
		free(h);
		if (m.ev[MS_COMPILE] >= 0 && m.ev[MS_PASS] >= 0 && m.ev[MS_COMPILE] > m.ev[MS_PASS]) {
			order_bad++;
			printf("#   first compile after first PASS\n");
		}
		double max = -1;
		for (size_t k = 0; k < r->nev; k++)
			if (r->ev[k].kind == EV_TOOL_RESULT && r->ev[k].text) {
				double p = peak_of(r->ev[k].text);
				if (p > max)
					max = p;
			}
		if (!near(max, m.best)) {
			best_bad++;
			printf("#   best %.6f, max of the benchmark lines %.6f\n", m.best, max);
		}
		runstats_free(s);
	}
	printf("# %d runs: %d with a compile, %d with a PASS, %d with a peak_fraction\n", runs, with_compile, with_pass,
	       with_best);
	ok(runs > 0, "the sample has loadable runs");
	is_int(order_bad, 0, "first compile <= first PASS in every run that has both");
	is_int(best_bad, 0, "best peak_fraction is the max of the run's parsed benchmark lines");
	dataset_free(ds);
}

static int steps_files, steps_bad;

static int stats_same(const struct runstats *a, const struct runstats *b)
{
	if (a->nev != b->nev || a->timed != b->timed || a->turns != b->turns || a->reasoning != b->reasoning ||
	    a->nreasoning != b->nreasoning || a->nhidden != b->nhidden || a->chars_shown != b->chars_shown ||
	    a->chars_summary != b->chars_summary || a->tok_reasoning != b->tok_reasoning ||
	    fabs(a->total - b->total) > 1e-6 || fabs(a->active - b->active) > 1e-6)
		return 0;
	for (int k = 0; k < RS__PARTS; k++)
		if (fabs(a->part[k] - b->part[k]) > 1e-6)
			return 0;
	for (int k = 0; k < RS__TOOLS; k++)
		if (fabs(a->tool[k] - b->tool[k]) > 1e-6)
			return 0;
	for (size_t i = 0; i < a->nev; i++)
		if (a->ev[i].part != b->ev[i].part || a->ev[i].tool != b->ev[i].tool || fabs(a->ev[i].secs - b->ev[i].secs) > 1e-6)
			return 0;
	return 1;
}

/* The statistics a big file's replay grows as it reads (runstats_update,
 * a few events at a time) are those made at once. */
static int steps_check(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	size_t len = strlen(path);
	if (type != FTW_F || !S_ISREG(st->st_mode) || len < 7 || strcmp(path + len - 6, ".jsonl"))
		return 0;
	char *err = NULL;
	struct run *r = parser_load_final(path, NULL, &err);
	free(err);
	if (!r || !r->nev) {
		run_free(r);
		return 0;
	}
	struct runstats *whole = runstats_new(r), *grown = runstats_new_upto(r, 1);
	for (size_t k = 1; k < r->nev; k += 7)
		runstats_update(grown, r, k);
	runstats_update(grown, r, r->nev);
	if (!stats_same(whole, grown) && steps_bad++ < 5)
		printf("# %s: the statistics grown 7 events at a time are not those made at once\n", path);
	steps_files++;
	runstats_free(whole);
	runstats_free(grown);
	run_free(r);
	return 0;
}

/* Two turns whose clocks ran past their active time (turn_duration), a
 * step boundary inside each: the scaling takes the open turn's events
 * from before the step too, and none of the turn before. */
static void test_steps_turns(void)
{
	struct run *r = run_new();
	static const struct { enum ev_kind k; double ts; const char *dur; } evs[] = {
		{ EV_USER, 100, NULL }, { EV_TEXT, 110, NULL }, { EV_TOOL_CALL, 120, NULL }, { EV_TOOL_RESULT, 160, NULL },
		{ EV_SYSTEM, 161, "20000" }, { EV_USER, 170, NULL }, { EV_TEXT, 200, NULL }, { EV_TOOL_CALL, 230, NULL },
		{ EV_TOOL_RESULT, 290, NULL }, { EV_SYSTEM, 291, "30000" },
	};
	for (size_t i = 0; i < sizeof evs / sizeof *evs; i++) {
		struct event *e = run_add(r, evs[i].k, (int)i + 1);
		e->ts = evs[i].ts;
		if (evs[i].dur) {
			e->name = xstrdup("turn_duration");
			e->args = xstrdup(evs[i].dur);
		}
	}
	run_link(r);
	struct runstats *whole = runstats_new(r);
	int same = 1;
	for (size_t step = 1; step < r->nev; step++) {
		struct runstats *g = runstats_new_upto(r, step);
		for (size_t k = step; k < r->nev; k += step)
			runstats_update(g, r, k);
		runstats_update(g, r, r->nev);
		same &= stats_same(whole, g);
		runstats_free(g);
	}
	ok(whole->turns == 2 && fabs(whole->active - 50) < 1e-6 && same,
	   "runstats_update across turns scaled to their active time, every step size: as made at once "
	   "(%d turns, %.0f s active)", whole->turns, whole->active);
	runstats_free(whole);
	run_free(r);
}

static void test_steps(void)
{
	test_steps_turns();
	nftw(tap_path("tests/fixtures"), steps_check, 16, FTW_PHYS);
	nftw(tap_path("tests/realworld"), steps_check, 16, FTW_PHYS);
	ok(steps_files > 50 && steps_bad == 0, "runstats_update, 7 events at a time: the time split, turns and "
	   "reasoning of runstats_new, for %d transcripts (%d differ)", steps_files, steps_bad);
}

int main(void)
{
	char *err = NULL, *path = compilerlog_default_path();
	rules = compilerlog_new();
	ok(path && compilerlog_load(rules, path, &err) > 0, "compiler rules load");
	free(path);
	free(err);
	test_classify();
	test_claude();
	test_codex();
	test_reasoning_contradiction();
	test_untimed();
	test_kbh();
	test_steps();
	compilerlog_free(rules);
	return tap_done();
}
