/* Unified diffs, the file tracker, and apply_patch against tracked content. */
#include "tap.h"
#include "diff.h"
#include "ftrack.h"
#include "util.h"

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

int main(void)
{
	char *d;

	d = diff_unified("x.py", "a\nb\nc\n", "a\nb\nc\n", 3);
	is_str(d, "", "equal texts give an empty diff");
	free(d);

	d = diff_unified("x.py", "a\nb\nc\n", "a\nB\nc\n", 3);
	is_str(d, "--- a/x.py\n+++ b/x.py\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n", "one changed line");
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
	return tap_done();
}
