/* tallies.c: running sums over a run's events, for the replay's status
 * bar: a checkpoint every TALLY_STEP events, the events after it added
 * when a sum is asked for. */
#include "config.h"

#include <stdlib.h>

#include "run.h"
#include "tallies.h"
#include "util.h"

/* Event i of run added to s. */
static void tally_add(struct tally_sum *s, const struct run *run, size_t i)
{
	const struct event *e = &run->ev[i];
	if (e->kind == EV_USAGE) {
		s->in += e->tok_in;
		s->out += e->tok_out;
		s->cache += e->tok_cache_read + e->tok_cache_write;
	}
	s->tools += e->kind == EV_TOOL_CALL;
	s->turns += (size_t)run_turn_starts(run, i);
}

void tallies_update(struct tallies *t, const struct run *run, size_t from)
{
	size_t n = run->nev;
	if (from > n)
		from = n;
	if (from == 0)
		t->t0 = 0;
	for (size_t i = from; i < n; i++) {
		double ts = run->ev[i].ts;
		if (ts > 0 && (t->t0 == 0 || ts < t->t0))
			t->t0 = ts;
	}
	/* the checkpoints up to from's stay: they sum events before it */
	size_t k = from / TALLY_STEP, want = n / TALLY_STEP + 1;
	t->at = xgrow(t->at, &t->cap, want, sizeof *t->at);
	if (k == 0)
		t->at[0] = (struct tally_sum){ 0 };
	struct tally_sum s = t->at[k];
	for (size_t i = k * TALLY_STEP; i < n; i++) {
		tally_add(&s, run, i);
		if ((i + 1) % TALLY_STEP == 0)
			t->at[(i + 1) / TALLY_STEP] = s;
	}
	t->nat = want;
}

struct tally_sum tallies_at(const struct tallies *t, const struct run *run, size_t i)
{
	size_t k = i / TALLY_STEP;
	if (k >= t->nat)
		return (struct tally_sum){ 0 };
	struct tally_sum s = t->at[k];
	for (size_t j = k * TALLY_STEP; j <= i && j < run->nev; j++)
		tally_add(&s, run, j);
	return s;
}

void tallies_free(struct tallies *t)
{
	free(t->at);
	*t = (struct tallies){ 0 };
}
