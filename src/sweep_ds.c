/* sweep_ds.c: a sweep directory as a dataset while it runs: every cell a
 * run from the start (queued ones too, so the grid has its whole shape),
 * read again as cells finish. The browser polls it (ui/sweepwatch.c). */
#include "sweep.h"
#include "dataset.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* (a dataset run's names are its pool's, never freed one by one) */
static void sweep_ds_set(struct dataset *ds, char **dst, const char *v)
{
	*dst = dataset_intern(ds, v);
}

int sweep_dataset_cells(struct dataset *ds, const struct sweep_config *c)
{
	int added = 0;
	for (int i = 0; i < c->ncells; i++) {
		const struct sweep_cell *ce = &c->cells[i];
		const struct sweep_model *m = &c->models[ce->model];
		long k = dataset_find(ds, ce->run_id);
		struct ds_run *r;
		if (k >= 0 && ds->runs[k].meta.label)
			continue;   /* its runs.jsonl row names it */
		if (k >= 0) {   /* found by a scan of runs/ (no runs.jsonl yet): named by its transcript */
			r = &ds->runs[k];
		} else {
			r = dataset_add_run(ds, ce->run_id);
			added++;
		}
		/* the names a finished cell's runs.jsonl row gives it: its grid
		 * row and column do not move when it finishes */
		sweep_ds_set(ds, &r->meta.label, m->label);
		sweep_ds_set(ds, &r->meta.harness, "kbtui-live");
		sweep_ds_set(ds, &r->meta.model, m->model);
		sweep_ds_set(ds, &r->meta.effort, m->effort ? m->effort : "");
		sweep_ds_set(ds, &r->meta.problem, c->problems[ce->problem]);
	}
	return added;
}

int sweep_dataset_update(struct dataset *ds, const struct sweep_config *c, const struct sweep_cell_status *st,
                         const struct sweep_cell_status *before)
{
	int changed = 0;
	for (int i = 0; i < c->ncells; i++) {
		long k = dataset_find(ds, c->cells[i].run_id);
		if (k < 0)
			continue;
		int moved = !before || before[i].state != st[i].state || before[i].attempt != st[i].attempt;
		/* a running cell's transcript appears after it starts */
		if (moved || (st[i].state != SWEEP_QUEUED && !ds->runs[k].transcript)) {
			if (moved && st[i].state != SWEEP_DONE)
				ds->runs[k].meta.has_result = 0;   /* a retried cell is not done any more */
			dataset_reread_run(ds, (size_t)k);
			struct run_meta *m = &ds->runs[k].meta;
			if (st[i].state == SWEEP_RUNNING || st[i].state == SWEEP_QUEUED)
				m->has_result = 0;   /* an earlier attempt's result.json is not its */
			if (st[i].state == SWEEP_DONE) {   /* its runs.jsonl row, as a fresh open reads it */
				m->has_result = 1;
				m->correct = st[i].correct;
				m->session_complete = st[i].session_complete;
				m->peak_fraction = st[i].peak_fraction;
				if (st[i].elapsed >= 0)
					m->elapsed_seconds = st[i].elapsed;
			}
		}
		changed += moved;
	}
	return changed;
}
