/* replay_seek.c: the replay's jumps. Every "next X" and "previous X" key
 * is one row of replay_jumps: the keys, a predicate over an event, what to
 * say when no event after (or before) this one has it. One loop,
 * replay_seek, walks the events for all of them; adding a jump is adding a
 * row. The jumps that are not a walk (w: the best result, Q outside the
 * artifact pane) are rows with their own go. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "draw.h"
#include "flags.h"
#include "keys.h"
#include "replay.h"
#include "run.h"
#include "search.h"
#include "util.h"
#include "view.h"

struct replay_jump {
	enum action next, prev;  /* the keys forward and back (prev: ACT_NONE, none) */
	/* What the row looks for ("tool call"): "no tool call after this one". */
	const char *what;
	/* Event i is one (i is shown: the loop skips those s hides). */
	int (*is)(struct replay *rp, size_t i);
	/* Before the walk: 0 when there is nothing to look for (it said why). NULL: always. */
	int (*ready)(struct replay *rp);
	int wrap;                /* past the last event go on at the first, once (vi's n) */
	int by_search;           /* forward is the search's direction (n after ?: back) */
	void (*after)(struct replay *rp);  /* after a jump; NULL: nothing */
	/* A jump that is not a walk: does it all (is, ready, wrap unused). */
	void (*go)(struct replay *rp, int dir);
};

static int replay_is_call(struct replay *rp, size_t i)
{
	return rp->cx.run->ev[i].kind == EV_TOOL_CALL;
}

static int replay_is_error(struct replay *rp, size_t i)
{
	const struct event *e = &rp->cx.run->ev[i];
	return e->kind == EV_ERROR || (e->kind == EV_TOOL_RESULT && e->is_error);
}

/* The pane p has something of its own at event i (a compiler error, a timing). */
static int replay_pane_has(struct replay *rp, int pane, size_t i)
{
	struct pane *p = pane_ready(&rp->panes[pane], &rp->cx);
	return p->ops->has && p->ops->has(p, i);
}

static int replay_is_compile(struct replay *rp, size_t i)
{
	return replay_pane_has(rp, PANE_COMPILER, i);
}

static int replay_is_bench(struct replay *rp, size_t i)
{
	return replay_pane_has(rp, PANE_TIMING, i);
}

static int replay_is_flagged(struct replay *rp, size_t i)
{
	return rp->cx.flags && flag_list_find(rp->cx.flags, i);
}

/* The flags not evaluated yet, evaluated now (a seek needs them all). */
static int replay_flags_all(struct replay *rp)
{
	if (rp->cx.flags && rp->cx.run->nev && !flag_list_known(rp->cx.flags, rp->cx.run->nev - 1)) {
		flag_list_advance(rp->cx.flags, rp->cx.run, (size_t)-1);
		pane_invalidate(&rp->panes[PANE_DETAIL]);
		rp->v.dirty |= D_LIST | D_DETAIL;
	}
	return 1;
}

/* Event i has a judge's suggestion (the annotation pane lists them). */
static int replay_is_suggested(struct replay *rp, size_t i)
{
	return replay_pane_has(rp, PANE_ANNOT, i);
}

static int replay_suggested_ready(struct replay *rp)
{
	return pane_annot_suggested_ready(pane_ready(&rp->panes[PANE_ANNOT], &rp->cx), &rp->cx);
}

/* Event i matches the search (rp->matches is sorted). */
static int replay_is_match(struct replay *rp, size_t i)
{
	size_t lo = 0, hi = rp->cx.nmatches;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rp->matches[mid] < i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rp->cx.nmatches && rp->matches[lo] == i;
}

/* A search was made and matched something. */
static int replay_search_ready(struct replay *rp)
{
	if (!rp->cx.search) {
		view_say(&rp->v, "no search yet: / searches forward, ? backward");
		return 0;
	}
	if (!rp->cx.nmatches) {
		char *pat = draw_safe(search_pattern(rp->cx.search));
		char *m = xasprintf("pattern not found: %s", pat);
		view_say(&rp->v, m);
		free(m);
		free(pat);
		return 0;
	}
	return 1;
}

/* The detail pane marks the matches in the event it shows. */
static void replay_search_after(struct replay *rp)
{
	pane_invalidate(&rp->panes[PANE_DETAIL]);
}

static void replay_go_best(struct replay *rp, int dir)
{
	(void)dir;
	pane_lineage_best(&rp->cx);
}

/* Q reaches the replay only when the artifact pane did not take it: a
 * quote of the selected event's decoded text, with the lines it came from. */
static void replay_go_quote(struct replay *rp, int dir)
{
	(void)dir;
	pane_artifact_quote_event(pane_ready(&rp->panes[PANE_ARTIFACT], &rp->cx), &rp->cx);
}

static const struct replay_jump replay_jumps[] = {
	{ ACT_NEXT_TOOL, ACT_PREV_TOOL, "tool call", .is = replay_is_call },
	{ ACT_NEXT_ERROR, ACT_PREV_ERROR, "error", .is = replay_is_error },
	{ ACT_NEXT_COMPILE, ACT_PREV_COMPILE, "compiler error", .is = replay_is_compile },
	{ ACT_NEXT_BENCH, ACT_PREV_BENCH, "benchmark output", .is = replay_is_bench },
	{ ACT_NEXT_FLAG, ACT_PREV_FLAG, "flagged event", .is = replay_is_flagged, .ready = replay_flags_all },
	{ ACT_NEXT_SUGGESTED, ACT_NONE, "judge's suggestion", .is = replay_is_suggested, .ready = replay_suggested_ready,
	  .wrap = 1 },
	{ ACT_NEXT_MATCH, ACT_PREV_MATCH, "match", .is = replay_is_match, .ready = replay_search_ready, .wrap = 1,
	  .by_search = 1, .after = replay_search_after },
	{ ACT_BEST, ACT_NONE, "best result", .go = replay_go_best },
	{ ACT_QUOTE, ACT_NONE, "quote", .go = replay_go_quote },
};
#define REPLAY_NJUMPS (sizeof replay_jumps / sizeof replay_jumps[0])

/* The first shown event that j looks for, from sel in direction dir, sel
 * excluded; with wrap, on from the other end up to sel included (vi's n
 * with one match: the match). Sets *wrapped when it went round. */
static int replay_seek_find(struct replay *rp, const struct replay_jump *j, int dir, size_t *at, int *wrapped)
{
	size_t n = rp->cx.run->nev, sel = rp->cx.sel;
	*wrapped = 0;
	size_t ahead = n ? (dir > 0 ? n - 1 - sel : sel) : 0;  /* events before the end in direction dir */
	for (size_t step = 1; n && step <= (j->wrap ? n : ahead); step++) {
		size_t i = dir > 0 ? (sel + step) % n : (sel + n - step % n) % n;
		if (step > ahead)
			*wrapped = 1;
		if (!pane_events_hidden(&rp->cx, i) && j->is(rp, i)) {
			*at = i;
			return 1;
		}
	}
	return 0;
}

/* The one loop of every walking jump: to the next (dir 1) or previous (-1)
 * event j looks for, or a word that there is none. */
static void replay_seek(struct replay *rp, const struct replay_jump *j, int dir)
{
	size_t at;
	int wrapped;
	if (j->go) {
		j->go(rp, dir);
		return;
	}
	if (j->ready && !j->ready(rp))
		return;
	if (!replay_seek_find(rp, j, dir, &at, &wrapped)) {
		char *m = j->wrap ? xasprintf("every %s is hidden (s shows them)", j->what)
		                  : xasprintf("no %s %s this one", j->what, dir > 0 ? "after" : "before");
		view_say(&rp->v, m);
		free(m);
		return;
	}
	if (wrapped)
		view_say(&rp->v, dir > 0 ? "search hit the end, continuing at the start"
		                         : "search hit the start, continuing at the end");
	replay_goto(rp, at);
	if (j->after)
		j->after(rp);
}

int replay_seek_key(struct replay *rp, enum action a)
{
	for (size_t k = 0; k < REPLAY_NJUMPS; k++) {
		const struct replay_jump *j = &replay_jumps[k];
		if (a != j->next && (a != j->prev || j->prev == ACT_NONE))
			continue;
		int dir = a == j->next ? 1 : -1;
		replay_seek(rp, j, j->by_search ? dir * rp->search_dir : dir);
		return 1;
	}
	return 0;
}

void replay_seek_match(struct replay *rp, int dir)
{
	for (size_t k = 0; k < REPLAY_NJUMPS; k++)
		if (replay_jumps[k].next == ACT_NEXT_MATCH)
			replay_seek(rp, &replay_jumps[k], dir);
}
