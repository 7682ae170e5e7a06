/* pane_shapes.c: the publisher's per-run detail beside the replay: the
 * roofline it measured against, the run's stats (agent, check and
 * benchmark seconds, cost, template mutation, GPU-lock wait), and each
 * benchmark shape's time, TFLOPS, GB/s, fraction, utilisation and bound
 * with a bar of its fraction of the roofline (src/rundetail.h). The file
 * is the run directory's rundetail.json or the dataset's
 * rundetail/<run_id>.json, else kbtui's own eval's result.json beside the
 * transcript, read once when the pane is first shown; the first line says
 * which, and the table. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "pane.h"
#include "run.h"
#include "rundetail.h"
#include "theme.h"
#include "util.h"

struct pane_shapes {
	struct rundetail *d;  /* owned, NULL when none */
	char *why;            /* why there is none (owned) */
};

static void pane_shapes_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_shapes *s = xcalloc(1, sizeof *s);
	const struct run *r = cx->run;
	if (r)
		s->d = rundetail_for_run(r->source, r->meta.run_id, &s->why);
	else
		s->why = xstrdup("No per-shape figures: no run.");
	p->state = s;
}

static void pane_shapes_free(struct pane *p)
{
	struct pane_shapes *s = p->state;
	if (!s)
		return;
	rundetail_free(s->d);
	free(s->why);
	free(s);
	p->state = NULL;
}

/* The rendered text a line at a time: bar rows (they begin with a space)
 * as a plot, the rest as text made safe. */
static void pane_shapes_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_shapes *s = p->state;
	(void)cx;
	tlines_clear(&p->lines);
	if (!s->d) {
		tlines_text(&p->lines, s->why ? s->why : "", RL_DIM, width, 0, 0);
		return;
	}
	struct sbuf b;
	sbuf_init(&b);
	rundetail_render(&b, s->d, width, theme_glyph()->bar[8], theme_glyph()->bar[1]);
	int row = 0;
	for (char *line = b.s, *nl; line && *line; line = nl + 1, row++) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		int role = row == 0 ? RL_DIM : row == 1 ? RL_KEY : line[0] == ' ' ? RL_PLOT
		           : row == 2 && !s->d->own ? RL_NORMAL : RL_TOOL;
		tlines_text(&p->lines, line, role, width, 0, 0);
	}
	sbuf_free(&b);
}

static void pane_shapes_status(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_shapes *s = p->state;
	(void)cx;
	if (s && s->d)
		snprintf(buf, n, "%zu shapes (%s)", s->d->nshapes, s->d->own ? "kbtui eval" : "publisher");
	else if (n)
		buf[0] = '\0';
}

const struct pane_ops pane_shapes_ops = {
	.name = "shapes",
	.init = pane_shapes_init,
	.free = pane_shapes_free,
	.build = pane_shapes_build,
	.status = pane_shapes_status,
	.act = pane_scroll_act,
};
