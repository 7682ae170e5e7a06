/* suggest.c: the closest of a few known words to a mistyped one. */
#include "suggest.h"
#include "problem.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

int suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	/* rows i-2, i-1 and i of the optimal-string-alignment table */
	int *pp = xcalloc(lb + 1, sizeof *pp), *p = xcalloc(lb + 1, sizeof *p), *c = xcalloc(lb + 1, sizeof *c);
	for (size_t j = 0; j <= lb; j++)
		p[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = (int)i;
		for (size_t j = 1; j <= lb; j++) {
			int v = p[j - 1] + (a[i - 1] != b[j - 1]);
			if (p[j] + 1 < v)
				v = p[j] + 1;
			if (c[j - 1] + 1 < v)
				v = c[j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && pp[j - 2] + 1 < v)
				v = pp[j - 2] + 1;
			c[j] = v;
		}
		int *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	int d = p[lb];
	free(pp);
	free(p);
	free(c);
	return d;
}

const char *suggest_closest(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word);
	int limit = len <= 4 ? 1 : 2, best = limit + 1, ties = 0;
	const char *hit = NULL;
	if (len == 0)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!cands[i] || !strcmp(cands[i], word))
			continue;
		int d = suggest_distance(word, cands[i]);
		if (d < best) {
			best = d;
			hit = cands[i];
			ties = 0;
		} else if (d == best) {
			ties++;
		}
	}
	return ties ? NULL : hit;
}

char *suggest_option(const struct option *opts, const char *arg)
{
	size_t n = 0;
	if (!arg || strncmp(arg, "--", 2))
		return NULL;
	while (opts[n].name)
		n++;
	const char **names = xcalloc(n + 1, sizeof *names);
	for (size_t i = 0; i < n; i++)
		names[i] = opts[i].name;
	char *word = xstrndup(arg + 2, strcspn(arg + 2, "="));
	const char *hit = suggest_closest(word, names, n);
	char *s = hit ? xasprintf("--%s", hit) : NULL;
	free(word);
	free(names);
	return s;
}

char *suggest_problem(const char *dir, const char *name)
{
	int n;
	char **v = problem_names(dir, &n);
	/* each folder twice: 01_fp8_gemm and fp8_gemm */
	const char **cands = xcalloc((size_t)n * 2 + 1, sizeof *cands);
	for (int i = 0; i < n; i++) {
		const char *u = strchr(v[i], '_');
		cands[2 * i] = v[i];
		cands[2 * i + 1] = u && u > v[i] && strspn(v[i], "0123456789") == (size_t)(u - v[i]) ? u + 1 : NULL;
	}
	const char *hit = name ? suggest_closest(name, cands, (size_t)n * 2) : NULL;
	char *s = NULL;
	for (int i = 0; hit && i < n && !s; i++)
		if (hit == cands[2 * i] || hit == cands[2 * i + 1])
			s = xstrdup(v[i]);
	free(cands);
	problem_names_free(v, n);
	return s;
}
