/* evaltui.c: the eval loop on the replay screen.
 *
 * `kbtui eval --tui`: the loop runs in a thread (src/evaljob.c) and never
 * touches curses; the screen is the replay over a feed (as ui/live.c does)
 * whose poll turns the loop's output into a growing run: a tool call per
 * step (forbidden, nvcc, check, benchmark) and its output streaming into the
 * matching tool result, so the compiler pane finds nvcc's errors and the
 * timing pane the shape= and peak_fraction: lines as in any transcript.
 *
 * R in a replay: the solution as it stood at the selected event goes into
 * a fresh work directory and through the loop (the python one of a
 * KernelBench-Hard checkout for a dataset run, ours for solution.cu); an
 * overlay over the side pane shows its progress, then our numbers beside
 * the agent's own benchmark output at that step. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "benchlog.h"
#include "cmd.h"
#include "draw.h"
#include "eval.h"
#include "evaljob.h"
#include "jsonx.h"
#include "evaltui.h"
#include "keys.h"
#include "reeval.h"
#include "replay.h"
#include "run.h"
#include "theme.h"
#include "tlines.h"
#include "tui.h"
#include "util.h"
#include "view.h"

static double evaltui_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double evaltui_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The tool a step shows as. */
static const char *evaltui_tool(enum eval_stage s)
{
	switch (s) {
	case EVAL_FORBID: return "forbidden";
	case EVAL_COMPILE: return "nvcc";
	case EVAL_CHECK: return "check";
	case EVAL_BENCH: return "benchmark";
	default: return "eval";
	}
}

/* A y/n question on the bottom row; 1 for y. */
static int evaltui_yes(const char *question)
{
	struct key k;
	draw_bar(LINES - 1, RL_MSG, question, NULL);
	refresh();
	timeout(-1);
	while (keys_read(&k) == ERR)
		if (tui_stopped())
			return 1;
	return k.code == 'y' || k.code == 'Y';
}

/* ---- kbtui eval --tui ----------------------------------------------------------- */

struct evaltui {
	struct eval_cmd *ec;
	struct evaljob *job;
	struct run *run;
	long result_ev;             /* the open step's tool result, -1: none */
	struct sbuf out;            /* its text as it grows (copied in once a poll) */
	int want_pane;              /* for evaltui_pane: -1 when said */
	long stage_ev[EVAL_DONE + 1]; /* each step's tool result, -1: not reached */
	int ended;                  /* the job's end was turned into events */
	double t0;
	char status[256];
	char *title;
};

static struct event *evaltui_add(struct evaltui *et, enum ev_kind k, const char *text)
{
	struct event *e = run_add(et->run, k, 0);
	e->ts = evaltui_wall();
	e->text = xstrdup(text);
	return e;
}

/* A step begins: its tool call and an empty result it streams into. */
static void evaltui_step(struct evaltui *et, enum eval_stage s)
{
	const struct eval_opts *o = &et->ec->o;
	char *id = xasprintf("eval-%d", (int)s);
	struct event *c = run_add(et->run, EV_TOOL_CALL, 0);
	size_t ci = et->run->nev - 1;
	c->ts = evaltui_wall();
	c->name = xstrdup(evaltui_tool(s));
	c->call_id = xstrdup(id);
	c->path = xstrdup(o->solution);
	cJSON *args = cJSON_CreateObject();
	cJSON_AddStringToObject(args, "stage", eval_stage_name(s));
	cJSON_AddStringToObject(args, "solution", o->solution);
	c->args = cJSON_PrintUnformatted(args);
	cJSON_Delete(args);
	struct event *r = evaltui_add(et, EV_TOOL_RESULT, "");
	sbuf_reset(&et->out);
	r->call_id = id;
	r->link = (int)ci;
	et->run->ev[ci].link = (int)(et->run->nev - 1);
	et->result_ev = (long)(et->run->nev - 1);
	et->stage_ev[s] = et->result_ev;
	if (s == EVAL_COMPILE || s == EVAL_BENCH)
		et->want_pane = s == EVAL_COMPILE ? PANE_COMPILER : PANE_TIMING;
}

static void evaltui_line(struct evaltui *et, const struct evaljob_item *it)
{
	int own = !strcmp(it->origin, "eval");
	if (et->result_ev < 0) {   /* before the first step: the loop's own words */
		char *t = xasprintf("kbtui eval: %s", it->text);
		evaltui_add(et, EV_TEXT, t);
		free(t);
		return;
	}
	sbuf_addf(&et->out, "%s%s%s", et->out.len ? "\n" : "", own ? "kbtui eval: " : "", it->text);
}

/* The open step's result gets its text of now: one copy a poll, not one
 * a line. */
static void evaltui_sync(struct evaltui *et)
{
	if (et->result_ev < 0)
		return;
	struct event *r = &et->run->ev[et->result_ev];
	free(r->text);
	r->text = xstrdup(et->out.len ? et->out.s : "");
}

/* The end: the failing step marked, the verdict and shapes as a last
 * message, result.json beside the run for the timing pane. */
static void evaltui_end(struct evaltui *et)
{
	const struct eval_result *r = evaljob_result(et->job);
	int rc = evaljob_rc(et->job);
	struct sbuf b;
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (m) {
		if (rc < 0)
			fprintf(m, "kbtui eval: %s\n", r->failure ? r->failure : "cannot start");
		else
			cmd_eval_summary(r, m);
		fclose(m);
	}
	sbuf_init(&b);
	sbuf_adds(&b, text ? text : "");
	free(text);
	for (int i = 0; i < r->nshapes; i++) {
		const struct eval_shape *s = &r->shapes[i];
		sbuf_addf(&b, "shape %d%s%s:", s->shape, s->desc ? " " : "", s->desc ? s->desc : "");
		if (s->ms >= 0)
			sbuf_addf(&b, " ms=%.4f tflops=%.3f gbps=%.1f", s->ms, s->tflops, s->gbps);
		else
			sbuf_adds(&b, " not timed");
		if (s->peak_fraction >= 0)
			sbuf_addf(&b, " peak_fraction=%.4f", s->peak_fraction);
		sbuf_addc(&b, '\n');
	}
	if (b.len && b.s[b.len - 1] == '\n')
		b.s[--b.len] = '\0';
	struct event *e = evaltui_add(et, rc == 0 ? EV_TEXT : EV_ERROR, b.s);
	e->is_error = rc != 0;
	sbuf_free(&b);
	if (r->failure && r->stage <= EVAL_DONE && et->stage_ev[r->stage] >= 0)
		et->run->ev[et->stage_ev[r->stage]].is_error = 1;
	if (r->workdir) {   /* the timing pane reads result.json beside the source */
		free(et->run->source);
		et->run->source = util_path_join(r->workdir, "eval");
	}
	et->run->complete_seen = 1;
	et->ended = 1;
}

static void evaltui_status_text(struct evaltui *et)
{
	char el[32];
	double secs = et->ended ? evaljob_result(et->job)->elapsed_seconds : evaltui_now() - et->t0;
	draw_duration(el, sizeof el, secs);
	if (!et->ended) {
		snprintf(et->status, sizeof et->status, "EVAL %s %s", eval_stage_name(evaljob_stage(et->job)), el);
		return;
	}
	const struct eval_result *r = evaljob_result(et->job);
	if (r->correct && r->peak_fraction >= 0)
		snprintf(et->status, sizeof et->status, "ENDED: PASS peak_fraction %.4f %s | q quits", r->peak_fraction, el);
	else if (r->correct)
		snprintf(et->status, sizeof et->status, "ENDED: PASS, not benchmarked %s | q quits", el);
	else
		snprintf(et->status, sizeof et->status, "ENDED: FAIL at %s %s | q quits", eval_stage_name(r->stage), el);
}

static int evaltui_poll(struct replay_feed *f, struct run *run)
{
	struct evaltui *et = f->state;
	struct evaljob_item *items;
	size_t n;
	(void)run;
	if (et->ended)
		return -1;
	int ended = evaljob_take(et->job, &items, &n);
	for (size_t i = 0; i < n; i++) {
		if (items[i].kind == EJ_STAGE) {
			evaltui_sync(et);   /* the step before is complete */
			evaltui_step(et, items[i].stage);
		} else {
			evaltui_line(et, &items[i]);
		}
	}
	evaljob_items_free(items, n);
	evaltui_sync(et);
	if (ended)
		evaltui_end(et);
	evaltui_status_text(et);
	return n || ended ? 1 : 0;
}

static const char *evaltui_status(struct replay_feed *f)
{
	struct evaltui *et = f->state;
	if (!et->ended)
		evaltui_status_text(et);   /* the elapsed time moves */
	return et->status;
}

/* The pane a step begins with: the compiler output for nvcc, the timing
 * for the benchmark; once, so that v still chooses. */
static int evaltui_pane(struct replay_feed *f)
{
	struct evaltui *et = f->state;
	int p = et->want_pane;
	et->want_pane = -1;
	return p;
}

/* q while the loop runs: ask, then stop it (its process group is killed). */
static int evaltui_quit(struct replay_feed *f)
{
	struct evaltui *et = f->state;
	if (et->ended)
		return 1;
	if (!evaltui_yes("the eval is still running: abort it and quit? (y/n) "))
		return 0;
	evaljob_abort(et->job);
	return 1;
}

static int evaltui_screen(struct eval_cmd *ec)
{
	struct evaltui et;
	struct replay_feed feed = {0};
	int rc;

	memset(&et, 0, sizeof et);
	et.ec = ec;
	et.result_ev = -1;
	et.want_pane = -1;
	sbuf_init(&et.out);
	for (int i = 0; i <= EVAL_DONE; i++)
		et.stage_ev[i] = -1;
	et.run = run_new();
	et.run->meta.problem = xstrdup(ec->o.problem);
	et.run->meta.format = xstrdup(ec->o.kbh ? "eval --kbh" : "eval");
	et.run->meta.model = xstrdup(ec->o.kbh ? "python loop" : "native loop");
	et.t0 = evaltui_now();
	et.title = xasprintf("eval: %s, %s", ec->o.problem, ec->o.solution);
	snprintf(et.status, sizeof et.status, "EVAL setup");
	if (!(et.job = evaljob_start(&ec->o))) {
		fprintf(stderr, "kbtui eval: cannot start the loop's thread\n");
		run_free(et.run);
		free(et.title);
		return CMD_BADINPUT;
	}
	feed.poll = evaltui_poll;
	feed.status = evaltui_status;
	feed.quit = evaltui_quit;
	feed.pane = evaltui_pane;
	feed.name = "eval";
	feed.interval_ms = 100;
	feed.state = &et;

	tui_start();
	replay_run_feed(et.run, et.title, &feed);
	tui_stop();

	if (!et.ended)
		fprintf(stderr, "kbtui eval: stopping the loop ...\n");
	evaljob_abort(et.job);   /* no-op once it has ended */
	rc = evaljob_wait(et.job);
	const struct eval_result *r = evaljob_result(et.job);
	if (rc < 0)
		fprintf(stderr, "kbtui eval: %s\n", r->failure ? r->failure : "cannot start");
	else
		cmd_eval_summary(r, stdout);
	evaljob_free(et.job);
	sbuf_free(&et.out);
	run_free(et.run);
	free(et.title);
	return rc == 0 && et.ended ? CMD_OK : CMD_BADINPUT;
}

int evaltui_main(int argc, char **argv)
{
	struct eval_cmd ec;
	int rc = cmd_eval_prepare(argc, argv, &ec, stdout, stderr);
	if (rc >= 0)
		return rc;
	if (!ec.tui)
		return cmd_eval_headless(&ec, stdout, stderr);
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fputs("kbtui eval: --tui needs a terminal (drop it to get the log on stdout)\n", stderr);
		return CMD_USAGE;
	}
	return evaltui_screen(&ec);
}

/* ---- R: re-evaluation from a replay --------------------------------------------- */

struct evaltui_reeval {
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

static void evaltui_reeval_free(struct evaltui_reeval *re)
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

static void evaltui_say(struct replay *rp, const char *msg)
{
	free(rp->v.msg);
	rp->v.msg = xstrdup(msg);
	rp->v.dirty |= D_STATUS;
}

/* The solution at the event into a fresh directory; NULL with a message. */
static struct evaltui_reeval *evaltui_reeval_new(struct replay *rp, char **msg)
{
	const char *path = NULL, *ext;
	long at;
	const char *text = reeval_solution_at(rp->cx.run, rp->cx.sel, &path, &at);
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
	struct evaltui_reeval *re = xcalloc(1, sizeof *re);
	sbuf_init(&re->log);
	re->ev = rp->cx.sel;
	re->changed_at = at;
	re->src_path = xstrdup(path);
	if (!(re->problem = reeval_problem(rp->cx.run))) {
		*msg = xstrdup("R: cannot tell the run's problem (no metadata, result.json or NN_name directory)");
		evaltui_reeval_free(re);
		return NULL;
	}
	if (!(re->dir = reeval_workdir(rp->cx.run, rp->cx.sel, &err))) {
		*msg = xasprintf("R: %s", err);
		free(err);
		evaltui_reeval_free(re);
		return NULL;
	}
	char *in = util_path_join(re->dir, "in");
	mkdir(in, 0700);
	re->solution = xasprintf("%s/solution.%s", in, ext);
	free(in);
	FILE *f = fopen(re->solution, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		*msg = xasprintf("R: cannot write %s", re->solution);
		evaltui_reeval_free(re);
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
	re->o.model = rp->cx.run->meta.model;
	re->hardware = !re->kbh && hw && *hw ? xstrdup(hw) : NULL;
	re->o.hardware = re->hardware;
	reeval_agent_at(rp->cx.run, rp->cx.sel, &re->agent);
	return re;
}

/* What R does: asks, then starts the loop on the solution at the selected
 * event. 1: *out is the running re-evaluation (owned); 0: it could not
 * start (the replay says why); -1: nothing to do, or the user said no. */
static int evaltui_reeval_begin(struct replay *rp, struct evaltui_reeval **out)
{
	char *msg = NULL;
	if (!rp->cx.run->nev)
		return -1;
	/* the solution is the transcript's code: it runs here only when asked */
	const char *path = NULL;
	long at;
	if (reeval_solution_at(rp->cx.run, rp->cx.sel, &path, &at)) {
		char *base = draw_safe(strrchr(path, '/') ? strrchr(path, '/') + 1 : path);
		char *q = xasprintf("R: run the agent's %s of event %ld here (code from the transcript)? (y/n) ", base,
		                    at + 1);
		int yes = evaltui_yes(q);
		free(q);
		free(base);
		rp->v.dirty = D_ALL;
		if (!yes)
			return -1;
	}
	struct evaltui_reeval *re = evaltui_reeval_new(rp, &msg);
	if (!re) {
		evaltui_say(rp, msg);
		free(msg);
		return 0;
	}
	re->t0 = evaltui_now();
	re->job = evaljob_start(&re->o);
	if (!re->job) {
		re->ended = 1;
		re->rc = -1;
	}
	rp->v.dirty |= D_DETAIL | D_STATUS;
	*out = re;
	return 1;
}

/* What the loop said since the last poll; 1 when something changed. */
static int evaltui_reeval_poll(struct evaltui_reeval *re)
{
	struct evaljob_item *items;
	size_t n;
	if (re->ended || !re->job)
		return 0;
	int ended = evaljob_take(re->job, &items, &n);
	for (size_t i = 0; i < n; i++) {
		if (items[i].kind == EJ_STAGE) {
			sbuf_addf(&re->log, "== %s\n", evaltui_tool(items[i].stage));
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
static const char *evaltui_tail(const char *s, int n)
{
	const char *p = s + strlen(s);
	while (p > s && p[-1] == '\n')
		p--;
	while (p > s && n > 0)
		if (*--p == '\n')
			n--;
	return p == s ? s : p + 1;
}

static void evaltui_reeval_lines(struct evaltui_reeval *re, struct tlines *L, int w)
{
	const struct eval_result *r = re->job && re->ended ? evaljob_result(re->job) : NULL;
	char el[32];
	char *src = draw_safe(re->src_path);
	tlines_head(L, RL_TITLE, w, "Re-evaluation of %s at event %zu (the version of event %ld), %s", src,
	            re->ev + 1, re->changed_at + 1, re->kbh ? "python loop (KernelBench-Hard)" : "native loop");
	free(src);
	draw_duration(el, sizeof el, r ? r->elapsed_seconds : evaltui_now() - re->t0);
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
		tlines_text(L, evaltui_tail(re->log.s, 30), RL_RESULT, w, 2, 0);
	} else if (!re->ended && re->log.len) {
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_text(L, evaltui_tail(re->log.s, 8), RL_DIM, w, 2, 0);
	}
	tlines_push(L, "", 0, RL_NORMAL);
	char *dir = draw_safe(re->dir);
	tlines_head(L, RL_DIM, w, "work directory: %s", dir);
	free(dir);
	tlines_head(L, RL_KEY, w, "Esc or q closes%s", re->ended ? ", R again re-evaluates the selected event" : "");
}

/* ---- the overlay: a view over the replay ------------------------------------ */

struct evaltui_over {
	struct view v;              /* first; its dirty flags are the replay's D_* */
	struct replay *rp;          /* the replay below (borrowed: it is under this view) */
	struct evaltui_reeval *re;  /* owned */
};

/* Over the side pane (the whole width when it is narrow), after the panes. */
static void evaltui_over_paint(struct replay *rp, void *arg)
{
	struct evaltui_reeval *re = arg;
	struct tlines L = {0};
	int x = rp->cx.side_w >= 60 ? rp->side_x : 0, w = rp->cx.side_w >= 60 ? rp->cx.side_w : COLS;
	int y = rp->body_y, h = rp->cx.body_h;
	if (w < 10 || h < 3)
		return;
	evaltui_reeval_lines(re, &L, w - 2);
	if (re->top + 1 > L.n)
		re->top = L.n ? L.n - 1 : 0;
	for (int r = 0; r < h; r++)
		draw_fill(y + r, x, w, RL_NORMAL);
	tlines_draw(&L, re->top, y, x + 1, w - 2, h, NULL);
	tlines_free(&L);
}

static void evaltui_over_draw(struct view *v)
{
	struct evaltui_over *o = (struct evaltui_over *)v;
	o->rp->v.dirty |= v->dirty;
	v->dirty = 0;
	replay_draw_over(o->rp, evaltui_over_paint, o->re);
}

/* Esc and q close it (stopping a running loop), j/k scroll it, R starts
 * again once it has ended; the replay below takes every other key. */
static unsigned evaltui_over_key(struct view *v, const struct key *k)
{
	struct evaltui_over *o = (struct evaltui_over *)v;
	struct evaltui_reeval *re = o->re;
	enum action a = keys_action(k->code, V_REPLAY);
	if (o->rp->prompt)  /* the replay's prompt, opened under the overlay, takes every key */
		return VIEW_FORWARD;
	if (k->code != 27 && a != ACT_QUIT && a != ACT_DOWN && a != ACT_UP && a != ACT_REEVAL)
		return VIEW_FORWARD;
	view_say(&o->rp->v, NULL);  /* a key clears the replay's message */
	if (k->code == 27 || a == ACT_QUIT) {
		if (!re->ended)
			evaljob_abort(re->job);   /* evaltui_reeval_free waits for its end */
		return VIEW_CLOSE;
	}
	if (a == ACT_REEVAL) {
		struct evaltui_reeval *next = NULL;
		if (!re->ended) {
			evaltui_say(o->rp, "R: a re-evaluation is running (Esc stops it)");
			return 0;
		}
		int rc = evaltui_reeval_begin(o->rp, &next);
		if (rc == 0)
			return VIEW_CLOSE;  /* the old one went: the replay says why there is no new one */
		if (rc > 0) {
			evaltui_reeval_free(re);
			o->re = next;
		}
		v->dirty |= D_DETAIL | D_STATUS;
		return 0;
	}
	if (a == ACT_DOWN)
		re->top++;
	else if (re->top)
		re->top--;
	v->dirty |= D_DETAIL;
	return 0;
}

static unsigned evaltui_over_mouse(struct view *v, const struct mouse_event *m)
{
	(void)v;
	(void)m;
	return VIEW_FORWARD;
}

/* The replay below goes on (a feed, playback); a running loop is polled
 * at least every 200 ms. */
static unsigned evaltui_over_poll(struct view *v, int *ms)
{
	struct evaltui_over *o = (struct evaltui_over *)v;
	struct view *below = &o->rp->v;
	below->idle = v->idle;
	unsigned f = below->ops->poll ? below->ops->poll(below, ms) : 0;
	v->dirty |= below->dirty;
	if (!o->re->ended) {
		if (evaltui_reeval_poll(o->re))
			v->dirty |= D_DETAIL;
		*ms = *ms < 0 || *ms > 200 ? 200 : *ms;
	}
	return f & ~(VIEW_PUSH | VIEW_CLOSE);
}

static void evaltui_over_resize(struct view *v)
{
	(void)v;  /* the replay below lays out again; this draws through it */
}

static void evaltui_over_free(struct view *v)
{
	struct evaltui_over *o = (struct evaltui_over *)v;
	evaltui_reeval_free(o->re);
	o->rp->v.dirty = D_ALL;
	free(o);
}

static const struct view_ops evaltui_over_ops = {
	.name = "re-evaluation",
	.keys = V_REPLAY,
	.draw = evaltui_over_draw,
	.key = evaltui_over_key,
	.poll = evaltui_over_poll,
	.mouse = evaltui_over_mouse,
	.resize = evaltui_over_resize,
	.free = evaltui_over_free,
};

struct view *evaltui_reeval_view(struct replay *rp)
{
	struct evaltui_reeval *re = NULL;
	if (evaltui_reeval_begin(rp, &re) <= 0)
		return NULL;
	struct evaltui_over *o = xcalloc(1, sizeof *o);
	o->v.ops = &evaltui_over_ops;
	o->v.dirty = D_ALL;
	o->rp = rp;
	o->re = re;
	return &o->v;
}
