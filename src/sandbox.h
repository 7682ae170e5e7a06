/* sandbox.h: where untrusted code runs -- the live agent's shell commands
 * and every step of an eval of transcript code (see evalbox.h).
 *
 * With bubblewrap the command gets:
 *   - the file system read-only, with the homes (/root, /home, $HOME), /run
 *     (daemons' sockets), /etc/shadow, /etc/gshadow and /etc/ssh hidden;
 *   - its work directory (and the spec's rw paths) as the only writable
 *     paths, a private /tmp, the current directory the work directory;
 *   - a fresh minimal /dev (null, zero, random, tty ..., a private /dev/shm)
 *     plus, with gpu, only the GPU device nodes (/dev/nvidia*, /dev/dri);
 *   - a fresh /proc; its own user, pid, ipc, uts, cgroup and network
 *     namespaces (no network at all); no capabilities (--cap-drop ALL), even
 *     when kbtui runs as root; a new session (no controlling terminal to
 *     push keys into);
 *   - an environment built from an allowlist (PATH, LANG, LANGUAGE, LC_*,
 *     TERM, TZ, CUDA_*, NVCC_*, LD_LIBRARY_PATH), HOME set to the work
 *     directory, TMPDIR=/tmp, the caches in /tmp, then the spec's env;
 *     nothing else (no API key, no token).
 * Without it (none) the command runs as any child of ours, with the same
 * environment allowlist. The wrapper changes only the argv: the caller's
 * time limit, output cap and process group kill apply to the wrapped
 * command as before (killing bwrap ends its pid namespace). */
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
 * answer. 1, or 0 with *why (owned) saying what failed. Where user
 * namespaces are refused but we are root, the sandbox is made without one
 * (capabilities are still all dropped). */
int sandbox_bwrap_works(char **why);

/* One sandboxed command. Strings are borrowed. */
struct sandbox_spec {
	enum sandbox_kind kind;
	const char *workdir;        /* writable; NULL: only the private /tmp */
	const char *cwd;            /* the current directory; NULL: workdir (or /tmp) */
	const char *const *rw;      /* more writable directories, NULL-ended; may be NULL */
	const char *const *ro;      /* paths under the hidden ones to show read-only
	                             * (a problems folder under $HOME); may be NULL */
	const char *const *keep;    /* paths inside the writable ones that stay read-only
	                             * (a run's transcript beside an eval); may be NULL */
	int gpu;                    /* bind the GPU device nodes in */
	char *const *env;           /* "NAME=value" set inside, last; may be NULL */
	const char *devdir;         /* where the GPU nodes are looked for; NULL: /dev (tests) */
};

/* The argv that runs inner (NULL-ended) as spec says. NULL-ended, owned:
 * sandbox_argv_free. NULL when bwrap is asked for and not found: never a
 * silent fallback. */
char **sandbox_wrap(const struct sandbox_spec *spec, char *const *inner);
/* The live agent's form: workdir, the GPU nodes, nothing else. */
char **sandbox_argv(enum sandbox_kind k, const char *workdir, char *const *inner);
void sandbox_argv_free(char **argv);

/* Whether an environment variable (its name, up to '=' or the end) passes
 * the allowlist. */
int sandbox_env_allowed(const char *name);
/* The GPU device nodes in devdir (NULL: /dev) as full paths: nvidia*
 * (nvidia0, nvidiactl, nvidia-uvm, nvidia-caps ...) and dri. NULL-ended,
 * owned (sandbox_argv_free); empty on a machine without them. */
char **sandbox_gpu_nodes(const char *devdir);

#endif
