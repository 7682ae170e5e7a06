/* tui.h: the ncurses front end: a run browser over a dataset and the replay
 * of one run. Only ui/ talks to the terminal. */
#ifndef KB_TUI_H
#define KB_TUI_H

#include <stdio.h>

struct dataset;
struct run;

/* Opens the browser on a dataset (borrowed). Returns the exit status. */
int tui_browse(struct dataset *ds);
/* Opens the replay of one run (borrowed); title names it. Returns the exit
 * status. */
int tui_replay(struct run *run, const char *title);

/* The key table as `kbtui keys` prints it (roff 0) or as man page items
 * (roff 1), from the same table the key map and the help screen use. */
void tui_print_keys(FILE *out, int roff);

/* For the views in ui/: a curses session (nested starts share one), and
 * whether a signal asked the program to end (the loops then return). */
void tui_start(void);
void tui_stop(void);
int tui_stopped(void);

#endif
