/* evaltui.c: the eval loop on the replay screen.
 *
 * `kbtui eval --tui`: the loop runs in a thread (src/evaljob.c) and never
 * touches curses; the screen is the replay over a feed (as ui/live.c does)
 * whose poll turns the loop's output into a growing run: a tool call per
 * step (forbidden, nvcc, check, benchmark) and its output streaming into the
 * matching tool result, so the compiler pane finds nvcc's errors and the
 * timing pane the shape= and peak_fraction: lines as in any transcript.
 * (R in a replay is ui/reeval_view.c.) */
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
#include "reeval_view.h"
#include "replay.h"
#include "run.h"
#include "theme.h"
#include "tlines.h"
#include "tui.h"
#include "util.h"
#include "textsafe.h"


static double evaltui_wall(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
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
	c->name = xstrdup(reeval_view_tool(s));
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
	double secs = et->ended ? evaljob_result(et->job)->elapsed_seconds : util_now() - et->t0;
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
	if (!tui_yes("the eval is still running: abort it and quit? (y/n) "))
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
	et.t0 = util_now();
	et.title = xasprintf("eval: %s, %s", ec->o.problem, ec->o.solution);
	snprintf(et.status, sizeof et.status, "EVAL setup");
	if (!(et.job = evaljob_start_sandbox(&ec->o, ec->sandbox))) {
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
		textsafe_fprintf(stderr, "kbtui eval: %s\n", r->failure ? r->failure : "cannot start");
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
