/* tui.h: the ncurses front end: a run browser over a dataset and a
 * two-pane replay of one run. Only ui/ talks to the terminal. */
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

/* The key table as man page lines (.TP / .B keys / help), one entry per
 * action, from the same table the key map and the ? screen use. */
void tui_print_keys(FILE *out, int roff);

#endif
