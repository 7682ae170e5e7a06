/* view_help.c: the key help of the view below, from the key table, drawn
 * inside that view's header and status rows (its frame). The scrolling
 * keys scroll it; any other key closes it. What runs in the view below
 * (playback, a feed, the browser's flags) goes on meanwhile. */
#include "config.h"

#include <curses.h>
#include <stdlib.h>

#include "draw.h"
#include "keys.h"
#include "tlines.h"
#include "util.h"
#include "view.h"

struct view_help {
	struct view v;
	struct view *over;     /* the view whose keys are shown (borrowed: it is below on the stack) */
	int row;               /* 1 + the first row shown */
};

static void view_help_draw(struct view *v)
{
	struct view_help *h = (struct view_help *)v;
	int top, rows;
	if (h->over->ops->frame(h->over, &top, &rows)) {
		struct tlines L = { 0 };
		keys_help(&L, h->over->ops->keys, COLS - 2);
		if ((size_t)h->row > L.n)  /* scrolled past the end: show the last row */
			h->row = L.n > 0 ? (int)L.n : 1;
		tlines_draw(&L, (size_t)h->row - 1, top, 1, COLS - 2, rows, NULL);
		tlines_free(&L);
	}
	curs_set(0);
	h->over->dirty = 0;  /* the frame is drawn */
	v->dirty = 0;
	refresh();
}

static unsigned view_help_key(struct view *v, const struct key *k)
{
	struct view_help *h = (struct view_help *)v;
	enum action a = keys_action(k->code, h->over->ops->keys);
	view_say(h->over, NULL);  /* a key clears the status bar's message, as in the view */
	v->dirty = D_ALL;
	if (a == ACT_DOWN || a == ACT_PAGE_DOWN) {
		h->row += a == ACT_DOWN ? 1 : LINES / 2;
	} else if (a == ACT_UP || a == ACT_PAGE_UP) {
		h->row -= a == ACT_UP ? 1 : LINES / 2;
		if (h->row < 1)
			h->row = 1;
	} else {
		return VIEW_CLOSE;
	}
	return 0;
}

/* The view below keeps running; what it made dirty redraws the help. */
static unsigned view_help_poll(struct view *v, int *ms)
{
	struct view_help *h = (struct view_help *)v;
	h->over->idle = v->idle;
	unsigned f = h->over->ops->poll ? h->over->ops->poll(h->over, ms) : 0;
	if (h->over->dirty)
		v->dirty = D_ALL;
	return f & ~(VIEW_PUSH | VIEW_CLOSE);
}

static void view_help_free(struct view *v)
{
	free(v);
}

const struct view_ops view_help_ops = {
	.name = "help",
	.draw = view_help_draw,
	.key = view_help_key,
	.poll = view_help_poll,
	.free = view_help_free,
};

struct view *view_help_new(struct view *over)
{
	struct view_help *h = xcalloc(1, sizeof *h);
	h->v.ops = &view_help_ops;
	h->v.dirty = D_ALL;
	h->over = over;
	h->row = 1;
	return &h->v;
}
