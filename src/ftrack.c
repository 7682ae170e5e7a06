/* ftrack.c: per-run file versions as seen so far, and the diffs of each
 * write, edit and apply_patch against them, kept as references to shared
 * versions and rendered only when someone looks. */
#include "ftrack.h"
#include "diff.h"
#include "util.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FTRACK_CONTEXT 3
#define FTRACK_NO_EV SIZE_MAX

/* Immutable text shared by versions and diff parts. */
struct ftext {
	size_t refs;
	char *s;
};

struct fver {               /* file content after event ev (t NULL: deleted) */
	size_t ev;
	struct ftext *t;
};

struct fdoubt {             /* at event ev, what became of the file's known content */
	size_t ev;
	enum ftrack_doubt why;  /* FTRACK_SURE: a whole write, known again */
};

struct ftrack_file {
	char *path;
	struct ftext *cur;
	struct fver *hist;
	size_t nh, caph;
	int written;            /* had content once: listed by ftrack_nfiles */
	struct fdoubt *doubts;  /* in event order */
	size_t nd, capd;
};

struct fpart {              /* one diff_unified(path, a, b) */
	char *path;
	struct ftext *a, *b;
};

struct fev {                /* the recorded diff of one event */
	size_t ev;
	struct fpart *p;
	size_t n, cap;
};

struct ftrack {
	struct ftrack_file *v;
	size_t n, cap;
	struct fev *evs;        /* ascending ev */
	size_t nevs, capevs;
	size_t ev;              /* event being recorded, FTRACK_NO_EV outside */
	int mute;               /* inside a known-base group: parts not recorded */
	size_t *order;          /* listing order of written files (solution first) */
	size_t norder;
};

/* ---- shared texts ------------------------------------------------------ */

static struct ftext *ftext_take(char *s)
{
	struct ftext *x = xmalloc(sizeof *x);
	x->refs = 1;
	x->s = s;
	return x;
}

static struct ftext *ftext_ref(struct ftext *x)
{
	if (x)
		x->refs++;
	return x;
}

static void ftext_unref(struct ftext *x)
{
	if (x && --x->refs == 0) {
		free(x->s);
		free(x);
	}
}

static const char *ftext_str(const struct ftext *x)
{
	return x ? x->s : NULL;
}

/* ---- the tracker ------------------------------------------------------- */

struct ftrack *ftrack_new(void)
{
	struct ftrack *t = xcalloc(1, sizeof(struct ftrack));
	t->ev = FTRACK_NO_EV;
	return t;
}

static void fev_clear(struct fev *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->p[i].path);
		ftext_unref(d->p[i].a);
		ftext_unref(d->p[i].b);
	}
	free(d->p);
	d->p = NULL;
	d->n = d->cap = 0;
}

void ftrack_free(struct ftrack *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		struct ftrack_file *f = &t->v[i];
		free(f->path);
		ftext_unref(f->cur);
		for (size_t k = 0; k < f->nh; k++)
			ftext_unref(f->hist[k].t);
		free(f->hist);
		free(f->doubts);
	}
	for (size_t i = 0; i < t->nevs; i++)
		fev_clear(&t->evs[i]);
	free(t->evs);
	free(t->v);
	free(t->order);
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
	return f ? ftext_str(f->cur) : NULL;
}

static struct ftext *ftrack_cur(const struct ftrack *t, const char *path)
{
	struct ftrack_file *f = ftrack_find(t, path);
	return f ? f->cur : NULL;
}

static void ftrack_history(struct ftrack *t, struct ftrack_file *f)
{
	if (f->nh && f->hist[f->nh - 1].ev == t->ev) {
		/* several changes in one event: the event's version is the last */
		ftext_unref(f->hist[f->nh - 1].t);
		f->hist[f->nh - 1].t = ftext_ref(f->cur);
		return;
	}
	if (f->nh == f->caph) {
		f->caph = f->caph ? f->caph * 2 : 4;
		f->hist = xrealloc(f->hist, f->caph * sizeof *f->hist);
	}
	f->hist[f->nh].ev = t->ev;
	f->hist[f->nh].t = ftext_ref(f->cur);
	f->nh++;
}

/* Makes content (reference taken over, may be NULL: file deleted) the
 * current version of path; returns the version now current (borrowed).
 * Content equal to the current version keeps that one: not a change. */
static struct ftext *ftrack_put(struct ftrack *t, const char *path, struct ftext *content)
{
	struct ftrack_file *f = ftrack_find(t, path);
	if (!f) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->v = xrealloc(t->v, t->cap * sizeof *t->v);
		}
		f = &t->v[t->n++];
		memset(f, 0, sizeof *f);
		f->path = xstrdup(path);
	}
	if (f->cur == content || (f->cur && content && strcmp(f->cur->s, content->s) == 0)) {
		ftext_unref(content);
		return f->cur;
	}
	if (!f->cur && !content && !f->written)
		return NULL;
	ftext_unref(f->cur);
	f->cur = content;
	if (content && !f->written) {
		f->written = 1;
		free(t->order); /* listing changes */
		t->order = NULL;
	}
	if (f->written)
		ftrack_history(t, f);
	return f->cur;
}

/* Records what the event being recorded did to path's known content
 * (nothing outside an event: there is no step to say it from). */
static void ftrack_doubt(struct ftrack *t, const char *path, enum ftrack_doubt why)
{
	struct ftrack_file *f = ftrack_find(t, path);
	if (!f || t->ev == FTRACK_NO_EV)
		return;
	if (why == FTRACK_SURE && (!f->nd || f->doubts[f->nd - 1].why == FTRACK_SURE))
		return;  /* nothing to be sure again of */
	if (f->nd == f->capd) {
		f->capd = f->capd ? f->capd * 2 : 4;
		f->doubts = xrealloc(f->doubts, f->capd * sizeof *f->doubts);
	}
	f->doubts[f->nd].ev = t->ev;
	f->doubts[f->nd].why = why;
	f->nd++;
}

/* The renderer's cut: "... (N more chars)", N digits. */
int ftrack_is_cut(const char *s)
{
	const char *p = s;
	while (s && (p = strstr(p, "... ("))) {
		const char *q = p += 5;
		while (*q >= '0' && *q <= '9')
			q++;
		if (q > p && util_starts_with(q, " more chars)"))
			return 1;
	}
	return 0;
}

static struct fev *ftrack_fev(const struct ftrack *t, size_t ev)
{
	size_t lo = 0, hi = t->nevs;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->evs[mid].ev < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nevs && t->evs[lo].ev == ev ? &t->evs[lo] : NULL;
}

void ftrack_begin(struct ftrack *t, size_t ev)
{
	t->ev = ev;
	t->mute = 0;
}

void ftrack_end(struct ftrack *t)
{
	t->ev = FTRACK_NO_EV;
	t->mute = 0;
}

static struct fev *ftrack_open_fev(struct ftrack *t)
{
	struct fev *d;
	if (t->nevs && t->evs[t->nevs - 1].ev == t->ev)
		return &t->evs[t->nevs - 1];
	if (t->nevs && t->evs[t->nevs - 1].ev > t->ev)
		return NULL; /* events are recorded in order; never seen in practice */
	if (t->nevs == t->capevs) {
		t->capevs = t->capevs ? t->capevs * 2 : 16;
		t->evs = xrealloc(t->evs, t->capevs * sizeof *t->evs);
	}
	d = &t->evs[t->nevs++];
	memset(d, 0, sizeof *d);
	d->ev = t->ev;
	return d;
}

void ftrack_mark(struct ftrack *t)
{
	if (t->ev != FTRACK_NO_EV)
		ftrack_open_fev(t);
}

/* Records diff_unified(path, a, b) for the current event (refs taken), or
 * renders it at once outside an event. */
static char *ftrack_part(struct ftrack *t, const char *path, struct ftext *a, struct ftext *b)
{
	struct fev *d;
	if (t->ev == FTRACK_NO_EV)
		return diff_unified(path, ftext_str(a), ftext_str(b), FTRACK_CONTEXT);
	if (t->mute || !(d = ftrack_open_fev(t)))
		return NULL;
	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 2;
		d->p = xrealloc(d->p, d->cap * sizeof *d->p);
	}
	d->p[d->n].path = xstrdup(path);
	d->p[d->n].a = ftext_ref(a);
	d->p[d->n].b = ftext_ref(b);
	d->n++;
	return NULL;
}

/* The same for two plain texts (fragments of a failed edit or patch). */
static char *ftrack_part_text(struct ftrack *t, const char *path, const char *a, const char *b)
{
	struct ftext *x, *y;
	char *d;
	if (t->ev == FTRACK_NO_EV)
		return diff_unified(path, a, b, FTRACK_CONTEXT);
	if (t->mute)
		return NULL;
	x = a ? ftext_take(xstrdup(a)) : NULL;
	y = b ? ftext_take(xstrdup(b)) : NULL;
	d = ftrack_part(t, path, x, y);
	ftext_unref(x);
	ftext_unref(y);
	return d;
}

int ftrack_has_diff(const struct ftrack *t, size_t ev)
{
	return t && ftrack_fev(t, ev) != NULL;
}

char *ftrack_diff(const struct ftrack *t, size_t ev)
{
	const struct fev *d = t ? ftrack_fev(t, ev) : NULL;
	struct sbuf out;
	if (!d)
		return NULL;
	if (d->n == 1)
		return diff_unified(d->p[0].path, ftext_str(d->p[0].a), ftext_str(d->p[0].b), FTRACK_CONTEXT);
	sbuf_init(&out);
	for (size_t i = 0; i < d->n; i++) {
		char *x = diff_unified(d->p[i].path, ftext_str(d->p[i].a), ftext_str(d->p[i].b),
		                       FTRACK_CONTEXT);
		sbuf_adds(&out, x);
		free(x);
	}
	return sbuf_detach(&out);
}

void ftrack_forget(struct ftrack *t, size_t before)
{
	if (!t)
		return;
	size_t k = 0;
	while (k < t->nevs && t->evs[k].ev < before)
		fev_clear(&t->evs[k++]);
	if (k) {  /* (none yet: evs is NULL, which memmove may not be given) */
		memmove(t->evs, t->evs + k, (t->nevs - k) * sizeof *t->evs);
		t->nevs -= k;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct ftrack_file *f = &t->v[i];
		/* the version standing at `before` stays: the last made before it */
		size_t j = 0;
		while (j + 1 < f->nh && f->hist[j + 1].ev < before)
			j++;
		if (!j)
			continue;
		for (size_t m = 0; m < j; m++)
			ftext_unref(f->hist[m].t);
		memmove(f->hist, f->hist + j, (f->nh - j) * sizeof *f->hist);
		f->nh -= j;
	}
}

/* ---- changes ----------------------------------------------------------- */

char *ftrack_write(struct ftrack *t, const char *path, const char *content)
{
	struct ftext *old = ftext_ref(ftrack_cur(t, path));
	struct ftext *now = ftrack_put(t, path, ftext_take(xstrdup(content ? content : "")));
	char *d = ftrack_part(t, path, old, now);
	ftext_unref(old);
	/* a whole file written is known again, unless the renderer cut it */
	ftrack_doubt(t, path, ftrack_is_cut(content) ? FTRACK_CUT : FTRACK_SURE);
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
	struct ftext *cur = ftrack_cur(t, path);
	char *next;

	old_s = old_s ? old_s : "";
	new_s = new_s ? new_s : "";
	int cut = ftrack_is_cut(old_s) || ftrack_is_cut(new_s);
	if (cur && (next = ftrack_replace(cur->s, old_s, new_s, replace_all))) {
		char *d;
		ftext_ref(cur);
		d = ftrack_part(t, path, cur, ftrack_put(t, path, ftext_take(next)));
		ftext_unref(cur);
		if (cut)
			ftrack_doubt(t, path, FTRACK_CUT);
		return d;
	}
	if (!cur && !*old_s) {
		/* creating a file through an edit with empty old text */
		return ftrack_write(t, path, new_s);
	}
	/* known content the edit's old text is not in: the edit failed in the
	 * run, or what is known of the file is wrong (run_file_doubt tells) */
	if (cur)
		ftrack_doubt(t, path, cut ? FTRACK_CUT : FTRACK_EDIT_MISSED);
	return ftrack_part_text(t, path, old_s, new_s);
}

struct ftext *ftrack_group_open(struct ftrack *t, const char *path)
{
	struct ftext *before = ftext_ref(ftrack_cur(t, path));
	if (before)
		t->mute = 1;
	return before;
}

void ftrack_group_close(struct ftrack *t, const char *path, struct ftext *before)
{
	if (!before)
		return;
	t->mute = 0;
	free(ftrack_part(t, path, before, ftrack_cur(t, path)));
	ftext_unref(before);
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

/* Whether the renderer cut a patch section lines[from..to). */
static int ftrack_lines_cut(char **lines, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		if (ftrack_is_cut(lines[i]))
			return 1;
	return 0;
}

/* One "*** Update File" section: lines[from..to). */
static char *ftrack_patch_update(struct ftrack *t, const char *path, const char *move_to,
                                 char **lines, size_t from, size_t to)
{
	struct ftext *known = ftext_ref(ftrack_cur(t, path));
	char *cur = xstrdup(known ? known->s : "");
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
		struct ftext *now;
		if (move_to)
			ftrack_put(t, path, NULL);
		now = ftrack_put(t, dest, ftext_take(cur));
		d = ftrack_part(t, dest, known, now);
		if (ftrack_lines_cut(lines, from, to))
			ftrack_doubt(t, dest, FTRACK_CUT);
	} else {
		/* a known file the patch does not apply to: see ftrack_edit */
		if (known)
			ftrack_doubt(t, path, FTRACK_PATCH_MISSED);
		/* unknown base: show the patch's own lines as the change */
		struct ftext *a = ftext_take(sbuf_detach(&frag_old));
		struct ftext *b = ftext_take(sbuf_detach(&frag_new));
		d = ftrack_part(t, dest, a, b);
		ftext_unref(a);
		ftext_unref(b);
		free(cur);
	}
	ftext_unref(known);
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
	sbuf_init(&b);
	for (size_t i = from; i < to; i++) {
		if (lines[i][0] != '+')
			continue;
		sbuf_adds(&b, lines[i] + 1);
		sbuf_addc(&b, '\n');
	}
	/* Add File creates: a reader wants the full new content as additions */
	int cut = ftrack_lines_cut(lines, from, to);  /* the marker line has no '+' */
	char *d = ftrack_part(t, path, NULL, ftrack_put(t, path, ftext_take(sbuf_detach(&b))));
	ftrack_doubt(t, path, cut ? FTRACK_CUT : FTRACK_SURE);
	return d;
}

static char *ftrack_patch_delete(struct ftrack *t, const char *path)
{
	struct ftext *old = ftext_ref(ftrack_cur(t, path));
	char *d;
	ftrack_put(t, path, NULL);
	d = ftrack_part(t, path, old, NULL);
	ftext_unref(old);
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
	ftrack_mark(t);
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
		else
			d = ftrack_patch_delete(t, path);
		sbuf_adds(&out, d);
		free(d);
	}
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	if (t->ev != FTRACK_NO_EV) {
		sbuf_free(&out);
		return NULL;
	}
	return sbuf_detach(&out);
}

/* ---- versions ---------------------------------------------------------- */

int ftrack_is_solution(const char *path)
{
	const char *base = strrchr(path, '/');
	return util_starts_with(base ? base + 1 : path, "solution.");
}

static void ftrack_make_order(const struct ftrack *t)
{
	struct ftrack *w = (struct ftrack *)t; /* a cache: logically const */
	size_t k = 0;
	if (t->order)
		return;
	w->order = xmalloc((t->n ? t->n : 1) * sizeof *t->order);
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < t->n; i++)
			if (t->v[i].written && ftrack_is_solution(t->v[i].path) == !pass)
				w->order[k++] = i;
	w->norder = k;
}

size_t ftrack_nfiles(const struct ftrack *t)
{
	if (!t)
		return 0;
	ftrack_make_order(t);
	return t->norder;
}

const char *ftrack_file_path(const struct ftrack *t, size_t f)
{
	if (f >= ftrack_nfiles(t))
		return NULL;
	return t->v[t->order[f]].path;
}

const char *ftrack_file_at(const struct ftrack *t, size_t f, size_t ev, long *changed_at)
{
	const struct ftrack_file *x;
	size_t lo = 0, hi;

	if (changed_at)
		*changed_at = -1;
	if (f >= ftrack_nfiles(t))
		return NULL;
	x = &t->v[t->order[f]];
	/* the last version made at or before ev */
	hi = x->nh;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->hist[mid].ev <= ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	if (changed_at)
		*changed_at = x->hist[lo - 1].ev == FTRACK_NO_EV ? -1 : (long)x->hist[lo - 1].ev;
	return ftext_str(x->hist[lo - 1].t);
}

size_t ftrack_file_nversions(const struct ftrack *t, size_t f)
{
	return f < ftrack_nfiles(t) ? t->v[t->order[f]].nh : 0;
}

const char *ftrack_file_version(const struct ftrack *t, size_t f, size_t k, long *ev)
{
	if (ev)
		*ev = -1;
	if (k >= ftrack_file_nversions(t, f))
		return NULL;
	const struct fver *h = &t->v[t->order[f]].hist[k];
	if (ev)
		*ev = h->ev == FTRACK_NO_EV ? -1 : (long)h->ev;
	return ftext_str(h->t);
}

const char *ftrack_doubt_text(enum ftrack_doubt why)
{
	switch (why) {
	case FTRACK_CUT:
		return "write was cut";
	case FTRACK_EDIT_MISSED:
		return "edit did not apply";
	case FTRACK_PATCH_MISSED:
		return "patch did not apply";
	default:
		return "";
	}
}

enum ftrack_doubt ftrack_file_doubt(const struct ftrack *t, size_t f, size_t ev, ftrack_failed_fn failed,
                                    const void *arg, long *since)
{
	enum ftrack_doubt state = FTRACK_SURE;
	if (since)
		*since = -1;
	if (f >= ftrack_nfiles(t))
		return FTRACK_SURE;
	const struct ftrack_file *x = &t->v[t->order[f]];
	for (size_t k = 0; k < x->nd && x->doubts[k].ev <= ev; k++) {
		const struct fdoubt *d = &x->doubts[k];
		if (d->why == FTRACK_SURE) {
			state = FTRACK_SURE;
			if (since)
				*since = -1;
			continue;
		}
		/* a change that failed in the run left the file as it was: known */
		if (d->why != FTRACK_CUT && failed && failed(arg, d->ev))
			continue;
		if (state == FTRACK_SURE) {
			state = d->why;
			if (since)
				*since = (long)d->ev;
		}
	}
	return state;
}
