/* test_benchlog: the reader of check/benchmark output lines: each line kind
 * with its numbers, look-alikes that are not results (ninja's FAILED:, an
 * agent's shape lines), chunked and growing input, and every real
 * benchmark.log and check.log of the sample against its result.json. */
#include "tap.h"
#include "benchlog.h"
#include "jsonx.h"
#include "util.h"

#include <dirent.h>
#include <math.h>

static struct benchlog_line L;

static enum benchlog_kind cl(const char *s)
{
	return benchlog_classify(s, strlen(s), &L);
}

static int near(double a, double b)
{
	return fabs(a - b) < 1e-9;
}

static void kinds(void)
{
	is_int(cl("shape=2 variant=solution tflops=1.705 gbps=20.009 ms=2.519"), BL_VARIANT, "variant line");
	ok(L.shape == 2 && near(L.tflops, 1.705) && near(L.gbps, 20.009) && near(L.ms, 2.519), "its numbers");
	ok(L.variant_len == 8 && !memcmp(L.variant, "solution", 8), "its variant");
	is_int(cl("  shape=0 variant=eager tflops=0.062 gbps=0.730 ms=34.498\r"), BL_VARIANT,
	       "leading blanks and CR are fine");
	ok(L.variant_len == 5 && near(L.ms, 34.498), "eager, 34.498 ms");
	is_int(cl("shape=3 solution_peak_fraction=0.0039"), BL_SHAPE_PEAK, "per-shape peak fraction");
	ok(L.shape == 3 && near(L.value, 0.0039), "shape 3, 0.0039");
	is_int(cl("peak_fraction: 0.0090"), BL_PEAK, "geomean peak fraction");
	ok(near(L.value, 0.009), "0.009");
	is_int(cl("RESULT: LOW"), BL_RESULT, "RESULT line");
	ok(L.text_len == 3 && !memcmp(L.text, "LOW", 3), "LOW");
	is_int(cl("PASS"), BL_PASS, "PASS");
	is_int(cl("PASS: all 4 shapes"), BL_PASS, "PASS with a remark");
	is_int(cl("PASSED_TESTS=3"), BL_NONE, "PASSED_TESTS=3 is not a verdict");
	is_int(cl("FAIL: shape 0 {'M': 4096} seed 42: tolerance exceeded: max_abs_diff=21.625 (atol=0.01, rtol=0.01)"),
	       BL_FAIL, "FAIL line");
	ok(util_starts_with(L.text, "shape 0 {'M'"), "message after 'FAIL: '");
	is_int(cl("FAILED: main.o "), BL_NONE, "ninja's FAILED: is not a verdict");
	is_int(cl("FAILED: [code=2] cuda.cuda.o "), BL_NONE, "nor FAILED: [code=2]");
	is_int(cl("time shape=1 ms=0.123456 min=0.120000 max=0.200000"), BL_HTIME, "our harness's time line");
	ok(L.shape == 1 && near(L.ms, 0.123456) && near(L.min, 0.12) && near(L.max, 0.2), "median, min, max");
	is_int(cl("benchmark_event event=variant_end shape=0 variant=solution ts=2026-06-04T19:10:41.292734+00:00 "
	          "elapsed_s=0.226 ms=0.441696"), BL_EVENT, "benchmark_event variant_end");
	ok(L.shape == 0 && near(L.ms, 0.441696), "its ms, not elapsed_s");
	is_int(cl("benchmark_event event=variant_start shape=0 variant=solution ts=2026"), BL_NONE,
	       "variant_start has no time");
}

static void timings(void)
{
	is_int(cl("M=4096 N=4096 K=4096: 0.395 ms, 348.0 TFLOPS"), BL_TIMING, "agent's shape timing");
	ok(near(L.ms, 0.395) && near(L.tflops, 348.0) && L.shape == -1, "0.395 ms, 348 TFLOPS");
	ok(L.text_len == strlen("M=4096 N=4096 K=4096") && !memcmp(L.text, "M=4096 N=4096 K=4096", L.text_len),
	   "label is what precedes the number");
	is_int(cl("shape=1 B=2 T=2048 H=8: 2.513 ms"), BL_TIMING, "shape= line that is not ours is a timing");
	ok(L.shape == 1 && near(L.ms, 2.513), "shape 1, 2.513 ms");
	is_int(cl("shape=0 solution: 0.305 ms, 7.046 TFLOPS, peak_fraction=0.0352"), BL_TIMING, "another agent form");
	ok(L.shape == 0 && near(L.tflops, 7.046), "7.046 TFLOPS");
	is_int(cl("time: 0.279ms"), BL_TIMING, "no space before ms");
	ok(near(L.ms, 0.279) && L.text_len == 4, "label 'time'");
	is_int(cl("  shape B=8 H=32 D=128 L=1024: nw=4 -> 0.0908 ms"), BL_TIMING, "arrow before the number");
	ok(near(L.ms, 0.0908), "0.0908");
	is_int(cl("elapsed 12 ms total"), BL_TIMING, "integer milliseconds");
	is_int(cl("W0427 08:52:14.578000 1127683 .venv/lib/python3.11/site-packages/torch/_dynamo/variables/tensor.py:1379]"),
	       BL_NONE, "a torch warning is not a timing");
	is_int(cl("kernel took 12 msec"), BL_NONE, "msec is not ms followed by a boundary");
	is_int(cl("sm_90a 1.5mss"), BL_NONE, "'mss' is not ms");
	is_int(cl("ms=0.44"), BL_NONE, "ms= alone names no number before it");
	is_int(cl(""), BL_NONE, "empty line");
	is_int(cl("peak_fraction: n/a"), BL_NONE, "peak_fraction without a number");
}

/* A compact text of what a log held, to compare two ways of reading it. */
static char *summary(const struct benchlog *b)
{
	struct sbuf s;
	sbuf_init(&s);
	sbuf_addf(&s, "lines=%d status=%d pass=%d fail=%d peak=%.6g result=%s fail=%s@%d\n", b->lineno, b->status,
	          b->npass, b->nfail, b->peak_fraction, b->result ? b->result : "-", b->fail ? b->fail : "-",
	          b->fail_line);
	for (int i = 0; i < b->ne; i++)
		sbuf_addf(&s, "%d:%d:%d:%s:%g:%g:%g\n", b->e[i].line, b->e[i].kind, b->e[i].shape,
		          b->e[i].variant ? b->e[i].variant : "-", b->e[i].tflops, b->e[i].gbps, b->e[i].ms);
	for (int i = 0; i < b->nshape_peak; i++)
		sbuf_addf(&s, "peak%d=%g\n", i, b->shape_peak[i]);
	return sbuf_detach(&s);
}

static const char LOG[] =
	"shape=0 variant=eager tflops=0.062 gbps=0.730 ms=34.498\n"
	"  [sota unavailable] RuntimeError: Invalid scaling configuration\n"
	"shape=0 variant=solution tflops=2.532 gbps=29.705 ms=0.848\n"
	"shape=0 solution_peak_fraction=0.0127\n"
	"shape=1 variant=solution tflops=3.118 gbps=36.591 ms=1.377\r\n"
	"shape=1 solution_peak_fraction=0.0156\n"
	"FAILED: main.o \n"
	"FAIL: shape=1 (M=1) seed=42: worst abs err 3\n"
	"PASS\n"
	"peak_fraction: 0.0141\n"
	"RESULT: LOW";   /* no final newline */

static void streams(void)
{
	struct benchlog *w = benchlog_new();
	benchlog_feed(w, LOG, strlen(LOG));
	benchlog_finish(w);
	benchlog_finish(w);
	char *whole = summary(w);
	is_int(w->lineno, 11, "11 lines, the last without newline");
	is_int(w->ne, 3, "3 variant entries");
	ok(near(w->peak_fraction, 0.0141), "peak_fraction 0.0141");
	is_str(w->result, "LOW", "unterminated last line read by finish");
	is_int(w->status, 1, "last verdict wins: PASS after FAIL");
	is_int(w->nfail, 1, "FAILED: main.o not counted as a FAIL");
	is_int(w->fail_line, 8, "first FAIL on line 8");
	ok(w->nshape_peak == 2 && near(w->shape_peak[1], 0.0156), "shape peaks by index");
	const struct benchlog_entry *e = benchlog_find(w, BL_VARIANT, 1, "solution");
	ok(e && near(e->ms, 1.377) && e->line == 5, "find shape 1 solution: 1.377 ms on line 5");
	ok(!benchlog_find(w, BL_VARIANT, 1, "eager"), "no eager for shape 1");
	ok(benchlog_find(w, BL_VARIANT, 0, NULL) && benchlog_find(w, BL_VARIANT, 0, NULL)->ms == 0.848,
	   "any variant: the last one");
	for (size_t step = 1; step <= 7; step += (step == 1 ? 2 : 4)) {
		struct benchlog *b = benchlog_new();
		for (size_t i = 0; i < strlen(LOG); i += step)
			benchlog_feed(b, LOG + i, strlen(LOG) - i < step ? strlen(LOG) - i : step);
		benchlog_finish(b);
		char *s = summary(b);
		is_str(s, whole, "fed in chunks of %zu bytes: same reading", step);
		free(s);
		benchlog_free(b);
	}
	/* a growing log: the first half, then the rest */
	struct benchlog *g = benchlog_new();
	size_t half = strlen(LOG) / 2;
	benchlog_feed(g, LOG, half);
	int mid = g->lineno;
	benchlog_feed(g, LOG + half, strlen(LOG) - half);
	benchlog_finish(g);
	char *s = summary(g);
	ok(mid > 0 && mid < 11, "half the log: %d complete lines read", mid);
	is_str(s, whole, "growing log: same reading");
	free(s);
	benchlog_free(g);
	/* an endless line does not grow without bound and is still counted */
	struct benchlog *h = benchlog_new();
	char chunk[4096];
	memset(chunk, 'x', sizeof chunk);
	for (int i = 0; i < 1000; i++)
		benchlog_feed(h, chunk, sizeof chunk);
	ok(h->partial.len <= 2 * sizeof chunk, "a 4 MB line keeps at most a few KB (%zu)", h->partial.len);
	benchlog_feed(h, "\nPASS\n", 6);
	ok(h->lineno == 2 && h->status == 1, "and the next line is read");
	benchlog_free(h);
	free(whole);
	benchlog_free(w);
}

static struct benchlog *read_log(const char *path)
{
	size_t len;
	char *t = util_read_file(path, &len);
	struct benchlog *b;
	if (!t)
		return NULL;
	b = benchlog_new();
	benchlog_feed(b, t, len);
	benchlog_finish(b);
	free(t);
	return b;
}

/* The sample's logs agree with its result.json as run_hard.sh made them:
 * correct iff check.log has a PASS line; peak_fraction from benchmark.log. */
static void corpus(void)
{
	const char *kbh = tap_shared_kbh();
	if (!kbh) {
		tap_skip("../shared/kbh not present");
		return;
	}
	char *runs = util_path_join(kbh, "runs");
	DIR *d = opendir(runs);
	struct dirent *de;
	int nbench = 0, ncheck = 0, bad_check = 0, bad_peak = 0, bad_geo = 0, bad_rows = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *dir = util_path_join(runs, de->d_name);
		char *rp = util_path_join(dir, "result.json"), *cp = util_path_join(dir, "check.log");
		char *bp = util_path_join(dir, "benchmark.log");
		size_t len;
		char *rt = util_read_file(rp, &len);
		cJSON *res = rt ? jx_parse(rt, len) : NULL;
		struct benchlog *c = read_log(cp), *b = read_log(bp);
		if (c && res) {
			ncheck++;
			if ((c->npass > 0) != jx_bool(res, "correct", -1)) {
				bad_check++;
				printf("# %s: check.log PASS=%d, result correct=%d\n", de->d_name, c->npass,
				       jx_bool(res, "correct", -1));
			}
		}
		if (b && res) {
			const cJSON *pf = jx_get(res, "peak_fraction");
			int rows = 0;
			nbench++;
			for (int i = 0; i < b->ne; i++)
				rows += b->e[i].kind == BL_VARIANT && !strcmp(b->e[i].variant, "solution");
			if (rows != b->nshape_peak)
				bad_rows++;
			if (cJSON_IsNumber(pf) ? !near(b->peak_fraction, pf->valuedouble) : b->peak_fraction >= 0) {
				bad_peak++;
				printf("# %s: benchmark.log peak %g, result %s\n", de->d_name, b->peak_fraction,
				       cJSON_IsNumber(pf) ? "number" : "null");
			}
			if (b->peak_fraction > 0 && b->nshape_peak) {
				/* the geomean of the printed shape fractions, within their
				 * rounding to 4 decimals */
				double lg = 0, slack = 0.00005 / b->peak_fraction;
				for (int i = 0; i < b->nshape_peak; i++) {
					lg += log(fmax(b->shape_peak[i], 1e-9));
					slack += 0.00005 / fmax(b->shape_peak[i], 1e-9) / b->nshape_peak;
				}
				if (fabs(lg / b->nshape_peak - log(b->peak_fraction)) > slack * 1.01 + 1e-9) {
					bad_geo++;
					printf("# %s: geomean %g vs %g\n", de->d_name, exp(lg / b->nshape_peak), b->peak_fraction);
				}
			}
		}
		cJSON_Delete(res);
		free(rt);
		benchlog_free(c);
		benchlog_free(b);
		free(dir);
		free(rp);
		free(cp);
		free(bp);
	}
	if (d)
		closedir(d);
	free(runs);
	printf("# %d check.log, %d benchmark.log read\n", ncheck, nbench);
	ok(ncheck > 50 && nbench > 50, "the sample has logs to read");
	is_int(bad_check, 0, "every check.log: PASS read iff result.json says correct");
	is_int(bad_peak, 0, "every benchmark.log: peak_fraction read equals result.json's (null when none)");
	is_int(bad_rows, 0, "every benchmark.log: one solution row per solution_peak_fraction");
	is_int(bad_geo, 0, "every benchmark.log: peak_fraction is the geomean of the shape fractions");
}

int main(void)
{
	kinds();
	timings();
	streams();
	corpus();
	return tap_done();
}
