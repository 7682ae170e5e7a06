/* evaltui.h: the eval loop on the replay screen. `kbtui eval --tui` shows
 * the loop filling a run as it goes (a tool call per step, its output
 * streaming into the result, so the compiler and timing panes read it), and
 * R in a replay re-evaluates the solution as it stood at the selected event
 * and shows our numbers beside the agent's own. */
#ifndef KB_EVALTUI_H
#define KB_EVALTUI_H

struct key;
struct replay;
struct evaltui_reeval;

/* `kbtui eval`: argv[0] is the command name. Without --tui it is
 * cmd_eval's log, unchanged; with it, the screen (exit 2 without a
 * terminal). */
int evaltui_main(int argc, char **argv);

/* R in the replay: re-evaluates the solution at rp->sel (a dataset run's
 * solution.py through $KBTUI_KBH's python loop, ours through the native
 * loop) in a thread; the result shows over the side pane. */
void evaltui_reeval_start(struct replay *rp);
/* The replay's wait: polls a running re-evaluation, returns the wait in
 * ms capped so that it is polled again soon (ms -1: none yet). */
int evaltui_reeval_wait(struct replay *rp, int ms);
/* Draws the overlay (when rp->reeval is set), over the side pane. */
void evaltui_reeval_draw(struct replay *rp);
/* A key while the overlay is up: Esc and q close it (stopping a running
 * loop), j/k scroll it; 1: taken. */
int evaltui_reeval_key(struct replay *rp, const struct key *k);
void evaltui_reeval_free(struct evaltui_reeval *re);

#endif
