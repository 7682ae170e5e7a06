/* The publisher's per-run detail (src/rundetail.c): read, found beside a
 * run or in its dataset's rundetail/, its stats and shapes as text, and
 * the shapes pane's rendering with a bar per shape filled to its fraction
 * of the roofline; the site's own 115 files when ../shared is there. */
#include "tap.h"
#include "rundetail.h"
#include "eval.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FX "tests/fixtures/boards"
#define X1 "20260618_090000_claude_opus-x_03_paged_attention"

/* How many times needle occurs in the line of s that starts with prefix. */
static int count_in_line(const char *s, const char *prefix, const char *needle)
{
	for (const char *l = s; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, prefix, strlen(prefix)))
			continue;
		const char *end = strchr(l, '\n');
		int n = 0;
		for (const char *p = strstr(l, needle); p && (!end || p < end); p = strstr(p + strlen(needle), needle))
			n++;
		return n;
	}
	return -1;
}

static void test_fixture(void)
{
	char *err = NULL;
	char *path = rundetail_path(NULL, tap_path(FX), X1);
	ok(path && strstr(path, "/rundetail/" X1 ".json"), "found as ROOT/rundetail/<run_id>.json");
	struct rundetail *d = path ? rundetail_load(path, &err) : NULL;
	ok(d != NULL, "reads (%s)", err ? err : "ok");
	if (!d) {
		free(path);
		return;
	}
	is_int(d->nshapes, 2, "two shapes");
	is_str(d->shapes[0].label, "8x1024x128", "a shape's label");
	ok(d->shapes[1].label == NULL && d->shapes[1].ms == 1.25, "a shape without a label keeps its figures");
	ok(d->agent_s == 1800 && d->check_s == 40 && d->benchmark_s == 60 && d->cost_usd == 3.25, "the stats");
	ok(d->template_mutated == 0 && d->lock_wait_s == 12 && d->lock_acquisitions == 3, "template and GPU lock");
	char *st = rundetail_stats_text(d);
	is_str(st, "agent 1800 s  check 40 s  benchmark 60 s  cost $3.25  template unchanged  GPU lock wait 12 s (3 acquisitions)",
	       "the stats as one line");
	free(st);
	st = rundetail_stats_brief(d);
	is_str(st, "agent 1800s check 40s bench 60s $3.25 lock 12s", "and in brief, for the replay's header");
	free(st);
	char *sh = rundetail_shapes_text(d);
	ok(strstr(sh, "8x1024x128 0.5 ms 1.5 TFLOPS 1020 GB/s frac 0.5000 memory; shape 1 1.25 ms") != NULL,
	   "the shapes as one text: %s", sh);
	free(sh);

	struct sbuf b;
	sbuf_init(&b);
	rundetail_render(&b, d, 22, "#", ".");
	const char *head = "from " X1 ".json (the publisher's per-run detail), table as the file's peaks\n"
	                   "roofline: h100  bf16 memory  peak 756 TFLOPS, 2039 GB/s\n";
	ok(strncmp(b.s, head, strlen(head)) == 0, "the header names the source and the roofline: %.160s", b.s);
	ok(strstr(b.s, "8x1024x128  0.5 ms  1.5 TFLOPS  1020 GB/s  50.0% memory-bound (compute 0.2%, memory 50.0%)\n"),
	   "a shape's row: time, TFLOPS, GB/s, fraction, bound, utilisation");
	/* bars of 20 cells: half, a tenth */
	is_int(count_in_line(b.s, " #", "#"), 10, "the first bar is filled to half its 20 cells");
	ok(strstr(b.s, "\n ##........................\n") == NULL && strstr(b.s, "\n ##..................\n") != NULL,
	   "the second to a tenth");
	sbuf_free(&b);
	rundetail_free(d);
	free(path);
}

static void test_paths(void)
{
	char tmpl[] = "/tmp/kbrdXXXXXX";
	char *root = mkdtemp(tmpl);
	ok(root != NULL, "a temporary dataset");
	if (!root)
		return;
	char *cmd = xasprintf("mkdir -p %s/runs/r1 %s/rundetail && echo '{}' > %s/rundetail/r1.json && "
	                      "touch %s/runs/r1/transcript.jsonl", root, root, root, root);
	ok(system(cmd) == 0, "its files made");
	free(cmd);
	char *tr = xasprintf("%s/runs/r1/transcript.jsonl", root);
	char *p = rundetail_path_near(tr, "r1");
	ok(p && util_ends_with(p, "/rundetail/r1.json"), "a replay's transcript finds the dataset's rundetail/<id>.json");
	free(p);
	cmd = xasprintf("echo '{}' > %s/runs/r1/rundetail.json", root);
	ok(system(cmd) == 0, "one beside the run too");
	free(cmd);
	p = rundetail_path_near(tr, "r1");
	ok(p && util_ends_with(p, "/runs/r1/rundetail.json"), "the run directory's own wins");
	free(p);
	ok(rundetail_path(NULL, root, "../r1") == NULL, "a run id with a path in it names no file");
	char *err = NULL;
	cmd = xasprintf("printf '[1]' > %s/runs/r1/rundetail.json", root);
	ok(system(cmd) == 0, "a file that is not an object");
	free(cmd);
	p = xasprintf("%s/runs/r1/rundetail.json", root);
	ok(rundetail_load(p, &err) == NULL && err && strstr(err, "rundetail.json:1: not a JSON object"),
	   "is refused naming file and line");
	free(err);
	free(p);
	free(tr);
	cmd = xasprintf("rm -rf %s", root);
	ok(system(cmd) == 0, "cleaned up");
	free(cmd);
}

/* kbtui's own eval writes the publisher's per-shape fields in result.json,
 * and the shapes pane's loader falls back to them when no rundetail is
 * there, naming the file and the table. */
static void test_own_result(void)
{
	char tmpl[] = "/tmp/kbrdeXXXXXX";
	char *dir = mkdtemp(tmpl), *err = NULL;
	ok(dir != NULL, "a run directory");
	if (!dir)
		return;
	char *tr = xasprintf("%s/transcript.jsonl", dir), *res = xasprintf("%s/result.json", dir);
	struct eval_shape sh[2] = {
		{.shape = 0, .desc = xstrdup("M=4096 N=4096 K=4096"), .ms = 0.25, .tflops = 550, .gbps = 400},
		{.shape = 1, .desc = xstrdup("M=32 N=8192 K=8192"), .ms = 0.1, .tflops = 40, .gbps = 1500},
	};
	/* a compute-bound problem on the corrected RTX PRO 6000 fp8 peak */
	for (int i = 0; i < 2; i++)
		eval_shape_roofline(&sh[i], "compute", 1000, 1800);
	ok(fabs(sh[0].peak_fraction - 0.55) < 1e-9 && fabs(sh[0].compute_util - 0.55) < 1e-9 &&
	   !strcmp(sh[0].bound, "compute"), "a fast shape: frac is its compute utilisation, compute-bound");
	ok(fabs(sh[1].peak_fraction - 0.04) < 1e-9 && fabs(sh[1].mem_util - 1500.0 / 1800) < 1e-9 &&
	   !strcmp(sh[1].bound, "memory"), "a skinny one: frac stays the regime's, bound the larger (memory)");
	struct eval_result r = {.problem = xstrdup("01_fp8_gemm"), .hardware = xstrdup("RTX_PRO_6000"),
	                        .deck = xstrdup("kbcom-2026-08-rtxpro6000"), .table = xstrdup("rtxpro6000-2026-06-14"),
	                        .regime = xstrdup("compute"), .dtype = xstrdup("fp8"), .peak_tflops = 1000,
	                        .peak_gbps = 1800, .peak_fraction = 0.148, .kbh_correct = -1,
	                        .adversarial_correct = -1, .nshapes = 2};
	r.shapes = xcalloc(2, sizeof *r.shapes);
	memcpy(r.shapes, sh, sizeof sh);
	is_int(eval_write_result(&r, res, &err), 0, "result.json written (%s)", err ? err : "ok");
	eval_result_free(&r);
	char *why = NULL;
	struct rundetail *d = rundetail_for_run(tr, "r1", &why);
	ok(d != NULL, "the pane's loader reads it (%s)", why ? why : "ok");
	if (d) {
		ok(d->own == 1 && d->nshapes == 2, "as kbtui's own, two shapes");
		is_str(d->table, "rtxpro6000-2026-06-14", "with the deck's table");
		ok(d->peak_tflops == 1000 && d->peak_bw_gb_s == 1800 && !strcmp(d->regime, "compute"),
		   "and the roofline the shapes were scored on");
		const struct rd_shape *s = &d->shapes[1];
		ok(s->idx == 1 && s->label && !strcmp(s->label, "M=32 N=8192 K=8192") && s->ms == 0.1 &&
		   s->tflops == 40 && s->gbps == 1500, "a shape's label, time, TFLOPS and GB/s");
		ok(s->frac == 0.04 && s->compute_util == 0.04 && s->mem_util == 0.8333 && !strcmp(s->bound, "memory"),
		   "its frac, utilisations (4 decimals, as the publisher's) and bound");
		struct sbuf b;
		sbuf_init(&b);
		rundetail_render(&b, d, 22, "#", ".");
		ok(!strncmp(b.s, "from result.json (kbtui's own eval), table rtxpro6000-2026-06-14\n"
		                 "roofline: RTX_PRO_6000  fp8 compute  peak 1000 TFLOPS, 1800 GB/s\n", 130),
		   "the pane names the file and the table: %.140s", b.s);
		ok(strstr(b.s, "M=4096 N=4096 K=4096  0.25 ms  550 TFLOPS  400 GB/s  55.0% compute-bound") != NULL,
		   "a shape's row");
		ok(!strstr(b.s, "agent ") && !strstr(b.s, "cost -"), "no publisher stats line for our own");
		ok(rundetail_stats_brief(d) == NULL, "nor any brief stats for the header");
		char *deck = rundetail_result_deck(tr);
		is_str(deck, "kbcom-2026-08-rtxpro6000", "the deck result.json records, for the header");
		free(deck);
		sbuf_free(&b);
	}
	rundetail_free(d);
	free(why);
	/* a result.json whose shapes were never timed is no figures */
	char *cmd = xasprintf("printf '{\"shapes\":[{\"shape\":0,\"ms\":null}]}' > %s", res);
	ok(system(cmd) == 0, "a result.json with untimed shapes");
	free(cmd);
	why = NULL;
	d = rundetail_for_run(tr, "r1", &why);
	ok(d == NULL && why && strstr(why, "nor timed shapes in its result.json"), "gives none, saying why");
	rundetail_free(d);
	free(why);
	cmd = xasprintf("rm -rf %s", dir);
	ok(system(cmd) == 0, "cleaned up");
	free(cmd);
	free(tr);
	free(res);
}

/* Every file the site publishes reads, each shape with its bound. */
static void test_site(void)
{
	const char *dir = tap_path("../shared/kbcom-results/rundetail");
	DIR *d = opendir(dir);
	if (!d) {
		printf("# SKIP the site's rundetail files: ../shared/kbcom-results is not here\n");
		return;
	}
	struct dirent *de;
	int files = 0, bad = 0, shapes = 0, none = 0;
	while ((de = readdir(d))) {
		if (!util_ends_with(de->d_name, ".json"))
			continue;
		char *p = util_path_join(dir, de->d_name), *err = NULL;
		struct rundetail *r = rundetail_load(p, &err);
		files++;
		if (!r || r->peak_tflops <= 0)
			bad++;
		none += r && !r->nshapes;   /* a run that failed its check has no shapes */
		for (size_t i = 0; r && i < r->nshapes; i++)
			shapes += r->shapes[i].bound != NULL;
		rundetail_free(r);
		free(err);
		free(p);
	}
	closedir(d);
	ok(files == 115 && bad == 0, "the site's %d files read, each with its roofline (%d not)", files, bad);
	ok(none < files, "%d of them have shapes", files - none);
	is_int(shapes, 418, "their 418 shapes each name a bound");
}

int main(void)
{
	test_fixture();
	test_paths();
	test_own_result();
	test_site();
	return tap_done();
}
