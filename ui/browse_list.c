/* browse_list.c: what the run browser lists: the columns and their cells,
 * the filter a run must match and the order the runs are sorted in; the
 * list made again from them (browse_refresh). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "browse_int.h"
#include "dataset.h"
#include "draw.h"
#include "flags.h"
#include "idcache.h"
#include "sweep.h"
#include "sweepwatch.h"
#include "tag.h"
#include "theme.h"
#include "util.h"

static char *browse_cell_model(const struct dataset *ds, size_t i, int *role)
{
	*role = RL_NORMAL;
	return grid_model(&ds->runs[i].meta);
}

static char *browse_cell_problem(const struct dataset *ds, size_t i, int *role)
{
	*role = RL_NORMAL;
	return draw_safe(ds->runs[i].meta.problem);
}

static char *browse_cell_ok(const struct dataset *ds, size_t i, int *role)
{
	const struct run_meta *m = &ds->runs[i].meta;
	if (!m->has_result) {
		*role = RL_DIM;
		return xstrdup(theme_glyph()->unknown);
	}
	*role = m->correct ? RL_OK : RL_FAIL;
	/* the files disagree on this run's outcome: the replay's banner says how */
	if (prov_diffs(&ds->runs[i].prov, NULL, 0)) {
		*role = RL_WARN;
		return xasprintf("%s%s", m->correct ? theme_glyph()->ok : theme_glyph()->fail, theme_glyph()->differ);
	}
	return xstrdup(m->correct ? theme_glyph()->ok : theme_glyph()->fail);
}

static char *browse_cell_peak(const struct dataset *ds, size_t i, int *role)
{
	double p = ds->runs[i].meta.peak_fraction;
	*role = p < 0 ? RL_DIM : RL_NORMAL;
	return p < 0 ? xstrdup("     -") : xasprintf("%6.4f", p);
}

/* The annotation's verdict, else the boards'; the differ glyph after one
 * the annotation and a board (or two boards) disagree on. */
static char *browse_cell_verdict(const struct dataset *ds, size_t i, int *role)
{
	int split;
	const char *v = dataset_verdict(&ds->runs[i], &split);
	*role = !v ? RL_DIM : split ? RL_WARN : !strcmp(v, "clean") ? RL_OK : RL_WARN;
	char *safe = draw_safe(v ? v : "-");
	if (!split)
		return safe;
	char *t = xasprintf("%s%s", safe, theme_glyph()->differ);
	free(safe);
	return t;
}

const struct sweepwatch *browse_sweep;  /* the cell functions have no browse argument */

static char *browse_cell_format(const struct dataset *ds, size_t i, int *role)
{
	const struct ds_run *r = &ds->runs[i];
	const struct sweep_cell_status *s = sweepwatch_cell(browse_sweep, (long)i);
	if (s && s->state != SWEEP_DONE) {   /* a sweep's cell not done: its state */
		*role = s->state == SWEEP_RUNNING ? RL_WARN : s->state == SWEEP_QUEUED ? RL_DIM : RL_FAIL;
		return xstrdup(s->state == SWEEP_FAILED || s->state == SWEEP_KILLED ? (s->state == SWEEP_FAILED ? "FAILED" : "KILLED")
		                                                                  : sweep_state_name(s->state));
	}
	if (!r->transcript) {
		*role = RL_DIM;
		return xstrdup(r->held_out ? "held out" : "none");
	}
	*role = RL_NORMAL;
	return draw_safe(r->meta.format ? r->meta.format : "?");
}

static char *browse_cell_run_id(const struct dataset *ds, size_t i, int *role)
{
	*role = RL_DIM;
	return draw_safe(ds->runs[i].meta.run_id);
}

const struct flag_runs *browse_flags;  /* the cell function has no browse argument */

/* The auto-flags column: a run's flagged events, "..." until they are
 * found (a run at a time, between keys), "?" for a transcript too big to
 * read between keys. */
static char *browse_cell_flags(const struct dataset *ds, size_t i, int *role)
{
	long n = flag_runs_state(browse_flags, i);
	*role = n > 0 ? RL_WARN : RL_DIM;
	if (!browse_flags || !ds->runs[i].transcript)
		return xstrdup("-");
	if (n == FLAG_RUNS_BIG)  /* too big to read between keys: its replay flags it */
		return xstrdup("?");
	return n < 0 ? xstrdup("...") : n ? xasprintf("!%ld", n) : xstrdup("-");
}

/* The order in which the columns give way on a narrow terminal (kbtui(1),
 * BROWSER AND REPLAY; tests/test_layout_cols.sh at 80, 100, 120 and 160):
 * 1. the model's name shrinks from its whole width to 34 columns,
 *    shortened where it says least (modelname_fit);
 * 2. RUN_ID is hidden (it shows with BROWSE_ID_MIN columns or none);
 * 3. FLAGS is hidden;
 * 4. the model's name shrinks to BROWSE_MODEL_MIN;
 * 5. PEAK is hidden, 6. then VERDICT.
 * MODEL, PROBLEM, OK and FORMAT always stay: without PROBLEM the rows of
 * one model cannot be told apart. */
const struct browse_col browse_cols[BROWSE_NCOLS] = {
	{ "MODEL", 10, 60, browse_cell_model, 2, 0 },  /* 34 unless there is room: browse_col_width */
	{ "PROBLEM", 8, 28, browse_cell_problem, 1, 0 },
	{ "OK", 2, 3, browse_cell_ok, 0, 0 },  /* 3: "x!=", files disagree (ASCII) */
	{ "  PEAK", 6, 6, browse_cell_peak, 0, 3 },
	{ "VERDICT", 7, 16, browse_cell_verdict, 0, 4 },
	{ "FLAGS", 5, 5, browse_cell_flags, 0, 2 },
	{ "FORMAT", 6, 10, browse_cell_format, 0, 0 },  /* "held out", "none": no replay */
	{ "RUN_ID", 6, 0, browse_cell_run_id, 1, 1 },  /* takes the rest */
};

const char *const browse_sort_names[SORT__COUNT] = { "problem", "model", "peak_fraction" };

static const struct dataset *browse_sort_ds;  /* qsort has no context argument */
static int browse_sort_key;
static const unsigned *browse_rank_problem, *browse_rank_model;

static int browse_cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static const char *browse_model_key(const struct run_meta *m)
{
	return m->label ? m->label : m->model ? m->model : "";
}

static const char *const *browse_uniq;  /* for browse_cmp_uniq */

static int browse_cmp_uniq(const void *pa, const void *pb)
{
	return strcmp(browse_uniq[*(const unsigned *)pa], browse_uniq[*(const unsigned *)pb]);
}

/* Each run's rank, in strcmp order, of its problem (model 0) or its label
 * else model (model 1) among the distinct ones: the sort then compares
 * two numbers where it compared two strings, mostly equal ones (a sixth
 * of the browser's first screen at 14,000 runs). Owned by the caller. */
static unsigned *browse_ranks(const struct dataset *ds, int model)
{
	size_t n = ds->nruns, nslot = 64, nu = 0;
	while (nslot < n * 2 + 2)
		nslot *= 2;
	unsigned *slot = xcalloc(nslot, sizeof *slot);   /* distinct string index + 1 */
	const char **uniq = xmalloc((n + 1) * sizeof *uniq);
	unsigned *r = xmalloc((n + 1) * sizeof *r);
	for (size_t i = 0; i < n; i++) {
		const struct run_meta *m = &ds->runs[i].meta;
		const char *s = model ? browse_model_key(m) : m->problem ? m->problem : "";
		size_t j = (size_t)idcache_str_hash(IDCACHE_FNV0, s) & (nslot - 1);
		while (slot[j] && strcmp(uniq[slot[j] - 1], s))
			j = (j + 1) & (nslot - 1);
		if (!slot[j]) {
			uniq[nu] = s;
			slot[j] = (unsigned)++nu;
		}
		r[i] = slot[j] - 1;
	}
	unsigned *byname = xmalloc((nu + 1) * sizeof *byname), *rank = xmalloc((nu + 1) * sizeof *rank);
	for (unsigned k = 0; k < nu; k++)
		byname[k] = k;
	browse_uniq = uniq;
	qsort(byname, nu, sizeof *byname, browse_cmp_uniq);
	for (unsigned k = 0; k < nu; k++)
		rank[byname[k]] = k;
	for (size_t i = 0; i < n; i++)
		r[i] = rank[r[i]];
	free(byname);
	free(rank);
	free(uniq);
	free(slot);
	return r;
}

static int browse_cmp_rank(const unsigned *rank, size_t a, size_t b)
{
	return (rank[a] > rank[b]) - (rank[a] < rank[b]);
}

static int browse_cmp_runs(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct run_meta *x = &browse_sort_ds->runs[a].meta, *y = &browse_sort_ds->runs[b].meta;
	int c = 0;
	if (browse_sort_key == SORT_PEAK) {
		/* best first; unknown last */
		c = (x->peak_fraction < y->peak_fraction) - (x->peak_fraction > y->peak_fraction);
	} else if (browse_sort_key == SORT_MODEL) {
		c = browse_cmp_rank(browse_rank_model, a, b);
		if (!c)
			c = browse_cmp_rank(browse_rank_problem, a, b);
	} else {
		c = browse_cmp_rank(browse_rank_problem, a, b);
		if (!c)
			c = browse_cmp_rank(browse_rank_model, a, b);
	}
	if (!c)
		c = browse_cmp_str(x->run_id, y->run_id);
	return c ? c : (a > b) - (a < b);
}

/* ASCII case-insensitive substring test. */
static int browse_contains(const char *hay, const char *needle)
{
	if (!hay)
		return 0;
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i]) {
			char a = hay[i], b = needle[i];
			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
			i++;
		}
		if (i == n)
			return 1;
	}
	return n == 0;
}

/* Plain text: in the run id, model, label, harness, problem or verdict. */
static int browse_match_text(const struct ds_run *r, const char *f)
{
	return !*f || browse_contains(r->meta.run_id, f) || browse_contains(r->meta.model, f) ||
	       browse_contains(r->meta.label, f) || browse_contains(r->meta.harness, f) ||
	       browse_contains(r->meta.problem, f) || browse_contains(r->verdict, f);
}

/* One field term of the filter: 1 match, 0 no match, -1 not a field term
 * (plain text). has:transcript|solution|result|verdict, flagged, correct,
 * failed, format:NAME, peak>X, peak<X (>=, <= too), verdict:NAME. */
static int browse_match_field(const struct browse *b, size_t i, const char *t)
{
	const struct ds_run *r = &b->ds->runs[i];
	if (!strncasecmp(t, "verdict:", 8))
		return tag_filter(t, r->verdict);
	if (!strncasecmp(t, "has:", 4)) {
		const char *w = t + 4;
		if (!strcasecmp(w, "transcript"))
			return r->transcript != NULL;
		if (!strcasecmp(w, "solution"))
			return r->meta.has_solution;
		if (!strcasecmp(w, "result"))
			return r->meta.has_result;
		if (!strcasecmp(w, "verdict") || !strcasecmp(w, "annotation"))
			return r->verdict != NULL;
		return -1;
	}
	if (!strcasecmp(t, "flagged"))
		return flag_runs_state(b->flags, i) > 0;
	if (!strcasecmp(t, "correct"))
		return r->meta.has_result && r->meta.correct;
	if (!strcasecmp(t, "failed"))
		return r->meta.has_result && !r->meta.correct;
	if (!strncasecmp(t, "format:", 7))
		return r->meta.format && !strcasecmp(r->meta.format, t + 7);
	if (!strncasecmp(t, "peak", 4) && (t[4] == '>' || t[4] == '<')) {
		int ge = t[4] == '>', eq = t[5] == '=';
		char *end;
		double x = strtod(t + 5 + eq, &end);
		if (end == t + 5 + eq || *end)
			return -1;
		double p = r->meta.peak_fraction;
		if (p < 0)
			return 0;
		return ge ? (eq ? p >= x : p > x) : (eq ? p <= x : p < x);
	}
	return -1;
}

/* The filter: text matched as a whole, as it always was; but when one of
 * its words is a field term, every word must match (field terms by their
 * field, the others as text). */
static int browse_match(const struct browse *b, size_t i)
{
	const struct ds_run *r = &b->ds->runs[i];
	char terms[sizeof b->filter];
	const char *word[64];
	int field[64], n = 0, any = 0;
	memcpy(terms, b->filter, sizeof terms);
	for (char *save = NULL, *w = strtok_r(terms, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save)) {
		word[n] = w;
		field[n] = browse_match_field(b, i, w);
		any |= field[n] >= 0;
		n++;
	}
	if (!any)
		return browse_match_text(r, b->filter);
	for (int k = 0; k < n; k++)
		if (field[k] >= 0 ? !field[k] : !browse_match_text(r, word[k]))
			return 0;
	return 1;
}

/* The run the selection stands for, -1 when none (an empty grid cell). */
long browse_selected(const struct browse *b)
{
	if (b->grid_on)
		return grid_selected(&b->grid);
	return b->n ? (long)b->order[b->sel] : -1;
}

/* The grid of the runs listed, with run keep (>= 0) selected; made only
 * when it is to be shown: it sorted every model name again (a tenth of
 * the browser's first screen at 14,000 runs). */
void browse_grid_build(struct browse *b, long keep)
{
	grid_build(&b->grid, b->ds, b->order, b->n);
	if (b->sort == SORT_PEAK)  /* the grid's rows follow: a leaderboard's ranking */
		grid_rank(&b->grid, b->ds);
	if (keep >= 0)
		grid_select_run(&b->grid, (size_t)keep);
	b->grid_stale = 0;
}

/* Rebuilds the visible list from filter and sort, keeping the selected
 * run selected when it is still shown. */
const struct board *browse_board(const struct browse *b)
{
	return b->board >= 0 && (size_t)b->board < b->ds->nboards ? &b->ds->boards[b->board] : NULL;
}

static struct ds_select browse_select(const struct browse *b)
{
	const struct board *bd = browse_board(b);
	struct ds_select sel = { bd ? bd->file : NULL, bd ? NULL : b->gpu };
	return sel;
}

void browse_refresh(struct browse *b)
{
	long keep = browse_selected(b);
	const struct ds_select sel = browse_select(b);
	const struct board *bd = browse_board(b);
	b->n = 0;
	for (size_t i = 0; i < b->ds->nruns; i++)
		if (dataset_selected(b->ds, i, &sel) && browse_match(b, i))
			b->order[b->n++] = i;
	/* the grid's columns: the board's deck (6 problems on H100, B200) */
	grid_set_board(bd);
	browse_sort_ds = b->ds;
	browse_sort_key = b->sort;
	unsigned *rp = NULL, *rm = NULL;
	if (b->sort != SORT_PEAK) {
		browse_rank_problem = rp = browse_ranks(b->ds, 0);
		browse_rank_model = rm = browse_ranks(b->ds, 1);
	}
	qsort(b->order, b->n, sizeof *b->order, browse_cmp_runs);
	free(rp);
	free(rm);
	browse_rank_problem = browse_rank_model = NULL;
	b->sel = 0;
	for (size_t k = 0; k < b->n; k++)
		if ((long)b->order[k] == keep)
			b->sel = k;
	b->top = 0;
	if (b->list_h > 0 && b->sel >= (size_t)b->list_h)
		b->top = b->sel - (size_t)b->list_h / 2;
	b->grid_stale = 1;
	if (b->grid_on)
		browse_grid_build(b, keep);
	b->v.dirty = D_ALL;
}

