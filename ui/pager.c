/* pager.c: the replay of a big finished transcript, opened as less opens a
 * file: the first screen from the first bytes, the rest read in slices
 * between keys (src/parser.c's loader), how far it got in the status line.
 * G while much is left to read shows the end at once, as less does: the
 * last lines read on their own and shown over the replay, which goes on
 * reading from the start beneath and takes their place, on its last event,
 * once it is there (q goes back before). With little left, G goes to the
 * last event read and follows the end until the whole file is in. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "linescan.h"
#include "pager.h"
#include "parser.h"
#include "replay.h"
#include "run.h"
#include "tui.h"
#include "util.h"
#include "view.h"

/* The CPU time one turn of the loop may take while the file is read (the
 * slice read, the replay grown over it, the redraw, a key): a key waits
 * for at most one turn. */
#define PAGER_TURN_S 0.010
#define PAGER_MIN_BYTES (16 * 1024)
#define PAGER_FIRST_BYTES (256 * 1024)
/* The most the first screen waits for while no event has come: a big file
 * that is no transcript (a log, a JSON dump of something else, a
 * transcript whose first megabytes are garbage) is otherwise read whole
 * before anything shows, 12 s at a gigabyte with the keys unanswered.
 * About a tenth of a second of reading; the rest is read between keys. */
#define PAGER_FIRST_MAX (8u << 20)
/* G reads the end on its own when more than PAGER_TAIL_MIN is left (about
 * a quarter of a second of reading, at 40 MB/s), its last PAGER_TAIL_BYTES:
 * a few hundred events, read in a few tens of milliseconds */
#define PAGER_TAIL_MIN (8u << 20)
#define PAGER_TAIL_BYTES (1u << 20)
#define PAGER_TAIL_MAX (16u << 20)   /* the most G reads apart: a last line this long is read in turns */

/* The end of the file shown over the replay (G with much left to read). */
struct pager_tail {
	struct parser_loader *ld;    /* owned: the last lines, read whole */
	char *title;                 /* owned */
	size_t line;                 /* the file's line the end starts on (1-based) */
	struct replay_feed feed;     /* its state: the pager */
	char said[160];
};

struct pager {
	struct parser_loader *ld;    /* borrowed */
	const struct run *run;       /* what ld reads (borrowed: the dataset's once taken) */
	int over;                    /* read to the end (or failed) */
	char *error;                 /* a read error, owned */
	char said[256];
	struct replay_feed feed;     /* its state: this pager */
	/* what a turn costs: the replay's growth over a slice (panes, flags)
	 * costs more than reading it, and differs by run */
	size_t bytes;                /* read at the last poll */
	double cpu;                  /* the process's CPU time then, -1 none */
	size_t budget;               /* bytes a poll reads */
	void (*done)(void *arg, struct parser_loader *ld);  /* once read whole, NULL */
	void *done_arg;
	struct view *under;          /* the replay fed (borrowed), known from G on */
	struct pager_tail *tail;     /* owned: the end shown over it, NULL: none yet */
	size_t turn_max;             /* the most bytes a turn reads: $KBTUI_PAGER_TURN (tests) */
};

static double pager_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The bytes the next poll reads: the last turn's CPU time per byte read
 * in it, scaled to PAGER_TURN_S (moving halfway, so that one odd turn,
 * a redraw of the whole screen, does not swing it). */
static void pager_adapt(struct pager *p)
{
	double now = pager_cpu();
	if (p->cpu >= 0 && p->bytes > 0 && now > p->cpu) {
		double want = PAGER_TURN_S / ((now - p->cpu) / (double)p->bytes);
		want = (want + (double)p->budget) / 2;
		p->budget = want < PAGER_MIN_BYTES ? PAGER_MIN_BYTES : want > 64e6 ? (size_t)64e6 : (size_t)want;
	}
	if (p->turn_max && p->budget > p->turn_max)
		p->budget = p->turn_max;
	p->cpu = now;
}

static int pager_poll(struct replay_feed *f, struct run *run)
{
	struct pager *p = f->state;
	(void)run;  /* the loader fills the run the replay shows */
	if (p->over)
		return -1;
	pager_adapt(p);
	size_t before, after, total;
	parser_loader_progress(p->ld, &before, &total);
	int rc = parser_loader_step(p->ld, p->budget, &p->error);
	parser_loader_progress(p->ld, &after, &total);
	p->bytes = after - before;
	p->over = rc <= 0;
	if (rc == 0 && p->done)
		p->done(p->done_arg, p->ld);
	/* a pipe with nothing new: look again in a while, not at once */
	f->interval_ms = p->bytes || p->over ? 1 : 50;
	return p->bytes || p->over;
}

/* "1.5 GB", "300 MB", "12 kB" */
static void pager_size(char *buf, size_t n, size_t bytes)
{
	if (bytes >= (size_t)1 << 30)
		snprintf(buf, n, "%.1f GB", (double)bytes / (1 << 30));
	else if (bytes >= (size_t)1 << 20)
		snprintf(buf, n, "%.0f MB", (double)bytes / (1 << 20));
	else
		snprintf(buf, n, "%.0f kB", (double)bytes / 1024);
}

/* Once read whole: NULL, or why nothing was shown (the first screen did
 * not wait for the end of a file no format reads, so it is said here). */
static const char *pager_verdict(struct pager *p)
{
	const struct run *r = p->run;
	if (!r || r->nev || r->meta.format || (!r->malformed && !r->nerrors))
		return NULL;  /* (nothing wrong: an empty transcript) */
	if (r->nerrors)
		snprintf(p->said, sizeof p->said, "NOT A TRANSCRIPT: line %d: %s", r->errors[0].line, r->errors[0].msg);
	else
		snprintf(p->said, sizeof p->said, "NOT A TRANSCRIPT: %d malformed lines (try --format)", r->malformed);
	return p->said;
}

static const char *pager_status(struct replay_feed *f)
{
	struct pager *p = f->state;
	if (p->error) {
		snprintf(p->said, sizeof p->said, "READ ERROR: %s", p->error);
		return p->said;
	}
	if (p->over)
		return pager_verdict(p);
	size_t done, total;
	char a[32];
	parser_loader_progress(p->ld, &done, &total);
	pager_size(a, sizeof a, total ? total : done);
	if (total)  /* what G does: the end read apart, or the read followed */
		snprintf(p->said, sizeof p->said, "reading %d%% of %s (G %s)", (int)(done * 100 / total), a,
		         total - done > PAGER_TAIL_MIN ? "shows the end" : "follows");
	else  /* a pipe: how much so far */
		snprintf(p->said, sizeof p->said, "reading: %s so far (G follows)", a);
	return p->said;
}

/* ---- the end, shown at once ---------------------------------------------------- */

/* The read from the start goes on beneath: the replay under the end polls
 * its feed (its panes and flags grow as they would on top), and the end
 * closes once that read is over (close_on_end). */
static int pager_tail_poll(struct replay_feed *f, struct run *run)
{
	struct pager *p = f->state;
	(void)run;  /* read whole when it was shown */
	int ms;
	p->under->ops->poll(p->under, &ms);
	return p->over ? -1 : 0;
}

static const char *pager_tail_status(struct replay_feed *f)
{
	struct pager *p = f->state;
	struct pager_tail *t = p->tail;
	size_t done, total;
	char a[32];
	parser_loader_progress(p->ld, &done, &total);
	pager_size(a, sizeof a, total);
	snprintf(t->said, sizeof t->said, "the end, from line %zu; reading %d%% of %s (q: back)", t->line,
	         total ? (int)(done * 100 / total) : 0, a);
	return t->said;
}

static void pager_tail_free(struct pager_tail *t)
{
	if (!t)
		return;
	if (t->ld)
		parser_loader_free(t->ld);
	free(t->title);
	free(t);
}

/* The end of the file read on its own: its last PAGER_TAIL_BYTES from a
 * line start, the lines before it counted (memchr over the bytes not yet
 * read: no parsing) so that its events carry their line numbers. NULL
 * (and a message) when it cannot be read. */
static struct pager_tail *pager_tail_read(struct pager *p, const char *title, char **err)
{
	struct run *run = parser_loader_run(p->ld);
	const struct parser_ops *ops = parser_loader_format(p->ld);
	size_t at, done, total, start = 0, lines = 0;
	int before;
	parser_loader_where(p->ld, &at, &before);
	parser_loader_progress(p->ld, &done, &total);
	int fd = parser_loader_fd(p->ld);
	if (!ops || !run || total < PAGER_TAIL_BYTES ||
	    linescan_start_near(fd, total - PAGER_TAIL_BYTES, at, total, &start) < 0) {
		*err = xstrdup("the end could not be read apart: G follows the read from the start");
		return NULL;
	}
	/* no line starts in what is left (the one being read goes on to the
	 * end), or the last one is long: reading it here would hold the keys */
	if (start <= at || total - start > PAGER_TAIL_MAX) {
		*err = xstrdup("the end is one line of many megabytes: G follows the read from the start");
		return NULL;
	}
	if (linescan_count(fd, at, start, &lines) < 0 || lines + (size_t)before > (size_t)INT_MAX - 1) {
		*err = xstrdup("the end could not be read apart: G follows the read from the start");
		return NULL;
	}
	struct parser_loader *ld = parser_loader_open_at(run->source, ops, start, before + (int)lines, err);
	int rc = ld ? 1 : -1;
	while (rc > 0)
		rc = parser_loader_step(ld, PAGER_TAIL_BYTES, err);
	if (rc < 0) {
		if (ld)
			parser_loader_free(ld);
		return NULL;
	}
	struct pager_tail *t = xcalloc(1, sizeof *t);
	t->ld = ld;
	t->line = (size_t)before + lines + 1;
	t->title = xasprintf("%s (the end, from line %zu)", title ? title : run->source, t->line);
	run_meta_fill(&parser_loader_run(ld)->meta, &run->meta);  /* the end has no first lines */
	t->feed = (struct replay_feed){
		.poll = pager_tail_poll,
		.status = pager_tail_status,
		.interval_ms = 1,
		.state = p,
		.close_on_end = 1,
	};
	return t;
}

/* G with much left to read: the end over the replay v. */
static struct view *pager_last(struct replay_feed *f, struct view *v)
{
	struct pager *p = f->state;
	size_t done, total;
	parser_loader_progress(p->ld, &done, &total);
	if (p->over || !total || total - done <= PAGER_TAIL_MIN)
		return NULL;  /* a pipe, or little left: the replay follows the read to the end */
	char *err = NULL;
	struct replay *rp = (struct replay *)v;
	struct pager_tail *t = pager_tail_read(p, rp->title, &err);
	if (!t) {
		view_say(v, err);
		free(err);
		return NULL;
	}
	pager_tail_free(p->tail);  /* the end shown before has closed */
	p->tail = t;
	p->under = v;
	struct run *end = parser_loader_run(t->ld);
	struct replay_opts o = { .ev = end->nev ? end->nev - 1 : 0, .feed = &t->feed,
	                         .tag = rp->cx.tag, .ds_run = rp->cx.ds_run };
	return replay_view_new(end, t->title, &o);
}

int pager_first(struct parser_loader *ld, size_t ev, char **err)
{
	struct run *r = parser_loader_run(ld);
	size_t done = 0, total;
	int rc = 1;
	while (rc > 0 && (r->nev == 0 || r->nev <= ev || !r->meta.format) && (r->nev || done < PAGER_FIRST_MAX)) {
		rc = parser_loader_step(ld, PAGER_FIRST_BYTES, err);
		parser_loader_progress(ld, &done, &total);
	}
	return rc;
}

struct pager *pager_new(struct parser_loader *ld)
{
	struct pager *p = xcalloc(1, sizeof *p);
	p->ld = ld;
	p->run = parser_loader_run(ld);
	parser_loader_nonblock(ld);
	p->cpu = -1;
	p->budget = PAGER_FIRST_BYTES;
	p->feed = (struct replay_feed){
		.poll = pager_poll,
		.status = pager_status,
		.interval_ms = 1,  /* the next slice as soon as the keys are answered */
		.state = p,
		.keep_place = 1,
		.last = pager_last,
	};
	const char *turn = getenv("KBTUI_PAGER_TURN");  /* tests: a read that takes a while */
	p->turn_max = turn && *turn ? strtoul(turn, NULL, 10) : 0;
	return p;
}

void pager_on_done(struct pager *p, void (*done)(void *arg, struct parser_loader *ld), void *arg)
{
	p->done = done;
	p->done_arg = arg;
}

struct replay_feed *pager_feed(struct pager *p)
{
	return &p->feed;
}

void pager_free(struct pager *p)
{
	if (!p)
		return;
	pager_tail_free(p->tail);
	free(p->error);
	free(p);
}

int pager_replay(struct parser_loader *ld, const char *title, size_t ev)
{
	struct pager *p = pager_new(ld);
	struct run *run = parser_loader_run(ld);
	struct replay_opts o = { .ev = run->nev && ev >= run->nev ? run->nev - 1 : ev, .feed = &p->feed };
	tui_start();
	replay_open(run, title, &o);
	tui_stop();
	pager_free(p);
	return tui_exit_status();
}
