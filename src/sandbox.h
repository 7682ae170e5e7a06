/* sandbox.h: where the live agent's shell commands run. With bubblewrap the
 * command sees the whole file system read-only except its work directory, a
 * private /tmp, /dev (GPU device nodes stay reachable) and a fresh /proc, and
 * no network; without it (none) it runs as any child of ours. The wrapper
 * changes only the argv: the caller's time limit, output cap and process
 * group kill apply to the wrapped command as before. */
#ifndef KB_SANDBOX_H
#define KB_SANDBOX_H

enum sandbox_kind { SANDBOX_NONE, SANDBOX_BWRAP };

/* "none" or "bwrap"; 0 or -1. */
int sandbox_parse(const char *s, enum sandbox_kind *k);
const char *sandbox_name(enum sandbox_kind k);

/* The bwrap program: $KBTUI_BWRAP when set, else the first bwrap in PATH;
 * NULL when there is none. Owned. */
char *sandbox_bwrap_path(void);

/* Whether bwrap is there and can make its namespaces here: it runs `true`
 * in the same sandbox a command gets, once; later calls return the first
 * answer. 1, or 0 with *why (owned) saying what failed. */
int sandbox_bwrap_works(char **why);

/* The argv that runs inner (NULL-ended) inside the sandbox kind k with
 * workdir as its only writable path and current directory. For
 * SANDBOX_NONE, a copy of inner. NULL-ended, owned: sandbox_argv_free.
 * NULL when bwrap is asked for and not found: never a silent fallback. */
char **sandbox_argv(enum sandbox_kind k, const char *workdir, char *const *inner);
void sandbox_argv_free(char **argv);

#endif
