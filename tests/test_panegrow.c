/* test_panegrow: a pane that appends to what it built when the run grows
 * (the timing pane under watch) ends with exactly the rows a fresh build
 * of the whole run gives: text, role and event of every row, at a width
 * with result.json below the table and one with it beside. The run is a
 * real one (tests/fixtures/kbh), cut at several events and grown back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pane.h"
#include "parser.h"
#include "run.h"
#include "tap.h"
#include "tlines.h"
#include "util.h"

#define OPUS "tests/fixtures/kbh/runs/20260428_040539_claude_claude-opus-4-7_01_fp8_gemm/transcript.jsonl"

static void build(struct pane *p, struct pane_ctx *cx, int w)
{
	tlines_clear(&p->lines);
	p->ops->build(p, cx, w);
	p->built_w = w;
}

/* 1 when both panes hold the same rows; says where they first differ. */
static int same_rows(const struct tlines *a, const struct tlines *b, const char *what)
{
	size_t n = a->n < b->n ? a->n : b->n;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(a->v[i].s, b->v[i].s) || a->v[i].role != b->v[i].role || a->v[i].ev != b->v[i].ev) {
			printf("# %s: row %zu differs: \"%s\" / \"%s\"\n", what, i, a->v[i].s, b->v[i].s);
			return 0;
		}
	}
	if (a->n != b->n)
		printf("# %s: %zu rows against %zu\n", what, a->n, b->n);
	return a->n == b->n;
}

static void grow_check(struct run *r, size_t cut, int w)
{
	size_t all = r->nev;
	struct pane_ctx cx = { .run = r };
	struct pane grown, fresh;
	r->nev = cut;  /* the run as a watch saw it first */
	pane_init(&grown, &pane_timing_ops, &cx);
	pane_ready(&grown, &cx);
	build(&grown, &cx, w);
	size_t before = grown.lines.n;
	r->nev = all;
	pane_grow(&grown, &cx, cut);
	int kept = grown.built_w == w;  /* appended, not marked to be built again */
	pane_init(&fresh, &pane_timing_ops, &cx);
	pane_ready(&fresh, &cx);
	build(&fresh, &cx, w);
	char what[64];
	snprintf(what, sizeof what, "cut at %zu of %zu, width %d", cut, all, w);
	ok(kept && grown.lines.n > before, "%s: the rows of the new events were appended (%zu -> %zu rows)", what, before,
	   grown.lines.n);
	ok(same_rows(&grown.lines, &fresh.lines, what), "%s: the same rows as a fresh build", what);
	pane_free(&grown);
	pane_free(&fresh);
}

int main(void)
{
	char *err = NULL;
	struct run *r = parser_load_final(tap_path(OPUS), NULL, &err);
	ok(r != NULL, "the opus fixture loads (%s)", err ? err : "ok");
	if (!r) {
		return tap_done();
	}
	size_t cuts[] = { r->nev / 4, r->nev / 2, r->nev - 40 };
	for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
		grow_check(r, cuts[k], 80);   /* result.json below the table */
		grow_check(r, cuts[k], 140);  /* result.json beside it */
	}
	run_free(r);
	free(err);
	return tap_done();
}
