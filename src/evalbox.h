/* evalbox.h: an eval of untrusted code -- a transcript's solution (`R` in
 * the replay, kbtui eval --tui), the live agent's -- with every process the
 * loop starts (nvcc, the device query, the harness, python) inside the
 * sandbox of sandbox.h: the GPU device nodes only, no network, no
 * capabilities, the environment allowlist, and the step's work directory the
 * only writable path. The problems folder, the solution, a KernelBench-Hard
 * checkout and the CUDA toolkit are shown read-only even under a hidden
 * home. The loop's own files in its work directory (the logs, result.json,
 * the solution's copy) are made plain files before each step and are
 * read-only inside it, so hostile code cannot turn one into a link that the
 * loop, outside the sandbox, would then write through. */
#ifndef KB_EVALBOX_H
#define KB_EVALBOX_H

#include "eval.h"
#include "proc.h"
#include "sandbox.h"

/* Which sandbox an eval gets: asked ("none" or "bwrap"), else
 * $KBTUI_SANDBOX, else bwrap. bwrap must work here: 0, or -1 with *why
 * (owned) saying what failed and how to override it (none is only ever
 * an explicit choice). */
int evalbox_choose(const char *asked, enum sandbox_kind *k, char **why);

struct evalbox {
	enum sandbox_kind kind;
	const char *const *keep;    /* inside the eval's work directory, kept read-only; may be NULL */
};

/* eval_run(o) with its children in the sandbox b (b NULL or kind none:
 * eval_run as it is). Same return and result as eval_run. */
int evalbox_run(const struct eval_opts *o, const struct evalbox *b, struct eval_result *r);

/* The argv a step of the eval would run in the sandbox, for a caller that
 * starts the process itself: spec->cwd is the writable directory.
 * Owned (sandbox_argv_free); NULL without bwrap. */
char **evalbox_argv(const struct eval_opts *o, const struct evalbox *b, const struct proc_spec *spec);

#endif
