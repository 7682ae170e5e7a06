/* formula.c: a recursive-descent evaluator with a depth limit.
 *   sum     := product (('+' | '-') product)*
 *   product := unary (('*' | '/') unary)*
 *   unary   := ('+' | '-') unary | primary
 *   primary := NUMBER | IDENT | '(' sum ')' */
#include "formula.h"
#include "textsafe.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fparse {
	const char *s;      /* the whole formula */
	const char *p;      /* current position */
	const struct formula_var *vars;
	int nvars;
	int depth;
	struct formula_error *err;
	int failed;
};

static int formula_fail(struct fparse *f, const char *at, const char *fmt, const char *arg)
{
	if (!f->failed && f->err) {
		f->err->col = (int)(at - f->s) + 1;
		snprintf(f->err->msg, sizeof f->err->msg, fmt, arg);
	}
	f->failed = 1;
	return -1;
}

static void formula_skip_space(struct fparse *f)
{
	while (*f->p == ' ' || *f->p == '\t' || *f->p == '\n' || *f->p == '\r')
		f->p++;
}

static int formula_sum(struct fparse *f, double *v);

static int formula_number(struct fparse *f, double *v)
{
	const char *start = f->p;
	char *end;
	while (isdigit((unsigned char)*f->p) || *f->p == '.' || *f->p == '_')
		f->p++;
	/* an exponent: 1e6, 2.5E-3 */
	if ((*f->p == 'e' || *f->p == 'E') &&
	    (isdigit((unsigned char)f->p[1]) ||
	     ((f->p[1] == '+' || f->p[1] == '-') && isdigit((unsigned char)f->p[2]))))
		for (f->p += 2; isdigit((unsigned char)*f->p); f->p++)
			;
	char buf[64];
	size_t n = 0;
	for (const char *q = start; q < f->p; q++)
		if (*q != '_' && n < sizeof buf - 1)
			buf[n++] = *q;
	buf[n] = '\0';
	*v = strtod(buf, &end);
	if (n == 0 || *end || (size_t)(f->p - start) >= sizeof buf)
		return formula_fail(f, start, "malformed number", NULL);
	return 0;
}

static int formula_ident(struct fparse *f, double *v)
{
	const char *start = f->p;
	while (isalnum((unsigned char)*f->p) || *f->p == '_')
		f->p++;
	size_t n = (size_t)(f->p - start);
	for (int i = 0; i < f->nvars; i++)
		if (f->vars[i].name && strlen(f->vars[i].name) == n && !memcmp(f->vars[i].name, start, n)) {
			*v = f->vars[i].value;
			return 0;
		}
	char name[64];
	snprintf(name, sizeof name, "%.*s", (int)textsafe_cut(start, n, 60), start);
	return formula_fail(f, start, "unknown variable '%s'", name);
}

static int formula_primary(struct fparse *f, double *v)
{
	formula_skip_space(f);
	const char *at = f->p;
	if (isdigit((unsigned char)*at) || (*at == '.' && isdigit((unsigned char)at[1])))
		return formula_number(f, v);
	if (isalpha((unsigned char)*at) || *at == '_')
		return formula_ident(f, v);
	if (*at == '(') {
		if (++f->depth > FORMULA_MAX_DEPTH)
			return formula_fail(f, at, "nested too deeply", NULL);
		f->p++;
		if (formula_sum(f, v) < 0)
			return -1;
		formula_skip_space(f);
		if (*f->p != ')')
			return formula_fail(f, f->p, "expected ')'", NULL);
		f->p++;
		f->depth--;
		return 0;
	}
	if (!*at)
		return formula_fail(f, at, "unexpected end of formula", NULL);
	char c[2] = {*at, 0};
	return formula_fail(f, at, "unexpected '%s'", c);
}

static int formula_unary(struct fparse *f, double *v)
{
	formula_skip_space(f);
	if (*f->p != '+' && *f->p != '-')
		return formula_primary(f, v);
	const char *at = f->p;
	int neg = *f->p == '-';
	if (++f->depth > FORMULA_MAX_DEPTH)
		return formula_fail(f, at, "nested too deeply", NULL);
	f->p++;
	if (formula_unary(f, v) < 0)
		return -1;
	f->depth--;
	if (neg)
		*v = -*v;
	return 0;
}

static int formula_product(struct fparse *f, double *v)
{
	if (formula_unary(f, v) < 0)
		return -1;
	for (;;) {
		formula_skip_space(f);
		char op = *f->p;
		if (op != '*' && op != '/')
			return 0;
		const char *at = f->p++;
		if (*f->p == op)
			return formula_fail(f, at, op == '*' ? "'**' is not supported" : "'//' is not supported", NULL);
		double r;
		if (formula_unary(f, &r) < 0)
			return -1;
		if (op == '/' && r == 0)
			return formula_fail(f, at, "division by zero", NULL);
		*v = op == '*' ? *v * r : *v / r;
	}
}

static int formula_sum(struct fparse *f, double *v)
{
	if (formula_product(f, v) < 0)
		return -1;
	for (;;) {
		formula_skip_space(f);
		char op = *f->p;
		if (op != '+' && op != '-')
			return 0;
		f->p++;
		double r;
		if (formula_product(f, &r) < 0)
			return -1;
		*v = op == '+' ? *v + r : *v - r;
	}
}

int formula_eval(const char *expr, const struct formula_var *vars, int nvars, double *out,
                 struct formula_error *err)
{
	struct fparse f = {.s = expr ? expr : "", .vars = vars, .nvars = nvars, .err = err};
	double v = 0;
	f.p = f.s;
	if (err) {
		err->col = 0;
		err->msg[0] = '\0';
	}
	formula_skip_space(&f);
	if (!*f.p)
		return formula_fail(&f, f.p, "empty formula", NULL);
	if (formula_sum(&f, &v) < 0)
		return -1;
	formula_skip_space(&f);
	if (*f.p) {
		char c[2] = {*f.p, 0};
		return formula_fail(&f, f.p, *f.p == ')' ? "unbalanced '%s'" : "unexpected '%s'", c);
	}
	if (!isfinite(v))
		return formula_fail(&f, f.s, "result is not a finite number", NULL);
	*out = v;
	return 0;
}
