/* pane_timeline.c: the hack timeline: one row per version of the solution
 * file, with the lines it changed, the check and benchmark that followed it
 * and the auto-flags raised before the next version (src/timeline.h). j/k
 * select a row; Enter goes to the event that made that version. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compilerlog.h"
#include "draw.h"
#include "flags.h"
#include "pane.h"
#include "run.h"
#include "theme.h"
#include "timeline.h"
#include "util.h"

/* A growing run's timeline is made again once the time since the last
 * making is this many times what that making took: making it is a pass
 * over the whole run (what it reads of each event's text is kept, in
 * struct timeline_facts, but the versions, flags and rows are gone
 * through again), and making it at every slice that a big file is read in
 * made reading it quadratic; a small run's (a fraction of a millisecond)
 * follows its growth at once. */
#define TIMELINE_LAG 8

struct pane_timeline {
	struct timeline t;
	int made;                   /* t is the run's (made at the first draw) */
	int stale;                  /* the run grew since t was made (t's rows are still true of its events) */
	double made_at, cost;       /* when t was made, and what making it took (seconds, monotonic) */
	struct compilerlog *cl;     /* the compiler rules (owned), NULL when unreadable */
	struct timeline_facts *tf;  /* what t is made from, kept as the run grows (owned) */
	size_t cur;                 /* the selected row */
	size_t cur_for;             /* the event selected when cur was set to its version */
};

static struct pane_timeline *pt_of(struct pane *p)
{
	return p->state;
}

static void pane_timeline_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_timeline *s = xcalloc(1, sizeof *s);
	char *path = compilerlog_default_path(), *err = NULL;
	(void)cx;
	s->cl = compilerlog_new();
	if (!path || compilerlog_load(s->cl, path, &err) < 0) {
		compilerlog_free(s->cl);
		s->cl = NULL;
	}
	free(err);
	free(path);
	s->tf = timeline_facts_new(s->cl);
	p->state = s;
}

static void pane_timeline_free(struct pane *p)
{
	struct pane_timeline *s = pt_of(p);
	if (!s)
		return;
	timeline_free(&s->t);
	timeline_facts_free(s->tf);
	compilerlog_free(s->cl);
	free(s);
	p->state = NULL;
}

/* Milliseconds until a remake of s is due (0: now). */
static int pt_due_ms(const struct pane_timeline *s)
{
	double left = s->made_at + TIMELINE_LAG * s->cost - util_now();
	return left > 0 ? (int)(left * 1000) + 1 : 0;
}

/* The run grew: the rows are made again at a draw (at once when the run
 * was read again from the start: its old events are not as they were).
 * While a remake is not due the rows as they are stay (true of their
 * events): laying out a row per version at every slice a big file is
 * read in cost more than the remake itself. */
static int pane_timeline_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	struct pane_timeline *s = pt_of(p);
	if (!from) {
		timeline_free(&s->t);
		s->made = 0;
	}
	timeline_facts_grow(s->tf, from);
	s->stale = 1;
	int due = s->made ? pt_due_ms(s) : 0;
	if (due && cx->host && cx->host->later) {
		cx->host->later(cx, due);   /* built again then */
		return 1;
	}
	return 0;  /* built again */
}

static void pane_timeline_make(struct pane_timeline *s, struct pane_ctx *cx)
{
	double now = util_now();
	if (s->made && !s->stale)
		return;
	int due = s->made ? pt_due_ms(s) : 0;
	if (due) {  /* put off: drawn again when due */
		if (cx->host && cx->host->later)
			cx->host->later(cx, due);
		return;
	}
	timeline_free(&s->t);
	/* rows count the flags up to the next version: all of them are needed */
	if (cx->flags && cx->run->nev && !flag_list_known(cx->flags, cx->run->nev - 1))
		flag_list_advance(cx->flags, cx->run, (size_t)-1);
	timeline_make(cx->run, cx->flags, s->tf, &s->t);
	s->made = 1;
	s->stale = 0;
	s->made_at = util_now();
	s->cost = s->made_at - now;
	s->cur_for = (size_t)-1;
}

/* A new selection in the replay selects its version's row; j/k select
 * others until the selection moves again. */
static void pane_timeline_sync(struct pane_timeline *s, struct pane_ctx *cx)
{
	if (s->cur_for == cx->sel)
		return;
	long at = timeline_at(&s->t, cx->sel);
	s->cur = at > 0 ? (size_t)at : 0;
	s->cur_for = cx->sel;
}

static void pane_timeline_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_timeline *s = pt_of(p);
	struct tlines *L = &p->lines;
	pane_timeline_make(s, cx);
	pane_timeline_sync(s, cx);
	if (!s->t.path) {
		tlines_head(L, RL_DIM, width, "(the agent wrote no solution file in this run)");
		return;
	}
	tlines_head(L, RL_DIM, width, "%-3s %6s %11s %6s  %-12s %-15s %s", "#", "event", "changed", "lines", "check",
	            "peak_fraction", "flags");
	long at = timeline_at(&s->t, cx->sel);
	int over = 0, tainted = 0;
	for (size_t k = 0; k < s->t.n; k++) {
		const struct timeline_row *w = &s->t.rows[k];
		char chg[48], chk[48], pk[48], fl[80];
		if (w->deleted)
			snprintf(chg, sizeof chg, "deleted");
		else
			snprintf(chg, sizeof chg, "%s+%zu -%zu", w->lost ? "?" : "", w->added, w->removed);
		if (w->check)
			snprintf(chk, sizeof chk, "%s@%ld", w->check > 0 ? "PASS" : "FAIL", w->check_ev + 1);
		else if (w->compile_errors)
			snprintf(chk, sizeof chk, "%zu cc err", w->compile_errors);
		else
			snprintf(chk, sizeof chk, "-");
		if (w->peak >= 0)
			snprintf(pk, sizeof pk, "%.4f@%ld%s%s", w->peak, w->peak_ev + 1, w->peak_over ? "!" : "",
			         w->peak_tainted ? "T" : "");
		else
			snprintf(pk, sizeof pk, "-");
		int nfl = 0;
		if (w->nflags)
			nfl = snprintf(fl, sizeof fl, "%zu flagged from %ld", w->nflags, w->flag_ev + 1);
		else
			nfl = snprintf(fl, sizeof fl, "-");
		if (w->ntainted)
			snprintf(fl + nfl, sizeof fl - (size_t)nfl, "; %zu tainted", w->ntainted);
		over |= w->peak_over;
		tainted |= w->ntainted > 0;
		int role = k == s->cur ? (cx->focus == 1 ? RL_SELECT : RL_SELECT_DIM)
		         : w->nflags ? RL_WARN : w->check > 0 ? RL_OK : w->check < 0 ? RL_FAIL : RL_NORMAL;
		L->ev = w->ev;
		char nl[24];
		snprintf(nl, sizeof nl, w->lost ? "?" : "%zu", w->lines);
		tlines_head(L, role, width, "%-3zu %6zu %11s %6s  %-12s %-15s %s%s", k + 1, w->ev + 1, chg, nl, chk,
		            pk, fl, (long)k == at ? "  <- here" : "");
	}
	L->ev = TLINE_NO_EVENT;
	if (over || tainted) {
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_WARN, width, "%s%s%s", over ? "! a peak_fraction above 1: more than the GPU can do" : "",
		            over && tainted ? "; " : "",
		            tainted ? "T, tainted: measured while a grading file was edited" : "");
	}
	for (size_t k = 0; k < s->t.n; k++)
		if (s->t.rows[k].lost) {
			tlines_push(L, "", 0, RL_NORMAL);
			tlines_head(L, RL_DIM, width, "? an edit the run made but whose old text was not in the file "
			            "as the transcript shows it (a cut write): its lines changed are the edit's own");
			break;
		}
}

static void pane_timeline_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_timeline *s = pt_of(p);
	const char *path = s->t.path, *b = path && strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	(void)cx;
	char *name = draw_safe(b ? b : "");
	snprintf(buf, n, " timeline %s  %zu version%s", name, s->t.n, s->t.n == 1 ? "" : "s");
	free(name);
}

/* The selected row in view. */
static void pane_timeline_follow(struct pane *p, struct pane_ctx *cx)
{
	struct pane_timeline *s = pt_of(p);
	size_t r = s->cur + 1, h = p->h > 0 ? (size_t)p->h : 1;  /* row 0: the heading */
	(void)cx;
	if (r < p->top)
		p->top = r;
	else if (r >= p->top + h)
		p->top = r - h + 1;
}

static int pane_timeline_act(struct pane *p, struct pane_ctx *cx, enum action a)
{
	struct pane_timeline *s = pt_of(p);
	pane_timeline_make(s, cx);
	pane_timeline_sync(s, cx);
	if ((a == ACT_DOWN || a == ACT_UP) && s->t.n) {
		if (a == ACT_DOWN && s->cur + 1 < s->t.n)
			s->cur++;
		else if (a == ACT_UP && s->cur > 0)
			s->cur--;
		pane_timeline_follow(p, cx);
		pane_invalidate(p);
		return 1;
	}
	if (a == ACT_GOTO_ROW) {
		if (!s->t.n) {
			cx->host->say(cx, "no version of a solution file in this run");
			return 1;
		}
		const struct timeline_row *w = &s->t.rows[s->cur];
		cx->host->select(cx, w->ev);
		char *msg = xasprintf("version %zu of the solution: event %zu", s->cur + 1, w->ev + 1);
		cx->host->say(cx, msg);
		free(msg);
		return 1;
	}
	return pane_scroll_act(p, cx, a);
}

const struct pane_ops pane_timeline_ops = {
	.name = "timeline",
	.per_event = 1,             /* "<- here" follows the selection */
	.init = pane_timeline_init,
	.free = pane_timeline_free,
	.grow = pane_timeline_grow,
	.build = pane_timeline_build,
	.title = pane_timeline_title,
	.follow = pane_timeline_follow,
	.act = pane_timeline_act,
};
