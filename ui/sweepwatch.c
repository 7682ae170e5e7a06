/* sweepwatch.c: a sweep directory's cells, polled for the browser. */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dataset.h"
#include "sweep.h"
#include "sweepwatch.h"
#include "util.h"

struct sweepwatch {
	struct dataset *ds;               /* borrowed */
	struct sweep_config cfg;
	struct sweep_cell_status *st;     /* one per cell (owned) */
	long *run;                        /* each cell's dataset run */
	double due;                       /* monotonic seconds of the next read */
	char **text;                      /* each cell's text at the last read (owned) */
	unsigned char *fresh;             /* per cell: moved or its transcript appeared, not yet taken */
};

static double sweepwatch_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct sweepwatch *sweepwatch_new(struct dataset *ds)
{
	char *path = util_path_join(ds->root, "sweep.json"), *err = NULL;
	int is = util_is_file(path);
	free(path);
	if (!is)
		return NULL;
	struct sweepwatch *w = xcalloc(1, sizeof *w);
	if (sweep_config_load(&w->cfg, ds->root, &err) < 0) {
		free(err);   /* a sweep.json kbtui cannot read: browsed as a plain dataset */
		free(w);
		return NULL;
	}
	w->ds = ds;
	sweep_dataset_cells(ds, &w->cfg);
	w->run = xcalloc((size_t)w->cfg.ncells + 1, sizeof *w->run);
	w->text = xcalloc((size_t)w->cfg.ncells + 1, sizeof *w->text);
	w->fresh = xcalloc((size_t)w->cfg.ncells + 1, 1);
	for (int i = 0; i < w->cfg.ncells; i++)
		w->run[i] = dataset_find(ds, w->cfg.cells[i].run_id);
	w->st = sweep_status_now(&w->cfg, ds->root);
	sweep_dataset_update(ds, &w->cfg, w->st, NULL);
	for (int i = 0; i < w->cfg.ncells; i++)
		w->text[i] = sweep_cell_text(&w->st[i]);
	w->due = sweepwatch_now() + SWEEPWATCH_MS / 1000.0;
	return w;
}

void sweepwatch_free(struct sweepwatch *w)
{
	if (!w)
		return;
	for (int i = 0; i < w->cfg.ncells; i++)
		free(w->text[i]);
	free(w->text);
	free(w->fresh);
	sweep_status_free(w->st, w->cfg.ncells);
	free(w->run);
	sweep_config_free(&w->cfg);
	free(w);
}

void sweepwatch_due(struct sweepwatch *w)
{
	if (w)
		w->due = 0;
}

int sweepwatch_poll(struct sweepwatch *w, int *ms)
{
	double now = sweepwatch_now();
	if (now < w->due) {
		*ms = (int)((w->due - now) * 1000) + 1;
		return 0;
	}
	struct sweep_cell_status *st = sweep_status_now(&w->cfg, w->ds->root);
	unsigned char *had = xcalloc((size_t)w->cfg.ncells + 1, 1);   /* a transcript before the update */
	for (int i = 0; i < w->cfg.ncells; i++)
		had[i] = w->run[i] >= 0 && w->ds->runs[w->run[i]].transcript;
	int moved = sweep_dataset_update(w->ds, &w->cfg, st, w->st), shown = 0;
	for (int i = 0; i < w->cfg.ncells; i++) {
		int has = w->run[i] >= 0 && w->ds->runs[w->run[i]].transcript;
		w->fresh[i] |= st[i].state != w->st[i].state || st[i].attempt != w->st[i].attempt || (!had[i] && has);
		char *t = sweep_cell_text(&st[i]);
		shown |= strcmp(t, w->text[i]) != 0;
		free(w->text[i]);
		w->text[i] = t;
	}
	free(had);
	sweep_status_free(w->st, w->cfg.ncells);
	w->st = st;
	w->due = sweepwatch_now() + SWEEPWATCH_MS / 1000.0;
	*ms = SWEEPWATCH_MS;
	return moved ? 2 : shown ? 1 : 0;
}

long sweepwatch_fresh(struct sweepwatch *w)
{
	for (int k = 0; w && k < w->cfg.ncells; k++)
		if (w->fresh[k]) {
			w->fresh[k] = 0;
			if (w->run[k] >= 0)
				return w->run[k];
		}
	return -1;
}

static int sweepwatch_find(const struct sweepwatch *w, long i)
{
	for (int k = 0; w && i >= 0 && k < w->cfg.ncells; k++)
		if (w->run[k] == i)
			return k;
	return -1;
}

const struct sweep_cell_status *sweepwatch_cell(const struct sweepwatch *w, long i)
{
	int k = sweepwatch_find(w, i);
	return k < 0 ? NULL : &w->st[k];
}

char *sweepwatch_text(const struct sweepwatch *w, long i)
{
	int k = sweepwatch_find(w, i);
	return k < 0 || w->st[k].state == SWEEP_DONE ? NULL : xstrdup(w->text[k]);
}

char *sweepwatch_summary(const struct sweepwatch *w)
{
	int count[SWEEP_KILLED + 1] = {0};
	for (int i = 0; i < w->cfg.ncells; i++)
		count[w->st[i].state]++;
	return xasprintf("sweep: %d done  %d running  %d queued  %d failed  %d killed", count[SWEEP_DONE],
	                 count[SWEEP_RUNNING], count[SWEEP_QUEUED], count[SWEEP_FAILED], count[SWEEP_KILLED]);
}
