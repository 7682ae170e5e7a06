/* The incremental reader: sniffing, split and growing input, unfinished
 * last lines, CRLF, unknown formats. Uses the grok format as the carrier. */
#include "tap.h"
#include "jxsame.h"
#include "evsig.h"
#include "parser.h"
#include "linescan.h"
#include "util.h"
#include "jsonx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <ftw.h>
#include <sys/stat.h>
#include <math.h>

static const char doc[] =
	"{\"type\":\"thought\",\"data\":\"Read the reference.\"}\n"
	"\n"
	"{\"type\":\"thought\",\"data\":\" Tile by 128.\"}\r\n"
	"{\"type\":\"text\",\"data\":\"Wrote solution.py\"}\n"
	"{\"type\":\"end\",\"sessionId\":\"s1\",\"stopReason\":\"EndTurn\"}\n";

static struct run *feed_chunks(const char *s, size_t n, size_t chunk)
{
	struct run *r = run_new();
	struct reader *rd = reader_new(r, NULL);
	for (size_t i = 0; i < n; i += chunk)
		reader_feed(rd, s + i, n - i < chunk ? n - i : chunk);
	reader_finish(rd);
	reader_free(rd);
	return r;
}

/* jx_parse and cJSON agree on s[0..n): both refuse it, or same trees. */
/* Both with plain malloc and inside a per-line arena, where jx_parse
 * decodes strings in one pass straight into the arena's chunk. */
static int parsers_agree(const char *s, size_t n)
{
	cJSON *a = jx_parse(s, n), *b = jx_parse_cjson(s, n);
	int same = (!a && !b) || (a && b && jx_same_tree(a, b));
	cJSON_Delete(a);
	cJSON_Delete(b);
	jx_arena_begin();
	a = jx_parse(s, n);
	b = jx_parse_cjson(s, n);
	same = same && ((!a && !b) || (a && b && jx_same_tree(a, b)));
	jx_arena_end();
	return same;
}

/* Escapes at every offset of a string around the 16 bytes the parser
 * scans at a time, well-formed and not (\u0\"00: cJSON reads a bad
 * digit as 0 and runs on past the quote), each whole and cut anywhere. */
static int strings_agree(void)
{
	static const char *const esc[] = {
		"\\n", "\\\"", "\\\\", "\\/", "\\u00e9", "\\ud83d\\ude00", "\\u0\\\"00",
		"\\u00", "\\uD800\\u\"", "\\uD800x", "\\uDBFF\\uDFFF", "\\uDC00", "\\uD8zz\\uDC00", "\\uDbFf\\udC0", "\\q", "\\",
	};
	char buf[160];
	int bad = 0;
	for (size_t e = 0; e < sizeof esc / sizeof *esc; e++)
		for (int k = 0; k < 36; k++)
			for (int k2 = 0; k2 < 20; k2 += 3) {
				int n = snprintf(buf, sizeof buf, "[\"%.*s%s%.*s\",\"%.*s\"]", k,
				    "abcdefghijklmnopqrstuvwxyz0123456789", esc[e], k2, "GHIJKLMNOPQRSTUVWXYZ", k2, "xyzxyzxyzxyzxyzxyzxyz");
				for (int cut = 1; cut <= n; cut++)
					if (!parsers_agree(buf, (size_t)cut) && bad++ < 5)
						printf("# parsers differ on %.*s\n", cut, buf);
			}
	return bad;
}

static void test_parser_vs_cjson(void)
{
	static const char *const cases[] = {
		"{}", "[]", " { } ", "{\"a\":1}", "{\"a\" : [1, 2.5, -3e2, 1e400, -0, 0.1]}", "[true,false,null]",
		"\"\\u00e9\\u20ac\\ud83d\\ude00\\n\\t\\/\\\"\"", "\"\\ud83d\"", "\"\\ude00\"", "\"\\u12zz\"",
"\"\\x\"", "\"abc", "\"abc\\", "[1,]", "[1 2]", "{\"a\"}", "{\"a\":}", "{,}",
		"nul", "nullx", "truex", "-", "-x", "1.2.3", "\xEF\xBB\xBF{\"bom\":1}", "\xEF\xBB\xBF", "{\"a\":1} trailing",
		"\x01\x02[1]", "   ", "[", "{", "{\"k\":\"v\",\"k\":2}", "[[[[[]]]]]", "2147483648", "-2147483649",
		"123456789012345678901234567890123456789012345678901234567890123456789", "\"tab\there\"", "+1", ".5",
		/* integers read without strtod (up to 15 digits), and what is left to it */
		"[007,-0,0,-7,1-2,--1,-,123456789012345,-999999999999999,1234567890123456,9007199254740993]",
		"[2147483647,2147483648,-2147483648,-2147483649,1e3,1.0,-0.0,12e,+5]", "-0", "0", "15", "-",
		/* a short \u whose bad digits would reach past the closing quote */
		"[\"\\u0\",\"xyz\"]", "[\"\\u\",\"xyzw\"]", "[\"\\u00\",\"\"]", "[\"\\uD800\\u0\",\"xyz\"]", "[\"ab\\uD800\",\"xyzwv\"]",
	};
	int bad = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		if (!parsers_agree(cases[i], strlen(cases[i]))) {
			bad++;
			printf("# parsers differ on: %s\n", cases[i]);
		}
	/* the one difference: \u0000 would end cJSON's C string there */
	cJSON *z = jx_parse("\"a\\u0000x\\u0000\"", 16);
	ok(z && cJSON_IsString(z) && !strcmp(z->valuestring, "a\xe2\x90\x80x\xe2\x90\x80"),
	   "\\u0000 reads as U+2400, the rest of the string kept (cJSON would cut it)");
	cJSON_Delete(z);
		/* every prefix of a line with each kind of value, cut anywhere */
	const char *line = "{\"a\":[1,-2.5e3,true,false,null,\"x\\u00e9\\ud83d\\ude00\\\"y\"],\"b\":{\"c\":{}}}";
	for (size_t n = 1; n <= strlen(line); n++)
		if (!parsers_agree(line, n)) {
			bad++;
			printf("# parsers differ on a prefix of %zu bytes\n", n);
		}
	/* 1000 levels parse, 1001 do not, in both */
	struct sbuf deep;
	sbuf_init(&deep);
	for (int i = 0; i < 1001; i++)
		sbuf_addc(&deep, '[');
	for (int i = 0; i < 1001; i++)
		sbuf_addc(&deep, ']');
	if (!parsers_agree(deep.s, deep.len) || !parsers_agree(deep.s + 1, deep.len - 2))
		bad++;
	sbuf_free(&deep);
	is_int(bad, 0, "jx_parse and cJSON agree on hand-made lines, prefixes and nesting limits");
	is_int(strings_agree(), 0, "jx_parse and cJSON agree on escapes at every offset, whole and cut, in an arena and not");

	const char *kbh = tap_shared_kbh();
	char dir[4200], path[4600];
	DIR *d;
	struct dirent *de;
	long lines = 0;
	bad = 0;
	if (!kbh) {
		tap_skip("no shared/kbh: jx_parse not compared on real lines");
		return;
	}
	snprintf(dir, sizeof dir, "%s/runs", kbh);
	if (!(d = opendir(dir)))
		return;
	while ((de = readdir(d))) {
		size_t len;
		snprintf(path, sizeof path, "%s/%s/transcript.jsonl", dir, de->d_name);
		char *s = de->d_name[0] != '.' && util_is_file(path) ? util_read_file(path, &len) : NULL;
		for (char *p = s, *end = s ? s + len : NULL; p && p < end;) {
			char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			lines++;
			if (!parsers_agree(p, n) && bad++ < 5)
				printf("# parsers differ: %s line %ld\n", path, lines);
			p = nl ? nl + 1 : end;
		}
		free(s);
	}
	closedir(d);
	ok(lines > 0 && bad == 0, "jx_parse and cJSON agree on all %ld lines of shared/kbh", lines);
}

/* A run with its errors and format, for comparing two loads. */
static char *loadsig(const struct run *r)
{
	char *ev = evsig(r);
	struct sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, ev);
	sbuf_addf(&b, "format=%s nerrors=%d\n", r->meta.format ? r->meta.format : "-", r->nerrors);
	for (int i = 0; i < r->nerrors && i < RUN_MAX_ERRORS; i++)
		sbuf_addf(&b, "error %d: %s\n", r->errors[i].line, r->errors[i].msg);
	free(ev);
	return sbuf_detach(&b);
}

static int loader_files, loader_bad;

/* The stepped loader (the pager's) at small budgets against a whole load. */
static int loader_check(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	size_t len = strlen(path);
	if (type != FTW_F || !S_ISREG(st->st_mode) || len < 5 ||
	    (strcmp(path + len - 6, ".jsonl") && strcmp(path + len - 5, ".json") && strcmp(path + len - 4, ".txt")))
		return 0;
	char *err = NULL;
	struct run *whole = parser_load_final(path, NULL, &err);
	free(err);
	if (!whole)
		return 0;
	char *want = loadsig(whole);
	static const size_t budgets[] = { 1, 4096, 5003 };
	for (size_t k = 0; k < sizeof budgets / sizeof budgets[0]; k++) {
		struct parser_loader *l = parser_loader_open(path, NULL, &err);
		int rc = l ? 1 : -1, steps = 0;
		while (rc > 0) {
			rc = parser_loader_step(l, budgets[k], &err);
			steps++;
		}
		char *got = rc == 0 ? loadsig(parser_loader_run(l)) : NULL;
		if (!got || strcmp(got, want)) {
			if (loader_bad++ < 5)
				printf("# %s: read %d steps of %zu bytes: not the whole load's run\n", path, steps, budgets[k]);
		}
		free(got);
		free(err);
		err = NULL;
		parser_loader_free(l);
	}
	loader_files++;
	free(want);
	run_free(whole);
	return 0;
}

static int end_files, end_bad;

static int ev_same(const struct event *a, const struct event *b)
{
	return a->kind == b->kind && a->line == b->line && a->is_error == b->is_error &&
	       !strcmp(a->text ? a->text : "", b->text ? b->text : "") &&
	       !strcmp(a->name ? a->name : "", b->name ? b->name : "");
}

/* The end of a file read apart (the pager's G): from the line start near
 * the middle, its lines before counted by linescan. After the seam (the
 * first events, which may have begun before it: merged deltas, a turn cut
 * in two) its events are the whole load's last ones, on the same lines. */
static int end_check(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	size_t len = strlen(path);
	if (type != FTW_F || !S_ISREG(st->st_mode) || len < 7 || strcmp(path + len - 6, ".jsonl") || st->st_size < 2048)
		return 0;
	char *err = NULL;
	/* the whole load, and the format it chose (a session file's variant
	 * too, which the pager hands on: the end's first lines cannot tell) */
	struct parser_loader *wl = parser_loader_open(path, NULL, &err);
	while (wl && parser_loader_step(wl, 1 << 20, &err) > 0)
		;
	const struct parser_ops *ops = wl ? parser_loader_format(wl) : NULL;
	struct run *whole = wl ? parser_loader_take(wl) : NULL;
	if (wl)
		parser_loader_free(wl);
	free(err);
	err = NULL;
	if (!ops || !whole || whole->nev < 8) {
		run_free(whole);
		return 0;
	}
	int fd = open(path, O_RDONLY);
	size_t start = 0, lines = 0, size = (size_t)st->st_size, real = 0;
	int bad = fd < 0 || linescan_start_near(fd, size / 2, 0, size, &start) < 0 ||
	          linescan_count(fd, 0, start, &lines) < 0;
	/* the count against a plain one, and the start a line's */
	char *all = util_read_file(path, &real);
	size_t want = 0;
	for (size_t i = 0; all && i < start && i < real; i++)
		want += all[i] == '\n';
	bad |= !all || real != size || want != lines || (start > 0 && all[start - 1] != '\n');
	free(all);
	struct parser_loader *l = bad ? NULL : parser_loader_open_at(path, ops, start, (int)lines, &err);
	int rc = l ? 1 : -1;
	while (rc > 0)
		rc = parser_loader_step(l, 1 << 16, &err);
	const struct run *end = rc == 0 ? parser_loader_run(l) : NULL;
	/* usage left out: a result record's totals less what was seen come
	 * as one more usage event, and the end saw less */
	size_t nw = 0, ne = 0, seam = 3;
	const struct event **w = xcalloc(whole->nev, sizeof *w), **e = end ? xcalloc(end->nev + 1, sizeof *e) : NULL;
	for (size_t i = 0; i < whole->nev; i++)
		if (whole->ev[i].kind != EV_USAGE)
			w[nw++] = &whole->ev[i];
	for (size_t i = 0; end && i < end->nev; i++)
		if (end->ev[i].kind != EV_USAGE)
			e[ne++] = &end->ev[i];
	if (end && ne && ne <= seam)  /* a short end: all of it may be seam, but its last event is the last */
		seam = ne - 1;
	if (!end || !ne || ne - seam > nw) {
		bad = 1;
	} else {
		size_t k = nw - (ne - seam);
		for (size_t j = seam; j < ne && !bad; j++, k++)
			bad = !ev_same(e[j], w[k]);
	}
	free(w);
	free(e);
	if (bad && end_bad++ < 5)
		printf("# %s: the end from byte %zu (line %zu) is not the whole load's end (%s)\n", path, start, lines + 1,
		       err ? err : end ? "events differ" : "not read");
	end_files++;
	free(err);
	if (l)
		parser_loader_free(l);
	if (fd >= 0)
		close(fd);
	run_free(whole);
	return 0;
}

static void test_end(void)
{
	nftw(tap_path("tests/fixtures"), end_check, 16, FTW_PHYS);
	nftw(tap_path("tests/realworld"), end_check, 16, FTW_PHYS);
	if (util_is_dir(tap_path("../shared/kbh/runs")))
		nftw(tap_path("../shared/kbh/runs"), end_check, 16, FTW_PHYS);
	ok(end_files > 20 && end_bad == 0, "parser_loader_open_at from the line start nearest the middle: after the "
	   "seam, the events (kind, line, text, name) are the whole load's last ones, for %d transcripts (%d differ)",
	   end_files, end_bad);
}

static void test_linescan(void)
{
	char path[] = "/tmp/kbtui-linescan-XXXXXX";
	int fd = mkstemp(path);
	const char *doc = "ab\ncd\n\nlast line without newline";
	size_t n = strlen(doc), c = 99, at = 99;
	int rc;
	ok(fd >= 0 && write(fd, doc, n) == (ssize_t)n, "linescan: a file written");
	rc = linescan_count(fd, 0, n, &c);
	ok(rc == 0 && c == 3, "linescan_count: 3 newlines (%zu)", c);
	rc = linescan_count(fd, 3, 6, &c);
	ok(rc == 0 && c == 1, "linescan_count: 1 in bytes 3..6 (%zu)", c);
	rc = linescan_count(fd, 0, n + 10, &c);
	ok(rc < 0 && errno == EIO, "linescan_count: past the end is an error");
	rc = linescan_start_near(fd, 1, 0, n, &at);
	ok(rc == 0 && at == 3, "linescan_start_near: after the newline at 2 (%zu)", at);
	rc = linescan_start_near(fd, 3, 0, n, &at);
	ok(rc == 0 && at == 6, "linescan_start_near: a line start is passed for the next (%zu)", at);
	rc = linescan_start_near(fd, 10, 0, n, &at);
	ok(rc == 0 && at == 7,
	   "linescan_start_near: inside the last line, where it begins (%zu)", at);
	rc = linescan_start_near(fd, 10, 8, n, &at);
	ok(rc == 0 && at == 8, "linescan_start_near: never before the floor (%zu)", at);
	rc = linescan_start_near(fd, n + 5, 0, n, &at);
	ok(rc == 0 && at == 0, "linescan_start_near: past the end, the floor");
	close(fd);
	unlink(path);
}

static void test_loader(void)
{
	nftw(tap_path("tests/fixtures"), loader_check, 16, FTW_PHYS);
	nftw(tap_path("tests/realworld"), loader_check, 16, FTW_PHYS);
	if (util_is_dir(tap_path("../shared/kbh/runs")))  /* the real sample, where CI has it */
		nftw(tap_path("../shared/kbh/runs"), loader_check, 16, FTW_PHYS);
	ok(loader_files > 50 && loader_bad == 0, "parser_loader, read 1 byte, 4096 and 5003 bytes a step: the run, "
	   "its errors and format as a whole load makes them, for all %d transcripts of the fixtures and realworld "
	   "(%d differ)", loader_files, loader_bad);
	/* the run taken, then nothing more to read */
	char *err = NULL;
	struct parser_loader *l = parser_loader_open(tap_path("tests/fixtures/flags/hack.jsonl"), NULL, &err);
	while (l && parser_loader_step(l, 1 << 20, &err) > 0)
		;
	size_t done = 0, total = 0;
	if (l)
		parser_loader_progress(l, &done, &total);
	struct run *r = l ? parser_loader_take(l) : NULL;
	ok(r && r->nev > 0 && !parser_loader_run(l) && done == total && done > 0,
	   "parser_loader: read whole (%zu of %zu bytes), the run taken leaves none behind", done, total);
	ok(l && parser_loader_step(l, 1, &err) == 0, "parser_loader: a step after the end reads nothing");
	parser_loader_free(l);
	run_free(r);
	l = parser_loader_open("/nonexistent/kbtui/t.jsonl", NULL, &err);
	ok(!l && err && strstr(err, "/nonexistent/kbtui/t.jsonl") && strstr(err, "No such file"),
	   "parser_loader_open: a missing file named in the error (%s)", err ? err : "-");
	free(err);
	err = NULL;
	l = parser_loader_open(tap_path("tests"), NULL, &err);
	ok(l && parser_loader_step(l, 1, &err) < 0 && err && strstr(err, "read error"),
	   "parser_loader_step: a directory is a read error (%s)", err ? err : "-");
	free(err);
	parser_loader_free(l);
}

int main(void)
{
	test_loader();
	test_end();
	test_linescan();
	size_t n = strlen(doc);
	struct run *whole = feed_chunks(doc, n, n);
	char *want = evsig(whole);

	is_str(whole->meta.format, "grok", "format sniffed from content");
	is_int(whole->nev, 2, "deltas merged: one reasoning, one text");
	is_str(whole->ev[0].text, "Read the reference. Tile by 128.", "CRLF stripped, blank line skipped");
	is_int(whole->ev[1].line, 4, "events keep their source line");
	is_int(whole->incomplete, 0, "end record marks completion");
	is_str(whole->meta.session_id, "s1", "session id from the end record");

	size_t chunks[] = {1, 2, 3, 7, 64};
	for (size_t i = 0; i < sizeof chunks / sizeof *chunks; i++) {
		struct run *r = feed_chunks(doc, n, chunks[i]);
		char *got = evsig(r);
		is_str(got, want, "split into %zu-byte pieces parses the same", chunks[i]);
		free(got);
		run_free(r);
	}

	/* growing file: half, finish (what a watcher does), the rest, finish */
	{
		struct run *r = run_new();
		struct reader *rd = reader_new(r, NULL);
		size_t half = n / 2;
		reader_feed(rd, doc, half);
		reader_finish(rd);
		is_int(r->incomplete, 1, "half a transcript is incomplete");
		is_int(r->malformed, 0, "an unfinished last line is not malformed");
		reader_feed(rd, doc + half, n - half);
		reader_finish(rd);
		char *got = evsig(r);
		is_str(got, want, "growing file ends as the whole file");
		is_int(reader_offset(rd), n, "offset covers every byte");
		free(got);
		reader_free(rd);
		run_free(r);
	}

	/* a watcher's finish lands exactly before a newline: line numbers stay right */
	{
		const char *a = "{\"type\":\"text\",\"data\":\"a\"}";
		const char *b = "\n{\"type\":\"thought\",\"data\":\"b\"}\n{\"type\":\"end\",\"sessionId\":\"x\"}\n";
		struct run *r = run_new();
		struct reader *rd = reader_new(r, NULL);
		reader_feed(rd, a, strlen(a));
		reader_finish(rd);
		is_int(r->nev, 1, "the unterminated whole line is taken at finish");
		reader_feed(rd, b, strlen(b));
		reader_finish(rd);
		is_int(r->nev, 2, "the rest follows");
		is_int(r->ev[1].line, 2, "its newline is not counted as another line");
		is_int(reader_offset(rd), strlen(a) + strlen(b), "offset counts every byte once");
		reader_free(rd);
		run_free(r);
	}
	/* last line without newline: parsed when whole JSON */
	{
		const char *s = "{\"type\":\"text\",\"data\":\"a\"}\n{\"type\":\"end\",\"sessionId\":\"x\"}";
		struct run *r = feed_chunks(s, strlen(s), 5);
		is_int(r->incomplete, 0, "a final line without newline still counts");
		run_free(r);
	}
	/* truncated last line: waits, marks incomplete */
	{
		const char *s = "{\"type\":\"text\",\"data\":\"a\"}\n{\"type\":\"end\",\"sessio";
		struct run *r = feed_chunks(s, strlen(s), 4);
		is_int(r->nev, 1, "the truncated line adds no event");
		is_int(r->incomplete, 1, "a truncated transcript is incomplete");
		is_int(r->malformed, 0, "and not malformed");
		run_free(r);
	}
	/* a malformed line in the middle is reported with its number */
	{
		const char *s = "{\"type\":\"text\",\"data\":\"a\"}\n{\"type\":\"text\",\"data\":\"b\"}\n"
		                "{oops\n{\"type\":\"end\",\"sessionId\":\"x\"}\n";
		struct run *r = feed_chunks(s, strlen(s), 3);
		is_int(r->malformed, 1, "one malformed line");
		is_int(r->errors[0].line, 3, "reported at line 3");
		has_str(r->errors[0].msg, "JSON", "message says what was wrong");
		is_int(r->incomplete, 0, "the rest still parsed to the end record");
		run_free(r);
	}
	/* nothing recognisable: one message for the file, no crash, no format;
	 * valid JSON lines are not "malformed" */
	{
		struct sbuf b;
		sbuf_init(&b);
		for (int i = 0; i < 10; i++)
			sbuf_adds(&b, "{\"foo\":1}\n");
		struct run *r = feed_chunks(b.s, b.len, 10);
		ok(r->meta.format == NULL, "no format chosen for unknown lines");
		is_int(r->malformed, 1, "unknown JSON lines are one report, not ten malformed lines");
		is_int(r->errors[0].line, 1, "from line 1");
		has_str(r->errors[0].msg, "unrecognised transcript format: no format knows these record types",
		        "the message says no format knows their record types");
		sbuf_free(&b);
		run_free(r);
		/* the record types it quotes are the file's: made visible */
		sbuf_init(&b);
		for (int i = 0; i < 9; i++)
			sbuf_adds(&b, "{\"type\":\"\\u001b[2Jx\"}\n");
		r = feed_chunks(b.s, b.len, 7);
		ok(r->nerrors == 1 && !strchr(r->errors[0].msg, '\033') && strstr(r->errors[0].msg, "^[[2Jx"),
		   "an escape in a quoted record type is made visible (%s)", r->nerrors ? r->errors[0].msg : "");
		sbuf_free(&b);
		run_free(r);
	}
	/* an empty transcript is an empty run */
	{
		struct run *r = feed_chunks("", 0, 1);
		is_int(r->nev, 0, "empty input: no events");
		is_int(r->malformed, 0, "empty input: nothing malformed");
		run_free(r);
	}
	/* forcing a format bypasses the sniffer */
	{
		struct run *r = run_new();
		struct reader *rd = reader_new(r, parser_find("grok"));
		reader_feed(rd, doc, n);
		reader_finish(rd);
		ok(reader_format(rd) == parser_find("grok"), "forced format is used");
		is_int(r->nev, 2, "and parses");
		reader_free(rd);
		run_free(r);
	}
	/* a long stream of deltas merges into one event, byte for byte (merged
	 * by appending: re-concatenating each time was quadratic) */
	{
		enum { NDELTA = 50000 };
		struct sbuf in, want_text;
		sbuf_init(&in);
		sbuf_init(&want_text);
		for (int i = 0; i < NDELTA; i++) {
			sbuf_addf(&in, "{\"type\":\"text\",\"data\":\"d%05d \"}\n", i);
			sbuf_addf(&want_text, "d%05d ", i);
		}
		sbuf_adds(&in, "{\"type\":\"thought\",\"data\":\"then\"}\n{\"type\":\"text\",\"data\":\"x\"}\n");
		struct run *r = feed_chunks(in.s, in.len, 4096);
		is_int(r->nev, 3, "50,000 deltas: one text event, then the next kinds");
		is_int(r->nev ? strlen(r->ev[0].text) : 0, want_text.len, "50,000 deltas: merged length");
		is_str(r->nev ? r->ev[0].text : NULL, want_text.s, "50,000 deltas: merged text exact");
		is_str(r->nev > 2 ? r->ev[2].text : NULL, "x", "a text after another kind starts a new event");
		run_free(r);
		sbuf_free(&in);
		sbuf_free(&want_text);
	}
	test_parser_vs_cjson();
	ok(parser_find("nope") == NULL, "unknown format name is not found");
	ok(parser_sniff(doc, n) == parser_find("grok"), "parser_sniff on a buffer");

	free(want);
	run_free(whole);
	return tap_done();
}
