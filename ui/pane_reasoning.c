/* pane_reasoning.c: the reasoning that led to the selected step: the
 * latest reasoning (thinking) event at or before it. A transcript that
 * kept none says so, with the reasoning tokens its usage events count when
 * they do: a run that thought but did not keep the text is not a run that
 * did not think. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "draw.h"
#include "evstyle.h"
#include "pane.h"
#include "run.h"
#include "theme.h"
#include "util.h"

struct pane_reasoning {
	size_t *ev;    /* the reasoning events, in order */
	size_t n, cap;
	size_t nev;    /* events read */
};

static void pane_reasoning_scan(struct pane_reasoning *r, const struct run *run, size_t from)
{
	for (size_t i = from; i < run->nev; i++) {
		if (run->ev[i].kind != EV_REASONING)
			continue;
		if (r->n == r->cap) {
			r->cap = r->cap ? r->cap * 2 : 16;
			r->ev = xrealloc(r->ev, r->cap * sizeof *r->ev);
		}
		r->ev[r->n++] = i;
	}
	r->nev = run->nev;
}

static void pane_reasoning_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_reasoning *r = xcalloc(1, sizeof *r);
	p->state = r;
	pane_reasoning_scan(r, cx->run, 0);
}

static void pane_reasoning_free(struct pane *p)
{
	struct pane_reasoning *r = p->state;
	if (!r)
		return;
	free(r->ev);
	free(r);
	p->state = NULL;
}

/* Only the events from `from` on read again (the last old one may have
 * grown into reasoning, or out of it). */
static int pane_reasoning_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	struct pane_reasoning *r = p->state;
	while (r->n && r->ev[r->n - 1] >= from)
		r->n--;
	pane_reasoning_scan(r, cx->run, from);
	return 0;  /* built again */
}

/* How many reasoning events are at or before ev (the latest is k - 1). */
static size_t pane_reasoning_upto(const struct pane_reasoning *r, size_t ev)
{
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->ev[mid] <= ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* None at or before the selection: say so, and what the run has instead. */
static void pane_reasoning_none(struct tlines *L, const struct pane_reasoning *r, struct pane_ctx *cx, int width)
{
	long long tokens = 0;
	for (size_t i = 0; i <= cx->sel && i < cx->run->nev; i++)
		tokens += cx->run->ev[i].tok_reasoning > 0 ? cx->run->ev[i].tok_reasoning : 0;
	if (r->n) {
		tlines_head(L, RL_DIM, width, "no reasoning recorded at or before event %zu", cx->sel + 1);
		tlines_head(L, RL_DIM, width, "(the first is at event %zu)", r->ev[0] + 1);
	} else
		tlines_head(L, RL_DIM, width, "no reasoning recorded in this transcript");
	if (tokens > 0) {
		tlines_push(L, "", 0, RL_NORMAL);
		char *s = xasprintf("the usage events count %lld reasoning tokens up to here: the model reasoned, "
		                    "the transcript did not keep the text", tokens);
		tlines_text(L, s, RL_WARN, width, 0, 0);
		free(s);
	}
}

static void pane_reasoning_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_reasoning *r = p->state;
	struct tlines *L = &p->lines;
	L->ev = TLINE_NO_EVENT;
	if (!cx->run->nev) {
		tlines_head(L, RL_DIM, width, "(no events in this transcript)");
		return;
	}
	size_t k = pane_reasoning_upto(r, cx->sel);
	if (!k) {
		pane_reasoning_none(L, r, cx, width);
		return;
	}
	size_t ev = r->ev[k - 1];
	const struct event *e = &cx->run->ev[ev];
	L->ev = ev;
	if (ev == cx->sel)
		tlines_head(L, RL_DIM, width, "the selected event");
	else
		tlines_head(L, RL_DIM, width, "event %zu, %zu event%s before the selected one", ev + 1, cx->sel - ev,
		            cx->sel - ev == 1 ? "" : "s");
	tlines_push(L, "", 0, RL_NORMAL);
	if (e->redacted && (!e->text || !*e->text))
		tlines_head(L, RL_DIM, width, "(the harness hid this reasoning: redacted, encrypted or summary only)");
	else if (!e->text || !*e->text)
		tlines_head(L, RL_DIM, width, "(an empty reasoning block)");
	else
		tlines_text(L, e->text, evstyle_role(EV_REASONING), width, 0, 0);
}

static void pane_reasoning_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_reasoning *r = p->state;
	size_t k = cx->run->nev ? pane_reasoning_upto(r, cx->sel) : 0;
	if (k)
		snprintf(buf, n, " reasoning  event %zu%s", r->ev[k - 1] + 1,
		         cx->run->ev[r->ev[k - 1]].redacted ? "  redacted" : "");
	else
		snprintf(buf, n, " reasoning");
}

/* "3/12 blocks  1-20/40": the latest block among the run's, the rows shown. */
static void pane_reasoning_status(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_reasoning *r = p->state;
	size_t k = cx->run->nev ? pane_reasoning_upto(r, cx->sel) : 0;
	size_t last = p->top + (size_t)(p->h > 0 ? p->h : 0);
	if (last > p->lines.n)
		last = p->lines.n;
	snprintf(buf, n, "block %zu/%zu  %zu-%zu/%zu", k, r->n, p->lines.n ? p->top + 1 : 0, last, p->lines.n);
}

static int pane_reasoning_has(struct pane *p, size_t ev)
{
	struct pane_reasoning *r = p->state;
	size_t k = pane_reasoning_upto(r, ev);
	return k && r->ev[k - 1] == ev;
}

const struct pane_ops pane_reasoning_ops = {
	.name = "reasoning",
	.per_event = 1,
	.init = pane_reasoning_init,
	.free = pane_reasoning_free,
	.grow = pane_reasoning_grow,
	.build = pane_reasoning_build,
	.title = pane_reasoning_title,
	.status = pane_reasoning_status,
	.has = pane_reasoning_has,
	.act = pane_scroll_act,
};
