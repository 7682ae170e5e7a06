/* formula.h: evaluates the flops/bytes formulas of problem metadata, e.g.
 * "2 * M * N * K" or "M*K*2 + (K/2)*N", over a problem shape's variables.
 * Only + - * / ( ), unary signs, decimal numbers and identifiers: no calls,
 * no assignment, so an untrusted formula can compute a number and nothing
 * else. Division is real division, as in the Python that wrote them. */
#ifndef KB_FORMULA_H
#define KB_FORMULA_H

struct formula_var {
	const char *name;
	double value;
};

struct formula_error {
	int col;            /* 1-based column of the problem in the formula */
	char msg[160];
};

/* Deepest nesting of parentheses and unary signs accepted; deeper input is
 * an error rather than a deep recursion. */
#define FORMULA_MAX_DEPTH 64

/* 0 and *out on success; -1 with err filled (err may be NULL). */
int formula_eval(const char *expr, const struct formula_var *vars, int nvars, double *out,
                 struct formula_error *err);

#endif
