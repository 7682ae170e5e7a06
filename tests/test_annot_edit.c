/* annotate_apply edits an annotation file in place: a verdict change is a
 * one-line diff and changing it back restores the bytes exactly, on every
 * real file of ../shared/annotations-corpus and on the fixtures in
 * tests/fixtures/annot (which run on a fresh clone). */
#include "tap.h"
#include "annotate.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/kbtui-annot-edit-XXXXXX";

static void write_bytes(const char *path, const char *s, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(s, 1, n, f) != n) {
		perror(path);
		exit(2);
	}
	fclose(f);
}

/* Splits s into lines (pointers into a copy, owned by *buf). */
static size_t split_lines(const char *s, size_t n, char ***out, char **buf)
{
	size_t k = 0;
	*buf = xstrndup(s, n);
	*out = xcalloc(n + 2, sizeof **out);
	for (char *p = *buf; *p;) {
		char *nl = strchr(p, '\n');
		(*out)[k++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return k;
}

/* Lines removed (*da) and added (*db) from a to b: what diff counts. */
static void diff_size(const char *a, size_t na, const char *b, size_t nb, int *da, int *db)
{
	char **la, **lb, *ba, *bb;
	size_t m = split_lines(a, na, &la, &ba), n = split_lines(b, nb, &lb, &bb);
	size_t *L = xcalloc((m + 1) * (n + 1), sizeof *L);
	for (size_t i = m; i-- > 0;)
		for (size_t j = n; j-- > 0;)
			L[i * (n + 1) + j] = !strcmp(la[i], lb[j]) ? L[(i + 1) * (n + 1) + j + 1] + 1
			                     : L[(i + 1) * (n + 1) + j] > L[i * (n + 1) + j + 1] ? L[(i + 1) * (n + 1) + j]
			                                                                           : L[i * (n + 1) + j + 1];
	*da = (int)(m - L[0]);
	*db = (int)(n - L[0]);
	free(L);
	free(la);
	free(lb);
	free(ba);
	free(bb);
}

/* The verdict a file is changed to: one that brings no schema error
 * (an implication missing under a verdict but clean stays missing: the
 * same error, kept). NULL: clean without implication, which needs one. */
static const char *other_verdict(const char *v, int has_impl)
{
	if (v && !strcmp(v, "clean"))
		return has_impl ? "interesting" : NULL;
	if (has_impl)
		return "clean";
	return v && !strcmp(v, "interesting") ? "bug" : "interesting";
}

struct tally {
	int files, one_line, restored, refused_yaml, clean_no_impl, kept_errors;
	char bad_yaml[512];
};

static void one_file(const char *dir, const char *name, struct tally *t)
{
	char *src = util_path_join(dir, name), *dst = util_path_join(tmpdir, name);
	size_t n0, n1, n2;
	char *orig = util_read_file(src, &n0), *after, *back, *err = NULL;
	struct annotate_result res;
	int line;

	t->files++;
	write_bytes(dst, orig, n0);
	struct annot *a = annot_load(dst, &line, &err);
	if (!a) {
		struct annotate_change ch = {.verdict = "clean"};
		is_int(annotate_apply(dst, &ch, NULL, NULL, &res), ANNOTATE_IOERR, "%s: not YAML: refused", name);
		after = util_read_file(dst, &n1);
		ok(n1 == n0 && !memcmp(after, orig, n0), "%s: not YAML: left as it was", name);
		snprintf(t->bad_yaml, sizeof t->bad_yaml, "%s", res.err ? res.err : "");
		t->refused_yaml++;
		free(after);
		annotate_result_free(&res);
		free(err);
		goto out;
	}
	const char *v0 = annot_get(a, "verdict"), *impl = annot_get(a, "implication");
	char *was = xstrdup(v0);
	const char *to = other_verdict(was, impl && *impl);
	annot_free(a);
	if (!to) {
		t->clean_no_impl++;
		to = "interesting";
	}
	struct annotate_change ch = {.verdict = to, .implication = NULL};
	int rc = annotate_apply(dst, &ch, NULL, NULL, &res);
	if (rc == ANNOTATE_INVALID && !strcmp(was, "clean")) {
		/* clean without an implication: the change needs one; the
		 * refusal is the schema's, and nothing is written */
		after = util_read_file(dst, &n1);
		ok(n1 == n0 && !memcmp(after, orig, n0) && res.errors == 1, "%s: clean -> %s without implication refused, file kept",
		   name, to);
		free(after);
		annotate_result_free(&res);
		/* a verdict and its implication: two one-line changes */
		struct annotate_change both = {.verdict = to, .implication = "Worth a look."};
		rc = annotate_apply(dst, &both, NULL, NULL, &res);
		after = util_read_file(dst, &n1);
		int da, db;
		diff_size(orig, n0, after, n1, &da, &db);
		ok(rc == ANNOTATE_OK && da == 1 && db == 2, "%s: verdict with implication written (diff -%d +%d)", name, da, db);
		free(after);
		annotate_result_free(&res);
		write_bytes(dst, orig, n0);
		t->one_line++;
		t->restored++;
		free(was);
		goto out;
	}
	is_int(rc, ANNOTATE_OK, "%s: %s -> %s written%s%s", name, was ? was : "none", to, res.err ? ": " : "",
	       res.err ? res.err : "");
	t->kept_errors += res.kept > 0;
	annotate_result_free(&res);
	after = util_read_file(dst, &n1);
	int da, db;
	diff_size(orig, n0, after, n1, &da, &db);
	if (da == 1 && db == 1)
		t->one_line++;
	else
		printf("# %s: diff -%d +%d\n", name, da, db);
	struct annotate_change back_ch = {.verdict = was};
	is_int(annotate_apply(dst, &back_ch, NULL, NULL, &res), ANNOTATE_OK, "%s: back to %s", name, was);
	annotate_result_free(&res);
	back = util_read_file(dst, &n2);
	if (n2 == n0 && !memcmp(back, orig, n0))
		t->restored++;
	else
		printf("# %s: not restored exactly\n", name);
	free(after);
	free(back);
	free(was);
out:
	unlink(dst);
	free(orig);
	free(src);
	free(dst);
}

static void run_dir(const char *dir, struct tally *t)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0;
	while (d && (de = readdir(d)))
		if (util_ends_with(de->d_name, ".yaml")) {
			names = xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = xstrdup(de->d_name);
		}
	if (d)
		closedir(d);
	for (size_t i = 0; i < n; i++) {
		one_file(dir, names[i], t);
		free(names[i]);
	}
	free(names);
}

static void corpus(void)
{
	const char *kbh = tap_shared_kbh();
	char dir[4200];
	struct tally t = {0};
	if (!kbh) {
		tap_skip("../shared is absent: the real annotation corpus is not edited");
		return;
	}
	snprintf(dir, sizeof dir, "%s/../annotations-corpus", kbh);
	run_dir(dir, &t);
	printf("# corpus: %d files, %d one-line verdict changes, %d restored exactly, %d not YAML (refused), "
	       "%d clean without implication, %d with errors kept\n",
	       t.files, t.one_line, t.restored, t.refused_yaml, t.clean_no_impl, t.kept_errors);
	is_int(t.files, 283, "the corpus's 283 files were tried");
	is_int(t.refused_yaml, 1, "the one file that is not YAML is refused, not overwritten");
	has_str(t.bad_yaml, "patch_embed_conv3d_gemm.yaml:33:3: did not find expected '-' indicator",
	        "the refusal names the file, line and column where it breaks");
	has_str(t.bad_yaml, "started at line 20", "and where the list it breaks began");
	is_int(t.one_line, t.files - 1, "every other file takes a verdict change as a one-line diff");
	is_int(t.restored, t.files - 1, "and is restored exactly by changing it back");
	ok(t.kept_errors >= 1, "files with schema errors are changed, their errors kept (%d)", t.kept_errors);
}

static void fixtures(void)
{
	struct tally t = {0};
	run_dir(tap_path("tests/fixtures/annot"), &t);
	is_int(t.files, 6, "the six fixtures were tried");
	is_int(t.refused_yaml, 1, "the fixture that is not YAML is refused");
	has_str(t.bad_yaml, "broken.yaml:", "naming it");
	is_int(t.one_line, t.files - 1, "the others take a one-line verdict change");
	is_int(t.restored, t.files - 1, "and come back byte for byte");
}


/* Hand-written oddities: each change is either made exactly (the value
 * reads back, everything else as it was) or refused with the file left
 * alone; never a file that says something else. */
static const char *const odd[] = {
	"run_id: r\nverdict: clean\n",
	"run_id: r\nverdict: clean",                                   /* no final newline */
	"{run_id: r, verdict: clean}\n",                               /* flow root */
	"run_id: r\nverdict:\n  clean\n",                              /* value on the next line */
	"run_id: r\nverdict: # comment between\n  clean\n",
	"run_id: r\nverdict: !!str clean\n",                           /* a tag */
	"run_id: &id r\nother: *id\nverdict: clean\n",                 /* anchor and alias */
	"run_id: r\nverdict: clean\nquotes: []\n",
	"run_id: r\nverdict: clean\nquotes:\n",
	"run_id: r\nverdict: clean\nquotes:\n- file: a\n  lines: [1]\n  text: x\n", /* indentless list */
	"run_id: r\nverdict: clean\nsummary: |+\n  kept\n\n\nimplication: x\n",    /* keep chomping */
	"  run_id: r\n  verdict: clean\n",                             /* indented root */
	"---\nrun_id: r\nverdict: clean\n...\n",
	"run_id: r\nverdict: \"clean\"\nsummary: 'it''s'\n",
	"run_id: r\r\nverdict: clean\r\n",
	"\xef\xbb\xbfrun_id: r\nverdict: clean\n",                     /* a BOM */
	"run_id: r\nverdict: clean\nverdict: bug\n",                   /* a duplicate key */
	"run_id: r\nsummary: \"\xc3\xa9t\xc3\xa9 \xe2\x86\x92 fp8\"\nverdict: clean\n",
	NULL,
};

static void oddities(void)
{
	char path[700];
	int refused = 0;
	snprintf(path, sizeof path, "%s/odd.yaml", tmpdir);
	for (int k = 0; odd[k]; k++) {
		struct annotate_change ch = {.verdict = "interesting", .implication = "Line one.\nLine two: \"quoted\" #1",
		                             .summary = "A summary with: colon",
		                             .quote_file = "solution.py", .quote_start = 3, .quote_end = 3,
		                             .quote_label = "it's", .quote_text = "  x = 1\n"};
		struct annotate_result res;
		size_t n;
		write_bytes(path, odd[k], strlen(odd[k]));
		int rc = annotate_apply(path, &ch, NULL, NULL, &res);
		char *now = util_read_file(path, &n);
		if (rc == ANNOTATE_OK) {
			int line;
			char *err = NULL;
			struct annot *a = annot_load(path, &line, &err);
			ok(a && annot_get(a, "verdict") && !strcmp(annot_get(a, "verdict"), "interesting") &&
			   !strcmp(annot_get(a, "implication"), "Line one.\nLine two: \"quoted\" #1") &&
			   !strcmp(annot_get(a, "summary"), "A summary with: colon"),
			   "odd %d: the change reads back", k);
			annot_free(a);
			free(err);
			ok(annotate_undo(res.undo, &err) == 0, "odd %d: and is undone", k);
			free(err);
			char *back = util_read_file(path, &n);
			ok(n == strlen(odd[k]) && !memcmp(back, odd[k], n), "odd %d: byte for byte", k);
			free(back);
		} else {
			refused++;
			ok(n == strlen(odd[k]) && !memcmp(now, odd[k], n) && res.err, "odd %d: refused, left alone: %s", k,
			   res.err ? res.err : "(no reason)");
		}
		free(now);
		annotate_result_free(&res);
	}
	is_int(refused, 1, "only the flow-style mapping is refused (a key cannot be added to it in place)");
	unlink(path);
}

int main(void)
{
	if (!mkdtemp(tmpdir))
		return 1;
	fixtures();
	oddities();
	corpus();
	rmdir(tmpdir);
	return tap_done();
}
