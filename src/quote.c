/* quote.c: an annotation's quotes, and the event that wrote each one's
 * lines: file versions first (src/ftrack.h), the events' text after. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "annot.h"
#include "flags.h"
#include "ftrack.h"
#include "quote.h"
#include "run.h"
#include "util.h"

static const struct ynode *quote_map_get(const struct ynode *m, const char *key)
{
	if (!m || m->kind != YN_MAP)
		return NULL;
	for (size_t i = 0; i + 1 < m->n; i += 2)
		if (m->items[i]->kind == YN_SCALAR && !strcmp(m->items[i]->value, key))
			return m->items[i + 1];
	return NULL;
}

static const char *quote_scalar(const struct ynode *m, const char *key)
{
	const struct ynode *v = quote_map_get(m, key);
	return v && v->kind == YN_SCALAR ? (v->shown ? v->shown : v->value) : NULL;
}

struct quote *quote_list(const struct annot *a, size_t *n)
{
	const struct ynode *seq = a ? quote_map_get(a->root, "quotes") : NULL;
	*n = 0;
	if (!seq || seq->kind != YN_SEQ || !seq->n)
		return NULL;
	struct quote *q = xcalloc(seq->n, sizeof *q);
	for (size_t i = 0; i < seq->n; i++) {
		const struct ynode *m = seq->items[i];
		if (m->kind != YN_MAP)
			continue;
		struct quote *o = &q[(*n)++];
		o->file = quote_scalar(m, "file");
		o->label = quote_scalar(m, "label");
		o->text = quote_scalar(m, "text");
		o->line = m->line;
		const struct ynode *l = quote_map_get(m, "lines");
		if (l && l->kind == YN_SEQ && (l->n == 1 || l->n == 2) && l->items[0]->kind == YN_SCALAR &&
		    l->items[l->n - 1]->kind == YN_SCALAR) {
			o->nlines = (int)l->n;
			o->start = atoi(l->items[0]->value);
			o->end = atoi(l->items[l->n - 1]->value);
		}
	}
	return q;
}

char *quote_where(const struct quote *q)
{
	char lines[48] = "";
	if (q->nlines == 2)
		snprintf(lines, sizeof lines, "[%d-%d]", q->start, q->end);
	else if (q->nlines == 1)
		snprintf(lines, sizeof lines, "[%d]", q->start);
	if (!q->file)
		return xstrdup(*lines ? lines : "(no file)");
	return xasprintf("%s%s%s", q->file, *lines ? " " : "", lines);
}

/* ---- matching lines ---------------------------------------------------------- */

struct qline {
	const char *s;
	size_t n;
};

static int quote_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* The line at p (up to end or '\n') without its blanks; *next: after it. */
static struct qline quote_line(const char *p, const char *end, const char **next)
{
	const char *e = memchr(p, '\n', (size_t)(end - p));
	*next = e ? e + 1 : end;
	if (!e)
		e = end;
	while (p < e && quote_blank((unsigned char)*p))
		p++;
	while (e > p && quote_blank((unsigned char)e[-1]))
		e--;
	return (struct qline){ p, (size_t)(e - p) };
}

/* q's lines, blank ones at its ends left out; *n lines (owned array). */
static struct qline *quote_split(const char *q, size_t *n)
{
	size_t cap = 8;
	struct qline *v = xmalloc(cap * sizeof *v);
	const char *end = q + strlen(q), *p = q;
	*n = 0;
	while (p < end) {
		struct qline l = quote_line(p, end, &p);
		if (!l.n && !*n)
			continue;
		if (*n == cap)
			v = xrealloc(v, (cap *= 2) * sizeof *v);
		v[(*n)++] = l;
	}
	while (*n && !v[*n - 1].n)
		(*n)--;
	return v;
}

static int quote_eq(struct qline a, struct qline b)
{
	return a.n == b.n && !memcmp(a.s, b.s, a.n);
}

static int quote_in_lines(const char *hay, size_t len, const struct qline *q, size_t nq)
{
	const char *end = hay + len, *p = hay;
	if (!nq)
		return 0;
	while (p < end) {
		const char *next;
		struct qline l = quote_line(p, end, &next);
		if (quote_eq(l, q[0])) {
			const char *r = next;
			size_t k = 1;
			for (; k < nq && r < end; k++)
				if (!quote_eq(quote_line(r, end, &r), q[k]))
					break;
			if (k == nq)
				return 1;
		}
		p = next;
	}
	return 0;
}

int quote_in(const char *hay, size_t len, const char *q)
{
	size_t nq;
	struct qline *v = quote_split(q, &nq);
	int in = hay && quote_in_lines(hay, len, v, nq);
	free(v);
	return in;
}

/* ---- the event that wrote them ------------------------------------------------- */

/* Whether the run's path names the quote's file: the same, or ending in
 * "/file". */
static int quote_path_is(const char *path, const char *file)
{
	size_t pn = strlen(path), fn = strlen(file);
	if (!strcmp(path, file))
		return 1;
	return pn > fn && path[pn - fn - 1] == '/' && !strcmp(path + pn - fn, file);
}

/* The first version of a file (named file, or any when none is) holding
 * the lines: its event, -1 when none. */
static long quote_in_files(const struct ftrack *t, const char *file, const struct qline *q, size_t nq,
                           const char **path)
{
	size_t nf = ftrack_nfiles(t);
	int named = 0;
	for (size_t f = 0; file && f < nf; f++)
		named |= quote_path_is(ftrack_file_path(t, f), file);
	long best = -1;
	for (size_t f = 0; f < nf; f++) {
		if (named && !quote_path_is(ftrack_file_path(t, f), file))
			continue;
		size_t nv = ftrack_file_nversions(t, f);
		for (size_t k = 0; k < nv; k++) {
			long ev;
			const char *s = ftrack_file_version(t, f, k, &ev);
			if (ev < 0 || !s || (best >= 0 && ev >= best))
				continue;
			if (quote_in_lines(s, strlen(s), q, nq)) {
				best = ev;
				*path = ftrack_file_path(t, f);
				break;  /* versions are in order: a later one is later */
			}
		}
	}
	return best;
}

struct quote_walk {
	const struct qline *q;
	size_t nq;
};

static int quote_field(void *ud, const struct flag_field *f)
{
	const struct quote_walk *w = ud;
	return f->where != FW_PATH && quote_in_lines(f->s, f->len, w->q, w->nq);
}

enum quote_how quote_find(struct run *r, const char *file, const char *text, struct quote_src *out)
{
	size_t nq;
	struct qline *q = quote_split(text ? text : "", &nq);
	out->how = QUOTE_NONE;
	out->ev = -1;
	out->path = NULL;
	if (nq) {
		long ev = quote_in_files(run_files(r), file, q, nq, &out->path);
		if (ev >= 0) {
			out->how = QUOTE_FILE;
			out->ev = ev;
		}
	}
	struct quote_walk w = { q, nq };
	for (size_t i = 0; nq && out->how == QUOTE_NONE && i < r->nev; i++)
		if (flag_fields(r, i, quote_field, &w)) {
			out->how = QUOTE_EVENT;
			out->ev = (long)i;
		}
	free(q);
	return out->how;
}

/* ---- a quote of the transcript ------------------------------------------------ */

/* Whether file names the run's transcript: "transcript.jsonl" as the
 * schema says, or the file the run was read from. */
static int quote_is_transcript(const struct run *r, const char *file)
{
	if (!file)
		return 0;
	if (!strcmp(file, "transcript.jsonl"))
		return 1;
	return r->source && quote_path_is(r->source, file);
}

enum quote_how quote_map(struct run *r, const struct quote *q, struct quote_src *out, const char **why)
{
	*why = NULL;
	out->how = QUOTE_NONE;
	out->ev = -1;
	out->path = NULL;
	if (quote_is_transcript(r, q->file) && q->nlines && q->start >= 1) {
		for (size_t i = 0; i < r->nev; i++)
			if (r->ev[i].line >= q->start && r->ev[i].line <= q->end) {
				out->how = QUOTE_LINE;
				out->ev = (long)i;
				return out->how;
			}
	}
	if (!q->text || !*q->text) {
		*why = "the quote has no text to find";
		return QUOTE_NONE;
	}
	if (quote_find(r, q->file, q->text, out) != QUOTE_NONE)
		return out->how;
	if (quote_is_transcript(r, q->file) && q->nlines)
		*why = q->start < 1 ? "its transcript lines are not 1-based and its text is in no event"
		                    : "no event comes from the transcript lines it cites and its text is in no event";
	else if (q->file && (quote_path_is(q->file, "check.log") || quote_path_is(q->file, "stderr.log")))
		*why = "the eval's log, which no event of the run wrote, and its text is in no event";
	else if (q->nlines && q->start < 1)
		*why = "its lines are not 1-based and its text is in no file the run wrote and no event";
	else
		*why = "its text is in no version of a file the run wrote and in no event";
	return QUOTE_NONE;
}

/* ---- a quote of an event as the replay decodes it ------------------------------- */

static int quote_gather(void *ud, const struct flag_field *f)
{
	struct sbuf *b = ud;
	if ((f->where & (FW_PATH | FW_WRITE_PATH | FW_DIFF)) || !f->len)
		return 0;
	if (b->len && b->s[b->len - 1] != '\n')
		sbuf_addc(b, '\n');
	sbuf_add(b, f->s, f->len);
	return 0;
}

char *quote_event_text(const struct run *r, size_t i)
{
	struct sbuf b;
	sbuf_init(&b);
	if (i < r->nev)
		flag_fields(r, i, quote_gather, &b);
	if (b.len && b.s[b.len - 1] != '\n')
		sbuf_addc(&b, '\n');
	return b.len ? sbuf_detach(&b) : (sbuf_free(&b), xstrdup(""));
}
