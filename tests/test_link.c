/* test_link.c: pairing tool results with calls (run_link): the same pairs
 * as the scan it replaced, on tricky runs and random ones, grown a few
 * events at a time as watch grows them, and work linear in events (slots
 * probed, counted; no timing). */
#include "run.h"
#include "util.h"
#include "tap.h"

/* The pairing run_link did before the table, kept as the reference: for
 * each result, the oldest unanswered call with its id before it, found by
 * a scan back to event 0; results without id in order. *work counts the
 * events the scan looked at. */
static void ref_link(struct run *r, int *link, size_t *work)
{
	size_t next_unkeyed = 0;
	for (size_t i = 0; i < r->nev; i++)
		link[i] = -1;
	for (size_t i = 0; i < r->nev; i++) {
		struct event *res = &r->ev[i];
		if (res->kind != EV_TOOL_RESULT)
			continue;
		if (res->call_id && *res->call_id) {
			long found = -1;
			for (size_t j = i; j-- > 0;) {
				struct event *c = &r->ev[j];
				(*work)++;
				if (c->kind == EV_TOOL_CALL && link[j] < 0 && c->call_id &&
				    strcmp(c->call_id, res->call_id) == 0)
					found = (long)j;
			}
			if (found >= 0) {
				link[i] = (int)found;
				link[found] = (int)i;
			}
			continue;
		}
		for (; next_unkeyed < i; next_unkeyed++) {
			struct event *c = &r->ev[next_unkeyed];
			(*work)++;
			if (c->kind == EV_TOOL_CALL && link[next_unkeyed] < 0 && !(c->call_id && *c->call_id)) {
				link[i] = (int)next_unkeyed;
				link[next_unkeyed] = (int)i;
				next_unkeyed++;
				break;
			}
		}
	}
}

/* id: NULL (none), "" (empty: unkeyed too) or the name */
static void add(struct run *r, enum ev_kind k, const char *id)
{
	struct event *e = run_add(r, k, (int)r->nev + 1);
	e->call_id = id ? xstrdup(id) : NULL;
}

/* Whether run_link's links equal the reference's; says where not. */
static int same_as_ref(struct run *r, const char *what)
{
	int *want = xcalloc(r->nev ? r->nev : 1, sizeof *want);
	size_t work = 0;
	ref_link(r, want, &work);
	for (size_t i = 0; i < r->nev; i++) {
		if (r->ev[i].link != want[i]) {
			printf("# %s: event %zu linked to %d, the scan says %d\n", what, i, r->ev[i].link, want[i]);
			free(want);
			return 0;
		}
	}
	free(want);
	return 1;
}

/* A run from a script: C id / R id, "-" no id, "=" empty id, "." text. */
static struct run *script(const char *const *s)
{
	struct run *r = run_new();
	for (; *s; s++) {
		const char *id = (*s)[2] == '-' ? NULL : (*s)[2] == '=' ? "" : *s + 2;
		add(r, (*s)[0] == 'C' ? EV_TOOL_CALL : (*s)[0] == 'R' ? EV_TOOL_RESULT : EV_TEXT, id);
	}
	return r;
}

static void tricky(void)
{
	static const char *const dup[] = {"C a", "C a", "R a", "C a", "R a", "R a", "R a", NULL};
	static const char *const orphan[] = {"R x", "C x", ". .", "R y", "R -", "C -", "R -", NULL};
	static const char *const mixed[] = {"C -", "C =", "C k", "R =", "R -", "R k", "R -", "C -", NULL};
	static const char *const before[] = {"R a", "R a", "C a", "C a", "R a", NULL};
	static const char *const *cases[] = {dup, orphan, mixed, before};
	static const char *names[] = {"duplicate ids: oldest unanswered first",
		"results without calls; a result before its call", "no id and empty id pair in order",
		"results before any call with their id"};
	for (size_t c = 0; c < 4; c++) {
		struct run *r = script(cases[c]);
		run_link(r);
		ok(same_as_ref(r, names[c]), "%s: the pairs of the scan", names[c]);
		run_free(r);
	}
	struct run *r = script(dup);
	run_link(r);
	is_int(r->ev[2].link, 0, "a result takes the oldest of two calls with its id");
	is_int(r->ev[4].link, 1, "the next result the second");
	is_int(r->ev[5].link, 3, "then the call made after the first result");
	is_int(r->ev[6].link, -1, "a result with no call left stays unpaired");
	run_free(r);
}

/* Random runs over a few ids (NULL and "" among them), linked whole and
 * grown in random steps with run_link after each, as watch does. */
static void random_runs(void)
{
	static const char *ids[] = {NULL, "", "a", "b", "c", "toolu_1", "call_2"};
	unsigned seed = 12345;
	int whole_ok = 1, grown_ok = 1;
	for (int t = 0; t < 300; t++) {
		struct run *whole = run_new(), *grown = run_new();
		int n = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 60;
		for (int i = 0; i < n; i++) {
			unsigned x = (seed = seed * 1103515245u + 12345u) >> 16;
			enum ev_kind k = x % 5 < 2 ? EV_TOOL_CALL : x % 5 < 4 ? EV_TOOL_RESULT : EV_TEXT;
			const char *id = ids[(x >> 4) % 7];
			add(whole, k, id);
			add(grown, k, id);
			if ((x >> 8) % 4 == 0)
				run_link(grown);
		}
		run_link(whole);
		run_link(grown);
		whole_ok &= same_as_ref(whole, "random run");
		grown_ok &= same_as_ref(grown, "random run grown in steps");
		run_free(whole);
		run_free(grown);
	}
	ok(whole_ok, "300 random runs: the pairs of the scan");
	ok(grown_ok, "300 random runs linked as they grow: the pairs of the scan");
}

/* A run that shrank (the live overlay dropped) and a run cleared for a
 * reread pair from the start. */
static void shrink_and_clear(void)
{
	static const char *const s[] = {"C a", "C b", "R b", NULL};
	struct run *r = script(s);
	run_link(r);
	run_event_free(&r->ev[--r->nev]);
	run_link(r);
	add(r, EV_TOOL_RESULT, "a");
	run_link(r);
	is_int(r->ev[2].link, 0, "after events went, a new result pairs with its call");
	is_int(r->ev[1].link, -1, "and the call whose result went is unanswered again");
	run_clear(r);
	add(r, EV_TOOL_CALL, "a");
	add(r, EV_TOOL_RESULT, "a");
	run_link(r);
	is_int(r->ev[1].link, 0, "a cleared run pairs from the start");
	run_free(r);
}

/* n calls and results: a result n/4 events after its call on average,
 * fresh ids, every tenth pair without id; returns the run, linked. */
static struct run *big(size_t n, int steps)
{
	struct run *r = run_new();
	char id[32];
	size_t open = 0, done = 0;
	for (size_t i = 0; i < n; i++) {
		if (open < 64 && (i % 3 != 2 || open == 0)) {
			snprintf(id, sizeof id, "toolu_%zu", done + open);
			add(r, EV_TOOL_CALL, (done + open) % 10 ? id : NULL);
			open++;
		} else {
			snprintf(id, sizeof id, "toolu_%zu", done);
			add(r, EV_TOOL_RESULT, done % 10 ? id : NULL);
			done++;
			open--;
		}
		if (steps && i % 10 == 0)
			run_link(r);
	}
	run_link(r);
	return r;
}

static void linear(void)
{
	struct run *a = big(100000, 0), *b = big(200000, 0), *w = big(100000, 1);
	size_t pa = run_link_probes(a), pb = run_link_probes(b), pw = run_link_probes(w);
	size_t paired = 0;
	for (size_t i = 0; i < b->nev; i++)
		paired += b->ev[i].kind == EV_TOOL_RESULT && b->ev[i].link >= 0;
	printf("# probes: %zu at 100k events, %zu at 200k, %zu at 100k linked every 10 events\n", pa, pb, pw);
	ok(paired > 60000, "the synthetic run pairs its results (%zu)", paired);
	ok(pa <= 4 * a->nev, "100k events: at most 4 probes an event (%zu)", pa);
	ok(pb * 10 <= pa * 25, "twice the events, at most 2.5x the probes (%zu, %zu)", pa, pb);
	ok(pw * 10 <= pa * 11, "linked every 10 events as watch does: the work of one pairing (%zu)", pw);
	run_free(a);
	run_free(b);
	run_free(w);

	/* the scan it replaced, for the record: 4x the work per doubling */
	struct run *c = big(4000, 0), *d = big(8000, 0);
	int *l = xcalloc(8000, sizeof *l);
	size_t wc = 0, wd = 0;
	ref_link(c, l, &wc);
	ref_link(d, l, &wd);
	printf("# the scan: %zu events looked at for 4k events, %zu for 8k\n", wc, wd);
	ok(wd > 3 * wc, "the old scan is quadratic (a check that the measure can fail)");
	struct run *g = big(20000, 1);
	ok(same_as_ref(g, "20k events grown in steps"), "20k events linked as they grow: the pairs of the scan");
	run_free(g);
	free(l);
	run_free(c);
	run_free(d);
}

int main(void)
{
	tricky();
	random_runs();
	shrink_and_clear();
	linear();
	return tap_done();
}
