/* timeline.c: the solution file's versions, and the check, benchmark,
 * compiler and flag results between one version and the next. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "benchlog.h"
#include "compilerlog.h"
#include "diff.h"
#include "flagcheck.h"
#include "flags.h"
#include "ftrack.h"
#include "milestones.h"
#include "run.h"
#include "taint.h"
#include "timeline.h"
#include "util.h"

/* The solution file's index among the run's files, -1 when none: a file
 * named solution.<ext> (ftrack lists it first). */
static long timeline_file(const struct ftrack *t)
{
	size_t nf = ftrack_nfiles(t);
	for (size_t f = 0; f < nf; f++) {
		const char *p = ftrack_file_path(t, f), *b = strrchr(p, '/');
		b = b ? b + 1 : p;
		if (!strncmp(b, "solution.", 9))
			return (long)f;
	}
	return -1;
}

static size_t timeline_count_lines(const char *s)
{
	size_t n = 0;
	const char *p = s;
	for (; p && *p; p++)
		n += *p == '\n';
	return n + (p && p > s && p[-1] != '\n');
}

/* +/- lines of the diff from a to b. */
static void timeline_count_diff(const char *d, size_t *added, size_t *removed);
static void timeline_changed(const char *a, const char *b, size_t *added, size_t *removed)
{
	char *d = diff_unified("f", a, b, 0);
	timeline_count_diff(d, added, removed);
	free(d);
}

/* The check's verdict in one tool output: 1 PASS, -1 FAIL, 0 none. */
static int timeline_verdict(const char *text)
{
	if (milestones_text_pass(text))
		return 1;
	for (const char *p = text; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		struct benchlog_line bl;
		if (benchlog_classify(p, n, &bl) == BL_FAIL)
			return -1;
		p = e ? e + 1 : p + n;
	}
	return 0;
}

/* ---- what a remake reads of each event, kept ----------------------------------
 * A tool result's verdict, peak and compiler errors are functions of its
 * text, read at most once while it stays as it is: a growing run's
 * timeline is made again from these and the flags, not from the text of
 * every result (at 100 MB of real lines, 33k events and 1552 versions:
 * 119 ms a making with the compiler rules, 15 ms from kept facts). */
enum { TF_VERDICT = 1, TF_PEAK = 2, TF_CC = 4 };

struct tl_fact {
	double peak;              /* milestones_text_peak, -1 none */
	unsigned cc;              /* compiler error lines */
	signed char verdict;      /* 1 PASS, -1 FAIL, 0 none */
	unsigned char have;       /* TF_* read so far */
};

struct timeline_facts {
	struct compilerlog *cl;   /* borrowed, may be NULL */
	struct tl_fact *f;        /* one an event of the run, [0, n) */
	size_t n, cap;
	struct taint *tt;         /* the run's taint, NULL before the first make */
	size_t changed;           /* the first event changed since the taint was brought up (SIZE_MAX none) */
};

struct timeline_facts *timeline_facts_new(struct compilerlog *cl)
{
	struct timeline_facts *tf = xcalloc(1, sizeof *tf);
	tf->cl = cl;
	tf->changed = (size_t)-1;
	return tf;
}

void timeline_facts_free(struct timeline_facts *tf)
{
	if (!tf)
		return;
	taint_free(tf->tt);
	free(tf->f);
	free(tf);
}

void timeline_facts_grow(struct timeline_facts *tf, size_t from)
{
	if (from < tf->n)
		tf->n = from;   /* (read again when asked) */
	if (from < tf->changed)
		tf->changed = from;
}

/* The facts of every event of r: the new ones unread, the taint brought up. */
static void tf_follow(struct timeline_facts *tf, const struct run *r)
{
	if (r->nev < tf->n)
		tf->n = r->nev;
	if (r->nev > tf->cap)
		tf->f = xgrow(tf->f, &tf->cap, r->nev, sizeof *tf->f);
	if (r->nev > tf->n)
		memset(tf->f + tf->n, 0, (r->nev - tf->n) * sizeof *tf->f);
	tf->n = r->nev;
	if (!tf->tt)
		tf->tt = taint_build(r);
	else   /* (nothing said changed: the events past the taint's are read) */
		taint_update(tf->tt, r, tf->changed == (size_t)-1 ? r->nev : tf->changed);
	tf->changed = (size_t)-1;
}

static const struct tl_fact *tf_get(struct timeline_facts *tf, const char *text, size_t i, unsigned want)
{
	struct tl_fact *f = &tf->f[i];
	if ((want & TF_VERDICT) && !(f->have & TF_VERDICT))
		f->verdict = (signed char)timeline_verdict(text);
	if ((want & TF_PEAK) && !(f->have & TF_PEAK))
		f->peak = milestones_text_peak(text);
	if ((want & TF_CC) && !(f->have & TF_CC)) {
		struct compilerlog_report rep = { 0 };
		compilerlog_scan_text(tf->cl, text, i, &rep);
		f->cc = (unsigned)rep.count[CL_ERROR];
		compilerlog_report_free(&rep);
	}
	f->have |= (unsigned char)want;
	return f;
}

/* What followed row w's version before the next one. */
static void timeline_results(const struct run *r, const struct flag_list *fl, struct timeline_facts *tf,
                             struct timeline_row *w)
{
	w->check_ev = w->peak_ev = w->flag_ev = -1;
	w->peak = -1;
	for (size_t i = w->ev; i < w->until && i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if (fl && flag_list_find(fl, i)) {
			if (!w->nflags++)
				w->flag_ev = (long)i;
		}
		if (e->kind != EV_TOOL_RESULT || !e->text)
			continue;
		w->ntainted += taint_at(tf->tt, i) >= 0;
		unsigned want = (w->check ? 0 : TF_VERDICT) | (w->peak_ev < 0 ? TF_PEAK : 0) | (tf->cl ? TF_CC : 0);
		const struct tl_fact *f = tf_get(tf, e->text, i, want);
		if ((want & TF_VERDICT) && f->verdict) {
			w->check = f->verdict;
			w->check_ev = (long)i;
		}
		if ((want & TF_PEAK) && f->peak >= 0) {
			w->peak = f->peak;
			w->peak_ev = (long)i;
			w->peak_tainted = taint_at(tf->tt, i) >= 0;
			w->peak_over = flagcheck_physics_why(NULL, BL_PEAK, -1, -1, f->peak) != NULL;
		}
		if (tf->cl)
			w->compile_errors += f->cc;
	}
}

static int timeline_size_cmp(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Whether event i is a successful call that changed path but made no
 * version of it (src/ftrack.h could not apply it); made: the events that
 * made versions, sorted (a run of thousands of versions looked each call
 * up among them all). */
static int timeline_lost(struct run *r, size_t i, const char *path, const size_t *made, size_t nmade)
{
	const struct event *e = &r->ev[i];
	if (e->kind != EV_TOOL_CALL || !e->path || strcmp(e->path, path))
		return 0;
	if (e->link >= 0 && (size_t)e->link < r->nev && r->ev[e->link].is_error)
		return 0;
	if (nmade && bsearch(&i, made, nmade, sizeof *made, timeline_size_cmp))
		return 0;
	const char *d = run_event_diff(r, i);
	return d && *d;
}

/* +/- lines of a unified diff (its headers not counted). */
static void timeline_count_diff(const char *d, size_t *added, size_t *removed)
{
	*added = *removed = 0;
	for (const char *p = d; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (*p == '+' && !(n >= 3 && !strncmp(p, "+++", 3)))
			(*added)++;
		else if (*p == '-' && !(n >= 3 && !strncmp(p, "---", 3)))
			(*removed)++;
		p = e ? e + 1 : p + n;
	}
}

static int timeline_cmp(const void *a, const void *b)
{
	const struct timeline_row *x = a, *y = b;
	return x->ev < y->ev ? -1 : x->ev > y->ev;
}

int timeline_make(struct run *r, const struct flag_list *fl, struct timeline_facts *tf, struct timeline *t)
{
	const struct ftrack *ft = run_files(r);
	long f = timeline_file(ft);
	memset(t, 0, sizeof *t);
	if (f < 0)
		return -1;
	t->path = ftrack_file_path(ft, (size_t)f);
	size_t nv = ftrack_file_nversions(ft, (size_t)f);
	size_t cap = nv + 1;
	t->rows = xcalloc(cap, sizeof *t->rows);
	const char *prev = NULL;
	for (size_t k = 0; k < nv; k++) {
		long ev;
		const char *s = ftrack_file_version(ft, (size_t)f, k, &ev);
		if (ev < 0) {  /* a version seen, not made by an event */
			prev = s;
			continue;
		}
		struct timeline_row *w = &t->rows[t->n++];
		w->ev = (size_t)ev;
		w->deleted = !s;
		w->lines = timeline_count_lines(s);
		timeline_changed(prev, s, &w->added, &w->removed);
		prev = s;
	}
	size_t nver = t->n, *made = xmalloc((nver + 1) * sizeof *made);
	for (size_t k = 0; k < nver; k++)
		made[k] = t->rows[k].ev;
	qsort(made, nver, sizeof *made, timeline_size_cmp);
	for (size_t i = 0; i < r->nev; i++) {
		if (!timeline_lost(r, i, t->path, made, nver))
			continue;
		if (t->n == cap)
			t->rows = xrealloc(t->rows, (cap *= 2) * sizeof *t->rows);
		struct timeline_row *w = &t->rows[t->n++];
		memset(w, 0, sizeof *w);
		w->ev = i;
		w->lost = 1;
		timeline_count_diff(run_event_diff(r, i), &w->added, &w->removed);
	}
	free(made);
	if (t->n > nver)
		qsort(t->rows, t->n, sizeof *t->rows, timeline_cmp);
	tf_follow(tf, r);
	for (size_t k = 0; k < t->n; k++) {
		t->rows[k].until = k + 1 < t->n ? t->rows[k + 1].ev : r->nev;
		timeline_results(r, fl, tf, &t->rows[k]);
	}
	return 0;
}

int timeline_build(struct run *r, const struct flag_list *fl, struct compilerlog *cl, struct timeline *t)
{
	struct timeline_facts *tf = timeline_facts_new(cl);
	int rc = timeline_make(r, fl, tf, t);
	timeline_facts_free(tf);
	return rc;
}

void timeline_free(struct timeline *t)
{
	free(t->rows);
	memset(t, 0, sizeof *t);
}

long timeline_at(const struct timeline *t, size_t ev)
{
	long at = -1;
	for (size_t k = 0; k < t->n && t->rows[k].ev <= ev; k++)
		at = (long)k;
	return at;
}
