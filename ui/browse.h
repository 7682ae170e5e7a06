/* browse.h: the run browser: a sortable, filterable list of the runs of a
 * dataset, or the leaderboard grid; Enter replays a run. */
#ifndef KB_BROWSE_H
#define KB_BROWSE_H

struct dataset;
struct tui_tagging;
struct view;

/* The browser, a view (ui/view.h) run by tui.c's loop, with a tagging
 * session as tg says; returns when the user quits or a signal came. open
 * >= 0: replay that run at once and quit after it (kbtui RUN_DIR). */
void browse_run(struct dataset *ds, const struct tui_tagging *tg, long open);
/* The browser's view alone, not run (its first screen for bench/kbbench_tui);
 * its ops->free frees it. */
struct view *browse_new(struct dataset *ds, const struct tui_tagging *tg);

#endif
