/* tallies.c: running sums over a run's events, for the replay's status bar. */
#include "config.h"

#include <stdlib.h>

#include "run.h"
#include "tallies.h"
#include "util.h"

void tallies_update(struct tallies *t, const struct run *run, size_t from)
{
	size_t n = run->nev;
	if (n + 1 > t->cap) {  /* all five to one capacity */
		size_t c = t->cap;
		t->in = xgrow(t->in, &c, n + 1, sizeof *t->in);
		c = t->cap;
		t->out = xgrow(t->out, &c, n + 1, sizeof *t->out);
		c = t->cap;
		t->cache = xgrow(t->cache, &c, n + 1, sizeof *t->cache);
		c = t->cap;
		t->tools = xgrow(t->tools, &c, n + 1, sizeof *t->tools);
		c = t->cap;
		t->turns = xgrow(t->turns, &c, n + 1, sizeof *t->turns);
		t->cap = c;
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
