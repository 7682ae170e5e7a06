/* browse.c: the run browser: the run list (sort, filter) or the leaderboard
 * grid, the baselines of the selected run's problem, Enter to replay.
 * The list (browse_list.c) and the screen (browse_draw.c) are files of
 * their own; this one is the view: keys, what they open, the polls. */
#include "config.h"

#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "browse.h"
#include "browse_int.h"
#include "compare.h"
#include "dataset.h"
#include "draw.h"
#include "flags.h"
#include "keys.h"
#include "mouse.h"
#include "pager.h"
#include "parser.h"
#include "replay.h"
#include "runstats.h"
#include "screens.h"
#include "sweep.h"
#include "sweepwatch.h"
#include "tag.h"
#include "tui.h"
#include "util.h"
#include "view.h"
#include "watch.h"


/* The screens a key opens (screens.h), by action. */
static const struct browse_screen {
	enum action act;
	struct view *(*open)(struct dataset *ds, struct tag *tag);
} browse_screens[] = {
#define BROWSE_SCREEN_ROW(act, open) { act, open },
	BROWSE_SCREENS(BROWSE_SCREEN_ROW)
#undef BROWSE_SCREEN_ROW
};
#define BROWSE_NSCREENS (sizeof browse_screens / sizeof browse_screens[0])



static void browse_goto(struct browse *b, long k)
{
	if (!b->n)
		return;
	if (k < 0)
		k = 0;
	if ((size_t)k >= b->n)
		k = (long)b->n - 1;
	b->sel = (size_t)k;
	size_t h = b->list_h > 0 ? (size_t)b->list_h : 1;
	if (b->sel < b->top)
		b->top = b->sel;
	else if (b->sel >= b->top + h)
		b->top = b->sel - h + 1;
	/* the reference line follows the selection */
	b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
}

/* The list again after verdicts changed: a run a verdict filter no longer
 * shows leaves the selection where it was, on the run after it. */
static void browse_retag(struct browse *b)
{
	long keep = browse_selected(b);
	size_t pos = b->sel;
	browse_refresh(b);
	if (!b->grid_on && browse_selected(b) != keep)
		browse_goto(b, (long)pos);
}

/* a: selects the next run without a verdict after the selected one, in the
 * list's order; returns it, -1 when there is none (with a message). */
static long browse_next_unannotated(struct browse *b)
{
	long sel = browse_selected(b);
	size_t from = b->sel;
	if (b->grid_on) {
		from = b->n ? b->n - 1 : 0;  /* an empty cell: from the top */
		for (size_t k = 0; k < b->n; k++)
			if ((long)b->order[k] == sel)
				from = k;
	}
	long k = b->n ? tag_next_unannotated(b->tag, b->order, b->n, from) : -1;
	if (k < 0) {
		free(b->v.msg);
		view_say(&b->v, " no other run shown is without a verdict (runs without a transcript are skipped)");
		return -1;
	}
	browse_goto(b, k);
	if (b->grid_on)
		grid_select_run(&b->grid, b->order[k]);
	return (long)b->order[k];
}

/* After an annotation key (the loop's): names may be hidden, verdicts
 * changed. */
static void browse_tagged(struct view *v, enum action a)
{
	struct browse *b = (struct browse *)v;
	if (a == ACT_BLIND)
		browse_widths(b);
	browse_retag(b);
}

static long browse_tag_run(struct view *v, struct tag **tag)
{
	struct browse *b = (struct browse *)v;
	*tag = b->tag;
	return browse_selected(b);
}

/* A transcript this big is read between keys (ui/pager.c), its first
 * screen from its first slices; a smaller one is read whole at once. */
#define BROWSE_PAGER_BYTES (16 << 20)

/* The pager read the run whole: the dataset has it from now on. */
static void browse_paged(void *arg, struct parser_loader *ld)
{
	struct browse *b = arg;
	if (b->ds->runs[b->paging_run].run)  /* read whole meanwhile by another road: one copy is kept */
		return;
	dataset_adopt(b->ds, b->paging_run, parser_loader_take(ld));
}

/* Run i through a pager when its transcript is big and not read yet: its
 * run with the first slices read (the pager set up), else what
 * dataset_load gives. */
static struct run *browse_load(struct browse *b, size_t i)
{
	const struct ds_run *r = &b->ds->runs[i];
	struct stat st;
	/* one pager at a time: the last replay's (a's next run opens while
	 * the replay before it is still being freed) goes at the next poll */
	if (b->paging || r->run || r->load_error || !r->transcript || stat(r->transcript, &st) < 0 ||
	    st.st_size < BROWSE_PAGER_BYTES)
		return dataset_load(b->ds, i);
	struct parser_loader *ld = dataset_loader(b->ds, i);
	char *err = NULL;
	int rc = ld ? pager_first(ld, b->open_event ? b->open_event - 1 : 0, &err) : -1;
	if (rc < 0 && ld)
		b->ds->runs[i].load_error = err;
	if (rc <= 0) {
		struct run *run = rc == 0 ? dataset_adopt(b->ds, i, parser_loader_take(ld)) : NULL;
		parser_loader_free(ld);
		return run;
	}
	b->paging = pager_new(ld);
	b->paging_ld = ld;
	b->paging_run = i;
	pager_on_done(b->paging, browse_paged, b);
	return parser_loader_run(ld);
}

/* The pager of a replay that closed: the run it read whole is the
 * dataset's; one left halfway goes with its loader. */
static void browse_paging_end(struct browse *b)
{
	pager_free(b->paging);
	parser_loader_free(b->paging_ld);
	b->paging = NULL;
	b->paging_ld = NULL;
}

/* Pushes the replay of run sel (annotation keys and all); 0 when it
 * cannot be loaded (the status bar says why). */
static unsigned browse_open_at(struct browse *b, long sel)
{
	size_t i = (size_t)sel;
	struct run *run = sel >= 0 ? browse_load(b, i) : NULL;
	if (sel < 0)
		return 0;
	if (!run) {
		char *e = draw_safe(b->ds->runs[i].load_error ? b->ds->runs[i].load_error : "cannot load this run");
		free(b->v.msg);
		b->v.msg = xasprintf(" %s", e);
		free(e);
		b->v.dirty |= D_STATUS;
		return 0;
	}
	struct replay_opts o = { .tag = b->tag, .ds_run = i, .feed = b->paging ? pager_feed(b->paging) : NULL };
	if (b->open_event && run->nev)  /* RUN@N: the first replay only */
		o.ev = b->open_event - 1 < run->nev ? b->open_event - 1 : run->nev - 1;
	b->open_event = 0;
	b->pushed = BROWSE_PUSHED_REPLAY;
	return view_push(&b->v, replay_view_new(run, b->ds->runs[i].meta.run_id ? b->ds->runs[i].meta.run_id
	                                                                        : b->ds->runs[i].transcript, &o));
}

/* Enter on a sweep's running cell: its live replay, as kbtui watch. */
static unsigned browse_watch(struct browse *b, long sel)
{
	const struct ds_run *r = &b->ds->runs[sel];
	b->watching = r->dir ? watch_session_new(r->dir, NULL, r->meta.run_id) : NULL;
	if (!b->watching) {
		view_say(&b->v, " this cell has no run directory yet");
		b->v.dirty |= D_STATUS;
		return 0;
	}
	b->pushed = BROWSE_PUSHED_WATCH;
	return view_push(&b->v, watch_session_view(b->watching));
}

/* Enter: the selected run's replay (a running cell's: watched). */
static unsigned browse_open(struct browse *b)
{
	long sel = browse_selected(b);
	const struct sweep_cell_status *s = sweepwatch_cell(b->sweep, sel);
	if (s && s->state == SWEEP_RUNNING)
		return browse_watch(b, sel);
	if (s && s->state == SWEEP_QUEUED) {
		view_say(&b->v, " this cell has not started yet");
		b->v.dirty |= D_STATUS;
		return 0;
	}
	unsigned f = browse_open_at(b, sel);
	if (!f)
		browse_retag(b);
	return f;
}

/* A key while the / prompt is open: edits the filter, applied as typed. */
static void browse_edit(struct browse *b, const struct key *k)
{
	size_t len = strlen(b->filter);
	if (!k->fn && (k->ch == '\n' || k->ch == '\r')) {
		b->editing = 0;
	} else if (!k->fn && k->ch == 27) {
		b->editing = 0;
		memcpy(b->filter, b->saved, sizeof b->filter);
	} else if (!k->fn && k->ch == 21) {  /* Ctrl-U: the whole filter, as readline does */
		b->filter[0] = 0;
	} else if (!k->fn && k->ch == 23) {  /* Ctrl-W: the last word and the blanks after it */
		while (len > 0 && b->filter[len - 1] == ' ')
			len--;
		while (len > 0 && b->filter[len - 1] != ' ')
			len--;
		b->filter[len] = 0;
	} else if ((k->fn && k->ch == KEY_BACKSPACE) || (!k->fn && (k->ch == 127 || k->ch == 8))) {
		while (len > 0 && ((unsigned char)b->filter[len - 1] & 0xC0) == 0x80)
			len--;
		if (len > 0)
			len--;
		b->filter[len] = 0;
	} else if (!k->fn && k->ch >= 0x20 && k->ch != 0x7F) {
		char mb[MB_LEN_MAX];
		mbstate_t st;
		memset(&st, 0, sizeof st);
		size_t m = wcrtomb(mb, (wchar_t)k->ch, &st);
		if (m != (size_t)-1 && len + m < sizeof b->filter) {
			memcpy(b->filter + len, mb, m);
			b->filter[len + m] = 0;
		}
	} else {
		return;
	}
	browse_refresh(b);
}

/* List and grid show the same selection when one switches to the other. */
static void browse_toggle_grid(struct browse *b)
{
	long sel = browse_selected(b);
	b->grid_on = !b->grid_on;
	if (b->grid_on && b->grid_stale) {
		browse_grid_build(b, sel);
	} else if (b->grid_on && sel >= 0) {
		grid_select_run(&b->grid, (size_t)sel);
	} else if (!b->grid_on && sel >= 0) {
		for (size_t k = 0; k < b->n; k++)
			if ((long)b->order[k] == sel)
				browse_goto(b, (long)k);
	}
	erase();
	b->v.dirty = D_ALL;
}

static void browse_grid_do(struct browse *b, enum action a)
{
	long page = LINES > 10 ? LINES - 10 : 1;
	switch (a) {
	case ACT_DOWN: grid_move(&b->grid, 1, 0); break;
	case ACT_UP: grid_move(&b->grid, -1, 0); break;
	case ACT_PAGE_DOWN: grid_move(&b->grid, page, 0); break;
	case ACT_PAGE_UP: grid_move(&b->grid, -page, 0); break;
	case ACT_RIGHT: grid_move(&b->grid, 0, 1); break;
	case ACT_LEFT: grid_move(&b->grid, 0, -1); break;
	case ACT_FIRST: grid_move(&b->grid, -(long)b->grid.nrows, 0); break;
	case ACT_LAST: grid_move(&b->grid, (long)b->grid.nrows, 0); break;
	default: return;
	}
	b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
}

/* The wheel moves the selection; a click selects the run (list) or the
 * cell (grid) under the pointer. */
static unsigned browse_mouse(struct view *v, const struct mouse_event *mp)
{
	struct browse *b = (struct browse *)v;
	struct mouse_event m = *mp;
	int step = m.kind == MOUSE_WHEEL_DOWN ? MOUSE_WHEEL_ROWS : -MOUSE_WHEEL_ROWS;
	if (m.kind == MOUSE_NONE)
		return 0;
	if (b->grid_on && m.kind != MOUSE_CLICK)
		grid_move(&b->grid, step, 0);
	else if (b->grid_on && !grid_hit(&b->grid, 2, LINES - 3, m.y, m.x))
		return 0;
	else if (!b->grid_on && m.kind != MOUSE_CLICK)
		browse_goto(b, (long)b->sel + step);
	else if (!b->grid_on && m.y >= b->list_y && m.y < b->list_y + b->list_h &&
	         b->top + (size_t)(m.y - b->list_y) < b->n)
		browse_goto(b, (long)(b->top + (size_t)(m.y - b->list_y)));
	b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
	return 0;
}

/* c: the first marks the selected run, the second compares it with the
 * marked one (ui/compare.c). */
static unsigned browse_compare(struct browse *b)
{
	long sel = browse_selected(b);
	if (sel < 0)
		return 0;
	view_say(&b->v, NULL);
	b->v.dirty |= D_LIST;
	if (!b->ds->runs[sel].transcript && b->cmp_mark != (size_t)sel + 1) {
		/* a held-out run has nothing to compare: a stray c asks first */
		char *id = draw_safe(b->ds->runs[sel].meta.run_id);
		char *q = xasprintf(" %s has no transcript here: %s anyway? y/n", id,
		                    b->cmp_mark ? "compare it" : "mark it for compare");
		int yes = tui_yes(q);
		free(q);
		free(id);
		b->v.dirty = D_ALL;
		if (!yes) {
			b->v.msg = xstrdup(b->cmp_mark ? " not compared: the run has no transcript here"
			                               : " not marked: the run has no transcript here");
			return 0;
		}
	}
	if (!b->cmp_mark || b->cmp_mark == (size_t)sel + 1) {
		b->cmp_mark = b->cmp_mark ? 0 : (size_t)sel + 1;
		char *id = draw_safe(b->ds->runs[sel].meta.run_id);
		b->v.msg = b->cmp_mark ? xasprintf(" marked %s: c on another run compares the two", id)
		                       : xstrdup(" comparison mark removed");
		free(id);
		return 0;
	}
	size_t a = b->cmp_mark - 1;
	b->cmp_mark = 0;
	struct view *c = compare_dataset_view(b->ds, b->tag, a, (size_t)sel, &b->v.msg);
	erase();
	b->v.dirty = D_ALL;
	if (!c)
		return 0;
	b->pushed = BROWSE_PUSHED_COMPARE;
	return view_push(&b->v, c);
}

/* A screen of screens.h over the browser. */
static unsigned browse_screen(struct browse *b, const struct browse_screen *s)
{
	struct view *v = s->open(b->ds, b->tag);
	if (!v)
		return 0;
	b->pushed = BROWSE_PUSHED_SCREEN;
	return view_push(&b->v, v);
}

/* d: the next board, after the last all of them again. */
static void browse_next_board(struct browse *b)
{
	if (!b->ds->nboards) {
		view_say(&b->v, "this dataset has no leaderboard file");
		return;
	}
	b->gpu = NULL;
	b->board = b->board + 1 < (long)b->ds->nboards ? b->board + 1 : -1;
	browse_refresh(b);
}

/* An action on the browser; the loop's shared keys (help, theme, the
 * annotation keys, q) are left to it, but a is the browser's: it knows its
 * order. */
static unsigned browse_do(struct browse *b, enum action a)
{
	long page = b->list_h > 1 ? b->list_h - 1 : 1;
	if (a == ACT_NEXT_UNANNOTATED) {
		browse_next_unannotated(b);
		return 0;
	}
	if (view_shared(&b->v, a))
		return VIEW_IGNORED;
	for (size_t k = 0; k < BROWSE_NSCREENS; k++)
		if (browse_screens[k].act == a)
			return browse_screen(b, &browse_screens[k]);
	if (b->grid_on && a != ACT_OPEN && a != ACT_GRID && a != ACT_FILTER && a != ACT_SORT && a != ACT_COMPARE &&
	    a != ACT_BOARD) {
		browse_grid_do(b, a);
		return 0;
	}
	switch (a) {
	case ACT_DOWN: browse_goto(b, (long)b->sel + 1); break;
	case ACT_UP: browse_goto(b, (long)b->sel - 1); break;
	case ACT_PAGE_DOWN: browse_goto(b, (long)b->sel + page); break;
	case ACT_PAGE_UP: browse_goto(b, (long)b->sel - page); break;
	case ACT_FIRST: browse_goto(b, 0); break;
	case ACT_LAST: browse_goto(b, (long)b->n - 1); break;
	case ACT_OPEN: return browse_open(b);
	case ACT_GRID: browse_toggle_grid(b); break;
	case ACT_BOARD: browse_next_board(b); break;
	case ACT_COMPARE: return browse_compare(b);
	case ACT_SORT:
		b->sort = (b->sort + 1) % SORT__COUNT;
		browse_refresh(b);
		break;
	case ACT_FILTER:
		memcpy(b->saved, b->filter, sizeof b->saved);
		b->editing = 1;
		b->v.dirty |= D_STATUS;
		break;
	default:
		break;
	}
	return 0;
}

/* A key (the loop cleared the message and took resize and the mouse). */
static unsigned browse_key(struct view *v, const struct key *k)
{
	struct browse *b = (struct browse *)v;
	if (b->editing) {
		browse_edit(b, k);
		b->v.dirty |= D_STATUS;
		return 0;
	}
	return browse_do(b, keys_action(k->code, V_BROWSE));
}

/* The view over the browser closed: after a replay whose a asked for it,
 * the next run without a verdict in its replay; verdicts may have changed
 * in any of them. */
static unsigned browse_resume(struct view *v, struct view *child)
{
	struct browse *b = (struct browse *)v;
	int pushed = b->pushed;
	b->pushed = BROWSE_PUSHED_NONE;
	sweepwatch_due(b->sweep);   /* what moved while the view was over it */
	if (pushed == BROWSE_PUSHED_WATCH)
		return 0;   /* its session goes at the next poll, once the replay over it is freed */
	if (pushed == BROWSE_PUSHED_COMPARE)
		return 0;
	if (pushed == BROWSE_PUSHED_REPLAY && child->result && !tui_stopped()) {
		long sel = browse_next_unannotated(b);
		unsigned f = sel >= 0 ? browse_open_at(b, sel) : 0;
		if (f)
			return f;
	}
	browse_retag(b);
	return pushed == BROWSE_PUSHED_REPLAY && b->open_only ? VIEW_CLOSE : 0;
}

/* The auto-flags of the runs (src/flags.h) with the shipped rules; none
 * when the rule file cannot be read (the status line says why). */
static void browse_flags_start(struct browse *b)
{
	const char *err;
	const struct flag_rules *rs = flag_rules_default(&err);
	if (!rs) {
		free(b->v.msg);
		b->v.msg = xasprintf(" no auto-flags: %s", err);
		char *safe = draw_safe(b->v.msg);
		free(b->v.msg);
		b->v.msg = safe;
		return;
	}
	b->flags = flag_runs_new(b->ds, rs);
	b->flags_left = 1;
	browse_flags = b->flags;
	grid_set_flags(b->flags);
}

/* The rows on screen are flagged first: the first of them not done yet is
 * preferred (the rows are in the sort's order, not the dataset's). */
static void browse_flags_prefer(struct browse *b)
{
	size_t end = b->top + (size_t)(b->list_h > 0 ? b->list_h : 0);
	for (size_t k = b->top; k < end && k < b->n; k++) {
		size_t i = b->order[k];
		if (b->ds->runs[i].transcript && flag_runs_state(b->flags, i) == -1) {
			flag_runs_prefer(b->flags, i, 1);
			return;
		}
	}
	flag_runs_prefer(b->flags, 0, 0);
}

/* Between keys: one more run flagged, its FLAGS cell filled in. */
/* Runs' result.json read at a time between keys (a few ms at most). */
#define BROWSE_DETAILS_PER_POLL 512

static unsigned browse_poll(struct view *v, int *ms)
{
	struct browse *b = (struct browse *)v;
	if (b->details_wait && !dataset_details_step(b->ds, BROWSE_DETAILS_PER_POLL)) {
		b->details_wait = 0;
		browse_widths(b);  /* OK is a column wider where some run's files disagree */
		b->v.dirty = D_ALL;
	}
	if (b->flags_left) {
		browse_flags_prefer(b);
		b->flags_left = flag_runs_step(b->flags);
		b->v.dirty |= D_LIST;
		if (!b->flags_left && strcasestr(b->filter, "flagged"))
			browse_refresh(b);  /* the flagged term now knows every run */
	}
	/* details or flags left to find: only peek at the keys */
	*ms = b->flags_left || b->details_wait ? 0 : -1;
	if (b->watching && b->pushed == BROWSE_PUSHED_NONE) {
		watch_session_free(b->watching);   /* its view is gone now */
		b->watching = NULL;
	}
	if (b->paging && b->pushed == BROWSE_PUSHED_NONE)
		browse_paging_end(b);
	int sms, moved = b->sweep ? sweepwatch_poll(b->sweep, &sms) : 0;
	/* a cell that started or finished: its transcript is flagged (again) like any run's */
	for (long i; b->flags && (i = sweepwatch_fresh(b->sweep)) >= 0;) {
		flag_runs_forget(b->flags, (size_t)i);
		b->flags_left = 1;
		*ms = 0;
	}
	if (moved == 2)
		browse_refresh(b);   /* outcomes changed: filter, sort and grid again, the selection kept */
	else if (moved)
		b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
	if (b->sweep && (*ms < 0 || sms < *ms))
		*ms = sms;
	return 0;
}

static void browse_view_draw(struct view *v)
{
	browse_draw((struct browse *)v);
}

static void browse_free(struct view *v)
{
	struct browse *b = (struct browse *)v;
	grid_set_flags(NULL);
	browse_flags = NULL;
	grid_set_sweep(NULL);
	grid_set_board(NULL);
	browse_sweep = NULL;
	sweepwatch_free(b->sweep);
	watch_session_free(b->watching);
	if (b->paging)
		browse_paging_end(b);
	flag_runs_free(b->flags);
	runstats_free(b->stats);
	grid_free(&b->grid);
	free(b->order);
	free(b->v.msg);
	tag_free(b->tag);
	free(b);
}

/* The tagging session's y/n questions, on the bottom row. */
static int browse_ask(void *ctx, const char *question)
{
	(void)ctx;
	return tui_yes(question);
}

static const struct view_ops browse_view_ops = {
	.name = "browse",
	.keys = V_BROWSE,
	.common = VIEW_HAS_HELP | VIEW_HAS_THEME | VIEW_HAS_REDRAW | VIEW_HAS_TAG | VIEW_HAS_QUIT,
	.margin = " ",
	.draw = browse_view_draw,
	.key = browse_key,
	.poll = browse_poll,
	.mouse = browse_mouse,
	.resume = browse_resume,
	.frame = browse_frame,
	.tag_run = browse_tag_run,
	.tagged = browse_tagged,
	.free = browse_free,
};

struct view *browse_new(struct dataset *ds, const struct tui_tagging *tg)
{
	struct browse *b = xcalloc(1, sizeof *b);
	b->v.ops = &browse_view_ops;
	b->ds = ds;
	/* a sweep's cells are runs before anything counts them */
	b->sweep = sweepwatch_new(ds);
	browse_sweep = b->sweep;
	grid_set_sweep(b->sweep);
	b->tag = tag_new(ds, tg ? tg->dir : NULL, tg ? tg->annotator : NULL, tg ? tg->blind : 0);
	tag_set_ask(b->tag, browse_ask, NULL);
	b->open_event = tg ? tg->event : 0;
	b->order = xcalloc(ds->nruns + 1, sizeof *b->order);
	b->details_wait = ds->details_left > 0;
	b->board = -1;
	for (size_t k = 0; tg && tg->board && k < ds->nboards; k++)
		if (board_matches(&ds->boards[k], tg->board) && (!tg->gpu || board_gpu_matches(&ds->boards[k], tg->gpu))) {
			b->board = (long)k;
			break;
		}
	if (b->board < 0 && tg)
		b->gpu = tg->gpu;
	browse_widths(b);
	b->list_h = LINES - 4;
	browse_refresh(b);
	browse_flags_start(b);
	return &b->v;
}

void browse_run(struct dataset *ds, const struct tui_tagging *tg, long open)
{
	struct browse *b = (struct browse *)browse_new(ds, tg);
	if (open >= 0 && (size_t)open < ds->nruns) {  /* kbtui RUN_DIR: its replay, then quit */
		b->open_only = 1;
		if (!browse_open_at(b, open)) {
			browse_free(&b->v);
			return;
		}
	}
	tui_run(&b->v);
}

