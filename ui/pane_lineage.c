/* pane_lineage.c: the kernel's lineage. One file the agent wrote (the
 * solution first; o/O for the others) as it stood at the selected event,
 * with its line count and the event that last changed it. D marks the
 * current event; moving elsewhere then shows the unified diff from the
 * marked version to the current one. w jumps to the best peak_fraction.
 * Where the file's content can no longer be followed (a cut write, a patch
 * that did not apply) the pane says so from that event on, and W shows the
 * run directory's final file instead.
 * The versions come from the run's file tracker (src/ftrack.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "artifact.h"
#include "diff.h"
#include "draw.h"
#include "flagcheck.h"
#include "ftrack.h"
#include "milestones.h"
#include "pane.h"
#include "run.h"
#include "taint.h"
#include "theme.h"
#include "util.h"

struct pane_lineage {
	size_t file;                /* index into the run's written files */
	long mark;                  /* marked event for D, -1: none */
	int final;                  /* W: the run directory's final file is shown */
	struct artifacts *as;       /* the run directory's files, read on first need (owned) */
};

static struct pane_lineage *pl_of(struct pane *p)
{
	return p->state;
}

static void pane_lineage_init(struct pane *p, struct pane_ctx *cx)
{
	struct pane_lineage *l = xcalloc(1, sizeof *l);
	(void)cx;
	l->mark = -1;
	p->state = l;
}

static void pane_lineage_free(struct pane *p)
{
	struct pane_lineage *l = p->state;
	if (l)
		artifacts_free(l->as);
	free(p->state);
	p->state = NULL;
}

/* The path as the agent would say it: relative to the session's cwd. */
static const char *pane_lineage_short(const struct run *run, const char *path)
{
	const char *cwd = run->meta.cwd;
	size_t n = cwd ? strlen(cwd) : 0;
	if (n && strncmp(path, cwd, n) == 0 && path[n] == '/')
		return path + n + 1;
	return path;
}

/* The run directory's final copy of the file shown, NULL when none. */
static const struct artifact *pane_lineage_final_file(struct pane_lineage *l, const struct run *run,
                                                      const char *path)
{
	if (!l->as) {
		const char *src = run->source;
		const char *slash = src ? strrchr(src, '/') : NULL;
		char *dir = src ? (slash ? xstrndup(src, (size_t)(slash - src)) : xstrdup(".")) : NULL;
		l->as = artifacts_load(dir, NULL, NULL);
		free(dir);
	}
	return artifacts_final(l->as, path);
}

static size_t pane_lineage_count(const char *text)
{
	size_t n = 0;
	const char *p = text;
	for (; *p; p++)
		n += *p == '\n';
	return n + (p > text && p[-1] != '\n');
}

static void pane_lineage_build(struct pane *p, struct pane_ctx *cx, int width)
{
	struct pane_lineage *l = pl_of(p);
	const struct ftrack *ft = cx->run->files;
	struct tlines *L = &p->lines;
	size_t nf = ftrack_nfiles(ft);
	long changed;

	if (!nf) {
		tlines_head(L, RL_DIM, width, "(the agent wrote no file in this run)");
		return;
	}
	if (l->file >= nf)
		l->file = 0;
	const char *path = ftrack_file_path(ft, l->file);
	const char *text = ftrack_file_at(ft, l->file, cx->sel, &changed);
	long since;
	int doubt = run_file_doubt(cx->run, l->file, cx->sel, &since);
	const struct artifact *fin = doubt || l->final ? pane_lineage_final_file(l, cx->run, path) : NULL;
	if (l->final && fin) {
		size_t nl = pane_lineage_count(fin->text);
		tlines_head(L, RL_PANE, width, "the final %s from the run directory, %zu line%s (W: the tracked version)",
		            fin->name, nl, nl == 1 ? "" : "s");
		tlines_text(L, fin->text, RL_NORMAL, width, 0, 0);
		return;
	}
	if (doubt) {  /* never silently wrong: what follows is what could be followed */
		tlines_head(L, RL_WARN, width, "from event %ld on this file cannot be followed: %s", since + 1,
		            ftrack_doubt_text((enum ftrack_doubt)doubt));
		tlines_head(L, RL_WARN, width, "%s", fin ? "W shows the final file from the run directory"
		                                         : "the run directory has no final copy of it");
	}
	if (l->mark >= 0 && (size_t)l->mark != cx->sel) {
		const char *old = ftrack_file_at(ft, l->file, (size_t)l->mark, NULL);
		char *d = diff_unified(pane_lineage_short(cx->run, path), old, text, 3);
		tlines_head(L, RL_PANE, width, "diff from event %ld (marked) to event %zu", l->mark + 1,
		            cx->sel + 1);
		if (*d)
			tlines_text(L, d, RL_NORMAL, width, 0, TL_DIFF);
		else
			tlines_head(L, RL_DIM, width, "(no change between the two events)");
		free(d);
		return;
	}
	if (!text && changed >= 0) {
		tlines_head(L, RL_DIM, width, "(deleted at event %ld)", changed + 1);
		return;
	}
	if (!text) {
		tlines_head(L, RL_DIM, width, "(not written yet at event %zu)", cx->sel + 1);
		return;
	}
	size_t nl = pane_lineage_count(text);
	tlines_head(L, RL_DIM, width, "%zu line%s, last changed at event %ld%s", nl, nl == 1 ? "" : "s",
	            changed + 1, l->mark >= 0 ? "  (marked here: move to see the diff)" : "");
	tlines_text(L, text, RL_NORMAL, width, 0, 0);
}

static void pane_lineage_title(struct pane *p, struct pane_ctx *cx, char *buf, size_t n)
{
	struct pane_lineage *l = pl_of(p);
	const struct ftrack *ft = cx->run->files;
	size_t nf = ftrack_nfiles(ft);
	if (!nf) {
		snprintf(buf, n, " lineage");
		return;
	}
	char *name = draw_safe(pane_lineage_short(cx->run, ftrack_file_path(ft, l->file < nf ? l->file : 0)));
	snprintf(buf, n, " %s  (%zu/%zu, o/O: other files)", name, (l->file < nf ? l->file : 0) + 1, nf);
	free(name);
}

static int pane_lineage_act(struct pane *p, struct pane_ctx *cx, enum action a)
{
	struct pane_lineage *l = pl_of(p);
	size_t nf = ftrack_nfiles(cx->run->files);
	if (a == ACT_ITEM_NEXT || a == ACT_ITEM_PREV) {
		if (nf)
			l->file = (l->file + (a == ACT_ITEM_NEXT ? 1 : nf - 1)) % nf;
		pane_invalidate(p);
		p->top = 0;
		return 1;
	}
	return pane_scroll_act(p, cx, a);
}

/* msg: owned, given up. */
static void pane_lineage_say(struct pane_ctx *cx, char *msg)
{
	cx->host->say(cx, msg);
	cx->host->dirty(cx, D_DETAIL);
	free(msg);
}

void pane_lineage_mark(struct pane *p, struct pane_ctx *cx)
{
	struct pane_lineage *l = pl_of(p);
	if (!l)
		return;
	if (l->mark >= 0) {
		l->mark = -1;
		pane_lineage_say(cx, xstrdup("lineage mark cleared"));
	} else {
		l->mark = (long)cx->sel;
		pane_lineage_say(cx, xasprintf("marked event %zu: the lineage pane (v) shows the diff from it; D clears",
		                               cx->sel + 1));
	}
	pane_invalidate(p);
}

void pane_lineage_final(struct pane *p, struct pane_ctx *cx)
{
	struct pane_lineage *l = pl_of(p);
	const struct ftrack *ft = cx->run->files;
	size_t nf = ftrack_nfiles(ft);
	if (!l)
		return;
	const char *path = nf ? ftrack_file_path(ft, l->file < nf ? l->file : 0) : NULL;
	if (!l->final && !pane_lineage_final_file(l, cx->run, path)) {
		pane_lineage_say(cx, xstrdup("no final copy of this file in the run directory"));
		return;
	}
	l->final = !l->final;
	pane_lineage_say(cx, xstrdup(l->final ? "lineage: the run directory's final file (W: back)"
	                                      : "lineage: the file as the transcript's changes make it"));
	pane_invalidate(p);
	p->top = 0;
}

void pane_lineage_best(struct pane_ctx *cx)
{
	double peak;
	long ev = milestones_best(cx->run, &peak);
	if (ev < 0) {
		pane_lineage_say(cx, xstrdup("no peak_fraction in this run's tool results"));
		return;
	}
	cx->host->select(cx, (size_t)ev);
	/* the best may be what an edited grader or a broken clock measured:
	 * said with it, and the best measured under the grader as shipped */
	struct taint *t = taint_build(cx->run);
	char *tn = taint_note(t, (size_t)ev), *clean = NULL;
	if (tn) {
		double best = -1;
		long at = -1;
		for (size_t i = 0; i < cx->run->nev; i++) {
			const struct event *e = &cx->run->ev[i];
			double pk = e->kind == EV_TOOL_RESULT && e->text && taint_at(t, i) < 0 ? milestones_text_peak(e->text) : -1;
			if (pk > best) {
				best = pk;
				at = (long)i;
			}
		}
		clean = at >= 0 ? xasprintf("; the best untainted %.4g at event %ld", best, at + 1)
		                : xstrdup("; none untainted");
	}
	pane_lineage_say(cx, xasprintf("best peak_fraction %.4g at event %ld%s%s%s%s%s", peak, ev + 1,
	                               peak > 1 + FLAGCHECK_MARGIN ? " (above 1: more than the GPU can do)" : "",
	                               tn ? " (" : "", tn ? tn : "", tn ? ")" : "", clean ? clean : ""));
	free(tn);
	free(clean);
	taint_free(t);
}

const struct pane_ops pane_lineage_ops = {
	.name = "lineage",
	.per_event = 1,
	.init = pane_lineage_init,
	.free = pane_lineage_free,
	.build = pane_lineage_build,
	.title = pane_lineage_title,
	.act = pane_lineage_act,
};
