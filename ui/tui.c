/* tui.c: the curses session (start and stop, nested: kbtui compare and
 * eval --tui start one around their views; the signals that end it), and
 * the one loop: the stack of views (ui/view.h), the keys read, feeds and
 * jobs polled between them, and the keys every view shares done once. The
 * views are in browse.c, replay.c, compare.c, xsearch.c, view_help.c,
 * reeval_view.c; the entry points main.c calls in tui_entry.c. */
#include "config.h"

#include <curses.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "keys.h"
#include "mouse.h"
#include "tag.h"
#include "theme.h"
#include "tui.h"
#include "util.h"
#include "view.h"

static int tui_depth;
static volatile sig_atomic_t tui_signal;  /* SIGINT/SIGTERM/SIGHUP seen */

/* The loops see the flag when the interrupted read returns, and leave
 * through endwin, so the terminal is never left in curses mode. */
static void tui_on_signal(int sig)
{
	tui_signal = sig;
}

static void tui_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tui_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;  /* no SA_RESTART: the pending read must return */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void tui_start(void)
{
	if (tui_depth++)
		return;
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	theme_init();
	mouse_init();
	tui_catch();
}

void tui_stop(void)
{
	if (--tui_depth == 0)
		endwin();
}

int tui_stopped(void)
{
	return tui_signal != 0;
}

int tui_exit_status(void)
{
	return tui_signal ? 128 + tui_signal : 0;
}

/* A y/n question on the bottom row, modal (nothing polls meanwhile); 1
 * for y, and for a signal (the loops then end). */
int tui_yes(const char *question)
{
	struct key k;
	draw_bar(LINES - 1, RL_MSG, question, NULL);
	refresh();
	timeout(-1);
	while (keys_read(&k) == ERR)
		if (tui_stopped())
			return 1;
	return k.code == 'y' || k.code == 'Y';
}

void tui_print_keys(FILE *out, int roff)
{
	keys_print(out, roff);
}

/* ---- the view stack and its one loop ----------------------------------------- */

static struct view *tui_top;    /* the view on screen; ->below down to the root */
static int tui_result;          /* the root's result once it closed */

static void tui_free_view(struct view *v)
{
	free(v->msg);
	v->msg = NULL;
	v->ops->free(v);
}

static void tui_apply(struct view *v, unsigned f);

/* Pushes v (and what it asks to push at once, as the browser does for
 * kbtui RUN_DIR). */
static void tui_push(struct view *v)
{
	v->below = tui_top;
	tui_top = v;
	erase();
	if (v->push)
		tui_apply(v, VIEW_PUSH);
}

/* The top view closes; the one below resumes (a help resumes nothing). */
static void tui_pop(void)
{
	struct view *c = tui_top, *p = c->below;
	unsigned f = 0;
	tui_top = p;
	erase();
	if (!p)
		tui_result = c->result;
	else if (c->ops != &view_help_ops && p->ops->resume)
		f = p->ops->resume(p, c);
	if (p)
		p->dirty = D_ALL;
	tui_free_view(c);
	if (p)
		tui_apply(p, f);
}

/* What the flags a view returned ask of the stack (what a view pushes
 * goes on top, whether or not it is the top). */
static void tui_apply(struct view *v, unsigned f)
{
	if ((f & VIEW_PUSH) && v->push) {
		struct view *c = v->push;
		v->push = NULL;
		tui_push(c);
	} else if (f & VIEW_CLOSE) {
		while (tui_top && tui_top != v)  /* what it pushed goes with it */
			tui_pop();
		if (tui_top)
			tui_pop();
	}
}

/* A message of the loop's in the view's status bar, with its margin. */
static void tui_tell(struct view *v, const char *msg)
{
	free(v->msg);
	v->msg = msg ? xasprintf("%s%s", v->ops->margin ? v->ops->margin : "", msg) : NULL;
	v->dirty |= D_STATUS;
}

/* The annotation keys: tag_act on the run the view says. */
static unsigned tui_tag(struct view *v, enum action a)
{
	struct tag *tag = NULL;
	long i = v->ops->tag_run ? v->ops->tag_run(v, &tag) : -1;
	char *msg = NULL;
	if (!tag_act(tag, a, i, &msg))
		return 0;
	tui_tell(v, msg);
	free(msg);
	if (v->ops->tagged)
		v->ops->tagged(v, a);
	erase();  /* after the editor, or names to hide: all of it again */
	v->dirty = D_ALL;
	return 0;
}

/* An annotation file changed on disk (another annotator, kbtui annotate,
 * an editor): the view shows the new verdict. Looked at on each pass of
 * the loop, so on each key, and once a second when idle. */
#define TUI_ANNOT_POLL_MS 1000

static void tui_annot_poll(struct view *v, int *ms)
{
	struct tag *tag = NULL;
	if (!(v->ops->common & VIEW_HAS_TAG) || !v->ops->tag_run)
		return;
	long i = v->ops->tag_run(v, &tag);
	if (!tag)
		return;
	if (tag_poll(tag, i)) {
		if (v->ops->tagged)
			v->ops->tagged(v, ACT_RELOAD);
		v->dirty = D_ALL;
	}
	if (*ms < 0 || *ms > TUI_ANNOT_POLL_MS)
		*ms = TUI_ANNOT_POLL_MS;
}

/* The shared keys, for a key the view did not take. */
static unsigned tui_shared(struct view *v, const struct key *k)
{
	enum action a = keys_action(k->code, v->ops->keys);
	char *m;
	if (!view_shared(v, a))
		return 0;
	switch (a) {
	case ACT_HELP:
		return view_push(v, view_help_new(v));
	case ACT_THEME:
		m = theme_cycle();
		tui_tell(v, m);
		free(m);
		clearok(curscr, TRUE);
		v->dirty = D_ALL;
		return 0;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		v->dirty = D_ALL;
		return 0;
	case ACT_QUIT:
		return !v->ops->quits || v->ops->quits(v) ? VIEW_CLOSE : 0;
	default:
		return tui_tag(v, a);
	}
}

/* One key for view v (m: the mouse event of a KEY_MOUSE, read once): the
 * message goes, resize is the loop's, the rest is the view's and then the
 * shared keys'. */
static unsigned tui_key_flags(struct view *v, const struct key *k, const struct mouse_event *m)
{
	if (v->msg) {
		free(v->msg);
		v->msg = NULL;
		v->dirty |= D_STATUS;
	}
	if (k->code == KEY_RESIZE) {
		erase();
		for (struct view *w = v; w; w = w->below) {
			if (w->ops->resize)
				w->ops->resize(w);
			w->dirty = D_ALL;
		}
		return 0;
	}
	if (k->code == KEY_MOUSE)
		return v->ops->mouse ? v->ops->mouse(v, m) : 0;
	unsigned f = v->ops->key(v, k);
	if (f & VIEW_IGNORED)
		f = (f & ~(unsigned)VIEW_IGNORED) | tui_shared(v, k);
	return f;
}

/* A key for view v, and for the views below it as long as one hands it
 * on (VIEW_FORWARD: an overlay over a view). */
static void tui_dispatch(struct view *v, const struct key *k)
{
	struct mouse_event m = { MOUSE_NONE, 0, 0 };
	if (k->code == KEY_MOUSE)
		m = mouse_read();
	for (;;) {
		unsigned f = tui_key_flags(v, k, &m);
		if (!(f & VIEW_FORWARD) || !v->below) {
			tui_apply(v, f);
			return;
		}
		v = v->below;
	}
}

void tui_key(struct view *v, const struct key *k)
{
	struct mouse_event m = { MOUSE_NONE, 0, 0 };
	if (k->code == KEY_MOUSE)
		m = mouse_read();
	unsigned f = tui_key_flags(v, k, &m);
	if ((f & VIEW_PUSH) && v->push) {  /* no stack here to push it on */
		tui_free_view(v->push);
		v->push = NULL;
	}
}

int tui_run(struct view *root)
{
	struct view *saved = tui_top;  /* a stack run from inside another (a modal screen) */
	struct key k;
	tui_top = NULL;
	tui_result = 0;
	tui_push(root);
	while (tui_top && !tui_stopped()) {
		struct view *v = tui_top;
		int ms = -1;
		if (v->dirty)  /* what was there before the poll: lists scroll by what they showed */
			v->ops->draw(v);
		unsigned f = v->ops->poll ? v->ops->poll(v, &ms) : 0;
		if (f & (VIEW_PUSH | VIEW_CLOSE)) {
			tui_apply(v, f);
			continue;
		}
		tui_annot_poll(v, &ms);
		if (v->dirty)
			v->ops->draw(v);
		timeout(ms);  /* blocks only while nothing polls */
		int rc = keys_read(&k);
		timeout(-1);
		v->idle = rc == ERR;
		if (rc != ERR)
			tui_dispatch(v, &k);
	}
	while (tui_top) {  /* a signal: every view goes, none resumes */
		struct view *v = tui_top;
		tui_top = v->below;
		tui_free_view(v);
	}
	tui_top = saved;
	return tui_result;
}
