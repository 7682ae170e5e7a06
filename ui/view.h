/* view.h: one screen of the front end (the browser, a replay, compare, the
 * search across runs, the key help, R's re-evaluation) as a struct
 * view_ops, and the stack of views that tui.c's one loop runs. A view
 * draws from its dirty flags (D_*, draw.h: what changed is marked, the
 * loop draws once per pass), takes the keys it knows and returns VIEW_*
 * flags; the loop does what every view shares once: resize, the mouse
 * event, h (help), Ctrl-T (theme), Ctrl-L, the annotation keys, q, and the
 * polling of feeds and background jobs between keys. A new screen is one
 * file defining its view_ops and a constructor, and the line of
 * screens.h that gives it a key of the browser's. */
#ifndef KB_VIEW_H
#define KB_VIEW_H

#include "keys.h"

struct mouse_event;
struct tag;
struct view;

/* What a view's key, mouse, poll and resume return (bits). */
enum {
	VIEW_IGNORED = 1 << 0, /* not the view's key: the loop's shared keys may take it */
	VIEW_CLOSE = 1 << 1,   /* pop the view (v->result says what for the one below) */
	VIEW_PUSH = 1 << 2,    /* push v->push, made by the view (owned by the stack from then) */
	VIEW_FORWARD = 1 << 3, /* an overlay's: the view below takes the key (or mouse event) */
};

/* The shared keys the loop handles for a view (view_ops.common); a view
 * that never had one keeps not having it. */
enum {
	VIEW_HAS_HELP = 1 << 0,    /* h, F1: the help of ops->keys over ops->frame */
	VIEW_HAS_THEME = 1 << 1,   /* Ctrl-T: the next theme, its name as the message */
	VIEW_HAS_REDRAW = 1 << 2,  /* Ctrl-L */
	VIEW_HAS_TAG = 1 << 3,     /* verdicts, A, u, x through ops->tag_run */
	VIEW_HAS_QUIT = 1 << 4,    /* q closes (after ops->quits agrees) */
};

struct view_ops {
	const char *name;
	unsigned keys;         /* the key table's view: V_BROWSE, V_REPLAY, V_COMPARE */
	unsigned common;       /* VIEW_HAS_HELP | ...: the shared keys it takes */
	const char *margin;    /* put before a shared key's message ("" or " ") */
	/* Draws what v->dirty says, clears it, and refreshes. */
	void (*draw)(struct view *v);
	/* For a view over this one (VIEW_FORWARD): draws as draw does, with
	 * paint called over the part it covers (rows y..y+h-1, columns
	 * x..x+w-1) whenever that part is drawn, before the refresh. NULL:
	 * nothing goes over it. */
	void (*draw_over)(struct view *v, void (*paint)(void *arg, int y, int x, int w, int h), void *arg);
	/* 1 while a prompt of the view's takes every key (a view over it hands
	 * them all on). NULL: never. */
	int (*typing)(struct view *v);
	/* A key (msg already cleared); VIEW_IGNORED hands it to the shared keys. */
	unsigned (*key)(struct view *v, const struct key *k);
	/* Work that is due (feeds, playback, jobs, flags a run at a time);
	 * *ms: the longest wait for a key before it is due again (-1: none, 0:
	 * only a look at the keyboard). NULL: nothing runs in the background. */
	unsigned (*poll)(struct view *v, int *ms);
	/* A mouse event; NULL: ignored. */
	unsigned (*mouse)(struct view *v, const struct mouse_event *m);
	/* The terminal changed size (everything is redrawn anyway); NULL: no
	 * more than that. */
	void (*resize)(struct view *v);
	/* The view this one pushed has closed (child, alive until this
	 * returns). NULL: redrawn. */
	unsigned (*resume)(struct view *v, struct view *child);
	/* For the help: draws the view's header and status rows on an erased
	 * screen and says where the help goes; 0 when the terminal is too
	 * small (the view said so). */
	int (*frame)(struct view *v, int *top, int *rows);
	/* The annotation keys' run (a dataset index, -1: none) and session. */
	long (*tag_run)(struct view *v, struct tag **tag);
	/* After an annotation key was done (VIEW_HAS_TAG); NULL: nothing more. */
	void (*tagged)(struct view *v, enum action a);
	/* q pressed: 1 closes the view. NULL: it closes. */
	int (*quits)(struct view *v);
	void (*free)(struct view *v);
};

/* The part every view has; a view's own state begins with it. */
struct view {
	const struct view_ops *ops;
	unsigned dirty;        /* D_* (draw.h): what draw has to draw again */
	char *msg;             /* one-key message in the status bar (owned, safe), NULL: none */
	int idle;              /* the last wait for a key ended without one */
	int result;            /* what the view leaves for the one below when it closes */
	struct view *push;     /* with VIEW_PUSH: the view to push */
	struct view *below;    /* the view under it on the stack, NULL: the bottom */
};

/* Sets the message (a copy); NULL clears it. */
void view_say(struct view *v, const char *msg);
/* Asks the loop to push child over v: returns VIEW_PUSH. */
unsigned view_push(struct view *v, struct view *child);
/* Whether action a is one of the shared keys the loop does for v. */
int view_shared(const struct view *v, enum action a);

/* The key help over a view's frame (view_help.c), scrolled by the
 * scrolling keys, closed by any other. */
struct view *view_help_new(struct view *over);
extern const struct view_ops view_help_ops;

/* Runs views from root (owned; freed when they close) until the last one
 * closes or a signal came: the one loop. Returns root's result. */
int tui_run(struct view *root);
/* One key as the loop takes it, for a driver without a loop (make bench);
 * a view it would push is freed. */
void tui_key(struct view *v, const struct key *k);

#endif
