/* replay_nav.c: moving in the replay: the selection (goto, rows, percent),
 * the noise s hides, the search and the status line's prompt, playback,
 * the panes' focus and layout keys, the mouse. */
#include "config.h"

#include <curses.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "draw.h"
#include "keys.h"
#include "mouse.h"
#include "noise.h"
#include "replay.h"
#include "run.h"
#include "search.h"
#include "tlines.h"
#include "util.h"
#include "view.h"

/* Playback speeds; 1x is real time where the transcript has timestamps,
 * else REPLAY_RATE events a second. */
const double replay_speeds[] = { 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128 };
#define REPLAY_NSPEEDS (sizeof replay_speeds / sizeof replay_speeds[0])
#define REPLAY_RATE 2.0
/* A long gap (a compile, a benchmark, the model thinking) plays in at most
 * this many seconds, so playback never looks stuck. */
#define REPLAY_MAX_GAP 3.0

/* ---- moving ------------------------------------------------------------------ */

/* s: the noise (src/noise.h) of the whole run, found again (the run may
 * have grown), hidden from the list. */
void replay_noise_make(struct replay *rp, size_t from)
{
	struct noise_marks *m = &rp->noise.marks;
	noise_marks_update(m, rp->cx.run, from);
	rp->cx.shown = m->nshown ? m->shown : NULL;  /* nothing but noise: nothing hidden */
	rp->cx.nshown = m->nshown;
	rp->cx.nhidden = m->nshown ? m->nhidden : 0;
	rp->v.dirty |= D_LIST | D_DETAIL | D_STATUS;
}

/* s: noise hidden, or shown again; the selection stays, or moves to the
 * nearest shown event. */
void replay_noise(struct replay *rp)
{
	rp->noise.on = !rp->noise.on;
	if (rp->noise.on) {
		replay_noise_make(rp, 0);  /* (not kept up while off) */
	} else {
		rp->cx.shown = NULL;
		rp->cx.nshown = rp->cx.nhidden = 0;
	}
	char *m = !rp->noise.on ? xstrdup("every event shown")
	          : rp->cx.shown ? xasprintf("%zu usage, system and read-only events hidden (s shows them)",
	                                     rp->cx.nhidden)
	                         : xstrdup("nothing to hide: every event is usage, system or read-only");
	view_say(&rp->v, m);
	free(m);
	replay_goto(rp, rp->cx.sel);
}

void replay_goto(struct replay *rp, size_t i)
{
	size_t n = rp->cx.run->nev;
	if (!n)
		return;
	if (i >= n)
		i = n - 1;
	rp->cx.sel = pane_events_near(&rp->cx, i);
	for (int p = 0; p < PANE__COUNT; p++)
		if (rp->panes[p].ready && rp->panes[p].ops->follow && !rp->panes[p].ops->per_event)
			rp->panes[p].ops->follow(&rp->panes[p], &rp->cx);
	rp->v.dirty |= D_LIST | D_DETAIL | D_STATUS;
}

/* Moves the selection by delta rows of the list (events, or those s shows). */
void replay_move(struct replay *rp, long delta)
{
	long i = (long)pane_events_row_of(&rp->cx, rp->cx.sel) + delta;
	replay_goto(rp, pane_events_at(&rp->cx, i < 0 ? 0 : (size_t)i));
}

void replay_percent(struct replay *rp, long pct)
{
	size_t n = rp->cx.run->nev;
	if (!n)
		return;
	if (pct > 100)
		pct = 100;
	if (pct < 0)
		pct = 0;
	replay_goto(rp, (size_t)(((double)(n - 1) * (double)pct) / 100.0 + 0.5));
}

/* ---- search ------------------------------------------------------------------ */

void replay_search_set(struct replay *rp, const char *pattern, int dir)
{
	char *err = NULL;
	rp->search_dir = dir;
	if (*pattern || !rp->cx.search) {
		struct search *s = search_new(pattern, &err);
		if (!s) {
			char *e = draw_safe(err);
			char *m = xasprintf("bad regular expression: %s", e);
			view_say(&rp->v, m);
			free(m);
			free(e);
			free(err);
			return;
		}
		search_free(rp->cx.search);
		free(rp->matches);
		rp->cx.search = s;
		rp->cx.nmatches = search_events(s, rp->cx.run, &rp->matches);
	}
	for (int p = 0; p < PANE__COUNT; p++)
		pane_invalidate(&rp->panes[p]);
	rp->v.dirty |= D_LIST | D_DETAIL | D_STATUS;
	replay_seek_match(rp, dir);
}

/* ---- the prompt ---------------------------------------------------------------- */

void replay_prompt_open(struct replay *rp, int kind)
{
	rp->prompt = kind;
	sbuf_reset(&rp->input);
	rp->v.dirty |= D_STATUS;
}

static void replay_prompt_done(struct replay *rp)
{
	int kind = rp->prompt;
	char *text = xstrdup(rp->input.s ? rp->input.s : "");
	rp->prompt = 0;
	rp->v.dirty |= D_STATUS;
	if (kind == '%') {
		char *end;
		long v = strtol(text, &end, 10);
		if (end == text || *end)
			view_say(&rp->v, "a percentage is a number from 0 to 100");
		else
			replay_percent(rp, v);
	} else if (kind == 'Q') {
		pane_artifact_label(pane_ready(&rp->panes[PANE_ARTIFACT], &rp->cx), &rp->cx, text);
	} else {
		replay_search_set(rp, text, kind == '/' ? 1 : -1);
	}
	free(text);
}

/* A key while the prompt is open. */
void replay_prompt_key(struct replay *rp, const struct key *k)
{
	rp->v.dirty |= D_STATUS;
	if (!k->fn && (k->ch == '\n' || k->ch == '\r')) {
		replay_prompt_done(rp);
	} else if (!k->fn && k->ch == 27) {
		if (rp->prompt == 'Q')
			pane_artifact_label(pane_ready(&rp->panes[PANE_ARTIFACT], &rp->cx), &rp->cx, NULL);
		rp->prompt = 0;
	} else if ((k->fn && k->ch == KEY_BACKSPACE) || (!k->fn && (k->ch == 127 || k->ch == 8))) {
		size_t len = rp->input.len;
		if (!len) {
			rp->prompt = 0;
			return;
		}
		while (len > 0 && ((unsigned char)rp->input.s[len - 1] & 0xC0) == 0x80)
			len--;
		if (len > 0)
			len--;
		rp->input.len = len;
		rp->input.s[len] = '\0';
	} else if (!k->fn && k->ch >= 0x20 && k->ch != 0x7F && rp->input.len < 1024) {
		char mb[MB_LEN_MAX];
		mbstate_t st;
		memset(&st, 0, sizeof st);
		size_t m = wcrtomb(mb, (wchar_t)k->ch, &st);
		if (m != (size_t)-1)
			sbuf_add(&rp->input, mb, m);
	}
}

/* ---- playback ------------------------------------------------------------------ */

/* Seconds to wait before the event after sel, at the current speed. */
static double replay_gap(const struct replay *rp)
{
	double speed = replay_speeds[rp->play.speed];
	size_t i = rp->cx.sel;
	if (rp->tally.t0 && i + 1 < rp->cx.run->nev) {
		double a = rp->cx.run->ev[i].ts, b = rp->cx.run->ev[i + 1].ts;
		if (a > 0 && b >= a) {
			/* events of one message share a timestamp: still a visible step */
			double g = (b - a) / speed, floor = 0.1 / speed;
			return g > REPLAY_MAX_GAP ? REPLAY_MAX_GAP : g < floor ? floor : g;
		}
	}
	return 1.0 / (REPLAY_RATE * speed);
}

void replay_play(struct replay *rp, int on)
{
	rp->play.on = on && rp->cx.run->nev > 0;
	if (rp->play.on && rp->cx.sel + 1 >= rp->cx.run->nev)
		replay_goto(rp, 0);  /* at the end, play from the start */
	rp->play.due = replay_now() + (rp->play.on ? replay_gap(rp) : 0);
	rp->v.dirty |= D_STATUS;
}

/* Called when the timer is due: one event on. */
void replay_tick(struct replay *rp)
{
	size_t rows = pane_events_rows(&rp->cx);
	if (pane_events_row_of(&rp->cx, rp->cx.sel) + 1 >= rows) {
		rp->play.on = 0;
		view_say(&rp->v, "end of the run");
		return;
	}
	replay_move(rp, 1);
	rp->play.due = replay_now() + replay_gap(rp);
}

void replay_speed(struct replay *rp, int delta)
{
	int s = rp->play.speed + delta;
	if (s < 0 || s >= (int)REPLAY_NSPEEDS)
		return;
	rp->play.speed = s;
	if (rp->play.on)
		rp->play.due = replay_now() + replay_gap(rp);
	char buf[64];
	snprintf(buf, sizeof buf, "speed %gx%s", replay_speeds[s], rp->tally.t0 ? "" : " (no timestamps: 2 events/s at 1x)");
	view_say(&rp->v, buf);
}

/* ---- keys ---------------------------------------------------------------------- */

/* = : four panes or one, whatever the terminal's size from now on. */
void replay_layout_key(struct replay *rp)
{
	rp->layout = rp->four ? REPLAY_LAYOUT_ONE : REPLAY_LAYOUT_FOUR;
	rp->zoom = 0;
	replay_layout(rp);
	view_say(&rp->v, rp->four ? "four panes: reasoning, tool call, compiler output, timing (= one pane)"
	                          : "one pane beside the list: v switches it (= four panes)");
	rp->v.dirty = D_ALL;
	erase();
}

/* v and V: the next pane beside the list; four panes go back to one first
 * (the focused one, or the one it had). */
void replay_side(struct replay *rp, int delta)
{
	if (rp->four) {
		rp->layout = REPLAY_LAYOUT_ONE;
		replay_layout(rp);
	}
	int n = PANE__COUNT - 1;  /* every pane but the list */
	rp->right = (rp->right - 1 + delta + n) % n + 1;
	rp->v.dirty = D_ALL;
	erase();
}

/* Enter in a whole-run pane: the event of its top row. */
void replay_goto_row(struct replay *rp)
{
	struct pane *p = pane_ready(&rp->panes[rp->right], &rp->cx);
	size_t ev = rp->cx.focus == 1 && !p->ops->per_event ? pane_top_event(p) : TLINE_NO_EVENT;
	if (ev == TLINE_NO_EVENT)
		return;
	replay_goto(rp, ev);
}

/* Tab: the list, then each pane shown beside it, then the list again. */
void replay_focus_next(struct replay *rp)
{
	int k = 0;
	if (!rp->four || rp->zoom) {
		rp->cx.focus = !rp->cx.focus;
	} else if (rp->cx.focus == 0) {
		rp->cx.focus = 1;
		rp->right = replay_four_panes[0];
	} else {
		while (k < 4 && replay_four_panes[k] != rp->right)
			k++;
		if (k + 1 < 4)
			rp->right = replay_four_panes[k + 1];
		else
			rp->cx.focus = 0;
	}
	rp->v.dirty |= rp->zoom ? D_ALL : D_LIST | D_DETAIL;
}

/* The pane of the layout under column x, row y of the body beside the
 * list (the four panes: the one there; else the pane beside the list). */
static int replay_pane_at(const struct replay *rp, int x, int y)
{
	if (!rp->four || rp->zoom)
		return rp->right;
	for (int k = 0; k < 4; k++) {
		int ry, rx, rw, rh;
		replay_four_rect(rp, k, &ry, &rx, &rw, &rh);
		if (x >= rx && x <= rx + rw && y >= ry && y < ry + rh)  /* the rule after it counts as its */
			return replay_four_panes[k];
	}
	return rp->right;
}

/* Focus on the list (0) or the pane beside it (1). */
static void replay_focus(struct replay *rp, int focus)
{
	if (rp->cx.focus == focus)
		return;
	rp->cx.focus = focus;
	rp->v.dirty |= rp->zoom ? D_ALL : D_LIST | D_DETAIL;
}

/* The wheel scrolls the list or the pane under the pointer; a click
 * selects the event under it, or gives the pane it is in the focus. */
unsigned replay_mouse(struct view *v, const struct mouse_event *mp)
{
	struct replay *rp = (struct replay *)v;
	struct mouse_event m = *mp;
	int step = m.kind == MOUSE_WHEEL_DOWN ? MOUSE_WHEEL_ROWS : -MOUSE_WHEEL_ROWS;
	if (rp->prompt || m.kind == MOUSE_NONE || m.y < rp->body_y || m.y >= rp->body_y + rp->cx.body_h)
		return 0;
	int in_list = rp->list_w > 0 && m.x < rp->list_w, in_side = rp->cx.side_w > 0 && m.x >= rp->side_x;
	int at = in_side ? replay_pane_at(rp, m.x, m.y) : rp->right;
	struct pane *side = pane_ready(&rp->panes[at], &rp->cx);
	if (m.kind == MOUSE_CLICK && in_list) {
		size_t r = rp->panes[PANE_EVENTS].top + (size_t)(m.y - rp->body_y - 1);
		replay_focus(rp, 0);
		if (m.y > rp->body_y && r < pane_events_rows(&rp->cx))  /* not the header row */
			replay_goto(rp, pane_events_at(&rp->cx, r));
	} else if (m.kind == MOUSE_CLICK && in_side) {
		if (at != rp->right) {
			rp->right = at;
			rp->v.dirty |= D_DETAIL;
		}
		replay_focus(rp, 1);
	} else if (in_list) {
		replay_move(rp, step);
	} else if (in_side && side->ops->act) {
		for (int k = 0; k < MOUSE_WHEEL_ROWS; k++)
			side->ops->act(side, &rp->cx, step > 0 ? ACT_DOWN : ACT_UP);
		rp->v.dirty |= D_DETAIL;
	}
	return 0;
}
