/* run.c: the transcript model: events appended by parsers, linked, counted. */
#include "run.h"
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

void run_free(struct run *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nev; i++)
		run_event_free(&r->ev[i]);
	free(r->ev);
	free(r->source);
	ftrack_free(r->files);
	run_meta_free(&r->meta);
	free(r);
}

void run_clear(struct run *r)
{
	for (size_t i = 0; i < r->nev; i++)
		run_event_free(&r->ev[i]);
	r->nev = 0;
	ftrack_free(r->files);
	r->files = NULL;
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

/* Pairing by id through a scan: transcripts hold a few thousand calls, and
 * a result nearly always follows its call closely, so searching backwards
 * from the result is cheap in practice. */
void run_link(struct run *r)
{
	size_t next_unkeyed = 0;

	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_TOOL_CALL || r->ev[i].kind == EV_TOOL_RESULT)
			r->ev[i].link = -1;
	for (size_t i = 0; i < r->nev; i++) {
		struct event *res = &r->ev[i];
		if (res->kind != EV_TOOL_RESULT)
			continue;
		if (res->call_id && *res->call_id) {
			/* the oldest unanswered call with this id */
			long found = -1;
			for (size_t j = i; j-- > 0;) {
				struct event *c = &r->ev[j];
				if (c->kind == EV_TOOL_CALL && c->link < 0 && c->call_id &&
				    strcmp(c->call_id, res->call_id) == 0)
					found = (long)j;
			}
			if (found >= 0) {
				res->link = (int)found;
				r->ev[found].link = (int)i;
			}
			continue;
		}
		for (; next_unkeyed < i; next_unkeyed++) {
			struct event *c = &r->ev[next_unkeyed];
			if (c->kind == EV_TOOL_CALL && c->link < 0 && !(c->call_id && *c->call_id)) {
				res->link = (int)next_unkeyed;
				c->link = (int)i;
				next_unkeyed++;
				break;
			}
		}
	}
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
