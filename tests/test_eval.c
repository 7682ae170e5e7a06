/* test_eval: the eval backend without a GPU: every problem's problem.json,
 * hardware profiles and detection, the forbidden-pattern check, child
 * processes (time limit on a process group, crash, output cap), the
 * result.json writer, and the whole loop with a fake nvcc whose "harness"
 * passes, fails, hangs, crashes or finds no device; then `kbtui eval`'s
 * options and the --kbh python loop on a stand-in checkout. */
#include "tap.h"
#include "benchlog.h"
#include "eval.h"
#include "eval_int.h"
#include "evaljob.h"
#include "forbid.h"
#include "hardware.h"
#include "jsonx.h"
#include "objscan.h"
#include "parser.h"
#include "problem.h"
#include "proc.h"
#include "reeval.h"
#include "run.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static char tmp[256];

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static char *tmp_path(const char *name)
{
	return util_path_join(tmp, name);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *slurp(const char *dir, const char *name)
{
	char *p = util_path_join(dir, name);
	char *t = util_read_file(p, NULL);
	free(p);
	return t;
}

/* ---- problems ------------------------------------------------------------ */

static void real_problems(void)
{
	int n;
	const char *dir = tap_path("problems");
	char **names = problem_names(dir, &n), *err = NULL;
	char *hwp = util_path_join(dir, "hardware.json");
	struct hardware_list *hw = hardware_load(hwp, &err);
	free(hwp);
	ok(hw != NULL, "problems/hardware.json loads%s%s", err ? ": " : "", err ? err : "");
	free(err);
	if (!n)
		tap_skip("no problems/*/problem.json yet");
	for (int i = 0; i < n; i++) {
		char *pd = util_path_join(dir, names[i]);
		struct problem *p = problem_load(pd, &err);
		ok(p != NULL, "%s: problem.json loads%s%s", names[i], err ? ": " : "", err ? err : "");
		free(err);
		err = NULL;
		if (!p) {
			free(pd);
			continue;
		}
		is_str(p->name, names[i], "%s: name is the folder's", names[i]);
		ok(p->nshapes > 0 && p->seeds >= 1 && p->trials >= 1, "%s: %d shapes, %d seeds, %d trials", names[i],
		   p->nshapes, p->seeds, p->trials);
		ok(p->atol > 0 && p->rtol >= 0 && p->atol < 1, "%s: tolerance atol %g rtol %g", names[i], p->atol,
		   p->rtol);
		static const char *const files[] = {"driver.cu", "reference.cu", "baseline.cu", "interface.h",
		                                    "PROMPT.txt"};
		for (size_t k = 0; k < sizeof files / sizeof *files; k++) {
			char *fp = util_path_join(pd, files[k]);
			ok(util_is_file(fp), "%s: has %s", names[i], files[k]);
			free(fp);
		}
		struct forbid *f = forbid_new((const char *const *)p->forbidden, p->nforbidden, &err);
		ok(f != NULL, "%s: its %d forbidden patterns compile%s%s", names[i], p->nforbidden, err ? ": " : "",
		   err ? err : "");
		free(err);
		err = NULL;
		size_t len;
		char *bl = slurp(pd, "baseline.cu");
		struct forbid_hit hit;
		if (f && bl) {
			int h = forbid_scan(f, bl, strlen(bl), &hit);
			ok(!h, "%s: the baseline trips no forbidden pattern%s%s", names[i], h ? ": " : "",
			   h ? p->forbidden[hit.pattern] : "");
			if (h)
				forbid_hit_free(&hit);
		}
		free(bl);
		(void)len;
		forbid_free(f);
		for (int k = 0; hw && k < p->nhardware; k++) {
			const struct hardware_profile *hp = hardware_find(hw, p->hardware[k]);
			ok(hp != NULL, "%s: hardware %s has a profile", names[i], p->hardware[k]);
			if (hp && !strcmp(p->regime, "compute"))
				ok(hardware_tflops(hp, p->peak_tflops_key) > 0, "%s: %s has a %s peak", names[i], hp->key,
				   p->peak_tflops_key);
			if (hp && !strcmp(p->regime, "memory"))
				ok(hardware_gbps(hp, p->peak_bandwidth_key) > 0, "%s: %s has a %s bandwidth", names[i],
				   hp->key, p->peak_bandwidth_key);
		}
		char num[8];
		snprintf(num, sizeof num, "%.2s", names[i]);
		char *found = problem_find(dir, num);
		ok(found && !strcmp(found, pd), "%s: found by its number %s", names[i], num);
		free(found);
		found = problem_find(dir, strchr(names[i], '_') + 1);
		ok(found && !strcmp(found, pd), "%s: found by its name without number", names[i]);
		free(found);
		problem_free(p);
		free(pd);
	}
	problem_names_free(names, n);
	hardware_free(hw);
}

static struct problem *load_json(const char *json, char **err)
{
	char *d = tmp_path("p"), *f = tmp_path("p/problem.json");
	mkdir(d, 0777);
	write_file(f, json);
	struct problem *p = problem_load(d, err);
	free(d);
	free(f);
	return p;
}

#define MINI "\"shapes\": [{\"M\": 4}], \"flops_formula\": \"2*M\", \"bytes_formula\": \"M*4\""

static void problem_forms(void)
{
	char *err = NULL;
	struct problem *p = problem_load(tap_path("tests/fixtures/eval/problems/01_toy"), &err);
	ok(p && p->atol == 0.001 && p->rtol == 0.002, "tolerance map: the output dtype's entry (float32)");
	ok(p && p->seeds == 3 && p->trials == 7 && p->nshapes == 2, "num_correct_seeds, num_perf_trials, 2 shapes");
	ok(p && p->shapes[0].nvars == 1, "a string in a shape is a label, not a variable");
	char *desc = p ? problem_shape_desc(p, 1) : NULL;
	is_str(desc, "n=8388608", "shape description");
	free(desc);
	problem_free(p);
	free(err);
	err = NULL;

	p = load_json("{" MINI ", \"precision\": \"int4_bf16\", \"tolerance\": {\"float32\": 1e-4, \"torch.bfloat16\": 0.1}}", &err);
	ok(p && p->atol == 0.1, "int4_bf16: the bf16 entry (torch.bfloat16) applies");
	problem_free(p);
	p = load_json("{" MINI ", \"precision\": \"bf16\"}", &err);
	ok(p && p->atol == 1e-2 && p->rtol == 1e-2, "no tolerance: KernelBench-Hard's bf16 default 1e-2");
	problem_free(p);
	p = load_json("{" MINI ", \"precision\": \"fp8_e4m3\", \"tolerance\": {\"fp8_e4m3fn\": 0.15}}", &err);
	ok(p && p->atol == 0.15 && p->rtol == 0.15, "a single entry applies whatever its dtype key");
	problem_free(p);
	p = load_json("{" MINI ", \"tolerance\": \"5e-2\"}", &err);
	ok(p && p->atol == 0.05, "a string number, as YAML leaves \"5e-2\"");
	problem_free(p);
	p = load_json("{" MINI ", \"precision\": \"fp32\"}", &err);
	ok(p && p->atol == 1e-4 && p->seeds == 3 && p->trials == 30 && !strcmp(p->regime, "compute"),
	   "defaults: fp32 1e-4, 3 seeds, 30 trials, compute");
	is_str(p ? p->name : NULL, "p", "no name: the folder's");
	problem_free(p);

	p = load_json("{\"shapes\": [{\"M\": 4}, {\"N\": 2}], \"flops_formula\": \"2*M\", \"bytes_formula\": \"M\"}",
	              &err);
	ok(!p && err, "a formula naming a variable a shape lacks is refused at load time");
	has_str(err, "problem.json: shape 1: flops_formula column 3: unknown variable 'M'", "with shape and column");
	free(err);
	err = NULL;
	p = load_json("{\"flops_formula\": \"1\", \"bytes_formula\": \"1\"}", &err);
	has_str(err, "\"shapes\" must be a non-empty array", "missing shapes");
	free(err);
	err = NULL;
	p = load_json("{" MINI ", \"regime\": \"latency\"}", &err);
	has_str(err, "not \"compute\" or \"memory\"", "unknown regime");
	free(err);
	err = NULL;
	p = load_json("[1, 2", &err);
	has_str(err, "not a JSON object", "not JSON");
	free(err);
	err = NULL;
	p = problem_load("/nonexistent/problem", &err);
	has_str(err, "/nonexistent/problem/problem.json: cannot read", "missing file named");
	free(err);

	char *dir = problem_default_dir();
	is_str(dir, tap_path("problems"), "uninstalled: $KB_SRCDIR/problems");
	free(dir);
	ok(!problem_find(tap_path("tests/fixtures/eval/problems"), "02"), "no problem 02 in the fixture");
	ok(!problem_find(tap_path("tests/fixtures/eval/problems"), ""), "an empty name finds nothing");
}

/* ---- hardware ------------------------------------------------------------ */

static void hardware(void)
{
	char *err = NULL;
	struct hardware_list *l = hardware_load(tap_path("problems/hardware.json"), &err);
	ok(l && l->n >= 4, "hardware.json: %d profiles", l ? l->n : 0);
	if (!l) {
		free(err);
		return;
	}
	const struct hardware_profile *p = hardware_find(l, "rtx_pro_6000");
	ok(p != NULL, "RTX_PRO_6000 found by key, any case");
	ok(p && hardware_gbps(p, "dram") == 1800 && hardware_tflops(p, "fp8") == 1000 &&
	   hardware_tflops(p, "bf16") == 500 && hardware_tflops(p, "fp16") == 500 && hardware_tflops(p, "tf32") == 250 &&
	   hardware_tflops(p, "fp32") == 125,
	   "RTX PRO 6000: the publisher's corrected table, 1.8 TB/s, fp8 1000, bf16 500, tf32 250, fp32 125");
	ok(p && !strcmp(p->table, "rtxpro6000-2026-06-14") && !strcmp(p->date, "2026-06-14") && p->source &&
	   strstr(p->source, "rtx_pro_6000.py"), "RTX PRO 6000: table, date and source");
	const struct hardware_profile *v1 = hardware_find(l, "RTX_PRO_6000_V1");
	ok(v1 && hardware_tflops(v1, "fp8") == 400 && hardware_tflops(v1, "bf16") == 200 &&
	   hardware_tflops(v1, "tf32") == 100 && hardware_tflops(v1, "fp32") == 12 && !strcmp(v1->table, "rtxpro6000-2026-04"),
	   "RTX_PRO_6000_V1: KernelBench-Hard's first table, 400/200/100/12");
	const struct hardware_profile *h1 = hardware_find(l, "H100"), *hs = hardware_find(l, "H100_SXM");
	ok(h1 && hardware_gbps(h1, NULL) == 2039 && hardware_tflops(h1, "fp8") == 1513 && hardware_tflops(h1, "bf16") == 756,
	   "H100 is the PCIe part as the dataset means it: 2039 GB/s, fp8 1513, bf16 756");
	ok(hs && hardware_gbps(hs, NULL) == 3350 && hardware_tflops(hs, "bf16") == 989.5, "H100_SXM: 3350 GB/s, bf16 989.5");
	const struct hardware_profile *b2 = hardware_find(l, "B200");
	ok(b2 && hardware_tflops(b2, "fp32") == 80 && hardware_gbps(b2, NULL) == 8000, "B200: fp32 80 as b200.py");
	ok(p && p->l2_bytes == 96.0 * 1024 * 1024 && !strcmp(p->arch, "sm_120a"), "96 MB L2, sm_120a");
	ok(p && hardware_tflops(p, "fp64") < 0, "an absent dtype is -1");
	const struct hardware_profile *h200 = hardware_find(l, "H200");
	ok(h200 && hardware_gbps(h200, NULL) == 4800 && !strcmp(h200->arch, "sm_90a") && h200->l2_bytes == 50.0 * 1024 * 1024,
	   "H200: 4.8 TB/s, sm_90a, 50 MB L2");
	static const char *const names[][2] = {
		{"NVIDIA H200", "H200"},
		{"NVIDIA H100 80GB HBM3", "H100_SXM"},
		{"NVIDIA H100 PCIe", "H100"},
		{"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTX_PRO_6000"},
		{"NVIDIA RTX PRO 6000 Blackwell Server Edition", "RTX_PRO_6000"},
		{"NVIDIA B200", "B200"},
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		const struct hardware_profile *d = hardware_detect(l, names[i][0]);
		is_str(d ? d->key : NULL, names[i][1], "detect '%s'", names[i][0]);
	}
	ok(!hardware_detect(l, "NVIDIA GeForce RTX 4090"), "an unknown GPU has no profile");
	ok(!hardware_find(l, "nope"), "unknown key");
	char *a = hardware_arch_for_cc(90), *b = hardware_arch_for_cc(86), *c = hardware_arch_for_cc(120);
	ok(!strcmp(a, "sm_90a") && !strcmp(b, "sm_86") && !strcmp(c, "sm_120a"), "arch for cc 90, 86, 120: %s %s %s",
	   a, b, c);
	free(a);
	free(b);
	free(c);
	hardware_free(l);

	char *bad = tmp_path("hw.json");
	write_file(bad, "{\"profiles\": [{\"key\": \"X\"}]}");
	ok(!hardware_load(bad, &err), "a profile without bandwidth is refused");
	has_str(err, "hw.json: profile X has no \"peak_bandwidth_gb_s\"", "naming file and profile");
	free(err);
	write_file(bad, "{\"profiles\": 3}");
	ok(!hardware_load(bad, &err), "profiles not an array");
	has_str(err, "no \"profiles\" array", "says so");
	free(err);
	free(bad);
}

/* ---- forbidden patterns -------------------------------------------------- */

static void forbidden(void)
{
	const char *pats[] = {"(?i)\\bcublas", "\\bKB_DRIVER\\b", "^#include <cub/"};
	char *err = NULL;
	struct forbid *f = forbid_new(pats, 3, &err);
	struct forbid_hit hit;
	const char src[] = "// solution\n#include <cuda_runtime.h>\n\n  x = KB_DRIVER.nshapes; CublasLt();\n";
	ok(f != NULL, "patterns compile");
	is_int(forbid_scan(f, src, strlen(src), &hit), 1, "a hit");
	ok(hit.line == 4 && hit.col == 7 && hit.pattern == 1, "the earliest: KB_DRIVER at 4:7 (got %d:%d, pattern %d)",
	   hit.line, hit.col, hit.pattern);
	is_str(hit.text, "  x = KB_DRIVER.nshapes; CublasLt();", "the source line");
	forbid_hit_free(&hit);
	const char src2[] = "cublasGemmEx(h);\n";
	forbid_scan(f, src2, strlen(src2), &hit);
	ok(hit.line == 1 && hit.col == 1 && hit.pattern == 0, "case-insensitive pattern, line 1 col 1");
	forbid_hit_free(&hit);
	const char src3[] = "int a;\n#include <cub/cub.cuh>\n";
	forbid_scan(f, src3, strlen(src3), &hit);
	ok(hit.line == 2 && hit.pattern == 2, "^ anchors at a line start (multiline)");
	forbid_hit_free(&hit);
	const char src4[] = "int not_cublas_here; // KB_DRIVERS\n\xff\xfe invalid utf-8 \xc3\n";
	is_int(forbid_scan(f, src4, sizeof src4 - 1, &hit), 0, "no word-boundary match, invalid UTF-8: clean");
	const char src5[] = "x\0cublas";
	is_int(forbid_scan(f, src5, sizeof src5 - 1, &hit), 1, "a NUL byte does not hide what follows");
	forbid_hit_free(&hit);
	forbid_free(f);
	const char *badp[] = {"ok", "(unclosed"};
	ok(!forbid_new(badp, 2, &err), "a bad pattern is refused");
	has_str(err, "forbidden pattern 2 \"(unclosed\": missing closing parenthesis at offset 9", "naming it and where");
	free(err);
}

/* ---- child processes ----------------------------------------------------- */

struct lines {
	struct sbuf out, err;
	int n;
};

static void on_line(void *ud, int stream, const char *line, size_t len)
{
	struct lines *l = ud;
	struct sbuf *b = stream == 1 ? &l->out : &l->err;
	sbuf_add(b, line, len);
	sbuf_addc(b, '|');
	l->n++;
}

static enum proc_end sh(const char *script, double timeout, size_t cap, struct lines *l, struct proc_result *r)
{
	char *argv[] = {"sh", "-c", (char *)script, NULL};
	char *env[] = {"KB_TEST_VAR=hello", NULL};
	struct proc_spec s = {.argv = argv, .timeout_s = timeout, .output_cap = cap, .on_line = on_line, .ud = l,
	                      .env = env, .cwd = "/"};
	sbuf_init(&l->out);
	sbuf_init(&l->err);
	l->n = 0;
	return proc_run(&s, r);
}

static void lines_free(struct lines *l)
{
	sbuf_free(&l->out);
	sbuf_free(&l->err);
}

/* Gone, or a zombie waiting for an init that does not reap. */
static int dead(pid_t pid)
{
	char path[64], buf[512];
	if (kill(pid, 0) < 0 && errno == ESRCH)
		return 1;
	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && rp[2] == 'Z';
}

static void procs(void)
{
	struct lines l;
	struct proc_result r;
	char why[256];

	sh("echo one; echo two >&2; printf 'three'; pwd; echo $KB_TEST_VAR; exit 3", 10, 0, &l, &r);
	ok(r.end == PROC_EXITED && r.code == 3, "exit status 3 reported: %s", proc_describe(&r, why, sizeof why));
	is_str(l.out.s, "one|three/|hello|", "stdout by lines, unterminated last line, cwd and env applied");
	is_str(l.err.s, "two|", "stderr apart");
	lines_free(&l);

	char *pidf = tmp_path("bg.pid"), *script = xasprintf("sleep 100 & echo $! > %s; sleep 100", pidf);
	double t0 = now();
	sh(script, 1, 0, &l, &r);
	double dt = now() - t0;
	ok(r.end == PROC_TIMEOUT, "sleep 100 & sleep 100 with a 1 s limit: %s", proc_describe(&r, why, sizeof why));
	ok(dt < 4, "killed within the limit and its grace (%.2f s)", dt);
	has_str(why, "timed out after 1 s, process group killed", "described as a timeout");
	char *pid = util_read_file(pidf, NULL);
	/* SIGKILL went to the group before proc_run returned; a process on
	 * another CPU takes a moment to die (seen in CI: still running at the
	 * first look), so its death is awaited, for 2 s at most */
	int gone = 0;
	for (int k = 0; k < 200 && pid && atoi(pid) > 0 && !(gone = dead(atoi(pid))); k++)
		usleep(10000);
	ok(gone, "the background sleep (pid %d) is dead too", pid ? atoi(pid) : 0);
	free(pid);
	free(script);
	lines_free(&l);

	t0 = now();
	sh("(sleep 100 &); echo started", 10, 0, &l, &r);
	ok(r.end == PROC_EXITED && r.code == 0 && now() - t0 < 3,
	   "a grandchild holding the pipes does not keep a finished step alive (%.2f s)", now() - t0);
	lines_free(&l);

	sh("echo before; kill -SEGV $$", 10, 0, &l, &r);
	ok(r.end == PROC_SIGNALED && r.sig == SIGSEGV, "a crash by signal is reported as such");
	has_str(proc_describe(&r, why, sizeof why), "killed by signal 11 (SIGSEGV)", "described with the signal name");
	is_str(l.out.s, "before|", "output before the crash kept");
	lines_free(&l);

	sh("sh -c 'kill -ABRT $$'; echo after; exit 0", 10, 0, &l, &r);
	ok(r.end == PROC_EXITED && r.code == 0, "a crashing grandchild is its parent's business");
	lines_free(&l);

	sh("yes 0123456789 | head -c 1000000; echo; echo tail", 10, 10000, &l, &r);
	ok(r.end == PROC_EXITED && r.code == 0, "capped output: the child still runs to its end");
	ok(r.truncated && r.bytes <= 10000 && r.bytes > 9000, "output cut at the cap: %zu bytes handed over", r.bytes);
	ok(!strstr(l.out.s, "tail"), "nothing past the cap");
	lines_free(&l);

	sh("head -c 200000 /dev/zero | tr '\\0' x", 10, 0, &l, &r);
	ok(l.n == 4 && l.out.len == 200000 + 4, "a 200000-byte line comes in %d pieces of at most %d", l.n,
	   PROC_MAX_LINE);
	lines_free(&l);

	char *argv[] = {"/nonexistent/kbtui-no-such-program", NULL};
	struct proc_spec s = {.argv = argv};
	proc_run(&s, &r);
	ok(r.end == PROC_START_FAILED && r.err == ENOENT, "a missing program: start failed, ENOENT");
	has_str(proc_describe(&r, why, sizeof why), "could not start: No such file or directory", "described");

	/* the loop a UI drives: its own poll() over proc_pollfds */
	char *argv2[] = {"sh", "-c", "echo a; sleep 0.2; echo b", NULL};
	struct lines ll = {0};
	sbuf_init(&ll.out);
	sbuf_init(&ll.err);
	struct proc_spec s2 = {.argv = argv2, .timeout_s = 5, .on_line = on_line, .ud = &ll};
	struct proc *p = proc_start(&s2);
	int rounds = 0;
	for (;;) {
		struct pollfd fds[4];
		int n = proc_pollfds(p, fds, 4);
		poll(fds, (nfds_t)n, proc_timeout_ms(p));
		rounds++;
		if (!proc_service(p))
			break;
	}
	ok(proc_result(p)->end == PROC_EXITED && !strcmp(ll.out.s, "a|b|"), "driven from a caller's poll loop (%d rounds)",
	   rounds);
	proc_free(p);
	lines_free(&ll);

	char *argv3[] = {"sleep", "100", NULL};
	struct proc_spec s3 = {.argv = argv3};
	p = proc_start(&s3);
	proc_wait(p, 50);
	proc_kill(p);
	t0 = now();
	while (proc_wait(p, 100) && now() - t0 < 5)
		;
	ok(proc_result(p)->end == PROC_SIGNALED && proc_result(p)->sig == SIGKILL, "cancelled: killed by SIGKILL");
	proc_free(p);
	free(pidf);
}

/* ---- result.json --------------------------------------------------------- */

static void result_json(void)
{
	struct eval_result r = {0};
	struct eval_shape sh[2] = {
		{0, "M=1", 2e9, 1e6, 0.1234567, 0.1, 0.2, 16.2037, 8.1, 0.081018, 0.2},
		{1, "M=2", 4e9, 2e6, -1, -1, -1, -1, -1, -1, -1},
	};
	char *err = NULL, *path = tmp_path("result.json");
	r.problem = "01_x";
	r.model = NULL;
	r.has_solution = r.correct = 1;
	r.peak_fraction = 0.0123456;
	r.elapsed_seconds = 12.3456789;
	r.stage = EVAL_BENCH;
	r.failure = "bench crashed";
	r.hardware = "H200";
	r.arch = "sm_90a";
	r.mode = "native";
	r.shapes = sh;
	r.nshapes = 2;
	ok(eval_write_result(&r, path, &err) == 0, "written");
	char *t = util_read_file(path, NULL);
	cJSON *o = t ? jx_parse(t, strlen(t)) : NULL;
	is_str(jx_str(o, "problem"), "01_x", "problem");
	is_str(jx_str(o, "harness"), "kbtui-eval", "harness kbtui-eval");
	ok(cJSON_IsNull(jx_get(o, "model")), "model null when unknown");
	ok(jx_bool(o, "has_solution", 0) == 1 && jx_bool(o, "correct", 0) == 1, "has_solution, correct");
	has_str(t, "\"peak_fraction\":\t0.0123,", "peak_fraction to 4 decimals, as benchmark.py prints it");
	ok(jx_num(o, "elapsed_seconds", 0) == 12.346, "elapsed_seconds");
	is_str(jx_str(o, "stage"), "bench", "stage");
	is_str(jx_str(o, "failure"), "bench crashed", "failure");
	const cJSON *s0 = cJSON_GetArrayItem(jx_get(o, "shapes"), 0), *s1 = cJSON_GetArrayItem(jx_get(o, "shapes"), 1);
	ok(jx_num(s0, "ms", 0) == 0.123457 && jx_num(s0, "tflops", 0) == 16.204 && jx_num(s0, "peak_fraction", 0) == 0.081,
	   "shape 0: ms, tflops, peak_fraction rounded");
	ok(cJSON_IsNull(jx_get(s1, "ms")) && cJSON_IsNull(jx_get(s1, "peak_fraction")) && jx_num(s1, "flops", 0) == 4e9,
	   "shape 1 not timed: nulls, flops kept");
	char *tmpf = xasprintf("%s.tmp.%d", path, (int)getpid());
	ok(!util_is_file(tmpf), "no temporary left behind");
	free(tmpf);
	cJSON_Delete(o);
	free(t);
	r.peak_fraction = -1;
	eval_write_result(&r, path, &err);
	t = util_read_file(path, NULL);
	has_str(t, "\"peak_fraction\":\tnull", "no peak: null, as run_hard.sh writes it");
	free(t);
	ok(eval_write_result(&r, "/nonexistent/dir/result.json", &err) < 0, "unwritable path");
	has_str(err, "/nonexistent/dir/result.json: cannot write", "named");
	free(err);
	free(path);
}

/* ---- objscan: the ELF reader behind the object checks --------------------- */

static const struct objscan_sym *find_sym(const struct objscan *o, const char *name)
{
	for (int i = 0; o && i < o->nsyms; i++)
		if (!strcmp(o->syms[i].name, name))
			return &o->syms[i];
	return NULL;
}

static void objscan_tests(void)
{
	char *err = NULL, *bad = tmp_path("notelf.o");
	write_file(bad, "this is not an object\n");
	ok(!objscan_load(bad, &err) && err && strstr(err, "notelf.o: not an ELF object"), "a text file: %s",
	   err ? err : "-");
	free(err);
	err = NULL;
	ok(!objscan_load("/nonexistent/x.o", &err) && err && strstr(err, "cannot read"), "a missing file: named");
	free(err);
	err = NULL;
	free(bad);
	if (system("cc --version > /dev/null 2>&1") != 0) {
		tap_skip("no C compiler: objscan of a real object not tested");
		return;
	}
	char *c = tmp_path("obj.c"), *o = tmp_path("obj.o");
	write_file(c, "extern void *dlopen(const char *, int);\n"
	              "int cudaMemcpy(void) { return dlopen(\"x\", 0) != 0; }\n"
	              "static int hidden(void) { return 1; }\n"
	              "__attribute__((weak)) int maybe(void) { return hidden(); }\n"
	              "__attribute__((constructor)) static void early(void) {}\n"
	              "__attribute__((destructor)) static void late(void) {}\n");
	char *cmd = xasprintf("cc -O0 -c %s -o %s", c, o);
	int built = system(cmd) == 0;
	free(cmd);
	struct objscan *os = built ? objscan_load(o, &err) : NULL;
	ok(os != NULL, "a real object reads%s%s", err ? ": " : "", err ? err : "");
	free(err);
	err = NULL;
	const struct objscan_sym *y = find_sym(os, "cudaMemcpy");
	ok(y && y->defined && y->global && !y->weak, "cudaMemcpy: defined, global");
	y = find_sym(os, "dlopen");
	ok(y && !y->defined, "dlopen: needed, not defined");
	y = find_sym(os, "maybe");
	ok(y && y->defined && y->weak, "a weak definition is weak");
	y = find_sym(os, "hidden");
	ok(y && !y->global, "a static function is not global");
	int ctor = 0, fini = 0;
	for (int i = 0; os && i < os->ninit; i++)
		ctor |= !strcmp(os->init[i], "early");
	for (int i = 0; os && i < os->nruns; i++)
		fini |= !strncmp(os->runs[i], ".fini_array", 11);
	ok(ctor, "the constructor is named among the .init_array entries");
	ok(fini, "the destructor's .fini_array is seen");
	objscan_free(os);
	/* every truncation: a clean error or a reading, never a crash */
	size_t len;
	char *data = built ? util_read_file(o, &len) : NULL;
	int clean = 1;
	for (size_t cut = 0; data && cut < len; cut += len / 97 + 1) {
		char *t = tmp_path("cut.o");
		FILE *f = fopen(t, "wb");
		if (f) {
			fwrite(data, 1, cut, f);
			fclose(f);
		}
		struct objscan *x = objscan_load(t, &err);
		clean &= x != NULL || (err && *err);
		objscan_free(x);
		free(err);
		err = NULL;
		free(t);
	}
	ok(data && clean, "truncated copies: an error or a reading, each");
	free(data);
	free(c);
	free(o);
}

/* ---- the object allowlist, exact names, host instructions ---------------- */

/* C source compiled by cc into an object; its scan (NULL when cc failed). */
static struct objscan *cc_object(const char *name, const char *src, char **obj)
{
	char *cn = xasprintf("%s.c", name), *on = xasprintf("%s.o", name);
	char *c = tmp_path(cn), *err = NULL;
	*obj = tmp_path(on);
	free(cn);
	free(on);
	write_file(c, src);
	char *cmd = xasprintf("cc -O1 -w -c %s -o %s", c, *obj);
	struct objscan *o = system(cmd) == 0 ? objscan_load(*obj, &err) : NULL;
	free(cmd);
	free(c);
	free(err);
	return o;
}

/* eval_static_object on name's object: the reason, owned, or NULL */
static char *static_why(const char *name, const char *src)
{
	char *obj;
	struct objscan *o = cc_object(name, src, &obj);
	char *why = o ? eval_static_object(o, "kb_entry") : xstrdup("cc failed");
	objscan_free(o);
	free(obj);
	return why;
}

static void static_object_tests(void)
{
	if (system("cc --version > /dev/null 2>&1") != 0) {
		tap_skip("no C compiler: the object allowlist is not tested");
		return;
	}
	char *why = static_why("allow", "int kb_entry(void) { return 0; }\n"
	                                 "static int helper(void) { return 1; }\n"
	                                 "int _Z6kernelv(void) { return helper(); }\n");
	ok(!why, "the entry point, a static and a C++ name are allowed%s%s", why ? ": " : "", why ? why : "");
	free(why);
	/* a constructor whose name holds nvcc's registration symbol: refused by
	 * the exact name (it was let through by a substring match) */
	why = static_why("stiname", "extern int puts(const char *);\n"
	                            "__attribute__((constructor)) static void x__sti____cudaRegisterAllv(void) "
	                            "{ puts(\"PASS\"); }\n"
	                            "int kb_entry(void) { return 0; }\n");
	has_str(why, "runs x__sti____cudaRegisterAllv before main", "a constructor named like nvcc's: refused");
	free(why);
	why = static_why("stiarr", "void __sti____cudaRegisterAll_x(void) {}\n"
	                           "__attribute__((section(\".init_array\"), used)) static void (*const e)(void) = "
	                           "__sti____cudaRegisterAll_x;\nint kb_entry(void) { return 0; }\n");
	has_str(why, "runs __sti____cudaRegisterAll_x before main", "an .init_array entry named like it: refused");
	free(why);
	/* the exact name passes: nvcc's own, as a static in .text.startup */
	why = static_why("stiexact", "__attribute__((constructor)) static void nvreg(void) "
	                             "__asm__(\"_ZL24__sti____cudaRegisterAllv\");\n"
	                             "extern int puts(const char *);\nstatic void nvreg(void) { puts(\"x\"); }\n"
	                             "int kb_entry(void) { return 0; }\n");
	ok(!why, "nvcc's registration by its exact name is the one constructor allowed%s%s", why ? ": " : "",
	   why ? why : "");
	free(why);
	static const char *const libc[] = {"ioctl", "fstat", "strerror", "snprintf", "my_helper"};
	for (size_t i = 0; i < sizeof libc / sizeof *libc; i++) {
		char *src = xasprintf("int %s(void) { return 0; }\nint kb_entry(void) { return 0; }\n", libc[i]);
		char *want = xasprintf("the object defines %s", libc[i]);
		why = static_why(libc[i], src);
		has_str(why, want, "a definition of %s: refused", libc[i]);
		free(why);
		free(want);
		free(src);
	}
	why = static_why("okcalls", "extern int __errno_location(), __cxa_atexit(), __stack_chk_fail(), open();\n"
	                            "int kb_entry(void) { return __errno_location() + __cxa_atexit() + "
	                            "__stack_chk_fail() + open(); }\n");
	ok(!why, "the C runtime's ordinary calls are not aliases of refused ones%s%s", why ? ": " : "", why ? why : "");
	free(why);
	why = static_why("opnew", "void *_Znwm(unsigned long n) { return 0; }\nint kb_entry(void) { return 0; }\n");
	has_str(why, "the C++ runtime's own", "operator new: refused");
	free(why);
	static const char *const calls[] = {"_Fork", "execle", "execvpe", "fexecve", "wordexp", "execveat",
	                                    "ioctl", "recv", "mprotect", "dl_iterate_phdr", "__read", "__libc_fork",
	                                    "__read_chk", "mmap64", "__send"};
	for (size_t i = 0; i < sizeof calls / sizeof *calls; i++) {
		char *src = xasprintf("extern int %s();\nint kb_entry(void) { return %s(); }\n", calls[i], calls[i]);
		char *want = xasprintf("the object calls %s (", calls[i]);
		why = static_why(calls[i], src);
		has_str(why, want, "a call of %s: refused", calls[i]);
		free(why);
		free(want);
		free(src);
	}
	/* host instructions, by objdump */
	char *od = util_which("objdump", NULL), *obj;
	why = eval_static_insns(NULL, "x.o");
	has_str(why, "objdump (binutils) not found", "no objdump: refused, not waved through");
	free(why);
	if (!od) {
		tap_skip("no objdump: the host instruction scan is not tested");
		return;
	}
	struct objscan *o = cc_object("insn_ok", "int kb_entry(int x) { return x * 3 + 1; }\n", &obj);
	why = eval_static_insns(od, obj);
	ok(o && !why, "clean host code passes the instruction scan%s%s", why ? ": " : "", why ? why : "");
	free(why);
	objscan_free(o);
	free(obj);
	static const char *const insn[][2] = {{"syscall", "a syscall instruction in kb_entry"},
	                                      {"sysenter", "a sysenter instruction in kb_entry"},
	                                      {"int $0x80", "a int $0x80 instruction in kb_entry"}};
	for (int i = 0; i < 3; i++) {
		char *src = xasprintf("int kb_entry(void) { __asm__ volatile(\"%s\" ::: \"memory\"); return 0; }\n",
		                      insn[i][0]);
		o = cc_object("insn", src, &obj);
		why = eval_static_insns(od, obj);
		has_str(why, insn[i][1], "inline %s in host code: refused", insn[i][0]);
		free(why);
		objscan_free(o);
		free(obj);
		free(src);
	}
	why = eval_static_insns(od, "/nonexistent/x.o");
	has_str(why, "cannot disassemble", "an object objdump cannot read: refused");
	free(why);
	free(od);
}

/* ---- the loop with a fake nvcc ------------------------------------------- */

static struct sbuf seen;

static void eval_line(void *ud, const char *stage, const char *line, size_t len)
{
	sbuf_addf(&seen, "%s: %.*s\n", stage, (int)len, line);
}

static char *fake_nvcc;

static int run_eval(const char *name, const char *source, struct eval_opts *o, struct eval_result *r)
{
	char *sol = xasprintf("%s/%s.cu", tmp, name), *wd = xasprintf("%s/wd-%s", tmp, name);
	write_file(sol, source);
	o->problem = o->problem ? o->problem : "01_toy";
	o->problems_dir = tap_path("tests/fixtures/eval/problems");
	o->solution = sol;
	o->workdir = wd;
	o->nvcc = o->nvcc ? o->nvcc : fake_nvcc;
	if (!o->arch && !o->hardware)
		o->arch = "sm_90a";
	o->on_line = eval_line;
	sbuf_reset(&seen);
	int rc = eval_run(o, r);
	free(sol);
	free(wd);
	return rc;
}

/* The first line of log holding needle, without the fake's echo (owned). */
static char *line_with(const char *log, const char *needle)
{
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		char *line = xstrndup(l, e ? (size_t)(e - l) : strlen(l));
		if (strstr(line, needle) && !util_starts_with(line, "fake nvcc"))
			return line;
		free(line);
	}
	return NULL;
}

/* nvcc -c command lines eval logged (not the fake's echo of them). */
static int count_compiles(const char *log)
{
	int n = 0;
	for (const char *l = log; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		char *line = xstrndup(l, e ? (size_t)(e - l) : strlen(l));
		n += strstr(line, "/fake-nvcc -std") && strstr(line, " -c ");
		free(line);
	}
	return n;
}

static void loop_pass(void)
{
	struct eval_opts o = {0};
	struct eval_result r;
	int rc = run_eval("pass", "// FAKE nothing\n", &o, &r);
	is_int(rc, 0, "a passing solution: 0");
	ok(r.correct && r.stage == EVAL_DONE && !r.failure, "correct, done, no failure");
	is_str(r.device, "NVIDIA H200", "device from `harness info`");
	is_str(r.hardware, "H200", "profile detected from the device name");
	is_str(r.arch, "sm_90a", "arch as given");
	char *check = slurp(r.workdir, "check.log"), *bench = slurp(r.workdir, "benchmark.log");
	char *comp = slurp(r.workdir, "compile.log");
	has_str(check, "args: check --seeds 3 --atol 0.001 --rtol 0.002 --runner ", "check gets the problem's seeds and tolerance");
	has_str(check, "--runner /proc/self/fd/", "and the runner the solution is linked into, as a sealed copy "
	        "(no path a step can write)");
	has_str(check, "\nPASS\n", "check.log ends with PASS");
	has_str(comp, "-gencode=arch=compute_90a,code=sm_90a", "nvcc gets the arch");
	has_str(comp, "/harness/checker.cu", "and the checker");
	has_str(comp, "/harness/runner.cu", "and the runner");
	has_str(comp, "/01_toy/call.cu", "and the problem's call glue");
	has_str(comp, "--keep --keep-dir ", "nvcc keeps the preprocessed texts it compiled, for the static checks");
	has_str(comp, "/harness/sm_90a/checker-", "the checker is linked from checker, driver, reference, "
	        "kept by content");
	char *ln = line_with(comp, "/kbcheck /");
	ok(ln && strstr(ln, "/checker-") && !strstr(ln, "solution"), "and not from the solution: %s", ln ? ln : "-");
	free(ln);
	ln = line_with(comp, "/kbrun /");
	ok(ln && strstr(ln, "solution.o") && !strstr(ln, "/checker-") && !strstr(ln, "/driver-") &&
	   !strstr(ln, "/reference-"), "the runner holds the solution, not the checker's parts");
	free(ln);
	has_str(bench, "args: bench --trials 7 --warmup 10 --l2-flush 134217728 --atol 0.001 --rtol 0.002 --runner ",
	        "bench: the problem's trials, 10 warm-up calls, 128 MB flush (> 2 x 50 MB L2), tolerance for the "
	        "timed outputs");
	has_str(bench,
	        "time shape=0 ms=0.050000 min=0.049000 max=0.052000 host_ms=0.061000\n"
	        "shape=0 variant=solution tflops=0.671 gbps=2684.355 ms=0.050\n"
	        "shape=0 solution_peak_fraction=0.5592\n"
	        "time shape=1 ms=0.040000 min=0.039000 max=0.041000 host_ms=0.052000\n"
	        "shape=1 variant=solution tflops=0.419 gbps=1677.722 ms=0.040\n"
	        "shape=1 solution_peak_fraction=0.3495\n"
	        "peak_fraction: 0.4421\n"
	        "RESULT: OK\n",
	        "benchmark.log lines exactly as benchmark.py prints them (memory regime, 4.8 TB/s)");
	struct benchlog *bl = benchlog_new();
	if (bench)
		benchlog_feed(bl, bench, strlen(bench));
	ok(fabs(bl->peak_fraction - 0.4421) < 1e-9 && bl->nshape_peak == 2, "and the log reader reads them back");
	benchlog_free(bl);
	ok(fabs(r.peak_fraction - 0.44211846130516) < 1e-9, "geomean %.10f", r.peak_fraction);
	is_str(r.nshapes == 2 ? r.shapes[1].desc : NULL, "n=8M", "shape descriptions from `harness shapes`");
	ok(r.nshapes == 2 && r.shapes[1].ms == 0.04 && r.shapes[1].min_ms == 0.039 && fabs(r.shapes[1].gbps - 1677.7216) < 1e-6,
	   "per-shape numbers in the result");
	ok(r.nshapes == 2 && r.shapes[1].host_ms == 0.052, "the checker's host clock too");
	ok(r.kbh_correct == 1 && r.adversarial_correct == 1, "both named parts of the check passed");
	char *res = slurp(r.workdir, "result.json");
	cJSON *o2 = res ? jx_parse(res, strlen(res)) : NULL;
	ok(jx_bool(o2, "correct", 0) == 1 && jx_num(o2, "peak_fraction", 0) == 0.4421, "result.json: correct, 0.4421");
	is_str(jx_str(o2, "result"), "OK", "result.json: RESULT word");
	/* the publisher's per-run detail fields, against the table named beside them */
	const cJSON *s0 = cJSON_GetArrayItem(jx_get(o2, "shapes"), 0);
	ok(jx_num(s0, "frac", -1) == 0.5592 && jx_num(s0, "mem_util", -1) == 0.5592 &&
	   jx_num(s0, "frac", -1) == jx_num(s0, "peak_fraction", -2), "result.json: a shape's frac, its mem_util here");
	ok(jx_num(s0, "compute_util", -1) >= 0 && jx_num(s0, "compute_util", -1) < 0.5592 &&
	   jx_str(s0, "bound") && !strcmp(jx_str(s0, "bound"), "memory"), "its compute_util and bound (memory)");
	ok(jx_str(o2, "regime") && !strcmp(jx_str(o2, "regime"), "memory") &&
	   fabs(jx_num(o2, "peak_bw_gb_s", -1) * 0.5592 - 2684.355) < 1 && jx_num(o2, "peak_tflops", -1) > 0,
	   "result.json: the regime and the peaks the shapes are scored on");
	cJSON_Delete(o2);
	has_str(seen.s, "check: PASS\n", "lines streamed to the caller by stage");
	has_str(seen.s, "bench: peak_fraction: 0.4421\n", "bench lines streamed too");
	char *sc = slurp(r.workdir, "solution.cu");
	is_str(sc, "// FAKE nothing\n", "the solution copied into the work dir");
	/* nothing but the run layout in the work dir; tmp/ removed when empty */
	DIR *d = opendir(r.workdir);
	struct dirent *e;
	struct sbuf names;
	sbuf_init(&names);
	const char *want[] = {"benchmark.log", "check.log", "compile.log", "kbcheck", "kbrun", "result.json",
	                      "solution.cu", "obj-sm_90a", "harness"};
	int extra = 0, have = 0;
	while (d && (e = readdir(d))) {
		int known = e->d_name[0] == '.';
		for (size_t i = 0; i < 9; i++)
			if (!strcmp(e->d_name, want[i]))
				known = 1, have++;
		if (!known) {
			extra++;
			sbuf_addf(&names, "%s ", e->d_name);
		}
	}
	if (d)
		closedir(d);
	ok(have == 9 && !extra, "work dir holds the run layout (and objects) only%s%s", extra ? ", extra: " : "",
	   names.s);
	int nc = count_compiles(comp);
	is_int(nc, 6, "first build: checker, driver, reference, runner, call and solution compiled apart");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	is_int(run_eval("pass", "// FAKE nothing, second try\n", &o, &r), 0, "a second try in the same work dir");
	free(comp);
	comp = slurp(r.workdir, "compile.log");
	nc = count_compiles(comp);
	is_int(nc, 1, "only the solution is compiled again");
	has_str(comp, "-c " , "a compile");
	has_str(comp, "/obj-sm_90a/solution.cu -o ", "and it is the solution, as read once (a copy of ours)");
	char *snap = slurp(r.workdir, "obj-sm_90a/solution.cu");
	ok(snap && util_starts_with(snap, "#line 1 \"") && strstr(snap, "/pass.cu\"\n// FAKE nothing, second try\n"),
	   "the copy names the original with #line");
	free(snap);
	/* keyed by content, not mtime: a newer mtime alone rebuilds nothing; an
	 * object planted at the old path (obj-ARCH/checker.o) is never linked */
	char *planted = util_path_join(r.workdir, "obj-sm_90a/checker.o");
	write_file(planted, "planted\n");
	free(planted);
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	is_int(run_eval("pass", "// FAKE nothing, third try\n", &o, &r), 0, "a third try, an object planted");
	free(comp);
	comp = slurp(r.workdir, "compile.log");
	is_int(count_compiles(comp), 1, "the harness objects found by their content's key, the solution compiled");
	ok(comp && !strstr(comp, "obj-sm_90a/checker.o"), "the planted obj-sm_90a/checker.o is not linked");
	sbuf_free(&names);
	free(sc);
	free(res);
	free(check);
	free(bench);
	free(comp);
	eval_result_free(&r);
}

static void loop_failures(void)
{
	struct eval_opts o = {0};
	struct eval_result r;
	char *check;

	is_int(run_eval("forbid", "#include <x.h>\n\nint f() { return cuBLASLtMatmul(); }\n", &o, &r), 1,
	       "forbidden pattern: 1");
	ok(r.stage == EVAL_FORBID && !r.correct, "stopped at the forbidden check");
	has_str(r.failure, "forbid.cu:3:18: forbidden pattern \"(?i)\\bcublas\" matches: int f()", "file:line:col, pattern, line");
	check = slurp(r.workdir, "check.log");
	is_str(check, "FAIL: forbidden op used: (?i)\\bcublas\n", "check.log as check.py says it");
	free(check);
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	is_int(run_eval("cerr", "int a;\nint b;\nFAKE_COMPILE_ERROR\n", &o, &r), 1, "compile error: 1");
	ok(r.stage == EVAL_COMPILE, "stopped at compile");
	has_str(r.failure, "cerr.cu:3: error: identifier \"FAKE_COMPILE_ERROR\" is undefined", "nvcc's file(line) as file:line");
	has_str(seen.s, "compile: ", "compiler output streamed");
	check = slurp(r.workdir, "check.log");
	has_str(check, "FAIL: compilation failed (exit status 1): ", "check.log says FAIL");
	char *exe = slurp(r.workdir, "kbcheck");
	ok(!exe, "no binary left");
	free(exe);
	free(check);
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	is_int(run_eval("nodev", "FAKE_NODEV\n", &o, &r), 1, "no GPU: 1");
	ok(r.no_device && r.stage == EVAL_CHECK && !r.correct, "compiled, then no device: reported at check");
	has_str(r.failure, "no CUDA device here", "says so");
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	o.seeds = 5;
	is_int(run_eval("wrong", "FAKE_WRONG\n", &o, &r), 1, "wrong answer: 1");
	ok(!r.correct && r.stage == EVAL_CHECK && !r.crashed, "not correct, not a crash");
	ok(r.kbh_correct == 0 && r.adversarial_correct == -1, "failed in the KernelBench-Hard part, the other not reached");
	has_str(r.failure, "check failed: shape=1 (n=8388608) seed=42: worst abs err 0.5 at index 7", "the FAIL line");
	char *bl = slurp(r.workdir, "benchmark.log");
	ok(!bl && r.peak_fraction < 0, "no benchmark");
	free(bl);
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	o.timeout_s = 1;
	double t0 = now();
	is_int(run_eval("hang", "FAKE_HANG\n", &o, &r), 1, "hang: 1");
	ok(r.timed_out && r.stage == EVAL_CHECK && now() - t0 < 5, "killed by the time limit (%.1f s)", now() - t0);
	has_str(r.failure, "check timed out after 1 s, process group killed", "reported");
	check = slurp(r.workdir, "check.log");
	has_str(check, "case shape=0 seed=42 hanging\nFAIL: check timed out after 1 s", "check.log ends with a FAIL line");
	free(check);
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	is_int(run_eval("segv", "FAKE_SEGV\n", &o, &r), 1, "crash: 1");
	ok(r.crashed && !r.timed_out, "crashed");
	has_str(r.failure, "check crashed: killed by signal 11 (SIGSEGV)", "with the signal");
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	is_int(run_eval("illegal", "FAKE_ILLEGAL\n", &o, &r), 1, "illegal address: 1");
	ok(r.crashed, "a lost CUDA context counts as a crash");
	has_str(r.failure, "an illegal memory access was encountered (cudaErrorIllegalAddress)", "with CUDA's words");
	eval_result_free(&r);

	/* the next run works */
	memset(&o, 0, sizeof o);
	is_int(run_eval("again", "// fine\n", &o, &r), 0, "after all that, a good solution passes again");
	eval_result_free(&r);
}

/* The verdict is the checker's: what the runner prints is not read, the
 * checker's INVALID and a wrong timed output are not a score, and the
 * object and preprocessed checks refuse before anything runs. */
static void loop_integrity(void)
{
	struct eval_opts o = {0};
	struct eval_result r;
	is_int(run_eval("spoof", "FAKE_SPOOF\n", &o, &r), 1, "a runner printing PASS and times: 1");
	ok(!r.correct && r.peak_fraction < 0 && r.stage == EVAL_CHECK, "not correct, no peak_fraction");
	has_str(seen.s, "check: PASS\n", "its PASS was shown (as the solution's output)");
	has_str(r.failure, "check failed: shape=0 (n=16777216) seed=42: worst abs err nan", "the checker's FAIL wins");
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	is_int(run_eval("invalid", "FAKE_INVALID\n", &o, &r), 1, "events against the host clock: INVALID, 1");
	ok(r.invalid && r.correct, "correct, but the timing is invalid");
	is_str(r.verdict, "INVALID", "verdict INVALID, not OK");
	ok(r.peak_fraction < 0, "no peak_fraction");
	has_str(r.failure, "INVALID: shape=0 (n=16M) timed: the solution's events say 0.050000 ms", "the checker's words");
	char *res = slurp(r.workdir, "result.json");
	has_str(res, "\"result\":\t\"INVALID\"", "result.json says INVALID");
	has_str(res, "\"invalid\":\ttrue", "and invalid: true");
	free(res);
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	is_int(run_eval("timedwrong", "FAKE_TIMEDWRONG\n", &o, &r), 1, "a wrong output under timing: 1");
	ok(!r.correct && r.stage == EVAL_BENCH, "not correct after all (stage %s)", eval_stage_name(r.stage));
	eval_result_free(&r);

	/* the runner killed by its seccomp filter: REFUSED, the call named */
	memset(&o, 0, sizeof o);
	is_int(run_eval("seccomp", "FAKE_SECCOMP\n", &o, &r), 1, "a forbidden system call in the runner: 1");
	ok(r.refused && !r.correct && r.stage == EVAL_CHECK, "refused at check, not correct");
	has_str(r.failure, "REFUSED: the solution made a forbidden system call, execve", "the call is named");
	eval_result_free(&r);

	/* the check step replaces WORKDIR/kbcheck (as a solution's code in the
	 * runner could): the benchmark still runs the checker that was built */
	memset(&o, 0, sizeof o);
	is_int(run_eval("swap", "FAKE_SWAP\n", &o, &r), 0, "a checker swapped during the check: the eval ends");
	char *swapped = slurp(r.workdir, "kbcheck"), *sbench = slurp(r.workdir, "benchmark.log");
	has_str(swapped, "ms=0.000001", "the swap happened (WORKDIR/kbcheck is the spoof)");
	ok(sbench && !strstr(sbench, "ms=0.000001") && r.nshapes == 2 && fabs(r.shapes[0].ms - 0.05) < 1e-9,
	   "but the benchmark ran the sealed copy of the real one: its own times (shape 0 %.6f ms)",
	   r.nshapes ? r.shapes[0].ms : -1);
	free(swapped);
	free(sbench);
	eval_result_free(&r);

	static const struct {
		const char *name, *src, *want;
	} refuse[] = {
		{"interpose", "// FAKE_DEFINE cudaMemcpy\n", "the object defines cudaMemcpy, which it may only call"},
		{"libc", "// FAKE_DEFINE printf\n", "the object defines printf"},
		{"harness", "// FAKE_DEFINE kbref_01_toy\n", "the object defines kbref_01_toy, a name of the harness"},
		{"dlopen", "// FAKE_NEED dlopen\n", "the object calls dlopen"},
		{"syscall", "// FAKE_NEED syscall\n", "the object calls syscall"},
		{"l2", "// FAKE_NEED cudaStreamSetAttribute\n", "the object calls cudaStreamSetAttribute"},
		{"ctor", "// FAKE_CTOR\n", "the object runs fake_ctor before main"},
		{"asmlabel", "int a;\nextern \"C\" double t __asm__(\"kb_\" \"atol\");\n",
		 "asmlabel.cu:2: an asm label (renames a symbol"},
		{"attr", "\n\n__attribute__((used, constructor)) static void f() {}\n", "attr.cu:3: a constructor or destructor"},
		{"apw", "void f(cudaStreamAttrValue v) { v.accessPolicyWindow.num_bytes = 1; }\n",
		 "apw.cu:1: L2 persistence"},
	};
	for (size_t i = 0; i < sizeof refuse / sizeof *refuse; i++) {
		memset(&o, 0, sizeof o);
		is_int(run_eval(refuse[i].name, refuse[i].src, &o, &r), 1, "%s: refused, 1", refuse[i].name);
		ok(r.refused && r.stage == EVAL_FORBID && !r.correct, "%s: before the device, at the static checks",
		   refuse[i].name);
		has_str(r.failure, refuse[i].want, "%s: names the symbol or line", refuse[i].name);
		char *c = slurp(r.workdir, "check.log"), *exe = slurp(r.workdir, "kbrun");
		has_str(c, "REFUSED: ", "%s: check.log says REFUSED", refuse[i].name);
		ok(!exe, "%s: nothing linked", refuse[i].name);
		free(c);
		free(exe);
		eval_result_free(&r);
	}
	memset(&o, 0, sizeof o);
	is_int(run_eval("race", "// FAKE_REWRITE\n", &o, &r), 1, "a solution rewritten during the build: 1");
	ok(r.refused, "refused");
	has_str(r.failure, "obj-sm_90a/solution.cu changed while it was being built", "says so");
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	is_int(run_eval("inlineasm", "__device__ void f() { asm volatile(\"trap;\"); asm(\"exit;\"); }\n", &o, &r), 0,
	       "inline PTX (asm statements) is not an asm label: passes");
	eval_result_free(&r);
}

/* Decks: the one named (--deck, $KBTUI_DECK) sets the check's tolerance
 * and seeds, the timing protocol and the table peaks and INVALID are
 * judged on; --no-own-checks leaves our adversarial input out of correct. */
static void loop_deck(void)
{
	struct eval_opts o = {0};
	struct eval_result r;
	o.hardware = "toy";
	o.deck = "toy-deck";
	is_int(run_eval("deck", "// fine\n", &o, &r), 0, "toy-deck: 2684 GB/s is valid on its 5000 GB/s table: 0");
	is_str(r.deck, "toy-deck", "the deck recorded");
	is_str(r.table, "toy2-table", "and its table");
	is_str(r.hardware, "TOY", "the device profile stays the one given");
	ok(!r.invalid && fabs(r.shapes[0].peak_fraction - 0.536870912) < 1e-6,
	   "peak_fraction on the deck's table, not TOY's 1000 GB/s (%g)", r.shapes[0].peak_fraction);
	char *c = slurp(r.workdir, "check.log"), *b = slurp(r.workdir, "benchmark.log");
	char *j = slurp(r.workdir, "result.json");
	has_str(c, "args: check --seeds 2 --atol 0.25 --rtol 0.125 ", "check: the deck's seeds and tolerance");
	has_str(b, "args: bench --trials 5 --warmup 4 --l2-flush 134217728 --atol 0.25 --rtol 0.125 ",
	        "bench: the deck's trials, warm-up, flush and tolerance");
	has_str(j, "\"deck\":\t\"toy-deck\"", "result.json: deck");
	has_str(j, "\"table\":\t\"toy2-table\"", "result.json: table");
	has_str(j, "\"own_checks\":\ttrue", "result.json: own checks on");
	has_str(seen.s, "eval: deck toy-deck: scored on TOY2 (toy2-table, 2026-12)", "the deck said");
	has_str(seen.s, "eval: note: the device is TOY; the deck's peaks are TOY2's", "and whose peaks");
	char *sum = NULL;
	size_t sl;
	FILE *sf = open_memstream(&sum, &sl);
	cmd_eval_summary(&r, sf);
	fclose(sf);
	has_str(sum, "kbtui eval: 01_toy on TOY (sm_86) [deck toy-deck]: PASS, peak_fraction", "the verdict line names the deck");
	free(sum);
	free(c);
	free(b);
	free(j);
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	o.deck = "toy-deck";
	is_int(run_eval("advfail", "// FAKE_ADVFAIL\n", &o, &r), 1, "our adversarial input fails: 1");
	ok(!r.correct && r.kbh_correct == 1 && r.adversarial_correct == 0, "the deck's seeds passed, ours did not");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	o.deck = "toy-deck";
	o.no_own_checks = 1;
	is_int(run_eval("advoff", "// FAKE_ADVFAIL\n", &o, &r), 0, "--no-own-checks: the deck's verdict alone: 0");
	ok(r.correct && r.kbh_correct == 1 && r.adversarial_correct == 0 && !r.own_checks && !r.failure,
	   "correct as the deck judges it; adversarial_correct still false");
	has_str(seen.s, "our adversarial check failed; not counted (--no-own-checks)", "said");
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	o.deck = "toy-empty";
	is_int(run_eval("deck-miss", "// fine\n", &o, &r), -1, "a deck without the problem: bad input");
	has_str(r.failure, "01_toy is not in deck toy-empty (its problems: )", "named");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	o.deck = "nope";
	is_int(run_eval("deck-none", "// fine\n", &o, &r), -1, "an unknown deck: bad input");
	has_str(r.failure, "no deck 'nope' (decks: toy-deck toy-empty)", "the decks listed");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	o.deck = "../hardware";
	is_int(run_eval("deck-path", "// fine\n", &o, &r), -1, "a path is no deck name");
	eval_result_free(&r);

	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	setenv("KBTUI_DECK", "toy-deck", 1);
	is_int(run_eval("deck-env", "// fine\n", &o, &r), 0, "$KBTUI_DECK: 0");
	unsetenv("KBTUI_DECK");
	is_str(r.deck, "toy-deck", "$KBTUI_DECK names the deck (live, sweep and R pass it so)");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	is_int(run_eval("deck-no", "// fine\n", &o, &r), 1, "no deck current for TOY: its own 1000 GB/s, INVALID: 1");
	ok(!r.deck && r.invalid, "no deck recorded, INVALID on the device's own profile");
	const char *nd = strstr(seen.s, "no deck is current for TOY");
	ok(nd && !strstr(nd + 1, "no deck is current for TOY"), "said once");
	eval_result_free(&r);

	/* the real decks: 04 left the current ones, so it runs as kbh-2026-04 */
	char *sol = xasprintf("%s/k04.cu", tmp), *wd = xasprintf("%s/wd-k04", tmp);
	write_file(sol, "// fine\n");
	memset(&o, 0, sizeof o);
	o.problem = "04";
	o.problems_dir = tap_path("problems");
	o.hardware = "RTX_PRO_6000";
	o.solution = sol;
	o.workdir = wd;
	o.nvcc = fake_nvcc;
	o.on_line = eval_line;
	sbuf_reset(&seen);
	eval_run(&o, &r);
	is_str(r.deck, "kbh-2026-04", "04 on an RTX PRO 6000: as kbh-2026-04 defines it");
	is_str(r.table, "rtxpro6000-2026-06-14", "judged on the device's own (current) table, not the deck's first");
	has_str(seen.s, "04_kahan_softmax is not in kbcom-2026-08-rtxpro6000: running it as kbh-2026-04 defines it",
	        "said why");
	free(sol);
	free(wd);
	eval_result_free(&r);
}

static void loop_bad_input(void)
{
	struct eval_opts o = {0};
	struct eval_result r;
	o.nvcc = "/nonexistent/nvcc";
	is_int(run_eval("nonvcc", "x\n", &o, &r), -1, "no nvcc: bad input");
	has_str(r.failure, "the GPU backend needs the CUDA Toolkit", "says what is missing");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.arch = "volta";
	is_int(run_eval("badarch", "x\n", &o, &r), -1, "bad --arch");
	has_str(r.failure, "--arch 'volta': expected an nvcc target", "named");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.problem = "99";
	is_int(run_eval("noprob", "x\n", &o, &r), -1, "unknown problem");
	has_str(r.failure, "no problem '99' there", "named");
	ok(r.workdir == NULL, "no work dir made for bad input");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.hardware = "A100";
	is_int(run_eval("nohw", "x\n", &o, &r), -1, "unknown hardware");
	has_str(r.failure, "unknown hardware 'A100'", "named");
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	o.hardware = "toy";
	o.arch = NULL;
	is_int(run_eval("toyhw", "// fine\n", &o, &r), 1, "--hardware alone gives the arch; above its roofline: 1");
	is_str(r.arch, "sm_86", "the profile's arch");
	is_str(r.hardware, "TOY", "the profile given wins over the device name");
	ok(fabs(r.shapes[0].peak_fraction - 2.684354560) < 1e-6, "memory regime against its 1000 GB/s: %g",
	   r.shapes[0].peak_fraction);
	ok(r.invalid && r.correct && r.verdict && !strcmp(r.verdict, "INVALID"),
	   "2684 GB/s on a 1000 GB/s card: INVALID, never OK (%s)", r.verdict ? r.verdict : "-");
	ok(r.peak_fraction < 0, "and no peak_fraction for it (null in result.json): not a score");
	has_str(r.failure, "INVALID: shape=0: peak_fraction 2.6844 is above the TOY roofline", "says why");
	char *bt = slurp(r.workdir, "benchmark.log");
	has_str(bt, "RESULT: INVALID\n", "benchmark.log: RESULT INVALID");
	free(bt);
	has_str(seen.s, "eval: warning: built for sm_86 but NVIDIA H200 is compute capability 90", "arch mismatch warned");
	char *b = slurp(r.workdir, "benchmark.log");
	has_str(b, "--l2-flush 209715200 ", "L2 flush twice the profile's 100 MB L2");
	free(b);
	eval_result_free(&r);
	memset(&o, 0, sizeof o);
	struct eval_result r2;
	o.problem = "01_toy";
	o.problems_dir = tap_path("tests/fixtures/eval/problems");
	o.solution = "/nonexistent/solution.cu";
	is_int(eval_run(&o, &r2), -1, "missing solution file");
	has_str(r2.failure, "/nonexistent/solution.cu: no such solution file", "named");
	eval_result_free(&r2);
}

/* ---- kbtui eval ------------------------------------------------------------ */

static int cmd(const char *args, char **out, char **err)
{
	char *argv[32], *copy = xstrdup(args), *save = NULL;
	int argc = 0;
	for (char *t = strtok_r(copy, " ", &save); t && argc < 31; t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	size_t no, ne;
	FILE *fo = open_memstream(out, &no), *fe = open_memstream(err, &ne);
	int rc = cmd_eval(argc, argv, fo, fe);
	fclose(fo);
	fclose(fe);
	free(copy);
	return rc;
}

static void command(void)
{
	char *out, *err, *a;
	const char *fx = tap_path("tests/fixtures/eval/problems");

	a = xasprintf("eval --list-hardware --problems %s", tap_path("problems"));
	is_int(cmd(a, &out, &err), 0, "--list-hardware: 0");
	has_str(out, "RTX_PRO_6000    sm_120a       1800      96    1000     500     500     125  rtxpro6000-2026-06-14",
	        "RTX PRO 6000 row: DRAM, L2, fp8 bf16 fp16 fp32, table");
	has_str(out, "RTX_PRO_6000_V1 sm_120a       1800      96     400     200     200      12  rtxpro6000-2026-04",
	        "the first table beside it");
	has_str(out, "H200", "H200 listed");
	has_str(out, "B200", "B200 listed");
	free(a);
	free(out);
	free(err);
	is_int(cmd("eval --list-hardware --problems /nonexistent", &out, &err), 1, "--list-hardware without data: 1");
	has_str(err, "/nonexistent/hardware.json: cannot read", "names the file");
	free(out);
	free(err);

	is_int(cmd("eval --problem 01_toy", &out, &err), 2, "no SOLUTION: usage, 2");
	has_str(err, "which SOLUTION file?", "says what is missing");
	free(out);
	free(err);
	is_int(cmd("eval x.cu", &out, &err), 2, "no --problem: 2");
	free(out);
	free(err);
	is_int(cmd("eval --timeout soon --problem 01 x.cu", &out, &err), 2, "bad --timeout: 2");
	has_str(err, "--timeout wants a number of seconds, not 'soon'", "names the value");
	free(out);
	free(err);
	is_int(cmd("eval --seeds 1.5 --problem 01 x.cu", &out, &err), 2, "fractional --seeds: 2");
	free(out);
	free(err);
	is_int(cmd("eval --frobnicate --problem 01 x.cu", &out, &err), 2, "unknown option: 2");
	has_str(err, "unknown option '--frobnicate'", "named");
	free(out);
	free(err);
	is_int(cmd("eval --tui --problem 01 x.cu", &out, &err), 2, "--tui without the screen: 2");
	has_str(err, "--tui needs a terminal", "says so");
	ok(!*out, "nothing on stdout");
	free(out);
	free(err);
	is_int(cmd("eval --problem 01 --python", &out, &err), 2, "--python without its value: 2");
	free(out);
	free(err);
	is_int(cmd("eval --problem 01 --workdir", &out, &err), 2, "option without its value: 2");
	has_str(err, "needs an argument", "says so");
	free(out);
	free(err);
	is_int(cmd("eval --help", &out, &err), 0, "--help: 0");
	has_str(out, "Usage: kbtui eval --problem NAME", "usage text");
	free(out);
	free(err);

	char *sol = tmp_path("cmd.cu");
	write_file(sol, "// good\n");
	a = xasprintf("eval --problem toy --problems %s --arch 90a --workdir %s/wd-cmd --trials 3 --seeds 2 %s", fx, tmp, sol);
	setenv("KBTUI_NVCC", fake_nvcc, 1);
	is_int(cmd(a, &out, &err), 0, "kbtui eval with the fake nvcc ($KBTUI_NVCC): 0");
	has_str(out, "fake nvcc ", "$KBTUI_NVCC is the nvcc used");
	has_str(out, "args: check --seeds 2 --atol 0.001 --rtol 0.002", "--seeds reaches the harness");
	has_str(out, "args: bench --trials 3 ", "--trials reaches the harness");
	has_str(out, "kbtui eval: 01_toy on H200 (sm_90a): PASS, peak_fraction 0.4421 (OK)", "one-line verdict");
	ok(err && !*err, "nothing on stderr");
	free(out);
	free(err);
	free(a);

	a = xasprintf("eval --problem 01_toy --problems %s --arch sm_90a --workdir %s/wd-cmd2 --timeout 1 %s", fx, tmp, sol);
	write_file(sol, "FAKE_HANG\n");
	is_int(cmd(a, &out, &err), 1, "kbtui eval of a hanging solution: 1");
	has_str(out, "kbtui eval: 01_toy on H200 (sm_90a): FAIL at check: check timed out after 1 s", "verdict says so");
	free(out);
	free(err);
	free(a);
	setenv("KBTUI_NVCC", "/nonexistent/nvcc", 1);
	a = xasprintf("eval --problem 01_toy --problems %s --arch sm_90a --workdir %s/wd-cmd3 %s", fx, tmp, sol);
	is_int(cmd(a, &out, &err), 1, "no nvcc: 1");
	has_str(err, "kbtui eval: the GPU backend needs the CUDA Toolkit", "said on stderr");
	free(out);
	free(err);
	free(a);
	free(sol);
	unsetenv("KBTUI_NVCC");
}

/* ---- the original python loop -------------------------------------------- */

static void kbh(void)
{
	struct eval_opts o = {0};
	struct eval_result r;
	char *py = NULL;
	if (system("python3 -c 'import sys' >/dev/null 2>&1") != 0) {
		tap_skip("python3 not found: --kbh not tested");
		return;
	}
	py = "python3";
	const char *kbh_dir = tap_path("tests/fixtures/eval/kbh");
	char *sol = tmp_path("solution.py"), *wd = tmp_path("wd-kbh");
	write_file(sol, "# a good solution\n");
	o.problem = "01";
	o.problems_dir = tap_path("tests/fixtures/eval/problems");
	o.kbh = kbh_dir;
	o.python = py;
	o.solution = sol;
	o.workdir = wd;
	o.on_line = eval_line;
	sbuf_reset(&seen);
	is_int(eval_run(&o, &r), 0, "--kbh: check.py PASS: 0");
	ok(r.correct && fabs(r.peak_fraction - 0.4421) < 1e-12, "correct, peak_fraction from benchmark.py");
	is_str(r.mode, "kbh", "mode kbh");
	ok(r.nshapes == 2 && r.shapes[0].ms == 0.05 && r.shapes[1].peak_fraction == 0.3495,
	   "solution rows, not eager, into shapes");
	has_str(seen.s, "check: PASS\n", "check.py's output streamed");
	char *fw = util_path_join(kbh_dir, "problems/01_toy/framework.txt");
	ok(!util_is_file(fw), "check.py wrote into the copy, not the checkout");
	free(fw);
	fw = xasprintf("%s/kbh/problems/01_toy/framework.txt", wd);
	ok(util_is_file(fw), "its framework.txt is in the work dir");
	free(fw);
	char *res = slurp(wd, "result.json");
	has_str(res, "\"harness\":\t\"kbtui-eval\"", "result.json written");
	free(res);
	eval_result_free(&r);

	write_file(sol, "# wrong\n");
	is_int(eval_run(&o, &r), 1, "--kbh: FAIL: 1");
	has_str(r.failure, "check.py: shape 0 {'n': 16777216} seed 42: tolerance exceeded", "check.py's FAIL message");
	char *bench = slurp(wd, "benchmark.log");
	ok(!r.correct && r.peak_fraction < 0, "not correct, no peak");
	free(bench);
	eval_result_free(&r);
	o.problem = "07";
	is_int(eval_run(&o, &r), -1, "--kbh: unknown problem");
	eval_result_free(&r);
	free(sol);
	free(wd);
}

/* ---- R: re-evaluation pieces, and the loop in a thread -------------------- */

static const char reeval_transcript[] =
	"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"cwd\":\"/w\",\"model\":\"m\",\"tools\":[]}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Write\",\"input\":{\"file_path\":\"/w/solution.py\",\"content\":\"v1\\n\"}}]},\"session_id\":\"s\"}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"ok\"}]},\"session_id\":\"s\"}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t2\",\"name\":\"Bash\",\"input\":{\"command\":\"python benchmark.py\"}}]},\"session_id\":\"s\"}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t2\",\"content\":\"PASS\\nshape=0 variant=eager tflops=0.5 gbps=300 ms=0.2\\nshape=0 variant=solution tflops=1.1 gbps=701 ms=0.061\\npeak_fraction: 0.3100\"}]},\"session_id\":\"s\"}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m3\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t3\",\"name\":\"Write\",\"input\":{\"file_path\":\"/w/solution.py\",\"content\":\"v2\\n\"}}]},\"session_id\":\"s\"}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t3\",\"content\":\"ok\"}]},\"session_id\":\"s\"}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t9\",\"content\":\"FAIL: shape 1 mismatch\"}]},\"session_id\":\"s\"}\n";

static struct run *reeval_run(const char *dirname, const char *result_json)
{
	char *dir = tmp_path(dirname), *path = util_path_join(dir, "transcript.jsonl"), *err = NULL;
	mkdir(dir, 0777);
	write_file(path, reeval_transcript);
	if (result_json) {
		char *rj = util_path_join(dir, "result.json");
		write_file(rj, result_json);
		free(rj);
	}
	struct run *r = parser_load_file(path, NULL, &err);
	if (!r)
		printf("# %s\n", err ? err : "?");
	free(err);
	free(path);
	free(dir);
	return r;
}

static void reeval_core(void)
{
	struct run *run = reeval_run("rv", "{\"problem\": \"04_kahan_softmax\"}");
	const char *path = NULL, *text;
	long at = -2;
	if (!run) {
		ok(0, "reeval: the transcript loads");
		return;
	}
	ok(run->nev == 8, "reeval: 8 events");
	ok(reeval_solution_at(run, 0, &path, &at) == NULL && at == -1, "no solution before the first write");
	text = reeval_solution_at(run, 1, &path, &at);
	is_str(text, "v1\n", "the first version at the write");
	ok(at == 1, "written at event 1");
	is_str(path, "/w/solution.py", "its path as written");
	is_str(reeval_solution_at(run, 4, NULL, &at), "v1\n", "still the first version at event 4");
	is_str(reeval_solution_at(run, 5, NULL, &at), "v2\n", "the second version from event 5");
	ok(at == 5, "written at event 5");
	is_str(reeval_solution_at(run, 99, NULL, NULL), "v2\n", "past the end: the last version");
	is_str(reeval_ext("/a/solution.py"), "py", "solution.py: the python loop");
	is_str(reeval_ext("solution.cu"), "cu", "solution.cu: the native loop");
	ok(reeval_ext("/a/my_solution.py") == NULL && reeval_ext("kernel.cu") == NULL, "other files: none");

	struct reeval_agent a;
	reeval_agent_at(run, 2, &a);
	ok(!a.bench && a.bench_ev == -1 && a.check == 0, "no benchmark output before event 4");
	reeval_agent_free(&a);
	reeval_agent_at(run, 5, &a);
	ok(a.bench && a.bench_ev == 4 && a.check == 1 && a.check_ev == 4, "at event 5: event 4's output, PASS");
	const struct benchlog_entry *e = a.bench ? benchlog_find(a.bench, BL_VARIANT, 0, "solution") : NULL;
	ok(e && e->ms == 0.061 && e->gbps == 701, "the solution row, not eager");
	ok(a.bench && a.bench->peak_fraction == 0.31, "peak_fraction 0.31");

	struct eval_result ours = {0};
	struct eval_shape sh = {.shape = 0, .ms = 0.05, .tflops = 1.2, .gbps = 800, .peak_fraction = 0.42,
	                        .min_ms = -1, .max_ms = -1};
	ours.shapes = &sh;
	ours.nshapes = 1;
	ours.correct = 1;
	ours.peak_fraction = 0.42;
	struct sbuf b;
	sbuf_init(&b);
	reeval_compare(&a, &ours, &b);
	is_str(b.s,
	       "      agent's benchmark                 | ours\n"
	       "shape        ms  TFLOPS    GB/s   peak  |        ms  TFLOPS    GB/s   peak\n"
	       "0        0.0610   1.100   701.0      -  |    0.0500   1.200   800.0 0.4200\n"
	       "peak_fraction                   0.3100  |                           0.4200\n"
	       "check                             PASS  |                             PASS\n",
	       "the comparison table, byte for byte");
	sbuf_reset(&b);
	reeval_compare(&a, NULL, &b);
	has_str(b.s, "0.3100  |                        (running)", "ours still running");
	sbuf_free(&b);
	reeval_agent_free(&a);
	reeval_agent_at(run, 7, &a);
	ok(a.check == -1 && a.check_ev == 7 && a.bench_ev == 4, "a later FAIL line is the agent's last verdict");
	reeval_agent_free(&a);

	char *p = reeval_problem(run);
	is_str(p, "04_kahan_softmax", "the problem from result.json beside the transcript");
	free(p);
	run_free(run);
	run = reeval_run("20260101_000000_claude_m_05_topk_bitonic", NULL);
	p = run ? reeval_problem(run) : NULL;
	is_str(p, "05_topk_bitonic", "else from the run directory's name");
	free(p);

	char *cache = tmp_path("cache"), *err = NULL;
	setenv("XDG_CACHE_HOME", cache, 1);
	char *w1 = run ? reeval_workdir(run, 4, &err) : NULL, *w2 = run ? reeval_workdir(run, 4, &err) : NULL;
	char *want = xasprintf("%s/kbtui/reeval/20260101_000000_claude_m_05_topk_bitonic-ev5-", cache);
	ok(w1 && util_starts_with(w1, want) && util_is_dir(w1), "work directory under $XDG_CACHE_HOME/kbtui/reeval");
	ok(w1 && w2 && strcmp(w1, w2) && util_is_dir(w2), "a fresh one each time");
	unsetenv("XDG_CACHE_HOME");
	free(want);
	free(w1);
	free(w2);
	free(cache);
	run_free(run);
}

/* Takes a job's items until it ends (or 20 s), appending them to log. */
static int job_drain(struct evaljob *j, struct sbuf *log, double limit)
{
	double t0 = now();
	for (;;) {
		struct evaljob_item *it;
		size_t n;
		int ended = evaljob_take(j, &it, &n);
		for (size_t i = 0; i < n; i++) {
			if (it[i].kind == EJ_STAGE)
				sbuf_addf(log, "[%s]\n", eval_stage_name(it[i].stage));
			else
				sbuf_addf(log, "%s: %s\n", it[i].origin, it[i].text);
		}
		evaljob_items_free(it, n);
		if (ended)
			return 1;
		if (now() - t0 > limit)
			return 0;
		usleep(20000);
	}
}

static void evaljob_thread(void)
{
	struct eval_opts o = {0};
	struct sbuf log;
	if (system("python3 -c 'import sys' >/dev/null 2>&1") != 0) {
		tap_skip("python3 not found: the eval job not tested");
		return;
	}
	sbuf_init(&log);
	char *sol = tmp_path("job-solution.py"), *wd = tmp_path("wd-job");
	write_file(sol, "# a good solution\n");
	o.problem = "01";
	o.problems_dir = tap_path("tests/fixtures/eval/problems");
	o.kbh = tap_path("tests/fixtures/eval/kbh");
	o.python = "python3";
	o.solution = sol;
	o.workdir = wd;
	struct evaljob *j = evaljob_start(&o);
	ok(j != NULL, "evaljob: started");
	ok(j && job_drain(j, &log, 60), "evaljob: ends");
	if (j) {
		ok(evaljob_wait(j) == 0 && evaljob_result(j)->correct, "evaljob: rc 0, correct");
		ok(fabs(evaljob_result(j)->peak_fraction - 0.4421) < 1e-12, "evaljob: the result's peak_fraction");
	}
	const char *c = strstr(log.s ? log.s : "", "[check]\n"), *b = strstr(log.s ? log.s : "", "[bench]\n");
	ok(c && b && c < b, "evaljob: check begins, then bench, as steps");
	ok(c && strstr(c, "eval: python check.py in ") && strstr(c, "check: PASS\n"), "evaljob: each line with its origin");
	evaljob_free(j);

	/* abort: a python that hangs in check.py; its process group is killed */
	char *hang = tmp_path("hang-python");
	write_file(hang, "#!/bin/sh\necho started\nsleep 60\n");
	chmod(hang, 0755);
	o.python = hang;
	sbuf_reset(&log);
	j = evaljob_start(&o);
	double t0 = now();
	while (j && evaljob_stage(j) != EVAL_CHECK && now() - t0 < 20)
		usleep(20000);
	ok(j && evaljob_stage(j) == EVAL_CHECK, "evaljob: in the check step");
	usleep(200000);
	t0 = now();
	if (j)
		evaljob_abort(j);
	int rc = j ? evaljob_wait(j) : -9;
	double took = now() - t0;
	ok(rc == 1 && took < 10, "evaljob: abort ends the loop at once, rc 1");
	printf("# abort took %.2f s\n", took);
	if (j) {
		has_str(evaljob_result(j)->failure, "aborted by the user during check", "evaljob: the failure says so");
		ok(!evaljob_result(j)->correct, "evaljob: not correct");
	}
	evaljob_free(j);
	free(hang);
	free(sol);
	free(wd);
	sbuf_free(&log);
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/kbtui-test-eval-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	fake_nvcc = tmp_path("fake-nvcc");
	char *src = util_read_file(tap_path("tests/fixtures/eval/fake-nvcc"), NULL);
	write_file(fake_nvcc, src ? src : "");
	chmod(fake_nvcc, 0755);
	free(src);
	sbuf_init(&seen);

	real_problems();
	problem_forms();
	hardware();
	forbidden();
	procs();
	result_json();
	loop_pass();
	loop_deck();
	loop_failures();
	objscan_tests();
	static_object_tests();
	loop_integrity();
	loop_bad_input();
	command();
	kbh();
	reeval_core();
	evaljob_thread();

	sbuf_free(&seen);
	char *rm = xasprintf("rm -rf '%s'", tmp);
	if (system(rm) != 0)
		printf("# could not remove %s\n", tmp);
	free(rm);
	free(fake_nvcc);
	return tap_done();
}
