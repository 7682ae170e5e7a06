/* fuzz_benchlog.c: libFuzzer target for the benchmark-line reader. The
 * input is fed as a stream split at a data-derived point, and must read as
 * the same entries as when fed whole. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "benchlog.h"

static struct benchlog *fuzz_read(const uint8_t *d, size_t n, size_t cut)
{
	struct benchlog *b = benchlog_new();
	benchlog_feed(b, (const char *)d, cut);
	benchlog_feed(b, (const char *)d + cut, n - cut);
	benchlog_finish(b);
	benchlog_finish(b); /* idempotent */
	return b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t cut = size ? (size_t)data[0] * 7u % (size + 1) : 0;
	struct benchlog *a = fuzz_read(data, size, size), *b = fuzz_read(data, size, cut);
	if (a->ne != b->ne || a->lineno != b->lineno || a->status != b->status || a->npass != b->npass ||
	    a->nfail != b->nfail)
		abort();
	for (int i = 0; i < a->ne; i++) {
		const struct benchlog_entry *x = &a->e[i], *y = &b->e[i];
		if (x->kind != y->kind || x->line != y->line || x->shape != y->shape ||
		    strcmp(x->variant ? x->variant : "", y->variant ? y->variant : "") != 0)
			abort();
	}
	(void)benchlog_find(a, BL_VARIANT, 0, NULL);
	(void)benchlog_find(a, BL_HTIME, -1, "solution");
	benchlog_free(a);
	benchlog_free(b);
	/* and each line classified alone, with no terminating NUL beyond it */
	if (size) {
		char *copy = malloc(size);
		struct benchlog_line bl;
		memcpy(copy, data, size);
		(void)benchlog_classify(copy, size, &bl);
		free(copy);
	}
	return 0;
}
