/* compilerlog.c: diagnostics out of tool output, by PCRE2 rules from a file. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compilerlog.h"
#include "util.h"
#include "textsafe.h"

/* Only the start of a very long line is looked at (a minified blob is not
 * a diagnostic, and the cost stays linear). */
#define COMPILERLOG_MAX_LINE 4096

struct compilerlog_rule {
	char *tool;
	enum compilerlog_level level;
	pcre2_code *re;
};

struct compilerlog {
	struct compilerlog_rule *rules;
	size_t n, cap;
	pcre2_match_data *md;
};

static const char *const compilerlog_level_names[CL__LEVELS] = { "note", "warning", "error", "ignore" };

const char *compilerlog_level_name(enum compilerlog_level level)
{
	return level < CL__LEVELS ? compilerlog_level_names[level] : "?";
}

struct compilerlog *compilerlog_new(void)
{
	struct compilerlog *cl = xcalloc(1, sizeof *cl);
	cl->md = pcre2_match_data_create(4, NULL);
	if (!cl->md)
		abort();
	return cl;
}

void compilerlog_free(struct compilerlog *cl)
{
	if (!cl)
		return;
	for (size_t i = 0; i < cl->n; i++) {
		free(cl->rules[i].tool);
		pcre2_code_free(cl->rules[i].re);
	}
	free(cl->rules);
	pcre2_match_data_free(cl->md);
	free(cl);
}

size_t compilerlog_nrules(const struct compilerlog *cl)
{
	return cl->n;
}

/* The next whitespace-separated field of *p, advanced past it. */
static size_t compilerlog_field(const char **p, const char **start)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	*start = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	*p = s;
	return (size_t)(s - *start);
}

static int compilerlog_parse_level(const char *s, size_t n)
{
	for (int l = 0; l < CL__LEVELS; l++)
		if (strlen(compilerlog_level_names[l]) == n && !memcmp(s, compilerlog_level_names[l], n))
			return l;
	return -1;
}

int compilerlog_add(struct compilerlog *cl, const char *spec, char **err)
{
	const char *p = spec, *tool, *lev;
	size_t tn, ln;
	*err = NULL;
	while (*p == ' ' || *p == '\t')
		p++;
	if (!*p || *p == '#' || *p == '\n' || *p == '\r')
		return 0;
	tn = compilerlog_field(&p, &tool);
	ln = compilerlog_field(&p, &lev);
	int level = compilerlog_parse_level(lev, ln);
	if (!ln) {
		*err = xstrdup("expected TOOL LEVEL REGEX, found only a tool name");
		return -1;
	}
	if (level < 0) {
		*err = xasprintf("unknown level '%.*s' (error, warning, note or ignore)", (int)textsafe_cut(lev, ln, 40), lev);
		return -1;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	size_t rn = strcspn(p, "\r\n");
	if (!rn) {
		*err = xstrdup("no regular expression after the level");
		return -1;
	}
	int code;
	PCRE2_SIZE off;
	uint32_t opts = PCRE2_UTF;
#ifdef PCRE2_MATCH_INVALID_UTF
	opts |= PCRE2_MATCH_INVALID_UTF;
#else
	opts = 0;
#endif
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)p, rn, opts, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		*err = xasprintf("bad regular expression at offset %zu: %s", (size_t)off, (const char *)msg);
		return -1;
	}
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  /* the interpreter runs where JIT cannot */
	if (cl->n == cl->cap) {
		cl->cap = cl->cap ? cl->cap * 2 : 32;
		cl->rules = xrealloc(cl->rules, cl->cap * sizeof *cl->rules);
	}
	cl->rules[cl->n].tool = xstrndup(tool, tn);
	cl->rules[cl->n].level = (enum compilerlog_level)level;
	cl->rules[cl->n].re = re;
	cl->n++;
	return 0;
}

int compilerlog_load(struct compilerlog *cl, const char *path, char **err)
{
	size_t len;
	char *text = util_read_file(path, &len);
	*err = NULL;
	if (!text) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return -1;
	}
	int lineno = 0, nread = 0;
	char *p = text;
	while (*p) {
		size_t n = strcspn(p, "\n");
		char *line = xstrndup(p, n);
		char *why;
		size_t before = cl->n;
		lineno++;
		if (compilerlog_add(cl, line, &why) < 0) {
			*err = xasprintf("%s:%d: %s", path, lineno, why);
			free(why);
			free(line);
			free(text);
			return -1;
		}
		nread += cl->n > before;
		free(line);
		p += n;
		if (*p)
			p++;
	}
	free(text);
	return nread;
}

char *compilerlog_default_path(void)
{
	return util_data_find("data/compiler_patterns.txt");
}

int compilerlog_match(struct compilerlog *cl, const char *line, size_t len, enum compilerlog_level *level,
                      const char **tool)
{
	if (len > COMPILERLOG_MAX_LINE)
		len = COMPILERLOG_MAX_LINE;
	for (size_t i = 0; i < cl->n; i++) {
		int rc = pcre2_match(cl->rules[i].re, (PCRE2_SPTR)line, len, 0, 0, cl->md, NULL);
		if (rc < 0)
			continue;
		if (level)
			*level = cl->rules[i].level;
		if (tool)
			*tool = cl->rules[i].tool;
		return (int)i;
	}
	return -1;
}

static void compilerlog_push(struct compilerlog_report *rep, const struct compilerlog_hit *h)
{
	if (rep->n == rep->cap) {
		rep->cap = rep->cap ? rep->cap * 2 : 64;
		rep->hits = xrealloc(rep->hits, rep->cap * sizeof *rep->hits);
	}
	rep->hits[rep->n++] = *h;
	rep->count[h->level]++;
}

void compilerlog_scan_text(struct compilerlog *cl, const char *text, size_t ev, struct compilerlog_report *rep)
{
	int lineno = 0;
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		size_t m = n;
		lineno++;
		if (m && p[m - 1] == '\r')
			m--;
		enum compilerlog_level level;
		const char *tool;
		int r = m ? compilerlog_match(cl, p, m, &level, &tool) : -1;
		if (r >= 0 && level != CL_IGNORE) {
			struct compilerlog_hit h = {
				.ev = ev, .line = lineno, .rule = r, .level = level, .tool = tool,
				.text = xstrndup(p, m > COMPILERLOG_MAX_LINE ? COMPILERLOG_MAX_LINE : m),
			};
			compilerlog_push(rep, &h);
		}
		p += n;
		if (*p)
			p++;
	}
}

void compilerlog_scan_run(struct compilerlog *cl, const struct run *r, struct compilerlog_report *rep)
{
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if (e->kind == EV_TOOL_RESULT || e->kind == EV_ERROR)
			compilerlog_scan_text(cl, e->text, i, rep);
	}
}

void compilerlog_report_free(struct compilerlog_report *rep)
{
	for (size_t i = 0; i < rep->n; i++)
		free(rep->hits[i].text);
	free(rep->hits);
	memset(rep, 0, sizeof *rep);
}
