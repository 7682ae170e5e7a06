/* evsig.h: a run's events as one comparable string, for tests that check
 * that split or growing input parses to the same events as whole input. */
#ifndef KB_EVSIG_H
#define KB_EVSIG_H

#include "run.h"
#include "util.h"

static char *evsig(const struct run *r)
{
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		sbuf_addf(&b, "%zu %s sc=%d err=%d red=%d link=%d line=%d ts=%.3f\n", i,
		          ev_kind_name(e->kind), e->sidechain, e->is_error, e->redacted, e->link,
		          e->line, e->ts);
		sbuf_addf(&b, " text=%s\n name=%s\n id=%s\n args=%s\n path=%s\n diff=%s\n parent=%s\n",
		          e->text ? e->text : "-", e->name ? e->name : "-", e->call_id ? e->call_id : "-",
		          e->args ? e->args : "-", e->path ? e->path : "-", run_event_diff(r, i) ? run_event_diff(r, i) : "-",
		          e->parent ? e->parent : "-");
		sbuf_addf(&b, " tok=%lld/%lld/%lld/%lld/%lld\n", e->tok_in, e->tok_out,
		          e->tok_cache_read, e->tok_cache_write, e->tok_reasoning);
	}
	sbuf_addf(&b, "incomplete=%d malformed=%d\n", r->incomplete, r->malformed);
	return sbuf_detach(&b);
}

#endif
