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

/* What followed row w's version before the next one. */
static void timeline_results(const struct run *r, const struct flag_list *fl, struct compilerlog *cl,
                             const struct taint *tt, struct timeline_row *w)
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
		w->ntainted += taint_at(tt, i) >= 0;
		int v = w->check ? 0 : timeline_verdict(e->text);
		if (v) {
			w->check = v;
			w->check_ev = (long)i;
		}
		double pk = w->peak_ev < 0 ? milestones_text_peak(e->text) : -1;
		if (pk >= 0) {
			w->peak = pk;
			w->peak_ev = (long)i;
			w->peak_tainted = taint_at(tt, i) >= 0;
			w->peak_over = flagcheck_physics_why(NULL, BL_PEAK, -1, -1, pk) != NULL;
		}
		if (cl) {
			struct compilerlog_report rep = { 0 };
			compilerlog_scan_text(cl, e->text, i, &rep);
			w->compile_errors += rep.count[CL_ERROR];
			compilerlog_report_free(&rep);
		}
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

int timeline_build(struct run *r, const struct flag_list *fl, struct compilerlog *cl, struct timeline *t)
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
	struct taint *tt = taint_build(r);
	for (size_t k = 0; k < t->n; k++) {
		t->rows[k].until = k + 1 < t->n ? t->rows[k + 1].ev : r->nev;
		timeline_results(r, fl, cl, tt, &t->rows[k]);
	}
	taint_free(tt);
	return 0;
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
