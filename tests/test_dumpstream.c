/* test_dumpstream: `kbtui dump` prints each event as soon as it is settled
 * (issue #28); it must write the same bytes, the same errors and exit the
 * same way as loading the whole run first, for every transcript we have:
 * tests/fixtures, tests/realworld and the sample dataset (../shared/kbh,
 * when present), as text, --jsonl and --json, read in slices of 1 byte (a
 * settle after every byte: every line boundary is a step), 7 bytes, 4 KiB
 * and the default 1 MiB. */
#define _XOPEN_SOURCE 700
#include "tap.h"
#include "cmd.h"
#include "util.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))

struct dumped {
	char *out, *err;
	size_t nout, nerr;
	int rc;
};

static void dump_with(const char *path, int mode, size_t slice, struct dumped *d)
{
	FILE *out = open_memstream(&d->out, &d->nout);
	FILE *err = open_memstream(&d->err, &d->nerr);
	d->rc = cmd_dump_how(path, NULL, mode, slice, out, err);
	fclose(out);
	fclose(err);
}

static int same(const struct dumped *a, const struct dumped *b)
{
	return a->rc == b->rc && a->nout == b->nout && a->nerr == b->nerr &&
	       !memcmp(a->out, b->out, a->nout) && !memcmp(a->err, b->err, a->nerr);
}

static struct {
	int files, compared, differ, events_seen;
} tally;

/* A file read in every slice size that keeps the test quick: a byte at a
 * time only for small files. */
static void compare_file(const char *path, off_t size)
{
	static const int modes[] = {0, CMD_OUT_JSONL, CMD_OUT_JSON};
	size_t slices[4] = {0, 4096, 7, 1};
	int nslices = size < (64 << 10) ? 4 : size < (1 << 20) ? 3 : 2;

	tally.files++;
	for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
		struct dumped whole = {0};
		dump_with(path, modes[m], (size_t)-1, &whole);
		for (int s = 0; s < nslices; s++) {
			struct dumped st = {0};
			dump_with(path, modes[m], slices[s], &st);
			tally.compared++;
			if (!same(&whole, &st)) {
				tally.differ++;
				diag("differs: %s (mode %d, slice %zu): exit %d vs %d, %zu vs %zu bytes out, %zu vs %zu err",
				     path, modes[m], slices[s], whole.rc, st.rc, whole.nout, st.nout, whole.nerr, st.nerr);
			}
			free(st.out);
			free(st.err);
		}
		if (m == 0 && whole.nout)
			tally.events_seen++;
		free(whole.out);
		free(whole.err);
	}
}

static int visit(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_F || !S_ISREG(sb->st_mode))
		return 0;
	if (!util_ends_with(path, ".jsonl") && !util_ends_with(path, ".txt"))
		return 0;
	compare_file(path, sb->st_size);
	return 0;
}

static void compare_tree(const char *dir)
{
	memset(&tally, 0, sizeof tally);
	nftw(dir, visit, 16, FTW_PHYS);
	diag("%s: %d files, %d comparisons, %d with events", dir, tally.files, tally.compared, tally.events_seen);
	ok(tally.files > 0 && tally.events_seen > 0, "%s: transcripts found and dumped", dir);
	ok(tally.differ == 0, "%s: streamed dump = whole-run dump (output, errors, exit) in every slice size and mode", dir);
}

/* The cases a streamed reader could get wrong, each small enough to read. */
static void test_edges(void)
{
	char *dir = util_path_join(getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", "kbtest-dumpstream-XXXXXX");
	ok(mkdtemp(dir) != NULL, "temporary directory");
	static const struct { const char *name, *text; } cases[] = {
		/* a compaction boundary whose summary comes lines later */
		{"compact.jsonl",
		 "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"m\",\"session_id\":\"s\"}\n"
		 "{\"type\":\"system\",\"subtype\":\"compact_boundary\",\"compact_metadata\":{\"trigger\":\"auto\",\"pre_tokens\":5}}\n"
		 "{\"type\":\"system\",\"subtype\":\"task_started\",\"task_id\":\"t\",\"description\":\"d\"}\n"
		 "{\"type\":\"user\",\"isCompactSummary\":true,\"message\":{\"role\":\"user\",\"content\":\"This session is being continued: S\"}}\n"
		 "{\"type\":\"result\",\"subtype\":\"success\"}\n"},
		/* a message whose usage grows on a line after its tool result */
		{"usage.jsonl",
		 "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"m\",\"session_id\":\"s\"}\n"
		 "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"Bash\",\"input\":{\"command\":\"ls\"}}],\"usage\":{\"input_tokens\":1,\"output_tokens\":2}}}\n"
		 "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c1\",\"content\":\"x\"}]}}\n"
		 "{\"type\":\"assistant\",\"message\":{\"id\":\"m2\",\"content\":[{\"type\":\"text\",\"text\":\"t\"}],\"usage\":{\"input_tokens\":3,\"output_tokens\":4}}}\n"
		 "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"text\",\"text\":\"late\"}],\"usage\":{\"input_tokens\":9,\"output_tokens\":90}}}\n"},
		/* a call never answered, then more; a last line without newline */
		{"orphan.jsonl",
		 "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"m\",\"session_id\":\"s\"}\n"
		 "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"tool_use\",\"id\":\"c1\",\"name\":\"Write\",\"input\":{\"file_path\":\"/a\",\"content\":\"1\\n\"}},{\"type\":\"tool_use\",\"id\":\"c2\",\"name\":\"Edit\",\"input\":{\"file_path\":\"/a\",\"old_string\":\"1\",\"new_string\":\"2\"}}]}}\n"
		 "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"tool_result\",\"tool_use_id\":\"c2\",\"content\":\"ok\"}]}}\n"
		 "{\"type\":\"assistant\",\"message\":{\"id\":\"m2\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}"},
		/* malformed lines among good ones, and a cut-off last line */
		{"malformed.jsonl",
		 "{\"type\":\"system\",\"subtype\":\"init\",\"model\":\"m\",\"session_id\":\"s\"}\n"
		 "not json\n"
		 "{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"text\",\"text\":\"a\"}]}}\n"
		 "{\"type\":\"assistant\",\"message\":"},
		/* nothing kbtui reads */
		{"unknown.jsonl", "{\"a\":1}\n{\"b\":2}\n"},
		{"empty.jsonl", ""},
	};
	for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
		char *p = util_path_join(dir, cases[c].name);
		FILE *f = fopen(p, "w");
		fputs(cases[c].text, f);
		fclose(f);
		memset(&tally, 0, sizeof tally);
		compare_file(p, 0);
		ok(tally.differ == 0, "%s: streamed = whole in every slice size and mode", cases[c].name);
		unlink(p);
		free(p);
	}
	rmdir(dir);
	free(dir);
}

int main(void)
{
	const char *kbh = tap_shared_kbh();

	test_edges();
	compare_tree(tap_path("tests/fixtures"));
	compare_tree(tap_path("tests/realworld"));
	if (kbh)
		compare_tree(kbh);
	else
		tap_skip("../shared/kbh is absent: the sample dataset is not compared");
	return tap_done();
}
