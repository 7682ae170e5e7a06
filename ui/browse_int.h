/* browse_int.h: between the run browser's files (browse.c: the view and
 * its keys; browse_list.c: what it lists, in what order; browse_draw.c:
 * its screen). Not for other views: they open it through browse.h. */
#ifndef KB_BROWSE_INT_H
#define KB_BROWSE_INT_H

#include <stddef.h>

#include "grid.h"
#include "view.h"

struct dataset;
struct flag_runs;
struct sweepwatch;
struct tag;
struct watch_session;

/* A column of the run list: its title, width bounds, and cell text. */
struct browse_col {
	const char *title;
	int min, max;
	/* Safe cell text (owned) and its role. */
	char *(*cell)(const struct dataset *ds, size_t i, int *role);
	/* 1: cut in the middle (the names differ at their ends); 2: a model's
	 * name, shortened where it says least (modelname_fit) */
	int mid;
	/* 0: always shown; else hidden on a narrow terminal, 1 first: what
	 * tells runs apart (MODEL, PROBLEM) and whether one can be replayed
	 * (OK, FORMAT) stays */
	int drop;
};


#define BROWSE_NCOLS 8        /* the rows of browse_cols */
extern const struct browse_col browse_cols[BROWSE_NCOLS];
/* The runs' auto-flags the FLAGS cells show (the browser's; NULL: none):
 * the cell function has no browse argument. */
extern const struct flag_runs *browse_flags;
/* The sweep whose cells the FLAGS and OK cells show (NULL: none). */
extern const struct sweepwatch *browse_sweep;

enum { SORT_PROBLEM, SORT_MODEL, SORT_PEAK, SORT__COUNT };
extern const char *const browse_sort_names[SORT__COUNT];

/* What the browser pushed, for its resume. */
enum { BROWSE_PUSHED_NONE, BROWSE_PUSHED_REPLAY, BROWSE_PUSHED_SCREEN, BROWSE_PUSHED_COMPARE, BROWSE_PUSHED_WATCH };

struct browse {
	struct view v;             /* first: the view the loop runs (its msg has a margin) */
	struct dataset *ds;        /* borrowed */
	size_t *order, n;          /* the runs shown, in order */
	size_t sel, top;
	int sort;
	char filter[256];          /* raw text the user typed */
	char saved[256];           /* filter before / was pressed, for Esc */
	int editing;               /* the / prompt is open */
	int grid_on;               /* the grid instead of the list */
	struct grid grid;
	int grid_stale;            /* the list changed since the grid was made: made when shown */
	int details_wait;          /* runs' result.json still to read: the widths then made again */
	struct flag_runs *flags;   /* auto-flags of the runs, found between keys (owned) */
	int flags_left;            /* runs are left to flag */
	int width[BROWSE_NCOLS];
	int list_y, list_h;
	struct tag *tag;           /* the annotation session (owned) */
	size_t cmp_mark;           /* c: the run marked for comparison, index + 1; 0: none */
	int pushed;                /* BROWSE_PUSHED_*: the view over it */
	int open_only;             /* kbtui RUN_DIR: quit once its replays end */
	size_t open_event;         /* kbtui RUN@N: the first replay opens at event N (from 1); 0: none */
	struct sweepwatch *sweep;  /* a sweep directory's cells, polled (owned), NULL: no sweep */
	/* the boards shown: board < 0 all (or those on gpu, from --gpu), else
	 * ds->boards[board] alone */
	long board;
	const char *gpu;           /* borrowed (argv), NULL */
	struct watch_session *watching;  /* Enter on a running cell: its watch (owned while pushed) */
	/* Enter on a run with a big transcript: it is read between keys
	 * (ui/pager.c), then handed to the dataset (owned while pushed) */
	struct pager *paging;
	struct parser_loader *paging_ld;
	size_t paging_run;
	/* the status line's statistics of the selected run (owned), for run
	 * stats_run (borrowed, compared only), dataset run stats_sel */
	struct runstats *stats;
	const struct run *stats_run;
	long stats_sel;
};

/* browse_list.c */
/* The board the browser shows, NULL when it shows all of them. */
const struct board *browse_board(const struct browse *b);
/* The run the selection stands for, -1 when none (an empty grid cell). */
long browse_selected(const struct browse *b);
/* The grid of the runs listed, with run keep (>= 0) selected. */
void browse_grid_build(struct browse *b, long keep);
/* The list made again from filter and sort; the selected run stays selected when still listed. */
void browse_refresh(struct browse *b);

/* browse_draw.c */
/* Each column's width from its cells (made again when they change). */
void browse_widths(struct browse *b);
/* The help's frame: the header and the status bar around it. */
int browse_frame(struct view *v, int *top, int *rows);
/* What is dirty, drawn. */
void browse_draw(struct browse *b);

#endif
