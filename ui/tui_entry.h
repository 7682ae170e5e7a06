/* tui_entry.h: what main.c and the commands open (ui/tui_entry.c): the
 * browser over a dataset, the replay of one run, a replay over a feed;
 * each a curses session around one loop (ui/tui.c). The top of the front
 * end's chain: tui_entry opens browse, browse opens watch and replay,
 * nothing below includes this. */
#ifndef KB_TUI_ENTRY_H
#define KB_TUI_ENTRY_H

#include <stddef.h>

#include "tui.h"

struct dataset;
struct run;

/* Opens the browser on a dataset (borrowed), or with open >= 0 the replay
 * of that run of it (annotation keys and all). Returns the exit status. */
int tui_browse(struct dataset *ds, const struct tui_tagging *tg, long open);
/* Opens the replay of one run (borrowed); title names it. Returns the exit
 * status. */
int tui_replay(struct run *run, const char *title);
/* The same at event ev (from 0; past the end: the last). */
int tui_replay_at(struct run *run, const char *title, size_t ev);
/* Any view (owned) as the first of the loop (`kbtui watch`: the replay
 * over a growing file). */
struct view;
int tui_view(struct view *v);

#endif
