/* parsetest.h: helpers the parser tests share (event kinds in order, the
 * n-th event of a kind, lookups by call id, sniff scores). */
#ifndef KB_PARSETEST_H
#define KB_PARSETEST_H

#include <string.h>
#include "parser.h"
#include "util.h"
#include "jsonx.h"

static __attribute__((unused)) char *kinds(const struct run *r)
{
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < r->nev; i++)
		sbuf_addf(&b, "%s%s", i ? " " : "", ev_kind_name(r->ev[i].kind));
	return sbuf_detach(&b);
}

static __attribute__((unused)) const struct event *nth(const struct run *r, enum ev_kind k, int n)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == k && n-- == 0)
			return &r->ev[i];
	return NULL;
}

static __attribute__((unused)) const struct event *by_id(const struct run *r, enum ev_kind k, const char *id)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == k && r->ev[i].call_id && !strcmp(r->ev[i].call_id, id))
			return &r->ev[i];
	return NULL;
}

/* The diff of e, an event of r (rendered on first use, run_event_diff). */
static __attribute__((unused)) const char *ev_diff(const struct run *r, const struct event *e)
{
	if (e >= r->ev && e < r->ev + r->nev)
		return run_event_diff(r, (size_t)(e - r->ev));
	return e->diff;
}

static __attribute__((unused)) int results_linked(const struct run *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if (e->kind != EV_TOOL_RESULT)
			continue;
		if (e->link < 0 || (size_t)e->link >= r->nev)
			return 0;
		const struct event *c = &r->ev[e->link];
		if (c->kind != EV_TOOL_CALL || (e->call_id && (!c->call_id || strcmp(c->call_id, e->call_id))))
			return 0;
	}
	return 1;
}

static __attribute__((unused)) int score(const char *fmt, const char *line)
{
	cJSON *o = jx_parse(line, strlen(line));
	int s = parser_find(fmt)->sniff(line, strlen(line), o);
	cJSON_Delete(o);
	return s;
}

static __attribute__((unused)) int claimed(const char *path, const char *fmt, int *lines)
{
	size_t m = 0;
	char *buf = util_read_file(path, &m);
	const char *q = buf, *end = buf + m;
	int bad = 0;
	while (buf && q < end) {
		const char *e = memchr(q, '\n', (size_t)(end - q));
		size_t len = e ? (size_t)(e - q) : (size_t)(end - q);
		cJSON *x = jx_parse(q, len);
		if (len) {
			/* a negative score is evidence against the format, not a claim */
			bad += parser_find(fmt)->sniff(q, len, x) > 0;
			(*lines)++;
		}
		cJSON_Delete(x);
		q = e ? e + 1 : end;
	}
	free(buf);
	return bad;
}

#endif
