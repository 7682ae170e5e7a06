/* tallies.c: running sums over a run's events, for the replay's status bar. */
#include "config.h"

#include <stdlib.h>

#include "run.h"
#include "tallies.h"
#include "util.h"

void tallies_update(struct tallies *t, const struct run *run, size_t from)
{
	size_t n = run->nev;
	if (n + 1 > t->cap) {  /* the first sets the capacity, the other four follow it */
		t->in = xgrow(t->in, &t->cap, n + 1, sizeof *t->in);
		t->out = xrealloc(t->out, t->cap * sizeof *t->out);
		t->cache = xrealloc(t->cache, t->cap * sizeof *t->cache);
		t->tools = xrealloc(t->tools, t->cap * sizeof *t->tools);
		t->turns = xrealloc(t->turns, t->cap * sizeof *t->turns);
	}
	if (from > n)
		from = n;
	if (from == 0)
		t->t0 = 0;
	long long in = from ? t->in[from - 1] : 0, out = from ? t->out[from - 1] : 0;
	long long cache = from ? t->cache[from - 1] : 0;
	size_t tools = from ? t->tools[from - 1] : 0, turns = from ? t->turns[from - 1] : 0;
	t->in[n] = t->out[n] = t->cache[n] = 0;
	t->tools[n] = t->turns[n] = 0;
	for (size_t i = from; i < n; i++) {
		const struct event *e = &run->ev[i];
		if (e->kind == EV_USAGE) {
			in += e->tok_in;
			out += e->tok_out;
			cache += e->tok_cache_read + e->tok_cache_write;
		}
		tools += e->kind == EV_TOOL_CALL;
		turns += run_turn_starts(run, i);
		t->in[i] = in;
		t->out[i] = out;
		t->cache[i] = cache;
		t->tools[i] = tools;
		t->turns[i] = turns;
		if (e->ts > 0 && (t->t0 == 0 || e->ts < t->t0))
			t->t0 = e->ts;
	}
}

void tallies_free(struct tallies *t)
{
	free(t->in);
	free(t->out);
	free(t->cache);
	free(t->tools);
	free(t->turns);
	*t = (struct tallies){0};
}
