/* xsearch.c: the browser's search across runs, a view (ui/view.h): keys,
 * and between them (its poll) the runs searched a few milliseconds' worth
 * at a time, so a large dataset shows its progress and the hits so far,
 * and never freezes the screen. Runs loaded for a search stay loaded up
 * to XSEARCH_KEEP_BYTES of transcript, so the next search is matching only
 * (a researcher refines a regex several times); past that they are
 * unloaded again. On a cold text cache (a new build, a new dataset) a
 * helper process fills the cache from the last run backwards, from the
 * moment the prompt opens (while the regex is typed) until the search is
 * over (xsearch_helper_start): the search, from the first run, finds its
 * entries as it reaches them, and both cores parse. */
#include "config.h"

#include <curses.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>

#include "dataset.h"
#include "draw.h"
#include "flags.h"
#include "keys.h"
#include "parser.h"
#include "replay.h"
#include "run.h"
#include "runtext.h"
#include "screens.h"
#include "search.h"
#include "tag.h"
#include "theme.h"
#include "tui.h"
#include "util.h"
#include "view.h"
#include "xsearch.h"

/* Milliseconds of searching between two looks at the keyboard. */
#define XSEARCH_SLICE_MS 30
/* Transcript bytes whose runs a search leaves loaded (held at ~1.4x). */
#define XSEARCH_KEEP_BYTES (256u << 20)
/* The verdict column: "reward_hack" and "interesting" whole. */
#define XSEARCH_VERDICT_W 11

struct xsearch_hit {
	size_t run;               /* index into ds->runs */
	size_t lines;             /* matching lines */
	size_t ev;                /* the first hit's event */
	char *first;              /* its line, safe (owned) */
};

struct xsearch {
	struct view v;            /* first: the view the loop runs (its msg has a margin) */
	struct dataset *ds;       /* borrowed */
	struct tag *tag;          /* the browser's annotation session (borrowed; NULL: none) */
	struct search *s;         /* NULL while asking */
	int asking;
	struct sbuf input;
	struct xsearch_hit *hits; /* best first: most lines, then dataset order */
	size_t nhits, cap;
	size_t next;              /* the next run to search */
	size_t searched, total;   /* runs with a transcript */
	size_t lines;
	size_t kept;              /* transcript bytes of the loaded runs */
	double t0, took;          /* monotonic start, seconds when done */
	size_t sel, top;
	int moved;                /* the user moved the selection: it follows its run */
	int helper;               /* the pipe that keeps the helper working; -1: none */
	int helped;               /* this search started one */
};

static double xsearch_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void xsearch_clear(struct xsearch *x)
{
	for (size_t i = 0; i < x->nhits; i++)
		free(x->hits[i].first);
	x->nhits = x->sel = x->top = 0;
	x->moved = 0;
	x->next = x->searched = x->lines = 0;
	search_free(x->s);
	x->s = NULL;
}

static int xsearch_busy(const struct xsearch *x)
{
	return x->s && x->next < x->ds->nruns;
}

/* ---- searching ------------------------------------------------------------ */

struct xsearch_first {
	int seen;
	size_t ev;
	char *text;
};

static int xsearch_line(void *ud, size_t ev, int line, const char *text, size_t len)
{
	struct xsearch_first *f = ud;
	(void)line;
	if (!f->seen) {
		f->seen = 1;
		f->ev = ev;
		while (len && (*text == ' ' || *text == '\t')) {  /* columns line up */
			text++;
			len--;
		}
		char *raw = xstrndup(text, len);
		f->text = draw_safe(raw);
		free(raw);
	}
	return 0;  /* on: the count is wanted too */
}

/* Keeps the list best first; the selected run stays selected. */
static void xsearch_insert(struct xsearch *x, struct xsearch_hit h)
{
	size_t k = 0;
	while (k < x->nhits && (x->hits[k].lines > h.lines || (x->hits[k].lines == h.lines && x->hits[k].run < h.run)))
		k++;
	if (x->nhits == x->cap) {
		x->cap = x->cap ? x->cap * 2 : 32;
		x->hits = xrealloc(x->hits, x->cap * sizeof *x->hits);
	}
	memmove(x->hits + k + 1, x->hits + k, (x->nhits - k) * sizeof *x->hits);
	x->hits[k] = h;
	if (x->nhits++ && x->moved && k <= x->sel)
		x->sel++;
}

static size_t xsearch_bytes(const struct ds_run *d)
{
	struct stat st;
	return d->transcript && stat(d->transcript, &st) == 0 ? (size_t)st.st_size : 0;
}


static const char *xsearch_format(const struct ds_run *d)
{
	const struct parser_ops *as = d->meta.format ? parser_find(d->meta.format) : NULL;
	return as ? as->name : NULL;
}

/* ---- the helper --------------------------------------------------------------- */

/* The helper's work, in the child: each run's text cached, from the last
 * run backwards, until the pipe closes (this search is over: the runs it
 * did not reach were searched here) or it meets cached runs all the way. */
static void xsearch_helper_work(struct xsearch *x, int stop)
{
	struct dataset *ds = x->ds;
	for (size_t i = ds->nruns; i-- > 0;) {
		struct pollfd p = { .fd = stop, .events = POLLIN };
		if (poll(&p, 1, 0) != 0)
			return;
		struct ds_run *d = &ds->runs[i];
		/* only a transcript dataset_load would read has its text cached
		 * (as in kbtui search) */
		if (!dataset_transcript_inside(ds, i))
			continue;
		const char *fmt = xsearch_format(d);
		struct runtext_key key = { .ok = 0 };
		struct runtext *t = runtext_load(d->transcript, fmt, &key);
		if (!t && key.ok) {
			int had = d->run != NULL;
			struct run *r = had ? d->run : dataset_load(ds, i);
			if (r) {
				t = runtext_new(r);
				runtext_save(t, d->transcript, fmt, &key);
			}
			if (!had) {
				run_free(d->run);
				d->run = NULL;
			}
		}
		runtext_free(t);
	}
}

/* Starts the helper unless one is working: a grandchild (its parent is
 * reaped at once, so no zombie is left to wait for) that never touches
 * the terminal and ends with _exit (no curses or stdio teardown). With
 * the cache warm (or off) it finds nothing to do and ends; one that
 * cannot start is no loss. */
static void xsearch_helper_start(struct xsearch *x)
{
	int fd[2];
	x->helped = 1;
	if (x->helper >= 0 || pipe(fd) < 0)
		return;
	fcntl(fd[1], F_SETFD, FD_CLOEXEC);
	pid_t pid = fork();
	if (pid == 0) {
		close(fd[1]);
		int null = open("/dev/null", O_RDWR);
		for (int k = 0; k < 3 && null >= 0; k++)
			dup2(null, k);
		if (fork() == 0)
			xsearch_helper_work(x, fd[0]);
		_exit(0);
	}
	close(fd[0]);
	if (pid < 0) {
		close(fd[1]);
		return;
	}
	waitpid(pid, NULL, 0);
	x->helper = fd[1];
}

/* The helper stops before its next run (an entry it is writing is
 * finished, and renamed into place whole). */
static void xsearch_helper_stop(struct xsearch *x)
{
	if (x->helper >= 0)
		close(x->helper);
	x->helper = -1;
}

/* ---- searching, a run --------------------------------------------------------- */

/* Run i's matching lines into f, the lines flag_grep finds: from the text
 * cache when the transcript is unchanged (no JSON parsed, none walked;
 * loaded or not), else from the run, loaded if it is not (kept while
 * memory allows, so that opening a hit is quick) and its text saved for
 * the next search. Returns the lines; 0 also when the run cannot be read. */
static size_t xsearch_run(struct xsearch *x, size_t i, struct xsearch_first *f)
{
	struct ds_run *d = &x->ds->runs[i];
	const char *fmt = xsearch_format(d);
	struct runtext_key key = { .ok = 0 };
	struct runtext *t = dataset_transcript_inside(x->ds, i) ? runtext_load(d->transcript, fmt, &key) : NULL;
	if (!t) {
		int had = d->run != NULL;
		struct run *r = had ? d->run : dataset_load(x->ds, i);
		if (!r)
			return 0;
		t = runtext_new(r);
		if (key.ok) {
			runtext_save(t, d->transcript, fmt, &key);
			if (!x->helped)
				xsearch_helper_start(x);
		}
		size_t bytes = had ? 0 : xsearch_bytes(d);
		if (had) {
			/* the browser's, and counted already */
		} else if (x->kept + bytes > XSEARCH_KEEP_BYTES) {  /* memory bounded */
			run_free(d->run);
			d->run = NULL;
		} else {
			x->kept += bytes;
		}
	}
	size_t n = runtext_grep(x->s, t, xsearch_line, f);
	runtext_free(t);
	return n;
}

/* Searches the next run with a transcript. */
static void xsearch_step(struct xsearch *x)
{
	struct dataset *ds = x->ds;
	while (x->next < ds->nruns && !ds->runs[x->next].transcript)
		x->next++;
	if (x->next >= ds->nruns)
		return;
	size_t i = x->next++;
	x->searched++;
	struct xsearch_first f = { 0 };
	size_t n = xsearch_run(x, i, &f);
	if (n) {
		struct xsearch_hit h = { i, n, f.ev, f.text };
		xsearch_insert(x, h);
		x->lines += n;
	}
}

/* Searches for about one time slice. */
static void xsearch_work(struct xsearch *x)
{
	double end = xsearch_now() + XSEARCH_SLICE_MS / 1000.0;
	while (xsearch_busy(x) && xsearch_now() < end)
		xsearch_step(x);
	if (!xsearch_busy(x)) {
		x->took = xsearch_now() - x->t0;
		xsearch_helper_stop(x);
	}
	x->v.dirty = D_ALL;
}

static void xsearch_start(struct xsearch *x)
{
	char *err = NULL;
	const char *pat = x->input.s ? x->input.s : "";
	struct search *s = search_new(pat, &err);
	x->asking = 0;
	x->v.dirty = D_ALL;
	if (!s) {
		char *e = draw_safe(err);
		free(x->v.msg);
		x->v.msg = xasprintf(" bad regular expression: %s", e);
		free(e);
		free(err);
		x->asking = 1;  /* again, with the text kept to mend it */
		return;
	}
	xsearch_clear(x);
	x->s = s;
	x->total = 0;
	x->kept = 0;
	for (size_t i = 0; i < x->ds->nruns; i++) {
		x->total += x->ds->runs[i].transcript != NULL;
		if (x->ds->runs[i].run)
			x->kept += xsearch_bytes(&x->ds->runs[i]);
	}
	x->helped = 0;
	x->t0 = xsearch_now();
	x->took = 0;
}

/* ---- drawing ------------------------------------------------------------------ */

static int xsearch_id_width(const struct xsearch *x)
{
	int w = 6;
	for (size_t i = 0; i < x->nhits; i++) {
		char *id = draw_safe(x->ds->runs[x->hits[i].run].meta.run_id);
		int n = (int)draw_width(id);
		w = n > w ? n : w;
		free(id);
	}
	return w > COLS / 2 ? COLS / 2 : w;
}

static void xsearch_draw_status(struct xsearch *x)
{
	int y = LINES - 1;
	char *line;
	if (x->asking) {
		char *in = draw_safe(x->input.s ? x->input.s : "");
		line = xasprintf(" Search all runs: %s", in);
		draw_bar(y, RL_STATUS, line, "Enter search  Esc back ");
		move(y, (int)draw_width(line) < COLS ? (int)draw_width(line) : COLS - 1);
		free(in);
	} else if (x->v.msg) {
		line = xstrdup(x->v.msg);
		draw_bar(y, RL_MSG, line, NULL);
	} else if (xsearch_busy(x)) {
		line = xasprintf(" searching run %zu/%zu: %zu match, %zu lines", x->searched, x->total, x->nhits, x->lines);
		draw_bar(y, RL_STATUS, line, "Enter replay  Esc stop  q back ");
	} else {
		line = xasprintf(" %zu/%zu  %zu lines in %zu runs, %.0f ms", x->nhits ? x->sel + 1 : 0, x->nhits,
		                 x->lines, x->searched, x->took * 1000);
		draw_bar(y, RL_STATUS, line,
		         x->tag ? "KLHIB verdict  u undo  a next unannotated  Enter replay  ? new search  q back "
		                : "Enter replay  ? new search  q back ");
	}
	free(line);
}

static void xsearch_draw(struct xsearch *x)
{
	erase();
	char *pat = x->s ? draw_safe(search_pattern(x->s)) : xstrdup("");
	char *left = xasprintf(" kbtui search  /%s/", pat);
	char *right = xasprintf("%zu run%s match%s (of %zu) ", x->nhits, x->nhits == 1 ? "" : "s",
	                        x->nhits == 1 ? "es" : "", x->total);
	draw_bar(0, RL_HEADER, left, x->s ? right : NULL);
	free(left);
	free(right);
	free(pat);
	int idw = xsearch_id_width(x), list_h = LINES - 3;
	draw_fill(1, 0, COLS, RL_TITLE);
	draw_put(1, 1, idw, "RUN_ID", RL_TITLE);
	draw_put(1, 1 + idw + 1, 6, "  HITS", RL_TITLE);
	draw_put(1, 1 + idw + 9, XSEARCH_VERDICT_W, "VERDICT", RL_TITLE);
	draw_put(1, 1 + idw + 10 + XSEARCH_VERDICT_W, COLS - idw - 11 - XSEARCH_VERDICT_W, "FIRST MATCH", RL_TITLE);
	if (x->sel >= x->nhits)
		x->sel = x->nhits ? x->nhits - 1 : 0;
	if (x->sel < x->top)
		x->top = x->sel;
	if (list_h > 0 && x->sel >= x->top + (size_t)list_h)
		x->top = x->sel - (size_t)list_h + 1;
	for (int r = 0; r < list_h; r++) {
		size_t k = x->top + (size_t)r;
		int y = 2 + r, sel = k == x->sel;
		if (k >= x->nhits) {
			if (k == 0 && x->s && !xsearch_busy(x))
				draw_put(y, 1, COLS - 1, "no run matches", RL_DIM);
			continue;
		}
		const struct xsearch_hit *h = &x->hits[k];
		char *id = draw_safe(x->ds->runs[h->run].meta.run_id), n[24];
		draw_fill(y, 0, COLS, sel ? RL_SELECT : RL_NORMAL);
		draw_fit(y, 1, idw, id, sel ? RL_SELECT : RL_NORMAL);
		snprintf(n, sizeof n, "%6zu", h->lines);
		draw_put(y, 1 + idw + 1, 6, n, sel ? RL_SELECT : RL_KEY);
		const char *v = x->ds->runs[h->run].verdict;
		char *verdict = draw_safe(v ? v : "-");
		draw_fit(y, 1 + idw + 9, XSEARCH_VERDICT_W, verdict, sel ? RL_SELECT : v ? RL_NORMAL : RL_DIM);
		draw_put_hl(y, 1 + idw + 10 + XSEARCH_VERDICT_W, COLS - idw - 11 - XSEARCH_VERDICT_W, h->first,
		            sel ? RL_SELECT : RL_NORMAL, x->s);
		free(verdict);
		free(id);
	}
	xsearch_draw_status(x);
	curs_set(x->asking ? 1 : 0);
	x->v.dirty = 0;
	refresh();
}

/* ---- keys ----------------------------------------------------------------------- */

static void xsearch_say(struct xsearch *x, const char *msg)
{
	free(x->v.msg);
	x->v.msg = xasprintf(" %s", msg);  /* the status bar's margin */
	x->v.dirty = D_ALL;
}

/* a: selects the next run with a hit and without a verdict, in the list's
 * order (most hits first), the way the browser's a follows its own list;
 * returns its row, -1 when there is none (with a message). */
static long xsearch_next_unannotated(struct xsearch *x)
{
	size_t *order = xcalloc(x->nhits + 1, sizeof *order);
	for (size_t k = 0; k < x->nhits; k++)
		order[k] = x->hits[k].run;
	long k = x->nhits && x->tag ? tag_next_unannotated(x->tag, order, x->nhits, x->sel) : -1;
	free(order);
	if (k < 0) {
		xsearch_say(x, x->tag ? "no other run with a hit is without a verdict" : "annotating needs a dataset");
		return -1;
	}
	x->sel = (size_t)k;
	x->moved = 1;  /* the selection stays on its run as hits come in */
	x->v.dirty = D_ALL;
	return k;
}

/* Enter: the selected run replayed at its first hit with the search set,
 * in the annotation session; a in the replay opens the next unannotated
 * run of the list at its first hit, and so on (xsearch_resume). */
static unsigned xsearch_open(struct xsearch *x)
{
	if (x->sel >= x->nhits)
		return 0;
	const struct xsearch_hit *h = &x->hits[x->sel];
	struct ds_run *d = &x->ds->runs[h->run];
	struct run *r = dataset_load(x->ds, h->run);
	if (!r) {
		char *e = draw_safe(d->load_error ? d->load_error : "cannot load this run");
		xsearch_say(x, e);
		free(e);
		return 0;
	}
	struct replay_opts o = { .ev = h->ev, .pattern = search_pattern(x->s), .tag = x->tag, .ds_run = h->run };
	return view_push(&x->v, replay_view_new(r, d->meta.run_id ? d->meta.run_id : d->transcript, &o));
}

static unsigned xsearch_resume(struct view *v, struct view *child)
{
	struct xsearch *x = (struct xsearch *)v;
	if (!child->result || tui_stopped() || xsearch_next_unannotated(x) < 0)
		return 0;
	return xsearch_open(x);
}

static long xsearch_tag_run(struct view *v, struct tag **tag)
{
	struct xsearch *x = (struct xsearch *)v;
	*tag = x->tag;
	return x->sel < x->nhits ? (long)x->hits[x->sel].run : -1;
}

/* A key at the prompt; 1 when the screen should close. */
static int xsearch_prompt_key(struct xsearch *x, const struct key *k)
{
	x->v.dirty = D_ALL;
	if (!k->fn && (k->ch == '\n' || k->ch == '\r')) {
		xsearch_start(x);
	} else if (!k->fn && k->ch == 27) {
		x->asking = 0;
		xsearch_helper_stop(x);
		return x->s == NULL;  /* Esc before any search: back to the browser */
	} else if ((k->fn && k->ch == KEY_BACKSPACE) || (!k->fn && (k->ch == 127 || k->ch == 8))) {
		size_t len = x->input.len;
		while (len > 0 && ((unsigned char)x->input.s[len - 1] & 0xC0) == 0x80)
			len--;
		if (len > 0)
			len--;
		x->input.len = len;
		if (x->input.s)
			x->input.s[len] = '\0';
	} else if (!k->fn && k->ch >= 0x20 && k->ch != 0x7F && x->input.len < 1024) {
		char mb[MB_LEN_MAX];
		mbstate_t st;
		memset(&st, 0, sizeof st);
		size_t m = wcrtomb(mb, (wchar_t)k->ch, &st);
		if (m != (size_t)-1)
			sbuf_add(&x->input, mb, m);
	}
	return 0;
}

/* A key on the list; the loop's shared keys (the annotation keys, q,
 * Ctrl-L, Ctrl-T) are left to it, but a is the list's. */
static unsigned xsearch_list_key(struct xsearch *x, const struct key *k)
{
	long page = LINES > 5 ? LINES - 4 : 1;
	x->v.dirty = D_ALL;
	if (!k->fn && k->ch == 27) {  /* Esc stops a search under way */
		if (xsearch_busy(x)) {
			x->next = x->ds->nruns;
			x->took = xsearch_now() - x->t0;
			xsearch_helper_stop(x);
		}
		return 0;
	}
	enum action a = keys_action(k->code, V_BROWSE);
	if (a == ACT_NEXT_UNANNOTATED) {
		xsearch_next_unannotated(x);
		return 0;
	}
	if (view_shared(&x->v, a))
		return VIEW_IGNORED;
	x->moved |= a == ACT_DOWN || a == ACT_UP || a == ACT_PAGE_DOWN || a == ACT_PAGE_UP || a == ACT_LAST;
	switch (a) {
	case ACT_DOWN: x->sel += x->sel + 1 < x->nhits; break;
	case ACT_UP: x->sel -= x->sel > 0; break;
	case ACT_PAGE_DOWN: x->sel = x->sel + (size_t)page < x->nhits ? x->sel + (size_t)page : x->nhits ? x->nhits - 1 : 0; break;
	case ACT_PAGE_UP: x->sel = x->sel > (size_t)page ? x->sel - (size_t)page : 0; break;
	case ACT_FIRST: x->sel = 0; break;
	case ACT_LAST: x->sel = x->nhits ? x->nhits - 1 : 0; break;
	case ACT_OPEN: return xsearch_open(x);
	case ACT_XSEARCH:
		x->asking = 1;
		sbuf_reset(&x->input);
		xsearch_helper_start(x);
		break;
	default: break;
	}
	return 0;
}

static unsigned xsearch_key(struct view *v, const struct key *k)
{
	struct xsearch *x = (struct xsearch *)v;
	if (x->asking)
		return xsearch_prompt_key(x, k) ? VIEW_CLOSE : 0;
	return xsearch_list_key(x, k);
}

/* Between keys: the runs searched a slice at a time. */
static unsigned xsearch_poll(struct view *v, int *ms)
{
	struct xsearch *x = (struct xsearch *)v;
	int working = xsearch_busy(x) && !x->asking;  /* while runs are left to search, only peek at the keyboard */
	if (working && v->idle)
		xsearch_work(x);
	*ms = xsearch_busy(x) && !x->asking ? 0 : -1;
	return 0;
}

static void xsearch_view_draw(struct view *v)
{
	xsearch_draw((struct xsearch *)v);
}

static void xsearch_free(struct view *v)
{
	struct xsearch *x = (struct xsearch *)v;
	curs_set(0);
	xsearch_clear(x);
	free(x->hits);
	free(x->v.msg);
	sbuf_free(&x->input);
	xsearch_helper_stop(x);
	free(x);
}

static const struct view_ops xsearch_view_ops = {
	.name = "search",
	.keys = V_BROWSE,
	.common = VIEW_HAS_THEME | VIEW_HAS_REDRAW | VIEW_HAS_TAG | VIEW_HAS_QUIT,
	.margin = " ",
	.draw = xsearch_view_draw,
	.key = xsearch_key,
	.poll = xsearch_poll,
	.resume = xsearch_resume,
	.tag_run = xsearch_tag_run,
	.free = xsearch_free,
};

struct view *xsearch_view_new(struct dataset *ds, struct tag *tag)
{
	struct xsearch *x = xcalloc(1, sizeof *x);
	x->v.ops = &xsearch_view_ops;
	x->ds = ds;
	x->tag = tag;
	x->helper = -1;
	x->asking = 1;
	xsearch_helper_start(x);
	x->v.dirty = D_ALL;
	sbuf_init(&x->input);
	return &x->v;
}
