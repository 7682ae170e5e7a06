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
	struct claims c;
	int made;
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
	claims_free(&s->c);
	free(s);
	p->state = NULL;
}

static void pane_claims_make(struct pane_claims *s, struct pane_ctx *cx)
{
	if (s->made)
		return;
	claims_build(cx->run, &s->c);
	s->made = 1;
	if (s->cur >= s->c.n)
		s->cur = 0;
}

/* The run grew: the ledger is made again at the next build. */
static int pane_claims_grow(struct pane *p, struct pane_ctx *cx, size_t from)
{
	struct pane_claims *s = p->state;
	(void)cx;
	(void)from;
	claims_free(&s->c);
	s->made = 0;
	return 0;
}

static void pane_claims_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_claims *s = p->state;
	struct tlines *L = &p->lines;
	pane_claims_make(s, cx);
	if (!s->c.n) {
		tlines_head(L, RL_DIM, width, "(no claim of a speedup, peak_fraction, TFLOPS or passing tests in the "
		            "agent's messages)");
		return;
	}
	for (size_t k = 0; k < s->c.n; k++) {
		const struct claim *x = &s->c.v[k];
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
	struct pane_claims *s = p->state;
	pane_claims_make(s, cx);
	snprintf(buf, n, " claims  %zu, %zu contradicted", s->c.n, s->c.contradicted);
}

static int pane_claims_act(struct pane *p, struct pane_ctx *cx, enum action a)
{
	struct pane_claims *s = p->state;
	pane_claims_make(s, cx);
	if ((a == ACT_DOWN || a == ACT_UP) && s->c.n) {
		if (a == ACT_DOWN && s->cur + 1 < s->c.n)
			s->cur++;
		else if (a == ACT_UP && s->cur > 0)
			s->cur--;
		pane_invalidate(p);
		return 1;
	}
	if (a == ACT_GOTO_ROW && s->c.n) {
		cx->host->select(cx, s->c.v[s->cur].ev);
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
