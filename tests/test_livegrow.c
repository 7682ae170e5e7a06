/* test_livegrow: a live run's events are a watched transcript's. The
 * replay (ui/replay.c) over a feed that does what `kbtui live` does: it
 * follows a transcript being written (src/follow.c, as `kbtui watch`) while
 * an agent's stream (src/livestream.h) runs beside it, streamed pieces and
 * written lines interleaved, with a stream that is dropped and never
 * recorded (a retry). Polled after every step; after each poll:
 *  - the run holds exactly the events of the bytes written, nothing
 *    streamed among them, and every event keeps the index it first had;
 *  - what streams is handed to the panes beside the events (cx.stream);
 *  - the replay's sums (tokens, tool calls, turns up to each event) and
 *    its search matches equal a fresh replay's over the whole file: no
 *    index keeps what another event (a streamed one) left there.
 * Links the front end (the replay), not a terminal. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evsig.h"
#include "follow.h"
#include "livestream.h"
#include "parser.h"
#include "replay.h"
#include "run.h"
#include "tallies.h"
#include "tap.h"
#include "util.h"

/* A Claude Code transcript as `kbtui live` records it, one line a step. */
static const char *const lines[] = {
	"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"s\",\"cwd\":\"/w\",\"model\":\"m\",\"tools\":[\"Bash\"]}\n",
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"thinking\",\"thinking\":\"Read the reference.\"}],\"usage\":{\"input_tokens\":100,\"output_tokens\":20}},\"session_id\":\"s\"}\n",
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"I will write the kernel.\"}],\"usage\":{\"input_tokens\":100,\"output_tokens\":20}},\"session_id\":\"s\"}\n",
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t1\",\"name\":\"Bash\",\"input\":{\"command\":\"nvcc --version\"}}],\"usage\":{\"input_tokens\":100,\"output_tokens\":20}},\"session_id\":\"s\"}\n",
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"t1\",\"content\":\"nvcc: command not found\",\"is_error\":true}]},\"session_id\":\"s\"}\n",
	"{\"type\":\"assistant\",\"message\":{\"id\":\"m2\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{\"type\":\"text\",\"text\":\"Done with the kernel.\"}],\"usage\":{\"input_tokens\":300,\"output_tokens\":10}},\"session_id\":\"s\"}\n",
	"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Done.\",\"session_id\":\"s\",\"usage\":{\"input_tokens\":400,\"output_tokens\":30}}\n",
};
#define NLINES (sizeof lines / sizeof lines[0])

/* The search set in both replays: a recorded word, and a word that only
 * ever streams. */
#define PATTERN "kernel|STREAMONLY"

static char dir[4096], path[4200], whole[4200];
static struct sbuf written;   /* the bytes written so far */

struct livefeed {
	struct follow *fl;
	struct livestream ls;
	struct event *ev;         /* the stream as events (owned) */
	size_t n;
};

static int livefeed_poll(struct replay_feed *f, struct run *run)
{
	struct livefeed *lf = f->state;
	(void)run;
	int changed = follow_poll(lf->fl);
	livestream_events_free(lf->ev, lf->n);
	lf->n = livestream_events(&lf->ls, NULL, 0, &lf->ev);
	return 1 | changed;  /* the stream may have changed */
}

static const struct event *livefeed_stream(struct replay_feed *f, size_t *n)
{
	struct livefeed *lf = f->state;
	*n = lf->n;
	return lf->ev;
}

static void write_line(const char *s)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0 || write(fd, s, strlen(s)) != (ssize_t)strlen(s)) {
		perror(path);
		exit(2);
	}
	close(fd);
	sbuf_adds(&written, s);
}

/* The run of a whole load of the bytes written (owned). */
static struct run *whole_run(void)
{
	char *err = NULL;
	FILE *f = fopen(whole, "w");
	if (!f || fwrite(written.s ? written.s : "", 1, written.len, f) != written.len || fclose(f)) {
		perror(whole);
		exit(2);
	}
	struct run *r = parser_load_file(whole, parser_find("claude"), &err);
	if (!r) {
		printf("# %s\n", err);
		exit(2);
	}
	return r;
}

/* Whether the replay's sums and matches equal a fresh replay's over want. */
static int same_as_fresh(struct replay *rp, struct run *want)
{
	struct replay fresh;
	int same = 1;
	replay_init(&fresh, want, "fresh");
	replay_search_set(&fresh, PATTERN, 1);
	for (size_t i = 0; i < want->nev && same; i++) {
		struct tally_sum a = tallies_at(&rp->tally, rp->cx.run, i), b = tallies_at(&fresh.tally, want, i);
		same = a.in == b.in && a.out == b.out && a.cache == b.cache && a.tools == b.tools && a.turns == b.turns;
	}
	if (!same)
		printf("#   sums differ from a fresh replay's\n");
	if (rp->cx.nmatches != fresh.cx.nmatches ||
	    (rp->cx.nmatches && memcmp(rp->matches, fresh.matches, rp->cx.nmatches * sizeof *rp->matches))) {
		printf("#   %zu matches, a fresh replay %zu\n", rp->cx.nmatches, fresh.cx.nmatches);
		same = 0;
	}
	replay_free(&fresh);
	return same;
}

/* The events seen at the last poll, as signatures: they must stay. */
static char **seen;
static size_t nseen;

static char *event_sig(const struct event *e)
{
	return xasprintf("%s|%s|%s|%s", ev_kind_name(e->kind), e->text ? e->text : "-", e->name ? e->name : "-",
	                 e->args ? e->args : "-");
}

/* One poll of the replay, then every check; what: the step, for messages. */
static int poll_and_check(struct replay *rp, size_t nstream, const char *what)
{
	int ms, ok = 1;
	rp->feed.due = 0;  /* due now */
	rp->v.ops->poll(&rp->v, &ms);
	struct run *want = whole_run();
	char *a = evsig(rp->cx.run), *b = evsig(want);
	if (strcmp(a, b)) {
		printf("#   %s: the run is not the file's events (%zu, the file %zu)\n", what, rp->cx.run->nev, want->nev);
		ok = 0;
	}
	free(a);
	free(b);
	for (size_t i = 0; i < nseen && i < rp->cx.run->nev; i++) {
		char *s = event_sig(&rp->cx.run->ev[i]);
		if (strcmp(s, seen[i])) {
			printf("#   %s: event %zu changed: was %s, is %s\n", what, i + 1, seen[i], s);
			ok = 0;
		}
		free(s);
	}
	if (rp->cx.run->nev < nseen) {
		printf("#   %s: events went away\n", what);
		ok = 0;
	}
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	nseen = rp->cx.run->nev;
	seen = xcalloc(nseen + 1, sizeof *seen);
	for (size_t i = 0; i < nseen; i++)
		seen[i] = event_sig(&rp->cx.run->ev[i]);
	if (rp->cx.nstream != nstream) {
		printf("#   %s: %zu streaming beside the events, want %zu\n", what, rp->cx.nstream, nstream);
		ok = 0;
	}
	ok &= same_as_fresh(rp, want);
	run_free(want);
	return ok;
}

static void stream(struct livefeed *lf, enum llm_delta kind, const char *s)
{
	livestream_delta(&lf->ls, kind, 0, s, strlen(s));
}

/* The status line's sums over a run grown in steps of every size from 1
 * to 150 events (the last old event grown too, as a merged stream grows
 * it), at every event: those of sums made over the whole run at once. The
 * sums are kept every TALLY_STEP events, so steps cross a checkpoint, end
 * on one, and start in the middle of a block. */
static void test_tallies_steps(void)
{
	struct run *r = run_new();
	for (int i = 0; i < 1000; i++) {
		static const enum ev_kind kinds[] = { EV_USER, EV_REASONING, EV_TOOL_CALL, EV_USAGE, EV_TOOL_RESULT, EV_TEXT, EV_USAGE };
		struct event *e = run_add(r, kinds[i % 7], i + 1);
		e->tok_in = i % 13;
		e->tok_out = i % 17;
		e->tok_cache_read = i % 5;
		e->ts = 1000 + i;
	}
	struct tallies fresh = { 0 };
	tallies_update(&fresh, r, 0);
	int bad = 0;
	for (size_t step = 1; step <= 150; step += (step < 70 ? 1 : 13)) {
		struct tallies t = { 0 };
		size_t n = r->nev;
		for (size_t upto = step < n ? step : n;; upto = upto + step < n ? upto + step : n) {
			r->nev = upto;
			r->ev[upto - 1].tok_out += 1000;  /* the last event as it stood then */
			tallies_update(&t, r, upto > step ? upto - step - 1 : 0);
			r->ev[upto - 1].tok_out -= 1000;
			tallies_update(&t, r, upto - 1);  /* and grown since */
			if (upto == n)
				break;
		}
		r->nev = n;
		for (size_t i = 0; i < n; i++) {
			struct tally_sum a = tallies_at(&t, r, i), b = tallies_at(&fresh, r, i);
			bad += a.in != b.in || a.out != b.out || a.cache != b.cache || a.tools != b.tools || a.turns != b.turns;
		}
		tallies_free(&t);
	}
	ok(bad == 0 && tallies_at(&fresh, r, 999).tools == 143, "tallies grown in steps of 1 to 150 events, the last "
	   "old event grown each time: the sums at every event are those made at once (%d differ)", bad);
	tallies_free(&fresh);
	run_free(r);
}

int main(void)
{
	test_tallies_steps();
	snprintf(dir, sizeof dir, "%s/kbtui-livegrow-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		perror(dir);
		return 2;
	}
	snprintf(path, sizeof path, "%s/transcript.jsonl", dir);
	snprintf(whole, sizeof whole, "%s/whole.jsonl", dir);
	sbuf_init(&written);

	struct run *run = run_new();
	struct livefeed lf = { 0 };
	lf.fl = follow_new(path, run, parser_find("claude"));
	livestream_init(&lf.ls);
	struct replay_feed feed = { .poll = livefeed_poll, .stream = livefeed_stream, .state = &lf, .name = "live" };
	struct replay rp;
	replay_init(&rp, run, "live");
	rp.feed.f = &feed;
	replay_search_set(&rp, PATTERN, 1);

	write_line(lines[0]);
	ok(poll_and_check(&rp, 0, "init"), "the init line: one event, nothing streams");
	stream(&lf, LLM_D_REASONING, "Thinking about STREAMONLY things");
	ok(poll_and_check(&rp, 1, "reasoning streams"), "reasoning streams: beside the events, not among them");
	stream(&lf, LLM_D_TEXT, "I will write");
	ok(poll_and_check(&rp, 2, "text streams"), "text streams after it: two beside, the events as written");
	/* where a streamed event stood among the run's events (the overlay
	 * this replaced), the recorded reasoning took its index and the search
	 * kept the streamed one's match there */
	write_line(lines[1]);
	livestream_recorded(&lf.ls, "reasoning");
	livestream_delta(&lf.ls, LLM_D_TOOL, 0, "Bash", 4);
	ok(poll_and_check(&rp, 2, "reasoning recorded"),
	   "the reasoning recorded while text and a call stream: an event of its own, no streamed match left");
	livestream_recorded(&lf.ls, "retry");  /* the stream dropped: none of it is recorded */
	stream(&lf, LLM_D_TEXT, "STREAMONLY again");
	ok(poll_and_check(&rp, 1, "retry"), "a retry drops the stream; the new one streams");
	write_line(lines[2]);
	livestream_recorded(&lf.ls, "text");
	livestream_delta(&lf.ls, LLM_D_TOOL, 0, "Bash", 4);
	livestream_delta(&lf.ls, LLM_D_TOOL_ARGS, 0, "{\"command\":", 11);
	ok(poll_and_check(&rp, 1, "call streams"), "the text recorded; a tool call streams");
	write_line(lines[3]);
	livestream_recorded(&lf.ls, "tool_call");
	ok(poll_and_check(&rp, 0, "call recorded"), "the call recorded: nothing streams");
	write_line(lines[4]);
	ok(poll_and_check(&rp, 0, "result"), "its result");
	stream(&lf, LLM_D_TEXT, "Done with STREAMONLY");
	ok(poll_and_check(&rp, 1, "last text streams"), "the last text streams");
	livestream_recorded(&lf.ls, "error");
	ok(poll_and_check(&rp, 0, "error"), "an error drops it");
	write_line(lines[5]);
	write_line(lines[6]);
	livestream_recorded(&lf.ls, "result");
	ok(poll_and_check(&rp, 0, "end"), "the end: the run is the transcript's, the sums and matches a fresh replay's");
	is_int((int)rp.cx.nmatches, 2, "the search matches the two recorded events with \"kernel\", none streamed");

	replay_free(&rp);
	livestream_events_free(lf.ev, lf.n);
	livestream_free(&lf.ls);
	follow_free(lf.fl);
	run_free(run);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i]);
	free(seen);
	sbuf_free(&written);
	unlink(path);
	unlink(whole);
	rmdir(dir);
	return tap_done();
}
