/* Compiler output rules: the shipped data/compiler_patterns.txt classifies
 * real nvcc, ptxas, C++, cpp_extension, Triton, CUDA and Python lines; rule
 * files are checked line by line; runs are scanned by event. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compilerlog.h"
#include "run.h"
#include "tap.h"
#include "util.h"

struct want {
	const char *line, *tool;
	int level;  /* -1: no rule matches */
};

/* Lines as the sample's tool results have them. */
static const struct want wants[] = {
	{ "/home/u/.cache/torch_extensions/py311_cu130/topk_v6/cuda.cu(357): error: identifier \"launch\" is undefined",
	  "nvcc", CL_ERROR },
	{ "/x/cuda.cu(12): warning #177-D: variable \"x\" was declared but never referenced", "nvcc", CL_WARNING },
	{ "2 errors detected in the compilation of \"/x/cuda.cu\".", "nvcc", CL_ERROR },
	{ "nvcc fatal   : Unsupported gpu architecture 'compute_130'", "nvcc", CL_ERROR },
	{ "ptxas info    : Used 38 registers, used 1 barriers", "ptxas", CL_NOTE },
	{ "ptxas error   : Entry function 'k' uses too much shared data (0x1c000 bytes, 0xc000 max)", "ptxas", CL_ERROR },
	{ "ptxas warning : Registers are spilled to local memory in function 'k'", "ptxas", CL_WARNING },
	{ "/x/main.cpp:17:1: error: redefinition of 'void pybind11_init(pybind11::module_&)'", "c++", CL_ERROR },
	{ "/x/main.cpp:13:1: note: 'void f()' previously defined here", "c++", CL_NOTE },
	{ "/x/main.cpp:9:5: warning: unused variable 'n' [-Wunused-variable]", "c++", CL_WARNING },
	{ "RuntimeError: Error building extension 'topk_v6': [1/2] /usr/local/cuda-13/bin/nvcc -MD -MF cuda.cuda.o.d",
	  "cpp_ext", CL_ERROR },
	{ "FAIL: import error: Error building extension 'kb05_select_ext_v1': [1/3] nvcc", "cpp_ext", CL_ERROR },
	{ "ninja: build stopped: subcommand failed.", "cpp_ext", CL_ERROR },
	{ "FAILED: [code=2] cuda.cuda.o ", "cpp_ext", CL_ERROR },
	{ "[1/3] /usr/local/cuda-13/bin/nvcc -MD -MF cuda.cuda.o.d -DTORCH_EXTENSION_NAME=x -c cuda.cu", "cpp_ext", CL_NOTE },
	{ "FAILED: at 27:26:", "triton", CL_ERROR },
	{ "triton.compiler.errors.CompilationError: at 12:4:", "triton", CL_ERROR },
	{ "  cfg=(32, 128, 64, 4, 4) error=OutOfResources: out of resource: shared memory, Required: 110592",
	  "triton", CL_ERROR },
	{ "torch.AcceleratorError: CUDA error: misaligned address", "cuda", CL_ERROR },
	{ "Traceback (most recent call last):", "python", CL_NOTE },
	{ "  File \"/tmp/topk_bench_detail.py\", line 4, in <module>", "python", CL_NOTE },
	{ "ModuleNotFoundError: No module named 'solution'", "python", CL_ERROR },
	{ "NameError('offs_pk is not defined')", "python", CL_ERROR },
	{ "subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.", "cpp_ext",
	  CL_ERROR },
	{ "/x/ops.py:468: FutureWarning: _check_is_size will be removed in a future PyTorch release", "python",
	  CL_WARNING },
	/* numbered listings are source code, not output */
	{ "    34\t        print(f\"FAIL: import error: {e}\")", "-", CL_IGNORE },
	{ "     5\u2192raise RuntimeError('not implemented')", "-", CL_IGNORE },
	/* ordinary output */
	{ "PASS", NULL, -1 },
	{ "shape=0 variant=solution tflops=7.242 gbps=84.983 ms=0.297", NULL, -1 },
	{ "All 5 shapes correct; errors: none", NULL, -1 },
};

static void test_shipped_rules(void)
{
	struct compilerlog *cl = compilerlog_new();
	char *err = NULL;
	int n = compilerlog_load(cl, tap_path("data/compiler_patterns.txt"), &err);
	ok(n >= 30, "data/compiler_patterns.txt loads (%d rules)", n);
	is_str(err, NULL, "no error loading it");
	is_int((long long)compilerlog_nrules(cl), n, "nrules agrees");
	for (size_t i = 0; i < sizeof wants / sizeof wants[0]; i++) {
		enum compilerlog_level level = CL__LEVELS;
		const char *tool = NULL;
		int r = compilerlog_match(cl, wants[i].line, strlen(wants[i].line), &level, &tool);
		if (wants[i].level < 0) {
			is_int(r, -1, "no rule for: %.50s", wants[i].line);
			continue;
		}
		ok(r >= 0 && (int)level == wants[i].level && tool && !strcmp(tool, wants[i].tool), "%s %s: %.50s",
		   wants[i].tool, compilerlog_level_name((enum compilerlog_level)wants[i].level), wants[i].line);
		if (r < 0 || (int)level != wants[i].level)
			printf("#   got rule %d level %s tool %s\n", r, compilerlog_level_name(level), tool ? tool : "-");
	}
	compilerlog_free(cl);
}

static void test_rule_lines(void)
{
	struct compilerlog *cl = compilerlog_new();
	char *err = NULL;
	is_int(compilerlog_add(cl, "# a comment", &err), 0, "a comment is skipped");
	is_int(compilerlog_add(cl, "   ", &err), 0, "a blank line is skipped");
	is_int((long long)compilerlog_nrules(cl), 0, "neither adds a rule");
	is_int(compilerlog_add(cl, "mine  error  ^BOOM (\\d+)", &err), 0, "TOOL LEVEL REGEX is a rule");
	is_int(compilerlog_add(cl, "mine  fatal  ^x", &err), -1, "an unknown level is refused");
	has_str(err, "unknown level 'fatal'", "and named");
	free(err);
	is_int(compilerlog_add(cl, "mine  error  (unclosed", &err), -1, "a bad regex is refused");
	has_str(err, "bad regular expression at offset", "with the offset");
	free(err);
	is_int(compilerlog_add(cl, "mine  error", &err), -1, "a rule without a regex is refused");
	has_str(err, "no regular expression", "and says so");
	free(err);
	is_int(compilerlog_add(cl, "mine", &err), -1, "a tool alone is refused");
	free(err);
	/* the first matching rule decides */
	is_int(compilerlog_add(cl, "other warning BOOM", &err), 0, "a second rule that also matches BOOM");
	const char *tool = NULL;
	enum compilerlog_level level;
	is_int(compilerlog_match(cl, "BOOM 12 went the kernel", 23, &level, &tool), 0, "the first rule wins");
	is_str(tool, "mine", "its tool");
	is_int(level, CL_ERROR, "its level");
	is_int(compilerlog_match(cl, "a BOOM", 6, &level, &tool), 1, "the unanchored one catches the rest");
	is_int(compilerlog_match(cl, "boom", 4, NULL, NULL), -1, "rules are case-sensitive");
	/* untrusted text: invalid UTF-8 and huge lines */
	is_int(compilerlog_match(cl, "\xff\xfe BOOM", 7, &level, &tool), 1, "invalid UTF-8 before a match");
	size_t big = 200000;
	char *huge = xmalloc(big + 1);
	memset(huge, 'x', big);
	memcpy(huge, "BOOM 1", 6);
	huge[big] = '\0';
	is_int(compilerlog_match(cl, huge, big, &level, &tool), 0, "a 200 kB line matches at its start");
	free(huge);
	compilerlog_free(cl);
}

static void test_files(void)
{
	char dir[] = "/tmp/kbtest-cl-XXXXXX";
	ok(mkdtemp(dir) != NULL, "temporary directory");
	char *good = util_path_join(dir, "good.txt"), *bad = util_path_join(dir, "bad.txt");
	FILE *f = fopen(good, "w");
	fputs("# my rules\n\nkern error ^KERNEL PANIC\nkern note ^kernel says\n", f);
	fclose(f);
	f = fopen(bad, "w");
	fputs("kern error ^ok\n# fine\nkern loud ^x\n", f);
	fclose(f);
	struct compilerlog *cl = compilerlog_new();
	char *err = NULL;
	is_int(compilerlog_load(cl, good, &err), 2, "a rules file of our own: 2 rules");
	const char *tool = NULL;
	enum compilerlog_level level;
	ok(compilerlog_match(cl, "KERNEL PANIC at 3", 17, &level, &tool) == 0 && level == CL_ERROR &&
	   !strcmp(tool, "kern"), "its rules are what matches (patterns are data)");
	compilerlog_free(cl);
	cl = compilerlog_new();
	is_int(compilerlog_load(cl, bad, &err), -1, "a bad rules file is refused");
	char *want = xasprintf("%s:3: unknown level 'loud'", bad);
	has_str(err, want, "the message names file and line");
	free(want);
	free(err);
	compilerlog_free(cl);
	cl = compilerlog_new();
	char *missing = util_path_join(dir, "missing.txt");
	is_int(compilerlog_load(cl, missing, &err), -1, "a missing file is refused");
	has_str(err, "missing.txt: No such file", "with the path and the reason");
	free(err);
	compilerlog_free(cl);
	unlink(good);
	unlink(bad);
	rmdir(dir);
	free(good);
	free(bad);
	free(missing);
}

static void test_scan(void)
{
	struct compilerlog *cl = compilerlog_new();
	char *err = NULL;
	compilerlog_load(cl, tap_path("data/compiler_patterns.txt"), &err);
	free(err);
	struct run *r = run_new();
	struct event *e = run_add(r, EV_TEXT, 1);
	e->text = xstrdup("Traceback (most recent call last):\nI will fix the error: next");
	e = run_add(r, EV_TOOL_CALL, 2);
	e->name = xstrdup("Bash");
	e = run_add(r, EV_TOOL_RESULT, 3);
	e->text = xstrdup("[1/2] /usr/local/cuda/bin/nvcc -c cuda.cu -o cuda.o\r\n"
	                  "cuda.cu(10): error: expected a \";\"\r\n"
	                  "cuda.cu(11): warning #550-D: variable \"y\" was set but never used\n"
	                  "1 error detected in the compilation of \"cuda.cu\".\n"
	                  "    12\tcuda.cu(99): error: in a listing\n"
	                  "ninja: build stopped: subcommand failed.");
	e = run_add(r, EV_TOOL_RESULT, 4);
	e->text = xstrdup("PASS\nall good");
	e = run_add(r, EV_ERROR, 5);
	e->text = xstrdup("Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nKeyError: 'a'");
	struct compilerlog_report rep = { 0 };
	compilerlog_scan_run(cl, r, &rep);
	is_int((long long)rep.n, 8, "8 diagnostic lines: 5 in the tool result, 3 in the error event");
	is_int((long long)rep.count[CL_ERROR], 4, "4 errors");
	is_int((long long)rep.count[CL_WARNING], 1, "1 warning");
	is_int((long long)rep.count[CL_NOTE], 3, "3 notes");
	is_int((long long)rep.count[CL_IGNORE], 0, "the listing line is not reported");
	if (rep.n == 8) {
		is_int((long long)rep.hits[0].ev, 2, "the first hit is event 2 (text events are not scanned)");
		is_int(rep.hits[1].line, 2, "line numbers are 1-based within the result");
		is_str(rep.hits[1].text, "cuda.cu(10): error: expected a \";\"", "the line without its \\r");
		is_str(rep.hits[1].tool, "nvcc", "its tool");
		is_int(rep.hits[4].line, 6, "the ninja line is line 6 (the listing line is skipped)");
		is_int((long long)rep.hits[5].ev, 4, "the traceback of the error event");
		is_int(rep.hits[7].level, CL_ERROR, "KeyError is an error");
	}
	compilerlog_report_free(&rep);
	is_int((long long)rep.n, 0, "report_free empties the report");
	run_free(r);
	compilerlog_free(cl);
}

int main(void)
{
	test_shipped_rules();
	test_rule_lines();
	test_files();
	test_scan();
	return tap_done();
}
