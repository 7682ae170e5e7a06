/* live.c: `kbtui live` on a screen. The agent (src/agent.c) runs in a thread
 * of its own and never touches curses; it records the run into
 * transcript.jsonl as it goes, and hands what is still streaming (reasoning,
 * text, tool calls of the turn in flight) and its progress to this file
 * under a mutex (src/livestream.h). The screen is the replay (ui/replay.c)
 * over a feed: each poll follows the transcript into the run like `kbtui
 * watch` does (so the live run looks exactly as its replay later will, and
 * the run's events are only ever appended); the turn in flight is no event:
 * the feed hands it to the replay beside them (replay_feed.stream), and the
 * list shows it after the events, growing token by token. Keys:
 * | pauses after the current turn (the agent waits in its inbox), : writes a
 * message for the next turn, X aborts after a question. */
#include "config.h"

#include <curses.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "cmd.h"
#include "draw.h"
#include "follow.h"
#include "keys.h"
#include "live.h"
#include "livestream.h"
#include "llm.h"
#include "parser.h"
#include "replay.h"
#include "run.h"
#include "theme.h"
#include "tui.h"
#include "util.h"
#include "view.h"
#include "textsafe.h"

/* What the agent thread and the screen share; everything under mu. */
struct live_shared {
	pthread_mutex_t mu;
	pthread_cond_t cv;          /* pause released, abort, message */
	struct livestream stream;   /* the turn in flight, not yet recorded */
	unsigned gen;               /* bumped at every change of anything here */
	int turn;
	long long tok_in, tok_out;
	int pause;                  /* the user asked for a pause */
	int waiting;                /* the agent waits in its inbox because of it */
	char *msg;                  /* for the agent's next turn (owned) */
	int ended;                  /* agent_run returned; res is valid */
	int rc;                     /* agent_run's return */
	struct agent_result res;
};

struct live {
	struct live_cmd *lc;
	struct live_shared sh;
	volatile sig_atomic_t abort;
	pthread_t thread;
	struct run *run;
	struct follow *follow;
	struct event *stream;       /* the turn in flight as the screen shows it (owned, nstream) */
	size_t nstream;
	unsigned shown_gen;
	double t0;                  /* monotonic start */
	int ended_seen;             /* the feed saw the end (and read the file to it) */
	char status[256];
	char *title;
};


/* ---- the agent thread's side ------------------------------------------------ */

static void live_on_delta(void *ud, enum llm_delta kind, int call, const char *s, size_t n)
{
	struct live *lv = ud;
	struct live_shared *sh = &lv->sh;
	pthread_mutex_lock(&sh->mu);
	livestream_delta(&sh->stream, kind, call, s, n);
	sh->gen++;
	pthread_mutex_unlock(&sh->mu);
}

/* A recorded event: the streamed copy of what it records is no longer
 * needed (the transcript has it now). */
static void live_on_event(void *ud, const char *kind, const char *name, const char *text, int is_error)
{
	struct live *lv = ud;
	struct live_shared *sh = &lv->sh;
	(void)name;
	(void)text;
	(void)is_error;
	pthread_mutex_lock(&sh->mu);
	livestream_recorded(&sh->stream, kind);
	sh->gen++;
	pthread_mutex_unlock(&sh->mu);
}

static void live_on_progress(void *ud, int turn, long long tok_in, long long tok_out)
{
	struct live *lv = ud;
	pthread_mutex_lock(&lv->sh.mu);
	lv->sh.turn = turn;
	lv->sh.tok_in = tok_in;
	lv->sh.tok_out = tok_out;
	lv->sh.gen++;
	pthread_mutex_unlock(&lv->sh.mu);
}

/* Before each turn: waits while the user holds the run paused, then hands
 * over the message written for this turn. */
static char *live_inbox(void *ud)
{
	struct live *lv = ud;
	struct live_shared *sh = &lv->sh;
	char *msg;
	pthread_mutex_lock(&sh->mu);
	while (sh->pause && !lv->abort) {
		sh->waiting = 1;
		sh->gen++;
		pthread_cond_wait(&sh->cv, &sh->mu);
	}
	sh->waiting = 0;
	msg = sh->msg;
	sh->msg = NULL;
	sh->gen++;
	pthread_mutex_unlock(&sh->mu);
	return msg;
}

static void *live_thread(void *arg)
{
	struct live *lv = arg;
	struct agent_result res;
	int rc = agent_run(&lv->lc->o, &res);
	pthread_mutex_lock(&lv->sh.mu);
	lv->sh.res = res;
	lv->sh.rc = rc;
	lv->sh.ended = 1;
	lv->sh.gen++;
	pthread_mutex_unlock(&lv->sh.mu);
	return NULL;
}

/* ---- the screen's side -------------------------------------------------------- */

static void live_status_text(struct live *lv)
{
	struct live_shared *sh = &lv->sh;
	char in[32], out[32], el[32], bud[32];
	const char *state;
	double el_s = util_now() - lv->t0;

	util_fmt_count(in, sizeof in, sh->tok_in);
	util_fmt_count(out, sizeof out, sh->tok_out);
	draw_duration(el, sizeof el, sh->ended ? sh->res.seconds : el_s);
	if (lv->lc->o.budget_s > 0)
		draw_duration(bud, sizeof bud, lv->lc->o.budget_s);
	else
		snprintf(bud, sizeof bud, "no budget");
	if (sh->ended)
		state = NULL;
	else if (lv->abort)
		state = "ABORTING";
	else if (sh->waiting)
		state = "PAUSED";
	else if (sh->pause)
		state = "LIVE, pausing after this turn";
	else
		state = "LIVE";
	if (state)
		snprintf(lv->status, sizeof lv->status, "%s%s | turn %d | tokens %s in, %s out | %s / %s",
		         state, sh->msg ? " (message queued)" : "", sh->turn, in, out, el, bud);
	else
		snprintf(lv->status, sizeof lv->status, "ENDED: %s | turn %d | tokens %s in, %s out | %s / %s | q quits",
		         sh->rc < 0 ? "run not recorded" : agent_end_name(sh->res.end), sh->turn, in, out, el, bud);
}

static int live_poll(struct replay_feed *f, struct run *run)
{
	struct live *lv = f->state;
	struct live_shared *sh = &lv->sh;
	int changed, ended;
	unsigned gen;
	struct event *stream;
	size_t nstream;
	struct timespec ts;

	(void)run;
	if (lv->ended_seen)
		return -1;
	clock_gettime(CLOCK_REALTIME, &ts);
	pthread_mutex_lock(&sh->mu);
	ended = sh->ended;
	gen = sh->gen;
	/* the turn in flight, copied so the agent is not held up */
	nstream = livestream_events(&sh->stream, lv->lc->key, (double)ts.tv_sec + ts.tv_nsec / 1e9, &stream);
	live_status_text(lv);
	pthread_mutex_unlock(&sh->mu);

	/* the recorded events (read after the copy: what the copy lacks is
	 * in the file by now), appended as a watch appends them */
	changed = follow_poll(lv->follow);
	if (gen != lv->shown_gen || nstream != lv->nstream)
		changed = 1;
	livestream_events_free(lv->stream, lv->nstream);
	lv->stream = stream;
	lv->nstream = nstream;
	lv->shown_gen = gen;
	if (ended)
		lv->ended_seen = 1;   /* this poll read the file to its end */
	return changed;
}

/* What the list shows after the events: the turn in flight. */
static const struct event *live_stream(struct replay_feed *f, size_t *n)
{
	struct live *lv = f->state;
	*n = lv->nstream;
	return lv->stream;
}

static const char *live_status(struct replay_feed *f)
{
	struct live *lv = f->state;
	return lv->status;
}

/* A question or a line of text on the bottom row, modal: the agent goes on
 * meanwhile. Returns the text typed (owned) or NULL on Esc; with yesno, "y"
 * or NULL at the first key. */
static char *live_ask(const char *question, int yesno)
{
	struct sbuf in;
	struct key k;
	char *res = NULL;
	sbuf_init(&in);
	timeout(-1);
	curs_set(yesno ? 0 : 1);
	for (;;) {
		char *shown = draw_safe(in.len ? in.s : "");
		int y = LINES - 1, used;
		draw_fill(y, 0, COLS, RL_STATUS);
		used = draw_put(y, 0, COLS, question, RL_STATUS);
		draw_put(y, used, COLS - used, shown, RL_STATUS);
		move(y, used + (int)draw_width(shown) < COLS ? used + (int)draw_width(shown) : COLS - 1);
		free(shown);
		refresh();
		if (keys_read(&k) == ERR) {
			if (tui_stopped())
				break;
			continue;
		}
		if (yesno) {
			if (k.code == 'y' || k.code == 'Y')
				res = xstrdup("y");
			break;
		}
		if (k.code == 27 || k.code == ('C' & 0x1f))
			break;
		if (k.code == '\n' || k.code == '\r' || k.code == KEY_ENTER) {
			res = sbuf_detach(&in);
			break;
		}
		if (k.code == KEY_BACKSPACE || k.code == 127 || k.code == 8) {
			/* one UTF-8 character back */
			while (in.len && ((unsigned char)in.s[in.len - 1] & 0xC0) == 0x80)
				in.s[--in.len] = 0;
			if (in.len)
				in.s[--in.len] = 0;
			continue;
		}
		if (!k.fn && k.ch >= 0x20 && k.ch != 0x7f && in.len < 4000) {
			char mb[8];
			mbstate_t ps;
			memset(&ps, 0, sizeof ps);
			size_t n = wcrtomb(mb, (wchar_t)k.ch, &ps);
			if (n != (size_t)-1)
				sbuf_add(&in, mb, n);
		}
	}
	curs_set(0);
	sbuf_free(&in);
	return res;
}

static int live_act(struct replay_feed *f, struct view *v, const struct key *k)
{
	struct live *lv = f->state;
	struct live_shared *sh = &lv->sh;
	enum action a = keys_action(k->code, V_REPLAY);
	int ended;
	char *s;

	pthread_mutex_lock(&sh->mu);
	ended = sh->ended;
	pthread_mutex_unlock(&sh->mu);
	if (a != ACT_LIVE_PAUSE && a != ACT_LIVE_MESSAGE && a != ACT_LIVE_ABORT)
		return 0;
	if (ended) {
		view_say(v, "the run has ended");
		return 1;
	}
	switch (a) {
	case ACT_LIVE_PAUSE:
		pthread_mutex_lock(&sh->mu);
		sh->pause = !sh->pause;
		sh->gen++;
		pthread_cond_broadcast(&sh->cv);
		pthread_mutex_unlock(&sh->mu);
		break;
	case ACT_LIVE_MESSAGE:
		s = live_ask("message to the agent (Enter sends, Esc cancels): ", 0);
		if (s && *s) {
			pthread_mutex_lock(&sh->mu);
			if (sh->msg) {
				char *both = xasprintf("%s\n\n%s", sh->msg, s);
				free(sh->msg);
				sh->msg = both;
			} else
				sh->msg = xstrdup(s);
			sh->gen++;
			pthread_mutex_unlock(&sh->mu);
		}
		free(s);
		v->dirty = D_ALL;
		break;
	case ACT_LIVE_ABORT:
		s = live_ask("abort the run? (y/n) ", 1);
		if (s) {
			pthread_mutex_lock(&sh->mu);
			lv->abort = 1;
			sh->gen++;
			pthread_cond_broadcast(&sh->cv);
			pthread_mutex_unlock(&sh->mu);
		}
		free(s);
		v->dirty = D_ALL;
		break;
	default:
		break;
	}
	return 1;
}

/* Starts the agent with every signal blocked in its thread, so that the
 * terminal's signals (resize, Ctrl-C) reach the screen's thread. */
static int live_start(struct live *lv)
{
	sigset_t all, old;
	int rc;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&lv->thread, NULL, live_thread, lv);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

static void live_shared_free(struct live_shared *sh)
{
	livestream_free(&sh->stream);
	free(sh->msg);
	pthread_mutex_destroy(&sh->mu);
	pthread_cond_destroy(&sh->cv);
}

/* The run on the screen; the exit status of cmd_live, or 128 + a signal. */
static int live_screen(struct live_cmd *lc)
{
	struct live lv;
	struct replay_feed feed = {0};
	char *path;
	int rc, ended;

	memset(&lv, 0, sizeof lv);
	lv.lc = lc;
	pthread_mutex_init(&lv.sh.mu, NULL);
	pthread_cond_init(&lv.sh.cv, NULL);
	livestream_init(&lv.sh.stream);
	lc->o.on_event = live_on_event;
	lc->o.on_progress = live_on_progress;
	lc->o.inbox = live_inbox;
	lc->o.ud = &lv;
	lc->o.llm.on_delta = live_on_delta;
	lc->o.llm.ud = &lv;
	lc->o.abort = &lv.abort;
	lv.t0 = util_now();
	lv.run = run_new();
	path = util_path_join(lc->o.rundir, "transcript.jsonl");
	/* an old transcript there would show until the agent truncates it */
	unlink(path);
	lv.follow = follow_new(path, lv.run, parser_find("claude"));
	lv.title = xasprintf("live: %s, %s (%s)", lc->o.problem, lc->o.llm.model, lc->o.rundir);
	snprintf(lv.status, sizeof lv.status, "LIVE");
	if (live_start(&lv) != 0) {
		fprintf(stderr, "kbtui live: cannot start the agent's thread\n");
		follow_free(lv.follow);
		run_free(lv.run);
		free(lv.title);
		free(path);
		live_shared_free(&lv.sh);
		return CMD_BADINPUT;
	}
	feed.name = "live";  /* the header says what the view does */
	feed.poll = live_poll;
	feed.status = live_status;
	feed.stream = live_stream;
	feed.act = live_act;
	feed.interval_ms = 100;
	feed.state = &lv;

	tui_start();
	replay_run_feed(lv.run, lv.title, &feed);
	tui_stop();

	pthread_mutex_lock(&lv.sh.mu);
	ended = lv.sh.ended;
	if (!ended) {
		/* q or a signal while the agent works: it stops, recorded as aborted */
		lv.abort = 1;
		pthread_cond_broadcast(&lv.sh.cv);
	}
	pthread_mutex_unlock(&lv.sh.mu);
	if (!ended)
		fprintf(stderr, "kbtui live: stopping the agent ...\n");
	pthread_join(lv.thread, NULL);
	if (lv.sh.rc < 0) {
		textsafe_fprintf(stderr, "kbtui live: %s\n", lv.sh.res.error ? lv.sh.res.error : "the run was not recorded");
		rc = CMD_BADINPUT;
	} else {
		struct agent_result *r = &lv.sh.res;
		if (r->end == AGENT_ERROR)
			textsafe_fprintf(stderr, "kbtui live: %s\n", r->error ? r->error : "the model failed");
		printf("kbtui live: %s after %d turns, %d tool calls, %lld tokens in, %lld out, %.0f s; run in %s\n",
		       agent_end_name(r->end), r->turns, r->tool_calls, r->tok_in, r->tok_out, r->seconds, lc->o.rundir);
		rc = r->end == AGENT_DONE ? CMD_OK : CMD_BADINPUT;
	}
	agent_result_free(&lv.sh.res);
	livestream_events_free(lv.stream, lv.nstream);
	follow_free(lv.follow);
	run_free(lv.run);
	free(lv.title);
	free(path);
	live_shared_free(&lv.sh);
	return rc;
}

int live_main(int argc, char **argv)
{
	struct live_cmd lc;
	int rc = cmd_live_prepare(argc, argv, &lc, stdout, stderr);
	if (rc >= 0)
		return rc;
	if (lc.headless || !isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
		rc = cmd_live_headless(&lc, stdout, stderr);
	else
		rc = live_screen(&lc);
	cmd_live_free(&lc);
	return rc;
}
