/* annotate.c: one change to a run's annotation file, checked, written
 * atomically under the lock, and undoable. */
#include "config.h"
#include "annotate.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *annotate_path(const char *annot_dir, const char *run_id)
{
	if (!run_id || !*run_id || run_id[0] == '.' || strchr(run_id, '/'))
		return NULL;
	return xasprintf("%s/%s.yaml", annot_dir, run_id);
}

void annotate_now(char *buf, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Whether the file holds exactly what we expect (or is absent, as expected). */
static int file_is(const char *path, int exists, const char *bytes, size_t len)
{
	size_t n = 0;
	char *cur = util_read_file(path, &n);
	int same;
	if (!cur)
		return !exists && errno == ENOENT;
	same = exists && n == len && (len == 0 || memcmp(cur, bytes, len) == 0);
	free(cur);
	return same;
}

/* Replaces path by bytes (or removes it when bytes is NULL), atomically and
 * under the lock, only if it still holds what the caller read. */
static int write_guarded(const char *path, int expect_exists, const char *expect, size_t expect_len,
                         const char *bytes, size_t len, char **err)
{
	int lock, rc = -1;

	if ((lock = annot_lock(path, err)) < 0)
		return -1;
	if (!file_is(path, expect_exists, expect, expect_len))
		*err = xasprintf("%s: changed on disk since it was read (another annotator?); "
		                 "not overwritten: reload it first", path);
	else
		rc = annot_replace(path, bytes, len, err);
	close(lock);
	return rc;
}

/* Sets key from the run's metadata only when the document lacks it: values
 * already there are the annotator's and stay as written. */
static int has_key(const struct annot *a, const char *key)
{
	for (size_t i = 0; i + 1 < a->root->n; i += 2)
		if (a->root->items[i]->kind == YN_SCALAR && !strcmp(a->root->items[i]->value, key))
			return 1;
	return 0;
}

static void fill(struct annot *a, const char *key, const char *value)
{
	if (!has_key(a, key))
		annot_set(a, key, value);
}

static void fill_meta(struct annot *a, const struct run_meta *m)
{
	fill(a, "run_id", m->run_id);
	if (m->model)
		fill(a, "model", m->model);
	if (m->harness)
		fill(a, "harness", m->harness);
	fill(a, "effort", m->effort ? m->effort : "");
	if (m->problem)
		fill(a, "problem", m->problem);
	if (has_key(a, "peak_fraction"))
		return;
	/* the schema: a number, or null if not correct */
	int known = m->has_result && m->correct && m->peak_fraction >= 0;
	annot_set_number(a, "peak_fraction", m->peak_fraction, !known);
}

static void apply_change(struct annot *a, const struct annotate_change *ch)
{
	if (ch->verdict)
		annot_set(a, "verdict", ch->verdict);
	if (ch->summary)
		annot_set(a, "summary", ch->summary);
	if (ch->quote_file)
		annot_add_quote(a, ch->quote_file, ch->quote_start, ch->quote_end,
		                ch->quote_label ? ch->quote_label : "", ch->quote_text ? ch->quote_text : "");
	if (ch->implication)
		annot_set(a, "implication", ch->implication);
	if (ch->edit)
		ch->edit(a, ch->ctx);
	if (ch->annotator) {
		char now[32];
		annotate_now(now, sizeof now);
		annot_set(a, "annotator", ch->annotator);
		annot_set(a, "updated", now);
	}
}

enum annotate_status annotate_apply(const char *annot_dir, const struct run_meta *meta,
                                    const struct annotate_change *ch,
                                    struct annotate_result *res)
{
	struct annotate_undo *u;
	struct annot *a;
	char *text, *e = NULL;
	int line, existed;
	size_t blen = 0;
	char *before;

	memset(res, 0, sizeof *res);
	if (!(res->path = annotate_path(annot_dir, meta->run_id))) {
		res->err = xasprintf("%s: run id `%s` cannot name an annotation file", annot_dir,
		                     meta->run_id ? meta->run_id : "");
		return ANNOTATE_IOERR;
	}
	if (!util_is_dir(annot_dir)) {
		res->err = xasprintf("%s: not a directory (annotations go there)", annot_dir);
		return ANNOTATE_IOERR;
	}
	/* the bytes first: they are what undo restores and what the write
	 * expects to find still there */
	before = util_read_file(res->path, &blen);
	existed = before != NULL;
	if (!existed && errno != ENOENT) {
		res->err = xasprintf("%s: %s", res->path, strerror(errno));
		return ANNOTATE_IOERR;
	}
	if (existed) {
		if (!(a = annot_load(res->path, &line, &e))) {
			res->err = e;
			free(before);
			return ANNOTATE_IOERR;
		}
	} else {
		a = annot_new(res->path);
	}
	fill_meta(a, meta);
	apply_change(a, ch);
	res->errors = annot_check(a, &res->msgs);
	if (res->errors && !ch->allow_errors) {
		annot_free(a);
		free(before);
		return ANNOTATE_INVALID;
	}
	if (!(text = annot_emit(a, &e))) {
		res->err = xasprintf("%s: %s", res->path, e ? e : "cannot write YAML");
		free(e);
		annot_free(a);
		free(before);
		return ANNOTATE_IOERR;
	}
	annot_free(a);
	if (write_guarded(res->path, existed, before, blen, text, strlen(text), &res->err) < 0) {
		free(text);
		free(before);
		return ANNOTATE_IOERR;
	}
	u = xcalloc(1, sizeof *u);
	u->path = xstrdup(res->path);
	u->existed = existed;
	u->before = before;
	u->before_len = blen;
	u->after = text;
	u->after_len = strlen(text);
	res->undo = u;
	return ANNOTATE_OK;
}

void annotate_result_free(struct annotate_result *res)
{
	free(res->path);
	free(res->msgs);
	free(res->err);
	annotate_undo_free(res->undo);
	memset(res, 0, sizeof *res);
}

int annotate_undo(const struct annotate_undo *u, char **err)
{
	*err = NULL;
	return write_guarded(u->path, 1, u->after, u->after_len, u->existed ? u->before : NULL,
	                     u->before_len, err);
}

void annotate_undo_free(struct annotate_undo *u)
{
	if (!u)
		return;
	free(u->path);
	free(u->before);
	free(u->after);
	free(u);
}
