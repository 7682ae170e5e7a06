/* replay_draw.c: the replay's screen: the layout (the list and one pane
 * beside it, or four; the zoom), the header with its banner, the status
 * bar, and the panes drawn from the dirty flags the keys and polls set. */
#include "config.h"

#include <curses.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "provenance.h"
#include "replay.h"
#include "rundetail.h"
#include "run.h"
#include "runstats.h"
#include "tag.h"
#include "theme.h"
#include "util.h"
#include "view.h"

/* The four-pane layout, in reading order (Tab's too): what the agent
 * thought, what it ran and got back, what the compiler said, what the
 * benchmark measured. Top left, top right, bottom left, bottom right. */
const int replay_four_panes[4] = { PANE_REASONING, PANE_DETAIL, PANE_COMPILER, PANE_TIMING };

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
void replay_four_rect(const struct replay *rp, int k, int *y, int *x, int *w, int *h)
{
	int lw = (rp->cx.side_w - 1) / 2, th = rp->cx.body_h / 2;
	*x = rp->side_x + (k % 2 ? lw + 1 : 0);
	*w = k % 2 ? rp->cx.side_w - lw - 1 : lw;
	*y = rp->body_y + (k / 2 ? th : 0);
	*h = k / 2 ? rp->cx.body_h - th : th;
}

void replay_layout(struct replay *rp)
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

/* The header's run statistics for the run as it stands: a file being read
 * (pager.c, which only appends) adds its new events, all but the last
 * while it reads (a merged stream may still add to it); a big run that
 * grows otherwise (watch, live) has them made again a slice a draw, the
 * old ones shown until the new are whole (made at once, a million events
 * held a key for a tenth of a second every REPLAY_STATS_S); any other run
 * has them made again at once. */
static void replay_stats_make(struct replay *rp)
{
	const struct run *run = rp->cx.run;
	size_t upto = rp->feed.f && !rp->feed.ended && run->nev ? run->nev - 1 : run->nev;
	if (rp->feed.f && rp->feed.f->keep_place && (!rp->stats || rp->stats->nev <= upto)) {
		if (!rp->stats)
			rp->stats = runstats_new_upto(run, upto);
		else
			runstats_update(rp->stats, run, upto);
	} else if (rp->feed.f && (rp->stats_next || (rp->stats && run->nev > REPLAY_STATS_SLICE))) {
		/* the slices before the last end short of the run's end, so the
		 * one event that may still grow is read in the last slice only */
		size_t done = rp->stats_next ? rp->stats_next->nev : 0;
		upto = run->nev - done > REPLAY_STATS_SLICE ? done + REPLAY_STATS_SLICE : run->nev;
		if (!rp->stats_next)
			rp->stats_next = runstats_new_upto(run, upto);
		else
			runstats_update(rp->stats_next, run, upto);
		if (rp->stats_next->nev < run->nev)
			return;
		runstats_free(rp->stats);
		rp->stats = rp->stats_next;
		rp->stats_next = NULL;
	} else {
		runstats_free(rp->stats);
		rp->stats = runstats_new(run);
	}
	rp->stats_at = replay_now();
}

/* Whether the header's run statistics are to be made again: the run grew
 * since; a growing run's at most every REPLAY_STATS_S seconds, as they
 * read the whole run (a watch of a long run would spend its time there). */
int replay_stats_due(const struct replay *rp)
{
	if (!rp->stats || rp->stats_next)  /* none yet, or being made */
		return 1;
	if (rp->stats->nev == rp->cx.run->nev)
		return 0;
	/* a file being read (pager.c): the statistics grow with it, a turn's
	 * new events at a time (replay_stats_make), never all made again:
	 * that would hold up a key at a million events */
	if (rp->feed.f && rp->feed.f->keep_place)
		return 1;
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

/* The header's run segment in its four lengths (replay.h), from the
 * result.json and rundetail beside the transcript, made safe; read once. */
static void replay_head_make(struct replay *rp)
{
	const struct run *run = rp->cx.run;
	if (rp->head_made)
		return;
	rp->head_made = 1;
	char *deck = rundetail_result_deck(run->source), *why = NULL, *full = NULL, *brief = NULL;
	char *path = rundetail_path_near(run->source, run->meta.run_id);
	struct rundetail *d = path ? rundetail_load(path, &why) : NULL;
	if (d && (brief = rundetail_stats_brief(d)))
		full = rundetail_stats_text(d);
	char *seg[4] = {NULL, NULL, NULL, NULL};
	if (deck && brief) {
		seg[0] = xasprintf("deck %s | %s", deck, full);
		seg[1] = xasprintf("deck %s | %s", deck, brief);
	} else if (brief) {
		seg[0] = xstrdup(full);
	}
	if (brief)
		seg[2] = xstrdup(brief);
	if (deck)
		seg[3] = xasprintf("deck %s", deck);
	for (int i = 0; i < 4; i++) {
		rp->head_seg[i] = seg[i] ? draw_safe(seg[i]) : NULL;
		free(seg[i]);
	}
	rundetail_free(d);
	free(path);
	free(why);
	free(full);
	free(brief);
	free(deck);
}

/* The title keeps at least this much when the run segment comes in. */
#define REPLAY_TITLE_KEEP 24

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
	if (!rp->painted && !rp->stats) {
		rp->deferred = 1;  /* the first screen does not wait for the time split */
	} else if (replay_stats_due(rp)) {  /* made again when the run grew */
		replay_stats_make(rp);
	}
	/* the run's deck and the publisher's stats, the longest that fits: the title
	 * gives way to them down to REPLAY_TITLE_KEEP columns, the header's
	 * format and problem too (the title and the model name have them) */
	replay_head_make(rp);
	int tw = (int)draw_width(t) < REPLAY_TITLE_KEEP ? (int)draw_width(t) : REPLAY_TITLE_KEEP;
	int fixed = (int)draw_width(left) - (int)draw_width(t) + tw + 5;
	for (int i = 0, fit = 0; i < 4 && !fit; i++) {
		for (int lv = level; rp->head_seg[i] && lv < 3 && !fit; lv++) {
			char *rv = lv == level ? xstrdup(right) : replay_header_right(rp->cx.run, verdict, model, prob, fmt, lv);
			if ((fit = (int)draw_width(rp->head_seg[i]) + 2 <= COLS - fixed - (int)draw_width(rv))) {
				free(right);
				right = xasprintf("%s  %s", rp->head_seg[i], rv);
			}
			free(rv);
		}
	}
	free(verdict);
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
	if (!rp->feed.f || (rp->feed.ended && !rp->feed.said))
		return 0;  /* a file read to its end (pager.c) is a replay like any other */
	if (rp->feed.said)
		sbuf_addf(b, " %s", rp->feed.said);
	if (n && rp->cx.sel + 1 < n && !rp->feed.f->last)  /* a feed with its own G says what it does */
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
	struct tally_sum at = {0}, all = {0};
	if (n) {
		at = tallies_at(&rp->tally, run, i);
		all = tallies_at(&rp->tally, run, n - 1);
	}
	util_fmt_count(in, sizeof in, at.in);
	util_fmt_count(out, sizeof out, at.out);
	util_fmt_count(cache, sizeof cache, at.cache);
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
	if (at.cache)
		sbuf_addf(&b, " cache %s%s", ap, cache);
	sbuf_addf(&b, "  turn %zu/%zu  tool calls %zu", at.turns, all.turns, at.tools);
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
int replay_frame(struct view *v, int *top, int *rows)
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
void replay_paint(struct replay *rp, void (*paint)(void *arg, int y, int x, int w, int h), void *arg)
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
