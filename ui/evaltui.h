/* evaltui.h: the eval loop on the replay screen. `kbtui eval --tui` shows
 * the loop filling a run as it goes (a tool call per step, its output
 * streaming into the result, so the compiler and timing panes read it). R
 * in a replay (re-evaluating a step) is ui/reeval_view.c. */
#ifndef KB_EVALTUI_H
#define KB_EVALTUI_H

/* `kbtui eval`: argv[0] is the command name. Without --tui it is
 * cmd_eval's log, unchanged; with it, the screen (exit 2 without a
 * terminal). */
int evaltui_main(int argc, char **argv);

#endif
