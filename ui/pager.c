/* pager.c: the replay of a big finished transcript, opened as less opens a
 * file: the first screen from the first bytes, the rest read in slices
 * between keys (src/parser.c's loader), how far it got in the status line.
 * G while it reads goes to the last event read and follows the end until
 * the whole file is in. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "pager.h"
#include "parser.h"
#include "replay.h"
#include "run.h"
#include "tui.h"
#include "util.h"

/* The CPU time one turn of the loop may take while the file is read (the
 * slice read, the replay grown over it, the redraw, a key): a key waits
 * for at most one turn. */
#define PAGER_TURN_S 0.010
#define PAGER_MIN_BYTES (16 * 1024)
#define PAGER_FIRST_BYTES (256 * 1024)

struct pager {
	struct parser_loader *ld;    /* borrowed */
	int over;                    /* read to the end (or failed) */
	char *error;                 /* a read error, owned */
	char said[128];
	struct replay_feed feed;     /* its state: this pager */
	/* what a turn costs: the replay's growth over a slice (panes, flags)
	 * costs more than reading it, and differs by run */
	size_t bytes;                /* read at the last poll */
	double cpu;                  /* the process's CPU time then, -1 none */
	size_t budget;               /* bytes a poll reads */
	void (*done)(void *arg, struct parser_loader *ld);  /* once read whole, NULL */
	void *done_arg;
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

static const char *pager_status(struct replay_feed *f)
{
	struct pager *p = f->state;
	if (p->error) {
		snprintf(p->said, sizeof p->said, "READ ERROR: %s", p->error);
		return p->said;
	}
	if (p->over)
		return NULL;
	size_t done, total;
	char a[32];
	parser_loader_progress(p->ld, &done, &total);
	pager_size(a, sizeof a, total ? total : done);
	if (total)
		snprintf(p->said, sizeof p->said, "reading %d%% of %s", (int)(done * 100 / total), a);
	else  /* a pipe: how much so far */
		snprintf(p->said, sizeof p->said, "reading: %s so far", a);
	return p->said;
}

int pager_first(struct parser_loader *ld, size_t ev, char **err)
{
	struct run *r = parser_loader_run(ld);
	int rc = 1;
	while (rc > 0 && (r->nev == 0 || r->nev <= ev || !r->meta.format))
		rc = parser_loader_step(ld, PAGER_FIRST_BYTES, err);
	return rc;
}

struct pager *pager_new(struct parser_loader *ld)
{
	struct pager *p = xcalloc(1, sizeof *p);
	p->ld = ld;
	parser_loader_nonblock(ld);
	p->cpu = -1;
	p->budget = PAGER_FIRST_BYTES;
	p->feed = (struct replay_feed){
		.poll = pager_poll,
		.status = pager_status,
		.interval_ms = 1,  /* the next slice as soon as the keys are answered */
		.state = p,
		.keep_place = 1,
	};
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
