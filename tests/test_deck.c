/* test_deck: the decks against the publisher's values. For every deck and
 * problem, `kbtui eval --describe --json` (shapes and formulas from
 * problem.json, peaks from hardware.json, the rest from the deck) is
 * compared field by field with tests/data/publisher_decks.json, which
 * records what the publisher's files say, each value with its file:line
 * and the text quoted from there (checked against ../shared when it is
 * beside the checkout). Then the INVALID thresholds per deck and problem. */
#include "tap.h"
#include "deck.h"
#include "eval.h"
#include "eval_int.h"
#include "hardware.h"
#include "jsonx.h"
#include "problem.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int describe(const char *deck, const char *problem, char **out, char **err)
{
	char *argv[] = {"eval", "--describe", "--json", "--problem", (char *)problem, "--deck", (char *)deck,
	                "--problems", (char *)tap_path("problems"), NULL};
	size_t no, ne;
	FILE *fo = open_memstream(out, &no), *fe = open_memstream(err, &ne);
	int rc = cmd_eval(9, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rc;
}

/* ../shared, NULL when absent. */
static const char *shared_dir(void)
{
	static char b[4096];
	const char *kbh = tap_shared_kbh();
	if (!kbh)
		return NULL;
	snprintf(b, sizeof b, "%.*s", (int)(strlen(kbh) - 4), kbh);
	return b;
}

/* "path:12" or "path:12-14": the quote on one of those lines. */
static int quote_at(const char *shared, const char *cite, const char *quote)
{
	const char *colon = strrchr(cite, ':');
	char *path, *text;
	int first, last, line = 1, found = 0;
	if (!colon || sscanf(colon + 1, "%d", &first) != 1)
		return 0;
	last = strchr(colon, '-') ? atoi(strchr(colon, '-') + 1) : first;
	path = xasprintf("%s/%.*s", shared, (int)(colon - cite), cite);
	text = util_read_file(path, NULL);
	for (char *l = text; l && *l && !found; line++) {
		char *e = strchr(l, '\n');
		if (e)
			*e = '\0';
		found = line >= first && line <= last && strstr(l, quote);
		l = e ? e + 1 : NULL;
	}
	free(text);
	free(path);
	return found;
}

static int n_quotes, n_quotes_ok;

/* Every {cite, quote} under o. */
static void check_quotes(const char *shared, const cJSON *o, const char *where)
{
	const cJSON *it;
	if (cJSON_IsObject(o) && jx_str(o, "cite") && jx_str(o, "quote")) {
		n_quotes++;
		if (quote_at(shared, jx_str(o, "cite"), jx_str(o, "quote")))
			n_quotes_ok++;
		else
			printf("# %s: \"%s\" is not at %s\n", where, jx_str(o, "quote"), jx_str(o, "cite"));
	}
	cJSON_ArrayForEach(it, o)
		if (cJSON_IsObject(it) || cJSON_IsArray(it))
			check_quotes(shared, it, where);
}

static int num_eq(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1, fabs(b));
}

/* A copy with booleans as the 0 and 1 a shape variable holds. */
static cJSON *bools_as_numbers(const cJSON *v)
{
	cJSON *c = cJSON_Duplicate(v, 1), *it;
	cJSON_ArrayForEach(it, c) {
		cJSON *s;
		cJSON_ArrayForEach(s, it)
			if (cJSON_IsBool(s)) {
				int t = cJSON_IsTrue(s);
				s->type = cJSON_Number;
				cJSON_SetNumberValue(s, t);
			}
	}
	return c;
}

/* The describe's value of key against the publisher's {"value": ...}. */
static void same(const cJSON *got, const cJSON *pub, const char *key, const char *where)
{
	const cJSON *g = jx_get(got, key);
	cJSON *p = jx_get(jx_get(pub, key), "value") ? bools_as_numbers(jx_get(jx_get(pub, key), "value")) : NULL;
	ok(p && g && cJSON_Compare(g, p, 1), "%s: %s as the publisher's (%s)", where, key,
	   jx_str(jx_get(pub, key), "cite") ? jx_str(jx_get(pub, key), "cite") : "?");
	cJSON_Delete(p);
}

static void compare_problem(const cJSON *deck, const char *pname, const cJSON *pub)
{
	char *out = NULL, *err = NULL, where[160];
	const char *dname = jx_str(deck, "name");
	snprintf(where, sizeof where, "%s %s", dname, pname);
	int rc = describe(dname, pname, &out, &err);
	is_int(rc, 0, "%s: --describe --json exits 0", where);
	is_str(err, "", "%s: nothing on stderr", where);
	cJSON *got = jx_parse(out, strlen(out));
	ok(got != NULL, "%s: its output is JSON", where);
	is_str(jx_str(got, "deck"), dname, "%s: names the deck", where);
	const char *fields[] = {"precision", "regime", "flops_formula", "bytes_formula", "peak_tflops_key",
	                        "peak_bandwidth_key", "trials", "seeds", "shapes"};
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		same(got, pub, fields[i], where);
	same(got, deck, "warmup", where);
	same(got, deck, "l2_flush_bytes", where);
	const cJSON *gt = jx_get(got, "tolerance"), *pt = jx_get(jx_get(pub, "tolerance"), "value");
	ok(num_eq(jx_num(gt, "atol", -1), jx_num(pt, "atol", -2)) && num_eq(jx_num(gt, "rtol", -1), jx_num(pt, "rtol", -2)) &&
	   jx_str(gt, "keyed_on") && jx_str(pt, "keyed_on") && !strcmp(jx_str(gt, "keyed_on"), jx_str(pt, "keyed_on")),
	   "%s: tolerance atol %g rtol %g keyed on %s, as the publisher's (%s)", where, jx_num(gt, "atol", -1),
	   jx_num(gt, "rtol", -1), jx_str(gt, "keyed_on") ? jx_str(gt, "keyed_on") : "?",
	   jx_str(jx_get(pub, "tolerance"), "cite"));
	/* the table: every figure the publisher's file gives */
	const cJSON *tb = jx_get(got, "table"), *ptb = jx_get(deck, "table"), *it;
	is_str(jx_str(tb, "key"), jx_str(ptb, "key"), "%s: the deck's table", where);
	ok(num_eq(jx_num(tb, "dram_gb_s", -1), jx_num(jx_get(ptb, "dram_gb_s"), "value", -2)), "%s: DRAM %g GB/s (%s)",
	   where, jx_num(tb, "dram_gb_s", -1), jx_str(jx_get(ptb, "dram_gb_s"), "cite"));
	cJSON_ArrayForEach(it, jx_get(ptb, "tflops"))
		ok(num_eq(jx_num(jx_get(tb, "tflops"), it->string, -1), jx_num(it, "value", -2)), "%s: %s %g TFLOPS (%s)",
		   where, it->string, jx_num(it, "value", -2), jx_str(it, "cite"));
	/* the deck's named checks and inputs, in order */
	const cJSON *gc = jx_get(got, "checks"), *pc = jx_get(pub, "checks");
	is_int(cJSON_GetArraySize(gc), cJSON_GetArraySize(pc), "%s: %d named checks", where, cJSON_GetArraySize(pc));
	for (int i = 0; i < cJSON_GetArraySize(pc); i++) {
		const cJSON *a = cJSON_GetArrayItem(gc, i), *b = cJSON_GetArrayItem(pc, i);
		ok(a && jx_str(a, "name") && !strcmp(jx_str(a, "name"), jx_str(b, "name")) &&
		   num_eq(jx_num(a, "atol", -1), jx_num(b, "atol", -1)) && num_eq(jx_num(a, "rtol", -1), jx_num(b, "rtol", -1)),
		   "%s: check %s atol %g rtol %g (%s)", where, jx_str(b, "name"), jx_num(b, "atol", -1), jx_num(b, "rtol", -1),
		   jx_str(b, "cite"));
	}
	const cJSON *gi = jx_get(got, "inputs"), *pi = jx_get(pub, "inputs");
	is_int(cJSON_GetArraySize(gi), cJSON_GetArraySize(pi), "%s: %d inputs described", where, cJSON_GetArraySize(pi));
	for (int i = 0; i < cJSON_GetArraySize(pi); i++) {
		const cJSON *a = cJSON_GetArrayItem(gi, i), *b = cJSON_GetArrayItem(pi, i);
		ok(a && jx_str(a, "value") && !strcmp(jx_str(a, "value"), jx_str(b, "value")), "%s: input %s: %s", where,
		   jx_str(b, "name"), jx_str(b, "value"));
	}
	cJSON_Delete(got);
	free(out);
	free(err);
}

static void decks_vs_publisher(void)
{
	char *text = util_read_file(tap_path("tests/data/publisher_decks.json"), NULL);
	cJSON *doc = text ? jx_parse(text, strlen(text)) : NULL, *deck;
	const char *shared = shared_dir();
	int nd = 0;
	free(text);
	ok(doc != NULL, "tests/data/publisher_decks.json reads");
	cJSON_ArrayForEach(deck, jx_get(doc, "decks")) {
		const cJSON *p;
		nd++;
		cJSON_ArrayForEach(p, jx_get(deck, "problems"))
			compare_problem(deck, p->string, p);
		/* the deck's problems are the publisher's, no more */
		char *err = NULL;
		struct deck *d = deck_load(tap_path("problems"), jx_str(deck, "name"), &err);
		const cJSON *pl = jx_get(jx_get(deck, "problem_list"), "value");
		ok(d && d->np == cJSON_GetArraySize(pl), "%s: %d problems", jx_str(deck, "name"), cJSON_GetArraySize(pl));
		deck_free(d);
		free(err);
		if (shared)
			check_quotes(shared, deck, jx_str(deck, "name"));
	}
	is_int(nd, 4, "four decks recorded");
	if (shared)
		ok(n_quotes > 100 && n_quotes == n_quotes_ok, "every cited quote is at its file and line in ../shared (%d of %d)",
		   n_quotes_ok, n_quotes);
	else
		tap_skip("../shared is absent: the citations' quotes are not checked");
	cJSON_Delete(doc);

	char *out = NULL, *err = NULL;
	is_int(describe("kbcom-2026-08-rtxpro6000", "04", &out, &err), 1, "04 in a current deck: 1");
	has_str(err, "kbtui eval: 04_kahan_softmax is not in deck kbcom-2026-08-rtxpro6000", "said");
	free(out);
	free(err);
	is_int(describe("kbcom-2026-09", "01", &out, &err), 1, "an unknown deck: 1");
	has_str(err, "no deck 'kbcom-2026-09' (decks: kbcom-2026-08-b200 kbcom-2026-08-h100 kbcom-2026-08-rtxpro6000 kbh-2026-04)",
	        "the decks listed");
	free(out);
	free(err);
}

static int run(int argc, char **argv, char **out, char **err)
{
	size_t no, ne;
	FILE *fo = open_memstream(out, &no), *fe = open_memstream(err, &ne);
	int rc = cmd_eval(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	return rc;
}

/* --describe as text, and its errors. */
static void describe_text(void)
{
	char *out, *err;
	char *a1[] = {"eval", "--describe", "--problem", "01", "--deck", "kbcom-2026-08-h100", "--problems",
	              (char *)tap_path("problems"), NULL};
	is_int(run(8, a1, &out, &err), 0, "--describe as text: 0");
	has_str(out, "deck             kbcom-2026-08-h100\n", "a field a line: the deck");
	has_str(out, "tolerance        {\"atol\":0.2,\"rtol\":0.2,\"keyed_on\":\"bfloat16\"}\n", "the tolerance and its keying");
	has_str(out, "checks           {\"name\":\"stress:large_input\",\"what\":\"x * 64\",\"atol\":12,", "a named check a line");
	has_str(out, "\"key\":\"H100\",\"table\":\"h100pcie-2026-06\"", "the table");
	has_str(out, "\"dram_gb_s\":2039", "its bandwidth");
	has_str(out, "\"l2_flush_bytes\":\"kbcom-problems/src/eval/timing.py:38\"", "the citations");
	is_str(err, "", "nothing on stderr");
	free(out);
	free(err);
	char *a2[] = {"eval", "--describe", "--problems", (char *)tap_path("problems"), NULL};
	is_int(run(4, a2, &out, &err), 1, "--describe without --problem: 1");
	has_str(err, "kbtui eval: --describe needs --problem NAME", "said");
	free(out);
	free(err);
	char *a3[] = {"eval", "--json", "--problem", "01", "x.cu", NULL};
	is_int(run(5, a3, &out, &err), 2, "--json without --describe: usage");
	has_str(err, "--json goes with --describe", "said");
	free(out);
	free(err);
	char *a5[] = {"eval", "--kbh", "/nonexistent", "--deck", "kbh-2026-04", "--problem", "01", "x.py", NULL};
	is_int(run(8, a5, &out, &err), 2, "--deck with --kbh: usage");
	has_str(err, "--kbh runs the checkout's own definitions", "said why");
	free(out);
	free(err);
	char *a4[] = {"eval", "--describe", "--problem", "01", "--hardware", "B200", "--problems",
	              (char *)tap_path("problems"), "--json", NULL};
	unsetenv("KBTUI_DECK");
	is_int(run(9, a4, &out, &err), 0, "--describe --hardware B200: 0");
	has_str(out, "\"deck\":\t\"kbcom-2026-08-b200\"", "the current deck of --hardware's profile");
	free(out);
	free(err);
	char *a6[] = {"eval", "--describe", "--problem", "03", "--hardware", "H200", "--problems",
	              (char *)tap_path("problems"), "--json", NULL};
	is_int(run(9, a6, &out, &err), 0, "--describe --hardware H200: 0");
	has_str(out, "\"deck\":\t\"kbcom-2026-08-h100\"", "an H200 gets the H100 deck's definitions");
	has_str(out, "\"key\":\t\"H200\"", "on its own table");
	free(out);
	free(err);
}

/* The TFLOPS (compute) or GB/s (memory) above which a shape is INVALID:
 * the deck's table peak times EVAL_ROOFLINE_NOISE. */
static double invalid_above(const struct deck *d, const struct hardware_list *hw, const struct problem *p)
{
	const struct hardware_profile *t = hardware_find(hw, d->table);
	double peak = !t ? -1 : !strcmp(p->regime, "memory") ? hardware_gbps(t, p->peak_bandwidth_key)
	                                                      : hardware_tflops(t, p->peak_tflops_key);
	return peak * EVAL_ROOFLINE_NOISE;
}

static void thresholds(void)
{
	char *err = NULL, *hwp = xasprintf("%s/hardware.json", tap_path("problems"));
	struct hardware_list *hw = hardware_load(hwp, &err);
	int n;
	char **names = deck_names(tap_path("problems"), &n);
	ok(hw && n == 4, "hardware.json and four decks");
	for (int i = 0; hw && i < n; i++) {
		struct deck *d = deck_load(tap_path("problems"), names[i], &err);
		for (int j = 0; d && j < d->np; j++) {
			char *pdir = xasprintf("%s/%s", tap_path("problems"), d->p[j].name);
			struct problem *p = problem_load(pdir, &err);
			double lim = p ? invalid_above(d, hw, p) : -1;
			ok(lim > 0, "%s %s: INVALID above %.6g %s", names[i], d->p[j].name, lim,
			   p && !strcmp(p->regime, "memory") ? "GB/s" : "TFLOPS");
			problem_free(p);
			free(pdir);
		}
		deck_free(d);
	}
	struct deck *cur = deck_load(tap_path("problems"), "kbcom-2026-08-rtxpro6000", &err);
	struct deck *old = deck_load(tap_path("problems"), "kbh-2026-04", &err);
	char *pdir = xasprintf("%s/01_fp8_gemm", tap_path("problems"));
	struct problem *fp8 = problem_load(pdir, &err);
	double lc = cur && fp8 ? invalid_above(cur, hw, fp8) : -1, lo = old && fp8 ? invalid_above(old, hw, fp8) : -1;
	ok(num_eq(lc, 1050) && 773 < lc, "cuBLAS-class fp8, 773 TFLOPS, is valid on the current RTX PRO 6000 deck (up to %g)",
	   lc);
	ok(num_eq(773 / hardware_tflops(hardware_find(hw, cur->table), "fp8"), 0.773), "and scores 0.773 there");
	ok(num_eq(lo, 420) && 773 > lo, "on kbh-2026-04's first table it is INVALID (above %g)", lo);
	problem_free(fp8);
	free(pdir);
	deck_free(cur);
	deck_free(old);
	problem_names_free(names, n);
	hardware_free(hw);
	free(hwp);
	free(err);
}

/* The default deck by the GPU's profile. */
static void defaults(void)
{
	const char *pd = tap_path("problems");
	const char *want[][3] = {
		{"RTX_PRO_6000", "kbcom-2026-08-rtxpro6000", "0"}, {"H100", "kbcom-2026-08-h100", "0"},
		{"H100_SXM", "kbcom-2026-08-h100", "1"}, {"H200", "kbcom-2026-08-h100", "1"},
		{"B200", "kbcom-2026-08-b200", "0"},
	};
	int own;
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		char *d = deck_default_for(pd, want[i][0], &own);
		is_str(d, want[i][1], "the current deck for %s", want[i][0]);
		is_int(own, atoi(want[i][2]), "%s: %s", want[i][0], own ? "on its own table (the deck's is the PCIe part's)"
		                                                      : "on the deck's table");
		free(d);
	}
	char *none = deck_default_for(pd, "TOY", &own);
	ok(!none, "no deck for an unknown profile");
	free(none);
}

int main(void)
{
	decks_vs_publisher();
	describe_text();
	thresholds();
	defaults();
	return tap_done();
}
