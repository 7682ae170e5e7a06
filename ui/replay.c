/* replay.c: one run replayed, as a view (ui/view.h): the event list beside
 * a pane (detail, compiler output, GPU timing, ...) or, on a big terminal,
 * beside four (reasoning, detail, compiler output, timing), the timeline in the
 * status bar, search, jumps, playback, a feed for a growing run. Keys, the
 * playback timer and the feed's polls (tui.c's loop) change state and set
 * dirty flags; the screen is redrawn once per pass from them. */
#include "config.h"

#include <curses.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>

#include "draw.h"
#include "flags.h"
#include "keys.h"
#include "mouse.h"
#include "noise.h"
#include "provenance.h"
#include "reeval_view.h"
#include "replay.h"
#include "run.h"
#include "runstats.h"
#include "search.h"
#include "tag.h"
#include "theme.h"
#include "tallies.h"
#include "tlines.h"
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
	[PANE_ANNOT] = &pane_annot_ops,
	[PANE_TIMELINE] = &pane_timeline_ops,
	[PANE_REASONING] = &pane_reasoning_ops,
};

/* The four-pane layout, in reading order (Tab's too): what the agent
 * thought, what it ran and got back, what the compiler said, what the
 * benchmark measured. Top left, top right, bottom left, bottom right. */
static const int replay_four_panes[4] = { PANE_REASONING, PANE_DETAIL, PANE_COMPILER, PANE_TIMING };

/* Playback speeds; 1x is real time where the transcript has timestamps,
 * else REPLAY_RATE events a second. */
static const double replay_speeds[] = { 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128 };
#define REPLAY_NSPEEDS (sizeof replay_speeds / sizeof replay_speeds[0])
#define REPLAY_SPEED_1X 2
#define REPLAY_RATE 2.0
/* A long gap (a compile, a benchmark, the model thinking) plays in at most
 * this many seconds, so playback never looks stuck. */
#define REPLAY_MAX_GAP 3.0

static double replay_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

static void replay_prompt_open(struct replay *rp, int kind);

static void replay_host_ask(struct pane_ctx *cx, int kind)
{
	replay_prompt_open(replay_of(cx), kind);
}

static const struct pane_host replay_host = {
	.say = replay_host_say,
	.dirty = replay_host_dirty,
	.select = replay_host_select,
	.ask = replay_host_ask,
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
	flag_list_delete(rp->cx.flags);
	free(rp->v.msg);
	free(rp->matches);
	free(rp->noise.shown);
	search_free(rp->cx.search);
	sbuf_free(&rp->input);
}


/* ---- layout and drawing ----------------------------------------------------- */

/* The banner under the header (owned), NULL when none: a transcript
 * without its completion marker, dataset files that disagree on the
 * outcome; the short words where the long ones do not fit. */
static char *replay_banner(const struct replay *rp)
{
	const struct run *run = rp->cx.run;
	char *b = prov_banner(run->prov, run->incomplete, 0, theme_glyph()->differ);
	if (b && (int)draw_width(b) > COLS) {
		free(b);
		b = prov_banner(run->prov, run->incomplete, 1, theme_glyph()->differ);
	}
	return b;
}

/* Where a banner row of width w breaks: after the last "; ", "  " or ", "
 * that fits (between fields or files, never inside a value), else at the
 * end (the row is then cut). */
static size_t replay_banner_break(const char *b, int w)
{
	size_t cut = 0, n = strlen(b);
	if ((int)draw_width(b) <= w)
		return n;
	for (size_t i = 1; i + 1 < n; i++) {
		if (b[i + 1] != ' ' || (b[i] != ';' && b[i] != ' ' && b[i] != ','))
			continue;
		char *head = xstrndup(b, i + 1);
		int fits = (int)draw_width(head) <= w;
		free(head);
		if (!fits)
			break;
		cut = i + 1;
	}
	return cut ? cut : n;
}

#define REPLAY_BANNER_ROWS 4
/* The banner's rows (owned, NULL-terminated): a list of disagreements
 * wider than the screen goes on, indented, on the next rows (up to
 * REPLAY_BANNER_ROWS), broken between items: the whole list is what a
 * reader must be able to see. */
static char **replay_banner_split(const char *b)
{
	char **rows = xcalloc(REPLAY_BANNER_ROWS + 1, sizeof *rows);
	for (int r = 0; b && *b && r < REPLAY_BANNER_ROWS; r++) {
		size_t k = replay_banner_break(b, r ? COLS - 2 : COLS);
		rows[r] = r ? xasprintf("  %.*s", (int)k, b) : xstrndup(b, k);
		b += k;
		while (*b == ' ')
			b++;
	}
	return rows;
}

static void replay_banner_free(char **rows)
{
	for (int r = 0; rows && rows[r]; r++)
		free(rows[r]);
	free(rows);
}

static int replay_banner_rows(const struct replay *rp)
{
	char *b = replay_banner(rp);
	char **rows = replay_banner_split(b);
	int n = 0;
	while (rows[n])
		n++;
	replay_banner_free(rows);
	free(b);
	return n;
}

static int replay_four_has(int pane)
{
	for (int k = 0; k < 4; k++)
		if (replay_four_panes[k] == pane)
			return 1;
	return 0;
}

/* Shows the four panes (on 1) or the one beside the list (0). The focused
 * pane stays focused; the one-pane layout gets back the pane it had. */
static void replay_set_four(struct replay *rp, int on)
{
	if (on == rp->four)
		return;
	rp->four = on;
	rp->cx.before = on;  /* compiler and timing: the latest at or before the selection */
	if (on) {
		rp->one_right = rp->right;
		if (!replay_four_has(rp->right))
			rp->right = PANE_DETAIL;
	} else if (rp->cx.focus != 1) {
		rp->right = rp->one_right;
	}
	for (int p = 0; p < PANE__COUNT; p++)
		pane_invalidate(&rp->panes[p]);
	replay_goto(rp, rp->cx.sel);  /* the whole-run panes follow as the layout has them */
	rp->v.dirty = D_ALL;
	erase();
}

/* The rectangle of the four-pane layout's pane k (replay_four_panes). */
static void replay_four_rect(const struct replay *rp, int k, int *y, int *x, int *w, int *h)
{
	int lw = (rp->cx.side_w - 1) / 2, th = rp->cx.body_h / 2;
	*x = rp->side_x + (k % 2 ? lw + 1 : 0);
	*w = k % 2 ? rp->cx.side_w - lw - 1 : lw;
	*y = rp->body_y + (k / 2 ? th : 0);
	*h = k / 2 ? rp->cx.body_h - th : th;
}

static void replay_layout(struct replay *rp)
{
	rp->body_y = 1 + replay_banner_rows(rp);
	rp->cx.body_h = LINES - rp->body_y - 1;
	if (rp->cx.body_h < 2)
		rp->cx.body_h = 2;
	replay_set_four(rp, rp->layout == REPLAY_LAYOUT_FOUR ||
	                (rp->layout == REPLAY_LAYOUT_AUTO && COLS >= REPLAY_FOUR_COLS && LINES >= REPLAY_FOUR_LINES));
	/* four panes: a narrower list leaves each pane room */
	int lw = rp->four ? COLS / 3 : COLS * 2 / 5;
	if (lw > (rp->four ? 64 : 72))
		lw = rp->four ? 64 : 72;
	if (lw < 24)
		lw = COLS < 48 ? COLS / 2 : 24;
	lw += rp->list_adjust;
	if (lw > COLS - 20)
		lw = COLS - 20;
	if (lw < 12)
		lw = 12;
	rp->list_w = lw;
	rp->side_x = lw + 1;
	rp->cx.side_w = COLS - lw - 1;
	if (rp->zoom && rp->cx.focus == 0) {
		rp->list_w = COLS;
		rp->cx.side_w = 0;
	} else if (rp->zoom) {
		rp->list_w = 0;
		rp->side_x = 0;
		rp->cx.side_w = COLS;
	}
}

/* The run's outcome as its result has it, and its wall time (unless
 * !with_time): "correct 0.4589  45:00" (the dataset's transcripts keep no
 * timestamps); "" unknown. */
static void replay_outcome(const struct run *run, int with_time, char *buf, size_t n)
{
	const struct run_meta *m = &run->meta;
	/* the dataset's files disagree: marked beside the word the banner contradicts */
	const char *mark = run->prov && prov_diffs(run->prov, NULL, 0) ? theme_glyph()->differ : "";
	char peak[24] = "", el[24] = "";
	if (m->peak_fraction >= 0)
		snprintf(peak, sizeof peak, " %.4f", m->peak_fraction);
	if (m->elapsed_seconds >= 0 && with_time)
		draw_duration(el, sizeof el, m->elapsed_seconds);
	snprintf(buf, n, "%s%s%s%s%s%s", !m->has_result ? "" : m->correct ? "correct" : m->has_solution ? "failed" : "no solution",
	         m->has_result ? peak : "", *mark ? " " : "", mark, (m->has_result || *mark) && *el ? "  " : "", el);
}

/* Whether the header's run statistics are to be made again: the run grew
 * since; a growing run's at most every REPLAY_STATS_S seconds, as they
 * read the whole run (a watch of a long run would spend its time there). */
#define REPLAY_STATS_S 2.0
static int replay_stats_due(const struct replay *rp)
{
	if (!rp->stats)
		return 1;
	if (rp->stats->nev == rp->cx.run->nev)
		return 0;
	return !rp->feed.f || replay_now() - rp->stats_at >= REPLAY_STATS_S;
}

/* The header's right side, shorter at each level: all of it (0), without
 * the format (1), the problem (2: the run id has it), the wall time (3).
 * Verdict, model and outcome stay at every level. */
#define REPLAY_HEAD_LEVELS 4
static char *replay_header_right(const struct run *run, const char *verdict, const char *model, const char *prob,
                                 const char *fmt, int level)
{
	char outcome[64];
	replay_outcome(run, level < 3, outcome, sizeof outcome);
	return xasprintf("%s%s%s%s%s%s%s%s%s ", verdict ? verdict : "", verdict ? "  " : "", model, level < 2 ? "  " : "",
	                 level < 2 ? prob : "", level < 1 ? "  " : "", level < 1 ? fmt : "", *outcome ? "  " : "", outcome);
}

static void replay_draw_header(struct replay *rp)
{
	const struct run_meta *m = &rp->cx.run->meta;
	char *t = draw_safe(rp->title);
	char *model = draw_safe(m->label ? m->label : m->model), *prob = draw_safe(m->problem);
	char *fmt = draw_safe(m->format);
	char *verdict = rp->cx.tag ? tag_verdict_label(rp->cx.tag, rp->cx.ds_run) : NULL;
	const char *view = rp->feed.f && rp->feed.f->name ? rp->feed.f->name : "replay";  /* watch, live */
	char *left = xasprintf(" kbtui %s  %s", view, t);
	/* on a narrow terminal the less telling parts go first */
	int level = 0;
	char *right = replay_header_right(rp->cx.run, verdict, model, prob, fmt, level);
	while (level + 1 < REPLAY_HEAD_LEVELS && (int)(draw_width(left) + draw_width(right)) + 2 >= COLS &&
	       COLS - (int)draw_width(right) - 3 < 20) {
		free(right);
		right = replay_header_right(rp->cx.run, verdict, model, prob, fmt, ++level);
	}
	free(verdict);
	if (!rp->painted && !rp->stats) {
		rp->deferred = 1;  /* the first screen does not wait for the time split */
	} else if (replay_stats_due(rp)) {  /* made again when the run grew */
		runstats_free(rp->stats);
		rp->stats = runstats_new(rp->cx.run);
		rp->stats_at = replay_now();
	}
	int room = COLS - (int)draw_width(left) - (int)draw_width(right) - 5;
	char *marks = room > 0 && rp->stats ? runstats_summary(rp->stats, (size_t)room) : NULL;
	if (marks) {  /* "model 41m tool 12m: ...  reasoning redacted: ...", when there is room */
		char *r = xasprintf("%s  %s", marks, right);
		free(right);
		free(marks);
		right = r;
	}
	if (COLS - (int)draw_width(right) - 3 < 20) {
		/* what the run is (verdict, model, outcome) outlasts its id, and
		 * the view's name */
		char *id = xasprintf(" %s", t);
		int rw = (int)draw_width(right);
		draw_fill(0, 0, COLS, RL_HEADER);
		if (COLS - rw - 1 > 4)
			draw_fit_mid(0, 0, COLS - rw - 1, id, RL_HEADER);
		draw_put(0, COLS - rw > 0 ? COLS - rw : 0, COLS, right, RL_HEADER);
		free(id);
	} else {
		/* what the run is outlasts its id */
		draw_bar_cut(0, RL_HEADER, left, draw_width(left) - draw_width(t), right);
	}
	free(left);
	free(right);
	free(model);
	free(prob);
	free(fmt);
	free(t);
	char *banner = replay_banner(rp);
	char **rows = replay_banner_split(banner);
	for (int r = 0; rows[r] && 1 + r < rp->body_y; r++)
		draw_bar(1 + r, RL_BANNER, rows[r], NULL);
	replay_banner_free(rows);
	free(banner);
}

/* Seconds since the first timestamp at event i, -1 when unknown. */
static double replay_elapsed(const struct replay *rp, size_t i)
{
	if (!rp->tally.t0)
		return -1;
	for (size_t k = i + 1; k-- > 0;)  /* the last timestamp at or before i */
		if (rp->cx.run->ev[k].ts > 0)
			return rp->cx.run->ev[k].ts - rp->tally.t0;
	return 0;
}

static double replay_total_time(const struct replay *rp)
{
	return rp->cx.run->nev ? replay_elapsed(rp, rp->cx.run->nev - 1) : -1;
}

/* The index of sel among the matches (1-based), 0 when sel is not one. */
static size_t replay_match_index(const struct replay *rp)
{
	size_t lo = 0, hi = rp->cx.nmatches;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rp->matches[mid] < rp->cx.sel)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < rp->cx.nmatches && rp->matches[lo] == rp->cx.sel ? lo + 1 : 0;
}

static void replay_draw_prompt(struct replay *rp)
{
	char *in = draw_safe(rp->input.s ? rp->input.s : "");
	char *line = rp->prompt == '%' ? xasprintf("Go to percent: %s", in)
	             : rp->prompt == 'Q' ? xasprintf("Quote label: %s", in)
	                                 : xasprintf("%c%s", rp->prompt, in);
	draw_bar(LINES - 1, RL_STATUS, line, "Enter go  Esc cancel ");
	int cx = (int)draw_width(line);
	move(LINES - 1, cx < COLS ? cx : COLS - 1);
	free(line);
	free(in);
}

/* The live indicator of a growing run, and a hint when the view does not
 * follow its tail; returns the indicator's width (0: none). */
static int replay_feed_label(const struct replay *rp, struct sbuf *b)
{
	size_t n = rp->cx.run->nev;
	if (!rp->feed.f)
		return 0;
	if (rp->feed.said)
		sbuf_addf(b, " %s", rp->feed.said);
	if (n && rp->cx.sel + 1 < n)
		sbuf_adds(b, " (G follows)");
	sbuf_adds(b, " |");
	return rp->feed.said ? (int)draw_width(rp->feed.said) : 0;
}

static void replay_draw_status(struct replay *rp)
{
	const struct run *run = rp->cx.run;
	size_t n = run->nev, i = n ? rp->cx.sel : 0;
	char in[24], out[24], cache[24];
	struct sbuf b;
	if (rp->prompt) {
		replay_draw_prompt(rp);
		return;
	}
	util_fmt_count(in, sizeof in, n ? rp->tally.in[i] : 0);
	util_fmt_count(out, sizeof out, n ? rp->tally.out[i] : 0);
	util_fmt_count(cache, sizeof cache, n ? rp->tally.cache[i] : 0);
	sbuf_init(&b);
	int live_w = replay_feed_label(rp, &b);
	sbuf_addf(&b, " event %zu/%zu %3d%%", n ? i + 1 : 0, n, n > 1 ? (int)(100 * i / (n - 1)) : 100);
	size_t pos_len = b.len;  /* what a long message leaves standing */
	double el = n ? replay_elapsed(rp, i) : -1;
	if (el >= 0) {
		char a[32], t[32];
		draw_duration(a, sizeof a, el);
		draw_duration(t, sizeof t, replay_total_time(rp));
		sbuf_addf(&b, "  time +%s/%s", a, t);
	}
	/* a parser that knows its totals undercount says so: ~ before each */
	const char *ap = run->tokens_approx ? "~" : "";
	sbuf_addf(&b, "  tokens in %s%s out %s%s", ap, in, ap, out);
	if (n && rp->tally.cache[i])
		sbuf_addf(&b, " cache %s%s", ap, cache);
	sbuf_addf(&b, "  turn %zu/%zu  tool calls %zu", n ? rp->tally.turns[i] : 0, n ? rp->tally.turns[n - 1] : 0,
	          n ? rp->tally.tools[i] : 0);
	if (run->incomplete)  /* not INCOMPLETE when result.json says the session completed */
		sbuf_adds(&b, run->prov && prov_says_complete(run->prov) >= 0 ? "  no end marker" : "  INCOMPLETE");
	if (run->malformed)
		sbuf_addf(&b, "  %d malformed", run->malformed);
	if (rp->cx.search) {
		size_t k = replay_match_index(rp);
		if (k)
			sbuf_addf(&b, "  match %zu/%zu", k, rp->cx.nmatches);
		else
			sbuf_addf(&b, "  %zu matches", rp->cx.nmatches);
	}
	if (rp->play.on)
		sbuf_addf(&b, "  %s %gx", theme_glyph()->play, replay_speeds[rp->play.speed]);
	else if (rp->play.speed != REPLAY_SPEED_1X)
		sbuf_addf(&b, "  %s %gx", theme_glyph()->pause, replay_speeds[rp->play.speed]);
	char *step = rp->stats && el >= 0 ? runstats_event_text(rp->stats, i) : NULL;  /* "tool 3m compile" */
	if (step && (int)(draw_width(b.s) + strlen(step)) + 8 + 54 < COLS)  /* when the key hints still fit */
		sbuf_addf(&b, "  step %s", step);
	free(step);
	if (rp->count >= 0)
		sbuf_addf(&b, "  %ld", rp->count);
	if (rp->v.msg && (int)(draw_width(b.s) + draw_width(rp->v.msg)) + 2 > COLS) {
		/* a message that does not fit after the counters takes the bar
		 * but the position */
		b.s[pos_len] = '\0';
		sbuf_adds(&b, "  ");
		int w = (int)draw_width(b.s);
		if (w + (int)draw_width(rp->v.msg) > COLS)
			w = 0;
		draw_bar(LINES - 1, RL_MSG, "", NULL);
		if (w)
			draw_put(LINES - 1, 0, w, b.s, RL_STATUS);
		draw_put(LINES - 1, w, COLS - w, rp->v.msg, RL_MSG);
	} else if (rp->v.msg) {
		sbuf_adds(&b, "  ");
		draw_bar(LINES - 1, RL_STATUS, b.s, NULL);
		draw_put(LINES - 1, (int)draw_width(b.s), COLS - (int)draw_width(b.s), rp->v.msg, RL_MSG);
	} else if (rp->cx.tag) {
		char *keys = xasprintf("%s  h help  q back ", tag_keys_hint());
		draw_bar(LINES - 1, RL_STATUS, b.s, keys);
		free(keys);
	} else {
		/* four panes: = is the way back to v's one pane */
		draw_bar(LINES - 1, RL_STATUS, b.s, rp->four ? "Tab focus  = layout  / search  P play  h help  q back "
		                                             : "Tab focus  v pane  / search  P play  h help  q back ");
	}
	if (live_w && !rp->v.msg)
		draw_put(LINES - 1, 1, live_w, rp->feed.said, RL_BANNER);
	sbuf_free(&b);
}

/* The help's frame: the header and the status bar around it. */
static int replay_frame(struct view *v, int *top, int *rows)
{
	struct replay *rp = (struct replay *)v;
	replay_layout(rp);
	erase();
	if (LINES < 6 || COLS < 30) {
		mvaddstr(0, 0, "terminal too small");
		return 0;
	}
	replay_draw_header(rp);
	replay_draw_status(rp);
	*top = rp->body_y;
	*rows = LINES - rp->body_y - 1;
	return 1;
}

static void replay_paint(struct replay *rp, void (*paint)(void *arg, int y, int x, int w, int h), void *arg);

/* A pane that reads the whole run, not read yet on the first screen: its
 * header and a word that it is coming (the poll reads it next). */
static void replay_draw_reading(struct replay *rp, int p, int y, int x, int w, int h)
{
	char head[160];
	snprintf(head, sizeof head, " %s", rp->panes[p].ops->name);
	draw_fill(y, x, w, RL_PANE);
	draw_put(y, x, w, head, RL_PANE);
	for (int r = 1; r < h; r++)
		draw_fill(y + r, x, w, RL_NORMAL);
	if (h > 1)
		draw_put(y + 1, x + 1, w - 1, "reading the run...", RL_DIM);
	rp->deferred = 1;
}

/* The four panes beside the list, a rule between the two columns. */
static void replay_draw_four(struct replay *rp)
{
	int y, x, w, h;
	for (int k = 0; k < 4; k++) {
		int p = replay_four_panes[k];
		replay_four_rect(rp, k, &y, &x, &w, &h);
		if (!rp->painted && !rp->panes[p].ready && rp->panes[p].ops->init)
			replay_draw_reading(rp, p, y, x, w, h);
		else
			pane_draw(&rp->panes[p], &rp->cx, y, x, w, h, rp->cx.focus == 1 && rp->right == p);
		if (k % 2 == 0)
			for (int r = y; r < y + h; r++)
				draw_put(r, x + w, 1, theme_glyph()->sep, RL_DIM);
	}
}

void replay_draw(struct replay *rp)
{
	replay_paint(rp, NULL, NULL);
}

/* What is dirty, with paint (NULL: none) over the side pane whenever the
 * panes are drawn, before the status bar (a view over the replay: R's
 * re-evaluation). */
static void replay_paint(struct replay *rp, void (*paint)(void *arg, int y, int x, int w, int h), void *arg)
{
	if (rp->v.dirty & D_ALL)
		replay_layout(rp);
	if (LINES < 6 || COLS < 30) {
		erase();
		mvaddstr(0, 0, "terminal too small");
		rp->v.dirty = 0;
		refresh();
		return;
	}
	{
		if (rp->v.dirty & D_HEADER)
			replay_draw_header(rp);
		if ((rp->v.dirty & D_LIST) && rp->list_w > 0)
			pane_draw(&rp->panes[PANE_EVENTS], &rp->cx, rp->body_y, 0, rp->list_w, rp->cx.body_h, rp->cx.focus == 0);
		if ((rp->v.dirty & (D_LIST | D_DETAIL)) && rp->cx.side_w > 0) {
			if (rp->list_w > 0)
				for (int y = rp->body_y; y < rp->body_y + rp->cx.body_h; y++)
					draw_put(y, rp->list_w, 1, theme_glyph()->sep, RL_DIM);
			if (rp->four && !rp->zoom)
				replay_draw_four(rp);
			else
				pane_draw(&rp->panes[rp->right], &rp->cx, rp->body_y, rp->side_x, rp->cx.side_w, rp->cx.body_h,
				          rp->cx.focus == 1);
		}
		if (paint && (rp->v.dirty & (D_LIST | D_DETAIL)))
			paint(arg, rp->body_y, rp->side_x, rp->cx.side_w, rp->cx.body_h);
		if (rp->v.dirty & D_STATUS)
			replay_draw_status(rp);
	}
	curs_set(rp->prompt ? 1 : 0);
	rp->v.dirty = 0;
	rp->painted = 1;
	refresh();
}

/* ---- moving ------------------------------------------------------------------ */

/* s: the noise (src/noise.h) of the whole run, found again (the run may
 * have grown), hidden from the list. */
static void replay_noise_make(struct replay *rp)
{
	size_t nshown, nhidden;
	free(rp->noise.shown);
	rp->noise.shown = noise_shown(rp->cx.run, &nshown, &nhidden);
	rp->cx.shown = nshown ? rp->noise.shown : NULL;  /* nothing but noise: nothing hidden */
	rp->cx.nshown = nshown;
	rp->cx.nhidden = nshown ? nhidden : 0;
	rp->v.dirty |= D_LIST | D_DETAIL | D_STATUS;
}

/* s: noise hidden, or shown again; the selection stays, or moves to the
 * nearest shown event. */
static void replay_noise(struct replay *rp)
{
	rp->noise.on = !rp->noise.on;
	if (rp->noise.on) {
		replay_noise_make(rp);
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

/* Moves to the next (dir 1) or previous (dir -1) event that matches. */
static void replay_seek(struct replay *rp, int dir, int (*match)(struct replay *, size_t), const char *none)
{
	size_t n = rp->cx.run->nev;
	for (size_t i = rp->cx.sel; n && (dir > 0 ? i + 1 < n : i > 0);) {
		i = dir > 0 ? i + 1 : i - 1;
		if (!pane_events_hidden(&rp->cx, i) && match(rp, i)) {
			replay_goto(rp, i);
			return;
		}
	}
	view_say(&rp->v, none);
}

static int replay_is_call(struct replay *rp, size_t i)
{
	return rp->cx.run->ev[i].kind == EV_TOOL_CALL;
}

static int replay_is_error(struct replay *rp, size_t i)
{
	const struct event *e = &rp->cx.run->ev[i];
	return e->kind == EV_ERROR || (e->kind == EV_TOOL_RESULT && e->is_error);
}

static int replay_is_compile(struct replay *rp, size_t i)
{
	struct pane *p = pane_ready(&rp->panes[PANE_COMPILER], &rp->cx);
	return p->ops->has && p->ops->has(p, i);
}

static int replay_is_bench(struct replay *rp, size_t i)
{
	struct pane *p = pane_ready(&rp->panes[PANE_TIMING], &rp->cx);
	return p->ops->has && p->ops->has(p, i);
}

static int replay_is_flagged(struct replay *rp, size_t i)
{
	return rp->cx.flags && flag_list_find(rp->cx.flags, i);
}

/* The flags not evaluated yet, evaluated now (a seek needs them all). */
static void replay_flags_all(struct replay *rp)
{
	if (rp->cx.flags && rp->cx.run->nev && !flag_list_known(rp->cx.flags, rp->cx.run->nev - 1)) {
		flag_list_advance(rp->cx.flags, rp->cx.run, (size_t)-1);
		pane_invalidate(&rp->panes[PANE_DETAIL]);
		rp->v.dirty |= D_LIST | D_DETAIL;
	}
}

/* Moves the selection by delta rows of the list (events, or those s shows). */
static void replay_move(struct replay *rp, long delta)
{
	long i = (long)pane_events_row_of(&rp->cx, rp->cx.sel) + delta;
	replay_goto(rp, pane_events_at(&rp->cx, i < 0 ? 0 : (size_t)i));
}

static void replay_percent(struct replay *rp, long pct)
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

/* The next match from sel in direction dir, wrapping once, like vi. */
static void replay_search_step(struct replay *rp, int dir)
{
	char buf[160];
	if (!rp->cx.search) {
		view_say(&rp->v, "no search yet: / searches forward, ? backward");
		return;
	}
	if (!rp->cx.nmatches) {
		char *pat = draw_safe(search_pattern(rp->cx.search));
		snprintf(buf, sizeof buf, "pattern not found: %s", pat);
		free(pat);
		view_say(&rp->v, buf);
		return;
	}
	size_t lo = 0, hi = rp->cx.nmatches;  /* first match > sel */
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rp->matches[mid] <= rp->cx.sel)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t k;
	if (dir > 0) {
		k = lo < rp->cx.nmatches ? lo : 0;
		if (lo == rp->cx.nmatches)
			view_say(&rp->v, "search hit the end, continuing at the start");
	} else {
		size_t before = lo > 0 && rp->matches[lo - 1] == rp->cx.sel ? lo - 1 : lo;  /* first match >= sel */
		k = before > 0 ? before - 1 : rp->cx.nmatches - 1;
		if (before == 0)
			view_say(&rp->v, "search hit the start, continuing at the end");
	}
	for (size_t tries = 0; pane_events_hidden(&rp->cx, rp->matches[k]) && tries < rp->cx.nmatches; tries++)
		k = dir > 0 ? (k + 1) % rp->cx.nmatches : (k + rp->cx.nmatches - 1) % rp->cx.nmatches;  /* s hides it */
	if (pane_events_hidden(&rp->cx, rp->matches[k])) {
		view_say(&rp->v, "every match is hidden (s shows them)");
		return;
	}
	replay_goto(rp, rp->matches[k]);
	pane_invalidate(&rp->panes[PANE_DETAIL]);
}

static void replay_search_set(struct replay *rp, const char *pattern, int dir)
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
	replay_search_step(rp, dir);
}

/* ---- the prompt ---------------------------------------------------------------- */

static void replay_prompt_open(struct replay *rp, int kind)
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
static void replay_prompt_key(struct replay *rp, const struct key *k)
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

static void replay_play(struct replay *rp, int on)
{
	rp->play.on = on && rp->cx.run->nev > 0;
	if (rp->play.on && rp->cx.sel + 1 >= rp->cx.run->nev)
		replay_goto(rp, 0);  /* at the end, play from the start */
	rp->play.due = replay_now() + (rp->play.on ? replay_gap(rp) : 0);
	rp->v.dirty |= D_STATUS;
}

/* Called when the timer is due: one event on. */
static void replay_tick(struct replay *rp)
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

static void replay_speed(struct replay *rp, int delta)
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
static void replay_layout_key(struct replay *rp)
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
static void replay_side(struct replay *rp, int delta)
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
static void replay_goto_row(struct replay *rp)
{
	struct pane *p = pane_ready(&rp->panes[rp->right], &rp->cx);
	size_t ev = rp->cx.focus == 1 && !p->ops->per_event ? pane_top_event(p) : TLINE_NO_EVENT;
	if (ev == TLINE_NO_EVENT)
		return;
	replay_goto(rp, ev);
}

/* Tab: the list, then each pane shown beside it, then the list again. */
static void replay_focus_next(struct replay *rp)
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
static unsigned replay_mouse(struct view *v, const struct mouse_event *mp)
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

/* An action on the replay; the loop's shared keys (help, theme, the
 * annotation keys, q) are left to it, but a with a session leaves for the
 * next run without a verdict. */
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
	case ACT_NEXT_MATCH: replay_search_step(rp, rp->search_dir); break;
	case ACT_PREV_MATCH: replay_search_step(rp, -rp->search_dir); break;
	case ACT_NEXT_TOOL: replay_seek(rp, 1, replay_is_call, "no tool call after this one"); break;
	case ACT_PREV_TOOL: replay_seek(rp, -1, replay_is_call, "no tool call before this one"); break;
	case ACT_NEXT_ERROR: replay_seek(rp, 1, replay_is_error, "no error after this one"); break;
	case ACT_PREV_ERROR: replay_seek(rp, -1, replay_is_error, "no error before this one"); break;
	case ACT_NEXT_COMPILE: replay_seek(rp, 1, replay_is_compile, "no compiler error after this one"); break;
	case ACT_PREV_COMPILE: replay_seek(rp, -1, replay_is_compile, "no compiler error before this one"); break;
	case ACT_NEXT_BENCH: replay_seek(rp, 1, replay_is_bench, "no benchmark output after this one"); break;
	case ACT_PREV_BENCH: replay_seek(rp, -1, replay_is_bench, "no benchmark output before this one"); break;
	case ACT_NEXT_FLAG:
		replay_flags_all(rp);
		replay_seek(rp, 1, replay_is_flagged, "no flagged event after this one"); break;
	case ACT_PREV_FLAG:
		replay_flags_all(rp);
		replay_seek(rp, -1, replay_is_flagged, "no flagged event before this one"); break;
	case ACT_PLAY: replay_play(rp, !rp->play.on); break;
	case ACT_FASTER: replay_speed(rp, 1); break;
	case ACT_SLOWER: replay_speed(rp, -1); break;
	case ACT_GOTO_ROW: replay_goto_row(rp); break;
	case ACT_HIDE_NOISE: replay_noise(rp); break;
	case ACT_FOCUS: replay_focus_next(rp); break;
	case ACT_LAYOUT: replay_layout_key(rp); break;
	case ACT_PANE: replay_side(rp, 1); break;
	case ACT_QUOTE:  /* the focused artifact pane takes it before this */
		view_say(&rp->v, "Q quotes lines of the artifact pane: v to it, Tab to focus it");
		break;
	case ACT_PANE_BACK: replay_side(rp, -1); break;
	case ACT_LINEAGE_DIFF: pane_lineage_mark(pane_ready(&rp->panes[PANE_LINEAGE], &rp->cx), &rp->cx); break;
	case ACT_BEST: pane_lineage_best(&rp->cx); break;
	case ACT_LINEAGE_FINAL: pane_lineage_final(pane_ready(&rp->panes[PANE_LINEAGE], &rp->cx), &rp->cx); break;
	case ACT_REEVAL: {
		struct view *ov = reeval_view_new(&rp->v, &rp->cx);  /* over the side pane, a view of its own */
		return ov ? view_push(&rp->v, ov) : 0;
	}
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
	tallies_update(&rp->tally, rp->cx.run, from);
	rp->cx.flags = flag_run_update(rp->cx.flags, run, from, &rp->cx.flag_rules);  /* only what changed */
	for (int p = 0; p < PANE__COUNT; p++)
		pane_grow(&rp->panes[p], &rp->cx, from);
	if (rp->cx.search)  /* the matches before from stay */
		rp->cx.nmatches = search_events_more(rp->cx.search, run, from, &rp->matches, rp->cx.nmatches);
	if (rp->noise.on)
		replay_noise_make(rp);
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
	int tail = old_n == 0 || rp->cx.sel + 1 >= old_n;
	int rc = f->poll(f, rp->cx.run);
	unsigned restarts = f->restarts ? f->restarts(f) : 0;
	if (restarts != rp->feed.restarts) {  /* read again from the start: no event is as it was */
		rp->feed.restarts = restarts;
		old_n = 0;
	}
	rp->feed.due = replay_now() + (f->interval_ms > 0 ? f->interval_ms : 100) / 1000.0;
	if (rc < 0)
		rp->feed.ended = 1;
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

/* The feed's next poll and the playback timer when due, a running
 * re-evaluation; *ms: the wait until the next of them (-1: none, and the
 * loop sleeps until a key comes). */
static unsigned replay_poll(struct view *v, int *msp)
{
	struct replay *rp = (struct replay *)v;
	int ms = -1;
	if (rp->feed.f && !rp->feed.ended && rp->feed.due - replay_now() <= 0)
		replay_feed_poll(rp);
	if (rp->feed.f && !rp->feed.ended)
		ms = (int)((rp->feed.due - replay_now()) * 1000) + 1;
	if (rp->play.on && rp->play.due - replay_now() <= 0)
		replay_tick(rp);
	if (rp->play.on) {
		double left = rp->play.due - replay_now();
		if (ms < 0 || (int)(left * 1000) + 1 < ms)
			ms = (int)(left * 1000) + 1;
	}
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
	replay_goto(rp, o->feed && run->nev ? run->nev - 1 : o->ev);
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
