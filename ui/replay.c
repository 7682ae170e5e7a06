/* replay.c: one run replayed, as a view (ui/view.h): the event list beside
 * a pane (detail, compiler output, GPU timing, ...) or, on a big terminal,
 * beside four (reasoning, detail, compiler output, timing), the timeline in the
 * status bar, search, jumps, playback, a feed for a growing run. Keys, the
 * playback timer and the feed's polls (tui.c's loop) change state and set
 * dirty flags; the screen is redrawn once per pass from them. This file is
 * the view: its panes, what they may ask, its keys and its feed; the screen
 * is replay_draw.c, moving replay_nav.c, the jumps replay_seek.c. A pane is
 * a row of replay_pane_ops (and of the PANE_ enum in replay.h). */
#include "config.h"

#include <curses.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "draw.h"
#include "evlink.h"
#include "flags.h"
#include "keys.h"
#include "reeval_view.h"
#include "replay.h"
#include "run.h"
#include "runstats.h"
#include "search.h"
#include "tui.h"
#include "util.h"
#include "view.h"

static const struct view_ops replay_view_ops;

static const struct pane_ops *const replay_pane_ops[PANE__COUNT] = {
	[PANE_EVENTS] = &pane_events_ops,
	[PANE_DETAIL] = &pane_detail_ops,
	[PANE_COMPILER] = &pane_compiler_ops,
	[PANE_TIMING] = &pane_timing_ops,
	[PANE_ARTIFACT] = &pane_artifact_ops,
	[PANE_LINEAGE] = &pane_lineage_ops,
	[PANE_GPU] = &pane_gpu_ops,
	[PANE_SHAPES] = &pane_shapes_ops,
	[PANE_CLAIMS] = &pane_claims_ops,
	[PANE_ANNOT] = &pane_annot_ops,
	[PANE_TIMELINE] = &pane_timeline_ops,
	[PANE_REASONING] = &pane_reasoning_ops,
};

double replay_now(void)
{
	return util_now();
}

/* ---- what the panes ask (struct pane_host) ----------------------------------- */

static struct replay *replay_of(struct pane_ctx *cx)
{
	return (struct replay *)(void *)((char *)cx - offsetof(struct replay, cx));
}

static void replay_host_say(struct pane_ctx *cx, const char *msg)
{
	view_say(&replay_of(cx)->v, msg);
}

static void replay_host_dirty(struct pane_ctx *cx, unsigned d)
{
	replay_of(cx)->v.dirty |= d;
}

static void replay_host_select(struct pane_ctx *cx, size_t ev)
{
	replay_goto(replay_of(cx), ev);
}

static void replay_host_ask(struct pane_ctx *cx, int kind)
{
	replay_prompt_open(replay_of(cx), kind);
}

static void replay_host_later(struct pane_ctx *cx, int ms)
{
	struct replay *rp = replay_of(cx);
	double at = replay_now() + ms / 1000.0;
	if (!rp->wake || at < rp->wake)
		rp->wake = at;
}

static const struct pane_host replay_host = {
	.say = replay_host_say,
	.dirty = replay_host_dirty,
	.select = replay_host_select,
	.ask = replay_host_ask,
	.later = replay_host_later,
};

/* $KBTUI_LAYOUT: "one" or "four" pane(s) whatever the terminal's size;
 * anything else (unset): by the size. */
static enum replay_layout replay_layout_env(void)
{
	const char *e = getenv("KBTUI_LAYOUT");
	if (e && !strcmp(e, "one"))
		return REPLAY_LAYOUT_ONE;
	if (e && !strcmp(e, "four"))
		return REPLAY_LAYOUT_FOUR;
	return REPLAY_LAYOUT_AUTO;
}

void replay_init(struct replay *rp, struct run *run, const char *title)
{
	memset(rp, 0, sizeof *rp);
	rp->v.ops = &replay_view_ops;
	rp->cx.host = &replay_host;
	rp->cx.run = run;
	rp->title = title;
	rp->count = -1;
	rp->search_dir = 1;
	rp->play.speed = REPLAY_SPEED_1X;
	sbuf_init(&rp->input);
	tallies_update(&rp->tally, rp->cx.run, 0);
	/* evaluated between keys (replay_poll): a big run's first screen does
	 * not wait for its flags */
	rp->cx.flags = flag_run_lazy(run, &rp->cx.flag_rules);
	rp->right = PANE_DETAIL;
	rp->layout = replay_layout_env();
	for (int p = 0; p < PANE__COUNT; p++)
		pane_init(&rp->panes[p], replay_pane_ops[p], &rp->cx);
	rp->v.dirty = D_ALL;
}

void replay_free(struct replay *rp)
{
	for (int p = 0; p < PANE__COUNT; p++)
		pane_free(&rp->panes[p]);
	tallies_free(&rp->tally);
	free(rp->feed.said);
	runstats_free(rp->stats);
	runstats_free(rp->stats_next);
	for (int i = 0; i < 4; i++)
		free(rp->head_seg[i]);
	flag_list_delete(rp->cx.flags);
	free(rp->v.msg);
	free(rp->matches);
	noise_marks_free(&rp->noise.marks);
	search_free(rp->cx.search);
	sbuf_free(&rp->input);
}


/* An action on the replay; the loop's shared keys (help, theme, the
 * annotation keys, q) are left to it, but a with a session leaves for the
 * next run without a verdict. */
/* y: the selected event's reference on the terminal's clipboard (OSC 52,
 * base64: nothing of the run id reaches the terminal raw) and, made safe,
 * in the status line. */
static void replay_copy_link(struct replay *rp)
{
	const char *id = rp->cx.run->meta.run_id ? rp->cx.run->meta.run_id : rp->title;
	char *ref = evlink_ref(id, rp->cx.sel), *osc = evlink_osc52(ref), *safe = draw_safe(ref);
	fputs(osc, stdout);
	fflush(stdout);
	char *msg = xasprintf("copied %s (kbtui %s opens it)", safe, safe);
	view_say(&rp->v, msg);
	free(msg);
	free(safe);
	free(osc);
	free(ref);
}

static unsigned replay_do(struct replay *rp, enum action a, long count)
{
	long page = rp->cx.body_h > 2 ? rp->cx.body_h - 2 : 1;
	long n = count > 0 ? count : 1;
	struct pane *side = pane_ready(&rp->panes[rp->right], &rp->cx);
	if (a == ACT_NEXT_UNANNOTATED && rp->cx.tag) {
		rp->v.result = 1;
		return VIEW_CLOSE;
	}
	if (view_shared(&rp->v, a))
		return VIEW_IGNORED;
	if (rp->cx.focus == 1 && side->ops->act && side->ops->act(side, &rp->cx, a)) {
		rp->v.dirty |= D_DETAIL;
		return 0;
	}
	if (replay_seek_key(rp, a))  /* t, e, c, m, f, n, w ... and their capitals (replay_seek.c) */
		return 0;
	switch (a) {
	case ACT_DOWN: replay_move(rp, n); break;
	case ACT_UP: replay_move(rp, -n); break;
	case ACT_PAGE_DOWN: replay_move(rp, page * n); break;
	case ACT_PAGE_UP: replay_move(rp, -page * n); break;
	case ACT_FIRST: replay_goto(rp, count > 0 ? (size_t)count - 1 : 0); break;
	case ACT_LAST: replay_goto(rp, count > 0 ? (size_t)count - 1 : rp->cx.run->nev); break;
	case ACT_PERCENT:
		if (count >= 0)
			replay_percent(rp, count);
		else
			replay_prompt_open(rp, '%');
		break;
	case ACT_SEARCH: replay_prompt_open(rp, '/'); break;
	case ACT_SEARCH_BACK: replay_prompt_open(rp, '?'); break;
	case ACT_PLAY: replay_play(rp, !rp->play.on); break;
	case ACT_FASTER: replay_speed(rp, 1); break;
	case ACT_SLOWER: replay_speed(rp, -1); break;
	case ACT_GOTO_ROW: replay_goto_row(rp); break;
	case ACT_HIDE_NOISE: replay_noise(rp); break;
	case ACT_FOCUS: replay_focus_next(rp); break;
	case ACT_LAYOUT: replay_layout_key(rp); break;
	case ACT_PANE: replay_side(rp, 1); break;
	case ACT_PANE_BACK: replay_side(rp, -1); break;
	case ACT_LINEAGE_DIFF: pane_lineage_mark(pane_ready(&rp->panes[PANE_LINEAGE], &rp->cx), &rp->cx); break;
	case ACT_LINEAGE_FINAL: pane_lineage_final(pane_ready(&rp->panes[PANE_LINEAGE], &rp->cx), &rp->cx); break;
	case ACT_REEVAL: {
		struct view *ov = reeval_view_new(&rp->v, &rp->cx);  /* over the side pane, a view of its own */
		return ov ? view_push(&rp->v, ov) : 0;
	}
	case ACT_COPY_LINK: replay_copy_link(rp); break;
	case ACT_SUGGEST_ACCEPT:
	case ACT_SUGGEST_REJECT:
		pane_annot_decide(pane_ready(&rp->panes[PANE_ANNOT], &rp->cx), &rp->cx, a == ACT_SUGGEST_ACCEPT);
		break;
	case ACT_ZOOM:
		rp->zoom = !rp->zoom;
		rp->v.dirty = D_ALL;
		erase();
		break;
	case ACT_WIDER:
	case ACT_NARROWER:
		rp->list_adjust += a == ACT_WIDER ? 4 : -4;
		if (rp->list_adjust > COLS)
			rp->list_adjust = COLS;
		if (rp->list_adjust < -COLS)
			rp->list_adjust = -COLS;
		rp->v.dirty = D_ALL;
		erase();
		break;
	default:
		break;
	}
	return 0;
}

/* ---- a growing run (watch, live) ------------------------------------------------ */

/* The run changed under the replay: sums, panes and matches follow it; the
 * selection stays on the last event when it was there (tail), else where
 * the user put it. old_n: events before the poll (0: read again from the
 * start, no event is as it was). */
static void replay_grew(struct replay *rp, size_t old_n, int tail, int was_incomplete)
{
	struct run *run = rp->cx.run;
	size_t n = run->nev;
	size_t from = n < old_n ? 0 : old_n ? old_n - 1 : 0;  /* the last old event may have grown */
	if (from == 0) {  /* read again from the start: statistics being made are of another run */
		runstats_free(rp->stats_next);
		rp->stats_next = NULL;
	}
	tallies_update(&rp->tally, rp->cx.run, from);
	rp->cx.flags = flag_run_update(rp->cx.flags, run, from, &rp->cx.flag_rules);  /* only what changed */
	for (int p = 0; p < PANE__COUNT; p++)
		pane_grow(&rp->panes[p], &rp->cx, from);
	if (rp->cx.search)  /* the matches before from stay */
		rp->cx.nmatches = search_events_more(rp->cx.search, run, from, &rp->matches, rp->cx.nmatches);
	if (rp->noise.on)
		replay_noise_make(rp, from);
	if (rp->cx.sel >= n)
		rp->cx.sel = n ? n - 1 : 0;
	if (tail && n)
		replay_goto(rp, n - 1);
	if (run->incomplete != was_incomplete) {  /* the banner row may come or go */
		erase();
		rp->v.dirty = D_ALL;
	}
	rp->v.dirty |= D_HEADER | D_LIST | D_DETAIL | D_STATUS;
}

/* Asks the feed what arrived; redraws only what that changed. */
static void replay_feed_poll(struct replay *rp)
{
	struct replay_feed *f = rp->feed.f;
	size_t old_n = rp->cx.run->nev;
	int was_incomplete = rp->cx.run->incomplete;
	int tail = f->keep_place ? old_n > 1 && rp->cx.sel + 1 >= old_n : old_n == 0 || rp->cx.sel + 1 >= old_n;
	int rc = f->poll(f, rp->cx.run);
	unsigned restarts = f->restarts ? f->restarts(f) : 0;
	if (restarts != rp->feed.restarts) {  /* read again from the start: no event is as it was */
		rp->feed.restarts = restarts;
		old_n = 0;
	}
	rp->feed.due = replay_now() + (f->interval_ms > 0 ? f->interval_ms : 100) / 1000.0;
	if (rc < 0)
		rp->feed.ended = 1;
	if (f->stream)  /* before the growth, so that the list's tail shows it */
		rp->cx.stream = f->stream(f, &rp->cx.nstream);
	if (rc != 0)
		replay_grew(rp, old_n, tail, was_incomplete);
	int want = f->pane ? f->pane(f) : -1;
	if (rp->four && want > PANE_EVENTS && want < PANE__COUNT) {
		rp->one_right = want;  /* shown already, or when = goes back to one pane */
	} else if (want > PANE_EVENTS && want < PANE__COUNT && want != rp->right) {
		rp->right = want;
		rp->v.dirty = D_ALL;
		erase();
	}
	const char *said = f->status ? f->status(f) : NULL;
	char *safe = said ? draw_safe(said) : NULL;
	if (!safe != !rp->feed.said || (safe && strcmp(safe, rp->feed.said))) {
		free(rp->feed.said);
		rp->feed.said = safe;
		rp->v.dirty |= D_STATUS;
	} else {
		free(safe);
	}
}

/* A key the replay has no use for, offered to the feed; 1: taken. */
static int replay_feed_key(struct replay *rp, const struct key *k)
{
	if (!rp->feed.f || !rp->feed.f->act || !rp->feed.f->act(rp->feed.f, &rp->v, k))
		return 0;
	rp->v.dirty |= D_LIST | D_DETAIL | D_STATUS;
	return 1;
}

/* Milliseconds until due, 0 when it is past. */
static int replay_wait_ms(double due)
{
	int ms = (int)((due - replay_now()) * 1000) + 1;
	return ms < 0 ? 0 : ms;
}

/* The feed's next poll and the playback timer when due, a running
 * re-evaluation; *ms: the wait until the next of them (-1: none, and the
 * loop sleeps until a key comes). */
static unsigned replay_poll(struct view *v, int *msp)
{
	struct replay *rp = (struct replay *)v;
	int ms = -1;
	if (rp->feed.f && !rp->feed.ended && rp->feed.due - replay_now() <= 0)
		replay_feed_poll(rp);
	if (rp->feed.f && rp->feed.ended && rp->feed.f->close_on_end) {
		v->result = REPLAY_AT_END;
		return VIEW_CLOSE;
	}
	/* a wait already over (the poll's own growth took longer than the
	 * feed's interval) is no wait: -1 would block until a key, and the
	 * lesser of it and another's wait would be the other's */
	if (rp->feed.f && !rp->feed.ended)
		ms = replay_wait_ms(rp->feed.due);
	if (rp->play.on && rp->play.due - replay_now() <= 0)
		replay_tick(rp);
	if (rp->play.on && (ms < 0 || replay_wait_ms(rp->play.due) < ms))
		ms = replay_wait_ms(rp->play.due);
	if (rp->cx.flags && rp->cx.run->nev && !flag_list_known(rp->cx.flags, rp->cx.run->nev - 1)) {
		/* the next flags in slices, so that a key waits for one slice at most */
		if (flag_list_advance(rp->cx.flags, rp->cx.run, 5000) > 0)
			ms = 0;
		pane_invalidate(&rp->panes[PANE_DETAIL]);
		rp->v.dirty |= D_LIST | D_DETAIL;
	}
	if (rp->stats && rp->stats->nev != rp->cx.run->nev) {  /* the header's statistics lag the run */
		if (replay_stats_due(rp))
			rp->v.dirty |= D_HEADER;
		int left = (int)((rp->stats_at + REPLAY_STATS_S - replay_now()) * 1000) + 1;
		if (left < 1)  /* due now: drawn after this poll (no spin if the header is not shown) */
			left = 100;
		if (ms < 0 || left < ms)
			ms = left;
	}
	if (rp->deferred && rp->painted) {  /* the first screen is out: now what it left */
		rp->deferred = 0;
		rp->v.dirty |= D_HEADER | D_DETAIL;
		ms = 0;
	}
	if (rp->wake && rp->wake - replay_now() <= 0) {  /* a pane's remake put off is due */
		rp->wake = 0;
		for (int p = 0; p < PANE__COUNT; p++)
			pane_invalidate(&rp->panes[p]);
		rp->v.dirty |= D_DETAIL;
	}
	if (rp->wake && (ms < 0 || replay_wait_ms(rp->wake) < ms))
		ms = replay_wait_ms(rp->wake);
	if (rp->right == PANE_GPU && v->idle)
		rp->v.dirty |= D_DETAIL;  /* the GPU pane shows readings of now */
	v->idle = 0;
	if (rp->right == PANE_GPU && (ms < 0 || ms > 1000))
		ms = 1000;
	*msp = ms < 0 ? -1 : ms;
	return 0;
}

/* A key (the loop cleared the message and took resize and the mouse). */
static unsigned replay_view_key(struct view *v, const struct key *k)
{
	struct replay *rp = (struct replay *)v;
	if (rp->prompt) {
		replay_prompt_key(rp, k);
		return 0;
	}
	enum action a = keys_action(k->code, V_REPLAY);
	if ((a == ACT_NONE || a == ACT_LIVE_PAUSE || a == ACT_LIVE_MESSAGE || a == ACT_LIVE_ABORT) &&
	    replay_feed_key(rp, k))
		return 0;
	if (a == ACT_LAST && rp->count < 0 && rp->feed.f && rp->feed.f->last && !rp->feed.ended) {
		struct view *end = rp->feed.f->last(rp->feed.f, &rp->v);
		if (end)
			return view_push(&rp->v, end);
	}
	if (a == ACT_COUNT) {
		if (rp->count < 100000000)
			rp->count = (rp->count < 0 ? 0 : rp->count * 10) + (k->code - '0');
		rp->v.dirty |= D_STATUS;
		return 0;
	}
	long count = rp->count;
	if (count >= 0) {
		rp->count = -1;
		rp->v.dirty |= D_STATUS;
	}
	return replay_do(rp, a, count);
}

void replay_key(struct replay *rp, const struct key *k)
{
	tui_key(&rp->v, k);
}

/* A view over the replay closed: the end of a big file (ui/pager.c),
 * closed because the read from the start reached it, leaves the replay on
 * its last event, as G would have. */
static unsigned replay_resume(struct view *v, struct view *child)
{
	struct replay *rp = (struct replay *)v;
	if (child->result == REPLAY_AT_END && rp->cx.run->nev)
		replay_goto(rp, rp->cx.run->nev - 1);
	return 0;
}

/* The terminal's new size: every pane lays out again. */
static void replay_resize(struct view *v)
{
	struct replay *rp = (struct replay *)v;
	for (int p = 0; p < PANE__COUNT; p++)
		pane_invalidate(&rp->panes[p]);
}

static long replay_tag_run(struct view *v, struct tag **tag)
{
	struct replay *rp = (struct replay *)v;
	*tag = rp->cx.tag;
	return rp->cx.tag ? (long)rp->cx.ds_run : -1;
}

/* q leaves, unless the feed keeps the screen (eval --tui asks before it
 * stops the loop). The prompt and R's overlay took q before this. */
static int replay_quits(struct view *v)
{
	struct replay *rp = (struct replay *)v;
	if (rp->feed.f && rp->feed.f->quit && !rp->feed.f->quit(rp->feed.f)) {
		rp->v.dirty = D_ALL;
		return 0;
	}
	return 1;
}

static void replay_view_draw(struct view *v)
{
	replay_draw((struct replay *)v);
}

static void replay_draw_over(struct view *v, void (*paint)(void *arg, int y, int x, int w, int h), void *arg)
{
	replay_paint((struct replay *)v, paint, arg);
}

/* The status line's prompt takes every key. */
static int replay_typing(struct view *v)
{
	return ((struct replay *)v)->prompt != 0;
}

static void replay_view_free(struct view *v)
{
	replay_free((struct replay *)v);
	free(v);
}

static const struct view_ops replay_view_ops = {
	.name = "replay",
	.keys = V_REPLAY,
	.common = VIEW_HAS_HELP | VIEW_HAS_THEME | VIEW_HAS_REDRAW | VIEW_HAS_TAG | VIEW_HAS_QUIT,
	.margin = "",
	.draw = replay_view_draw,
	.draw_over = replay_draw_over,
	.typing = replay_typing,
	.key = replay_view_key,
	.poll = replay_poll,
	.mouse = replay_mouse,
	.resize = replay_resize,
	.resume = replay_resume,
	.frame = replay_frame,
	.tag_run = replay_tag_run,
	.quits = replay_quits,
	.free = replay_view_free,
};

struct view *replay_view_new(struct run *run, const char *title, const struct replay_opts *o)
{
	struct replay *rp = xmalloc(sizeof *rp);
	replay_init(rp, run, title);
	rp->cx.tag = o->tag;
	rp->cx.ds_run = o->ds_run;
	rp->feed.f = o->feed;  /* its first poll is due at once (feed.due 0) */
	if (o->pattern && *o->pattern)
		replay_search_set(rp, o->pattern, 1);
	/* a growing run opens on its tail */
	replay_goto(rp, o->feed && !o->feed->keep_place && run->nev ? run->nev - 1 : o->ev);
	view_say(&rp->v, NULL);  /* where the search stepped to is not news: the event is shown */
	rp->v.dirty = D_ALL;
	return &rp->v;
}

int replay_open(struct run *run, const char *title, const struct replay_opts *o)
{
	return tui_run(replay_view_new(run, title, o));
}

void replay_run_feed(struct run *run, const char *title, struct replay_feed *feed)
{
	struct replay_opts o = { .feed = feed };
	replay_open(run, title, &o);
}
