/* taint.c: which measurements were made under an edited grading file. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "benchlog.h"
#include "ftrack.h"
#include "noise.h"
#include "run.h"
#include "runstats.h"
#include "taint.h"
#include "util.h"

/* The files the grade is made of: the check, the benchmark, the
 * reference it compares with, and where tolerances and shapes live. */
static const char *const taint_graders[] = {
	"check.py", "benchmark.py", "reference.py", "correctness.py", "shapes.py", "shapes.json",
	"problem.yaml", NULL,
};

#define TAINT_NG (sizeof taint_graders / sizeof taint_graders[0] - 1)
#define TAINT_RING 32

static const char *taint_base(const char *path, size_t len)
{
	for (int i = 0; taint_graders[i]; i++) {
		size_t n = strlen(taint_graders[i]);
		if (len >= n && !strncmp(path + len - n, taint_graders[i], n) &&
		    (len == n || path[len - n - 1] == '/'))
			return taint_graders[i];
	}
	return NULL;
}

int taint_grader_path(const char *path)
{
	return path && taint_base(path, strlen(path)) != NULL;
}

const char *taint_measure_line(const char *text, size_t *len, int *line)
{
	int ln = 1;
	for (const char *p = text; p && *p; ln++) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		switch (benchlog_classify(p, n, NULL)) {
		case BL_VARIANT: case BL_SHAPE_PEAK: case BL_PEAK: case BL_RESULT: case BL_PASS: case BL_FAIL:
		case BL_HTIME:
			if (len)
				*len = n;
			if (line)
				*line = ln;
			return p;
		default:
			break;
		}
		p = e ? e + 1 : p + n;
	}
	return NULL;
}

int taint_is_measurement(const char *text)
{
	return taint_measure_line(text, NULL, NULL) != NULL;
}

/* The grading file a shell command names as a word (its path's last part),
 * NULL when none. */
static const char *taint_named(const char *cmd, const char **at)
{
	for (const char *p = cmd; *p; p++) {
		for (int i = 0; taint_graders[i]; i++) {
			size_t n = strlen(taint_graders[i]);
			if (strncmp(p, taint_graders[i], n) || (p > cmd && !strchr(" \t/'\"=>", p[-1])))
				continue;
			if (p[n] && !strchr(" \t\n;|&'\")", p[n]))
				continue;
			*at = p;
			return taint_graders[i];
		}
	}
	return NULL;
}

/* A shell command that puts a grading file back: git checkout / restore /
 * stash, or a copy from FILE.bak / FILE.orig. */
static int taint_shell_restores(const char *cmd, const char *file)
{
	if (strstr(cmd, "git checkout") || strstr(cmd, "git restore") || strstr(cmd, "git stash"))
		return 1;
	char *bak = xasprintf("%s.bak", file), *orig = xasprintf("%s.orig", file);
	int r = (strstr(cmd, "cp ") || strstr(cmd, "mv ")) && (strstr(cmd, bak) || strstr(cmd, orig));
	free(bak);
	free(orig);
	return r;
}

/* Whether key occurs before at in cmd with none of stops between them:
 * the name at is an argument of that command. */
static int taint_before(const char *cmd, const char *at, const char *key, const char *stops)
{
	for (const char *k = strstr(cmd, key); k && k < at; k = strstr(k + 1, key)) {
		const char *p = k + strlen(key);
		while (p < at && !strchr(stops, *p))
			p++;
		if (p >= at)
			return 1;
	}
	return 0;
}

/* A shell command that writes the grading file it names: redirected into,
 * sed -i, tee, the target of cp or mv, a patch; running it (python
 * check.py) or reading it is no edit. */
static int taint_shell_writes(const char *cmd, const char *at)
{
	if (noise_command_reads(cmd))
		return 0;
	const char *q = at;
	while (q > cmd && strchr(" \t'\"", q[-1]))
		q--;
	while (q > cmd && !strchr(" \t'\"", q[-1]) && q[-1] != '>')
		q--;   /* the path before the name */
	while (q > cmd && (q[-1] == ' ' || q[-1] == '\t'))
		q--;
	if (q > cmd && q[-1] == '>')
		return 1;
	static const char *const writers[] = { "sed -i", "sed --in", "perl -i", "perl -pi", "tee ",
		"*** Update File", "*** Add File", NULL };
	for (int k = 0; writers[k]; k++)
		if (taint_before(cmd, at, writers[k], ";|&\n"))
			return 1;
	/* cp/mv SRC DST: the name is the last word */
	if (taint_before(cmd, at, "cp ", ";|&\n") || taint_before(cmd, at, "mv ", ";|&\n")) {
		const char *end = at + strcspn(at, " \t\n;|&'\")");
		end += strspn(end, "'\" \t");
		return !*end || strchr(";|&\n)", *end);
	}
	return 0;
}

/* The index of path among the run's files, -1 when not tracked. */
static long taint_ftrack_file(const struct ftrack *ft, const char *path)
{
	for (size_t f = 0; f < ftrack_nfiles(ft); f++)
		if (!strcmp(ftrack_file_path(ft, f), path))
			return (long)f;
	return -1;
}

/* Event i's effect on the grading files: 1 an edit, -1 a restore (a shell
 * command that puts the file back), 0 none; *file the file's name. */
static int taint_effect(struct run *r, size_t i, const char **file)
{
	const struct event *e = &r->ev[i];
	if (e->kind != EV_TOOL_CALL)
		return 0;
	if (e->link >= 0 && (size_t)e->link < r->nev && r->ev[e->link].is_error)
		return 0;  /* the change did not happen */
	if (e->path && (*file = taint_base(e->path, strlen(e->path))))
		return run_event_diff(r, i) ? 1 : 0;
	int named = 0;  /* most calls name no grading file: their arguments are not parsed */
	for (int g = 0; e->args && taint_graders[g] && !named; g++)
		named = strstr(e->args, taint_graders[g]) != NULL;
	if (!named)
		return 0;
	char *cmd = runstats_command(e);
	int effect = 0;
	const char *at = NULL;
	if (cmd && (*file = taint_named(cmd, &at)))
		effect = taint_shell_restores(cmd, *file) ? -1 : taint_shell_writes(cmd, at) ? 1 : 0;
	free(cmd);
	return effect;
}

/* One grading file while edited: the edit that began it, and the text it
 * had before (to know it restored when a later version equals it). */
struct taint_open {
	long since;              /* -1: clean */
	const char *before;      /* borrowed from the run's file versions; NULL unknown */
	char *added, *removed;   /* the first edit's lines (owned), for a file whose text is unknown */
};

/* The lines a diff adds (sign '+') or removes ('-'), without the sign and
 * the headers. Owned. */
static char *taint_diff_side(const char *d, char sign)
{
	struct sbuf b;
	sbuf_init(&b);
	for (const char *p = d; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (*p == sign && !(n >= 3 && p[1] == sign && p[2] == sign)) {
			sbuf_add(&b, p + 1, n - 1);
			sbuf_addc(&b, '\n');
		}
		p = nl ? nl + 1 : p + n;
	}
	return b.s ? sbuf_detach(&b) : xstrdup("");
}

static void taint_open_clear(struct taint_open *o)
{
	free(o->added);
	free(o->removed);
	*o = (struct taint_open){ -1, NULL, NULL, NULL };
}

static void taint_open_copy(struct taint_open *to, const struct taint_open *from)
{
	taint_open_clear(to);
	*to = *from;
	to->added = from->added ? xstrdup(from->added) : NULL;
	to->removed = from->removed ? xstrdup(from->removed) : NULL;
}

struct taint {
	size_t nev;              /* events done */
	long *by;                /* per event: the edit tainting this measurement, -1 */
	const char **file;       /* per event: the grading file it edits or restores (static names) */
	size_t cap;
	struct taint_open open[TAINT_NG];   /* after the events done */
	/* the state before each of the last TAINT_RING events done: a growing
	 * run reads its last event again, and a new result sends it back to
	 * its call (parallel calls: several events back) */
	struct taint_open ring[TAINT_RING][TAINT_NG];
	long ring_ev[TAINT_RING];           /* the event slot k is before; -1 none */
	size_t count;
};

/* A write or edit at event i that puts the file back: its text is the one
 * before the first edit, or (text unknown) it undoes that edit's lines. */
static int taint_restored(struct run *r, const struct ftrack *ft, size_t i, const struct taint_open *o)
{
	const struct event *e = &r->ev[i];
	long f = e->path && o->before ? taint_ftrack_file(ft, e->path) : -1;
	const char *now = f >= 0 ? ftrack_file_at(ft, (size_t)f, i, NULL) : NULL;
	if (now)
		return !strcmp(now, o->before);
	const char *d = run_event_diff(r, i);
	if (!d || !o->added)
		return 0;
	char *add = taint_diff_side(d, '+'), *rem = taint_diff_side(d, '-');
	int back = !strcmp(add, o->removed) && !strcmp(rem, o->added);
	free(add);
	free(rem);
	return back;
}

/* Event i's taint: what it edits or restores, and whether it is a
 * measurement made under an open edit. */
static void taint_step(struct taint *t, struct run *r, const struct ftrack *ft, size_t i)
{
	const struct event *e = &r->ev[i];
	const char *file = NULL;
	int eff = taint_effect(r, i, &file);
	t->by[i] = -1;
	t->file[i] = NULL;
	if (eff && file) {
		size_t g = 0;
		while (g < TAINT_NG && strcmp(taint_graders[g], file))
			g++;
		struct taint_open *o = &t->open[g];
		t->file[i] = taint_graders[g];
		if (eff < 0 || (o->since >= 0 && taint_restored(r, ft, i, o))) {
			taint_open_clear(o);
		} else if (o->since < 0) {
			long f = e->path ? taint_ftrack_file(ft, e->path) : -1;
			const char *d = e->path ? run_event_diff(r, i) : NULL;
			o->since = (long)i;
			o->before = f >= 0 && i > 0 ? ftrack_file_at(ft, (size_t)f, i - 1, NULL) : NULL;
			o->added = d ? taint_diff_side(d, '+') : NULL;
			o->removed = d ? taint_diff_side(d, '-') : NULL;
		}
	}
	if (e->kind != EV_TOOL_RESULT || !e->text)
		return;
	long first = -1;
	for (size_t g = 0; g < TAINT_NG; g++)
		if (t->open[g].since >= 0 && (first < 0 || t->open[g].since < first))
			first = t->open[g].since;
	if (first >= 0 && taint_is_measurement(e->text)) {
		t->by[i] = first;
		t->count++;
	}
}

static void taint_reset(struct taint *t)
{
	for (size_t g = 0; g < TAINT_NG; g++)
		taint_open_clear(&t->open[g]);
	for (size_t k = 0; k < TAINT_RING; k++) {
		for (size_t g = 0; g < TAINT_NG; g++)
			taint_open_clear(&t->ring[k][g]);
		t->ring_ev[k] = -1;
	}
	t->nev = 0;
	t->count = 0;
}

struct taint *taint_build(const struct run *r)
{
	struct taint *t = xcalloc(1, sizeof *t);
	for (size_t g = 0; g < TAINT_NG; g++) {
		t->open[g] = (struct taint_open){ -1, NULL, NULL, NULL };
		for (size_t k = 0; k < TAINT_RING; k++)
			t->ring[k][g] = t->open[g];
	}
	for (size_t k = 0; k < TAINT_RING; k++)
		t->ring_ev[k] = -1;
	taint_update(t, r, 0);
	return t;
}

void taint_update(struct taint *t, const struct run *cr, size_t from)
{
	/* run_files builds the run's file versions on first use: a cache, not a change */
	struct run *r = (struct run *)cr;
	const struct ftrack *ft = run_files(r);
	/* a new result decides whether its call's edit happened (a failed one
	 * did not): the call is read again too */
	for (size_t i = from; i < r->nev; i++) {
		int c = r->ev[i].link;
		if (r->ev[i].kind == EV_TOOL_RESULT && c >= 0 && (size_t)c < from)
			from = (size_t)c;
	}
	const long *slot = &t->ring_ev[from % TAINT_RING];
	if (from < t->nev && *slot == (long)from && from < r->nev) {
		/* back a few events: the state before `from`, kept */
		for (size_t i = from; i < t->nev; i++)
			t->count -= t->by[i] >= 0;
		for (size_t g = 0; g < TAINT_NG; g++)
			taint_open_copy(&t->open[g], &t->ring[from % TAINT_RING][g]);
		for (size_t k = 0; k < TAINT_RING; k++)  /* those after it saw events that changed */
			if (t->ring_ev[k] > (long)from)
				t->ring_ev[k] = -1;
		t->nev = from;
	} else if (from < t->nev || r->nev < t->nev) {
		taint_reset(t);
	}
	if (r->nev + 1 > t->cap) {
		t->by = xgrow(t->by, &t->cap, r->nev + 1, sizeof *t->by);
		t->file = xrealloc(t->file, t->cap * sizeof *t->file);
	}
	for (size_t i = t->nev; i < r->nev; i++) {
		if (i + TAINT_RING >= r->nev) {  /* only the last few: a full read copies nothing more */
			for (size_t g = 0; g < TAINT_NG; g++)
				taint_open_copy(&t->ring[i % TAINT_RING][g], &t->open[g]);
			t->ring_ev[i % TAINT_RING] = (long)i;
		}
		taint_step(t, r, ft, i);
	}
	t->nev = r->nev;
}

void taint_free(struct taint *t)
{
	if (!t)
		return;
	taint_reset(t);
	free(t->by);
	free(t->file);
	free(t);
}

long taint_at(const struct taint *t, size_t i)
{
	return t && i < t->nev ? t->by[i] : -1;
}

const char *taint_file(const struct taint *t, size_t ev)
{
	return t && ev < t->nev && t->file[ev] ? t->file[ev] : "";
}

size_t taint_count(const struct taint *t)
{
	return t ? t->count : 0;
}

char *taint_note(const struct taint *t, size_t i)
{
	long by = taint_at(t, i);
	if (by < 0)
		return NULL;
	return xasprintf("tainted: %s edited at event %ld, not restored", taint_file(t, (size_t)by), by + 1);
}
