/* fuzz_annot.c: libFuzzer target for the annotation YAML reader: load,
 * emit, reload, and the reloaded tree must equal the loaded one (the
 * round trip annot.h promises; see fuzz_equal for the one difference
 * allowed). annot_load takes a path, so the input goes
 * through a memfd named by /proc/self/fd (no disk). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <yaml.h>
#include "annot.h"

static int fuzz_fd = -1;
static char fuzz_path[64];

static void fuzz_put(const void *d, size_t n)
{
	if (fuzz_fd < 0) {
		fuzz_fd = memfd_create("fuzz_annot", 0);
		if (fuzz_fd < 0)
			abort();
		snprintf(fuzz_path, sizeof fuzz_path, "/proc/self/fd/%d", fuzz_fd);
	}
	if (ftruncate(fuzz_fd, 0) != 0 || pwrite(fuzz_fd, d, n, 0) != (ssize_t)n)
		abort();
}

/* ynode_equal, except that a plain scalar may come back quoted under the
 * non-specific tag "!": libyaml's emitter will not write some plain
 * scalars plain (starting with "...", "---", "- ", multi-line ones) and
 * keeps their meaning, a string, that way; and under an explicit tag the
 * style may change, the tag decides the type. Anything else is a finding. */
static int fuzz_equal(const struct ynode *a, const struct ynode *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->n != b->n)
		return 0;
	if (a->kind == YN_SCALAR) {
		int ap = a->style == YAML_PLAIN_SCALAR_STYLE, bp = b->style == YAML_PLAIN_SCALAR_STYLE;
		if (a->len != b->len || memcmp(a->value, b->value, a->len) != 0)
			return 0;
		int same_tag = a->tag && b->tag && !strcmp(a->tag, b->tag);
		if (ap != bp && !same_tag && !(ap && !a->tag && b->tag && !strcmp(b->tag, "!")))
			return 0;
	}
	for (size_t i = 0; i < a->n; i++)
		if (!fuzz_equal(a->items[i], b->items[i]))
			return 0;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int line = 0;
	char *err = NULL, *msgs = NULL;
	struct annot *a, *b;
	char *text;

	fuzz_put(data, size);
	a = annot_load(fuzz_path, &line, &err);
	free(err);
	err = NULL;
	if (!a)
		return 0;
	(void)annot_get(a, "verdict");
	(void)annot_check(a, &msgs);
	free(msgs);
	text = annot_emit(a, &err);
	free(err);
	err = NULL;
	if (text) {
		fuzz_put(text, strlen(text));
		b = annot_load(fuzz_path, &line, &err);
		if (!b) {
			fprintf(stderr, "reload failed: %s\n--- emitted:\n%s\n", err ? err : "?", text);
			abort();
		}
		if (!fuzz_equal(a->root, b->root)) {
			fprintf(stderr, "round trip changed the document\n--- emitted:\n%s\n", text);
			abort();
		}
		annot_free(b);
		free(err);
		free(text);
	}
	annot_free(a);
	return 0;
}
