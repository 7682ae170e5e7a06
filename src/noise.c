/* noise.c: which events are noise (usage, system, read-only tool calls). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "run.h"
#include "runstats.h"
#include "util.h"

/* Tools that read and never write, as the harnesses name them. */
static const char *const noise_read_tools[] = {
	"Read", "read", "read_file", "Glob", "glob", "Grep", "grep", "LS", "ls", "list", "list_dir",
	"list_directory", "view", "file_search", "codebase_search", "search", "find", "search_files", NULL,
};

/* Programs that only read, with the options below refused (noise_args_read).
 * Not here on purpose: env and xargs (they run a program), xxd (its second
 * argument is an output file). */
static const char *const noise_read_cmds[] = {
	"cat", "head", "tail", "ls", "find", "grep", "egrep", "fgrep", "rg", "wc", "pwd", "cd", "echo", "nl",
	"sed", "file", "stat", "tree", "du", "df", "which", "diff", "nvidia-smi", "true", "sort", "uniq",
	"cut", "less", "more", "realpath", "basename", "dirname", "printf", "date", "whoami",
	"uname", "type", "md5sum", "sha256sum", "od", "hexdump", "column", "git", NULL,
};

static int noise_in(const char *const *list, const char *s, size_t n)
{
	for (int i = 0; list[i]; i++)
		if (strlen(list[i]) == n && !strncmp(list[i], s, n))
			return 1;
	return 0;
}

/* Variables that may precede a read-only program: others (LD_PRELOAD,
 * GIT_EXTERNAL_DIFF, CUDA_INJECTION64_PATH ...) make it run code. */
static const char *const noise_safe_vars[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LANG", "LC_ALL", "TERM", "COLUMNS", "NO_COLOR", NULL,
};

#define NOISE_MAXW 64

/* The words of [s, e) in the command as written (quotes taken off), at
 * most NOISE_MAXW; *n gets their count. Owned by the caller (free each). */
static char **noise_words(const char *s, const char *e, size_t *n)
{
	char **w = xcalloc(NOISE_MAXW, sizeof *w);
	*n = 0;
	while (s < e && *n < NOISE_MAXW) {
		while (s < e && isspace((unsigned char)*s))
			s++;
		if (s == e)
			break;
		struct sbuf b;
		sbuf_init(&b);
		char q = 0;
		for (; s < e && (q || !isspace((unsigned char)*s)); s++) {
			if (q && *s == q)
				q = 0;
			else if (!q && (*s == '\'' || *s == '"'))
				q = *s;
			else
				sbuf_addc(&b, *s);
		}
		w[(*n)++] = sbuf_detach(&b);
	}
	return w;
}

static int noise_is(const char *w, const char *opt)
{
	return !strncmp(w, opt, strlen(opt));
}

/* A short option cluster (-ni) holding the letter c. */
static int noise_short(const char *w, char c)
{
	return w[0] == '-' && w[1] != '-' && strchr(w + 1, c);
}

/* sed without -i/-f, and a script with no w, W or e command (they write a
 * file or run one); a script that merely holds the letter is refused too. */
static int noise_sed_reads(char **w, size_t n)
{
	int script = 0;
	for (size_t i = 1; i < n; i++) {
		if (noise_is(w[i], "--in-place") || noise_is(w[i], "--file") || noise_short(w[i], 'i') ||
		    noise_short(w[i], 'f'))
			return 0;
		int is_e = !strcmp(w[i], "-e") || noise_is(w[i], "--expression");
		if (w[i][0] == '-' && !is_e)
			continue;
		if (is_e && i + 1 < n)
			i++;
		else if (script && !is_e)
			continue;  /* a file name */
		script = 1;
		if (strpbrk(w[i], "wWe"))
			return 0;
	}
	return 1;
}

/* nvidia-smi that only queries: -pm, -lgc, -pl ... change the GPU. */
static int noise_smi_reads(char **w, size_t n)
{
	static const char *const ok[] = { "-q", "--query", "-L", "--list-gpus", "-x", "--xml-format", "topo",
		"-m", "--matrix", "-l", "--loop", NULL };
	static const char *const pre[] = { "--query-gpu=", "--query-compute-apps=", "--format=", "--id=",
		"--display=", "--loop=", NULL };
	for (size_t i = 1; i < n; i++) {
		int good = noise_in(ok, w[i], strlen(w[i]));
		for (int k = 0; !good && pre[k]; k++)
			good = noise_is(w[i], pre[k]);
		if (!good && (!strcmp(w[i], "-i") || !strcmp(w[i], "-d") || !strcmp(w[i], "--id") ||
			      !strcmp(w[i], "--display")) && i + 1 < n) {
			good = 1;
			i++;
		}
		if (!good)
			return 0;
	}
	return 1;
}

/* The options that make a read-only program write or run something. */
static int noise_args_read(const char *prog, char **w, size_t n)
{
	if (!strcmp(prog, "sed"))
		return noise_sed_reads(w, n);
	if (!strcmp(prog, "nvidia-smi"))
		return noise_smi_reads(w, n);
	size_t plain = 0;
	for (size_t i = 1; i < n; i++) {
		const char *a = w[i];
		plain += a[0] != '-';
		if ((!strcmp(prog, "sort") && (noise_short(a, 'o') || noise_is(a, "--output") ||
					      noise_is(a, "--compress-program"))) ||
		    (!strcmp(prog, "tree") && !strcmp(a, "-o")) ||
		    (!strcmp(prog, "date") && (noise_short(a, 's') || noise_is(a, "--set"))) ||
		    (!strcmp(prog, "rg") && noise_is(a, "--pre")) ||
		    (!strcmp(prog, "find") && (noise_is(a, "-delete") || noise_is(a, "-exec") || noise_is(a, "-ok") ||
					      noise_is(a, "-fprint") || noise_is(a, "-fls"))) ||
		    (!strcmp(prog, "git") && (noise_is(a, "--output") || noise_is(a, "--ext-diff"))))
			return 0;
	}
	if (!strcmp(prog, "uniq") && plain > 1)
		return 0;  /* uniq IN OUT writes OUT */
	if (!strcmp(prog, "git")) {  /* git that only looks (git -c ... is refused: -c is no subcommand) */
		static const char *const looks[] = { "status", "log", "diff", "show", "ls-files", "rev-parse", "blame", NULL };
		return n > 1 && noise_in(looks, w[1], strlen(w[1]));
	}
	return 1;
}

/* One simple command [s, e) of the masked command (quotes' contents made
 * x), the same bytes as written at orig: its program (after safe VAR=value
 * words) reads, with no option that writes. */
static int noise_simple_reads(const char *s, const char *e, const char *orig)
{
	size_t n;
	char **w = noise_words(orig, orig + (e - s), &n);
	size_t i = 0;
	int reads = 1;
	for (; i < n && strchr(w[i], '=') && w[i][0] != '='; i++) {
		size_t k = (size_t)(strchr(w[i], '=') - w[i]);
		if (!noise_in(noise_safe_vars, w[i], k))
			reads = 0;  /* LD_PRELOAD=x.so cat f runs x.so */
	}
	if (reads && i < n) {
		const char *base = strrchr(w[i], '/') ? strrchr(w[i], '/') + 1 : w[i];
		reads = n < NOISE_MAXW && noise_in(noise_read_cmds, base, strlen(base)) &&
			noise_args_read(base, w + i, n - i);
	}
	for (size_t k = 0; k < n; k++)
		free(w[k]);
	free(w);
	return reads;
}

/* A redirection that writes a file: > or >> to anything but /dev/null or
 * another descriptor. */
static int noise_writes(const char *c)
{
	for (const char *p = strchr(c, '>'); p; p = strchr(p + 1, '>')) {
		const char *q = p + 1;
		if (*q == '>')
			q++;
		if (*q == '&')
			continue;  /* 2>&1 */
		while (*q == ' ')
			q++;
		if (strncmp(q, "/dev/null", 9))
			return 1;
	}
	return strstr(c, "<<") || strstr(c, "$(") || strstr(c, "<(") || strchr(c, '`') || strstr(c, "tee ");
}

/* "bash -lc 'cmd'" -> cmd (owned), else a copy. */
static char *noise_unwrap(const char *cmd)
{
	static const char *const shells[] = { "bash -lc ", "bash -c ", "sh -c ", "sh -lc ", "zsh -lc ", "zsh -c ", NULL };
	while (isspace((unsigned char)*cmd))
		cmd++;
	for (int i = 0; shells[i]; i++) {
		size_t n = strlen(shells[i]);
		if (!strncmp(cmd, shells[i], n)) {
			const char *s = cmd + n;
			size_t len = strlen(s);
			while (len && isspace((unsigned char)s[len - 1]))
				len--;
			if (len >= 2 && (s[0] == '\'' || s[0] == '"') && s[len - 1] == s[0])
				return xstrndup(s + 1, len - 2);
			return xstrndup(s, len);
		}
	}
	return xstrdup(cmd);
}

/* cmd with what its quotes hold made 'x' (a '|' or '>' in a grep pattern
 * is no pipe or redirection); NULL when a double quote runs a command
 * ($(...) or `...`). Owned. */
static char *noise_unquote(const char *cmd)
{
	char *c = xstrdup(cmd);
	char q = 0;
	for (char *p = c; *p; p++) {
		if (q && *p == q) {
			q = 0;
		} else if (q) {
			if (q == '"' && (*p == '`' || (*p == '$' && p[1] == '('))) {
				free(c);
				return NULL;
			}
			if (q == '"' && *p == '\\' && p[1])
				*p++ = 'x';
			*p = 'x';
		} else if (*p == '\\' && p[1]) {
			*p++ = 'x';
			*p = 'x';
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		}
	}
	return c;
}

int noise_command_reads(const char *cmd)
{
	if (!cmd)
		return 0;
	char *u = noise_unwrap(cmd);
	char *c = noise_unquote(u);  /* the same length as u */
	int reads = c && !noise_writes(c);
	for (char *p = c; reads && (p = strstr(p, ">&"));) {  /* 2>&1 joins no commands */
		p[0] = p[1] = ' ';
		for (p += 2; *p >= '0' && *p <= '9'; p++)
			*p = ' ';
	}
	const char *s = c;
	while (reads && *s) {
		const char *e = s + strcspn(s, "|&;\n");
		reads = noise_simple_reads(s, e, u + (s - c));
		s = e;
		while (*s == '|' || *s == '&' || *s == ';' || *s == '\n')
			s++;
	}
	free(c);
	free(u);
	return reads;
}

/* Whether a tool call only reads. */
static int noise_call_reads(struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	if (run_event_diff(r, i))
		return 0;
	if (e->name && noise_in(noise_read_tools, e->name, strlen(e->name)))
		return 1;
	char *cmd = runstats_command(e);
	int reads = noise_command_reads(cmd);
	free(cmd);
	return reads;
}

int noise_event(struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	switch (e->kind) {
	case EV_USAGE:
	case EV_SYSTEM:
		return 1;
	case EV_TOOL_CALL:
		return noise_call_reads(r, i);
	case EV_TOOL_RESULT:
		return e->link >= 0 && (size_t)e->link < r->nev && r->ev[e->link].kind == EV_TOOL_CALL &&
		       noise_call_reads(r, (size_t)e->link);
	default:
		return 0;
	}
}

size_t noise_mark(struct run *r, size_t from, unsigned char *hide)
{
	size_t n = 0;
	for (size_t i = from; i < r->nev; i++)
		n += (hide[i] = (unsigned char)noise_event(r, i));
	return n;
}

size_t *noise_shown(struct run *r, size_t *nshown, size_t *nhidden)
{
	unsigned char *hide = xcalloc(r->nev + 1, 1);
	size_t nh = noise_mark(r, 0, hide), k = 0;
	size_t *shown = xmalloc((r->nev - nh + 1) * sizeof *shown);
	for (size_t i = 0; i < r->nev; i++)
		if (!hide[i])
			shown[k++] = i;
	free(hide);
	*nshown = k;
	*nhidden = nh;
	return shown;
}
