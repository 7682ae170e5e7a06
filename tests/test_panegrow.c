/* test_panegrow: a pane that follows a growing run (watch, live, a big
 * file read between keys) without making everything again ends with
 * exactly the rows a fresh build of the whole run gives: text, role and
 * event of every row. The timing pane (at a width with result.json below
 * the table and one with it beside) and the compiler pane append the new
 * events' rows; the claims pane adds their claims; the timeline pane puts
 * off making itself again while making it is dear, and is the fresh one's
 * once due. The run is a real one (tests/fixtures/kbh), cut at several
 * events and grown back. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
			if (what)
				printf("# %s: row %zu differs: \"%s\" / \"%s\"\n", what, i, a->v[i].s, b->v[i].s);
			return 0;
		}
	}
	if (a->n != b->n && what)
		printf("# %s: %zu rows against %zu\n", what, a->n, b->n);
	return a->n == b->n;
}

/* ops's pane built at cut events, grown to the whole run: appended when
 * appends (else built again, as a draw does), then held to a fresh build */
static void grow_check(const struct pane_ops *ops, struct run *r, size_t cut, int w, int appends)
{
	size_t all = r->nev;
	struct pane_ctx cx = { .run = r };
	struct pane grown, fresh;
	r->nev = cut;  /* the run as a watch saw it first */
	pane_init(&grown, ops, &cx);
	pane_ready(&grown, &cx);
	build(&grown, &cx, w);
	size_t before = grown.lines.n;
	r->nev = all;
	pane_grow(&grown, &cx, cut);
	int kept = grown.built_w == w;  /* appended, not marked to be built again */
	pane_init(&fresh, ops, &cx);
	pane_ready(&fresh, &cx);
	build(&fresh, &cx, w);
	char what[96];
	snprintf(what, sizeof what, "%s: cut at %zu of %zu, width %d", ops->name, cut, all, w);
	if (appends)
		ok(kept && grown.lines.n > before, "%s: the rows of the new events were appended (%zu -> %zu rows)", what,
		   before, grown.lines.n);
	if (!kept)
		build(&grown, &cx, w);
	/* a remake put off (the timeline's) is due after some multiple of
	 * what the last took, milliseconds here: drawn again until it is */
	for (int k = 0; k < 2000 && !same_rows(&grown.lines, &fresh.lines, NULL); k++) {
		usleep(1000);
		build(&grown, &cx, w);
	}
	ok(same_rows(&grown.lines, &fresh.lines, what), "%s: the same rows as a fresh build", what);
	pane_free(&grown);
	pane_free(&fresh);
}

/* Whether the run has a compiler diagnostic after event cut (its pane has
 * rows to append then), as the pane finds them. */
static int compiler_after(struct run *r, size_t cut)
{
	size_t all = r->nev;
	struct pane_ctx cx = { .run = r };
	struct pane p;
	r->nev = cut;
	pane_init(&p, &pane_compiler_ops, &cx);
	pane_ready(&p, &cx);
	build(&p, &cx, 100);
	size_t before = p.lines.n;
	r->nev = all;
	tlines_clear(&p.lines);
	pane_invalidate(&p);
	pane_grow(&p, &cx, cut);
	build(&p, &cx, 100);
	int more = p.lines.n > before && before > 3;  /* (3: the heading and the "none" rows) */
	pane_free(&p);
	return more;
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
		grow_check(&pane_timing_ops, r, cuts[k], 80, 1);   /* result.json below the table */
		grow_check(&pane_timing_ops, r, cuts[k], 140, 1);  /* result.json beside it */
		grow_check(&pane_compiler_ops, r, cuts[k], 100, compiler_after(r, cuts[k]));
		grow_check(&pane_claims_ops, r, cuts[k], 100, 0);
		grow_check(&pane_timeline_ops, r, cuts[k], 100, 0);
	}
	run_free(r);
	free(err);
	return tap_done();
}
