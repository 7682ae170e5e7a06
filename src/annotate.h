/* annotate.h: PLACEHOLDER being written this session (helper "artifact").
 * Intended contract (the TUI's tagging and `kbtui annotate` both use it):
 * one change to a run's annotation file annotations/<run_id>.yaml: load it
 * (or start one), fill run_id, model, harness, effort, problem,
 * peak_fraction from the run, apply the change, check it, write it
 * atomically under the lock, and keep what was there so it can be undone. */
#ifndef KB_ANNOTATE_H
#define KB_ANNOTATE_H
#endif
