/* annotate.c: one change to a run's annotation file, checked, written
 * atomically under the lock, and undoable. */
#include "config.h"
#include "annotate.h"
#include "util.h"
#include "yedit.h"

#include <yaml.h>

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

/* The top-level fields a change sets, in the order they are applied. */
struct annotate_field {
	const char *key, *value;
};

static size_t annotate_fields(const struct annotate_change *ch, struct annotate_field *f, char *now, size_t nn)
{
	size_t n = 0;
	if (ch->verdict)
		f[n++] = (struct annotate_field){"verdict", ch->verdict};
	if (ch->summary)
		f[n++] = (struct annotate_field){"summary", ch->summary};
	if (ch->implication)
		f[n++] = (struct annotate_field){"implication", ch->implication};
	if (ch->set_key)
		f[n++] = (struct annotate_field){ch->set_key, ch->set_value};
	if (ch->annotator) {
		annotate_now(now, nn);
		f[n++] = (struct annotate_field){"annotator", ch->annotator};
		f[n++] = (struct annotate_field){"updated", now};
	}
	return n;
}

/* A new file: the run's fields, then the change, emitted whole. */
static char *annotate_new_text(const char *path, const struct annotate_change *ch, char **err)
{
	struct annot *a = annot_new(path);
	struct annotate_field f[8];
	char now[32];
	size_t n = annotate_fields(ch, f, now, sizeof now);
	if (ch->meta)
		fill_meta(a, ch->meta);
	for (size_t i = 0; i < n; i++)
		annot_set(a, f[i].key, f[i].value);
	if (ch->quote_file)
		annot_add_quote(a, ch->quote_file, ch->quote_start, ch->quote_end,
		                ch->quote_label ? ch->quote_label : "", ch->quote_text ? ch->quote_text : "");
	char *text = annot_emit(a, err);
	annot_free(a);
	return text;
}

/* The quote as the block mapping of one list item, in the styles
 * annot_add_quote gives its nodes (owned). */
static char *annotate_quote_item(const struct annotate_change *ch)
{
	const char *text = ch->quote_text ? ch->quote_text : "";
	char *file, *label, *body, *item, lines[64];
	int style = YAML_LITERAL_SCALAR_STYLE;
	if (strstr(text, " \n") || strstr(text, "\t\n") || *text == ' ' || strchr(text, '\r'))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	yedit_scalar(ch->quote_file, YAML_PLAIN_SCALAR_STYLE, 0, &file);
	yedit_scalar(ch->quote_label ? ch->quote_label : "", YAML_DOUBLE_QUOTED_SCALAR_STYLE, 0, &label);
	yedit_scalar(text, style, 2, &body);
	if (ch->quote_end != ch->quote_start)
		snprintf(lines, sizeof lines, "[%d, %d]", ch->quote_start, ch->quote_end);
	else
		snprintf(lines, sizeof lines, "[%d]", ch->quote_start);
	item = xasprintf("file: %s\nlines: %s\nlabel: %s\ntext: %s\n", file, lines, label, body);
	free(file);
	free(label);
	free(body);
	return item;
}

static const char *const annotate_order[] = {"run_id", "model", "harness", "effort", "problem",
                                             "peak_fraction", "verdict", "summary", "quotes",
                                             "implication", "annotator", "updated", NULL};

/* The change made in the text of an existing file (t), and the same change
 * made to its tree (want) with the styles the text got, so that the result
 * can be checked to hold exactly that. 0, or -1 with *err. */
static int annotate_splice(struct yedit_text *t, struct annot *want, const struct annotate_change *ch, char **err)
{
	struct annotate_field f[8];
	char now[32];
	size_t n = annotate_fields(ch, f, now, sizeof now);
	for (size_t i = 0; i < n; i++) {
		char *used = NULL;
		int style = yedit_set(t, f[i].key, f[i].value, annotate_order, &used, err);
		if (style < 0)
			return -1;
		annot_set_styled(want, f[i].key, used, style);
		free(used);
	}
	return 0;
}

/* Errors of annot_check's messages as lines without "path:line: ", for
 * comparing a file before and after: the implication error is the same
 * error whatever the verdict it names. */
static char **annotate_error_keys(const char *msgs, const char *path, size_t *n)
{
	char **k = NULL;
	size_t plen = strlen(path);
	*n = 0;
	for (const char *p = msgs; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *q = p;
		if (len > plen && !strncmp(q, path, plen) && q[plen] == ':') {
			q += plen + 1;
			q += strspn(q, "0123456789");
			q += *q == ':' ? 1 : 0;
			q += *q == ' ' ? 1 : 0;
		}
		if (!strncmp(q, "error: ", 7)) {
			size_t kl = (size_t)(p + len - q);
			const char *cut = strstr(q, " for verdict `");
			if (cut && cut < p + len)
				kl = (size_t)(cut - q);
			k = xrealloc(k, (*n + 1) * sizeof *k);
			k[(*n)++] = xstrndup(q, kl);
		}
		p += len + (nl ? 1 : 0);
	}
	return k;
}

/* Messages for the caller: the errors the change brought (counted in
 * *introduced), the warnings, and one line naming the errors the file
 * already had, which were kept as they were (*kept). */
static char *annotate_compare(const char *path, const char *old_msgs, const char *new_msgs, int *introduced,
                              int *kept)
{
	size_t no, nn;
	char **ko = annotate_error_keys(old_msgs, path, &no), **kn = annotate_error_keys(new_msgs, path, &nn);
	char *first_kept = NULL;
	struct sbuf b;
	sbuf_init(&b);
	*introduced = *kept = 0;
	size_t ki = 0;
	for (const char *p = new_msgs; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, len);
		if (!strstr(line, ": error: ")) {
			sbuf_addf(&b, "%s\n", line);
		} else {
			int old = 0;
			for (size_t j = 0; j < no && ki < nn; j++)
				if (ko[j] && !strcmp(ko[j], kn[ki])) {
					free(ko[j]);
					ko[j] = NULL;  /* each old error matches once */
					old = 1;
					break;
				}
			ki++;
			if (old) {
				++*kept;
				if (!first_kept)
					first_kept = xstrdup(line);
			} else {
				++*introduced;
				sbuf_addf(&b, "%s\n", line);
			}
		}
		free(line);
		p += len + (nl ? 1 : 0);
	}
	if (*kept)
		sbuf_addf(&b, "%s: warning: %d schema error%s already in the file kept as %s (%s)\n", path, *kept,
		          *kept == 1 ? "" : "s", *kept == 1 ? "it was" : "they were", first_kept);
	for (size_t j = 0; j < no; j++)
		free(ko[j]);
	for (size_t j = 0; j < nn; j++)
		free(kn[j]);
	free(ko);
	free(kn);
	free(first_kept);
	return b.len ? sbuf_detach(&b) : (sbuf_free(&b), NULL);
}

/* The new bytes for an existing file, its change made in place and
 * checked; NULL with res->err when it cannot be made. */
static char *annotate_existing(const char *before, size_t blen, const struct annotate_change *ch,
                               struct annotate_result *res)
{
	struct yedit_text t = {xstrndup(before, blen), blen};
	struct annot *old, *want, *got = NULL;
	char *e = NULL, *old_msgs = NULL, *new_msgs = NULL, *item = NULL;
	int line;

	if (!(old = annot_load_mem(res->path, before, blen, &line, &e))) {
		char *where = yedit_syntax_error(before, blen);
		if (where)
			res->err = xasprintf("%s:%s: not YAML, not overwritten: mend it by hand first", res->path, where);
		else
			res->err = xasprintf("%s; not overwritten: mend it by hand first", e);
		free(where);
		free(e);
		free(t.s);
		return NULL;
	}
	annot_check(old, &old_msgs);
	want = annot_load_mem(res->path, before, blen, &line, &e);
	if (annotate_splice(&t, want, ch, &e) < 0)
		goto refused;
	if (ch->quote_file) {
		item = annotate_quote_item(ch);
		if (yedit_append_item(&t, "quotes", item, annotate_order, &e) < 0)
			goto refused;
		annot_add_quote(want, ch->quote_file, ch->quote_start, ch->quote_end,
		                ch->quote_label ? ch->quote_label : "", ch->quote_text ? ch->quote_text : "");
	}
	if (!(got = annot_load_mem(res->path, t.s, t.len, &line, &e))) {
		char *why = e;
		e = xasprintf("the change would not read back as YAML (%s)", why);
		free(why);
		goto refused;
	}
	if (!ynode_equal(want->root, got->root)) {
		e = xstrdup("the change could not be made in place without touching other values");
		goto refused;
	}
	annot_check(got, &new_msgs);
	res->msgs = annotate_compare(res->path, old_msgs, new_msgs, &res->errors, &res->kept);
	goto out;
refused:
	res->err = xasprintf("%s: %s; nothing written", res->path, e ? e : "cannot change it");
	free(t.s);
	t.s = NULL;
out:
	free(e);
	free(item);
	free(old_msgs);
	free(new_msgs);
	annot_free(old);
	annot_free(want);
	annot_free(got);
	return t.s;
}

/* A directory of path's own exists: annotations go there. */
static int annotate_dir_ok(const char *path, struct annotate_result *res)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
	int ok = util_is_dir(dir);
	if (!ok)
		res->err = xasprintf("%s: not a directory (annotations go there)", dir);
	free(dir);
	return ok;
}

enum annotate_status annotate_apply(const char *path, const struct annotate_change *ch,
                                    const struct annot_version *expected,
                                    const struct annotate_confirm *confirm, struct annotate_result *res)
{
	struct annotate_undo *u;
	struct annot_version now;
	char *text, *e = NULL;
	size_t blen = 0;
	char *before;
	int existed;

	memset(res, 0, sizeof *res);
	res->path = xstrdup(path);
	if (!annotate_dir_ok(path, res))
		return ANNOTATE_IOERR;
	/* the one read: what the change is made to, what undo restores and
	 * what the write expects to find still there */
	annot_version_get(path, &now);
	before = util_read_file(path, &blen);
	existed = before != NULL;
	if (!existed && errno != ENOENT) {
		res->err = xasprintf("%s: %s", path, strerror(errno));
		return ANNOTATE_IOERR;
	}
	if (expected && !annot_version_same(expected, &now)) {
		char *q = xasprintf("%s changed on disk since it was read (another annotator?): write over it?", path);
		int yes = confirm && confirm->ask && confirm->ask(confirm->ctx, q);
		free(q);
		if (!yes) {
			res->err = xasprintf("%s: changed on disk since it was read (another annotator?); "
			                     "not overwritten: reload it first", path);
			free(before);
			return ANNOTATE_IOERR;
		}
	}
	if (existed) {
		if (!(text = annotate_existing(before, blen, ch, res))) {
			free(before);
			return ANNOTATE_IOERR;
		}
	} else {
		if (!(text = annotate_new_text(path, ch, &e))) {
			res->err = xasprintf("%s: %s", path, e ? e : "cannot write YAML");
			free(e);
			return ANNOTATE_IOERR;
		}
		struct annot *a = annot_load_mem(path, text, strlen(text), &res->kept, &e);
		res->kept = 0;
		res->errors = a ? annot_check(a, &res->msgs) : 0;
		annot_free(a);
		free(e);
	}
	if (res->errors && !ch->allow_errors) {
		/* the implied field: a verdict but clean needs an implication */
		res->needs_implication = res->msgs && strstr(res->msgs, "error: `implication` is required") != NULL;
		free(text);
		free(before);
		return ANNOTATE_INVALID;
	}
	if (write_guarded(path, existed, before, blen, text, strlen(text), &res->err) < 0) {
		free(text);
		free(before);
		return ANNOTATE_IOERR;
	}
	annot_version_get(path, &res->version);
	u = xcalloc(1, sizeof *u);
	u->path = xstrdup(path);
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
