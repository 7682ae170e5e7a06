/* watch.c: `kbtui watch FILE`: a replay over a src/follow.c follower. The
 * feed's poll reads what the harness appended; its indicator says LIVE,
 * that the file is gone, or that it was read again from the start. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "dataset.h"
#include "follow.h"
#include "parser.h"
#include "provenance.h"
#include "replay.h"
#include "run.h"
#include "util.h"
#include "watch.h"

/* Bytes a poll reads of what the file has (a turn of about 10-20 ms). */
#define WATCH_SLICE (1 << 20)
#define WATCH_INTERVAL_MS 100

/* How long the indicator says that the run was read again. */
#define WATCH_NOTE_SECONDS 10.0

struct watch {
	struct follow *fl;           /* owned */
	const char *file;            /* the transcript followed (the session's) */
	int seen;                    /* the file was there at some poll */
	unsigned restarts;           /* restarts already said */
	double note_until;           /* say the last restart until then */
	char said[96];
};

static double watch_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether the transcript grew a moment ago (its mtime within
 * PROV_QUIET_S seconds): the banner of a run without its completion
 * marker says "still being written" then, and that it stopped after.
 * 1 when that changed. */
static int watch_end(struct watch *w, struct run *run)
{
	struct stat st;
	struct timespec now;
	if (!run || !w->file || stat(w->file, &st) < 0)
		return 0;
	clock_gettime(CLOCK_REALTIME, &now);
	double quiet = (double)(now.tv_sec - st.st_mtim.tv_sec) + (double)(now.tv_nsec - st.st_mtim.tv_nsec) / 1e9;
	enum prov_end end = quiet < PROV_QUIET_S ? PROV_END_WRITING : PROV_END_QUIET;
	if (!run->prov)
		run->prov = xcalloc(1, sizeof *run->prov);
	if (run->prov->end == end)
		return 0;
	run->prov->end = end;
	return 1;
}

static int watch_poll(struct replay_feed *feed, struct run *run)
{
	struct watch *w = feed->state;
	/* the follower fills the run it was made with, a slice a turn: a big
	 * file being written shows its first screen at once and answers keys
	 * while the rest is read (then the next slice at once, not at the
	 * next interval) */
	int changed = follow_poll_budget(w->fl, WATCH_SLICE);
	feed->interval_ms = follow_pending(w->fl) ? 1 : WATCH_INTERVAL_MS;
	w->seen |= follow_present(w->fl);
	changed |= watch_end(w, run);
	if (follow_restarts(w->fl) != w->restarts) {
		w->restarts = follow_restarts(w->fl);
		w->note_until = watch_now() + WATCH_NOTE_SECONDS;
	}
	return changed;
}

static unsigned watch_restarts(struct replay_feed *feed)
{
	struct watch *w = feed->state;
	return follow_restarts(w->fl);
}

static const char *watch_status(struct replay_feed *feed)
{
	struct watch *w = feed->state;
	if (!follow_present(w->fl))
		snprintf(w->said, sizeof w->said, "%s", w->seen ? "LIVE: file gone, waiting for it" : "WAITING for the file");
	else if (w->restarts && watch_now() < w->note_until)
		snprintf(w->said, sizeof w->said, "LIVE: file %s, read again from the start",
		         follow_why_name(follow_last_why(w->fl)));
	else
		snprintf(w->said, sizeof w->said, "LIVE");
	return w->said;
}

/* The transcript to follow: path itself, or the one in a run directory
 * (transcript.jsonl when it has none yet). NULL when it cannot be. */
static char *watch_file(const char *path)
{
	if (util_is_dir(path)) {
		char *t = dataset_find_transcript(path);
		return t ? t : util_path_join(path, "transcript.jsonl");
	}
	if (util_is_file(path))
		return xstrdup(path);
	/* not there yet: fine when its directory is (a harness about to start) */
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, slash == path ? 1 : (size_t)(slash - path)) : xstrdup(".");
	int ok = util_is_dir(dir);
	free(dir);
	return ok ? xstrdup(path) : NULL;
}

/* What a watch's replay borrows: the run, its follower and the feed. */
struct watch_session {
	char *file;                  /* the transcript followed (owned) */
	char *title;                 /* owned */
	struct run *run;             /* owned */
	struct watch w;
	struct replay_feed feed;
};

struct watch_session *watch_session_new(const char *path, const char *format, const char *title)
{
	char *file = watch_file(path);
	if (!file)
		return NULL;
	struct watch_session *s = xcalloc(1, sizeof *s);
	s->file = file;
	s->title = xstrdup(title ? title : file);
	s->run = run_new();
	s->run->source = xstrdup(file);
	s->w.file = s->file;
	s->w.fl = follow_new(file, s->run, format ? parser_find(format) : NULL);
	s->feed = (struct replay_feed){
		.poll = watch_poll,
		.status = watch_status,
		.interval_ms = WATCH_INTERVAL_MS,
		.state = &s->w,
		.name = "watch",  /* the header says what the view does */
		.restarts = watch_restarts,
	};
	return s;
}

struct view *watch_session_view(struct watch_session *s)
{
	struct replay_opts o = { .feed = &s->feed };
	return replay_view_new(s->run, s->title, &o);
}

void watch_session_free(struct watch_session *s)
{
	if (!s)
		return;
	follow_free(s->w.fl);
	run_free(s->run);
	free(s->file);
	free(s->title);
	free(s);
}
