/* The file follower: a transcript appended in pieces (split lines too)
 * reads after every poll as a whole-file load of the same bytes does;
 * truncated, rewritten and replaced files start the run over; a file that
 * vanishes keeps the run and is picked up when it is back. Real transcripts
 * of every harness format from ../shared/kbh when present. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "evsig.h"
#include "follow.h"
#include "parser.h"
#include "run.h"

/* Claude Code stream-json: its init line is shared with Cursor and Droid,
 * so a format guessed from the first line alone would be wrong. */
static const char claude_doc[] =
	"{\"type\":\"system\",\"subtype\":\"init\",\"session_id\":\"sess-d\",\"cwd\":\"/w\",\"model\":\"claude-x\",\"tools\":[\"Write\",\"Bash\"]}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{\"type\":\"text\",\"text\":\"I will write the kernel.\"}],\"usage\":{\"input_tokens\":100,\"output_tokens\":20}},\"session_id\":\"sess-d\"}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"Write\",\"input\":{\"file_path\":\"/w/solution.py\",\"content\":\"import torch\\nx = 1\\n\"}}],\"usage\":{\"input_tokens\":100,\"output_tokens\":20}},\"session_id\":\"sess-d\"}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_1\",\"content\":\"File created successfully at: /w/solution.py\"}]},\"session_id\":\"sess-d\"}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_2\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{\"type\":\"tool_use\",\"id\":\"toolu_2\",\"name\":\"Bash\",\"input\":{\"command\":\"nvcc --version\"}}],\"usage\":{\"input_tokens\":150,\"output_tokens\":30}},\"session_id\":\"sess-d\"}\n"
	"{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_2\",\"content\":\"bash: nvcc: command not found\",\"is_error\":true}]},\"session_id\":\"sess-d\"}\n"
	"{\"type\":\"assistant\",\"message\":{\"id\":\"msg_3\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[{\"type\":\"text\",\"text\":\"Done.\"}],\"usage\":{\"input_tokens\":200,\"output_tokens\":10}},\"session_id\":\"sess-d\"}\n"
	"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"Done.\",\"session_id\":\"sess-d\",\"usage\":{\"input_tokens\":450,\"output_tokens\":60}}\n";

/* Grok: a different format, for the file that takes the first one's place. */
static const char grok_doc[] =
	"{\"type\":\"thought\",\"data\":\"Read the reference.\"}\n"
	"{\"type\":\"text\",\"data\":\"Second transcript, other content.\"}\n"
	"{\"type\":\"end\",\"sessionId\":\"s1\",\"stopReason\":\"EndTurn\"}\n";

static char dir[4096], path[4200], whole_path[4200];

static void write_file(const char *p, const char *buf, size_t n, int flags)
{
	int fd = open(p, O_WRONLY | O_CREAT | flags, 0644);
	if (fd < 0 || (n && write(fd, buf, n) != (ssize_t)n)) {
		perror(p);
		exit(2);
	}
	close(fd);
}

static void append(const char *buf, size_t n)
{
	write_file(path, buf, n, O_APPEND);
}

/* The events of a whole-file load of these bytes, as a signature. */
static char *whole_sig(const char *buf, size_t n, const struct parser_ops *forced, char **format)
{
	char *err = NULL;
	write_file(whole_path, buf, n, O_TRUNC);
	struct run *r = parser_load_file(whole_path, forced, &err);
	if (!r) {
		printf("# %s\n", err);
		exit(2);
	}
	char *s = evsig(r);
	if (format)
		*format = r->meta.format ? xstrdup(r->meta.format) : NULL;
	run_free(r);
	return s;
}

/* Whether the followed run now equals a whole load of buf[0..n). */
static int same_as_whole(const struct run *run, const char *buf, size_t n, const struct parser_ops *forced)
{
	char *fmt = NULL;
	char *want = whole_sig(buf, n, forced, &fmt);
	char *got = evsig(run);
	int same = strcmp(got, want) == 0 &&
	           ((!fmt && !run->meta.format) || (fmt && run->meta.format && !strcmp(fmt, run->meta.format)));
	if (!same)
		printf("#   after %zu bytes: format %s vs %s, %zu events\n", n,
		       run->meta.format ? run->meta.format : "-", fmt ? fmt : "-", run->nev);
	free(fmt);
	free(got);
	free(want);
	return same;
}

/* Appends doc from done on in the given pieces, polling after each; counts the polls
 * after which the run differs from a whole load of the bytes so far. */
static int grow_in_pieces(struct follow *f, struct run *run, const char *doc, size_t done, size_t n,
                          const size_t *cuts, size_t ncuts, const struct parser_ops *forced)
{
	int bad = 0;
	for (size_t i = 0; i <= ncuts; i++) {
		size_t to = i < ncuts ? cuts[i] : n;
		if (to > n)
			to = n;
		if (to <= done)
			continue;
		append(doc + done, to - done);
		done = to;
		follow_poll(f);
		bad += !same_as_whole(run, doc, done, forced);
	}
	return bad;
}

static void test_pieces(void)
{
	size_t n = strlen(claude_doc);
	const char *l2 = strchr(claude_doc, '\n') + 1;
	size_t first = (size_t)(l2 - claude_doc);
	/* the first line, half of the second, the rest of it and half the third, ... */
	size_t cuts[] = {first, first + 40, first + 300, n - 100, n - 1};
	struct run *run = run_new();
	struct follow *f = follow_new(path, run, NULL);

	is_int(follow_poll(f), 0, "a file that is not there yet: nothing changed");
	is_int(follow_present(f), 0, "... and it is not present");
	write_file(path, "", 0, O_TRUNC);
	is_int(follow_poll(f), 0, "an empty file: nothing changed");
	is_int(follow_present(f), 1, "... but it is there");

	append(claude_doc, first);
	is_int(follow_poll(f), 1, "the first line: the run changed");
	ok(same_as_whole(run, claude_doc, first, NULL), "after one line: as a whole load of that line");
	is_int(follow_poll(f), 0, "a poll with nothing new reports no change");

	append(claude_doc + first, 40);
	follow_poll(f);
	ok(same_as_whole(run, claude_doc, first + 40, NULL), "half a line waits: as a whole load of the same bytes");
	size_t nev = run->nev;
	append(claude_doc + first + 40, cuts[2] - first - 40);
	is_int(follow_poll(f), 1, "the rest of the line: changed");
	ok(run->nev > nev, "the finished line added events (%zu -> %zu)", nev, run->nev);
	ok(same_as_whole(run, claude_doc, cuts[2], NULL), "as a whole load after the split line");

	int bad = grow_in_pieces(f, run, claude_doc, cuts[2], n, cuts + 3, 2, NULL);
	is_int(bad, 0, "every later poll equals a whole load of the bytes so far");
	is_str(run->meta.format, "claude", "the format is claude once enough lines came");
	is_int(run->incomplete, 0, "the result line completes the run");
	is_int(follow_restarts(f), 0, "growing never restarts the run");
	is_int((long long)follow_offset(f), (long long)n, "every byte read");

	/* truncated, then shorter different content */
	write_file(path, grok_doc, 60, O_TRUNC);
	is_int(follow_poll(f), 1, "truncated: the run changed");
	is_int(follow_restarts(f), 1, "... read again from the start");
	is_str(follow_why_name(follow_last_why(f)), "truncated", "... because it was truncated");
	ok(same_as_whole(run, grok_doc, 60, NULL), "... and equals a whole load of the new bytes");
	append(grok_doc + 60, strlen(grok_doc) - 60);
	follow_poll(f);
	ok(same_as_whole(run, grok_doc, strlen(grok_doc), NULL), "the new file grows like the first");
	is_str(run->meta.format, "grok", "... in its own format");

	/* rewritten in place with longer content before the next poll */
	write_file(path, claude_doc, n, O_TRUNC);
	is_int(follow_poll(f), 1, "rewritten longer in place: changed");
	is_str(follow_why_name(follow_last_why(f)), "rewritten", "... noticed as rewritten, not as appended");
	ok(same_as_whole(run, claude_doc, n, NULL), "... and read again from the start");

	/* replaced: another file renamed over it */
	char other[4300];
	snprintf(other, sizeof other, "%s/other", dir);
	write_file(other, grok_doc, strlen(grok_doc), O_TRUNC);
	if (rename(other, path) < 0)
		perror("rename");
	is_int(follow_poll(f), 1, "replaced by rename: changed");
	is_str(follow_why_name(follow_last_why(f)), "replaced", "... noticed as replaced");
	ok(same_as_whole(run, grok_doc, strlen(grok_doc), NULL), "... the run is the new file's");

	/* vanished for a while, then back */
	size_t before = run->nev;
	unlink(path);
	is_int(follow_poll(f), 0, "vanished: nothing changed");
	is_int(follow_present(f), 0, "... it is not present");
	is_int(follow_poll(f), 0, "... and polling again is fine");
	is_int((long long)run->nev, (long long)before, "the run stays as it was while the file is gone");
	write_file(path, claude_doc, first, O_TRUNC);
	is_int(follow_poll(f), 1, "back again: changed");
	is_str(follow_why_name(follow_last_why(f)), "replaced", "... a file that came back is a replacement");
	is_int(follow_restarts(f), 4, "four restarts in all");
	ok(same_as_whole(run, claude_doc, first, NULL), "... read from its start");
	append(claude_doc + first, n - first);
	follow_poll(f);
	ok(same_as_whole(run, claude_doc, n, NULL), "and it grows on");

	follow_free(f);
	run_free(run);
	unlink(path);
}

static void test_forced(void)
{
	const struct parser_ops *grok = parser_find("grok");
	size_t n = strlen(grok_doc);
	size_t cuts[] = {10, 52, 90};
	struct run *run = run_new();
	struct follow *f = follow_new(path, run, grok);
	write_file(path, "", 0, O_TRUNC);
	is_int(grow_in_pieces(f, run, grok_doc, 0, n, cuts, 3, grok), 0, "--format grok: every poll as a whole load");
	is_str(run->meta.format, "grok", "the forced format is the run's");
	follow_free(f);
	run_free(run);
	unlink(path);
}

/* A real transcript: its first max bytes (whole lines), appended in pieces
 * of about a tenth, each cut in the middle of a line. */
static void test_real(const char *kbh, const char *format, size_t max)
{
	char idx[4200], *line = NULL;
	size_t cap = 0;
	char *transcript = NULL;
	snprintf(idx, sizeof idx, "%s/runs.jsonl", kbh);
	FILE *fi = fopen(idx, "r");
	char want[64];
	snprintf(want, sizeof want, "\"format\": \"%s\"", format);
	while (fi && getline(&line, &cap, fi) > 0) {
		char *t = strstr(line, "\"transcript\": \"");
		if (!strstr(line, want) || !t)
			continue;
		t += strlen("\"transcript\": \"");
		char *end = strchr(t, '"');
		if (!end)
			continue;
		*end = '\0';
		char p[4400];
		snprintf(p, sizeof p, "%s/%s", kbh, t);
		if (util_is_file(p)) {
			transcript = xstrdup(p);
			break;
		}
	}
	free(line);
	if (fi)
		fclose(fi);
	if (!transcript) {
		tap_skip(format);
		printf("# SKIP no %s transcript in %s\n", format, kbh);
		return;
	}
	size_t n;
	char *doc = util_read_file(transcript, &n);
	if (n > max) {
		n = max;  /* whole lines up to max */
		while (n > 0 && doc[n - 1] != '\n')
			n--;
	}
	size_t cuts[12];
	for (size_t i = 0; i < 12; i++)
		cuts[i] = n * (i + 1) / 13 + 7;  /* rarely on a line's end */
	struct run *run = run_new();
	struct follow *f = follow_new(path, run, NULL);
	write_file(path, "", 0, O_TRUNC);
	int bad = grow_in_pieces(f, run, doc, 0, n, cuts, 12, NULL);
	is_int(bad, 0, "%s: %zu bytes appended in 13 pieces, every poll as a whole load (%zu events, %s)",
	       format, n, run->nev, run->meta.format ? run->meta.format : "-");
	is_str(run->meta.format, format, "%s: sniffed as %s", format, format);
	follow_free(f);
	run_free(run);
	unlink(path);
	free(doc);
	free(transcript);
}

/* A big file read over several polls of a small budget: the first poll
 * has the first events, each reads about the budget, and the run after
 * the last one is a whole load's. */
static void test_budget(void)
{
	struct sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"s\",\"tools\":[\"Bash\"],"
	              "\"mcp_servers\":[],\"model\":\"m\",\"permissionMode\":\"default\"}\n");
	for (int k = 0; k < 3000; k++)
		sbuf_addf(&b, "{\"type\":\"assistant\",\"message\":{\"id\":\"m%d\",\"type\":\"message\",\"role\":\"assistant\","
		              "\"model\":\"m\",\"content\":[{\"type\":\"tool_use\",\"id\":\"t%d\",\"name\":\"Bash\",\"input\":"
		              "{\"command\":\"ls %d\"}}],\"usage\":{\"input_tokens\":1,\"output_tokens\":1}},"
		              "\"parent_tool_use_id\":null,\"session_id\":\"s\",\"uuid\":\"a%d\"}\n"
		              "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"t%d\","
		              "\"type\":\"tool_result\",\"content\":\"file%d\"}]},\"parent_tool_use_id\":null,"
		              "\"session_id\":\"s\",\"uuid\":\"u%d\"}\n", k, k, k, k, k, k, k);
	write_file(path, b.s, b.len, O_TRUNC);
	struct run *run = run_new();
	struct follow *f = follow_new(path, run, NULL);
	size_t polls = 0, over = 0, last = 0;
	while (follow_poll_budget(f, 64 * 1024) && polls < 1000) {
		polls++;
		over += follow_offset(f) - last > 2 * 64 * 1024;
		last = follow_offset(f);
		if (polls == 1)
			ok(follow_pending(f) > 0 && run->nev > 100 && run->nev < 6000,
			   "the first poll: the first events (%zu), bytes left for the next (%zu)", run->nev, follow_pending(f));
	}
	ok(polls >= b.len / (64 * 1024), "read over %zu polls of a 64 KiB budget (%zu bytes)", polls, b.len);
	is_int(over, 0, "no poll read much more than its budget");
	is_int(follow_pending(f), 0, "then nothing left");
	ok(run->nev > 9000 && same_as_whole(run, b.s, b.len, NULL), "the run is a whole load's (%zu events)", run->nev);
	follow_free(f);
	run_free(run);
	sbuf_free(&b);
}

int main(void)
{
	const char *t = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/kbfollowXXXXXX", t ? t : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(path, sizeof path, "%s/transcript.jsonl", dir);
	snprintf(whole_path, sizeof whole_path, "%s/whole.jsonl", dir);

	test_pieces();
	test_forced();
	test_budget();
	const char *kbh = tap_shared_kbh();
	if (kbh) {
		static const char *const formats[] = {"claude", "codex", "opencode", "droid", "kimi", "grok"};
		for (size_t i = 0; i < sizeof formats / sizeof *formats; i++)
			test_real(kbh, formats[i], 2 << 20);
	} else {
		tap_skip("../shared/kbh not found: real transcripts not followed");
	}
	unlink(whole_path);
	rmdir(dir);
	return tap_done();
}
