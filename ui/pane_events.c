/* pane_events.c: the event list: one row per event (index, kind, tool name,
 * first line), the selected event as a bar; with s, only the events the
 * view shows (cx->shown: noise hidden). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "evstyle.h"
#include "flags.h"
#include "pane.h"
#include "run.h"
#include "theme.h"
#include "util.h"

/* One event as a row: index, kind, tool name, first line of text. i: its
 * index in the run; PANE_EVENTS_STREAM: e streams, no event of the run yet
 * (cx->stream): no number, no flag, never selected. */
#define PANE_EVENTS_STREAM ((size_t)-1)
static void pane_events_row(struct pane_ctx *cx, const struct event *e, size_t i, int y, int x, int w)
{
	int sel = i == cx->sel;
	int rowrole = sel ? (cx->focus == 0 ? RL_SELECT : RL_SELECT_DIM) : RL_NORMAL;
	int used = 0;
	char buf[64];
	/* selection paints the whole row in one role, so it reads as a bar */
#define ROLE(r) (sel ? rowrole : (r))
	draw_fill(y, x, w, rowrole);
	int digits = snprintf(buf, sizeof buf, "%zu", cx->run->nev);
	if (i == PANE_EVENTS_STREAM)
		snprintf(buf, sizeof buf, "%*s ", digits, "~");
	else
		snprintf(buf, sizeof buf, "%*zu ", digits, i + 1);
	used += draw_put(y, x + used, w - used, buf, ROLE(RL_DIM));
	/* the auto-flag column: ! where a rule of flags.rules trips */
	used += draw_put(y, x + used, w - used, i != PANE_EVENTS_STREAM && cx->flags && flag_list_find(cx->flags, i) ? "!" : " ", ROLE(RL_WARN));
	used += draw_put(y, x + used, w - used, e->sidechain ? theme_glyph()->sub : " ", ROLE(RL_DIM));
	snprintf(buf, sizeof buf, "%-7s ", evstyle_label(e->kind));
	used += draw_put(y, x + used, w - used, buf, ROLE(evstyle_is_error(e) ? RL_ERROR : evstyle_role(e->kind)));
	const char *name = NULL;
	if (e->kind == EV_TOOL_CALL)
		name = e->name;
	else if (e->kind == EV_TOOL_RESULT && e->link >= 0 && (size_t)e->link < cx->run->nev)
		name = cx->run->ev[e->link].name;
	if (name) {
		used += draw_untrusted(y, x + used, w - used, name, ROLE(RL_TOOL));
		used += draw_put(y, x + used, w - used, " ", ROLE(RL_NORMAL));
	}
	if (e->kind == EV_USAGE) {
		char a[24], b[24];
		util_fmt_count(a, sizeof a, e->tok_in);
		util_fmt_count(b, sizeof b, e->tok_out);
		snprintf(buf, sizeof buf, "in %s out %s", a, b);
		draw_put(y, x + used, w - used, buf, ROLE(RL_USAGE));
	} else {
		size_t cap = 4 * (size_t)(w > 0 ? w : 1) + 16;
		/* a result's parser line ("exit 2: first line") says more than its text's first line */
		char *t = e->kind == EV_TOOL_CALL ? evstyle_call_summary(cx->run, e, cap)
		        : e->summary && *e->summary ? draw_first_line(e->summary, cap) : draw_first_line(e->text, cap);
		if (*t || e->kind == EV_TOOL_CALL || e->kind == EV_TOOL_RESULT)
			draw_put_hl(y, x + used, w - used, t, ROLE(evstyle_is_error(e) ? RL_ERROR : RL_NORMAL),
			            cx->search);
		else  /* say so, rather than show a blank row */
			draw_put(y, x + used, w - used, e->redacted ? "(redacted)" : "(empty)", ROLE(RL_DIM));
		free(t);
	}
#undef ROLE
}

size_t pane_events_rows(const struct pane_ctx *cx)
{
	return cx->shown ? cx->nshown : cx->run->nev;
}

size_t pane_events_at(const struct pane_ctx *cx, size_t r)
{
	size_t n = pane_events_rows(cx);
	if (r >= n)
		r = n ? n - 1 : 0;
	return cx->shown && n ? cx->shown[r] : r;
}

size_t pane_events_row_of(const struct pane_ctx *cx, size_t ev)
{
	if (!cx->shown)
		return ev;
	size_t lo = 0, hi = cx->nshown;  /* the first shown event >= ev */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cx->shown[mid] < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pane_events_hidden(const struct pane_ctx *cx, size_t ev)
{
	size_t r = pane_events_row_of(cx, ev);
	return cx->shown && (r >= cx->nshown || cx->shown[r] != ev);
}

size_t pane_events_near(const struct pane_ctx *cx, size_t ev)
{
	if (!pane_events_hidden(cx, ev) || !cx->nshown)
		return ev;
	size_t r = pane_events_row_of(cx, ev);  /* the first shown after ev */
	if (r == cx->nshown || (r > 0 && ev - cx->shown[r - 1] <= cx->shown[r] - ev))
		r--;
	return cx->shown[r];
}

static void pane_events_draw(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h)
{
	size_t rows = pane_events_rows(cx);
	for (int r = 0; r < h; r++) {
		size_t k = p->top + (size_t)r;
		if (k < rows)
			pane_events_row(cx, &cx->run->ev[pane_events_at(cx, k)], pane_events_at(cx, k), y + r, x, w);
		else if (k - rows < cx->nstream)  /* what streams, after the events */
			pane_events_row(cx, &cx->stream[k - rows], PANE_EVENTS_STREAM, y + r, x, w);
		else
			draw_fill(y + r, x, w, RL_NORMAL);
	}
}

/* A step scrolls by one row; a jump shows what follows the target. The
 * last event selected: what streams after it shows too, as far as the
 * selection stays on screen. */
static void pane_events_follow(struct pane *p, struct pane_ctx *cx)
{
	size_t n = pane_events_rows(cx), i = pane_events_row_of(cx, cx->sel);
	size_t h = p->h > 0 ? (size_t)p->h : (size_t)(cx->body_h > 1 ? cx->body_h - 1 : 1);
	if (i + 1 == p->top || i == p->top + h)
		p->top = i < p->top ? i : i - h + 1;
	else if (i < p->top || i >= p->top + h)
		p->top = i > h / 3 ? i - h / 3 : 0;
	if (cx->nstream && i + 1 >= n) {
		size_t last = i + (cx->nstream < h ? cx->nstream : h - 1);  /* the last row to show */
		if (last >= p->top + h)
			p->top = last - h + 1;
		n += cx->nstream;
	}
	if (p->top + h > n && n > h)
		p->top = n - h;
}

static void pane_events_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	(void)p;
	if (cx->shown)
		snprintf(buf, n, " events  %zu hidden (s shows)", cx->nhidden);
	else
		snprintf(buf, n, " events");
}

static void pane_events_status(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	(void)p;
	if (cx->search && cx->nmatches)
		snprintf(buf, n, "%zu matching", cx->nmatches);
	else
		buf[0] = '\0';
}

const struct pane_ops pane_events_ops = {
	.name = "events",
	.draw = pane_events_draw,
	.title = pane_events_title,
	.status = pane_events_status,
	.follow = pane_events_follow,
	.follow_drawn = 1,
};
