/* livestream.c: the turn in flight of a live run (livestream.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "livestream.h"
#include "run.h"

void livestream_init(struct livestream *ls)
{
	memset(ls, 0, sizeof *ls);
	sbuf_init(&ls->reasoning);
	sbuf_init(&ls->text);
}

static void livestream_calls_free(struct livestream *ls)
{
	for (int i = 0; i < ls->ncalls; i++) {
		free(ls->calls[i].name);
		sbuf_free(&ls->calls[i].args);
	}
	free(ls->calls);
	ls->calls = NULL;
	ls->ncalls = 0;
}

void livestream_reset(struct livestream *ls)
{
	sbuf_reset(&ls->reasoning);
	sbuf_reset(&ls->text);
	livestream_calls_free(ls);
	ls->gen++;
}

void livestream_free(struct livestream *ls)
{
	livestream_calls_free(ls);
	sbuf_free(&ls->reasoning);
	sbuf_free(&ls->text);
}

/* The stream's tool call of provider index call, made when new. */
static struct livestream_call *livestream_call_at(struct livestream *ls, int call)
{
	if (call < 0 || call > 255)
		call = 0;
	if (call >= ls->ncalls) {
		ls->calls = xrealloc(ls->calls, (size_t)(call + 1) * sizeof *ls->calls);
		for (int i = ls->ncalls; i <= call; i++) {
			ls->calls[i].name = NULL;
			sbuf_init(&ls->calls[i].args);
		}
		ls->ncalls = call + 1;
	}
	return &ls->calls[call];
}

void livestream_delta(struct livestream *ls, enum llm_delta kind, int call, const char *s, size_t n)
{
	struct livestream_call *c;
	switch (kind) {
	case LLM_D_TEXT: sbuf_add(&ls->text, s, n); break;
	case LLM_D_REASONING: sbuf_add(&ls->reasoning, s, n); break;
	case LLM_D_TOOL:
		c = livestream_call_at(ls, call);
		free(c->name);
		c->name = xstrndup(s, n);
		break;
	case LLM_D_TOOL_ARGS: sbuf_add(&livestream_call_at(ls, call)->args, s, n); break;
	}
	ls->gen++;
}

void livestream_recorded(struct livestream *ls, const char *kind)
{
	if (!strcmp(kind, "reasoning")) {
		sbuf_reset(&ls->reasoning);
	} else if (!strcmp(kind, "text")) {
		sbuf_reset(&ls->text);
	} else if (!strcmp(kind, "tool_call") && ls->ncalls) {
		/* the first streamed call is the one recorded */
		free(ls->calls[0].name);
		sbuf_free(&ls->calls[0].args);
		memmove(ls->calls, ls->calls + 1, (size_t)(ls->ncalls - 1) * sizeof *ls->calls);
		ls->ncalls--;
	} else if (!strcmp(kind, "retry") || !strcmp(kind, "error") || !strcmp(kind, "result")) {
		livestream_reset(ls);  /* a dropped stream starts over */
	}
	ls->gen++;
}

static void livestream_event(struct event *e, enum ev_kind k, const char *name, const char *text, const char *secret,
                             double ts)
{
	memset(e, 0, sizeof *e);
	e->kind = k;
	e->link = -1;
	e->ts = ts;
	if (k == EV_TOOL_CALL) {
		e->name = xstrdup(name ? name : "");
		e->args = llm_scrub(xstrdup(text), secret);
	} else {
		e->text = llm_scrub(xstrdup(text), secret);
	}
}

size_t livestream_events(const struct livestream *ls, const char *secret, double ts, struct event **out)
{
	size_t n = 0;
	struct event *ev = xcalloc((size_t)ls->ncalls + 2, sizeof *ev);
	if (ls->reasoning.len)
		livestream_event(&ev[n++], EV_REASONING, NULL, ls->reasoning.s, secret, ts);
	if (ls->text.len)
		livestream_event(&ev[n++], EV_TEXT, NULL, ls->text.s, secret, ts);
	for (int i = 0; i < ls->ncalls; i++)
		livestream_event(&ev[n++], EV_TOOL_CALL, ls->calls[i].name,
		                 ls->calls[i].args.len ? ls->calls[i].args.s : "", secret, ts);
	*out = ev;
	return n;
}

void livestream_events_free(struct event *ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_event_free(&ev[i]);
	free(ev);
}
