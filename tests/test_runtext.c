/* test_runtext.c: a run's flat searchable text (runtext) finds exactly the
 * lines flag_grep finds (same events, line numbers, text, order), built
 * from the run or read back from its cache entry; patterns whose matches a
 * one-pass search over all parts could lose are still found; the cache
 * entry goes stale when the transcript changes and a damaged one is
 * refused. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "flags.h"
#include "parser.h"
#include "runtext.h"
#include "search.h"
#include "util.h"
#include "tap.h"

static int collect(void *ud, size_t ev, int line, const char *text, size_t len)
{
	sbuf_addf(ud, "%zu:%d:%.*s\n", ev, line, (int)len, text);
	return 0;
}

/* Lines as flag_grep and as runtext_grep give them, compared. */
static int same_lines(struct search *s, const struct run *r, const struct runtext *t, const char *what)
{
	struct sbuf a, b;
	sbuf_init(&a);
	sbuf_init(&b);
	size_t na = flag_grep(s, r, collect, &a), nb = runtext_grep(s, t, collect, &b);
	int same = na == nb && a.len == b.len && (!a.len || memcmp(a.s, b.s, a.len) == 0);
	if (!same)
		printf("# %s, /%s/: flag_grep %zu lines, runtext %zu\n", what, search_pattern(s), na, nb);
	sbuf_free(&a);
	sbuf_free(&b);
	return same;
}

static const char *pats[] = {
	"tflops=", "speedup", "peak_fraction:\\s*[0-9.]+", "(?i)reward hack", "cudaMalloc|cudaFree|torch\\.cuda",
	"^\\+", "^$", "\\s$", "x*", "e(?=\\n)", "(?<=e)d\\b", "torch\\.\\w++", "\\Aimport", "\\z", "(?>\\w+\\s*)$",
	"[[:upper:]]{3}", "(?s)def.*return", "model", "[^a-z]", "\\btool\\b", "é", NULL,
};

static int transcripts(const char *dir, char **out, int max, int n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return n;
	while (n < max && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *p = util_path_join(dir, de->d_name);
		size_t l = strlen(p);
		if (util_is_dir(p)) {
			n = transcripts(p, out, max, n);
			free(p);
		} else if (l > 6 && !strcmp(p + l - 6, ".jsonl") && strcmp(de->d_name, "runs.jsonl")) {
			out[n++] = p;
		} else {
			free(p);
		}
	}
	closedir(d);
	return n;
}

/* A run read as a stream, as kbtui search reads one the cache does not
 * know: each slice's settled events made into text (runtext_events),
 * grepped alone, written to an entry (runtext_writer), their text dropped. */
struct stream_check {
	struct search *s;          /* grepped slice by slice */
	struct sbuf lines;
	struct runtext_writer *w;
	size_t done;
};

static void stream_settled(void *arg, struct run *r, size_t settled)
{
	struct stream_check *x = arg;
	if (settled <= x->done)
		return;
	struct runtext *t = runtext_events(r, x->done, settled);
	runtext_grep(x->s, t, collect, &x->lines);
	runtext_writer_add(x->w, t);
	runtext_free(t);
	for (; x->done < settled; x->done++)
		run_event_drop_text(&r->ev[x->done]);
}

/* The streamed text against the whole run's: the lines found slice by
 * slice, and the entry written from the slices, read back, for every
 * pattern. 1 when all agree. */
static int stream_same(const char *file, const struct run *whole, size_t slice, int *written)
{
	static const char *const fmt = "stream-check";  /* its own entry beside the whole run's */
	struct runtext_key key;
	runtext_free(runtext_load(file, fmt, &key));
	char *err = NULL;
	struct stream_check x = { search_new("model|^$|\\+", &err), {0}, runtext_writer_new(file, fmt, &key), 0 };
	sbuf_init(&x.lines);
	struct run *r = parser_load_stream(file, NULL, &err, slice, NULL, stream_settled, &x);
	*written += runtext_writer_end(x.w, r != NULL) == 0;
	struct sbuf want;
	sbuf_init(&want);
	flag_grep(x.s, whole, collect, &want);
	int same = r && r->nev == whole->nev && want.len == x.lines.len && (!want.len || !memcmp(want.s, x.lines.s, want.len));
	if (!same)
		printf("# %s, slices of %zu: streamed lines differ from the whole run's\n", file, slice);
	struct runtext *back = runtext_load(file, fmt, &key);
	for (const char **p = pats; *p && back; p++) {
		struct search *s = search_new(*p, &err);
		if (s && !same_lines(s, whole, back, file))
			same = 0;
		search_free(s);
	}
	if (!back) {
		printf("# %s, slices of %zu: no entry was written from the stream\n", file, slice);
		same = 0;
	}
	runtext_free(back);
	sbuf_free(&want);
	sbuf_free(&x.lines);
	search_free(x.s);
	free(err);
	run_free(r);
	return same;
}

/* Every fixture (and ../shared/kbh when present), every pattern: built
 * from the run, and through a cache entry written and read back. */
static void corpus(const char *cache)
{
	char *files[400];
	int n = transcripts(tap_path("tests/fixtures"), files, 400, 0);
	char *kbh = util_path_join(tap_srcdir(), "../shared/kbh/runs");
	n = transcripts(tap_path("tests/realworld"), files, 400, n);
	int nfix = n;
	n = transcripts(kbh, files, 400, n);
	free(kbh);
	int built = 1, cached = 1, saved = 0, nrun = 0, streamed = 1, written = 0, frombig = 1;
	for (int i = 0; i < n; i++) {
		char *e = NULL;
		struct runtext_key key;
		runtext_free(runtext_load(files[i], NULL, &key));  /* the key of the file as read */
		struct run *r = parser_load_final(files[i], NULL, &e);
		free(e);
		if (!r) {
			free(files[i]);
			continue;
		}
		nrun++;
		struct runtext *t = runtext_new(r);
		saved += runtext_save(t, files[i], NULL, &key) == 0;
		struct runtext *back = runtext_load(files[i], NULL, &key);
		/* the same entry searched from its file, as a big one is: batches
		 * of 7 parts and 4 kB of text, so that every run crosses many */
		runtext_stream_limits(1, 7, 4096);
		struct runtext *big = runtext_load(files[i], NULL, &key);
		for (const char **p = pats; *p; p++) {
			char *err = NULL;
			struct search *s = search_new(*p, &err);
			if (!s) {
				printf("# %s: %s\n", *p, err);
				free(err);
				built = 0;
				continue;
			}
			built &= same_lines(s, r, t, files[i]);
			cached &= back && same_lines(s, r, back, files[i]);
			frombig &= big && runtext_streamed(big) && same_lines(s, r, big, files[i]);
			search_free(s);
		}
		runtext_stream_limits(64u << 20, 65536, 8u << 20);
		runtext_free(big);
		runtext_free(back);
		runtext_free(t);
		/* slices of 4 kB (many settle points) and the default 1 MiB */
		streamed &= stream_same(files[i], r, 4096, &written);
		streamed &= stream_same(files[i], r, 0, &written);
		run_free(r);
		free(files[i]);
	}
	printf("# %d runs (%d fixtures), %zu patterns, cache in %s\n", nrun, nfix, sizeof pats / sizeof *pats - 1, cache);
	ok(nrun >= 20, "the fixtures load (%d runs)", nrun);
	ok(built, "every run, every pattern: runtext finds the lines flag_grep finds");
	is_int(saved, nrun, "every run's text went into the cache");
	ok(cached, "and read back from the cache it finds the same lines");
	ok(frombig, "and searched from its entry's file a few parts at a time, as a big entry is: the same lines");
	ok(streamed, "read as a stream (slices of 4 kB and 1 MiB, text dropped as it settles): the same lines, "
	   "slice by slice and from the entry written as it was read");
	is_int(written, 2 * nrun, "every streamed run's entry was written");
}

/* Parts that a one-pass search over everything would get wrong, had it
 * been used for these patterns: a match at a part's end or start that
 * depends on nothing coming after it or before it. */
static void boundaries(void)
{
	static const char *const cases[][2] = {
		{"(?>o\\s*)$", "atomic group at a part's end"},
		{"o\\s*+$", "possessive quantifier at a part's end"},
		{"o\\z", "\\z at a part's end"},
		{"o(?!\\n)", "negative lookahead at a part's end"},
		{"(?<!\\n)y", "negative lookbehind at a part's start"},
		{"\\Gy", "\\G at a part's start"},
		{"xo|y", "a plain alternation (one pass)"},
	};
	struct run *r = run_new();
	run_add(r, EV_TEXT, 1)->text = xstrdup("xo");
	run_add(r, EV_TEXT, 2)->text = xstrdup("y");
	struct runtext *t = runtext_new(r);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *err = NULL;
		struct search *s = search_new(cases[i][0], &err);
		struct sbuf b;
		sbuf_init(&b);
		size_t n = s ? runtext_grep(s, t, collect, &b) : 0;
		ok(n >= 1 && same_lines(s, r, t, cases[i][1]), "%s: found as in each part alone (%zu)", cases[i][1], n);
		sbuf_free(&b);
		search_free(s);
		free(err);
	}
	runtext_free(t);
	run_free(r);
}

/* Line numbers deep in a long part: the newlines before a match are
 * counted sixteen bytes a step, in runs of 255 steps (a counter per byte
 * lane), so a part of many such runs, lines of every length, matches
 * anywhere in them. */
static void long_parts(void)
{
	struct run *r = run_new();
	struct sbuf b;
	sbuf_init(&b);
	for (int i = 0; i < 30000; i++)
		sbuf_addf(&b, "%.*s%s\n", i % 37, "..................................................", i % 997 == 3 ? "hit" : "");
	run_add(r, EV_TEXT, 1)->text = xstrdup(b.s);
	run_add(r, EV_TEXT, 2)->text = xstrdup("\n\n\nhit\n");
	sbuf_free(&b);
	struct runtext *t = runtext_new(r);
	char *err = NULL;
	struct search *s = search_new("hit", &err);
	sbuf_init(&b);
	size_t n = runtext_grep(s, t, collect, &b);
	is_int((int)n, 32, "every match of a part of 30000 lines");
	ok(strstr(b.s, "0:29914:") && strstr(b.s, "1:4:"), "the last one on its line (29914), the next part's on line 4");
	ok(same_lines(s, r, t, "a long part"), "the same lines, line numbers and text as flag_grep");
	sbuf_free(&b);
	search_free(s);
	free(err);
	runtext_free(t);
	run_free(r);
}

static void put(const char *path, const char *s, const char *mode)
{
	FILE *f = fopen(path, mode);
	fputs(s, f);
	fclose(f);
}

/* The newest entry file in dir (there is one in these tests). */
static char *entry_in(const char *dir)
{
	char *sub = util_path_join(dir, "kbtui/text"), *found = NULL;
	DIR *d = opendir(sub);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			free(found);
			found = util_path_join(sub, de->d_name);
		}
	if (d)
		closedir(d);
	free(sub);
	return found;
}

static void staleness(const char *cache)
{
	char tmpl[] = "/tmp/kb-runtext-XXXXXX";
	char *dir = mkdtemp(tmpl), *e = NULL;
	char *file = util_path_join(dir, "transcript.jsonl");
	char *own = util_path_join(dir, "cache");
	setenv("XDG_CACHE_HOME", own, 1);
	const char *line = "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"role\":\"assistant\",\"content\":"
	                   "[{\"type\":\"text\",\"text\":\"tflops=12\"}]}}\n";
	put(file, line, "w");
	struct runtext_key key;
	ok(runtext_load(file, NULL, &key) == NULL, "no entry before the first save");
	struct run *r = parser_load_final(file, NULL, &e);
	struct runtext *t = runtext_new(r);
	is_int(runtext_save(t, file, NULL, &key), 0, "saved");
	struct runtext *back = runtext_load(file, NULL, &key);
	ok(back != NULL, "read back while the transcript is unchanged");
	runtext_free(back);
	ok(runtext_load(file, "claude", &key) == NULL, "another format is another entry");
	put(file, line, "a");
	ok(runtext_load(file, NULL, &key) == NULL, "stale once the transcript grew");
	ok(key.ok, "and the key says what a new entry stands for");
	struct runtext_key old = key;
	put(file, "\n", "a");
	is_int(runtext_save(t, file, NULL, &old), -1, "not saved when the transcript changed since it was read");
	runtext_load(file, NULL, &key);
	is_int(runtext_save(t, file, NULL, &key), 0, "saved again for the file as it is");
	char *ent = entry_in(own);
	ok(ent != NULL, "the entry is under $XDG_CACHE_HOME/kbtui/text");
	struct stat st;
	int damaged_ok = 1;
	if (ent && stat(ent, &st) == 0) {
		/* cut short at every seventh length */
		for (off_t len = 0; len < st.st_size; len += 7) {
			char *cp = xasprintf("cp '%s' '%s.bak' && truncate -s %lld '%s'", ent, ent, (long long)len, ent);
			damaged_ok &= system(cp) == 0;
			free(cp);
			struct runtext *d = runtext_load(file, NULL, &key);
			damaged_ok &= d == NULL;
			runtext_free(d);
			cp = xasprintf("mv '%s.bak' '%s'", ent, ent);
			damaged_ok &= system(cp) == 0;
			free(cp);
		}
	}
	ok(damaged_ok, "an entry cut short anywhere is refused");
	/* searched from its file (as a big entry is): every byte changed in
	 * turn is refused, and the entry as it was is read */
	int flips_ok = 1, flips = 0;
	runtext_stream_limits(1, 3, 64);
	if (ent && stat(ent, &st) == 0) {
		FILE *f = fopen(ent, "r+b");
		for (long at = 0; f && at < (long)st.st_size; at++, flips++) {
			int c;
			fseek(f, at, SEEK_SET);
			c = fgetc(f);
			fseek(f, at, SEEK_SET);
			fputc(c ^ 0x20, f);
			fflush(f);
			struct runtext *d = runtext_load(file, NULL, &key);
			flips_ok &= d == NULL;
			runtext_free(d);
			fseek(f, at, SEEK_SET);
			fputc(c, f);
			fflush(f);
		}
		if (f)
			fclose(f);
	}
	struct runtext *whole_big = runtext_load(file, NULL, &key);
	ok(flips_ok && flips > 64, "searched from its file: each of its %d bytes changed is refused", flips);
	ok(whole_big != NULL && runtext_streamed(whole_big), "and the entry as it was is read, from its file");
	runtext_free(whole_big);
	runtext_stream_limits(64u << 20, 65536, 8u << 20);
	setenv("KBTUI_NO_CACHE", "1", 1);
	ok(runtext_load(file, NULL, &key) == NULL, "KBTUI_NO_CACHE: no entry read");
	is_int(runtext_save(t, file, NULL, &key), -1, "and none written");
	unsetenv("KBTUI_NO_CACHE");
	setenv("XDG_CACHE_HOME", cache, 1);
	runtext_free(t);
	run_free(r);
	free(ent);
	char *rm = xasprintf("rm -rf '%s'", dir);
	if (system(rm) != 0)
		printf("# could not remove %s\n", dir);
	free(rm);
	free(own);
	free(file);
}

int main(void)
{
	char tmpl[] = "/tmp/kb-rtcache-XXXXXX";
	char *cache = mkdtemp(tmpl);
	setenv("XDG_CACHE_HOME", cache, 1);
	unsetenv("KBTUI_NO_CACHE");
	corpus(cache);
	boundaries();
	long_parts();
	staleness(cache);
	char *rm = xasprintf("rm -rf '%s'", cache);
	if (system(rm) != 0)
		printf("# could not remove %s\n", cache);
	free(rm);
	return tap_done();
}
