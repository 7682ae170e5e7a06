/* pane_gpu.c: the local GPU now: utilisation, memory, SM clock, temperature
 * and power from NVML (src/nvml.c), with sparklines of utilisation and
 * memory over the last readings. It shows this machine's GPU whatever the
 * run; in a live run that is the GPU the agent works on. Without a device
 * it says why. The replay redraws it about once a second while it shows,
 * and a reading is taken at a draw when a second has passed. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "draw.h"
#include "nvml.h"
#include "pane.h"
#include "theme.h"
#include "util.h"

#define GPU_LABEL_W 13

/* One sampler for the process: the GPU is the machine's, not the run's, and
 * its history outlives a replay (a growing run builds its panes anew). */
static struct nvml_sampler pane_gpu_sampler;

/* The sparkline of one reading over the history, newest at the right. */
static void pane_gpu_spark(const struct nvml_sampler *s, int y, int x, int w, int which)
{
	const char *const *bar = theme_glyph()->bar;
	size_t n = s->count < (size_t)w ? s->count : (size_t)w;
	for (size_t i = 0; i < n; i++) {
		const struct nvml_sample *r = nvml_sampler_at(s, s->count - n + i);
		double f = which ? (r->mem_total > 0 && r->mem_used >= 0 ? (double)r->mem_used / (double)r->mem_total : -1)
		                 : (r->util_gpu >= 0 ? r->util_gpu / 100.0 : -1);
		int level = f < 0 ? 0 : (int)(f * 8 + 0.5);
		draw_put(y, x + (int)i, 1, bar[level < 0 ? 0 : level > 8 ? 8 : level], RL_PLOT);
	}
}

/* One row: a label, a value, and optionally a sparkline after it. */
static void pane_gpu_row(int y, int x, int w, const char *label, const char *value, int role)
{
	draw_fill(y, x, w, RL_NORMAL);
	draw_put(y, x, w, label, RL_DIM);
	if (w > GPU_LABEL_W)
		draw_put(y, x + GPU_LABEL_W, w - GPU_LABEL_W, value, role);
}

static void pane_gpu_draw(struct pane *p, struct pane_ctx *cx, int y, int x, int w, int h)
{
	struct nvml_sampler *s = &pane_gpu_sampler;
	const struct nvml_sample *r;
	char v[96], a[32], b[32];
	int row = 0, vw = 24;
	(void)cx;

	nvml_sampler_tick(s, nvml_now());
	for (int i = 0; i < h; i++)
		draw_fill(y + i, x, w, RL_NORMAL);
	x += 1;
	w -= 1;
	if (w < 1 || h < 1)
		return;
	r = nvml_sampler_last(s);
	if (!s->n || !r) {
		char *msg = xasprintf("no NVIDIA device: %s", s->error ? s->error : "no reading yet");
		draw_untrusted(y, x, w, msg, s->n ? RL_DIM : RL_WARN);
		free(msg);
		p->h = h;
		return;
	}
	if (nvml_count(s->n) > 1)
		snprintf(v, sizeof v, " (device 0 of %d)", nvml_count(s->n));
	else
		v[0] = 0;
	{
		char *name = xasprintf("%s%s", nvml_name(s->n), v);
		draw_untrusted(y + row++, x, w, name, RL_TITLE);
		free(name);
	}
	if (row < h) {
		if (r->util_gpu >= 0)
			snprintf(v, sizeof v, "%3d %%", r->util_gpu);
		else
			snprintf(v, sizeof v, "  -");
		pane_gpu_row(y + row, x, w, "utilisation", v, RL_NORMAL);
		if (w > GPU_LABEL_W + vw)
			pane_gpu_spark(s, y + row, x + GPU_LABEL_W + vw, w - GPU_LABEL_W - vw, 0);
		row++;
	}
	if (row < h) {
		if (r->mem_used >= 0 && r->mem_total > 0) {
			snprintf(a, sizeof a, "%.1f", r->mem_used / 1073741824.0);
			snprintf(b, sizeof b, "%.1f", r->mem_total / 1073741824.0);
			snprintf(v, sizeof v, "%s / %s GiB (%.0f %%)", a, b, 100.0 * (double)r->mem_used / (double)r->mem_total);
		} else
			snprintf(v, sizeof v, "-");
		pane_gpu_row(y + row, x, w, "memory", v, RL_NORMAL);
		if (w > GPU_LABEL_W + vw)
			pane_gpu_spark(s, y + row, x + GPU_LABEL_W + vw, w - GPU_LABEL_W - vw, 1);
		row++;
	}
	if (row < h) {
		snprintf(v, sizeof v, r->sm_clock_mhz >= 0 ? "%d MHz" : "-", r->sm_clock_mhz);
		pane_gpu_row(y + row++, x, w, "SM clock", v, RL_NORMAL);
	}
	if (row < h) {
		snprintf(v, sizeof v, r->temp_c >= 0 ? "%d C" : "-", r->temp_c);
		pane_gpu_row(y + row++, x, w, "temperature", v, r->temp_c >= 85 ? RL_WARN : RL_NORMAL);
	}
	if (row < h) {
		if (r->power_mw >= 0)
			snprintf(v, sizeof v, "%.1f W", r->power_mw / 1000.0);
		else
			snprintf(v, sizeof v, "-");
		pane_gpu_row(y + row++, x, w, "power", v, RL_NORMAL);
	}
	if (row + 1 < h) {
		snprintf(v, sizeof v, "%zu readings, one a second; this machine's GPU", s->count);
		draw_put(y + row + 1, x, w, v, RL_DIM);
	}
	p->h = h;
}

static void pane_gpu_status(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	const struct nvml_sampler *s = &pane_gpu_sampler;
	(void)p;
	(void)cx;
	snprintf(buf, n, "%s", s->n ? "local GPU" : "no device");
}

const struct pane_ops pane_gpu_ops = {
	.name = "gpu",
	.draw = pane_gpu_draw,
	.status = pane_gpu_status,
};
