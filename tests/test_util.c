/* textsafe, JSON getters, timestamps, buffers and paths. */
#include "tap.h"
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "jsonx.h"
#include "strmap.h"
#include "strpool.h"
#include "textsafe.h"
#include "util.h"

static void safe_is(const char *in, size_t n, int flags, const char *want, const char *what)
{
	char *s = textsafe(in, n, flags);
	is_str(s, want, "textsafe: %s", what);
	free(s);
}

/* util_path_inside_at: what realpath says, by openat2 where it can. */
static void inside_checks(void)
{
	char tmpl[] = "/tmp/kbtui-inside-XXXXXX";
	char *d = mkdtemp(tmpl);
	if (!d) {
		tap_skip("no temporary directory");
		return;
	}
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && mkdir -p ds/runs/a ds/runs/b out && echo x > ds/runs/a/t.jsonl && echo y > out/secret && "
	         "ln -s ../../../out/secret ds/runs/b/up.jsonl && ln -s ../a/t.jsonl ds/runs/b/side.jsonl && "
	         "ln -s '%s/ds/runs/a/t.jsonl' ds/runs/b/abs-in.jsonl && ln -s '%s/out/secret' ds/runs/b/abs-out.jsonl && "
	         "ln -s nowhere ds/runs/b/dangling.jsonl && ln -s ../out ds/linkdir",
	         d, d, d);
	if (system(cmd) != 0) {
		tap_skip("could not make the tree");
		return;
	}
	char root[256], path[512];
	snprintf(root, sizeof root, "%s/ds", d);
	static const struct { const char *rel; int want; const char *what; } c[] = {
		{"runs/a/t.jsonl", 1, "a plain file inside"},
		{"runs/b/side.jsonl", 1, "a relative link that stays inside"},
		{"runs/b/abs-in.jsonl", 1, "an absolute link to a file inside (realpath asked)"},
		{"runs/b/up.jsonl", 0, "a relative link that leads out"},
		{"runs/b/abs-out.jsonl", 0, "an absolute link that leads out"},
		{"runs/b/dangling.jsonl", 0, "a link to nothing"},
		{"runs/a/missing.jsonl", 0, "a file that is not there"},
		{"runs/../../out/secret", 0, "a path that climbs out by .."},
		{"linkdir/secret", 0, "through a linked directory that leads out"},
		{"runs/../runs/a/t.jsonl", 1, "a path with .. that stays inside"},
	};
	int fd = util_dir_fd(root);
	ok(fd >= 0, "util_dir_fd opens the root");
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		snprintf(path, sizeof path, "%s/%s", root, c[i].rel);
		is_int(util_path_inside_at(-1, root, path), c[i].want, "util_path_inside: %s", c[i].what);
		is_int(util_path_inside_at(fd, root, path), c[i].want, "... with the root open: %s", c[i].what);
	}
	snprintf(path, sizeof path, "%s/ds/runs/a/t.jsonl", d);
	char other[300];
	snprintf(other, sizeof other, "%s/out", d);
	is_int(util_path_inside_at(-1, other, path), 0, "util_path_inside: a file of another directory");
	if (fd >= 0)
		close(fd);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", d);
	if (system(cmd) != 0)
		tap_skip("could not remove the tree");
}

/* strmap: 200k keys put with gets of earlier ones between (some found in
 * the outgrown table before their turn to move), every value where it was
 * written, the moves spread over the calls (the table was seen moving),
 * and the probes linear in the calls. Freed while moving too (ASan counts
 * the keys). */
static void test_strmap(void)
{
	struct strmap *m = strmap_new(1);
	const int n = 200000;
	char key[32];
	int bad = 0, moving = 0, early = 0, made;
	size_t calls = 0;
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof key, "toolu_%08d", i);
		int *v = strmap_put(m, key, &made);
		calls++;
		bad += !made || v[0] != -1 || v[1] != -1;
		v[0] = i;
		v[1] = -i;
		moving += strmap_moving(m);
		if (i % 3 == 0) {  /* an older key, often one still in the old table */
			int k = (int)((unsigned)i * 2654435761u % (unsigned)(i + 1));
			snprintf(key, sizeof key, "toolu_%08d", k);
			int was = strmap_moving(m);
			int *w = strmap_get(m, key);
			calls++;
			bad += !w || w[0] != k || w[1] != -k;
			early += was;
			snprintf(key, sizeof key, "absent_%d", i);
			bad += strmap_get(m, key) != NULL;
			calls++;
		}
	}
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof key, "toolu_%08d", i);
		int *w = strmap_get(m, key);
		calls++;
		bad += !w || w[0] != i || w[1] != -i;
		int *again = strmap_put(m, key, &made);
		calls++;
		bad += made || again != w;
	}
	ok(bad == 0 && strmap_count(m) == (size_t)n, "strmap: %d keys put and read back among gets, none lost or "
	   "made twice (%d wrong)", n, bad);
	ok(moving > 1000 && early > 100, "strmap: the outgrown table moved over across calls (%d puts saw it moving, "
	   "%d gets)", moving, early);
	ok(strmap_probes(m) < 8 * calls, "strmap: %zu probes for %zu calls", strmap_probes(m), calls);
	strmap_free(m);
	/* freed halfway through a move, keys borrowed */
	m = strmap_new(0);
	static const char *const keys[] = { "a", "b", "c", "d", "e", "f", "g", "h" };
	for (int r = 0; r < 100 && !strmap_moving(m); r++)
		for (int i = 0; i < 8; i++) {
			snprintf(key, sizeof key, "%d", r);
			strmap_put(m, keys[i], NULL);
		}
	ok(strmap_count(m) == 8 && strmap_get(m, "e") && !strmap_get(m, "z"), "strmap: borrowed keys, 8 of them");
	strmap_free(m);
	m = strmap_new(1);
	for (int i = 0; i < 49; i++) {
		snprintf(key, sizeof key, "k%d", i);
		strmap_put(m, key, NULL);
	}
	ok(strmap_moving(m), "strmap: moving after its first doubling");
	strmap_free(m);  /* ASan: every key freed once */
}

/* strpool: equal strings one pointer, different ones apart, every copy
 * still whole after the table grew many times over and after blocks
 * filled (a string too long for a block, NULL and "" too). */
static void test_strpool(void)
{
	struct strpool *p = strpool_new();
	const int n = 20000;
	const char **got = calloc((size_t)n, sizeof *got);
	char key[64], big[20000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	const char *b1 = strpool_get(p, big);
	int bad = 0;
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof key, "model-%d", i % 5000);   /* each name four times */
		got[i] = strpool_get(p, key);
		bad += !got[i] || strcmp(got[i], key) || got[i] == key;
		if (i >= 5000)
			bad += got[i] != got[i - 5000];
	}
	for (int i = 0; i < n; i++) {
		snprintf(key, sizeof key, "model-%d", i % 5000);
		bad += strcmp(got[i], key) != 0;
	}
	ok(bad == 0 && strpool_count(p) == 5001, "strpool: 5000 names asked 4 times each, one copy each, all intact "
	   "(%d wrong, %zu kept)", bad, strpool_count(p));
	ok(got[0] != got[1] && strpool_get(p, big) == b1 && strlen(b1) == sizeof big - 1,
	   "strpool: different names apart; a name longer than a block kept whole and found again");
	ok(strpool_get(p, NULL) == NULL && strpool_get(p, "") && !*strpool_get(p, "") &&
	   strpool_get(p, "") == strpool_get(p, ""), "strpool: NULL stays NULL, \"\" is a name like another");
	strpool_free(p);
	free(got);
	/* xrealloc_big: the bytes in use kept across the move to huge pages */
	size_t small = 1000, large = (size_t)5 << 20;
	unsigned char *a = xrealloc_big(NULL, 0, small);
	for (size_t i = 0; i < small; i++)
		a[i] = (unsigned char)(i * 7);
	a = xrealloc_big(a, small, large);
	bad = 0;
	for (size_t i = 0; i < small; i++)
		bad += a[i] != (unsigned char)(i * 7);
	a[large - 1] = 1;
	ok(bad == 0, "xrealloc_big: %zu bytes kept when the array grew to %zu", small, large);
	free(a);
}

int main(void)
{
	setlocale(LC_ALL, "C.UTF-8");
	test_strmap();
	test_strpool();
	safe_is("plain text", 10, 0, "plain text", "plain ASCII unchanged");
	safe_is("\x1b]0;pwned\x07", 10, 0, "^[]0;pwned^G", "OSC title change made visible");
	safe_is("\x1b[2J\x1b[H", 7, 0, "^[[2J^[[H", "CSI clear and cursor home made visible");
	safe_is("\x1b]52;c;aGk=\x07", 12, 0, "^[]52;c;aGk=^G", "OSC 52 clipboard made visible");
	safe_is("a\0b", 3, 0, "a^@b", "NUL made visible");
	safe_is("del\x7f", 4, 0, "del^?", "DEL made visible");
	safe_is("\xc2\x9b" "31m", 5, 0, "<U+009B>31m", "C1 CSI (U+009B) made visible");
	safe_is("bad \xff\xfe utf8", 11, 0, "bad <FF><FE> utf8", "invalid UTF-8 bytes shown as hex");
	safe_is("\xc0\xaf", 2, 0, "<C0><AF>", "overlong encoding rejected");
	safe_is("caf\xc3\xa9 \xe2\x9c\x93", 9, 0, "caf\xc3\xa9 \xe2\x9c\x93", "valid UTF-8 kept");
	safe_is("a\nb\tc", 5, 0, "a b c", "newline and tab become spaces by default");
	safe_is("a\nb\tc", 5, TS_KEEP_NL | TS_KEEP_TAB, "a\nb\tc", "newline and tab kept when asked");
	safe_is("\xe2\x80\xae" "evil", 7, 0, "<U+202E>evil", "bidi override made visible");
	is_int(textsafe_width("abc", 3), 3, "width of ASCII");
	is_int(textsafe_width("\xe2\x9c\x93x", 4), 2, "width of a check mark and a letter");

	const char *js = "{\"a\":{\"b\":\"x\",\"n\":3},\"t\":true,\"s\":[{\"type\":\"text\",\"text\":\"one\"},"
	                 "{\"type\":\"image\"},{\"type\":\"text\",\"text\":\"two\"}]}";
	cJSON *o = jx_parse(js, strlen(js));
	ok(o != NULL, "parse with explicit length");
	is_str(jx_pstr(o, "a.b"), "x", "dotted path");
	ok(jx_pstr(o, "a.n") == NULL, "string getter refuses a number");
	is_int(jx_ll(jx_get(o, "a"), "n", -1), 3, "number getter");
	is_int(jx_bool(o, "t", 0), 1, "bool getter");
	is_int(jx_bool(o, "missing", 7), 7, "bool default");
	char *bt = jx_blocks_text(jx_get(o, "s"), "text", "text");
	is_str(bt, "one\ntwo", "text of content blocks, other types skipped");
	free(bt);
	cJSON_Delete(o);
	ok(jx_parse("{\"a\":", 5) == NULL, "truncated JSON is refused");

	{
		/* deeply nested input must not exhaust the stack */
		size_t depth = 10000;
		char *deep = xmalloc(depth * 2 + 1);
		memset(deep, '[', depth);
		memset(deep + depth, ']', depth);
		deep[depth * 2] = 0;
		cJSON *d = jx_parse(deep, depth * 2);
		ok(d == NULL, "10,000-deep nesting is refused, not recursed into");
		cJSON_Delete(d);
		free(deep);
	}

	cJSON *ts = cJSON_CreateString("2026-04-27T23:07:11.500Z");
	ok(jx_time(ts) > 1777331231.4 && jx_time(ts) < 1777331231.6, "ISO-8601 UTC timestamp");
	cJSON_Delete(ts);
	ts = cJSON_CreateString("2026-04-27T23:07:11+02:00");
	ok(jx_time(ts) > 1777324030.9 && jx_time(ts) < 1777324031.1, "timestamp with offset");
	cJSON_Delete(ts);
	ts = cJSON_CreateNumber(1777331231500.0);
	ok(jx_time(ts) > 1777331231.4 && jx_time(ts) < 1777331231.6, "milliseconds since the epoch");
	cJSON_Delete(ts);
	ts = cJSON_CreateString("yesterday");
	ok(jx_time(ts) == 0, "unparseable time is 0");
	cJSON_Delete(ts);

	struct sbuf b;
	sbuf_init(&b);
	for (int i = 0; i < 1000; i++)
		sbuf_addf(&b, "%d,", i);
	ok(b.len == strlen(b.s) && util_starts_with(b.s, "0,1,2,") && util_ends_with(b.s, "998,999,"),
	   "buffer grows and stays terminated");
	sbuf_free(&b);
	char *p = util_path_join("/a/b/", "c");
	is_str(p, "/a/b/c", "join keeps one slash");
	free(p);
	p = util_path_join("/a", "/abs");
	is_str(p, "/abs", "join with an absolute path gives it");
	free(p);
	inside_checks();
	size_t cap = 0;
	int *v = xgrow(NULL, &cap, 3, sizeof *v);
	ok(cap >= 3, "xgrow: room for what was asked");
	size_t was = cap;
	v = xgrow(v, &cap, was + 1, sizeof *v);
	ok(cap >= 2 * was, "xgrow: one more than it holds doubles it (%zu -> %zu)", was, cap);
	int *same = v;
	v = xgrow(v, &cap, cap, sizeof *v);
	ok(v == same, "xgrow: within its room, the same array");
	free(v);
	return tap_done();
}
