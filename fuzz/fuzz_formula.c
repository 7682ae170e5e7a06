/* fuzz_formula.c: libFuzzer target for the flops/bytes formula evaluator
 * (untrusted problem metadata): any text evaluates or fails with a column
 * inside the formula, never recurses without bound. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "formula.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct formula_var vars[] = {
		{"M", 4096}, {"N", 4096}, {"K", 4096}, {"batch", 8}, {"x", 0},
	};
	char *expr = xstrndup((const char *)data, size);
	struct formula_error err;
	double out = 0;
	memset(&err, 0, sizeof err);
	if (formula_eval(expr, vars, 5, &out, &err) != 0) {
		if (err.col < 1 || (size_t)err.col > strlen(expr) + 1)
			abort();
		if (!memchr(err.msg, 0, sizeof err.msg))
			abort();
	}
	(void)formula_eval(expr, NULL, 0, &out, NULL);
	free(expr);
	return 0;
}
