/* evaljob.h: one eval_run in a thread of its own, for a screen that must
 * keep drawing while it runs: the loop's step changes and lines are queued
 * under a mutex and taken by the screen's poll; the result comes at the
 * end. The thread never touches the terminal. */
#ifndef KB_EVALJOB_H
#define KB_EVALJOB_H

#include <stddef.h>

#include "eval.h"

enum evaljob_kind { EJ_STAGE, EJ_LINE };

struct evaljob_item {
	enum evaljob_kind kind;
	enum eval_stage stage;      /* EJ_STAGE: the step that begins */
	char *origin;               /* EJ_LINE: "compile", "check", "bench" or "eval" (owned) */
	char *text;                 /* EJ_LINE: the line, no '\n' (owned, untrusted) */
};

struct evaljob;

/* Starts eval_run(o) in a thread, its children in the sandbox
 * (evalbox.h: bwrap, or none when $KBTUI_SANDBOX=none says so); without a
 * working bwrap the loop does not run and ends at once with rc -1, the
 * failure saying why and how to override. o's on_line, on_stage, ud and abort are
 * the job's own. o's strings are borrowed: they must outlive the job.
 * NULL when no thread could be started. */
struct evaljob *evaljob_start(const struct eval_opts *o);
/* The same with the sandbox asked for ("none", "bwrap"; NULL: as
 * evaljob_start), as `kbtui eval --sandbox` would pass it. */
struct evaljob *evaljob_start_sandbox(const struct eval_opts *o, const char *sandbox);
/* Hands over what arrived since the last call (*items owned by the caller:
 * evaljob_items_free). Returns 1 once the loop has ended and everything it
 * said was handed over, else 0. */
int evaljob_take(struct evaljob *j, struct evaljob_item **items, size_t *n);
void evaljob_items_free(struct evaljob_item *items, size_t n);
/* The step running now (EVAL_SETUP before the first). */
enum eval_stage evaljob_stage(struct evaljob *j);
/* After evaljob_take said 1: eval_run's return and result (borrowed). */
int evaljob_rc(const struct evaljob *j);
const struct eval_result *evaljob_result(const struct evaljob *j);
/* Waits for the loop's end (after evaljob_abort: its quick end);
 * eval_run's return. */
int evaljob_wait(struct evaljob *j);
/* Asks the loop to stop: the running step's process group is killed. */
void evaljob_abort(struct evaljob *j);
/* Aborts it when still running, waits for the thread, frees. */
void evaljob_free(struct evaljob *j);

#endif
