/* browse.c: the run browser: the run list (sort, filter) or the leaderboard
 * grid, the baselines of the selected run's problem, Enter to replay. */
#include "config.h"

#include <curses.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <wchar.h>

#include "browse.h"
#include "compare.h"
#include "dataset.h"
#include "draw.h"
#include "flags.h"
#include "grid.h"
#include "idcache.h"
#include "keys.h"
#include "mouse.h"
#include "replay.h"
#include "runstats.h"
#include "screens.h"
#include "sweep.h"
#include "sweepwatch.h"
#include "tag.h"
#include "theme.h"
#include "tlines.h"
#include "tui.h"
#include "util.h"
#include "view.h"
#include "watch.h"

/* A column of the run list: its title, width bounds, and cell text. */
struct browse_col {
	const char *title;
	int min, max;
	/* Safe cell text (owned) and its role. */
	char *(*cell)(const struct dataset *ds, size_t i, int *role);
	int mid;  /* cut in the middle: the names differ at their ends */
	/* 0: always shown; else hidden on a narrow terminal, 1 first: what
	 * tells whether a run can be replayed (OK, FORMAT) stays */
	int drop;
};

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

static char *browse_cell_verdict(const struct dataset *ds, size_t i, int *role)
{
	const char *v = ds->runs[i].verdict;
	*role = !v ? RL_DIM : !strcmp(v, "clean") ? RL_OK : RL_WARN;
	return draw_safe(v ? v : "-");
}

static const struct sweepwatch *browse_sweep;  /* the cell functions have no browse argument */

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

static const struct flag_runs *browse_flags;  /* the cell function has no browse argument */

/* The auto-flags column: a run's flagged events, "..." until they are
 * found (a run at a time, between keys). */
static char *browse_cell_flags(const struct dataset *ds, size_t i, int *role)
{
	long n = flag_runs_state(browse_flags, i);
	*role = n > 0 ? RL_WARN : RL_DIM;
	if (!browse_flags || !ds->runs[i].transcript)
		return xstrdup("-");
	return n < 0 ? xstrdup("...") : n ? xasprintf("!%ld", n) : xstrdup("-");
}

static const struct browse_col browse_cols[] = {
	{ "MODEL", 10, 60, browse_cell_model, 1, 0 },  /* 34 unless there is room: browse_col_width */
	{ "PROBLEM", 8, 28, browse_cell_problem, 0, 3 },
	{ "OK", 2, 3, browse_cell_ok, 0, 0 },  /* 3: "x!=", files disagree (ASCII) */
	{ "  PEAK", 6, 6, browse_cell_peak, 0, 5 },
	{ "VERDICT", 7, 16, browse_cell_verdict, 0, 4 },
	{ "FLAGS", 5, 5, browse_cell_flags, 0, 2 },
	{ "FORMAT", 6, 10, browse_cell_format, 0, 0 },  /* "held out", "none": no replay */
	{ "RUN_ID", 6, 0, browse_cell_run_id, 1, 1 },  /* takes the rest */
};
#define BROWSE_NCOLS (sizeof browse_cols / sizeof browse_cols[0])
#define BROWSE_DROPS 5
/* The model's name is cut to no fewer columns than this before a column
 * is hidden; the run id shows only with at least BROWSE_ID_MIN. */
#define BROWSE_MODEL_MIN 18
#define BROWSE_ID_MIN 12
#define BROWSE_DROP_FREE 2  /* ranks hidden before the model's name is cut below 34 */

enum { SORT_PROBLEM, SORT_MODEL, SORT_PEAK, SORT__COUNT };
static const char *const browse_sort_names[SORT__COUNT] = { "problem", "model", "peak_fraction" };

/* The screens a key opens (screens.h), by action. */
static const struct browse_screen {
	enum action act;
	struct view *(*open)(struct dataset *ds, struct tag *tag);
} browse_screens[] = {
#define BROWSE_SCREEN_ROW(act, open) { act, open },
	BROWSE_SCREENS(BROWSE_SCREEN_ROW)
#undef BROWSE_SCREEN_ROW
};
#define BROWSE_NSCREENS (sizeof browse_screens / sizeof browse_screens[0])

/* What the browser pushed, for its resume. */
enum { BROWSE_PUSHED_NONE, BROWSE_PUSHED_REPLAY, BROWSE_PUSHED_SCREEN, BROWSE_PUSHED_COMPARE, BROWSE_PUSHED_WATCH };

struct browse {
	struct view v;             /* first: the view the loop runs (its msg has a margin) */
	struct dataset *ds;        /* borrowed */
	size_t *order, n;          /* the runs shown, in order */
	size_t sel, top;
	int sort;
	char filter[256];          /* raw text the user typed */
	char saved[256];           /* filter before / was pressed, for Esc */
	int editing;               /* the / prompt is open */
	int grid_on;               /* the grid instead of the list */
	struct grid grid;
	int grid_stale;            /* the list changed since the grid was made: made when shown */
	int details_wait;          /* runs' result.json still to read: the widths then made again */
	struct flag_runs *flags;   /* auto-flags of the runs, found between keys (owned) */
	int flags_left;            /* runs are left to flag */
	int width[BROWSE_NCOLS];
	int list_y, list_h;
	struct tag *tag;           /* the annotation session (owned) */
	size_t cmp_mark;           /* c: the run marked for comparison, index + 1; 0: none */
	int pushed;                /* BROWSE_PUSHED_*: the view over it */
	int open_only;             /* kbtui RUN_DIR: quit once its replays end */
	size_t open_event;         /* kbtui RUN@N: the first replay opens at event N (from 1); 0: none */
	struct sweepwatch *sweep;  /* a sweep directory's cells, polled (owned), NULL: no sweep */
	struct watch_session *watching;  /* Enter on a running cell: its watch (owned while pushed) */
};

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
static long browse_selected(const struct browse *b)
{
	if (b->grid_on)
		return grid_selected(&b->grid);
	return b->n ? (long)b->order[b->sel] : -1;
}

/* The grid of the runs listed, with run keep (>= 0) selected; made only
 * when it is to be shown: it sorted every model name again (a tenth of
 * the browser's first screen at 14,000 runs). */
static void browse_grid_build(struct browse *b, long keep)
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
static void browse_refresh(struct browse *b)
{
	long keep = browse_selected(b);
	b->n = 0;
	for (size_t i = 0; i < b->ds->nruns; i++)
		if (browse_match(b, i))
			b->order[b->n++] = i;
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

static void browse_widths(struct browse *b)
{
	for (size_t c = 0; c < BROWSE_NCOLS; c++) {
		int w = (int)strlen(browse_cols[c].title);
		/* cells are looked at until one is as wide as max: a column of one
		 * width (PEAK, FLAGS) or of no max (RUN_ID) needs none */
		for (size_t i = 0; i < b->ds->nruns && browse_cols[c].max > browse_cols[c].min && w < browse_cols[c].max; i++) {
			int role;
			char *s = browse_cols[c].cell(b->ds, i, &role);
			int sw = (int)draw_width(s);
			free(s);
			if (sw > w)
				w = sw;
		}
		if (w < browse_cols[c].min)
			w = browse_cols[c].min;
		if (browse_cols[c].max && w > browse_cols[c].max)
			w = browse_cols[c].max;
		b->width[c] = w;
	}
}

/* The columns shown at this terminal's width (bit c: column c): the less
 * telling ones are hidden first: the run id and the flags while the
 * model's name would be cut below its usual 34 columns, the others only
 * while it would get fewer than BROWSE_MODEL_MIN. */
static unsigned browse_shown(const struct browse *b)
{
	unsigned shown = (1u << BROWSE_NCOLS) - 1;
	int usual = b->width[0] < 34 ? b->width[0] : 34;
	for (int rank = 1; rank <= BROWSE_DROPS; rank++) {
		int need = 1 + (rank <= BROWSE_DROP_FREE ? usual : BROWSE_MODEL_MIN) + 2;
		for (size_t c = 1; c < BROWSE_NCOLS; c++)
			if (shown & 1u << c)
				need += browse_cols[c].max ? b->width[c] + 2 : BROWSE_ID_MIN;
		if (need <= COLS)
			break;
		for (size_t c = 0; c < BROWSE_NCOLS; c++)
			if (browse_cols[c].drop == rank)
				shown &= ~(1u << c);
	}
	return shown;
}

/* Column c's width at this terminal's width (it must have a max): the
 * model's name whole while the run id keeps 24 columns, else cut at 34;
 * without the run id, cut to what the shown columns leave. */
static int browse_col_width(const struct browse *b, size_t c)
{
	if (c != 0)
		return b->width[c];
	unsigned shown = browse_shown(b);
	int id = shown & 1u << (BROWSE_NCOLS - 1);
	int usual = b->width[0] < 34 ? b->width[0] : 34, room = COLS - 1 - (usual + 2) - (id ? 24 : 0);
	for (size_t k = 1; k < BROWSE_NCOLS; k++)
		room -= browse_cols[k].max && shown & 1u << k ? b->width[k] + 2 : 0;
	if (room < 0 && !id)
		return usual + room > BROWSE_MODEL_MIN ? usual + room : BROWSE_MODEL_MIN;
	return room <= 0 ? usual : usual + (room < b->width[0] - usual ? room : b->width[0] - usual);
}

static const struct ds_problem *browse_problem(const struct dataset *ds, const char *name)
{
	for (size_t i = 0; name && i < ds->nproblems; i++)
		if (ds->problems[i].name && !strcmp(ds->problems[i].name, name))
			return &ds->problems[i];
	return NULL;
}

static void browse_ms(char *buf, size_t n, const char *what, double ms)
{
	if (ms < 0)
		snprintf(buf, n, "%s -", what);
	else
		snprintf(buf, n, "%s %.4g ms", what, ms);
}

/* Row 1: the selected problem's baselines, what its times compare with. */
static void browse_draw_reference(struct browse *b)
{
	const struct dataset *ds = b->ds;
	long sel = browse_selected(b);
	const char *pname = b->grid_on ? grid_problem(&b->grid) : sel >= 0 ? ds->runs[sel].meta.problem : NULL;
	const struct ds_problem *p = browse_problem(ds, pname);
	draw_fill(1, 0, COLS, RL_REF);
	if (p) {
		char e[48], c[48], s[48];
		browse_ms(e, sizeof e, "eager", p->eager.ms);
		browse_ms(c, sizeof c, "compiled", p->compiled.ms);
		browse_ms(s, sizeof s, "SOTA", p->sota.ms);
		char *name = draw_safe(p->name), *hw = ds->hardware ? draw_safe(ds->hardware) : NULL;
		char *line = xasprintf(" %s: %s  %s  %s%s%s", name, e, c, s, hw ? "  on " : "", hw ? hw : "");
		draw_put(1, 0, COLS, line, RL_REF);
		free(line);
		free(name);
		free(hw);
	} else if (pname) {
		char *name = draw_safe(pname);
		char *line = xasprintf(" %s: no baselines", name);
		draw_put(1, 0, COLS, line, RL_DIM);
		free(line);
		free(name);
	}
}

static void browse_draw_header(struct browse *b)
{
	const struct dataset *ds = b->ds;
	size_t ok = 0, held = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		ok += ds->runs[i].meta.has_result && ds->runs[i].meta.correct;
		held += ds->runs[i].held_out && !ds->runs[i].transcript;
	}
	char *root = draw_safe(ds->root);
	struct sbuf l, r;
	sbuf_init(&l);
	sbuf_init(&r);
	sbuf_addf(&l, " kbtui  %s  %zu runs  %zu correct", root, ds->nruns, ok);
	if (held)
		sbuf_addf(&l, "  %zu held out", held);
	if (ds->nerrors)
		sbuf_addf(&l, "  %d index problems", ds->nerrors);
	if (b->sweep) {
		char *s = sweepwatch_summary(b->sweep);
		sbuf_addf(&r, "%s  ", s);
		free(s);
	}
	if (b->n != ds->nruns)
		sbuf_addf(&r, "showing %zu of %zu  ", b->n, ds->nruns);
	if (b->filter[0]) {
		char *f = draw_safe(b->filter);
		sbuf_addf(&r, "filter: %s  ", f);
		free(f);
	}
	if (b->grid_on)
		sbuf_adds(&r, b->grid.ranked ? "grid: rows by mean peak_fraction " : "grid ");
	else
		sbuf_addf(&r, "sort: %s ", browse_sort_names[b->sort]);
	draw_bar(0, RL_HEADER, l.s, r.s);
	sbuf_free(&l);
	sbuf_free(&r);
	free(root);
	browse_draw_reference(b);
	if (b->grid_on)
		return;
	/* column titles */
	draw_fill(2, 0, COLS, RL_TITLE);
	int x = 1;
	unsigned shown = browse_shown(b);
	for (size_t c = 0; c < BROWSE_NCOLS && x < COLS; c++) {
		if (!(shown & 1u << c))
			continue;
		int w = browse_cols[c].max ? browse_col_width(b, c) : COLS - x;
		draw_put(2, x, w < COLS - x ? w : COLS - x, browse_cols[c].title, RL_TITLE);
		x += w + 2;
	}
}

static void browse_draw_list(struct browse *b)
{
	unsigned shown = browse_shown(b);
	/* the rows on screen first: their OK cells say where the files disagree */
	for (int r = 0; r < b->list_h && b->top + (size_t)r < b->n; r++)
		dataset_details(b->ds, b->order[b->top + (size_t)r]);
	for (int r = 0; r < b->list_h; r++) {
		size_t k = b->top + (size_t)r;
		int y = b->list_y + r;
		draw_fill(y, 0, COLS, k == b->sel && k < b->n ? RL_SELECT : RL_NORMAL);
		if (k >= b->n) {
			if (b->n == 0 && r == 0)
				draw_put(y, 1, COLS - 1, b->ds->nruns ? "no run matches the filter" : "no runs in this dataset",
				         RL_DIM);
			continue;
		}
		int x = 1;
		for (size_t c = 0; c < BROWSE_NCOLS && x < COLS; c++) {
			if (!(shown & 1u << c))
				continue;
			int role, w = browse_cols[c].max ? browse_col_width(b, c) : COLS - x;
			char *s = browse_cols[c].cell(b->ds, b->order[k], &role);
			(browse_cols[c].mid ? draw_fit_mid : draw_fit)(y, x, w < COLS - x ? w : COLS - x, s,
			                                               k == b->sel ? RL_SELECT : role);
			free(s);
			x += w + 2;
		}
		if (b->cmp_mark == b->order[k] + 1)  /* marked with c, in the blank first column */
			draw_put(y, 0, 1, "*", k == b->sel ? RL_SELECT : RL_KEY);
	}
}

/* The status line's left side: the position, and the time split and
 * reasoning mark of the selected run once it is loaded (replayed or
 * compared), in at most room columns. */
static char *browse_describe(const struct browse *b, const char *pos, int room)
{
	long sel = browse_selected(b);
	struct run *r = sel >= 0 ? b->ds->runs[sel].run : NULL;
	int left = room - (int)strlen(pos) - 2;
	char *cell = sweepwatch_text(b->sweep, sel);
	if (cell) {   /* a sweep's cell not done: what kbtui sweep --status says of it */
		char *line = xasprintf("%s  %s", pos, cell);
		free(cell);
		return line;
	}
	if (!r || left <= 0)
		return xstrdup(pos);
	struct runstats *st = runstats_new(r);
	char *marks = runstats_summary(st, (size_t)left);
	char *line = marks ? xasprintf("%s  %s", pos, marks) : xstrdup(pos);
	runstats_free(st);
	free(marks);
	return line;
}

static void browse_draw_status(struct browse *b)
{
	int y = LINES - 1;
	if (b->editing) {
		char *f = draw_safe(b->filter);
		char *line = xasprintf("/%s", f);
		draw_bar(y, RL_STATUS, line, "Enter keep  Esc cancel ");
		move(y, (int)draw_width(line) < COLS ? (int)draw_width(line) : COLS - 1);
		free(line);
		free(f);
	} else if (b->v.msg) {
		draw_bar(y, RL_MSG, b->v.msg, NULL);
	} else if (b->grid_on) {
		char *d = grid_describe(&b->grid, b->ds);
		draw_bar(y, RL_STATUS, d, "Enter replay  v list  h help  q quit ");
		free(d);
	} else {
		struct sbuf pos;
		sbuf_init(&pos);
		sbuf_addf(&pos, " run %zu/%zu", b->n ? b->sel + 1 : 0, b->n);
		tag_counts(b->tag, &pos);
		const char *base = "Enter replay  / filter  s sort  v grid  h help  q quit ";
		char *keys = xasprintf("%s  %s", tag_keys_hint(), base);  /* when there is room */
		const char *right = (int)(draw_width(pos.s) + draw_width(keys)) + 2 < COLS ? keys : base;
		char *line = browse_describe(b, pos.s, COLS - (int)draw_width(right) - 2);
		draw_bar(y, RL_STATUS, line, right);
		free(line);
		free(keys);
		sbuf_free(&pos);
	}
}

/* The help's frame: the header and the status bar around it. */
static int browse_frame(struct view *v, int *top, int *rows)
{
	struct browse *b = (struct browse *)v;
	b->list_y = 3;
	b->list_h = LINES - 4;
	erase();
	if (LINES < 8 || COLS < 30) {
		mvaddstr(0, 0, "terminal too small");
		return 0;
	}
	browse_draw_header(b);
	browse_draw_status(b);
	*top = 1;
	*rows = LINES - 2;
	return 1;
}

static void browse_draw(struct browse *b)
{
	b->list_y = 3;
	b->list_h = LINES - 4;
	if (LINES < 8 || COLS < 30) {
		erase();
		mvaddstr(0, 0, "terminal too small");
	} else {
		if (b->v.dirty & D_HEADER)
			browse_draw_header(b);
		if ((b->v.dirty & D_LIST) && b->grid_on)
			grid_draw(&b->grid, b->ds, 2, LINES - 3);
		else if (b->v.dirty & D_LIST)
			browse_draw_list(b);
		if (b->v.dirty & D_STATUS)
			browse_draw_status(b);
	}
	curs_set(b->editing ? 1 : 0);
	b->v.dirty = 0;
	refresh();
}

static void browse_goto(struct browse *b, long k)
{
	if (!b->n)
		return;
	if (k < 0)
		k = 0;
	if ((size_t)k >= b->n)
		k = (long)b->n - 1;
	b->sel = (size_t)k;
	size_t h = b->list_h > 0 ? (size_t)b->list_h : 1;
	if (b->sel < b->top)
		b->top = b->sel;
	else if (b->sel >= b->top + h)
		b->top = b->sel - h + 1;
	/* the reference line follows the selection */
	b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
}

/* The list again after verdicts changed: a run a verdict filter no longer
 * shows leaves the selection where it was, on the run after it. */
static void browse_retag(struct browse *b)
{
	long keep = browse_selected(b);
	size_t pos = b->sel;
	browse_refresh(b);
	if (!b->grid_on && browse_selected(b) != keep)
		browse_goto(b, (long)pos);
}

/* a: selects the next run without a verdict after the selected one, in the
 * list's order; returns it, -1 when there is none (with a message). */
static long browse_next_unannotated(struct browse *b)
{
	long sel = browse_selected(b);
	size_t from = b->sel;
	if (b->grid_on) {
		from = b->n ? b->n - 1 : 0;  /* an empty cell: from the top */
		for (size_t k = 0; k < b->n; k++)
			if ((long)b->order[k] == sel)
				from = k;
	}
	long k = b->n ? tag_next_unannotated(b->tag, b->order, b->n, from) : -1;
	if (k < 0) {
		free(b->v.msg);
		view_say(&b->v, " no other run shown is without a verdict (runs without a transcript are skipped)");
		return -1;
	}
	browse_goto(b, k);
	if (b->grid_on)
		grid_select_run(&b->grid, b->order[k]);
	return (long)b->order[k];
}

/* After an annotation key (the loop's): names may be hidden, verdicts
 * changed. */
static void browse_tagged(struct view *v, enum action a)
{
	struct browse *b = (struct browse *)v;
	if (a == ACT_BLIND)
		browse_widths(b);
	browse_retag(b);
}

static long browse_tag_run(struct view *v, struct tag **tag)
{
	struct browse *b = (struct browse *)v;
	*tag = b->tag;
	return browse_selected(b);
}

/* Pushes the replay of run sel (annotation keys and all); 0 when it
 * cannot be loaded (the status bar says why). */
static unsigned browse_open_at(struct browse *b, long sel)
{
	size_t i = (size_t)sel;
	struct run *run = sel >= 0 ? dataset_load(b->ds, i) : NULL;
	if (sel < 0)
		return 0;
	if (!run) {
		char *e = draw_safe(b->ds->runs[i].load_error ? b->ds->runs[i].load_error : "cannot load this run");
		free(b->v.msg);
		b->v.msg = xasprintf(" %s", e);
		free(e);
		b->v.dirty |= D_STATUS;
		return 0;
	}
	struct replay_opts o = { .tag = b->tag, .ds_run = i };
	if (b->open_event && run->nev)  /* RUN@N: the first replay only */
		o.ev = b->open_event - 1 < run->nev ? b->open_event - 1 : run->nev - 1;
	b->open_event = 0;
	b->pushed = BROWSE_PUSHED_REPLAY;
	return view_push(&b->v, replay_view_new(run, b->ds->runs[i].meta.run_id ? b->ds->runs[i].meta.run_id
	                                                                        : b->ds->runs[i].transcript, &o));
}

/* Enter on a sweep's running cell: its live replay, as kbtui watch. */
static unsigned browse_watch(struct browse *b, long sel)
{
	const struct ds_run *r = &b->ds->runs[sel];
	b->watching = r->dir ? watch_session_new(r->dir, NULL, r->meta.run_id) : NULL;
	if (!b->watching) {
		view_say(&b->v, " this cell has no run directory yet");
		b->v.dirty |= D_STATUS;
		return 0;
	}
	b->pushed = BROWSE_PUSHED_WATCH;
	return view_push(&b->v, watch_session_view(b->watching));
}

/* Enter: the selected run's replay (a running cell's: watched). */
static unsigned browse_open(struct browse *b)
{
	long sel = browse_selected(b);
	const struct sweep_cell_status *s = sweepwatch_cell(b->sweep, sel);
	if (s && s->state == SWEEP_RUNNING)
		return browse_watch(b, sel);
	if (s && s->state == SWEEP_QUEUED) {
		view_say(&b->v, " this cell has not started yet");
		b->v.dirty |= D_STATUS;
		return 0;
	}
	unsigned f = browse_open_at(b, sel);
	if (!f)
		browse_retag(b);
	return f;
}

/* A key while the / prompt is open: edits the filter, applied as typed. */
static void browse_edit(struct browse *b, const struct key *k)
{
	size_t len = strlen(b->filter);
	if (!k->fn && (k->ch == '\n' || k->ch == '\r')) {
		b->editing = 0;
	} else if (!k->fn && k->ch == 27) {
		b->editing = 0;
		memcpy(b->filter, b->saved, sizeof b->filter);
	} else if (!k->fn && k->ch == 21) {  /* Ctrl-U: the whole filter, as readline does */
		b->filter[0] = 0;
	} else if (!k->fn && k->ch == 23) {  /* Ctrl-W: the last word and the blanks after it */
		while (len > 0 && b->filter[len - 1] == ' ')
			len--;
		while (len > 0 && b->filter[len - 1] != ' ')
			len--;
		b->filter[len] = 0;
	} else if ((k->fn && k->ch == KEY_BACKSPACE) || (!k->fn && (k->ch == 127 || k->ch == 8))) {
		while (len > 0 && ((unsigned char)b->filter[len - 1] & 0xC0) == 0x80)
			len--;
		if (len > 0)
			len--;
		b->filter[len] = 0;
	} else if (!k->fn && k->ch >= 0x20 && k->ch != 0x7F) {
		char mb[MB_LEN_MAX];
		mbstate_t st;
		memset(&st, 0, sizeof st);
		size_t m = wcrtomb(mb, (wchar_t)k->ch, &st);
		if (m != (size_t)-1 && len + m < sizeof b->filter) {
			memcpy(b->filter + len, mb, m);
			b->filter[len + m] = 0;
		}
	} else {
		return;
	}
	browse_refresh(b);
}

/* List and grid show the same selection when one switches to the other. */
static void browse_toggle_grid(struct browse *b)
{
	long sel = browse_selected(b);
	b->grid_on = !b->grid_on;
	if (b->grid_on && b->grid_stale) {
		browse_grid_build(b, sel);
	} else if (b->grid_on && sel >= 0) {
		grid_select_run(&b->grid, (size_t)sel);
	} else if (!b->grid_on && sel >= 0) {
		for (size_t k = 0; k < b->n; k++)
			if ((long)b->order[k] == sel)
				browse_goto(b, (long)k);
	}
	erase();
	b->v.dirty = D_ALL;
}

static void browse_grid_do(struct browse *b, enum action a)
{
	long page = LINES > 10 ? LINES - 10 : 1;
	switch (a) {
	case ACT_DOWN: grid_move(&b->grid, 1, 0); break;
	case ACT_UP: grid_move(&b->grid, -1, 0); break;
	case ACT_PAGE_DOWN: grid_move(&b->grid, page, 0); break;
	case ACT_PAGE_UP: grid_move(&b->grid, -page, 0); break;
	case ACT_RIGHT: grid_move(&b->grid, 0, 1); break;
	case ACT_LEFT: grid_move(&b->grid, 0, -1); break;
	case ACT_FIRST: grid_move(&b->grid, -(long)b->grid.nrows, 0); break;
	case ACT_LAST: grid_move(&b->grid, (long)b->grid.nrows, 0); break;
	default: return;
	}
	b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
}

/* The wheel moves the selection; a click selects the run (list) or the
 * cell (grid) under the pointer. */
static unsigned browse_mouse(struct view *v, const struct mouse_event *mp)
{
	struct browse *b = (struct browse *)v;
	struct mouse_event m = *mp;
	int step = m.kind == MOUSE_WHEEL_DOWN ? MOUSE_WHEEL_ROWS : -MOUSE_WHEEL_ROWS;
	if (m.kind == MOUSE_NONE)
		return 0;
	if (b->grid_on && m.kind != MOUSE_CLICK)
		grid_move(&b->grid, step, 0);
	else if (b->grid_on && !grid_hit(&b->grid, 2, LINES - 3, m.y, m.x))
		return 0;
	else if (!b->grid_on && m.kind != MOUSE_CLICK)
		browse_goto(b, (long)b->sel + step);
	else if (!b->grid_on && m.y >= b->list_y && m.y < b->list_y + b->list_h &&
	         b->top + (size_t)(m.y - b->list_y) < b->n)
		browse_goto(b, (long)(b->top + (size_t)(m.y - b->list_y)));
	b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
	return 0;
}

/* c: the first marks the selected run, the second compares it with the
 * marked one (ui/compare.c). */
static unsigned browse_compare(struct browse *b)
{
	long sel = browse_selected(b);
	if (sel < 0)
		return 0;
	view_say(&b->v, NULL);
	b->v.dirty |= D_LIST;
	if (!b->ds->runs[sel].transcript && b->cmp_mark != (size_t)sel + 1) {
		/* a held-out run has nothing to compare: a stray c asks first */
		char *id = draw_safe(b->ds->runs[sel].meta.run_id);
		char *q = xasprintf(" %s has no transcript here: %s anyway? y/n", id,
		                    b->cmp_mark ? "compare it" : "mark it for compare");
		int yes = tui_yes(q);
		free(q);
		free(id);
		b->v.dirty = D_ALL;
		if (!yes) {
			b->v.msg = xstrdup(b->cmp_mark ? " not compared: the run has no transcript here"
			                               : " not marked: the run has no transcript here");
			return 0;
		}
	}
	if (!b->cmp_mark || b->cmp_mark == (size_t)sel + 1) {
		b->cmp_mark = b->cmp_mark ? 0 : (size_t)sel + 1;
		char *id = draw_safe(b->ds->runs[sel].meta.run_id);
		b->v.msg = b->cmp_mark ? xasprintf(" marked %s: c on another run compares the two", id)
		                       : xstrdup(" comparison mark removed");
		free(id);
		return 0;
	}
	size_t a = b->cmp_mark - 1;
	b->cmp_mark = 0;
	struct view *c = compare_dataset_view(b->ds, b->tag, a, (size_t)sel, &b->v.msg);
	erase();
	b->v.dirty = D_ALL;
	if (!c)
		return 0;
	b->pushed = BROWSE_PUSHED_COMPARE;
	return view_push(&b->v, c);
}

/* A screen of screens.h over the browser. */
static unsigned browse_screen(struct browse *b, const struct browse_screen *s)
{
	struct view *v = s->open(b->ds, b->tag);
	if (!v)
		return 0;
	b->pushed = BROWSE_PUSHED_SCREEN;
	return view_push(&b->v, v);
}

/* An action on the browser; the loop's shared keys (help, theme, the
 * annotation keys, q) are left to it, but a is the browser's: it knows its
 * order. */
static unsigned browse_do(struct browse *b, enum action a)
{
	long page = b->list_h > 1 ? b->list_h - 1 : 1;
	if (a == ACT_NEXT_UNANNOTATED) {
		browse_next_unannotated(b);
		return 0;
	}
	if (view_shared(&b->v, a))
		return VIEW_IGNORED;
	for (size_t k = 0; k < BROWSE_NSCREENS; k++)
		if (browse_screens[k].act == a)
			return browse_screen(b, &browse_screens[k]);
	if (b->grid_on && a != ACT_OPEN && a != ACT_GRID && a != ACT_FILTER && a != ACT_SORT && a != ACT_COMPARE) {
		browse_grid_do(b, a);
		return 0;
	}
	switch (a) {
	case ACT_DOWN: browse_goto(b, (long)b->sel + 1); break;
	case ACT_UP: browse_goto(b, (long)b->sel - 1); break;
	case ACT_PAGE_DOWN: browse_goto(b, (long)b->sel + page); break;
	case ACT_PAGE_UP: browse_goto(b, (long)b->sel - page); break;
	case ACT_FIRST: browse_goto(b, 0); break;
	case ACT_LAST: browse_goto(b, (long)b->n - 1); break;
	case ACT_OPEN: return browse_open(b);
	case ACT_GRID: browse_toggle_grid(b); break;
	case ACT_COMPARE: return browse_compare(b);
	case ACT_SORT:
		b->sort = (b->sort + 1) % SORT__COUNT;
		browse_refresh(b);
		break;
	case ACT_FILTER:
		memcpy(b->saved, b->filter, sizeof b->saved);
		b->editing = 1;
		b->v.dirty |= D_STATUS;
		break;
	default:
		break;
	}
	return 0;
}

/* A key (the loop cleared the message and took resize and the mouse). */
static unsigned browse_key(struct view *v, const struct key *k)
{
	struct browse *b = (struct browse *)v;
	if (b->editing) {
		browse_edit(b, k);
		b->v.dirty |= D_STATUS;
		return 0;
	}
	return browse_do(b, keys_action(k->code, V_BROWSE));
}

/* The view over the browser closed: after a replay whose a asked for it,
 * the next run without a verdict in its replay; verdicts may have changed
 * in any of them. */
static unsigned browse_resume(struct view *v, struct view *child)
{
	struct browse *b = (struct browse *)v;
	int pushed = b->pushed;
	b->pushed = BROWSE_PUSHED_NONE;
	sweepwatch_due(b->sweep);   /* what moved while the view was over it */
	if (pushed == BROWSE_PUSHED_WATCH)
		return 0;   /* its session goes at the next poll, once the replay over it is freed */
	if (pushed == BROWSE_PUSHED_COMPARE)
		return 0;
	if (pushed == BROWSE_PUSHED_REPLAY && child->result && !tui_stopped()) {
		long sel = browse_next_unannotated(b);
		unsigned f = sel >= 0 ? browse_open_at(b, sel) : 0;
		if (f)
			return f;
	}
	browse_retag(b);
	return pushed == BROWSE_PUSHED_REPLAY && b->open_only ? VIEW_CLOSE : 0;
}

/* The auto-flags of the runs (src/flags.h) with the shipped rules; none
 * when the rule file cannot be read (the status line says why). */
static void browse_flags_start(struct browse *b)
{
	const char *err;
	const struct flag_rules *rs = flag_rules_default(&err);
	if (!rs) {
		free(b->v.msg);
		b->v.msg = xasprintf(" no auto-flags: %s", err);
		char *safe = draw_safe(b->v.msg);
		free(b->v.msg);
		b->v.msg = safe;
		return;
	}
	b->flags = flag_runs_new(b->ds, rs);
	b->flags_left = 1;
	browse_flags = b->flags;
	grid_set_flags(b->flags);
}

/* The rows on screen are flagged first: the first of them not done yet is
 * preferred (the rows are in the sort's order, not the dataset's). */
static void browse_flags_prefer(struct browse *b)
{
	size_t end = b->top + (size_t)(b->list_h > 0 ? b->list_h : 0);
	for (size_t k = b->top; k < end && k < b->n; k++) {
		size_t i = b->order[k];
		if (b->ds->runs[i].transcript && flag_runs_state(b->flags, i) < 0) {
			flag_runs_prefer(b->flags, i, 1);
			return;
		}
	}
	flag_runs_prefer(b->flags, 0, 0);
}

/* Between keys: one more run flagged, its FLAGS cell filled in. */
/* Runs' result.json read at a time between keys (a few ms at most). */
#define BROWSE_DETAILS_PER_POLL 512

static unsigned browse_poll(struct view *v, int *ms)
{
	struct browse *b = (struct browse *)v;
	if (b->details_wait && !dataset_details_step(b->ds, BROWSE_DETAILS_PER_POLL)) {
		b->details_wait = 0;
		browse_widths(b);  /* OK is a column wider where some run's files disagree */
		b->v.dirty = D_ALL;
	}
	if (b->flags_left) {
		browse_flags_prefer(b);
		b->flags_left = flag_runs_step(b->flags);
		b->v.dirty |= D_LIST;
		if (!b->flags_left && strcasestr(b->filter, "flagged"))
			browse_refresh(b);  /* the flagged term now knows every run */
	}
	/* details or flags left to find: only peek at the keys */
	*ms = b->flags_left || b->details_wait ? 0 : -1;
	if (b->watching && b->pushed == BROWSE_PUSHED_NONE) {
		watch_session_free(b->watching);   /* its view is gone now */
		b->watching = NULL;
	}
	int sms, moved = b->sweep ? sweepwatch_poll(b->sweep, &sms) : 0;
	/* a cell that started or finished: its transcript is flagged (again) like any run's */
	for (long i; b->flags && (i = sweepwatch_fresh(b->sweep)) >= 0;) {
		flag_runs_forget(b->flags, (size_t)i);
		b->flags_left = 1;
		*ms = 0;
	}
	if (moved == 2)
		browse_refresh(b);   /* outcomes changed: filter, sort and grid again, the selection kept */
	else if (moved)
		b->v.dirty |= D_HEADER | D_LIST | D_STATUS;
	if (b->sweep && (*ms < 0 || sms < *ms))
		*ms = sms;
	return 0;
}

static void browse_view_draw(struct view *v)
{
	browse_draw((struct browse *)v);
}

static void browse_free(struct view *v)
{
	struct browse *b = (struct browse *)v;
	grid_set_flags(NULL);
	browse_flags = NULL;
	grid_set_sweep(NULL);
	browse_sweep = NULL;
	sweepwatch_free(b->sweep);
	watch_session_free(b->watching);
	flag_runs_free(b->flags);
	grid_free(&b->grid);
	free(b->order);
	free(b->v.msg);
	tag_free(b->tag);
	free(b);
}

static const struct view_ops browse_view_ops = {
	.name = "browse",
	.keys = V_BROWSE,
	.common = VIEW_HAS_HELP | VIEW_HAS_THEME | VIEW_HAS_REDRAW | VIEW_HAS_TAG | VIEW_HAS_QUIT,
	.margin = " ",
	.draw = browse_view_draw,
	.key = browse_key,
	.poll = browse_poll,
	.mouse = browse_mouse,
	.resume = browse_resume,
	.frame = browse_frame,
	.tag_run = browse_tag_run,
	.tagged = browse_tagged,
	.free = browse_free,
};

struct view *browse_new(struct dataset *ds, const struct tui_tagging *tg)
{
	struct browse *b = xcalloc(1, sizeof *b);
	b->v.ops = &browse_view_ops;
	b->ds = ds;
	/* a sweep's cells are runs before anything counts them */
	b->sweep = sweepwatch_new(ds);
	browse_sweep = b->sweep;
	grid_set_sweep(b->sweep);
	b->tag = tag_new(ds, tg ? tg->dir : NULL, tg ? tg->annotator : NULL, tg ? tg->blind : 0);
	b->open_event = tg ? tg->event : 0;
	b->order = xcalloc(ds->nruns + 1, sizeof *b->order);
	b->details_wait = ds->details_left > 0;
	browse_widths(b);
	b->list_h = LINES - 4;
	browse_refresh(b);
	browse_flags_start(b);
	return &b->v;
}

void browse_run(struct dataset *ds, const struct tui_tagging *tg, long open)
{
	struct browse *b = (struct browse *)browse_new(ds, tg);
	if (open >= 0 && (size_t)open < ds->nruns) {  /* kbtui RUN_DIR: its replay, then quit */
		b->open_only = 1;
		if (!browse_open_at(b, open)) {
			browse_free(&b->v);
			return;
		}
	}
	tui_run(&b->v);
}
