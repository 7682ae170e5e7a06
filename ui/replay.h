/* replay.h: the replay of one run: the event list beside one of the other
 * panes (detail, compiler output, GPU timing), or beside four of them at
 * once on a big terminal, a status bar with the
 * timeline, search, jumps and playback. */
#ifndef KB_REPLAY_H
#define KB_REPLAY_H

#include <stddef.h>

#include "noise.h"
#include "pane.h"
#include "tallies.h"
#include "util.h"
#include "view.h"

struct run;
struct search;

/* The list, then the panes beside it in the order v shows them. */
enum { PANE_EVENTS, PANE_DETAIL, PANE_COMPILER, PANE_TIMING, PANE_ARTIFACT, PANE_LINEAGE, PANE_GPU, PANE_SHAPES, PANE_CLAIMS,
       PANE_REASONING, PANE_ANNOT, PANE_TIMELINE, PANE__COUNT };

/* The layout of the replay's body: the list and one pane beside it, or the
 * list and four panes (reasoning, detail, compiler output, timing); AUTO:
 * four on a terminal of REPLAY_FOUR_COLS x REPLAY_FOUR_LINES or more. */
enum replay_layout { REPLAY_LAYOUT_AUTO, REPLAY_LAYOUT_ONE, REPLAY_LAYOUT_FOUR };
#define REPLAY_FOUR_COLS 160
#define REPLAY_FOUR_LINES 45

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
	 * v: the replay's view, for a message (view_say) and what to redraw.
	 * NULL: none. */
	int (*act)(struct replay_feed *f, struct view *v, const struct key *k);
	int interval_ms;            /* 0: 100 */
	void *state;                /* the feed's own (owned by whoever made it) */
	/* The view's name in the header ("watch", "live"); NULL: "replay". */
	const char *name;
	/* How many times the feed read the run again from the start (a
	 * rewritten file): when it changes, every event is taken as new.
	 * NULL: never. */
	unsigned (*restarts)(struct replay_feed *f);
	/* q pressed while the feed runs (eval --tui: asks, then stops the
	 * loop); 1: leave, 0: stay. NULL: leave. */
	int (*quit)(struct replay_feed *f);
	/* The pane the feed wants beside the list now (eval --tui: the compiler
	 * pane while nvcc runs, timing while the benchmark does); asked after
	 * each poll, -1: no change. NULL: none. */
	int (*pane)(struct replay_feed *f);
	/* What the run is doing that is no event yet (live: the turn in
	 * flight, as streamed), *n of them, borrowed until the next poll; the
	 * list shows them after the events. Asked after each poll. NULL: none. */
	const struct event *(*stream)(struct replay_feed *f, size_t *n);
	/* A file being read rather than a run being written (ui/pager.c): the
	 * selection starts at the event asked for and follows the end only
	 * once the user went there (G). */
	int keep_place;
	/* G while the feed reads (ui/pager.c): a view to push over the replay
	 * v that shows the end at once; NULL: G goes to the last event read. */
	struct view *(*last)(struct replay_feed *f, struct view *v);
	/* The view closes once its feed has ended, the replay below it going to
	 * its last event (the end of a big file shown over the read from the
	 * start: that read is over). */
	int close_on_end;
};

/* The replay view (its msg and dirty flags are the view's). */
struct replay {
	struct view v;              /* first: what the loop runs (ui/view.h) */
	/* what the panes see: the run (borrowed), the selected event, focus,
	 * the search (owned, NULL before the first search) and its matches,
	 * the auto-flags (owned; NULL when the rules could not be read), the
	 * annotation session (borrowed; NULL: not a dataset run) */
	struct pane_ctx cx;
	const char *title;          /* borrowed */
	struct pane panes[PANE__COUNT];
	int right;                  /* the pane beside the list; four panes: the one focused */
	enum replay_layout layout;  /* chosen (=, $KBTUI_LAYOUT); AUTO: by the terminal's size */
	int four;                   /* the four-pane layout is shown (cx.before says so to the panes) */
	int one_right;              /* four panes: the pane the one-pane layout had beside the list */
	int zoom;
	int list_adjust;            /* columns added to the list's width (< and >) */
	struct tallies tally;       /* tokens, tool calls, turns up to each event; the first timestamp */
	int body_y, list_w, side_x; /* and cx.body_h, cx.side_w */
	/* search (cx.search, cx.nmatches) */
	int search_dir;             /* 1: / forward, -1: ? backward */
	size_t *matches;            /* matching events, in order (owned) */
	/* the prompt on the status line: 0, '/', '?' or '%' */
	int prompt;
	struct sbuf input;
	long count;                 /* digits typed before a key, -1: none */
	struct {                    /* playback */
		int on;
		int speed;              /* index into the speed table */
		double due;             /* monotonic time of the next step */
	} play;
	struct {                    /* a growing run (watch, live) */
		struct replay_feed *f;  /* borrowed; NULL for a finished transcript */
		char *said;             /* the live indicator shown (owned, safe) */
		double due;             /* monotonic time of the next poll */
		int ended;              /* poll said -1: polled no more */
		unsigned restarts;      /* the feed's restarts at the last poll */
	} feed;
	struct {                    /* s: usage, system and read-only events hidden from the list */
		int on;
		struct noise_marks marks; /* its shown: cx.shown while on (owned) */
	} noise;
	struct runstats *stats;     /* time split, reasoning honesty (owned; made at the header's draw) */
	/* the header's run segment: the deck result.json records and the
	 * publisher's stats (rundetail), longest first: deck and whole stats,
	 * deck and brief stats, brief stats, deck (owned, NULL none); read
	 * once at the first draw */
	char *head_seg[4];
	int head_made;
	/* The first screen shows the list and the selected event at once; what
	 * reads the whole run (the whole-run panes, the header's statistics)
	 * is shown "reading" and made in the poll right after it. */
	int painted;                /* the first screen is on the terminal */
	int deferred;               /* something was left for the poll to make */
	double stats_at;            /* monotonic time stats was made (a growing run: again 2 s later at most) */
	double wake;                /* monotonic time a pane asked to be drawn again (pane_host.later), 0: none */
	/* a big growing run's statistics being made again, REPLAY_STATS_SLICE
	 * events a draw, shown once whole (owned), NULL: none */
	struct runstats *stats_next;
};

/* Selects event i (clamped), scrolling the list and telling the panes. */
void replay_goto(struct replay *rp, size_t i);
/* How a replay opens (replay_open); zeroed: at event 1, no search, no
 * annotation keys, a finished run. */
struct replay_opts {
	size_t ev;                  /* the event selected first (a feed: its tail) */
	const char *pattern;        /* a search set at ev, so that n and N go on */
	struct tag *tag;            /* the annotation session (borrowed), NULL: none */
	size_t ds_run;              /* with tag: the dataset run shown */
	struct replay_feed *feed;   /* a growing run (borrowed), NULL: none */
};
/* The replay view, opened as o says (run, title and what o points to stay
 * borrowed). When it closes its result is 1 when a (with a tag) asked for
 * the next run without a verdict, REPLAY_AT_END when its feed ended and
 * close_on_end closed it, 0 when the user went back. */
#define REPLAY_AT_END 2
struct view *replay_view_new(struct run *run, const char *title, const struct replay_opts *o);
/* The replay view as the first view of tui.c's loop, for a screen that is
 * only a replay (kbtui FILE, watch, live, eval --tui); its result. */
int replay_open(struct run *run, const char *title, const struct replay_opts *o);
/* The same over a run that grows while it is shown (borrowed feed). */
void replay_run_feed(struct run *run, const char *title, struct replay_feed *feed);

/* The view's steps, for a driver that feeds keys one at a time (make
 * bench): init, then draw (only what is dirty; ends in a refresh) and key
 * (as the loop takes it: tui_key) in turns, then free. The run and title
 * stay borrowed. */
void replay_init(struct replay *rp, struct run *run, const char *title);
void replay_draw(struct replay *rp);
void replay_key(struct replay *rp, const struct key *k);
void replay_free(struct replay *rp);

/* ---- between the replay's files (replay.c: the view, its keys and feed;
 * replay_draw.c: the screen; replay_nav.c: moving; replay_seek.c: the
 * jumps). Not for other views. ---- */
struct mouse_event;

#define REPLAY_SPEED_1X 2           /* index of 1x in replay_speeds */
#define REPLAY_STATS_SLICE 50000     /* events a draw adds to them (about 6 ms) */
#define REPLAY_STATS_S 2.0          /* a growing run's header statistics: made again at most this often */
extern const double replay_speeds[]; /* playback speeds, from 0.25x */
extern const int replay_four_panes[4]; /* the four-pane layout in reading order (Tab's too) */
double replay_now(void);            /* monotonic seconds */

/* replay_draw.c */
void replay_layout(struct replay *rp);
void replay_four_rect(const struct replay *rp, int k, int *y, int *x, int *w, int *h);
int replay_stats_due(const struct replay *rp);
int replay_frame(struct view *v, int *top, int *rows);
void replay_paint(struct replay *rp, void (*paint)(void *arg, int y, int x, int w, int h), void *arg);

/* replay_nav.c: each what its key does */
/* The noise marked again from event `from` on (0: all), cx.shown set. */
void replay_noise_make(struct replay *rp, size_t from);
void replay_noise(struct replay *rp);
void replay_move(struct replay *rp, long delta);
void replay_percent(struct replay *rp, long pct);
void replay_search_set(struct replay *rp, const char *pattern, int dir);
void replay_prompt_open(struct replay *rp, int kind);
void replay_prompt_key(struct replay *rp, const struct key *k);
void replay_play(struct replay *rp, int on);
void replay_tick(struct replay *rp);
void replay_speed(struct replay *rp, int delta);
void replay_layout_key(struct replay *rp);
void replay_side(struct replay *rp, int delta);
void replay_goto_row(struct replay *rp);
void replay_focus_next(struct replay *rp);
unsigned replay_mouse(struct view *v, const struct mouse_event *m);

/* replay_seek.c: a jump key (t, e, c, m, f, n, w, Q and their capitals):
 * 1 when a it was one (done), 0: not a jump. */
int replay_seek_key(struct replay *rp, enum action a);
/* The next match of the search in direction dir (1, -1), wrapping once. */
void replay_seek_match(struct replay *rp, int dir);

#endif
