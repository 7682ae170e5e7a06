/* The dataset index: runs.jsonl, leaderboard, baselines, verdicts, lazy
 * transcript loading; over our own fixture and the real sample. */
#include "tap.h"
#include "dataset.h"
#include "parser.h"

#include <sys/stat.h>
#include <unistd.h>

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

static void fixture_tests(void)
{
	char root[] = "/tmp/kbtui-ds-XXXXXX";
	char p[512];
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(p, sizeof p, "%s/runs", root); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/runs/a", root); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/annotations", root); mkdir(p, 0700);
	snprintf(p, sizeof p, "%s/runs/a/transcript.jsonl", root);
	write_file(p, "{\"type\":\"text\",\"data\":\"hi\"}\n{\"type\":\"end\",\"sessionId\":\"s\"}\n");
	snprintf(p, sizeof p, "%s/runs.jsonl", root);
	write_file(p, "{\"run_id\":\"a\",\"harness\":\"grok\",\"model\":\"m\",\"problem\":\"01_fp8_gemm\","
	              "\"correct\":true,\"peak_fraction\":0.5,\"transcript\":\"runs/a/transcript.jsonl\","
	              "\"unknown_field\":[1,2]}\n"
	              "{\"run_id\":\"b\"}\n");
	snprintf(p, sizeof p, "%s/annotations/a.yaml", root);
	write_file(p, "run_id: a\nquotes:\n  - file: solution.py\n    verdict: not-this-one\n"
	              "verdict: interesting\nsummary: >\n  x\n");
	snprintf(p, sizeof p, "%s/annotations/b.yaml", root);
	write_file(p, "run_id: b\nverdict: [unclosed\n");
	snprintf(p, sizeof p, "%s/problem_baselines.json", root);
	write_file(p, "{\"problems\":{\"01_fp8_gemm\":{\"eager\":{\"ms\":1.5,\"tflops\":2,\"gbps\":3},"
	              "\"sota\":{\"ms\":0.5}}}}");
	snprintf(p, sizeof p, "%s/leaderboard.json", root);
	write_file(p, "{\"hardware\":{\"name\":\"Test GPU\"},\"models\":[{\"label\":\"m [max]\",\"harness\":\"grok\","
	              "\"model\":\"m\",\"results\":{\"01_fp8_gemm\":{\"run_id\":\"a\"},"
	              "\"02_kda_cutlass\":{\"run_id\":\"held\",\"correct\":false}}}]}");

	char *err = NULL;
	struct dataset *ds = dataset_open(root, &err);
	ok(ds != NULL, "fixture dataset opens");
	if (!ds)
		return;
	is_int(ds->nruns, 3, "two indexed runs and one held out");
	long a = dataset_find(ds, "a"), b = dataset_find(ds, "b"), h = dataset_find(ds, "held");
	ok(a >= 0 && b >= 0 && h >= 0, "every run is found by id");
	is_str(ds->runs[a].verdict, "interesting", "top-level verdict read, nested key ignored");
	ok(ds->runs[b].verdict == NULL, "invalid YAML gives no verdict");
	int named = 0;
	for (int i = 0; i < ds->nerrors; i++)
		if (strstr(ds->error_files[i], "b.yaml") && ds->errors[i].line == 3 &&
		    strstr(ds->errors[i].msg, "invalid YAML"))
			named = 1;
	for (int i = 0; i < ds->nerrors; i++)
		printf("# index error: %s:%d: %s\n", ds->error_files[i], ds->errors[i].line, ds->errors[i].msg);
	ok(named, "the invalid annotation is reported with its line");
	is_str(ds->runs[a].meta.label, "m [max]", "label from the leaderboard");
	ok(ds->runs[h].held_out && ds->runs[h].transcript == NULL, "held-out run has no transcript");
	is_str(ds->runs[h].meta.problem, "02_kda_cutlass", "held-out run's problem from its cell");
	is_str(ds->hardware, "Test GPU", "hardware name");
	is_int(ds->nproblems, 1, "one problem baseline");
	ok(ds->problems[0].eager.ms == 1.5 && ds->problems[0].sota.ms == 0.5 &&
	   ds->problems[0].compiled.ms < 0, "baselines read, missing ones negative");
	ok(ds->runs[a].run == NULL, "opening the index parses no transcript");
	struct run *r = dataset_load(ds, (size_t)a);
	ok(r && r->nev == 1, "transcript loads on demand");
	ok(r && r->meta.peak_fraction == 0.5 && r->meta.correct, "run carries the index outcome");
	ok(dataset_load(ds, (size_t)a) == r, "loaded once, then cached");
	ok(dataset_load(ds, (size_t)h) == NULL && strstr(ds->runs[h].load_error, "held out"),
	   "held-out run explains why it has no transcript");
	char *art = dataset_artifact(ds, (size_t)a, "transcript.jsonl");
	ok(art != NULL, "artifact path found");
	free(art);
	ok(dataset_artifact(ds, (size_t)a, "../runs.jsonl") == NULL, "artifact names cannot climb out");

	/* search's kind: the same runs, no annotation read */
	struct dataset *rs = dataset_open_runs(root, &err);
	int same = rs && rs->nruns == ds->nruns;
	for (size_t i = 0; same && i < rs->nruns; i++)
		same = !strcmp(rs->runs[i].meta.run_id, ds->runs[i].meta.run_id) &&
		    !rs->runs[i].transcript == !ds->runs[i].transcript &&
		    (!rs->runs[i].transcript || !strcmp(rs->runs[i].transcript, ds->runs[i].transcript));
	ok(same, "dataset_open_runs: the same runs and transcripts");
	int noted = 0;
	for (int i = 0; rs && i < rs->nerrors; i++)
		noted |= strstr(rs->error_files[i], "b.yaml") != NULL;
	ok(rs && rs->runs[a].verdict == NULL && !noted, "... but no verdict read, nor the bad annotation's error");
	dataset_free(rs);
	dataset_free(ds);
	ok(dataset_open("/nonexistent-kbtui", &err) == NULL && strstr(err, "not a directory"),
	   "a missing directory is a clear error");
	free(err);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
}

static void sample_tests(void)
{
	const char *kbh = tap_shared_kbh();
	char *err = NULL;
	if (!kbh) {
		tap_skip("../shared/kbh is absent: real-sample index tests skipped");
		return;
	}
	struct dataset *ds = dataset_open(kbh, &err);
	ok(ds != NULL, "the real sample opens");
	if (!ds)
		return;
	size_t indexed = 0, held = 0, verdicts = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		indexed += !ds->runs[i].held_out;
		held += ds->runs[i].held_out;
		verdicts += ds->runs[i].verdict != NULL;
	}
	is_int(indexed, 127, "127 runs indexed from runs.jsonl");
	ok(held > 0, "leaderboard cells without a transcript are held out (%zu)", held);
	ok(verdicts >= 20, "verdicts read from the annotations (%zu)", verdicts);
	is_int(ds->nerrors, 0, "no index errors in the real sample");
	is_int(ds->nproblems, 7, "seven problem baselines");
	is_str(ds->hardware, "RTX PRO 6000 Blackwell Workstation", "hardware from leaderboard.json");
	long k = dataset_find(ds, "20260428_040539_claude_claude-opus-4-7_01_fp8_gemm");
	ok(k >= 0 && ds->runs[k].meta.peak_fraction > 0.53 && ds->runs[k].meta.peak_fraction < 0.54,
	   "outcome of a known run");
	dataset_free(ds);
}

int main(void)
{
	fixture_tests();
	sample_tests();
	return tap_done();
}
