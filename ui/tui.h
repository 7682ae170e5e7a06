/* tui.h: the ncurses front end: a run browser over a dataset and the replay
 * of one run. Only ui/ talks to the terminal. */
#ifndef KB_TUI_H
#define KB_TUI_H

#include <stdio.h>

struct dataset;
struct run;

/* Where tagging writes, who annotates, whether blind mode is on at start
 * (--annotations, --annotator, --blind); NULL fields: the defaults. */
struct tui_tagging {
	const char *dir;
	const char *annotator;
	int blind;
	/* the browser's first board/GPU selection (--board, --gpu), NULL: all */
	const char *board, *gpu;
	/* --event N or PATH@N: the replay first opened selects event N (from
	 * 1, as the replay counts; past the end: the last); 0: the first */
	size_t event;
};

/* The key table as `kbtui keys` prints it (roff 0) or as man page items
 * (roff 1), from the same table the key map and the help screen use. */
void tui_print_keys(FILE *out, int roff);

/* For the views in ui/ (ui/tui.c): a curses session (nested starts share
 * one), whether a signal asked the program to end (the loop then returns),
 * and the exit status that leaves: 0, or 128 + the signal. */
void tui_start(void);
void tui_stop(void);
int tui_stopped(void);
int tui_exit_status(void);
/* A y/n question on the bottom row, modal; 1 for y (or a signal). */
int tui_yes(const char *question);

#endif
