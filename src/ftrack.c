/* ftrack.c: per-run file contents as seen so far, and the diffs of each
 * write, edit and apply_patch against them. */
#include "ftrack.h"
#include "diff.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

#define FTRACK_CONTEXT 3

struct ftrack_file {
	char *path;
	char *content;
};

struct ftrack {
	struct ftrack_file *v;
	size_t n, cap;
};

struct ftrack *ftrack_new(void)
{
	return xcalloc(1, sizeof(struct ftrack));
}

void ftrack_free(struct ftrack *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].path);
		free(t->v[i].content);
	}
	free(t->v);
	free(t);
}

static struct ftrack_file *ftrack_find(const struct ftrack *t, const char *path)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->v[i].path, path) == 0)
			return &t->v[i];
	return NULL;
}

const char *ftrack_get(const struct ftrack *t, const char *path)
{
	struct ftrack_file *f = ftrack_find(t, path);
	return f ? f->content : NULL;
}

/* Takes ownership of content (may be NULL: file deleted). */
static void ftrack_put(struct ftrack *t, const char *path, char *content)
{
	struct ftrack_file *f = ftrack_find(t, path);
	if (!f) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->v = xrealloc(t->v, t->cap * sizeof *t->v);
		}
		f = &t->v[t->n++];
		f->path = xstrdup(path);
		f->content = NULL;
	}
	free(f->content);
	f->content = content;
}

char *ftrack_write(struct ftrack *t, const char *path, const char *content)
{
	const char *old = ftrack_get(t, path);
	char *d = diff_unified(path, old, content ? content : "", FTRACK_CONTEXT);
	ftrack_put(t, path, xstrdup(content ? content : ""));
	return d;
}

/* Replaces the first (or every) occurrence of old_s in s; NULL when absent. */
static char *ftrack_replace(const char *s, const char *old_s, const char *new_s, int all)
{
	struct sbuf b;
	size_t lo = strlen(old_s), ln = strlen(new_s);
	const char *p = s, *hit;

	if (!lo || !(hit = strstr(s, old_s)))
		return NULL;
	sbuf_init(&b);
	do {
		sbuf_add(&b, p, (size_t)(hit - p));
		sbuf_add(&b, new_s, ln);
		p = hit + lo;
	} while (all && (hit = strstr(p, old_s)));
	sbuf_adds(&b, p);
	return sbuf_detach(&b);
}

char *ftrack_edit(struct ftrack *t, const char *path, const char *old_s,
                  const char *new_s, int replace_all)
{
	const char *cur = ftrack_get(t, path);
	char *next;

	old_s = old_s ? old_s : "";
	new_s = new_s ? new_s : "";
	if (cur && (next = ftrack_replace(cur, old_s, new_s, replace_all))) {
		char *d = diff_unified(path, cur, next, FTRACK_CONTEXT);
		ftrack_put(t, path, next);
		return d;
	}
	if (!cur && !*old_s) {
		/* creating a file through an edit with empty old text */
		return ftrack_write(t, path, new_s);
	}
	return diff_unified(path, old_s, new_s, FTRACK_CONTEXT);
}

/* ---- apply_patch ---------------------------------------------------- */

struct patch_chunk {
	struct sbuf old_b, new_b;
};

/* Applies one @@ chunk to *cur (owned); returns 0 when its old text was
 * not found. An empty old block appends. */
static int ftrack_apply_chunk(char **cur, struct patch_chunk *c)
{
	char *next;
	if (!c->old_b.len) {
		struct sbuf b;
		sbuf_init(&b);
		sbuf_adds(&b, *cur);
		sbuf_add(&b, c->new_b.s, c->new_b.len);
		free(*cur);
		*cur = sbuf_detach(&b);
		sbuf_free(&b);
		return 1;
	}
	next = ftrack_replace(*cur, c->old_b.s, c->new_b.s, 0);
	if (!next)
		return 0;
	free(*cur);
	*cur = next;
	return 1;
}

/* One "*** Update File" section: lines[from..to). */
static char *ftrack_patch_update(struct ftrack *t, const char *path, const char *move_to,
                                 char **lines, size_t from, size_t to)
{
	const char *known = ftrack_get(t, path);
	char *cur = xstrdup(known ? known : "");
	struct patch_chunk c;
	struct sbuf frag_old, frag_new;
	int ok = known != NULL;
	char *d;

	sbuf_init(&c.old_b);
	sbuf_init(&c.new_b);
	sbuf_init(&frag_old);
	sbuf_init(&frag_new);
	for (size_t i = from; i <= to; i++) {
		const char *l = i < to ? lines[i] : NULL;
		if (!l || util_starts_with(l, "@@") || util_starts_with(l, "*** End of File")) {
			if (c.old_b.len || c.new_b.len)
				ok = ok && ftrack_apply_chunk(&cur, &c);
			sbuf_reset(&c.old_b);
			sbuf_reset(&c.new_b);
			continue;
		}
		char op = l[0];
		const char *body = *l ? l + 1 : l;
		if (op != '-' && op != '+' && op != ' ' && op != '\0')
			continue;
		if (op != '+') {
			sbuf_adds(&c.old_b, body);
			sbuf_addc(&c.old_b, '\n');
			sbuf_adds(&frag_old, body);
			sbuf_addc(&frag_old, '\n');
		}
		if (op != '-') {
			sbuf_adds(&c.new_b, body);
			sbuf_addc(&c.new_b, '\n');
			sbuf_adds(&frag_new, body);
			sbuf_addc(&frag_new, '\n');
		}
	}
	const char *dest = move_to ? move_to : path;
	if (ok) {
		d = diff_unified(dest, known, cur, FTRACK_CONTEXT);
		if (move_to)
			ftrack_put(t, path, NULL);
		ftrack_put(t, dest, cur);
	} else {
		/* unknown base: show the patch's own lines as the change */
		d = diff_unified(dest, frag_old.s, frag_new.s, FTRACK_CONTEXT);
		free(cur);
	}
	sbuf_free(&c.old_b);
	sbuf_free(&c.new_b);
	sbuf_free(&frag_old);
	sbuf_free(&frag_new);
	return d;
}

static char *ftrack_patch_add(struct ftrack *t, const char *path, char **lines,
                              size_t from, size_t to)
{
	struct sbuf b;
	char *d;
	sbuf_init(&b);
	for (size_t i = from; i < to; i++) {
		if (lines[i][0] != '+')
			continue;
		sbuf_adds(&b, lines[i] + 1);
		sbuf_addc(&b, '\n');
	}
	/* Add File creates: a reader wants the full new content as additions */
	d = diff_unified(path, NULL, b.s, FTRACK_CONTEXT);
	ftrack_put(t, path, sbuf_detach(&b));
	sbuf_free(&b);
	return d;
}

static char **ftrack_split_lines(const char *s, size_t *n)
{
	size_t cap = 64;
	char **v = xmalloc(cap * sizeof *v);
	*n = 0;
	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		if (*n == cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		if (len && s[len - 1] == '\r')
			len--;
		v[(*n)++] = xstrndup(s, len);
		if (!nl)
			break;
		s = nl + 1;
	}
	return v;
}

static int ftrack_header(const char *l, const char *tag, const char **path)
{
	if (!util_starts_with(l, tag))
		return 0;
	*path = l + strlen(tag);
	while (**path == ' ')
		(*path)++;
	return 1;
}

char *ftrack_patch(struct ftrack *t, const char *patch, char **first_path)
{
	size_t n, i = 0;
	char **lines = ftrack_split_lines(patch ? patch : "", &n);
	struct sbuf out;

	sbuf_init(&out);
	if (first_path)
		*first_path = NULL;
	while (i < n) {
		const char *path, *move_to = NULL;
		int kind;
		if (ftrack_header(lines[i], "*** Add File:", &path))
			kind = 'A';
		else if (ftrack_header(lines[i], "*** Update File:", &path))
			kind = 'U';
		else if (ftrack_header(lines[i], "*** Delete File:", &path))
			kind = 'D';
		else {
			i++;
			continue;
		}
		size_t from = ++i;
		if (kind == 'U' && i < n && ftrack_header(lines[i], "*** Move to:", &move_to))
			from = ++i;
		while (i < n && !util_starts_with(lines[i], "*** Add File:") &&
		       !util_starts_with(lines[i], "*** Update File:") &&
		       !util_starts_with(lines[i], "*** Delete File:") &&
		       !util_starts_with(lines[i], "*** End Patch"))
			i++;
		if (first_path && !*first_path)
			*first_path = xstrdup(path);
		char *d = NULL;
		if (kind == 'A')
			d = ftrack_patch_add(t, path, lines, from, i);
		else if (kind == 'U')
			d = ftrack_patch_update(t, path, move_to, lines, from, i);
		else {
			d = diff_unified(path, ftrack_get(t, path), NULL, FTRACK_CONTEXT);
			ftrack_put(t, path, NULL);
		}
		sbuf_adds(&out, d);
		free(d);
	}
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	return sbuf_detach(&out);
}
