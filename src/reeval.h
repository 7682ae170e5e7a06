/* reeval.h: re-evaluating a recorded run's solution as it stood at one
 * step, and what the agent's own benchmark said there, so that a screen can
 * put our numbers beside the agent's. A dataset run (solution.py) goes
 * through KernelBench-Hard's python loop (eval --kbh), one of ours
 * (solution.cu) through the native loop. */
#ifndef KB_REEVAL_H
#define KB_REEVAL_H

#include <stddef.h>

#include "util.h"

struct run;
struct benchlog;
struct eval_result;

/* The solution file (solution.py or solution.cu, whichever was changed
 * last) as it stood after event ev: borrowed from the run's file versions.
 * *path (borrowed) names it as written, *changed_at the event that wrote
 * that version. NULL when the run had written neither by then. */
const char *reeval_solution_at(struct run *run, size_t ev, const char **path, long *changed_at);
/* "py" for a solution.py, "cu" for a solution.cu, NULL otherwise. */
const char *reeval_ext(const char *path);

/* What the agent saw at or before an event. */
struct reeval_agent {
	struct benchlog *bench;     /* its last benchmark output, read (owned), NULL: none */
	long bench_ev;              /* the tool result it came from, -1: none */
	int check;                  /* its last PASS (1) or FAIL (-1) line, 0: none */
	long check_ev;
};
void reeval_agent_at(const struct run *run, size_t ev, struct reeval_agent *a);
void reeval_agent_free(struct reeval_agent *a);

/* The run's problem: its metadata, else "problem" of the result.json
 * beside its transcript, else the "NN_name" ending the directory's name
 * (KernelBench-Hard's run ids). Owned; NULL when unknown. */
char *reeval_problem(const struct run *run);

/* A fresh directory for a re-evaluation of event ev, made under
 * $XDG_CACHE_HOME/kbtui/reeval (~/.cache without it, $TMPDIR without a
 * home), never beside the run. Owned; NULL with *err (owned) on failure. */
char *reeval_workdir(const struct run *run, size_t ev, char **err);

/* The agent's numbers beside ours, one text line per row:
 *   shape  agent: ms TFLOPS GB/s peak  |  ours: ms TFLOPS GB/s peak
 * then the overall peak_fraction and PASS/FAIL rows. ours may be NULL
 * (still running). */
void reeval_compare(const struct reeval_agent *a, const struct eval_result *ours, struct sbuf *out);

#endif
