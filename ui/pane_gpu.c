/* pane_gpu.c: PLACEHOLDER being written by a helper this session. */
#include "config.h"

#include <stdio.h>

#include "draw.h"
#include "replay.h"
#include "theme.h"

static void pane_gpu_draw(struct pane *p, struct replay *rp, int y, int x, int w, int h)
{
	(void)p; (void)rp;
	for (int r = 0; r < h; r++)
		draw_fill(y + r, x, w, RL_NORMAL);
	draw_put(y, x, w, "(not written yet)", RL_DIM);
}

const struct pane_ops pane_gpu_ops = {
	.name = "gpu",
	.draw = pane_gpu_draw,
};
