/* reeval_view.c: R in a replay: the solution as it stood at the selected
 * event goes into a fresh work directory and through the eval loop (the
 * python one of a KernelBench-Hard checkout for a dataset run, ours for
 * solution.cu) in a thread (src/evaljob.c); a view over the replay's side
 * pane shows its progress, then our numbers beside the agent's own
 * benchmark output at that step. The replay below keeps every key this
 * view does not take. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "draw.h"
#include "eval.h"
#include "evaljob.h"
#include "keys.h"
#include "pane.h"
#include "reeval.h"
#include "reeval_view.h"
#include "run.h"
#include "theme.h"
#include "tlines.h"
#include "tui.h"
#include "util.h"
#include "view.h"

static double reeval_view_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *reeval_view_tool(enum eval_stage s)
{
	switch (s) {
	case EVAL_FORBID: return "forbidden";
	case EVAL_COMPILE: return "nvcc";
	case EVAL_CHECK: return "check";
	case EVAL_BENCH: return "benchmark";
	default: return "eval";
	}
}

/* ---- the job ------------------------------------------------------------------- */

struct reeval_view_job {
	struct evaljob *job;        /* NULL when it could not start */
	struct eval_opts o;         /* its strings are the fields below */
	char *dir, *solution, *problem, *kbh, *python, *hardware, *src_path;
	size_t ev;                  /* the event re-evaluated */
	long changed_at;            /* the event that wrote that version */
	struct reeval_agent agent;
	struct sbuf log;            /* every line of the loop, for errors */
	int ended, rc;
	double t0;
	size_t top;                 /* scrolled rows */
};

static void reeval_view_job_free(struct reeval_view_job *re)
{
	if (!re)
		return;
	evaljob_free(re->job);
	reeval_agent_free(&re->agent);
	sbuf_free(&re->log);
	free(re->dir);
	free(re->solution);
	free(re->problem);
	free(re->kbh);
	free(re->python);
	free(re->hardware);
	free(re->src_path);
	free(re);
}


/* The solution at the event into a fresh directory; NULL with a message. */
static struct reeval_view_job *reeval_view_job_new(const struct pane_ctx *cx, char **msg)
{
	const char *path = NULL, *ext;
	long at;
	const char *text = reeval_solution_at(cx->run, cx->sel, &path, &at);
	const char *kbh = getenv("KBTUI_KBH"), *py = getenv("KBTUI_PYTHON"), *hw = getenv("KBTUI_HARDWARE");
	char *err = NULL;

	if (!text) {
		*msg = xstrdup("R: the run has written no solution.py or solution.cu by this event");
		return NULL;
	}
	ext = reeval_ext(path);
	if (!strcmp(ext, "py") && (!kbh || !*kbh || !util_is_dir(kbh))) {
		*msg = xstrdup(kbh && *kbh ? "R: $KBTUI_KBH is not a directory: set it to a KernelBench-Hard checkout"
		                           : "R: a dataset run is scored by KernelBench-Hard's python loop: "
		                             "set KBTUI_KBH=DIR (a checkout), KBTUI_PYTHON for its python");
		return NULL;
	}
	struct reeval_view_job *re = xcalloc(1, sizeof *re);
	sbuf_init(&re->log);
	re->ev = cx->sel;
	re->changed_at = at;
	re->src_path = xstrdup(path);
	if (!(re->problem = reeval_problem(cx->run))) {
		*msg = xstrdup("R: cannot tell the run's problem (no metadata, result.json or NN_name directory)");
		reeval_view_job_free(re);
		return NULL;
	}
	if (!(re->dir = reeval_workdir(cx->run, cx->sel, &err))) {
		*msg = xasprintf("R: %s", err);
		free(err);
		reeval_view_job_free(re);
		return NULL;
	}
	char *in = util_path_join(re->dir, "in");
	mkdir(in, 0700);
	re->solution = xasprintf("%s/solution.%s", in, ext);
	free(in);
	FILE *f = fopen(re->solution, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		*msg = xasprintf("R: cannot write %s", re->solution);
		reeval_view_job_free(re);
		return NULL;
	}
	if (!strcmp(ext, "py")) {
		re->kbh = xstrdup(kbh);
		re->python = py && *py ? xstrdup(py) : NULL;
	}
	re->o.problem = re->problem;
	re->o.solution = re->solution;
	re->o.workdir = re->dir;
	re->o.kbh = re->kbh;
	re->o.python = re->python;
	re->o.model = cx->run->meta.model;
	re->hardware = !re->kbh && hw && *hw ? xstrdup(hw) : NULL;
	re->o.hardware = re->hardware;
	reeval_agent_at(cx->run, cx->sel, &re->agent);
	return re;
}

/* What R does: asks, then starts the loop on the solution at the selected
 * event. 1: *out is the running re-evaluation (owned); 0: it could not
 * start (the replay says why); -1: nothing to do, or the user said no. */
static int reeval_view_job_begin(struct view *below, const struct pane_ctx *cx, struct reeval_view_job **out)
{
	char *msg = NULL;
	if (!cx->run->nev)
		return -1;
	/* the solution is the transcript's code: it runs here only when asked */
	const char *path = NULL;
	long at;
	if (reeval_solution_at(cx->run, cx->sel, &path, &at)) {
		char *base = draw_safe(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		char *q = xasprintf("R: run the agent's %s of event %ld here (code from the transcript)? (y/n) ", base,
		                    at + 1);
		int yes = tui_yes(q);
		free(q);
		free(base);
		below->dirty = D_ALL;
		if (!yes)
			return -1;
	}
	struct reeval_view_job *re = reeval_view_job_new(cx, &msg);
	if (!re) {
		view_say(below, msg);
		free(msg);
		return 0;
	}
	re->t0 = reeval_view_now();
	re->job = evaljob_start(&re->o);
	if (!re->job) {
		re->ended = 1;
		re->rc = -1;
	}
	below->dirty |= D_DETAIL | D_STATUS;
	*out = re;
	return 1;
}

/* What the loop said since the last poll; 1 when something changed. */
static int reeval_view_job_poll(struct reeval_view_job *re)
{
	struct evaljob_item *items;
	size_t n;
	if (re->ended || !re->job)
		return 0;
	int ended = evaljob_take(re->job, &items, &n);
	for (size_t i = 0; i < n; i++) {
		if (items[i].kind == EJ_STAGE) {
			sbuf_addf(&re->log, "== %s\n", reeval_view_tool(items[i].stage));
			continue;
		}
		if (re->log.len > (1u << 20))   /* the tail is what is shown */
			sbuf_reset(&re->log);
		sbuf_addf(&re->log, "%s%s\n", strcmp(items[i].origin, "eval") ? "" : "kbtui eval: ", items[i].text);
	}
	evaljob_items_free(items, n);
	if (ended) {
		re->rc = evaljob_wait(re->job);
		re->ended = 1;
	}
	return 1;   /* the elapsed time moves too */
}

/* The last n lines of s. */
static const char *reeval_view_tail(const char *s, int n)
{
	const char *p = s + strlen(s);
	while (p > s && p[-1] == '\n')
		p--;
	while (p > s && n > 0)
		if (*--p == '\n')
			n--;
	return p == s ? s : p + 1;
}

static void reeval_view_job_lines(struct reeval_view_job *re, struct tlines *L, int w)
{
	const struct eval_result *r = re->job && re->ended ? evaljob_result(re->job) : NULL;
	char el[32];
	char *src = draw_safe(re->src_path);
	tlines_head(L, RL_TITLE, w, "Re-evaluation of %s at event %zu (the version of event %ld), %s", src,
	            re->ev + 1, re->changed_at + 1, re->kbh ? "python loop (KernelBench-Hard)" : "native loop");
	free(src);
	draw_duration(el, sizeof el, r ? r->elapsed_seconds : reeval_view_now() - re->t0);
	if (!re->ended) {
		tlines_head(L, RL_BANNER, w, "RUNNING: %s %s  (Esc stops it)",
		            eval_stage_name(evaljob_stage(re->job)), el);
	} else if (!r || re->rc < 0) {
		tlines_head(L, RL_FAIL, w, "could not run (setup):");
		tlines_text(L, r && r->failure ? r->failure : "cannot start the loop", RL_FAIL, w, 2, 0);
		if (!re->kbh && !re->hardware)
			tlines_head(L, RL_DIM, w, "(R takes the target from KBTUI_HARDWARE=KEY: kbtui eval --list-hardware)");
	} else if (r->correct) {
		if (r->peak_fraction >= 0)
			tlines_head(L, RL_OK, w, "PASS, peak_fraction %.4f (%s) in %s", r->peak_fraction,
			            r->verdict ? r->verdict : "-", el);
		else
			tlines_head(L, RL_OK, w, "PASS, not benchmarked, in %s", el);
	} else {
		tlines_head(L, RL_FAIL, w, "FAIL at %s in %s:", eval_stage_name(r->stage), el);
	}
	if (r && r->failure && re->rc >= 0)
		tlines_text(L, r->failure, r->correct ? RL_WARN : RL_FAIL, w, 2, 0);
	tlines_push(L, "", 0, RL_NORMAL);
	if (re->agent.bench_ev >= 0)
		tlines_head(L, RL_DIM, w, "agent's numbers: its benchmark output at event %ld%s", re->agent.bench_ev + 1,
		            re->agent.check ? "" : " (no PASS/FAIL line seen)");
	else
		tlines_head(L, RL_DIM, w, "agent's numbers: no benchmark output at or before this event");
	struct sbuf t;
	sbuf_init(&t);
	reeval_compare(&re->agent, r, &t);
	for (const char *p = t.s; p && *p;) {
		size_t n = strcspn(p, "\n");
		char *row = xstrndup(p, n), *safe = draw_safe(row);
		tlines_push(L, safe, strlen(safe), RL_NORMAL);
		free(safe);
		free(row);
		p += n + (p[n] != 0);
	}
	sbuf_free(&t);
	if (re->ended && r && !r->correct && re->log.len) {
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_PANE, w, "the %s step's output (last lines):", eval_stage_name(r->stage));
		tlines_text(L, reeval_view_tail(re->log.s, 30), RL_RESULT, w, 2, 0);
	} else if (!re->ended && re->log.len) {
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_text(L, reeval_view_tail(re->log.s, 8), RL_DIM, w, 2, 0);
	}
	tlines_push(L, "", 0, RL_NORMAL);
	char *dir = draw_safe(re->dir);
	tlines_head(L, RL_DIM, w, "work directory: %s", dir);
	free(dir);
	tlines_head(L, RL_KEY, w, "Esc or q closes%s", re->ended ? ", R again re-evaluates the selected event" : "");
}

/* ---- the view over the replay ------------------------------------------------ */

struct reeval_view {
	struct view v;              /* first; its dirty flags are the view below's D_* */
	struct view *below;         /* the replay (borrowed: it is under this view) */
	const struct pane_ctx *cx;  /* its run and selection (borrowed, as below) */
	struct reeval_view_job *re; /* owned */
};

/* Over the pane beside the list (y, x, w, h), or the whole width when that
 * is narrow. */
static void reeval_view_paint(void *arg, int y, int x, int w, int h)
{
	struct reeval_view_job *re = arg;
	struct tlines L = {0};
	if (w < 60) {
		x = 0;
		w = COLS;
	}
	if (w < 10 || h < 3)
		return;
	reeval_view_job_lines(re, &L, w - 2);
	if (re->top + 1 > L.n)
		re->top = L.n ? L.n - 1 : 0;
	for (int r = 0; r < h; r++)
		draw_fill(y + r, x, w, RL_NORMAL);
	tlines_draw(&L, re->top, y, x + 1, w - 2, h, NULL);
	tlines_free(&L);
}

static void reeval_view_draw(struct view *v)
{
	struct reeval_view *o = (struct reeval_view *)v;
	o->below->dirty |= v->dirty;
	v->dirty = 0;
	o->below->ops->draw_over(o->below, reeval_view_paint, o->re);
}

/* R again once the loop has ended: a new one at the selected event. */
static unsigned reeval_view_again(struct reeval_view *o)
{
	struct reeval_view_job *next = NULL;
	if (!o->re->ended) {
		view_say(o->below, "R: a re-evaluation is running (Esc stops it)");
		return 0;
	}
	int rc = reeval_view_job_begin(o->below, o->cx, &next);
	if (rc == 0)
		return VIEW_CLOSE;  /* the old one went: the replay says why there is no new one */
	if (rc > 0) {
		reeval_view_job_free(o->re);
		o->re = next;
	}
	o->v.dirty |= D_DETAIL | D_STATUS;
	return 0;
}

/* Esc and q close it (stopping a running loop), j/k scroll it, R starts
 * again; the view below takes every other key, and all of them while its
 * prompt is open. */
static unsigned reeval_view_key(struct view *v, const struct key *k)
{
	struct reeval_view *o = (struct reeval_view *)v;
	enum action a = keys_action(k->code, V_REPLAY);
	if (o->below->ops->typing && o->below->ops->typing(o->below))
		return VIEW_FORWARD;
	if (k->code != 27 && a != ACT_QUIT && a != ACT_DOWN && a != ACT_UP && a != ACT_REEVAL)
		return VIEW_FORWARD;
	view_say(o->below, NULL);  /* a key clears the message below, as there */
	if (k->code == 27 || a == ACT_QUIT) {
		if (!o->re->ended)
			evaljob_abort(o->re->job);   /* reeval_view_job_free waits for its end */
		return VIEW_CLOSE;
	}
	if (a == ACT_REEVAL)
		return reeval_view_again(o);
	if (a == ACT_DOWN)
		o->re->top++;
	else if (o->re->top)
		o->re->top--;
	v->dirty |= D_DETAIL;
	return 0;
}

static unsigned reeval_view_mouse(struct view *v, const struct mouse_event *m)
{
	(void)v;
	(void)m;
	return VIEW_FORWARD;
}

/* The view below goes on (a feed, playback); a running loop is polled at
 * least every 200 ms. */
static unsigned reeval_view_poll(struct view *v, int *ms)
{
	struct reeval_view *o = (struct reeval_view *)v;
	struct view *below = o->below;
	below->idle = v->idle;
	unsigned f = below->ops->poll ? below->ops->poll(below, ms) : 0;
	v->dirty |= below->dirty;
	if (!o->re->ended) {
		if (reeval_view_job_poll(o->re))
			v->dirty |= D_DETAIL;
		*ms = *ms < 0 || *ms > 200 ? 200 : *ms;
	}
	return f & ~(VIEW_PUSH | VIEW_CLOSE);
}

static void reeval_view_free(struct view *v)
{
	struct reeval_view *o = (struct reeval_view *)v;
	reeval_view_job_free(o->re);
	o->below->dirty = D_ALL;
	free(o);
}

static const struct view_ops reeval_view_ops = {
	.name = "re-evaluation",
	.keys = V_REPLAY,
	.draw = reeval_view_draw,
	.key = reeval_view_key,
	.poll = reeval_view_poll,
	.mouse = reeval_view_mouse,
	.free = reeval_view_free,
};

struct view *reeval_view_new(struct view *below, const struct pane_ctx *cx)
{
	struct reeval_view_job *re = NULL;
	if (!below->ops->draw_over || reeval_view_job_begin(below, cx, &re) <= 0)
		return NULL;
	struct reeval_view *o = xcalloc(1, sizeof *o);
	o->v.ops = &reeval_view_ops;
	o->v.dirty = D_ALL;
	o->below = below;
	o->cx = cx;
	o->re = re;
	return &o->v;
}
