/* pane.h: one rectangle of the replay. Each kind of pane (the event list,
 * the event detail, compiler output, GPU timing) is a struct pane_ops in a
 * file of its own; the replay lays panes out, gives one the focus, zooms it,
 * and passes it the keys it does not handle itself. */
#ifndef KB_PANE_H
#define KB_PANE_H

#include <stddef.h>

#include "keys.h"
#include "tlines.h"

struct replay;
struct pane;

struct pane_ops {
	const char *name;     /* title of the pane's header row */
	/* Rows depend on the selected event (rebuilt when it changes), not only
	 * on the width. */
	int per_event;
	/* Once, when the replay opens: read what the pane needs from the run. */
	void (*init)(struct pane *p, struct replay *rp);
	void (*free)(struct pane *p);
	/* Lays out p->lines for a width (NULL: the pane draws itself). */
	void (*build)(struct pane *p, struct replay *rp, int width);
	/* Draws the body (NULL: p->lines from p->top). */
	void (*draw)(struct pane *p, struct replay *rp, int y, int x, int w, int h);
	/* Left side of the header row (NULL: the name). */
	void (*title)(struct pane *p, struct replay *rp, char *buf, size_t n);
	/* Right side of the header row: position, counts (NULL: the rows shown
	 * of a text pane). */
	void (*status)(struct pane *p, struct replay *rp, char *buf, size_t n);
	/* The selection moved: scroll to what belongs to it (NULL: nothing). */
	void (*follow)(struct pane *p, struct replay *rp);
	/* Whether event ev holds something of this pane's (c/C, m/M keys). */
	int (*has)(struct pane *p, size_t ev);
	/* A key while the pane has the focus; 1 when handled. */
	int (*act)(struct pane *p, struct replay *rp, enum action a);
};

struct pane {
	const struct pane_ops *ops;
	void *state;          /* the pane kind's own data (owned through ops) */
	struct tlines lines;  /* what a text pane shows */
	size_t top;           /* first row shown */
	int h;                /* rows shown at the last draw */
	int built_w;          /* width lines were built for, -1: not built */
	size_t built_ev;      /* event they were built for (per_event panes) */
};

extern const struct pane_ops pane_events_ops, pane_detail_ops, pane_compiler_ops, pane_timing_ops,
	pane_artifact_ops, pane_lineage_ops, pane_gpu_ops;

/* The artifact pane's quote label prompt (replay prompt 'Q') ended: Enter
 * with the label, Esc with NULL (the quote is dropped). */
void pane_artifact_label(struct replay *rp, const char *label);
/* The lineage pane's D (mark the selected event, or clear the mark) and w
 * (go to the event with the best peak_fraction), whatever has the focus. */
void pane_lineage_mark(struct replay *rp);
void pane_lineage_best(struct replay *rp);

void pane_init(struct pane *p, const struct pane_ops *ops, struct replay *rp);
void pane_free(struct pane *p);
/* Header row and body, rebuilding lines first when stale. */
void pane_draw(struct pane *p, struct replay *rp, int y, int x, int w, int h, int focused);
/* Scrolls a text pane by delta rows, kept within its lines. */
void pane_scroll(struct pane *p, long delta);
/* The scrolling keys of a text pane (j, k, pages, g, G); 1 when handled.
 * A pane_ops act for panes that need no other keys. */
int pane_scroll_act(struct pane *p, struct replay *rp, enum action a);
/* The event of the first row shown that is about one, TLINE_NO_EVENT when
 * none. */
size_t pane_top_event(const struct pane *p);
/* Scrolls a whole-run pane to the rows of event ev (or of the next event
 * with rows), unless they are in view; a third of the pane above them shows
 * what came before. */
void pane_follow_event(struct pane *p, size_t ev);
/* Marks the pane's lines stale (built again at the next draw). */
void pane_invalidate(struct pane *p);

#endif
