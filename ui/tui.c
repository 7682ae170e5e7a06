#include "tui.h"
#include <ncurses.h>
int tui_browse(struct dataset *ds) { (void)ds; return 0; }
int tui_replay(struct run *run, const char *title) { (void)run; (void)title; return 0; }
