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

/* Programs that only read (a find with -delete or -exec is refused below). */
static const char *const noise_read_cmds[] = {
	"cat", "head", "tail", "ls", "find", "grep", "egrep", "fgrep", "rg", "wc", "pwd", "cd", "echo", "nl",
	"sed", "file", "stat", "tree", "du", "df", "which", "diff", "nvidia-smi", "true", "sort", "uniq",
	"cut", "less", "more", "realpath", "basename", "dirname", "printf", "date", "whoami", "env",
	"uname", "type", "md5sum", "sha256sum", "xxd", "od", "hexdump", "column", "git", NULL,
};

static int noise_in(const char *const *list, const char *s, size_t n)
{
	for (int i = 0; list[i]; i++)
		if (strlen(list[i]) == n && !strncmp(list[i], s, n))
			return 1;
	return 0;
}

static int noise_has(const char *s, size_t n, const char *needle, size_t k)
{
	for (size_t i = 0; i + k <= n; i++)
		if (!memcmp(s + i, needle, k))
			return 1;
	return 0;
}

/* One simple command [s, e): its program (after VAR=value words) reads. */
static int noise_simple_reads(const char *s, const char *e)
{
	for (;;) {
		while (s < e && isspace((unsigned char)*s))
			s++;
		if (s == e)
			return 1;  /* empty: "a && b;" */
		const char *w = s;
		while (s < e && !isspace((unsigned char)*s))
			s++;
		size_t n = (size_t)(s - w);
		if (memchr(w, '=', n) && w[0] != '=')
			continue;  /* an assignment before the program */
		const char *base = w;
		for (const char *p = w; p < s; p++)
			if (*p == '/')
				base = p + 1;
		n = (size_t)(s - base);
		if (!noise_in(noise_read_cmds, base, n))
			return 0;
		const char *rest = s;
		size_t rn = (size_t)(e - rest);
		if (n == 3 && !strncmp(base, "sed", 3))  /* sed reads with -n and without -i */
			return noise_has(rest, rn, " -n", 3) && !noise_has(rest, rn, " -i", 3);
		if (n == 3 && !strncmp(base, "git", 3)) {  /* git that only looks */
			static const char *const looks[] = { "status", "log", "diff", "show", "ls-files", "rev-parse", "blame", NULL };
			while (rest < e && isspace((unsigned char)*rest))
				rest++;
			const char *sub = rest;
			while (rest < e && !isspace((unsigned char)*rest))
				rest++;
			return noise_in(looks, sub, (size_t)(rest - sub));
		}
		if (n == 4 && !strncmp(base, "find", 4))
			return !noise_has(rest, rn, "-delete", 7) && !noise_has(rest, rn, "-exec", 5) &&
			       !noise_has(rest, rn, "-fprint", 7);
		return 1;
	}
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
	return strstr(c, "<<") || strstr(c, "$(") || strchr(c, '`') || strstr(c, "tee ");
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
	char *c = noise_unquote(u);
	free(u);
	int reads = c && !noise_writes(c);
	for (char *p = c; reads && (p = strstr(p, ">&"));) {  /* 2>&1 joins no commands */
		p[0] = p[1] = ' ';
		for (p += 2; *p >= '0' && *p <= '9'; p++)
			*p = ' ';
	}
	const char *s = c;
	while (reads && *s) {
		const char *e = s + strcspn(s, "|&;\n");
		reads = noise_simple_reads(s, e);
		s = e;
		while (*s == '|' || *s == '&' || *s == ';' || *s == '\n')
			s++;
	}
	free(c);
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
