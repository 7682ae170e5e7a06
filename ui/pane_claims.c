/* pane_claims.c: the claims ledger (src/claims.h): each claim the agent's
 * messages make (a speedup, a peak_fraction, TFLOPS, "all tests pass")
 * beside what the tool results had measured by then, contradicted ones
 * marked. j/k select a claim; Enter goes to its message. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "claims.h"
#include "draw.h"
#include "pane.h"
#include "run.h"
#include "theme.h"
#include "util.h"

struct pane_claims {
	/* the claims as the run is read: a growing run (a big file read
	 * between keys, watch, live) adds its new events' claims; the whole
	 * run read again at each slice made reading quadratic */
	struct claims_state *st;  /* NULL: not made yet (the first draw makes it) */
	size_t cur;
};

static void pane_claims_init(struct pane *p, struct pane_ctx *cx)
{
	(void)cx;
	p->state = xcalloc(1, sizeof(struct pane_claims));
}

static void pane_claims_free(struct pane *p)
{
	struct pane_claims *s = p->state;
	if (!s)
		return;
	claims_state_free(s->st);
	free(s);
	p->state = NULL;
}

static const struct claims *pane_claims_make(struct pane_claims *s, struct pane_ctx *cx)
{
	if (!s->st) {
		s->st = claims_state_new();
		claims_state_update(s->st, cx->run, 0);
	}
	const struct claims *c = claims_state_get(s->st);
	if (s->cur >= c->n)
		s->cur = 0;
	return c;
}

static int pane_claims_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	struct pane_claims *s = p->state;
	if (s->st)
		claims_state_update(s->st, cx->run, from);
	return 0;
}

static void pane_claims_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_claims *s = p->state;
	struct tlines *L = &p->lines;
	const struct claims *c = pane_claims_make(s, cx);
	if (!c->n) {
		tlines_head(L, RL_DIM, width, "(no claim of a speedup, peak_fraction, TFLOPS or passing tests in the "
		            "agent's messages)");
		return;
	}
	for (size_t k = 0; k < c->n; k++) {
		const struct claim *x = &c->v[k];
		char *line = claims_line(x), *safe = draw_safe(line);
		int role = k == s->cur ? (cx->focus == 1 ? RL_SELECT : RL_SELECT_DIM)
		         : x->verdict < 0 ? RL_FAIL : x->verdict > 0 ? RL_OK : RL_DIM;
		L->ev = x->ev;
		tlines_wrap(L, safe, strlen(safe), role, width);
		free(safe);
		free(line);
	}
	L->ev = TLINE_NO_EVENT;
}

static void pane_claims_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	const struct claims *c = pane_claims_make(p->state, cx);
	snprintf(buf, n, " claims  %zu, %zu contradicted", c->n, c->contradicted);
}

static int pane_claims_act(struct pane *p, struct pane_ctx *cx, enum action a)
{
	struct pane_claims *s = p->state;
	const struct claims *c = pane_claims_make(s, cx);
	if ((a == ACT_DOWN || a == ACT_UP) && c->n) {
		if (a == ACT_DOWN && s->cur + 1 < c->n)
			s->cur++;
		else if (a == ACT_UP && s->cur > 0)
			s->cur--;
		pane_invalidate(p);
		return 1;
	}
	if (a == ACT_GOTO_ROW && c->n) {
		cx->host->select(cx, c->v[s->cur].ev);
		return 1;
	}
	return pane_scroll_act(p, cx, a);
}

const struct pane_ops pane_claims_ops = {
	.name = "claims",
	.init = pane_claims_init,
	.free = pane_claims_free,
	.grow = pane_claims_grow,
	.build = pane_claims_build,
	.title = pane_claims_title,
	.act = pane_claims_act,
};
