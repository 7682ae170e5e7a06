/* replay.h: the replay of one run: the event list beside one of the other
 * panes (detail, compiler output, GPU timing), a status bar with the
 * timeline, search, jumps and playback. */
#ifndef KB_REPLAY_H
#define KB_REPLAY_H

#include <stddef.h>

#include "pane.h"
#include "util.h"

struct run;
struct search;

enum { PANE_EVENTS, PANE_DETAIL, PANE_COMPILER, PANE_TIMING, PANE__COUNT };

struct replay {
	struct run *run;            /* borrowed */
	const char *title;          /* borrowed */
	size_t sel;                 /* selected event */
	struct pane panes[PANE__COUNT];
	int right;                  /* the pane beside the list */
	int focus;                  /* 0: the list, 1: the pane beside it */
	int zoom, help;
	int list_adjust;            /* columns added to the list's width (< and >) */
	long long *cum_in, *cum_out, *cum_cache; /* token sums up to each event */
	size_t *cum_tools;          /* tool calls up to each event */
	double t0;                  /* first timestamp, 0 when the run has none */
	char *msg;                  /* one-key message in the status bar (owned, safe) */
	unsigned dirty;
	int body_y, body_h, list_w, side_x, side_w;
	/* search */
	struct search *search;      /* owned, NULL before the first search */
	int search_dir;             /* 1: / forward, -1: ? backward */
	size_t *matches, nmatches;  /* matching events, in order (owned) */
	/* the prompt on the status line: 0, '/', '?' or '%' */
	int prompt;
	struct sbuf input;
	long count;                 /* digits typed before a key, -1: none */
	/* playback */
	int playing;
	int speed;                  /* index into the speed table */
	double due;                 /* monotonic time of the next step */
};

/* The replay's loop; returns when the user goes back (q) or a signal came. */
void replay_run(struct run *run, const char *title);
/* Selects event i (clamped), scrolling the list and telling the panes. */
void replay_goto(struct replay *rp, size_t i);
/* The search to highlight with, NULL when none. */
struct search *replay_highlight(struct replay *rp);

#endif
