/* Contradictions pointed out, lineage never silently wrong (issue 16): the
 * outcome as each dataset file states it and their disagreements
 * (src/provenance.c), leaderboard_v1.json rows, and the file tracker's
 * doubts (src/ftrack.c) with the run directory's final file; on
 * constructed data, our fixture of real runs and the real sample. */
#include "tap.h"
#include "artifact.h"
#include "dataset.h"
#include "ftrack.h"
#include "provenance.h"
#include "run.h"
#include "util.h"

#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void read_json(struct prov_values *v, const char *text)
{
	cJSON *o = cJSON_Parse(text);
	prov_read_json(v, o);
	cJSON_Delete(o);
}

static void values_tests(void)
{
	struct provenance p;
	struct prov_diff d[16];
	memset(&p, 0, sizeof p);
	read_json(&p.src[PROV_RESULT], "{\"correct\":true,\"peak_fraction\":0.4391,\"session_complete\":false}");
	read_json(&p.src[PROV_INDEX], "{\"correct\":false,\"peak_fraction\":null,\"session_complete\":false}");
	is_int(prov_diffs(&p, d, 16), 2, "result.json against runs.jsonl: correct and peak_fraction differ");
	is_int(d[0].field, PROV_CORRECT, "the first disagreement is correct");
	is_str(d[0].va, "true", "result.json says true");
	is_str(d[0].vb, "false", "runs.jsonl says false");
	is_int(d[0].a, PROV_RESULT, "file a is result.json");
	is_int(d[0].b, PROV_INDEX, "file b is runs.jsonl");
	is_str(d[1].vb, "null", "a null peak_fraction is stated as null");
	char *t = prov_diff_text(&d[0]);
	is_str(t, "correct: result.json says true, runs.jsonl says false", "a disagreement in words names both files");
	free(t);
	t = prov_summary(&p, 0);
	is_str(t, "correct: result.json true, runs.jsonl false; peak_fraction: result.json 0.4391, runs.jsonl null",
	       "the summary groups by field, each file with its value");
	free(t);

	memset(&p, 0, sizeof p);
	read_json(&p.src[PROV_RESULT], "{\"peak_fraction\":0.0320,\"correct\":true}");
	read_json(&p.src[PROV_LEADERBOARD], "{\"peak_fraction\":0.032,\"correct\":true,\"extra\":1}");
	read_json(&p.src[PROV_INDEX], "{\"run_id\":\"x\"}");
	is_int(prov_diffs(&p, NULL, 0), 0, "0.0320 and 0.032 agree; a file that states nothing disagrees with none");
	ok(prov_summary(&p, 0) == NULL, "no summary without a disagreement");
	ok(prov_banner(&p, 0, 0, "!=") == NULL, "no banner for a complete run whose files agree");

	/* the OpenCode case: no marker in the transcript, result.json says complete */
	memset(&p, 0, sizeof p);
	prov_set(&p.src[PROV_TRANSCRIPT], PROV_COMPLETE, 0);
	read_json(&p.src[PROV_RESULT], "{\"session_complete\":true}");
	is_int(prov_says_complete(&p), PROV_RESULT, "result.json is the file that says the session completed");
	t = prov_banner(&p, 1, 0, "!=");
	is_str(t, " transcript ends mid-turn (no completion marker); result.json says session_complete: true",
	       "the banner says both and does not claim INCOMPLETE");
	free(t);
	/* no file says it completed: the run is called incomplete */
	memset(&p, 0, sizeof p);
	read_json(&p.src[PROV_RESULT], "{\"session_complete\":false}");
	t = prov_banner(&p, 1, 1, "!=");
	has_str(t, "INCOMPLETE RUN: no completion marker", "an incomplete run nobody contradicts is INCOMPLETE");
	free(t);
	t = prov_banner(NULL, 1, 0, "!=");
	has_str(t, "INCOMPLETE RUN: the transcript ends without", "a run outside a dataset: the long words");
	free(t);
	/* incomplete and contradicted on correct too: both parts */
	read_json(&p.src[PROV_INDEX], "{\"session_complete\":false,\"correct\":true}");
	read_json(&p.src[PROV_RESULT], "{\"correct\":false}");
	t = prov_banner(&p, 1, 0, "!=");
	has_str(t, " INCOMPLETE RUN (no completion marker)  != files disagree: correct: result.json false, runs.jsonl true",
	        "the banner adds which file says what after the short words");
	free(t);
}

/* A dataset where result.json, runs.jsonl and both leaderboards speak of
 * run a, and leaderboard_v1.json alone lists a held-out run h. */
static void dataset_tests(void)
{
	char root[] = "/tmp/kbtui-prov-XXXXXX";
	char p[512], *err = NULL;
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(p, sizeof p, "%s/runs", root); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/runs/a", root); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/runs/a/transcript.jsonl", root);
	/* opencode without its final step_finish: no completion marker */
	write_file(p, "{\"type\":\"step_start\",\"part\":{}}\n{\"type\":\"text\",\"part\":{\"text\":\"hi\"}}\n");
	snprintf(p, sizeof p, "%s/runs/a/result.json", root);
	write_file(p, "{\"correct\":true,\"peak_fraction\":0.4391,\"session_complete\":true}");
	snprintf(p, sizeof p, "%s/runs.jsonl", root);
	write_file(p, "{\"run_id\":\"a\",\"harness\":\"opencode\",\"model\":\"m\",\"problem\":\"01_fp8_gemm\",\"format\":\"opencode\","
	              "\"correct\":false,\"peak_fraction\":null,\"session_complete\":true,\"transcript\":\"runs/a/transcript.jsonl\"}\n");
	snprintf(p, sizeof p, "%s/leaderboard.json", root);
	write_file(p, "{\"models\":[{\"label\":\"m\",\"results\":{\"01_fp8_gemm\":{\"run_id\":\"a\",\"correct\":false,"
	              "\"peak_fraction\":null}}}]}");
	snprintf(p, sizeof p, "%s/leaderboard_v1.json", root);
	write_file(p, "{\"schema_version\":1,\"hardware\":{\"name\":\"GPU v1\"},\"models\":[{\"label\":\"m\",\"harness\":\"h\","
	              "\"model\":\"m\",\"results\":{\"01_fp8_gemm\":{\"run_id\":\"a\",\"correct\":false,\"peak_fraction\":0.2},"
	              "\"09_fmha\":{\"run_id\":\"h\",\"correct\":true,\"peak_fraction\":0.7}}}]}");
	struct dataset *ds = dataset_open(root, &err);
	ok(ds != NULL, "the constructed dataset opens");
	if (!ds)
		return;
	is_int(ds->nerrors, 0, "no index errors");
	is_str(ds->hardware, "GPU v1", "hardware from leaderboard_v1.json when leaderboard.json names none");
	long a = dataset_find(ds, "a"), h = dataset_find(ds, "h");
	ok(a >= 0 && h >= 0, "both runs listed");
	if (a < 0 || h < 0) {
		dataset_free(ds);
		return;
	}
	ok(ds->runs[h].held_out && !ds->runs[h].transcript, "a run only leaderboard_v1.json lists is held out");
	is_str(ds->runs[h].leaderboard, "kernelbench.com-v1", "and named by the leaderboard that lists it");
	is_str(ds->runs[h].meta.problem, "09_fmha", "with its problem");
	ok(ds->runs[h].meta.has_result && ds->runs[h].meta.correct && ds->runs[h].meta.peak_fraction > 0.69,
	   "and its outcome");
	ok(!ds->runs[a].meta.correct, "the merged outcome is the index's (failed)");
	const struct provenance *pv = &ds->runs[a].prov;
	ok(pv->src[PROV_RESULT].correct && pv->src[PROV_RESULT].peak > 0.439, "result.json's values are kept apart");
	ok(pv->src[PROV_LEADERBOARD_V1].peak > 0.19 && pv->src[PROV_LEADERBOARD].peak < 0,
	   "each leaderboard's values are kept apart");
	struct prov_diff d[32];
	size_t n = prov_diffs(pv, d, 32);
	/* correct: result vs index, lb, lb1 (3); peak: result vs index, lb, lb1; lb1 vs index, lb (5) */
	is_int(n, 8, "eight pairs disagree before the transcript is read");
	struct run *r = dataset_load(ds, (size_t)a);
	ok(r && r->incomplete, "the transcript loads, without its completion marker");
	ok(r && r->prov, "the loaded run carries the provenance");
	is_int(prov_diffs(&ds->runs[a].prov, d, 32), 10, "the transcript's missing marker adds two (result.json, runs.jsonl)");
	char *all = r && r->prov ? prov_diffs_text(r->prov) : NULL;
	has_str(all, "session_complete: transcript says false, result.json says true", "the transcript's part is listed");
	has_str(all, "peak_fraction: result.json says 0.4391, leaderboard_v1.json says 0.2000", "so is leaderboard_v1.json's");
	free(all);
	char *b = r ? prov_banner(r->prov, r->incomplete, 0, "!=") : NULL;
	has_str(b, "transcript ends mid-turn (no completion marker); result.json says session_complete: true",
	        "the banner does not call the run incomplete");
	ok(b && !strstr(b, "INCOMPLETE"), "and never says INCOMPLETE");
	has_str(b, "!= files disagree: correct: result.json true, runs.jsonl false, leaderboard.json false, "
	        "leaderboard_v1.json false", "the banner says which file says what");
	free(b);
	dataset_free(ds);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
}

/* Our fixture of real runs (tests/fixtures/kbh). */
static void fixture_tests(void)
{
	char *err = NULL;
	struct dataset *ds = dataset_open(tap_path("tests/fixtures/kbh"), &err);
	ok(ds != NULL, "the fixture dataset opens");
	if (!ds)
		return;
	long z = dataset_find(ds, "20260513_153015_zai-claude_glm-5.1_01_fp8_gemm");
	struct prov_diff d[32];
	size_t n = z >= 0 ? prov_diffs(&ds->runs[z].prov, d, 32) : 0;
	is_int(n, 2, "zai-claude glm-5.1 01: two disagreements");
	ok(n == 2 && d[0].field == PROV_CORRECT && d[0].a == PROV_RESULT && !strcmp(d[0].va, "true") &&
	   d[0].b == PROV_INDEX && !strcmp(d[0].vb, "false"), "correct: result.json true, runs.jsonl false");
	ok(n == 2 && d[1].field == PROV_PEAK && !strcmp(d[1].va, "0.4391") && !strcmp(d[1].vb, "null"),
	   "peak_fraction: result.json 0.4391, runs.jsonl null");

	long o = dataset_find(ds, "20260427_044258_opencode_deepseek_deepseek-v4-flash_01_fp8_gemm");
	struct run *r = o >= 0 ? dataset_load(ds, (size_t)o) : NULL;
	ok(r && r->incomplete, "the opencode run's transcript has no completion marker");
	ok(r && r->prov && prov_says_complete(r->prov) == PROV_RESULT, "while its result.json says session_complete: true");

	long c = dataset_find(ds, "20260427_232335_codex_gpt-5.5_02_kda_cutlass");
	r = c >= 0 ? dataset_load(ds, (size_t)c) : NULL;
	ok(r && r->prov && prov_diffs(r->prov, NULL, 0) == 0, "the codex run's files agree");
	/* its solution.py: 342 lines at the end, the transcript's patches give 135 */
	struct ftrack *ft = r ? r->files : NULL;
	ok(ftrack_nfiles(ft) > 0 && strstr(ftrack_file_path(ft, 0), "solution.py"), "the codex run wrote solution.py");
	long since;
	int doubt = r ? run_file_doubt(r, 0, r->nev - 1, &since) : 0;
	is_int(doubt, FTRACK_CUT, "at its end the tracked solution.py is in doubt: a write was cut");
	is_int(since, 107, "from event 108 on");
	ok(r && run_file_doubt(r, 0, (size_t)since - 1, NULL) == FTRACK_SURE, "before it the file is followed");
	char *dir = ds->runs[c].dir;
	struct artifacts *as = artifacts_load(dir, NULL, NULL);
	const struct artifact *fin = artifacts_final(as, ftrack_file_path(ft, 0));
	ok(fin && fin->nlines == 342, "the run directory's final solution.py is offered (342 lines)");
	const char *tracked = r ? ftrack_file_at(ft, 0, r->nev - 1, NULL) : NULL;
	ok(fin && tracked && strcmp(tracked, fin->text) != 0, "and differs from the tracked version");
	ok(artifacts_final(as, "/w/notes.md") == NULL, "only the solution has a final copy");
	artifacts_free(as);

	/* the claude run: every change followed, the tracked file is the final one */
	long k = dataset_find(ds, "20260428_040539_claude_claude-opus-4-7_01_fp8_gemm");
	r = k >= 0 ? dataset_load(ds, (size_t)k) : NULL;
	ok(r && run_file_doubt(r, 0, r->nev - 1, NULL) == FTRACK_SURE, "the claude run's solution is followed to the end");
	as = r ? artifacts_load(ds->runs[k].dir, NULL, NULL) : NULL;
	fin = as ? artifacts_final(as, ftrack_file_path(r->files, 0)) : NULL;
	tracked = r ? ftrack_file_at(r->files, 0, r->nev - 1, NULL) : NULL;
	ok(fin && tracked && !strcmp(fin->text, tracked), "and equals the run directory's solution.py");
	artifacts_free(as);
	dataset_free(ds);
}

static int fails_at_3(const void *arg, size_t ev)
{
	(void)arg;
	return ev == 3;
}

static void ftrack_tests(void)
{
	struct ftrack *t = ftrack_new();
	long since;
	ok(ftrack_is_cut("abc\n\n... (1234 more chars)") && !ftrack_is_cut("... (more chars)") &&
	   !ftrack_is_cut("x ... (12 chars)"), "the renderer's cut marker is recognised, and only it");
	ftrack_begin(t, 0);
	free(ftrack_write(t, "/w/solution.py", "a\nb\nc\n"));
	ftrack_end(t);
	ftrack_begin(t, 1);  /* a patch whose old text is not in the file */
	free(ftrack_patch(t, "*** Begin Patch\n*** Update File: /w/solution.py\n@@\n-zzz\n+yyy\n*** End Patch\n", NULL));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 0, NULL, NULL, &since), FTRACK_SURE, "a whole write is followed");
	is_int(since, -1, "sure: no event");
	is_int(ftrack_file_doubt(t, 0, 1, NULL, NULL, &since), FTRACK_PATCH_MISSED, "a patch that did not apply: doubt");
	is_int(since, 1, "from the patch's event");
	is_str(ftrack_doubt_text(FTRACK_PATCH_MISSED), "patch did not apply", "said in words");
	ftrack_begin(t, 2);  /* an edit that applies keeps the doubt */
	free(ftrack_edit(t, "/w/solution.py", "b", "B", 0));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 2, NULL, NULL, &since), FTRACK_PATCH_MISSED, "an edit after it does not clear it");
	is_int(since, 1, "still from event 2 (index 1)");
	ftrack_begin(t, 3);  /* a whole write makes it known again */
	free(ftrack_write(t, "/w/solution.py", "new\n"));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 3, NULL, NULL, &since), FTRACK_SURE, "a whole write makes it known again");
	is_int(since, -1, "and no event is named");
	ftrack_begin(t, 4);
	free(ftrack_edit(t, "/w/solution.py", "absent", "x", 0));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 4, NULL, NULL, NULL), FTRACK_EDIT_MISSED, "an edit whose old text is absent");
	ftrack_begin(t, 5);
	free(ftrack_write(t, "/w/solution.py", "head\n\n... (900 more chars)"));
	ftrack_end(t);
	ftrack_begin(t, 6);
	free(ftrack_write(t, "/w/solution.py", "whole\n"));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 5, NULL, NULL, &since), FTRACK_EDIT_MISSED, "the first reason since known is kept");
	is_int(since, 4, "and its event");
	is_int(ftrack_file_doubt(t, 0, 6, NULL, NULL, NULL), FTRACK_SURE, "a whole write after a cut one: known");
	ftrack_free(t);

	/* a change that failed in the run is no doubt: the file stayed as it was */
	t = ftrack_new();
	ftrack_begin(t, 0);
	free(ftrack_write(t, "/w/solution.py", "a\n"));
	ftrack_end(t);
	ftrack_begin(t, 3);
	free(ftrack_edit(t, "/w/solution.py", "nope", "x", 0));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 3, fails_at_3, NULL, NULL), FTRACK_SURE, "an edit whose call failed: followed");
	ftrack_begin(t, 4);
	free(ftrack_write(t, "/w/solution.py", "a\n\n... (9 more chars)"));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 4, fails_at_3, NULL, &since), FTRACK_CUT, "a cut write is a doubt whatever its result");
	is_int(since, 4, "from its event");
	is_str(ftrack_doubt_text(FTRACK_CUT), "write was cut", "said in words");
	ftrack_free(t);

	/* an Add File whose text the renderer cut: the marker line has no '+' */
	t = ftrack_new();
	ftrack_begin(t, 7);
	free(ftrack_patch(t, "*** Begin Patch\n*** Add File: /w/solution.py\n+def f():\n+    return _bui\n\n... (400 more chars)", NULL));
	ftrack_end(t);
	is_int(ftrack_file_doubt(t, 0, 7, NULL, NULL, &since), FTRACK_CUT, "a cut Add File patch is a cut write");
	ftrack_free(t);
}

/* The real sample: every solution.py the transcript cannot follow to the
 * run directory's copy is in doubt at the end, and no other. */
static void sample_tests(void)
{
	const char *kbh = tap_shared_kbh();
	char *err = NULL;
	if (!kbh) {
		tap_skip("../shared/kbh is absent: real-sample provenance tests skipped");
		return;
	}
	struct dataset *ds = dataset_open(kbh, &err);
	ok(ds != NULL, "the real sample opens");
	if (!ds)
		return;
	long z = dataset_find(ds, "20260513_153015_zai-claude_glm-5.1_01_fp8_gemm");
	char *t = z >= 0 ? prov_summary(&ds->runs[z].prov, 0) : NULL;
	has_str(t, "correct: result.json true, runs.jsonl false, leaderboard_v1.json false",
	        "zai-claude glm-5.1 01: result.json against runs.jsonl and leaderboard_v1.json");
	free(t);
	size_t v1_held = 0;
	for (size_t i = 0; i < ds->nruns; i++)
		v1_held += ds->runs[i].held_out && ds->runs[i].leaderboard &&
		           !strcmp(ds->runs[i].leaderboard, "kernelbench.com-v1");
	ok(v1_held > 0, "runs only leaderboard_v1.json lists are listed, held out (%zu)", v1_held);
	size_t differ = 0, silent = 0, flagged_same = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		char *sp = dataset_artifact(ds, i, "solution.py");
		struct run *r = sp && ds->runs[i].transcript ? dataset_load(ds, i) : NULL;
		if (r && ftrack_nfiles(r->files) && r->nev) {
			size_t len;
			char *sol = util_read_file(sp, &len);
			const char *last = ftrack_file_at(r->files, 0, r->nev - 1, NULL);
			int doubt = run_file_doubt(r, 0, r->nev - 1, NULL);
			int same = sol && last && !strcmp(sol, last);
			differ += !same;
			silent += !same && !doubt;
			flagged_same += same && doubt;
			free(sol);
		}
		free(sp);
		run_free(ds->runs[i].run);
		ds->runs[i].run = NULL;
	}
	ok(differ > 0, "some runs' tracked solution differs from the final one (%zu)", differ);
	is_int(silent, 0, "none of them silently: each is in doubt at its end");
	is_int(flagged_same, 0, "no run whose tracked solution is the final one is in doubt");
	dataset_free(ds);
}

int main(void)
{
	values_tests();
	dataset_tests();
	fixture_tests();
	ftrack_tests();
	sample_tests();
	return tap_done();
}
