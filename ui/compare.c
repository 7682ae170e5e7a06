/* compare.c: two runs side by side, aligned on their milestones. Both
 * sides move on one timeline: anchors are the milestones both runs have
 * (in the same order), and between two anchors the timeline has as many
 * steps as the longer side has events, the shorter side advancing in
 * proportion. Each side's list is drawn by the replay's event list pane. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "compare.h"
#include "compilerlog.h"
#include "dataset.h"
#include "draw.h"
#include "keys.h"
#include "milestones.h"
#include "pane.h"
#include "parser.h"
#include "replay.h"
#include "run.h"
#include "runstats.h"
#include "tag.h"
#include "theme.h"
#include "tlines.h"
#include "tui.h"
#include "util.h"
#include "view.h"
#include "textsafe.h"

/* the start, then at most every milestone */
#define COMPARE_ANCHORS (MS__COUNT + 1)
/* rows above the lists: header, run names, milestones, stats, ruler */
#define COMPARE_TOP 5

struct compare_side {
	struct run *run;            /* borrowed */
	const char *title;          /* borrowed */
	struct milestones ms;
	struct runstats *stats;     /* owned */
	struct pane_ctx cx;         /* what the event list sees: run, selection, focus */
	struct pane list;           /* the event list (pane_events_ops) */
};

struct compare {
	struct view v;              /* first: the view the loop runs */
	struct compare_side side[2];
	int cur;                    /* the selected side */
	/* anchor k: event at[k][s] of side s, at timeline position pos[k] */
	size_t nanch;
	long at[COMPARE_ANCHORS][2];
	int kind[COMPARE_ANCHORS];  /* enum milestone; -1 for the start */
	size_t pos[COMPARE_ANCHORS];
	size_t t;                   /* the position, 0 .. pos[nanch - 1] */
	int list_h;
	/* the annotation session (borrowed) and each side's dataset run;
	 * NULL when the runs are not a dataset's (kbtui compare FILE FILE) */
	struct tag *tag;
	long ds_run[2];
};

static long compare_nev(const struct compare_side *s)
{
	return (long)s->run->nev;
}

static void compare_anchor(struct compare *c, long a, long b, int kind)
{
	size_t k = c->nanch++;
	c->at[k][0] = a;
	c->at[k][1] = b;
	c->kind[k] = kind;
	if (k == 0) {
		c->pos[k] = 0;
		return;
	}
	long da = a - c->at[k - 1][0], db = b - c->at[k - 1][1];
	c->pos[k] = c->pos[k - 1] + (size_t)(da > db ? da : db);
}

/* The milestones both runs have, in an order both keep, then the ends. */
static void compare_align(struct compare *c)
{
	const struct milestones *x = &c->side[0].ms, *y = &c->side[1].ms;
	c->nanch = 0;
	compare_anchor(c, 0, 0, -1);
	for (int k = 0; k < MS_END; k++) {
		long a = x->ev[k], b = y->ev[k], la = c->at[c->nanch - 1][0], lb = c->at[c->nanch - 1][1];
		if (a >= la && b >= lb && (a > la || b > lb))
			compare_anchor(c, a, b, k);
	}
	long a = compare_nev(&c->side[0]) - 1, b = compare_nev(&c->side[1]) - 1;
	a = a < 0 ? 0 : a;
	b = b < 0 ? 0 : b;
	if (a > c->at[c->nanch - 1][0] || b > c->at[c->nanch - 1][1])
		compare_anchor(c, a > c->at[c->nanch - 1][0] ? a : c->at[c->nanch - 1][0],
		               b > c->at[c->nanch - 1][1] ? b : c->at[c->nanch - 1][1], MS_END);
}

/* The event of side s at timeline position t. */
static long compare_index(const struct compare *c, int s, size_t t)
{
	for (size_t k = 1; k < c->nanch; k++)
		if (t < c->pos[k]) {
			size_t len = c->pos[k] - c->pos[k - 1];
			size_t d = (size_t)(c->at[k][s] - c->at[k - 1][s]);
			return c->at[k - 1][s] + (long)((t - c->pos[k - 1]) * d / len);
		}
	return c->at[c->nanch - 1][s];
}

static size_t compare_end(const struct compare *c)
{
	return c->pos[c->nanch - 1];
}

/* The anchor at position t, -1 when t is between anchors. */
static int compare_anchor_at(const struct compare *c, size_t t)
{
	for (size_t k = 0; k < c->nanch; k++)
		if (c->pos[k] == t)
			return (int)k;
	return -1;
}

static void compare_goto(struct compare *c, long t)
{
	size_t end = compare_end(c);
	c->t = t < 0 ? 0 : (size_t)t > end ? end : (size_t)t;
	for (int s = 0; s < 2; s++) {
		struct compare_side *sd = &c->side[s];
		sd->cx.sel = (size_t)compare_index(c, s, c->t);
		sd->list.h = c->list_h > 0 ? c->list_h : 1;
		sd->cx.body_h = sd->list.h + 1;
		if (sd->run->nev)
			pane_events_ops.follow(&sd->list, &sd->cx);
	}
	c->v.dirty |= D_LIST | D_STATUS;
}

static void compare_side_init(struct compare_side *sd, struct run *run, const char *title, struct compilerlog *cl)
{
	memset(sd, 0, sizeof *sd);
	sd->run = run;
	sd->title = title;
	milestones_find(run, cl, &sd->ms);
	sd->stats = runstats_new(run);
	sd->cx.run = run;
	sd->list.ops = &pane_events_ops;
	sd->list.built_w = -1;
}

static void compare_init(struct compare *c, struct run *a, const char *ta, struct run *b, const char *tb)
{
	char *path = compilerlog_default_path(), *err = NULL;
	struct compilerlog *cl = compilerlog_new();
	if (!path || compilerlog_load(cl, path, &err) < 0) {
		compilerlog_free(cl);
		cl = NULL;  /* first compile from commands only */
	}
	free(path);
	free(err);
	memset(c, 0, sizeof *c);
	compare_side_init(&c->side[0], a, ta, cl);
	compare_side_init(&c->side[1], b, tb, cl);
	compilerlog_free(cl);
	compare_align(c);
	c->ds_run[0] = c->ds_run[1] = -1;
	c->list_h = LINES - COMPARE_TOP - 1;
	compare_goto(c, 0);
	c->v.dirty = D_ALL;
}

static void compare_free(struct view *v)
{
	struct compare *c = (struct compare *)v;
	for (int s = 0; s < 2; s++)
		runstats_free(c->side[s].stats);
	free(c->v.msg);
	free(c);
}


/* ---- drawing ------------------------------------------------------------------ */

static void compare_cols(int s, int *x, int *w)
{
	int half = COLS / 2;
	*x = s ? half + 1 : 0;
	*w = s ? COLS - half - 1 : half;
}

/* " A  run_id  model  correct 0.4312" */
static void compare_draw_name(struct compare *c, int s, int y, int x, int w)
{
	const struct run_meta *m = &c->side[s].run->meta;
	int role = s == c->cur ? RL_FOCUS : RL_PANE;
	char *id = draw_safe(m->run_id ? m->run_id : c->side[s].title);
	const char *blind = tag_blind_model(m);  /* blind mode: "model 3" */
	char *model = draw_safe(blind ? blind : m->label ? m->label : m->model ? m->model : "?");
	char pf[32] = "";
	if (m->peak_fraction >= 0)
		snprintf(pf, sizeof pf, " %.4f", m->peak_fraction);
	const char *outcome = !m->has_result ? "no result" : m->correct ? "correct" : "incorrect";
	char *verdict = c->tag && c->ds_run[s] >= 0 ? tag_verdict_label(c->tag, (size_t)c->ds_run[s]) : NULL;
	char *line = xasprintf(" %c  %s  %s  %s%s%s%s", s ? 'B' : 'A', id, model, outcome, pf, verdict ? "  " : "",
	                       verdict ? verdict : "");
	draw_fill(y, x, w, role);
	draw_put(y, x, w, line, role);
	free(line);
	free(verdict);
	free(model);
	free(id);
}

/* "compile 12  PASS 40  best 55 (0.4000)  end 80": 1-based events, - when absent */
static void compare_draw_milestones(struct compare *c, int s, int y, int x, int w)
{
	const struct milestones *ms = &c->side[s].ms;
	static const char *const word[MS__COUNT] = { "compile", "PASS", "best", "end" };
	struct sbuf b;
	sbuf_init(&b);
	for (int k = 0; k < MS__COUNT; k++) {
		sbuf_addf(&b, " %c %s ", milestones_letter((enum milestone)k), word[k]);
		if (ms->ev[k] < 0)
			sbuf_adds(&b, "-");
		else
			sbuf_addf(&b, "%ld", ms->ev[k] + 1);
		if (k == MS_BEST && ms->best >= 0)
			sbuf_addf(&b, " (%.4f)", ms->best);
	}
	draw_fill(y, x, w, RL_NORMAL);
	draw_put(y, x, w, b.s, RL_NORMAL);
	sbuf_free(&b);
}

/* The time split and the reasoning honesty mark of a side. */
static void compare_draw_stats(struct compare *c, int s, int y, int x, int w)
{
	const struct runstats *st = c->side[s].stats;
	char *split = runstats_split_text(st), *why = runstats_reasoning_text(st);
	char *line = xasprintf(" %s%s%s", split ? split : "", split ? "  " : "", why);
	draw_fill(y, x, w, RL_DIM);
	draw_put(y, x, w, line, RL_DIM);
	free(line);
	free(split);
	free(why);
}

/* The timeline: the aligned milestones as letters, the position as a bar. */
static void compare_draw_ruler(struct compare *c, int y)
{
	static const char label[] = " aligned ";
	int x0 = (int)sizeof label - 1, w = COLS - x0 - 1;
	size_t end = compare_end(c);
	draw_fill(y, 0, COLS, RL_NORMAL);
	draw_put(y, 0, x0, label, RL_DIM);
	if (w < 4)
		return;
	char *bar = xmalloc((size_t)w + 1);
	memset(bar, '-', (size_t)w);
	bar[w] = '\0';
	draw_put(y, x0, w, bar, RL_DIM);
	free(bar);
	for (size_t k = 1; k < c->nanch; k++) {
		int col = x0 + (int)(end ? c->pos[k] * (size_t)(w - 1) / end : 0);
		char l[2] = { milestones_letter((enum milestone)c->kind[k]), '\0' };
		draw_put(y, col, 1, l, RL_KEY);
	}
	int col = x0 + (int)(end ? c->t * (size_t)(w - 1) / end : 0);
	int k = compare_anchor_at(c, c->t);
	char l[2] = { k > 0 ? milestones_letter((enum milestone)c->kind[k]) : '|', '\0' };
	draw_put(y, col, 1, l, RL_SELECT);
}

static void compare_draw_list(struct compare *c, int s, int y, int x, int w, int h)
{
	struct compare_side *sd = &c->side[s];
	sd->cx.focus = s == c->cur ? 0 : 1;
	sd->list.h = h;
	for (int r = 0; r < h; r++) {  /* a gutter with the side's own milestones */
		long i = (long)(sd->list.top + (size_t)r);
		char l[3] = "  ";
		for (int k = 0; k < MS__COUNT; k++)
			if (sd->ms.ev[k] == i && i < compare_nev(sd))
				l[0] = milestones_letter((enum milestone)k);
		draw_put(y + r, x, 2, l, RL_KEY);
	}
	pane_events_ops.draw(&sd->list, &sd->cx, y, x + 2, w - 2, h);
}

static void compare_draw_status(struct compare *c)
{
	struct sbuf b;
	sbuf_init(&b);
	for (int s = 0; s < 2; s++) {
		long n = compare_nev(&c->side[s]);
		sbuf_addf(&b, " %c %zu/%ld ", s ? 'B' : 'A', n ? c->side[s].cx.sel + 1 : 0, n);
	}
	int k = compare_anchor_at(c, c->t);
	if (k > 0)
		sbuf_addf(&b, " at %s", milestones_name((enum milestone)c->kind[k]));
	if (c->v.msg) {
		sbuf_addf(&b, "  %s", c->v.msg);
		draw_bar(LINES - 1, RL_STATUS, b.s, NULL);
	} else {
		draw_bar(LINES - 1, RL_STATUS, b.s, "m/M milestone  Tab side  Enter replay  h help  q back ");
	}
	sbuf_free(&b);
}

/* The help's frame: a header row. */
static int compare_frame(struct view *v, int *top, int *rows)
{
	(void)v;
	erase();
	if (LINES < COMPARE_TOP + 4 || COLS < 40) {
		mvaddstr(0, 0, "terminal too small");
		return 0;
	}
	draw_bar(0, RL_HEADER, " kbtui compare: keys", NULL);
	*top = 1;
	*rows = LINES - 2;
	return 1;
}

static void compare_draw(struct compare *c)
{
	if (LINES < COMPARE_TOP + 4 || COLS < 40) {
		erase();
		mvaddstr(0, 0, "terminal too small");
	} else {
		int h = LINES - COMPARE_TOP - 1;
		if (h != c->list_h) {
			c->list_h = h;
			compare_goto(c, (long)c->t);
		}
		if (c->v.dirty & D_HEADER) {
			char *right = xasprintf("%zu aligned milestones ", c->nanch - 1);
			draw_bar(0, RL_HEADER, " kbtui compare", right);
			free(right);
		}
		for (int s = 0; s < 2; s++) {
			int x, w;
			compare_cols(s, &x, &w);
			if (c->v.dirty & D_HEADER) {
				compare_draw_name(c, s, 1, x, w);
				compare_draw_milestones(c, s, 2, x, w);
				compare_draw_stats(c, s, 3, x, w);
			}
			if (c->v.dirty & D_LIST)
				compare_draw_list(c, s, COMPARE_TOP, x, w, h);
		}
		if (c->v.dirty & D_HEADER)
			for (int y = 1; y < COMPARE_TOP - 1; y++)
				draw_put(y, COLS / 2, 1, theme_glyph()->sep, RL_DIM);
		if (c->v.dirty & D_LIST) {
			for (int y = COMPARE_TOP; y < COMPARE_TOP + h; y++)
				draw_put(y, COLS / 2, 1, theme_glyph()->sep, RL_DIM);
			compare_draw_ruler(c, COMPARE_TOP - 1);
		}
		if (c->v.dirty & D_STATUS)
			compare_draw_status(c);
	}
	c->v.dirty = 0;
	refresh();
}

/* ---- keys ---------------------------------------------------------------------- */

/* The next (dir 1) or previous (dir -1) aligned milestone. */
static void compare_milestone(struct compare *c, int dir)
{
	if (dir > 0) {
		for (size_t k = 1; k < c->nanch; k++)
			if (c->pos[k] > c->t) {
				compare_goto(c, (long)c->pos[k]);
				return;
			}
		view_say(&c->v, "no milestone after this one");
	} else {
		for (size_t k = c->nanch; k-- > 0;)
			if (c->pos[k] < c->t) {
				compare_goto(c, (long)c->pos[k]);
				return;
			}
		view_say(&c->v, "no milestone before this one");
	}
}

/* Enter: the selected side's replay at the event the view shows for it,
 * with the annotation keys when the run is a dataset's; q comes back here,
 * to the same place. */
static unsigned compare_open(struct compare *c)
{
	struct compare_side *sd = &c->side[c->cur];
	long i = c->ds_run[c->cur];
	struct replay_opts o = { .ev = sd->cx.sel, .tag = i >= 0 ? c->tag : NULL, .ds_run = i >= 0 ? (size_t)i : 0 };
	return view_push(&c->v, replay_view_new(sd->run, sd->title, &o));
}

/* Back from the replay: a there asked for the next unannotated run, which
 * is the browser's to find. */
static unsigned compare_resume(struct view *v, struct view *child)
{
	struct compare *c = (struct compare *)v;
	if (child->result)
		view_say(&c->v, "a finds the next run without a verdict from the browser's list: q to it, then a");
	return 0;
}

/* The annotation keys act on the selected side's run. */
static long compare_tag_run(struct view *v, struct tag **tag)
{
	struct compare *c = (struct compare *)v;
	*tag = c->tag;
	return c->tag ? c->ds_run[c->cur] : -1;
}

/* A key; the loop's shared keys (help, theme, the annotation keys, q) are
 * left to it. */
static unsigned compare_key(struct view *v, const struct key *k)
{
	struct compare *c = (struct compare *)v;
	enum action a = keys_action(k->code, V_COMPARE);
	long page = c->list_h > 1 ? c->list_h - 1 : 1;
	if (view_shared(&c->v, a))
		return VIEW_IGNORED;
	switch (a) {
	case ACT_DOWN: compare_goto(c, (long)c->t + 1); break;
	case ACT_UP: compare_goto(c, (long)c->t - 1); break;
	case ACT_PAGE_DOWN: compare_goto(c, (long)c->t + page); break;
	case ACT_PAGE_UP: compare_goto(c, (long)c->t - page); break;
	case ACT_FIRST: compare_goto(c, 0); break;
	case ACT_LAST: compare_goto(c, (long)compare_end(c)); break;
	case ACT_NEXT_MILESTONE: compare_milestone(c, 1); break;
	case ACT_PREV_MILESTONE: compare_milestone(c, -1); break;
	case ACT_SIDE:
		c->cur = !c->cur;
		c->v.dirty |= D_HEADER | D_LIST;
		break;
	case ACT_OPEN_SIDE: return compare_open(c);
	default:
		break;
	}
	return 0;
}

static void compare_view_draw(struct view *v)
{
	compare_draw((struct compare *)v);
}

static const struct view_ops compare_view_ops = {
	.name = "compare",
	.keys = V_COMPARE,
	.common = VIEW_HAS_HELP | VIEW_HAS_THEME | VIEW_HAS_REDRAW | VIEW_HAS_TAG | VIEW_HAS_QUIT,
	.margin = "",
	.draw = compare_view_draw,
	.key = compare_key,
	.resume = compare_resume,
	.frame = compare_frame,
	.tag_run = compare_tag_run,
	.free = compare_free,
};

struct view *compare_view_new(struct run *a, const char *title_a, struct run *b, const char *title_b)
{
	struct compare *c = xmalloc(sizeof *c);
	compare_init(c, a, title_a, b, title_b);
	c->v.ops = &compare_view_ops;
	return &c->v;
}

/* ---- entry points ----------------------------------------------------------------- */

struct view *compare_dataset_view(struct dataset *ds, struct tag *tag, size_t a, size_t b, char **err)
{
	struct run *r[2];
	size_t i[2] = { a, b };
	for (int s = 0; s < 2; s++) {
		r[s] = dataset_load(ds, i[s]);
		if (!r[s]) {
			const char *e = ds->runs[i[s]].load_error;
			*err = draw_safe(e ? e : "cannot load this run");
			return NULL;
		}
	}
	const char *ta = ds->runs[a].meta.run_id ? ds->runs[a].meta.run_id : ds->runs[a].transcript;
	const char *tb = ds->runs[b].meta.run_id ? ds->runs[b].meta.run_id : ds->runs[b].transcript;
	struct compare *c = (struct compare *)compare_view_new(r[0], ta, r[1], tb);
	c->tag = tag;
	c->ds_run[0] = (long)a;
	c->ds_run[1] = (long)b;
	return &c->v;
}

/* A run id, or a prefix of exactly one, in ds; -1 with a message on stderr. */
static long compare_find(const struct dataset *ds, const char *id)
{
	long exact = dataset_find(ds, id), found = -1;
	size_t n = 0;
	if (exact >= 0)
		return exact;
	for (size_t i = 0; i < ds->nruns; i++)
		if (ds->runs[i].meta.run_id && util_starts_with(ds->runs[i].meta.run_id, id)) {
			found = (long)i;
			n++;
		}
	if (n == 1)
		return found;
	if (n == 0)
		textsafe_fprintf(stderr, "kbtui: %s: no run of %s has this id or prefix\n", id, ds->root);
	else
		textsafe_fprintf(stderr, "kbtui: %s: %zu runs of %s start with it; give more of the id\n", id, n, ds->root);
	return -1;
}

/* One side of kbtui compare: a transcript, a run directory or a run id.
 * *own gets a run the caller frees; a dataset run stays the dataset's. */
static struct run *compare_load(const char *arg, const char *format, struct dataset **ds, const char *dir,
                                struct run **own, const char **title)
{
	char *err = NULL;
	*own = NULL;
	if (util_is_file(arg) || util_is_dir(arg)) {
		char *file = util_is_dir(arg) ? dataset_find_transcript(arg) : xstrdup(arg);
		if (!file) {
			textsafe_fprintf(stderr, "kbtui: %s: no transcript in this directory\n", arg);
			return NULL;
		}
		*own = parser_load_final(file, format ? parser_find(format) : NULL, &err);
		if (!*own) {
			textsafe_fprintf(stderr, "kbtui: %s\n", err);
			free(err);
		} else if (cmd_not_a_transcript(*own, file, stderr)) {  /* as the replay refuses it */
			if ((*own)->malformed)
				cmd_report_run(*own, stderr);
			run_free(*own);
			*own = NULL;
		}
		free(file);
		*title = arg;
		return *own;
	}
	if (!*ds && !(*ds = dataset_open(dir, &err))) {
		textsafe_fprintf(stderr, "kbtui: %s\n", err);
		free(err);
		return NULL;
	}
	long i = compare_find(*ds, arg);
	if (i < 0)
		return NULL;
	struct run *r = dataset_load(*ds, (size_t)i);
	if (!r)
		textsafe_fprintf(stderr, "kbtui: %s\n", (*ds)->runs[i].load_error ? (*ds)->runs[i].load_error : "cannot load");
	*title = (*ds)->runs[i].meta.run_id;
	return r;
}

int compare_cmd(int nargs, char **args, const char *format, const char *argv0)
{
	if (nargs < 2 || nargs > 3) {
		fprintf(stderr, "kbtui: compare needs RUN_A and RUN_B, and a DIR at most\nTry 'kbtui --help'.\n");
		return CMD_USAGE;
	}
	char *def = nargs == 3 ? NULL : dataset_default_dir(argv0);
	const char *dir = nargs == 3 ? args[2] : def;
	struct dataset *ds = NULL;
	struct run *own[2] = { NULL, NULL }, *run[2] = { NULL, NULL };
	const char *title[2] = { NULL, NULL };
	int rc = CMD_OK;
	for (int s = 0; s < 2 && rc == CMD_OK; s++)
		if (!(run[s] = compare_load(args[s], format, &ds, dir, &own[s], &title[s])))
			rc = CMD_BADINPUT;
	if (rc == CMD_OK && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		fprintf(stderr, "kbtui: the compare view needs a terminal\n");
		rc = CMD_USAGE;
	}
	if (rc == CMD_OK) {
		tui_start();
		tui_run(compare_view_new(run[0], title[0], run[1], title[1]));
		tui_stop();
	}
	run_free(own[0]);
	run_free(own[1]);
	dataset_free(ds);
	free(def);
	return rc;
}
