/* pane.c: what every pane shares: its header row, building and scrolling
 * its lines. */
#include "config.h"

#include <curses.h>
#include <string.h>

#include "draw.h"
#include "pane.h"
#include "theme.h"

void pane_init(struct pane *p, const struct pane_ops *ops, struct pane_ctx *cx)
{
	memset(p, 0, sizeof *p);
	p->ops = ops;
	p->built_w = -1;
	p->built_ev = TLINE_NO_EVENT;
	tlines_clear(&p->lines);
	(void)cx;
}

struct pane *pane_ready(struct pane *p, struct pane_ctx *cx)
{
	if (!p->ready) {
		p->ready = 1;
		if (p->ops->init)
			p->ops->init(p, cx);
	}
	return p;
}

void pane_free(struct pane *p)
{
	if (p->ready && p->ops && p->ops->free)
		p->ops->free(p);
	tlines_free(&p->lines);
}

void pane_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	if (!p->ready) {  /* init will read the run as it is then */
		pane_invalidate(p);
		return;
	}
	if (p->ops->grow) {
		if (!p->ops->grow(p, cx, from))
			pane_invalidate(p);
		return;
	}
	pane_invalidate(p);
	if (p->ops->init) {  /* what it read at init is stale */
		if (p->ops->free)
			p->ops->free(p);
		p->state = NULL;
		p->ready = 0;
	}
}

void pane_invalidate(struct pane *p)
{
	p->built_w = -1;
}

void pane_scroll(struct pane *p, long delta)
{
	long max = (long)p->lines.n - (p->h > 0 ? p->h : 1);
	long t = (long)p->top + delta;
	if (t > max)
		t = max;
	if (t < 0)
		t = 0;
	p->top = (size_t)t;
}

int pane_scroll_act(struct pane *p, struct pane_ctx *cx, enum action a)
{
	(void)cx;
	long page = p->h > 1 ? p->h - 1 : 1;
	long all = (long)p->lines.n + 1;
	switch (a) {
	case ACT_DOWN: pane_scroll(p, 1); return 1;
	case ACT_UP: pane_scroll(p, -1); return 1;
	case ACT_PAGE_DOWN: pane_scroll(p, page); return 1;
	case ACT_PAGE_UP: pane_scroll(p, -page); return 1;
	case ACT_FIRST: pane_scroll(p, -all); return 1;
	case ACT_LAST: pane_scroll(p, all); return 1;
	default: return 0;
	}
}

size_t pane_top_event(const struct pane *p)
{
	for (size_t i = p->top; i < p->lines.n; i++)
		if (p->lines.v[i].ev != TLINE_NO_EVENT)
			return p->lines.v[i].ev;
	return TLINE_NO_EVENT;
}

void pane_follow_event(struct pane *p, size_t ev)
{
	size_t h = p->h > 0 ? (size_t)p->h : 1;
	size_t i = tlines_find_event(&p->lines, ev);
	if (i >= p->top && i < p->top + h && i < p->lines.n)
		return;
	if (i >= p->lines.n) {
		p->top = p->lines.n > h ? p->lines.n - h : 0;
		return;
	}
	i = i > 0 ? i - 1 : 0;  /* the blank row above the group's heading */
	p->top = i > h / 3 ? i - h / 3 : 0;
	pane_scroll(p, 0);
}

void pane_follow_before(struct pane *p, size_t ev)
{
	size_t at = p->lines.n, at_ev = TLINE_NO_EVENT;
	for (size_t i = 0; i < p->lines.n; i++) {  /* the rows are in event order */
		size_t e = p->lines.v[i].ev;
		if (e == TLINE_NO_EVENT || e > ev)
			continue;
		if (e != at_ev) {
			at = i;
			at_ev = e;
		}
	}
	if (at >= p->lines.n) {
		p->top = 0;
		return;
	}
	p->top = at > 0 ? at - 1 : 0;  /* the blank row above the group's heading */
	pane_scroll(p, 0);
}

void pane_follow_sel(struct pane *p, struct pane_ctx *cx)
{
	if (cx->before)
		pane_follow_before(p, cx->sel);
	else
		pane_follow_event(p, cx->sel);
}

/* "12-40/300" of a text pane. */
static void pane_position(const struct pane *p, char *buf, size_t n)
{
	size_t last = p->top + (size_t)(p->h > 0 ? p->h : 0);
	if (last > p->lines.n)
		last = p->lines.n;
	snprintf(buf, n, "%zu-%zu/%zu", p->lines.n ? p->top + 1 : 0, last, p->lines.n);
}

void pane_draw(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h, int focused)
{
	const struct pane_ops *ops = p->ops;
	int role = focused ? RL_FOCUS : RL_PANE;
	int body_h = h - 1 > 0 ? h - 1 : 0;
	if (w <= 0 || h <= 0)
		return;
	int placed = p->ready && p->h == body_h;
	pane_ready(p, cx);
	p->h = body_h;
	if (ops->follow_drawn && !placed)
		ops->follow(p, cx);
	if (ops->build && (p->built_w != w - 1 || (ops->per_event && p->built_ev != cx->sel))) {
		int fresh = ops->per_event && p->built_ev != cx->sel;
		tlines_clear(&p->lines);
		ops->build(p, cx, w - 1);
		p->built_w = w - 1;
		p->built_ev = cx->sel;
		if (fresh)
			p->top = 0;
		if (ops->follow)
			ops->follow(p, cx);
		pane_scroll(p, 0);
	}
	char right[160] = "";
	if (ops->status)
		ops->status(p, cx, right, sizeof right);
	else if (ops->build)
		pane_position(p, right, sizeof right);
	draw_fill(y, x, w, role);
	char head[160];
	if (ops->title)
		ops->title(p, cx, head, sizeof head);
	else
		snprintf(head, sizeof head, " %s", ops->name);
	int used = draw_put(y, x, w, head, role);
	int rw = (int)draw_width(right) + 1;
	if (rw < w - used - 1)
		draw_put(y, x + w - rw, rw, right, role);
	if (ops->draw) {
		ops->draw(p, cx, y + 1, x, w, body_h);
		return;
	}
	tlines_draw(&p->lines, p->top, y + 1, x + 1, w - 1, body_h, cx->search);
	/* a whole-run pane marks the rows of the selected event in its gutter */
	for (int r = 0; r < body_h; r++) {
		size_t i = p->top + (size_t)r;
		int here = !ops->per_event && i < p->lines.n && p->lines.v[i].ev == cx->sel;
		if (here)
			draw_put(y + 1 + r, x, 1, theme_glyph()->play, RL_KEY);
		else
			draw_fill(y + 1 + r, x, 1, RL_NORMAL);
	}
}
