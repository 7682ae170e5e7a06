/* tui.h: the ncurses front end. */
#ifndef KB_TUI_H
#define KB_TUI_H

struct dataset;
struct run;

/* Opens the browser on a dataset (borrowed). Returns the exit status. */
int tui_browse(struct dataset *ds);
/* Opens the replay of one run (borrowed); title names it. */
int tui_replay(struct run *run, const char *title);

#endif
