/* sandbox.c: the bubblewrap wrapper for untrusted commands (see sandbox.h). */
#include "config.h"
#include "sandbox.h"
#include "proc.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
	const char *env = getenv("KBTUI_BWRAP");
	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	return util_which("bwrap", NULL);
}

/* Appends to a growing argv. */
static void sandbox_push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 2) * sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

static void sandbox_push3(char ***v, size_t *n, const char *a, const char *b, const char *c)
{
	sandbox_push(v, n, a);
	sandbox_push(v, n, b);
	if (c)
		sandbox_push(v, n, c);
}

/* 1 while bwrap may make a user namespace, 0 once the probe found that
 * only root without one works here. */
static int sandbox_userns = 1;

int sandbox_env_allowed(const char *name)
{
	static const char *const exact[] = {"PATH", "LANG", "LANGUAGE", "TERM", "TZ", "LD_LIBRARY_PATH"};
	static const char *const prefix[] = {"LC_", "CUDA_", "NVCC_"};
	size_t n = strcspn(name, "=");
	for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
		if (strlen(exact[i]) == n && !strncmp(name, exact[i], n))
			return 1;
	for (size_t i = 0; i < sizeof prefix / sizeof *prefix; i++)
		if (n > strlen(prefix[i]) && !strncmp(name, prefix[i], strlen(prefix[i])))
			return 1;
	return 0;
}

static int sandbox_node_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **sandbox_gpu_nodes(const char *devdir)
{
	const char *dir = devdir ? devdir : "/dev";
	char **v = xmalloc(sizeof *v);
	size_t n = 0;
	DIR *d = opendir(dir);
	struct dirent *de;
	v[0] = NULL;
	while (d && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, "nvidia", 6) && strcmp(de->d_name, "dri"))
			continue;
		char *full = util_path_join(dir, de->d_name);
		sandbox_push(&v, &n, full);
		free(full);
	}
	if (d)
		closedir(d);
	qsort(v, n, sizeof *v, sandbox_node_cmp);
	return v;
}

extern char **environ;

/* The environment inside: the allowlist from ours, then ours on top. */
static void sandbox_env(char ***v, size_t *n, const struct sandbox_spec *s, const char *wd, int bwrap)
{
	struct sbuf b;
	sbuf_init(&b);
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || !sandbox_env_allowed(*e))
			continue;
		if (bwrap) {
			char *name = xstrndup(*e, (size_t)(eq - *e));
			sandbox_push3(v, n, "--setenv", name, eq + 1);
			free(name);
		} else {
			sandbox_push(v, n, *e);
		}
	}
	const char *fixed[] = {
		"HOME", wd,
		/* $HOME's caches would go to the work directory; /tmp is private */
		"TMPDIR", bwrap ? "/tmp" : NULL,
		"XDG_CACHE_HOME", bwrap ? "/tmp/.cache" : NULL,
		"CUDA_CACHE_PATH", bwrap ? "/tmp/.nv/ComputeCache" : NULL,
		"TRITON_CACHE_DIR", bwrap ? "/tmp/.triton" : NULL,
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i += 2) {
		if (!fixed[i + 1])
			continue;
		if (bwrap) {
			sandbox_push3(v, n, "--setenv", fixed[i], fixed[i + 1]);
		} else {
			sbuf_reset(&b);
			sbuf_addf(&b, "%s=%s", fixed[i], fixed[i + 1]);
			sandbox_push(v, n, b.s);
		}
	}
	for (size_t i = 0; s->env && s->env[i]; i++) {
		const char *eq = strchr(s->env[i], '=');
		if (!eq)
			continue;
		if (bwrap) {
			char *name = xstrndup(s->env[i], (size_t)(eq - s->env[i]));
			sandbox_push3(v, n, "--setenv", name, eq + 1);
			free(name);
		} else {
			sandbox_push(v, n, s->env[i]);
		}
	}
	sbuf_free(&b);
}

/* Whether path is dir or below it. */
static int sandbox_under(const char *path, const char *dir)
{
	size_t k = strlen(dir);
	return !strncmp(path, dir, k) && (path[k] == 0 || path[k] == '/' || !strcmp(dir, "/"));
}

/* Directories a command must not read: other users' and our home (tokens,
 * keys, shell history), daemons' sockets (a read-only bind still lets a
 * socket be connected to). Real paths, each once, none that is the work
 * directory or inside it (the mask and its remount would cover it); owned
 * list. */
static char **sandbox_hidden_dirs(const char *wd)
{
	const char *cand[] = {"/root", "/home", getenv("HOME"), "/run", "/var/run", "/etc/ssh"};
	char **v = xmalloc(sizeof *v), real[PATH_MAX];
	size_t n = 0;
	v[0] = NULL;
	for (size_t i = 0; i < sizeof cand / sizeof *cand; i++) {
		if (!cand[i] || cand[i][0] != '/' || !realpath(cand[i], real) || !util_is_dir(real) ||
		    !strcmp(real, "/"))
			continue;
		int dup = wd && sandbox_under(real, wd);
		for (size_t j = 0; j < n && !dup; j++)
			dup = sandbox_under(real, v[j]);
		if (!dup)
			sandbox_push(&v, &n, real);
	}
	return v;
}

/* The bwrap options, in mount order: what is hidden first, then what is
 * shown again over it, the work directory last. */
static void sandbox_bwrap_opts(char ***v, size_t *n, const struct sandbox_spec *s, const char *wd)
{
	static const char *const secret_files[] = {"/etc/shadow", "/etc/gshadow", "/etc/shadow-", "/etc/gshadow-"};
	char real[PATH_MAX];
	struct stat sb;
	char **hidden = sandbox_hidden_dirs(wd);

	sandbox_push3(v, n, "--ro-bind", "/", "/");
	sandbox_push3(v, n, "--dev", "/dev", NULL);
	sandbox_push3(v, n, "--proc", "/proc", NULL);
	sandbox_push3(v, n, "--tmpfs", "/tmp", NULL);
	for (size_t i = 0; hidden[i]; i++)
		sandbox_push3(v, n, "--tmpfs", hidden[i], NULL);
	for (size_t i = 0; i < sizeof secret_files / sizeof *secret_files; i++)
		if (lstat(secret_files[i], &sb) == 0 && S_ISREG(sb.st_mode))
			sandbox_push3(v, n, "--ro-bind", "/dev/null", secret_files[i]);
	if (s->gpu) {
		char **nodes = sandbox_gpu_nodes(s->devdir);
		for (size_t i = 0; nodes[i]; i++) {
			char *dst = xasprintf("/dev/%s", strrchr(nodes[i], '/') + 1);
			sandbox_push3(v, n, "--dev-bind", nodes[i], dst);
			free(dst);
		}
		sandbox_argv_free(nodes);
	}
	for (size_t i = 0; s->ro && s->ro[i]; i++)
		if (realpath(s->ro[i], real))
			sandbox_push3(v, n, "--ro-bind", real, real);
	for (size_t i = 0; s->rw && s->rw[i]; i++)
		if (realpath(s->rw[i], real) && util_is_dir(real))
			sandbox_push3(v, n, "--bind", real, real);
	if (wd)
		sandbox_push3(v, n, "--bind", wd, wd);
	for (size_t i = 0; s->keep && s->keep[i]; i++)
		if (realpath(s->keep[i], real))
			sandbox_push3(v, n, "--ro-bind", real, real);
	/* the masks stay read-only: what is shown again keeps its own mount */
	for (size_t i = 0; hidden[i]; i++) {
		int shown = 0;
		for (size_t j = 0; s->rw && s->rw[j] && !shown; j++)
			shown = realpath(s->rw[j], real) && !strcmp(real, hidden[i]);
		if (!shown)
			sandbox_push3(v, n, "--remount-ro", hidden[i], NULL);
	}
	sandbox_argv_free(hidden);
	sandbox_push3(v, n, "--chdir", s->cwd && realpath(s->cwd, real) ? real : wd ? wd : "/tmp", NULL);
	if (sandbox_userns)
		sandbox_push(v, n, "--unshare-user");
	const char *fixed[] = {
		"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try",
		/* root or not, nothing privileged inside: no mount, no raw device */
		"--cap-drop", "ALL",
		/* no controlling terminal: TIOCSTI cannot type into the user's */
		"--new-session",
		"--die-with-parent",
		"--clearenv",
	};
	for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
		sandbox_push(v, n, fixed[i]);
}

char **sandbox_wrap(const struct sandbox_spec *s, char *const *inner)
{
	char **v = xmalloc(sizeof *v), root[PATH_MAX], *bwrap = NULL;
	size_t n = 0;
	/* the real path: a bind of a path through a symlink would not be
	 * the directory the tools resolve against */
	const char *wd = !s->workdir ? NULL : realpath(s->workdir, root) ? root : s->workdir;

	v[0] = NULL;
	if (s->kind == SANDBOX_BWRAP) {
		if (!(bwrap = sandbox_bwrap_path())) {
			free(v);
			return NULL;
		}
		sandbox_push(&v, &n, bwrap);
		free(bwrap);
		sandbox_bwrap_opts(&v, &n, s, wd);
		sandbox_env(&v, &n, s, wd ? wd : "/tmp", 1);
		sandbox_push(&v, &n, "--");
	} else {
		sandbox_push3(&v, &n, "env", "-i", NULL);
		sandbox_env(&v, &n, s, wd ? wd : "/tmp", 0);
	}
	for (size_t i = 0; inner[i]; i++)
		sandbox_push(&v, &n, inner[i]);
	return v;
}

char **sandbox_argv(enum sandbox_kind k, const char *workdir, char *const *inner)
{
	struct sandbox_spec s = {.kind = k, .workdir = workdir, .gpu = 1};
	return sandbox_wrap(&s, inner);
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

/* Runs `true` in the sandbox of dir: 1, or 0 with what bwrap said. */
static int sandbox_try(const char *dir, char **why)
{
	char *const inner[] = {"true", NULL};
	char desc[128], **argv = sandbox_argv(SANDBOX_BWRAP, dir, inner);
	struct sbuf out;
	struct proc_result res;

	sbuf_init(&out);
	struct proc_spec spec = {.argv = argv, .timeout_s = 20, .output_cap = 4096,
	                         .on_line = sandbox_probe_line, .ud = &out};
	proc_run(&spec, &res);
	sandbox_argv_free(argv);
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

/* With a user namespace; as root, without one when they are refused here
 * (a container's seccomp filter): --cap-drop ALL still leaves nothing. */
static int sandbox_probe(char **why)
{
	char tmpl[] = "/tmp/kbtui-bwrap-probe-XXXXXX", *bwrap = sandbox_bwrap_path(), *why2 = NULL;
	int ok;

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
	sandbox_userns = 1;
	ok = sandbox_try(tmpl, why);
	if (!ok && geteuid() == 0) {
		sandbox_userns = 0;
		if ((ok = sandbox_try(tmpl, &why2))) {
			free(*why);
			*why = NULL;
		} else {
			sandbox_userns = 1;
			free(why2);
		}
	}
	rmdir(tmpl);
	return ok;
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
