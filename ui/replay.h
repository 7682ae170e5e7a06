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

/* The list, then the panes beside it in the order v shows them. */
enum { PANE_EVENTS, PANE_DETAIL, PANE_COMPILER, PANE_TIMING, PANE_ARTIFACT, PANE_LINEAGE, PANE_GPU,
       PANE__COUNT };

struct key;
struct replay;
struct tag;

/* Something that grows the run while the replay shows it: a transcript file
 * a harness is still writing (watch) or an agent working now (live). The
 * replay polls it between keys, every interval_ms. */
struct replay_feed {
	/* Adds what arrived to the run (new events, or text appended to the
	 * last one); 1: the run changed, 0: nothing new, -1: the feed has ended
	 * (the run stays on screen). */
	int (*poll)(struct replay_feed *f, struct run *run);
	/* The live indicator's text ("LIVE", "paused", "ended" ...); NULL: none. */
	const char *(*status)(struct replay_feed *f);
	/* A key the replay did not take (live: pause, message, abort); 1: taken.
	 * NULL: none. */
	int (*act)(struct replay_feed *f, struct replay *rp, const struct key *k);
	int interval_ms;            /* 0: 100 */
	void *state;                /* the feed's own (owned by whoever made it) */
};

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
	/* a growing run (watch, live); NULL for a finished transcript */
	struct replay_feed *feed;   /* borrowed */
	char *feed_said;            /* the live indicator shown (owned, safe) */
	double feed_due;            /* monotonic time of the next poll */
	int feed_ended;             /* poll said -1: polled no more */
	/* tagging: the session and the dataset run shown; NULL: not a dataset run */
	struct tag *tag;            /* borrowed */
	size_t ds_run;
	int next;                   /* a: leave for the next run without a verdict */
	struct runstats *stats;     /* time split, reasoning honesty (owned; made at the header's draw) */
	/* auto-flags (src/flags.h): NULL when the rules could not be read */
	struct flag_list *flags;    /* owned */
	const struct flag_rules *flag_rules; /* borrowed: the shipped rules */
};

/* The replay's loop; returns when the user goes back (q) or a signal came. */
void replay_run(struct run *run, const char *title);
/* The same over a run that grows while it is shown (borrowed feed). */
void replay_run_feed(struct run *run, const char *title, struct replay_feed *feed);
/* The replay of run i of a dataset, with the annotation keys of session tag
 * (borrowed). Returns 1 when a asked for the next run without a verdict,
 * 0 when the user went back. */
int replay_run_tagged(struct run *run, const char *title, struct tag *tag, size_t i);
/* Selects event i (clamped), scrolling the list and telling the panes. */
void replay_goto(struct replay *rp, size_t i);
/* The search to highlight with, NULL when none. */
struct search *replay_highlight(struct replay *rp);
/* The replay opened at event ev with the search `pattern` set, so that n
 * and N go on from there (the browser's search across runs). */
void replay_run_at(struct run *run, const char *title, size_t ev, const char *pattern);

#endif
