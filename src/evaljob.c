/* evaljob.c: eval_run in a thread; its output queued for a polling screen
 * (the pattern of ui/live.c: the worker never waits for the screen). */
#include "config.h"

#include "evaljob.h"
#include "evalbox.h"
#include "util.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* A queue longer than this drops the oldest lines: a child printing
 * megabytes must not grow memory while the screen is slow. */
#define EVALJOB_MAX_QUEUE 200000

struct evaljob {
	struct eval_opts o;         /* the caller's, with our callbacks */
	pthread_t thread;
	pthread_mutex_t mu;
	struct evaljob_item *q;     /* under mu */
	size_t nq, cap;
	enum eval_stage stage;      /* under mu */
	int ended;                  /* under mu */
	volatile sig_atomic_t abort;
	int rc;                     /* valid once ended */
	int joined;
	struct eval_result res;
	struct evalbox box;         /* where the loop's children run */
	char *refused;              /* why the loop cannot run (no sandbox), or NULL */
};

static void evaljob_push(struct evaljob *j, struct evaljob_item it)
{
	pthread_mutex_lock(&j->mu);
	if (j->nq >= EVALJOB_MAX_QUEUE) {
		free(j->q[0].origin);
		free(j->q[0].text);
		memmove(j->q, j->q + 1, (j->nq - 1) * sizeof *j->q);
		j->nq--;
	}
	if (j->nq == j->cap) {
		j->cap = j->cap ? j->cap * 2 : 64;
		j->q = xrealloc(j->q, j->cap * sizeof *j->q);
	}
	j->q[j->nq++] = it;
	if (it.kind == EJ_STAGE)
		j->stage = it.stage;
	pthread_mutex_unlock(&j->mu);
}

static void evaljob_on_line(void *ud, const char *stage, const char *line, size_t len)
{
	struct evaljob_item it = {.kind = EJ_LINE, .origin = xstrdup(stage), .text = xstrndup(line, len)};
	evaljob_push(ud, it);
}

static void evaljob_on_stage(void *ud, enum eval_stage stage)
{
	struct evaljob_item it = {.kind = EJ_STAGE, .stage = stage};
	evaljob_push(ud, it);
}

static void *evaljob_thread(void *arg)
{
	struct evaljob *j = arg;
	struct eval_result res;
	int rc;
	if (j->refused) {
		/* the loop never starts: the screen shows why, as for bad input */
		memset(&res, 0, sizeof res);
		res.peak_fraction = -1;
		res.stage = EVAL_SETUP;
		res.failure = xstrdup(j->refused);
		evaljob_on_line(j, "eval", j->refused, strlen(j->refused));
		rc = -1;
	} else {
		rc = evalbox_run(&j->o, &j->box, &res);
	}
	pthread_mutex_lock(&j->mu);
	j->res = res;
	j->rc = rc;
	j->ended = 1;
	pthread_mutex_unlock(&j->mu);
	return NULL;
}

struct evaljob *evaljob_start(const struct eval_opts *o)
{
	return evaljob_start_sandbox(o, NULL);
}

struct evaljob *evaljob_start_sandbox(const struct eval_opts *o, const char *sandbox)
{
	struct evaljob *j = xcalloc(1, sizeof *j);
	sigset_t all, old;
	j->o = *o;
	j->o.on_line = evaljob_on_line;
	j->o.on_stage = evaljob_on_stage;
	j->o.ud = j;
	j->o.abort = &j->abort;
	j->stage = EVAL_SETUP;
	/* the code comes from a transcript: sandboxed, or refused (here, in
	 * the caller's thread, where the probe of bwrap runs once) */
	if (evalbox_choose(sandbox, &j->box.kind, &j->refused) < 0)
		j->box.kind = SANDBOX_NONE;
	pthread_mutex_init(&j->mu, NULL);
	/* every signal blocked in the worker: resize and Ctrl-C reach the screen */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	int rc = pthread_create(&j->thread, NULL, evaljob_thread, j);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		pthread_mutex_destroy(&j->mu);
		free(j->refused);
		free(j);
		return NULL;
	}
	return j;
}

int evaljob_take(struct evaljob *j, struct evaljob_item **items, size_t *n)
{
	pthread_mutex_lock(&j->mu);
	int ended = j->ended;
	*items = j->q;
	*n = j->nq;
	j->q = NULL;
	j->nq = j->cap = 0;
	pthread_mutex_unlock(&j->mu);
	return ended;
}

void evaljob_items_free(struct evaljob_item *items, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(items[i].origin);
		free(items[i].text);
	}
	free(items);
}

enum eval_stage evaljob_stage(struct evaljob *j)
{
	pthread_mutex_lock(&j->mu);
	enum eval_stage s = j->stage;
	pthread_mutex_unlock(&j->mu);
	return s;
}

int evaljob_rc(const struct evaljob *j)
{
	return j->rc;
}

const struct eval_result *evaljob_result(const struct evaljob *j)
{
	return &j->res;
}

void evaljob_abort(struct evaljob *j)
{
	j->abort = 1;
}

int evaljob_wait(struct evaljob *j)
{
	if (!j->joined)
		pthread_join(j->thread, NULL);
	j->joined = 1;
	return j->rc;
}

void evaljob_free(struct evaljob *j)
{
	if (!j)
		return;
	j->abort = 1;   /* a no-op when it has ended */
	evaljob_wait(j);
	evaljob_items_free(j->q, j->nq);
	eval_result_free(&j->res);
	free(j->refused);
	pthread_mutex_destroy(&j->mu);
	free(j);
}
