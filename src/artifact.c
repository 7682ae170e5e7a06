/* artifact.c: a run's files (and its final answer) split into lines that
 * quotes can address. */
#include "config.h"
#include "artifact.h"
#include "run.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The files the pane shows, in order; the first solution found wins. */
static const char *const artifact_files[] = {"check.log", "benchmark.log", "stderr.log", "result.json", NULL};

static void artifact_index(struct artifact *a)
{
	size_t cap = 64;
	a->line_off = xmalloc(cap * sizeof *a->line_off);
	a->nlines = 0;
	for (size_t i = 0; i < a->len;) {
		const char *nl = memchr(a->text + i, '\n', a->len - i);
		if (a->nlines == cap)
			a->line_off = xrealloc(a->line_off, (cap *= 2) * sizeof *a->line_off);
		a->line_off[a->nlines++] = i;
		i = nl ? (size_t)(nl - a->text) + 1 : a->len;
	}
}

static void artifacts_push(struct artifacts *as, const char *name, const char *path, char *text, size_t len)
{
	struct artifact *a;
	as->v = xrealloc(as->v, (as->n + 1) * sizeof *as->v);
	a = &as->v[as->n++];
	a->name = xstrdup(name);
	a->path = xstrdup(path);
	a->text = text;
	a->len = len;
	artifact_index(a);
}

/* Adds dir/name when it is a readable file. */
static int artifacts_add_file(struct artifacts *as, const char *path, const char *name)
{
	size_t len = 0;
	char *text;
	if (!path || !util_is_file(path) || !(text = util_read_file(path, &len)))
		return 0;
	artifacts_push(as, name, path, text, len);
	return 1;
}

static int artifacts_add(struct artifacts *as, const char *dir, const char *name)
{
	char *p = util_path_join(dir, name);
	int r = artifacts_add_file(as, p, name);
	free(p);
	return r;
}

/* The run's final answer: the last assistant text of the main thread. */
static const char *run_final_text(const struct run *r)
{
	for (size_t i = r->nev; i-- > 0;)
		if (r->ev[i].kind == EV_TEXT && !r->ev[i].sidechain && r->ev[i].text && *r->ev[i].text)
			return r->ev[i].text;
	return NULL;
}

struct artifacts *artifacts_load(const char *run_dir, const struct run *run, const char *transcript)
{
	struct artifacts *as = xcalloc(1, sizeof *as);
	const char *final;

	if (run_dir) {
		if (!artifacts_add(as, run_dir, "solution.py"))
			artifacts_add(as, run_dir, "solution.cu");
		for (int i = 0; artifact_files[i]; i++)
			artifacts_add(as, run_dir, artifact_files[i]);
	}
	/* the dataset keeps the final answer as final.txt; a run without one
	 * gets it from the transcript, under the same name */
	if (!(run_dir && artifacts_add(as, run_dir, "final.txt")) && run && (final = run_final_text(run)))
		artifacts_push(as, "final.txt", NULL, xstrdup(final), strlen(final));
	if (transcript) {
		const char *slash = strrchr(transcript, '/');
		artifacts_add_file(as, transcript, slash ? slash + 1 : transcript);
	}
	return as;
}

void artifacts_free(struct artifacts *as)
{
	if (!as)
		return;
	for (size_t i = 0; i < as->n; i++) {
		free(as->v[i].name);
		free(as->v[i].path);
		free(as->v[i].text);
		free(as->v[i].line_off);
	}
	free(as->v);
	free(as);
}

const char *artifact_line(const struct artifact *a, size_t i, size_t *len)
{
	size_t s, e;
	if (i >= a->nlines) {
		*len = 0;
		return "";
	}
	s = a->line_off[i];
	e = i + 1 < a->nlines ? a->line_off[i + 1] : a->len;
	if (e > s && a->text[e - 1] == '\n')
		e--;
	*len = e - s;
	return a->text + s;
}

char *artifact_quote_text(const struct artifact *a, int start, int end)
{
	size_t s, e;
	if (start < 1 || end < start || (size_t)end > a->nlines)
		return NULL;
	s = a->line_off[start - 1];
	e = (size_t)end < a->nlines ? a->line_off[end] : a->len;
	return xstrndup(a->text + s, e - s);
}

const struct artifact *artifacts_find(const struct artifacts *as, const char *name)
{
	for (size_t i = 0; i < as->n; i++)
		if (!strcmp(as->v[i].name, name))
			return &as->v[i];
	return NULL;
}
