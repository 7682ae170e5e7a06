/* run.c: the transcript model: events appended by parsers, linked, counted. */
#include "run.h"
#include "strmap.h"
#include "textsafe.h"
#include "ftrack.h"
#include "textsafe.h"
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ev_names[EV__COUNT] = {
	[EV_SYSTEM] = "system",
	[EV_USER] = "user",
	[EV_REASONING] = "reasoning",
	[EV_TEXT] = "text",
	[EV_TOOL_CALL] = "tool_call",
	[EV_TOOL_RESULT] = "tool_result",
	[EV_USAGE] = "usage",
	[EV_COMPACTION] = "compaction",
	[EV_ERROR] = "error",
};

const char *ev_kind_name(enum ev_kind k)
{
	return (unsigned)k < EV__COUNT ? ev_names[k] : "?";
}

void run_meta_init(struct run_meta *m)
{
	memset(m, 0, sizeof *m);
	m->peak_fraction = -1;
	m->elapsed_seconds = -1;
}

void run_meta_outcome(struct run_meta *to, const struct run_meta *from)
{
	to->has_result = from->has_result;
	to->correct = from->correct;
	to->has_solution = from->has_solution;
	to->session_complete = from->session_complete;
	to->peak_fraction = from->peak_fraction;
	to->elapsed_seconds = from->elapsed_seconds;
}

void run_meta_fill(struct run_meta *to, const struct run_meta *from)
{
	char **dst[] = { &to->run_id, &to->harness, &to->model, &to->effort, &to->problem,
	                 &to->format, &to->session_id, &to->cwd, &to->label };
	char *const src[] = { from->run_id, from->harness, from->model, from->effort, from->problem,
	                      from->format, from->session_id, from->cwd, from->label };
	for (size_t i = 0; i < sizeof dst / sizeof *dst; i++)
		if (src[i] && !*dst[i])
			*dst[i] = xstrdup(src[i]);
	run_meta_outcome(to, from);
}

void run_meta_free(struct run_meta *m)
{
	free(m->run_id);
	free(m->harness);
	free(m->model);
	free(m->effort);
	free(m->problem);
	free(m->format);
	free(m->session_id);
	free(m->cwd);
	free(m->label);
	run_meta_init(m);
}

struct run *run_new(void)
{
	struct run *r = xcalloc(1, sizeof *r);
	run_meta_init(&r->meta);
	return r;
}

void run_event_free(struct event *e)
{
	free(e->text);
	free(e->name);
	free(e->call_id);
	free(e->args);
	free(e->path);
	free(e->diff);
	free(e->parent);
	free(e->summary);
}

void run_event_drop_text(struct event *e)
{
	free(e->text);
	free(e->args);
	free(e->summary);
	free(e->diff);
	e->text = e->args = e->summary = e->diff = NULL;
}

void run_free(struct run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nev; i++)
		run_event_free(&r->ev[i]);
	free(r->ev);
	free(r->source);
	ftrack_free(r->files);
	run_linker_free(r->linker);
	run_meta_free(&r->meta);
	free(r->prov);
	free(r);
}

void run_clear(struct run *r)
{
	for (size_t i = 0; i < r->nev; i++)
		run_event_free(&r->ev[i]);
	r->nev = 0;
	ftrack_free(r->files);
	r->files = NULL;
	run_linker_free(r->linker);
	r->linker = NULL;
	run_meta_free(&r->meta);
	r->incomplete = r->complete_seen = r->malformed = r->nerrors = r->tokens_approx = 0;
}

struct event *run_add(struct run *r, enum ev_kind k, int line)
{
	struct event *e;
	if (r->nev == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->ev = xrealloc(r->ev, r->cap * sizeof *r->ev);
	}
	e = &r->ev[r->nev++];
	memset(e, 0, sizeof *e);
	e->kind = k;
	e->line = line;
	e->link = -1;
	return e;
}

void run_error(struct run *r, int line, const char *fmt, ...)
{
	va_list ap;
	struct run_error *e;

	r->malformed++;
	if (r->nerrors >= RUN_MAX_ERRORS)
		return;
	e = &r->errors[r->nerrors++];
	e->line = line;
	va_start(ap, fmt);
	textsafe_vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	va_end(ap);
	/* messages quote the transcript (record types, names): made visible
	 * here once, for every place that prints them */
	char *safe = textsafe(e->msg, strlen(e->msg), 0);
	snprintf(e->msg, sizeof e->msg, "%s", safe);
	free(safe);
}

/* ---- pairing results with calls ------------------------------------------
 *
 * Each call id has a queue of its unanswered calls (oldest first), kept in
 * an open-addressing table keyed by the id; calls without an id queue on
 * their own. A result takes the head of its id's queue (or of the unkeyed
 * queue): the oldest unanswered call before it, as a backward scan would
 * find, in one probe sequence rather than a scan to event 0. Pairing is a
 * function of the events before each result, so the state is kept and a
 * later run_link goes on from the first event it has not seen (watch polls
 * pay for their new events only). */

/* A call id's queue of unanswered calls: q[0] its head, q[1] its tail
 * (event indices, -1 when empty), the ints a strmap keeps for the id. */
struct run_linker {
	size_t seen;              /* events paired so far */
	int *next;                /* next[i]: the call queued after call i (-1) */
	size_t ncap;
	struct strmap *ids;       /* call id (borrowed from its first call) -> queue */
	int unkeyed[2];           /* the calls without an id */
};

void run_linker_free(struct run_linker *lk)
{
	if (!lk)
		return;
	free(lk->next);
	strmap_free(lk->ids);
	free(lk);
}

static void run_lq_push(struct run_linker *lk, int *q, int i)
{
	lk->next[i] = -1;
	if (q[1] >= 0)
		lk->next[q[1]] = i;
	else
		q[0] = i;
	q[1] = i;
}

static int run_lq_pop(struct run_linker *lk, int *q)
{
	int i = q[0];
	if (i >= 0) {
		q[0] = lk->next[i];
		if (q[0] < 0)
			q[1] = -1;
	}
	return i;
}

static void run_link_one(struct run *r, struct run_linker *lk, size_t i)
{
	struct event *e = &r->ev[i];
	int keyed = e->call_id && *e->call_id;
	int *q;
	if (e->kind == EV_TOOL_CALL) {
		e->link = -1;
		q = keyed ? strmap_put(lk->ids, e->call_id, NULL) : lk->unkeyed;
		run_lq_push(lk, q, (int)i);
	} else if (e->kind == EV_TOOL_RESULT) {
		e->link = -1;
		q = keyed ? strmap_get(lk->ids, e->call_id) : lk->unkeyed;
		int c = q ? run_lq_pop(lk, q) : -1;
		if (c >= 0) {
			e->link = c;
			r->ev[c].link = (int)i;
		}
	}
}

void run_link(struct run *r)
{
	struct run_linker *lk = r->linker;
	if (lk && lk->seen > r->nev) {  /* events went: pair from the start */
		run_linker_free(lk);
		lk = r->linker = NULL;
	}
	if (!lk) {
		lk = r->linker = xcalloc(1, sizeof *lk);
		lk->ids = strmap_new(0);
		lk->unkeyed[0] = lk->unkeyed[1] = -1;
	}
	if (lk->ncap < r->nev) {
		lk->ncap = r->nev > 2 * lk->ncap ? r->nev : 2 * lk->ncap;
		lk->next = xrealloc(lk->next, lk->ncap * sizeof *lk->next);
	}
	for (size_t i = lk->seen; i < r->nev; i++)
		run_link_one(r, lk, i);
	lk->seen = r->nev;
}

void run_link_again(struct run *r)
{
	run_linker_free(r->linker);
	r->linker = NULL;
	run_link(r);
}

size_t run_link_probes(const struct run *r)
{
	return r->linker ? strmap_probes(r->linker->ids) : 0;
}

size_t run_count(const struct run *r, enum ev_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nev; i++)
		n += r->ev[i].kind == k;
	return n;
}

static int run_is_model(const struct event *e)
{
	return e->kind == EV_REASONING || e->kind == EV_TEXT || e->kind == EV_TOOL_CALL;
}

int run_turn_starts(const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	if (!run_is_model(e) || e->sidechain)
		return 0;
	while (i-- > 0) {
		const struct event *p = &r->ev[i];
		if (p->kind == EV_USAGE || p->sidechain)
			continue;
		return !run_is_model(p);
	}
	return 1;
}

size_t run_turns(const struct run *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->nev; i++)
		n += run_turn_starts(r, i);
	return n;
}

void run_tokens(const struct run *r, long long *in, long long *out,
                long long *cache_read, long long *cache_write, long long *reasoning)
{
	long long a = 0, b = 0, c = 0, d = 0, e = 0;
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *ev = &r->ev[i];
		if (ev->kind != EV_USAGE)
			continue;
		a += ev->tok_in;
		b += ev->tok_out;
		c += ev->tok_cache_read;
		d += ev->tok_cache_write;
		e += ev->tok_reasoning;
	}
	if (in) *in = a;
	if (out) *out = b;
	if (cache_read) *cache_read = c;
	if (cache_write) *cache_write = d;
	if (reasoning) *reasoning = e;
}

const char *run_event_diff(const struct run *r, size_t i)
{
	struct event *e;
	if (i >= r->nev)
		return NULL;
	e = (struct event *)&r->ev[i]; /* the diff is a cache, filled once */
	if (!e->diff)
		e->diff = ftrack_diff(r->files, i);
	return e->diff;
}

struct ftrack *run_files(struct run *r)
{
	if (!r->files)
		r->files = ftrack_new();
	return r->files;
}

/* Whether call ev's result says it failed. */
static int run_call_failed(const void *arg, size_t ev)
{
	const struct run *r = arg;
	if (ev >= r->nev || r->ev[ev].link < 0 || (size_t)r->ev[ev].link >= r->nev)
		return 0;
	return r->ev[r->ev[ev].link].is_error;
}

int run_file_doubt(const struct run *r, size_t f, size_t ev, long *since)
{
	if (since)
		*since = -1;
	if (!r->files)
		return FTRACK_SURE;
	return (int)ftrack_file_doubt(r->files, f, ev, run_call_failed, r, since);
}
