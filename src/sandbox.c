/* sandbox.c: the bubblewrap wrapper for the live agent's commands (see sandbox.h). */
#include "config.h"
#include "sandbox.h"
#include "proc.h"
#include "util.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int sandbox_parse(const char *s, enum sandbox_kind *k)
{
	if (!strcmp(s, "none"))
		*k = SANDBOX_NONE;
	else if (!strcmp(s, "bwrap"))
		*k = SANDBOX_BWRAP;
	else
		return -1;
	return 0;
}

const char *sandbox_name(enum sandbox_kind k)
{
	return k == SANDBOX_BWRAP ? "bwrap" : "none";
}

char *sandbox_bwrap_path(void)
{
	const char *env = getenv("KBTUI_BWRAP"), *path = getenv("PATH");
	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t n = strcspn(path, ":");
		char *dir = xasprintf("%.*s", (int)n, path), *full = util_path_join(*dir ? dir : ".", "bwrap");
		free(dir);
		if (access(full, X_OK) == 0)
			return full;
		free(full);
		path += n;
		if (*path == ':')
			path++;
	}
	return NULL;
}

/* Appends to a growing argv. */
static void sandbox_push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

char **sandbox_argv(enum sandbox_kind k, const char *workdir, char *const *inner)
{
	char **v = xmalloc(sizeof *v), root[PATH_MAX], *bwrap;
	size_t n = 0;

	v[0] = NULL;
	if (k == SANDBOX_BWRAP) {
		if (!(bwrap = sandbox_bwrap_path())) {
			free(v);
			return NULL;
		}
		/* the real path: a bind of a path through a symlink would not be
		 * the directory the tools resolve against */
		const char *wd = realpath(workdir, root) ? root : workdir;
		const char *fixed[] = {
			"--ro-bind", "/", "/",
			"--dev-bind", "/dev", "/dev",
			"--proc", "/proc",
			"--tmpfs", "/tmp",
			"--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
			"--die-with-parent",
			/* $HOME is read-only inside: the compilers' caches go to the
			 * private /tmp instead of failing */
			"--setenv", "XDG_CACHE_HOME", "/tmp/.cache",
			"--setenv", "CUDA_CACHE_PATH", "/tmp/.nv/ComputeCache",
			"--setenv", "TRITON_CACHE_DIR", "/tmp/.triton",
			/* after the /tmp tmpfs, so a work directory under /tmp is the real one */
			"--bind", wd, wd,
			"--chdir", wd,
			"--",
		};
		sandbox_push(&v, &n, bwrap);
		free(bwrap);
		for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
			sandbox_push(&v, &n, fixed[i]);
	}
	for (size_t i = 0; inner[i]; i++)
		sandbox_push(&v, &n, inner[i]);
	return v;
}

void sandbox_argv_free(char **argv)
{
	if (!argv)
		return;
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

static void sandbox_probe_line(void *ud, int stream, const char *line, size_t len)
{
	struct sbuf *b = ud;
	(void)stream;
	if (b->len < 512) {
		sbuf_add(b, line, len < 512 ? len : 512);
		sbuf_addc(b, ' ');
	}
}

static int sandbox_probed = -1;
static char *sandbox_probe_why;

/* Runs `true` in the sandbox of a scratch directory. */
static int sandbox_probe(char **why)
{
	char tmpl[] = "/tmp/kbtui-bwrap-probe-XXXXXX", *bwrap = sandbox_bwrap_path();
	char *const inner[] = {"true", NULL};
	struct sbuf out;
	struct proc_result res;
	char desc[128], **argv;

	if (!bwrap) {
		*why = xstrdup(getenv("KBTUI_BWRAP") && *getenv("KBTUI_BWRAP")
		               ? "bwrap: KBTUI_BWRAP does not name a program"
		               : "bwrap: not found in PATH (install bubblewrap)");
		return 0;
	}
	free(bwrap);
	if (!mkdtemp(tmpl)) {
		*why = xasprintf("bwrap: cannot make a scratch directory: %s", strerror(errno));
		return 0;
	}
	argv = sandbox_argv(SANDBOX_BWRAP, tmpl, inner);
	sbuf_init(&out);
	struct proc_spec spec = {.argv = argv, .timeout_s = 20, .output_cap = 4096,
	                         .on_line = sandbox_probe_line, .ud = &out};
	proc_run(&spec, &res);
	sandbox_argv_free(argv);
	rmdir(tmpl);
	if (res.end == PROC_EXITED && res.code == 0) {
		sbuf_free(&out);
		return 1;
	}
	proc_describe(&res, desc, sizeof desc);
	while (out.len && out.s[out.len - 1] == ' ')
		out.s[--out.len] = 0;
	*why = xasprintf("bwrap cannot make its sandbox here (%s)%s%s", desc, out.len ? ": " : "",
	                 out.len ? out.s : "");
	sbuf_free(&out);
	return 0;
}

int sandbox_bwrap_works(char **why)
{
	if (sandbox_probed < 0) {
		sandbox_probe_why = NULL;
		sandbox_probed = sandbox_probe(&sandbox_probe_why);
	}
	if (why)
		*why = sandbox_probed ? NULL : xstrdup(sandbox_probe_why ? sandbox_probe_why : "bwrap does not work");
	return sandbox_probed;
}
