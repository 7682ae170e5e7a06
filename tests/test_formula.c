/* test_formula: the flops/bytes formula evaluator: precedence, real
 * division, every problem's formulas, errors with their column, and no
 * deep recursion on hostile input. */
#include "tap.h"
#include "formula.h"
#include "problem.h"
#include "util.h"

#include <math.h>

static const struct formula_var V[] = {
	{"M", 4096}, {"N", 4096}, {"K", 4127}, {"batch", 8}, {"vocab", 131072}, {"T_total", 32768},
	{"H", 4096}, {"I", 1536}, {"E", 128}, {"x_1", 3},
};
#define NV ((int)(sizeof V / sizeof V[0]))

static double ev(const char *e)
{
	double v = NAN;
	struct formula_error err;
	if (formula_eval(e, V, NV, &v, &err) < 0)
		return NAN;
	return v;
}

static void bad(const char *e, int col, const char *msg)
{
	double v = 123;
	struct formula_error err;
	int rc = formula_eval(e, V, NV, &v, &err);
	is_int(rc, -1, "'%.40s' is an error", e);
	is_int(err.col, col, "'%.40s': error at column %d", e, col);
	has_str(err.msg, msg, "'%.40s': message says %s", e, msg);
	ok(v == 123, "'%.40s': result left alone", e);
}

static void values(void)
{
	ok(ev("2 * M * N * K") == 2.0 * 4096 * 4096 * 4127, "2*M*N*K");
	ok(ev("M*K + K*N + M*N*2") == 4096.0 * 4127 + 4127.0 * 4096 + 4096.0 * 4096 * 2, "01 bytes");
	ok(ev("1 + 2 * 3") == 7, "* binds tighter than +");
	ok(ev("(1 + 2) * 3") == 9, "parentheses");
	ok(ev("10 - 4 - 3") == 3, "- is left-associative");
	ok(ev("64 / 4 / 2") == 8, "/ is left-associative");
	ok(ev("(K/2)*N") == 4127.0 / 2 * 4096, "/ is real division, as Python 3's (K odd)");
	ok(ev("(K/128)*N*2") == 4127.0 / 128 * 4096 * 2, "W4A16 group term keeps its fraction");
	ok(ev("-M + +3") == -4093, "unary signs");
	ok(ev("- - 2") == 2, "double negation");
	ok(ev("1.5 * 2") == 3, "decimals");
	ok(ev(".5 * 4") == 2, "leading dot");
	ok(ev("1e3 + 2.5E-1") == 1000.25, "exponents");
	ok(ev("1_000 * 2") == 2000, "Python digit separators");
	ok(ev(" \tx_1*2 ") == 6, "identifiers with digits and underscores, spaces around");
	ok(ev("2 * T_total * H * (2 * I)") == 2.0 * 32768 * 4096 * 2 * 1536, "06 flops");
	double big = ev("M*M*M*M*M*M*M*M");
	ok(big > 7.9e28 && big < 8e28, "large products stay in floating point: %g", big);
}

static void errors(void)
{
	bad("2 * Q", 5, "unknown variable 'Q'");
	bad("M +", 4, "unexpected end");
	bad("(M + N", 7, "expected ')'");
	bad("M + N)", 6, "unbalanced ')'");
	bad("M / (N - N)", 3, "division by zero");
	bad("M ** 2", 3, "'**' is not supported");
	bad("M // 2", 3, "'//' is not supported");
	bad("M; rm -rf /", 2, "unexpected ';'");
	bad("__import__('os')", 1, "unknown variable '__import__'");
	bad("M(2)", 2, "unexpected '('");
	bad("", 1, "empty formula");
	bad("   ", 4, "empty formula");
	bad("1.2.3", 1, "malformed number");
	bad("M N", 3, "unexpected 'N'");
	ok(formula_eval("M", NULL, 0, &(double){0}, NULL) == -1, "no variables, NULL err: still an error, no crash");
}

static void depth(void)
{
	struct sbuf b;
	struct formula_error err;
	double v;
	sbuf_init(&b);
	for (int i = 0; i < FORMULA_MAX_DEPTH; i++)
		sbuf_addc(&b, '(');
	sbuf_adds(&b, "M");
	for (int i = 0; i < FORMULA_MAX_DEPTH; i++)
		sbuf_addc(&b, ')');
	ok(formula_eval(b.s, V, NV, &v, &err) == 0 && v == 4096, "%d nested parentheses are fine",
	   FORMULA_MAX_DEPTH);
	sbuf_reset(&b);
	for (int i = 0; i < 200000; i++)
		sbuf_addc(&b, '(');
	is_int(formula_eval(b.s, V, NV, &v, &err), -1, "200000 open parentheses: an error, not a stack overflow");
	is_int(err.col, FORMULA_MAX_DEPTH + 1, "reported where the depth limit was passed");
	has_str(err.msg, "nested too deeply", "says why");
	sbuf_reset(&b);
	for (int i = 0; i < 200000; i++)
		sbuf_addc(&b, '-');
	sbuf_addc(&b, '1');
	is_int(formula_eval(b.s, V, NV, &v, &err), -1, "200000 unary minus signs: an error too");
	sbuf_free(&b);
}

/* Every problem in the tree: both formulas evaluate for every shape to a
 * positive number. */
static void problems(void)
{
	int n;
	const char *dir = tap_path("problems");
	char **names = problem_names(dir, &n);
	if (!n)
		tap_skip("no problems/*/problem.json yet");
	for (int i = 0; i < n; i++) {
		char *pd = util_path_join(dir, names[i]), *err = NULL;
		struct problem *p = problem_load(pd, &err);
		ok(p != NULL, "%s loads%s%s", names[i], err ? ": " : "", err ? err : "");
		for (int s = 0; p && s < p->nshapes; s++) {
			double f = -1, by = -1;
			struct formula_error fe = {0};
			int rc = problem_work(p, s, &f, &by, &fe);
			ok(rc == 0 && f > 0 && by > 0, "%s shape %d: flops %.4g bytes %.4g %s", names[i], s, f, by, fe.msg);
		}
		problem_free(p);
		free(err);
		free(pd);
	}
	problem_names_free(names, n);
}

int main(void)
{
	values();
	errors();
	depth();
	problems();
	return tap_done();
}
