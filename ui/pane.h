/* pane.h: one rectangle of the replay. Each kind of pane (the event list,
 * the event detail, compiler output, GPU timing) is a struct pane_ops in a
 * file of its own; the replay lays panes out, gives one the focus, zooms it,
 * and passes it the keys it does not handle itself. A pane sees the view
 * that shows it through a struct pane_ctx: the run, the selection, the
 * search and the focus, and a few requests (pane_host), not the view. */
#ifndef KB_PANE_H
#define KB_PANE_H

#include <stddef.h>

#include "keys.h"
#include "tlines.h"

struct flag_list;
struct flag_rules;
struct pane;
struct event;
struct pane_ctx;
struct run;
struct search;
struct tag;

/* What a pane may ask of the view that shows it. */
struct pane_host {
	/* The status bar's message (copied; NULL clears it). */
	void (*say)(struct pane_ctx *cx, const char *msg);
	/* Draw again what the D_* bits (draw.h) name. */
	void (*dirty)(struct pane_ctx *cx, unsigned d);
	/* Select event ev: the list and every pane follow it. */
	void (*select)(struct pane_ctx *cx, size_t ev);
	/* Open the status line's prompt of this kind ('Q': a quote's label;
	 * the view gives the text to pane_artifact_label). */
	void (*ask)(struct pane_ctx *cx, int kind);
	/* Draw the panes again, built anew, after ms milliseconds (a pane
	 * that put off remaking what it shows while the run grows fast). */
	void (*later)(struct pane_ctx *cx, int ms);
};

/* What a pane sees of the view showing it. */
struct pane_ctx {
	struct run *run;                  /* borrowed */
	size_t sel;                       /* the selected event */
	int focus;                        /* 0: the event list has the focus, 1: the pane beside it (four panes: the replay's right) */
	int body_h;                       /* rows of the body (a list not drawn yet scrolls by them) */
	int side_w;                       /* columns of the pane beside the list */
	/* the four-pane layout: a whole-run pane (compiler output, timing)
	 * follows the latest rows at or before the selection, not the next */
	int before;
	struct search *search;            /* the search to highlight (borrowed), NULL: none */
	size_t nmatches;                  /* events it matches */
	struct flag_list *flags;          /* the run's auto-flags (the view's), NULL: none */
	const struct flag_rules *flag_rules; /* the rules they came from (borrowed) */
	struct tag *tag;                  /* the annotation session (borrowed), NULL: none */
	size_t ds_run;                    /* with tag: the dataset run shown */
	/* s (noise hidden): the events the list shows, in order (borrowed from
	 * the view), and how many it hides; NULL: every event is shown */
	const size_t *shown;
	size_t nshown, nhidden;
	/* A growing run's state that is no event (live: the turn in flight, as
	 * streamed; borrowed from the feed, nstream 0: none). Never in run->ev:
	 * the run's events are only appended, so an index keeps its event; the
	 * list shows these after the events, unnumbered, and nothing selects them. */
	const struct event *stream;
	size_t nstream;
	const struct pane_host *host;     /* NULL for a pane that asks nothing (compare's lists) */
};

struct pane_ops {
	const char *name;     /* title of the pane's header row */
	/* Rows depend on the selected event (rebuilt when it changes), not only
	 * on the width. */
	int per_event;
	/* Once, before the pane is first drawn or asked (pane_ready): read what
	 * the pane needs from the run. */
	void (*init)(struct pane *p, struct pane_ctx *cx);
	void (*free)(struct pane *p);
	/* The run grew (watch, live): events from `from` on are new or changed,
	 * those before it as they were; read only them. Returns 1 when it
	 * brought p->lines up to date itself (a pane that appends rows), 0 for
	 * them to be built again. NULL: a pane with init is freed and read
	 * again when next drawn. */
	int (*grow)(struct pane *p, struct pane_ctx *cx, size_t from);
	/* Lays out p->lines for a width (NULL: the pane draws itself). */
	void (*build)(struct pane *p, struct pane_ctx *cx, int width);
	/* Draws the body (NULL: p->lines from p->top). */
	void (*draw)(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h);
	/* Left side of the header row (NULL: the name). */
	void (*title)(struct pane *p, struct pane_ctx *cx, char *buf, size_t n);
	/* Right side of the header row: position, counts (NULL: the rows shown
	 * of a text pane). */
	void (*status)(struct pane *p, struct pane_ctx *cx, char *buf, size_t n);
	/* The selection moved: scroll to what belongs to it (NULL: nothing). */
	void (*follow)(struct pane *p, struct pane_ctx *cx);
	/* follow is also due on the pane's first draw and when its height
	 * changes: a pane drawn from the run itself (the list), with nothing
	 * built to follow the selection with, opened on an event far down
	 * (--event, the end of a big file) */
	int follow_drawn;
	/* Whether event ev holds something of this pane's (c/C, m/M keys). */
	int (*has)(struct pane *p, size_t ev);
	/* A key while the pane has the focus; 1 when handled. */
	int (*act)(struct pane *p, struct pane_ctx *cx, enum action a);
};

struct pane {
	const struct pane_ops *ops;
	void *state;          /* the pane kind's own data (owned through ops) */
	struct tlines lines;  /* what a text pane shows */
	size_t top;           /* first row shown */
	int h;                /* rows shown at the last draw */
	int built_w;          /* width lines were built for, -1: not built */
	size_t built_ev;      /* event they were built for (per_event panes) */
	int ready;            /* ops->init has run (pane_ready) */
};

extern const struct pane_ops pane_events_ops, pane_detail_ops, pane_compiler_ops, pane_timing_ops,
	pane_artifact_ops, pane_lineage_ops, pane_gpu_ops, pane_annot_ops, pane_timeline_ops, pane_reasoning_ops;
/* The publisher's per-run detail (ui/pane_shapes.c): not in the replay's
 * table yet; the integrator adds it there (ui/replay.c). */
extern const struct pane_ops pane_shapes_ops;
/* The claims ledger (src/claims.h); the replay's pane table lists it. */
extern const struct pane_ops pane_claims_ops;

/* The artifact pane p's quote label prompt (host ask 'Q') ended: Enter
 * with the label, Esc with NULL (the quote is dropped). */
void pane_artifact_label(struct pane *p, struct pane_ctx *cx, const char *label);
/* Q with the event list focused: a quote of the selected event, its text
 * as the replay decodes it and the transcript line it came from; asks the
 * label as the artifact pane's Q does (pane_artifact_label writes it). */
void pane_artifact_quote_event(struct pane *p, struct pane_ctx *cx);
/* J / r, whatever has the focus: the annotation pane p's judge's
 * suggestion at the selected event accepted (1) or rejected (0) in
 * suggested.json (src/suggested.h, as kbtui judge --accept does); an
 * accepted one's quote added to the annotation through tag_apply. */
void pane_annot_decide(struct pane *p, struct pane_ctx *cx, int accept);
/* Before S walks the suggestions: suggested.json read again; 0 when it
 * holds none or cannot be read (said in the status line). */
int pane_annot_suggested_ready(struct pane *p, struct pane_ctx *cx);
/* The lineage pane p's D (mark the selected event, or clear the mark) and
 * w (go to the event with the best peak_fraction), whatever has the focus. */
void pane_lineage_mark(struct pane *p, struct pane_ctx *cx);
void pane_lineage_best(struct pane_ctx *cx);
/* W: the run directory's final copy of the file, or back to the tracked one. */
void pane_lineage_final(struct pane *p, struct pane_ctx *cx);

/* The event list's rows: how many, the event of row r (clamped to the
 * last), and the row of event ev: its own, else the first shown after it
 * (the count when none); all the run's events when cx->shown is NULL. */
size_t pane_events_rows(const struct pane_ctx *cx);
size_t pane_events_at(const struct pane_ctx *cx, size_t r);
size_t pane_events_row_of(const struct pane_ctx *cx, size_t ev);
/* Whether the list hides event ev (cx->shown lacks it). */
int pane_events_hidden(const struct pane_ctx *cx, size_t ev);
/* ev, or the shown event nearest to it when the list hides it (the earlier
 * of two as near). */
size_t pane_events_near(const struct pane_ctx *cx, size_t ev);

/* The pane of kind ops, not read from the run yet: ops->init waits for
 * pane_ready, so that opening a big run costs only the panes it shows. */
void pane_init(struct pane *p, const struct pane_ops *ops, struct pane_ctx *cx);
/* Runs ops->init once; before anything but pane_draw (which calls it)
 * uses the pane's state. Returns p. */
struct pane *pane_ready(struct pane *p, struct pane_ctx *cx);
void pane_free(struct pane *p);
/* The run grew from event `from` on (ops->grow, else read again when next
 * drawn); the lines are built again. */
void pane_grow(struct pane *p, struct pane_ctx *cx, size_t from);
/* Header row and body, rebuilding lines first when stale. */
void pane_draw(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h, int focused);
/* Scrolls a text pane by delta rows, kept within its lines. */
void pane_scroll(struct pane *p, long delta);
/* The scrolling keys of a text pane (j, k, pages, g, G); 1 when handled.
 * A pane_ops act for panes that need no other keys. */
int pane_scroll_act(struct pane *p, struct pane_ctx *cx, enum action a);
/* The event of the first row shown that is about one, TLINE_NO_EVENT when
 * none. */
size_t pane_top_event(const struct pane *p);
/* Scrolls a whole-run pane to the rows of event ev (or of the next event
 * with rows), unless they are in view; a third of the pane above them shows
 * what came before. */
void pane_follow_event(struct pane *p, size_t ev);
/* Scrolls a whole-run pane so that the rows of the latest event at or
 * before ev open it (the top when there are none). */
void pane_follow_before(struct pane *p, size_t ev);
/* What a whole-run pane follows: pane_follow_before in the four-pane
 * layout (cx->before), else pane_follow_event. */
void pane_follow_sel(struct pane *p, struct pane_ctx *cx);
/* Marks the pane's lines stale (built again at the next draw). */
void pane_invalidate(struct pane *p);

#endif
