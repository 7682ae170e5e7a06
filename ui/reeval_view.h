/* reeval_view.h: R in a replay: the solution at the selected event
 * re-evaluated in a thread, its progress and then our numbers beside the
 * agent's own in a view over the replay's side pane. */
#ifndef KB_REEVAL_VIEW_H
#define KB_REEVAL_VIEW_H

#include "eval.h"

struct pane_ctx;
struct view;

/* Asks (the code is the transcript's), then starts re-evaluating the
 * solution at cx->sel (a dataset run's solution.py through $KBTUI_KBH's
 * python loop, ours through the native loop); the view goes over below
 * (which draws it through its draw_over: Esc or q closes it, stopping a
 * running loop; j/k scroll it; below takes every other key). NULL when
 * nothing started (below's status bar says why, or the user said no).
 * below and cx stay borrowed: the view goes on the stack over below. */
struct view *reeval_view_new(struct view *below, const struct pane_ctx *cx);

/* The tool a step of the eval loop shows as (eval --tui's tool calls, the
 * re-evaluation's log). */
const char *reeval_view_tool(enum eval_stage s);

#endif
