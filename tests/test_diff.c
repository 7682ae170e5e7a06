/* Unified diffs, the file tracker, and apply_patch against tracked content. */
#include "tap.h"
#include "diff.h"
#include "ftrack.h"
#include "parser.h"
#include "run.h"
#include "util.h"

#include <dirent.h>

/* Applies a unified diff (as we produce it) to a, to check it round-trips. */
static char *apply_unified(const char *a, const char *d)
{
	struct sbuf out;
	const char *p = a, *l = d;
	size_t aline = 1;
	sbuf_init(&out);
	while (*l) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		if (!strncmp(l, "--- ", 4) || !strncmp(l, "+++ ", 4) || l[0] == '\\') {
			/* file headers and no-newline markers carry no content */
		} else if (l[0] == '@') {
			size_t start;
			sscanf(l, "@@ -%zu", &start);
			while (aline < start && *p) { /* copy unchanged lines */
				const char *e = strchr(p, '\n');
				size_t m = e ? (size_t)(e - p) + 1 : strlen(p);
				sbuf_add(&out, p, m);
				p += m;
				aline++;
			}
		} else if (l[0] == ' ' || l[0] == '-') {
			const char *e = strchr(p, '\n');
			size_t m = e ? (size_t)(e - p) + 1 : strlen(p);
			if (l[0] == ' ')
				sbuf_add(&out, p, m);
			p += m;
			aline++;
		} else if (l[0] == '+') {
			sbuf_add(&out, l + 1, n - 1);
			sbuf_addc(&out, '\n');
		}
		l += n + (nl ? 1 : 0);
	}
	sbuf_adds(&out, p);
	return sbuf_detach(&out);
}

static void check_roundtrip(const char *a, const char *b, const char *what)
{
	char *d = diff_unified("f", a, b, 3);
	char *r = apply_unified(a, d);
	is_str(r, b, "diff round-trips: %s", what);
	free(d);
	free(r);
}

/* ---- file versions of a run (the lineage pane's model) ------------------- */

#define CL_INIT "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/w\",\"session_id\":\"s1\",\"tools\":[],\"model\":\"m\"}\n"
#define CL_CALL(id, name, input) "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_" id "\",\"role\":\"assistant\"," \
	"\"content\":[{\"type\":\"tool_use\",\"id\":\"" id "\",\"name\":\"" name "\",\"input\":" input "}]}," \
	"\"parent_tool_use_id\":null,\"session_id\":\"s1\"}\n"
#define CL_RES(id, text) "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":\"" id "\"," \
	"\"type\":\"tool_result\",\"content\":\"" text "\"}]},\"parent_tool_use_id\":null,\"session_id\":\"s1\"}\n"

/* Writes, edits (one failing), a MultiEdit, an apply_patch envelope and a
 * second file, each followed by its result. */
static const char lineage_doc[] =
	CL_INIT
	CL_CALL("t1", "Write", "{\"file_path\":\"/w/notes.md\",\"content\":\"n\\n\"}") CL_RES("t1", "ok")
	CL_CALL("t2", "Write", "{\"file_path\":\"solution.py\",\"content\":\"a = 1\\nb = 2\\n\"}") CL_RES("t2", "ok")
	CL_CALL("t3", "Edit", "{\"file_path\":\"/w/solution.py\",\"old_string\":\"b = 2\",\"new_string\":\"b = 3\"}") CL_RES("t3", "ok")
	CL_CALL("t4", "Edit", "{\"file_path\":\"solution.py\",\"old_string\":\"zzz\",\"new_string\":\"yyy\"}") CL_RES("t4", "no match")
	CL_CALL("t5", "Bash", "{\"command\":\"python check.py\"}") CL_RES("t5", "PASS\\npeak_fraction: 0.42")
	CL_CALL("t6", "MultiEdit", "{\"file_path\":\"solution.py\",\"edits\":[{\"old_string\":\"a = 1\",\"new_string\":\"a = 10\"},"
	        "{\"old_string\":\"b = 3\",\"new_string\":\"b = 30\"}]}") CL_RES("t6", "ok")
	CL_CALL("t7", "apply_patch", "{\"input\":\"*** Begin Patch\\n*** Update File: /w/solution.py\\n@@\\n-b = 30\\n+b = 31\\n+c = 0\\n*** End Patch\\n\"}")
	CL_RES("t7", "ok")
	CL_CALL("t8", "Write", "{\"file_path\":\"/w/notes.md\",\"content\":\"n\\n\"}") CL_RES("t8", "ok")
	"{\"type\":\"result\",\"subtype\":\"success\",\"is_error\":false,\"result\":\"done\",\"session_id\":\"s1\"}\n";

static size_t call_at(const struct run *r, const char *id)
{
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_TOOL_CALL && r->ev[i].call_id && !strcmp(r->ev[i].call_id, id))
			return i;
	return (size_t)-1;
}

static struct run *load_string(const char *s)
{
	struct run *r = run_new();
	struct reader *rd = reader_new(r, NULL);
	reader_feed(rd, s, strlen(s));
	reader_finish(rd);
	reader_free(rd);
	return r;
}

static void test_versions(void)
{
	struct run *r = load_string(lineage_doc);
	const struct ftrack *ft = r->files;
	size_t t1 = call_at(r, "t1"), t2 = call_at(r, "t2"), t3 = call_at(r, "t3"), t4 = call_at(r, "t4"),
	       t6 = call_at(r, "t6"), t7 = call_at(r, "t7"), t8 = call_at(r, "t8");
	long ch;

	ok(t8 != (size_t)-1 && r->nev > t8, "lineage fixture parses (all calls found)");
	is_int((int)ftrack_nfiles(ft), 2, "two files written");
	is_str(ftrack_file_path(ft, 0), "/w/solution.py", "the solution is listed first");
	is_str(ftrack_file_path(ft, 1), "/w/notes.md", "then the others in order of first write");
	ok(ftrack_file_at(ft, 0, t1, &ch) == NULL && ch == -1, "solution: nothing before its first write");
	is_str(ftrack_file_at(ft, 0, t2, &ch), "a = 1\nb = 2\n", "after the Write (cwd-relative path)");
	is_int((int)ch, (int)t2, "changed at the Write");
	is_str(ftrack_file_at(ft, 0, t2 + 1, &ch), "a = 1\nb = 2\n", "its result changes nothing");
	is_int((int)ch, (int)t2, "still the Write");
	is_str(ftrack_file_at(ft, 0, t3, &ch), "a = 1\nb = 3\n", "after the Edit (absolute path)");
	is_str(ftrack_file_at(ft, 0, t4, &ch), "a = 1\nb = 3\n", "a failed Edit makes no version");
	is_int((int)ch, (int)t3, "last change still the Edit");
	is_str(ftrack_file_at(ft, 0, t6, &ch), "a = 10\nb = 30\n", "after the MultiEdit: both edits");
	is_int((int)ch, (int)t6, "changed at the MultiEdit");
	is_str(ftrack_file_at(ft, 0, t7, &ch), "a = 10\nb = 31\nc = 0\n", "after apply_patch");
	is_int((int)ch, (int)t7, "changed at the patch");
	is_str(ftrack_file_at(ft, 0, r->nev - 1, NULL), "a = 10\nb = 31\nc = 0\n", "at the end");
	is_str(ftrack_file_at(ft, 1, t1, &ch), "n\n", "notes after its Write");
	is_str(ftrack_file_at(ft, 1, t8, &ch), "n\n", "rewritten with the same text");
	is_int((int)ch, (int)t1, "the same text is no change");
	ok(ftrack_file_at(ft, 2, t8, NULL) == NULL, "no third file");

	/* lazy diffs, one per change */
	is_str(run_event_diff(r, t3), "--- a/w/solution.py\n+++ b/w/solution.py\n@@ -1,2 +1,2 @@\n a = 1\n-b = 2\n+b = 3\n",
	       "Edit diff rendered on use");
	is_str(run_event_diff(r, t4), "--- a/w/solution.py\n+++ b/w/solution.py\n@@ -1 +1 @@\n-zzz\n\\ No newline at end of file\n"
	       "+yyy\n\\ No newline at end of file\n", "failed Edit: old against new alone");
	is_str(run_event_diff(r, t6), "--- a/w/solution.py\n+++ b/w/solution.py\n@@ -1,2 +1,2 @@\n-a = 1\n-b = 3\n+a = 10\n+b = 30\n",
	       "MultiEdit: one diff, before against after");
	is_str(run_event_diff(r, t8), "", "same text rewritten: empty diff");
	ok(run_event_diff(r, call_at(r, "t5")) == NULL, "a Bash call has no diff");
	ok(run_event_diff(r, t3) == r->ev[t3].diff, "the diff is kept in e->diff");
	run_free(r);
}

/* Every diff rendered as soon as its event is read (before any later
 * version exists) equals the one rendered after the whole load: versions
 * are never changed in place. */
static int lazy_equals_eager(const char *path)
{
	size_t len;
	char *s = util_read_file(path, &len);
	struct run *lazy, *eager = run_new();
	struct reader *rd = reader_new(eager, NULL);
	char *err = NULL;
	size_t done = 0;
	int same = 1;

	if (!s)
		return 1;
	for (const char *p = s, *end = s + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		reader_feed(rd, p, n);
		for (; done < eager->nev; done++)
			run_event_diff(eager, done);
		p += n;
	}
	reader_finish(rd);
	reader_free(rd);
	for (; done < eager->nev; done++)
		run_event_diff(eager, done);
	lazy = parser_load_file(path, NULL, &err);
	if (!lazy || lazy->nev != eager->nev)
		same = 0;
	for (size_t i = 0; same && i < lazy->nev; i++) {
		const char *a = run_event_diff(lazy, i), *b = eager->ev[i].diff;
		if (!a != !b || (a && strcmp(a, b)))
			same = 0;
	}
	free(err);
	free(s);
	run_free(lazy);
	run_free(eager);
	return same;
}

static void test_lazy_kbh(void)
{
	const char *kbh = tap_shared_kbh();
	char dir[4200], path[4600];
	struct dirent *de;
	DIR *d;
	int nruns = 0, bad = 0;

	if (!kbh) {
		tap_skip("no shared/kbh: lazy against eager diffs not checked");
		return;
	}
	snprintf(dir, sizeof dir, "%s/runs", kbh);
	if (!(d = opendir(dir))) {
		tap_skip("no shared/kbh/runs");
		return;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s/transcript.jsonl", dir, de->d_name);
		if (!util_is_file(path))
			continue;
		nruns++;
		if (!lazy_equals_eager(path)) {
			bad++;
			printf("# diffs differ: %s\n", path);
		}
	}
	closedir(d);
	ok(nruns > 0 && bad == 0, "kbh: diffs rendered at once equal diffs rendered later, in %d runs", nruns);
}

/* ---- the byte-level narrowing against the whole-file diff ---------------- */

static unsigned long long rnd_state = 88172645463325252ULL;

static unsigned rnd(unsigned n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return (unsigned)(rnd_state % n);
}

/* A text of n lines drawn from a few (repeats make Myers choose between
 * alignments), ending with or without a newline. */
static void rnd_text(struct sbuf *b, int n)
{
	static const char *const words[] = { "a", "b", "int x = 0;", "", "  return y;", "}", "ab", "a b" };
	for (int i = 0; i < n; i++)
		sbuf_addf(b, "%s%s", words[rnd(8)], i + 1 < n || rnd(3) ? "\n" : "");
}

/* Edits of a: lines inserted, removed, replaced, a byte changed inside a
 * line, the last newline added or taken away. */
static char *rnd_edit(const char *a)
{
	struct sbuf b;
	sbuf_init(&b);
	size_t n = strlen(a);
	int edits = 1 + (int)rnd(4);
	char *cur = xstrdup(a);
	for (int e = 0; e < edits; e++) {
		n = strlen(cur);
		size_t at = n ? rnd((unsigned)n + 1) : 0;
		sbuf_reset(&b);
		switch (rnd(5)) {
		case 0:  /* a line inserted where a line starts (or anywhere) */
			sbuf_add(&b, cur, at);
			rnd_text(&b, 1 + (int)rnd(3));
			sbuf_adds(&b, cur + at);
			break;
		case 1: {  /* bytes removed */
			size_t len = rnd(12);
			sbuf_add(&b, cur, at);
			sbuf_adds(&b, at + len < n ? cur + at + len : "");
			break;
		}
		case 2:  /* one byte changed */
			sbuf_adds(&b, cur);
			if (b.len)
				b.s[at < b.len ? at : b.len - 1] = "xyz\n"[rnd(4)];
			break;
		case 3:  /* the last newline toggled */
			sbuf_adds(&b, cur);
			if (b.len && b.s[b.len - 1] == '\n')
				b.s[--b.len] = '\0';
			else
				sbuf_addc(&b, '\n');
			break;
		default:  /* appended */
			sbuf_adds(&b, cur);
			rnd_text(&b, 1 + (int)rnd(5));
		}
		free(cur);
		cur = sbuf_detach(&b);
		sbuf_init(&b);
	}
	sbuf_free(&b);
	return cur;
}

/* Lines of t (no final newline counted), into v[]; returns how many. */
static size_t split_lines(const char *t, const char **v, size_t *len, size_t max)
{
	size_t n = 0;
	while (*t && n < max) {
		const char *nl = strchr(t, '\n');
		v[n] = t;
		len[n++] = nl ? (size_t)(nl - t) : strlen(t);
		if (!nl)
			break;
		t = nl + 1;
	}
	return n;
}

/* The length of the longest common subsequence of the lines of two texts
 * (a last line without its newline is not the same as one with it). */
static size_t lcs(const char *at, const char **a, const size_t *al, size_t na, const char *bt, const char **b,
                  const size_t *bl, size_t nb)
{
	static size_t L[65][65];
	int aopen = *at && at[strlen(at) - 1] != '\n', bopen = *bt && bt[strlen(bt) - 1] != '\n';
	for (size_t i = 0; i <= na; i++)
		for (size_t j = 0; j <= nb; j++) {
			int same = i && j && al[i - 1] == bl[j - 1] && !memcmp(a[i - 1], b[j - 1], al[i - 1]) &&
			           (i == na && aopen) == (j == nb && bopen);
			L[i][j] = !i || !j ? 0 : same ? L[i - 1][j - 1] + 1
			        : L[i - 1][j] > L[i][j - 1] ? L[i - 1][j] : L[i][j - 1];
		}
	return L[na][nb];
}

/* Every diff is right (its old side is a, its new side b) and minimal (its
 * unchanged lines are a longest common subsequence), whatever lines the
 * search leaves out as found on one side only. */
static void test_minimal(void)
{
	int tries = 0, wrong = 0, longer = 0;
	for (int t = 0; t < 4000; t++) {
		struct sbuf a, b, ra, rb;
		sbuf_init(&a);
		sbuf_init(&b);
		sbuf_init(&ra);
		sbuf_init(&rb);
		rnd_text(&a, (int)rnd(40));
		if (t % 2)
			rnd_text(&b, (int)rnd(40));   /* unrelated: a rewrite */
		else {
			char *e = rnd_edit(a.s ? a.s : "");
			sbuf_adds(&b, e);
			free(e);
		}
		const char *as = a.s ? a.s : "", *bs = b.s ? b.s : "";
		char *d = diff_unified_whole("f", as, bs, 100);
		size_t same = 0;
		const char *p = d;
		for (int hdr = 0; *p; hdr++) {  /* the file lines after the two headers and the hunk line */
			const char *nl = strchr(p, '\n');
			size_t n = nl ? (size_t)(nl - p) : strlen(p);
			if (hdr >= 3 && (*p == ' ' || *p == '-'))
				sbuf_add(&ra, p + 1, n - 1), sbuf_addc(&ra, '\n');
			if (hdr >= 3 && (*p == ' ' || *p == '+'))
				sbuf_add(&rb, p + 1, n - 1), sbuf_addc(&rb, '\n');
			same += hdr >= 3 && *p == ' ';
			p = nl ? nl + 1 : p + n;
		}
		const char *av[64], *bv[64], *rav[64], *rbv[64];
		size_t al[64], bl[64], ral[64], rbl[64];
		size_t na = split_lines(as, av, al, 64), nb = split_lines(bs, bv, bl, 64);
		size_t nra = split_lines(ra.s ? ra.s : "", rav, ral, 64), nrb = split_lines(rb.s ? rb.s : "", rbv, rbl, 64);
		int right = !*d || (nra == na && nrb == nb);
		for (size_t i = 0; right && *d && i < na; i++)
			right = ral[i] == al[i] && !memcmp(rav[i], av[i], al[i]);
		for (size_t j = 0; right && *d && j < nb; j++)
			right = rbl[j] == bl[j] && !memcmp(rbv[j], bv[j], bl[j]);
		size_t best = lcs(as, av, al, na, bs, bv, bl, nb);
		if (!right && wrong++ < 3)
			printf("# wrong diff\n# a: [%s]\n# b: [%s]\n%s", as, bs, d);
		if (*d && same != best && longer++ < 3)
			printf("# not minimal: %zu kept, LCS %zu\n# a: [%s]\n# b: [%s]\n%s", same, best, as, bs, d);
		tries++;
		free(d);
		sbuf_free(&a);
		sbuf_free(&b);
		sbuf_free(&ra);
		sbuf_free(&rb);
	}
	ok(wrong == 0, "diff: its two sides are the two texts, in %d random pairs (%d wrong)", tries, wrong);
	ok(longer == 0, "diff: its unchanged lines are a longest common subsequence, in %d random pairs (%d not)", tries,
	   longer);
}

static void test_narrowing(void)
{
	int tries = 0, differ = 0;
	for (int t = 0; t < 20000; t++) {
		struct sbuf a;
		sbuf_init(&a);
		rnd_text(&a, (int)rnd(t < 10000 ? 12 : 80));
		char *b = rnd_edit(a.s ? a.s : "");
		int context = (int)rnd(5);
		char *x = diff_unified("f", a.s ? a.s : "", b, context), *y = diff_unified_whole("f", a.s ? a.s : "", b, context);
		if (strcmp(x, y) && differ++ < 3)
			printf("# context %d\n# a: [%s]\n# b: [%s]\n# narrowed:\n%s# whole:\n%s", context, a.s ? a.s : "", b, x, y);
		tries++;
		free(x);
		free(y);
		free(b);
		sbuf_free(&a);
	}
	ok(differ == 0, "diff_unified narrowed byte by byte: the whole-file diff, for %d random edits of random "
	   "texts at context 0 to 4 (%d differ)", tries, differ);
}

/* A streamed reader forgets what it has shown: later diffs, edits and the
 * current text are as before, the history before goes. */
static void test_forget(void)
{
	struct ftrack *t = ftrack_new();
	static const char *const v[] = { "a\n", "a\nb\n", "a\nb\nc\n", "a\nB\nc\n", "a\nB\nc\nd\n" };
	char *before[5];
	for (size_t i = 0; i < 5; i++) {
		ftrack_begin(t, i);
		free(ftrack_write(t, "/w/s.py", v[i]));
		ftrack_end(t);
	}
	for (size_t i = 0; i < 5; i++)
		before[i] = ftrack_diff(t, i);
	is_int((int)ftrack_file_nversions(t, 0), 5, "forget: five versions before");
	ftrack_forget(t, 3);
	ok(!ftrack_has_diff(t, 0) && !ftrack_has_diff(t, 2), "forget: the diffs before event 3 are gone");
	char *d3 = ftrack_diff(t, 3), *d4 = ftrack_diff(t, 4);
	is_str(d3, before[3], "forget: event 3's diff as before");
	is_str(d4, before[4], "forget: event 4's diff as before");
	is_int((int)ftrack_file_nversions(t, 0), 3, "forget: the version standing at 3 and those after stay");
	is_str(ftrack_file_at(t, 0, 3, NULL), v[3], "forget: the file at event 3 as before");
	is_str(ftrack_get(t, "/w/s.py"), v[4], "forget: the current text stays");
	ftrack_begin(t, 5);
	free(ftrack_edit(t, "/w/s.py", "d", "D", 0));
	ftrack_end(t);
	char *d5 = ftrack_diff(t, 5);
	ok(d5 && strstr(d5, "-d\n+D\n") != NULL, "forget: a later edit applies to the current text");
	ftrack_forget(t, 100);
	ok(!ftrack_has_diff(t, 5), "forget: past the end, no diff stays");
	is_int((int)ftrack_file_nversions(t, 0), 1, "forget: past the end, the current version alone");
	is_str(ftrack_get(t, "/w/s.py"), "a\nB\nc\nD\n", "forget: and the text is the file's");
	for (size_t i = 0; i < 5; i++)
		free(before[i]);
	free(d3);
	free(d4);
	free(d5);
	ftrack_free(t);
}

int main(void)
{
	char *d;

	test_narrowing();
	test_minimal();
	test_forget();

	d = diff_unified("x.py", "a\nb\nc\n", "a\nb\nc\n", 3);
	is_str(d, "", "equal texts give an empty diff");
	free(d);

	d = diff_unified("x.py", "a\nb\nc\n", "a\nB\nc\n", 3);
	is_str(d, "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "one changed line");
	free(d);

	d = diff_unified("f", "x\n}", "x\n}\n", 3);
	is_str(d, "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n x\n-}\n\\ No newline at end of file\n+}\n",
	       "a newline added at the end is a change of the last line");
	free(d);
	d = diff_unified("f", "x\n}\n", "x\n}", 0);
	is_str(d, "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-}\n+}\n\\ No newline at end of file\n",
	       "and one taken away");
	free(d);

	d = diff_unified("new.cu", NULL, "x\ny\n", 3);
	is_str(d, "--- /dev/null\n+++ b/new.cu\n@@ -0,0 +1,2 @@\n+x\n+y\n", "file creation");
	free(d);

	d = diff_unified("f", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n",
	                 "1\nTWO\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\nFIFTEEN\n16\n", 3);
	has_str(d, "@@ -1,5 +1,5 @@\n 1\n-2\n+TWO\n 3\n 4\n 5\n@@ -12,5 +12,5 @@\n 12\n 13\n 14\n-15\n+FIFTEEN\n 16\n",
	        "distant changes make two hunks with context 3");
	free(d);

	d = diff_unified("f", "a\nb", "a\nc", 3);
	has_str(d, "-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
	        "missing final newline is marked");
	free(d);

	check_roundtrip("a\nb\nc\nd\ne\nf\ng\n", "a\nc\nd\nX\ne\ng\nh\n", "mixed edits");
	check_roundtrip("", "only\nnew\n", "from empty");
	check_roundtrip("x\ny\nz\n", "", "to empty");
	{
		/* a larger text with scattered changes */
		struct sbuf a, b;
		sbuf_init(&a);
		sbuf_init(&b);
		for (int i = 0; i < 2000; i++) {
			sbuf_addf(&a, "line %d\n", i);
			if (i % 97 == 0)
				sbuf_addf(&b, "changed %d\n", i);
			else if (i % 89 != 0)
				sbuf_addf(&b, "line %d\n", i);
		}
		check_roundtrip(a.s, b.s, "2000 lines, scattered edits");
		/* beyond the edit-distance cap the diff is still correct */
		sbuf_reset(&b);
		for (int i = 0; i < 3000; i++)
			sbuf_addf(&b, "other %d\n", i);
		check_roundtrip(a.s, b.s, "completely different texts");
		sbuf_free(&a);
		sbuf_free(&b);
	}

	/* file tracker: write, edit, failed edit, replace_all */
	struct ftrack *t = ftrack_new();
	d = ftrack_write(t, "/w/s.py", "import torch\nx = 1\ny = 2\n");
	is_str(d, "--- /dev/null\n+++ b/w/s.py\n@@ -0,0 +1,3 @@\n+import torch\n+x = 1\n+y = 2\n",
	       "first write diffs against nothing");
	free(d);
	d = ftrack_edit(t, "/w/s.py", "x = 1", "x = 10", 0);
	is_str(d, "--- a/w/s.py\n+++ b/w/s.py\n@@ -1,3 +1,3 @@\n import torch\n-x = 1\n+x = 10\n y = 2\n",
	       "edit diffs against the tracked content");
	free(d);
	is_str(ftrack_get(t, "/w/s.py"), "import torch\nx = 10\ny = 2\n", "tracked content follows the edit");
	d = ftrack_edit(t, "/w/s.py", "not there", "zzz", 0);
	is_str(d, "--- a/w/s.py\n+++ b/w/s.py\n@@ -1 +1 @@\n-not there\n\\ No newline at end of file\n+zzz\n\\ No newline at end of file\n",
	       "failed edit shows old against new alone");
	free(d);
	is_str(ftrack_get(t, "/w/s.py"), "import torch\nx = 10\ny = 2\n", "failed edit leaves content unchanged");
	d = ftrack_write(t, "/w/s.py", "a a a\n");
	free(d);
	d = ftrack_edit(t, "/w/s.py", "a", "b", 1);
	is_str(ftrack_get(t, "/w/s.py"), "b b b\n", "replace_all replaces every occurrence");
	free(d);

	/* apply_patch: add, then update the same file, then move, then delete */
	char *first = NULL;
	d = ftrack_patch(t, "*** Begin Patch\n*** Add File: k.py\n+def f():\n+    return 1\n+\n+print(f())\n*** End Patch\n", &first);
	is_str(first, "k.py", "patch names the first file");
	has_str(d, "+++ b/k.py\n@@ -0,0 +1,4 @@\n+def f():\n", "add file diff");
	free(first);
	free(d);
	d = ftrack_patch(t, "*** Begin Patch\n*** Update File: k.py\n@@ def f():\n-    return 1\n+    return 2\n*** End Patch", NULL);
	is_str(d, "--- a/k.py\n+++ b/k.py\n@@ -1,4 +1,4 @@\n def f():\n-    return 1\n+    return 2\n \n print(f())\n",
	       "update diffs against the added content");
	free(d);
	is_str(ftrack_get(t, "k.py"), "def f():\n    return 2\n\nprint(f())\n", "update applied");
	d = ftrack_patch(t, "*** Begin Patch\n*** Update File: k.py\n*** Move to: m.py\n@@\n-print(f())\n+print(f() + 1)\n*** End Patch\n", NULL);
	has_str(d, "+++ b/m.py", "move names the new file");
	ok(ftrack_get(t, "k.py") == NULL, "moved file is gone under its old name");
	is_str(ftrack_get(t, "m.py"), "def f():\n    return 2\n\nprint(f() + 1)\n", "moved file has the edit");
	free(d);
	d = ftrack_patch(t, "*** Begin Patch\n*** Update File: unknown.py\n@@\n ctx\n-old\n+new\n*** End Patch\n", NULL);
	is_str(d, "--- a/unknown.py\n+++ b/unknown.py\n@@ -1,2 +1,2 @@\n ctx\n-old\n+new\n",
	       "update of an unseen file shows the patch's own lines");
	free(d);
	d = ftrack_patch(t, "*** Begin Patch\n*** Delete File: m.py\n*** End Patch\n", NULL);
	has_str(d, "+++ /dev/null", "delete diffs to /dev/null");
	ok(ftrack_get(t, "m.py") == NULL, "deleted file is gone");
	free(d);
	ftrack_free(t);
	test_versions();
	test_lazy_kbh();
	return tap_done();
}
