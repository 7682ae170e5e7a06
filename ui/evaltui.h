/* evaltui.h: the eval loop on the replay screen. `kbtui eval --tui` shows
 * the loop filling a run as it goes (a tool call per step, its output
 * streaming into the result, so the compiler and timing panes read it), and
 * R in a replay re-evaluates the solution as it stood at the selected event
 * and shows our numbers beside the agent's own. */
#ifndef KB_EVALTUI_H
#define KB_EVALTUI_H

struct key;
struct replay;
struct view;

/* `kbtui eval`: argv[0] is the command name. Without --tui it is
 * cmd_eval's log, unchanged; with it, the screen (exit 2 without a
 * terminal). */
int evaltui_main(int argc, char **argv);

/* R in the replay: asks, then re-evaluates the solution at the selected
 * event (a dataset run's solution.py through $KBTUI_KBH's python loop,
 * ours through the native loop) in a thread; the result shows in a view
 * over the replay's side pane (Esc or q closes it, stopping a running
 * loop; j/k scroll it; the replay takes every other key). NULL when
 * nothing started (the replay's status bar says why, or the user said no).
 * rp stays borrowed: the view goes on the stack over it. */
struct view *evaltui_reeval_view(struct replay *rp);

#endif
