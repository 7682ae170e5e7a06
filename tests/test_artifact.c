/* The annotation-change core (annotate.h) and a run's artifacts as
 * line-addressable texts (artifact.h). */
#include "tap.h"
#include "annotate.h"
#include "artifact.h"
#include "util.h"

#include <errno.h>
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/kbtui-artifact-XXXXXX";

/* s written to path, opened with mode ("wb" anew, "ab" at its end) */
static void put_file(const char *path, const char *s, const char *mode)
{
	FILE *f = fopen(path, mode);
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(s, f);
	fclose(f);
}

static void write_file(const char *path, const char *s)
{
	put_file(path, s, "wb");
}

static struct run_meta meta_of(const char *id)
{
	struct run_meta m;
	run_meta_init(&m);
	m.run_id = (char *)id;
	m.model = (char *)"model-x";
	m.harness = (char *)"claude";
	m.problem = (char *)"01_fp8_gemm";
	m.has_result = 1;
	m.correct = 1;
	m.peak_fraction = 0.25;
	return m;
}

/* The top-level keys of a file in order, joined by spaces (owned). */
static char *keys_of(const char *path)
{
	int line;
	char *err = NULL;
	struct annot *a = annot_load(path, &line, &err);
	struct sbuf b;
	if (!a) {
		printf("# %s\n", err);
		free(err);
		return xstrdup("(unreadable)");
	}
	sbuf_init(&b);
	for (size_t i = 0; i + 1 < a->root->n; i += 2)
		sbuf_addf(&b, "%s ", a->root->items[i]->value);
	annot_free(a);
	return sbuf_detach(&b);
}

static char *get_key(const char *path, const char *key)
{
	int line;
	char *err = NULL;
	struct annot *a = annot_load(path, &line, &err);
	char *v;
	if (!a) {
		free(err);
		return NULL;
	}
	v = xstrdup(annot_get(a, key));
	annot_free(a);
	return v;
}

/* The change as the CLI makes it: the run's file in dir. */
static enum annotate_status apply_in(const char *dir, const struct run_meta *m, struct annotate_change *ch,
                                     struct annotate_result *res)
{
	char *path = annotate_path(dir, m->run_id);
	enum annotate_status st;
	if (!path) {
		memset(res, 0, sizeof *res);
		return ANNOTATE_IOERR;
	}
	ch->meta = m;
	st = annotate_apply(path, ch, NULL, NULL, res);
	free(path);
	return st;
}

static void test_new_file(void)
{
	char dir[600], *path, *v;
	struct run_meta m = meta_of("20260101_000000_claude_model-x_01_fp8_gemm");
	struct annotate_change ch = {.verdict = "clean", .summary = "Does the work."};
	struct annotate_result res;

	snprintf(dir, sizeof dir, "%s/new", tmpdir);
	mkdir(dir, 0755);
	is_int(apply_in(dir, &m, &ch, &res), ANNOTATE_OK, "a new annotation is written");
	path = xstrdup(res.path);
	ok(res.undo && !res.undo->existed, "the undo record says the file did not exist");
	v = keys_of(path);
	is_str(v, "run_id model harness effort problem peak_fraction verdict summary ",
	       "a new file has the schema's keys in the schema's order");
	free(v);
#define FIELD(k, want) do { v = get_key(path, k); is_str(v, want, "field %s filled", k); free(v); } while (0)
	FIELD("run_id", "20260101_000000_claude_model-x_01_fp8_gemm");
	FIELD("model", "model-x");
	FIELD("harness", "claude");
	FIELD("effort", "");
	FIELD("problem", "01_fp8_gemm");
	FIELD("peak_fraction", "0.25");
	FIELD("verdict", "clean");
	char *err = NULL;
	is_int(annotate_undo(res.undo, &err), 0, "undo of a new file succeeds");
	ok(access(path, F_OK) != 0 && errno == ENOENT, "undo removed the file that was new");
	free(err);
	annotate_result_free(&res);

	/* not correct: peak_fraction null; the annotator stamp */
	m.correct = 0;
	struct annotate_change ch2 = {.verdict = "bug", .implication = "Timed out.", .annotator = "alice"};
	is_int(apply_in(dir, &m, &ch2, &res), ANNOTATE_OK, "bug with implication written");
	v = get_key(path, "peak_fraction");
	ok(v == NULL, "peak_fraction is null when the run is not correct");
	free(v);
	FIELD("annotator", "alice");
	v = get_key(path, "updated");
	ok(v && strlen(v) == 20 && v[4] == '-' && v[10] == 'T' && v[19] == 'Z', "updated is ISO 8601 UTC (%s)",
	   v ? v : "null");
	free(v);
	annotate_result_free(&res);
	unlink(path);
	free(path);
}

static void test_schema_error(void)
{
	char dir[600];
	struct run_meta m = meta_of("r_hack");
	struct annotate_change ch = {.verdict = "reward_hack", .summary = "Games the eval."};
	struct annotate_result res;

	snprintf(dir, sizeof dir, "%s/schema", tmpdir);
	mkdir(dir, 0755);
	is_int(apply_in(dir, &m, &ch, &res), ANNOTATE_INVALID, "reward_hack without implication is refused");
	ok(res.errors == 1 && !res.undo, "one schema error, nothing to undo");
	ok(res.needs_implication, "the implied field is named: the verdict needs an implication");
	has_str(res.msgs, "`implication` is required", "the message says what is missing");
	has_str(res.msgs, "r_hack.yaml", "the message names the file");
	ok(access(res.path, F_OK) != 0, "nothing was written");
	annotate_result_free(&res);

	struct annotate_change w = {.verdict = "contamination", .implication = "Seen in training."};
	is_int(apply_in(dir, &m, &w, &res), ANNOTATE_OK, "a verdict beyond the five is written");
	ok(res.errors == 0 && res.msgs && strstr(res.msgs, "warning"), "with a warning");
	annotate_result_free(&res);

	ch.allow_errors = 1;
	m.run_id = (char *)"r_wip";
	is_int(apply_in(dir, &m, &ch, &res), ANNOTATE_OK, "allow_errors writes work in progress");
	is_int(res.errors, 1, "and still reports the error");
	annotate_result_free(&res);

	struct run_meta bad = meta_of("../escape");
	is_int(apply_in(dir, &bad, &w, &res), ANNOTATE_IOERR, "a run id with a slash is refused");
	annotate_result_free(&res);
}

static char *copy_real(const char *dir, const char *name)
{
	const char *kbh = tap_shared_kbh();
	char src[4400];
	size_t n;
	char *bytes, *dst;
	if (!kbh)
		return NULL;
	snprintf(src, sizeof src, "%s/annotations/%s", kbh, name);
	if (!(bytes = util_read_file(src, &n)))
		return NULL;
	dst = util_path_join(dir, name);
	write_file(dst, bytes);
	free(bytes);
	return dst;
}

static void test_real_file(void)
{
	static const char name[] = "20260428_040539_claude_claude-opus-4-7_01_fp8_gemm.yaml";
	char dir[600], *path, *orig, *after, *k0, *k1, *v, *err = NULL;
	size_t n0, n1;
	struct run_meta m = meta_of("20260428_040539_claude_claude-opus-4-7_01_fp8_gemm");
	struct annotate_change ch = {.verdict = "interesting", .set_key = "reviewed_by", .set_value = "bob",
	                             .quote_file = "check.log", .quote_start = 2, .quote_end = 3,
	                             .quote_label = "Two lines", .quote_text = "  indented: x\n\ttab\n"};
	struct annotate_result res;

	snprintf(dir, sizeof dir, "%s/real", tmpdir);
	mkdir(dir, 0755);
	if (!(path = copy_real(dir, name))) {
		tap_skip("../shared/kbh absent: real-file key order not tested");
		return;
	}
	orig = util_read_file(path, &n0);
	k0 = keys_of(path);
	is_int(apply_in(dir, &m, &ch, &res), ANNOTATE_OK, "change to a real annotation written");
	if (res.err)
		printf("# %s\n", res.err);
	k1 = keys_of(path);
	is_str(k1, "run_id model harness effort problem peak_fraction verdict summary quotes implication reviewed_by ",
	       "keys of a real file keep their order; a new one goes last");
	ok(strncmp(k0, k1, strlen(k0)) == 0, "the original keys are a prefix, unchanged");
	v = get_key(path, "model");
	is_str(v, "claude-opus-4-7", "an existing value is left as the annotator wrote it");
	free(v);
	v = get_key(path, "peak_fraction");
	is_str(v, "0.5339", "existing peak_fraction kept");
	free(v);
	v = get_key(path, "verdict");
	is_str(v, "interesting", "verdict changed");
	free(v);
	after = util_read_file(path, &n1);
	has_str(after, "\n  - file: check.log\n    lines: [2, 3]\n    label: \"Two lines\"\n",
	        "the quote is appended with file, lines, label, indented as the file's other quotes");
	has_str(after, "Source comment admits the bf16-internally path", "the old quotes are kept");
	/* the quote's text reads back byte for byte */
	{
		int line;
		struct annot *a = annot_load(path, &line, &err);
		const struct ynode *q = NULL;
		for (size_t i = 0; a && i + 1 < a->root->n; i += 2)
			if (!strcmp(a->root->items[i]->value, "quotes"))
				q = a->root->items[i + 1];
		const struct ynode *last = q && q->n ? q->items[q->n - 1] : NULL;
		const char *text = NULL;
		for (size_t i = 0; last && i + 1 < last->n; i += 2)
			if (!strcmp(last->items[i]->value, "text"))
				text = last->items[i + 1]->value;
		is_str(text, "  indented: x\n\ttab\n", "quote text is verbatim (leading spaces, tab)");
		annot_free(a);
	}
	is_int(annotate_undo(res.undo, &err), 0, "undo succeeds");
	free(after);
	after = util_read_file(path, &n1);
	ok(n0 == n1 && memcmp(orig, after, n0) == 0, "undo restores the previous bytes exactly");
	free(after);
	free(err);
	err = NULL;
	annotate_result_free(&res);

	/* undo refuses when the file changed after the change */
	is_int(apply_in(dir, &m, &ch, &res), ANNOTATE_OK, "changed again");
	write_file(path, "run_id: someone-else\nverdict: clean\n");
	is_int(annotate_undo(res.undo, &err), -1, "undo refused after a change on disk");
	has_str(err, name, "the refusal names the file");
	after = util_read_file(path, &n1);
	is_str(after, "run_id: someone-else\nverdict: clean\n", "the other change is kept");
	free(after);
	free(err);
	annotate_result_free(&res);
	free(orig);
	free(k0);
	free(k1);
	free(path);
}

/* A concurrent writer: asked because the file is not the version shown,
 * it says yes, but changes the file on disk before the write. */
static int clobber(void *ctx, const char *question)
{
	(void)question;
	write_file(ctx, "run_id: r_conc\nverdict: bug\nimplication: other annotator\n");
	return 1;
}

static int say_no(void *ctx, const char *question)
{
	*(int *)ctx += strstr(question, "changed on disk") != NULL;
	return 0;
}

static void test_concurrent(void)
{
	char dir[600], *path, *bytes, *err = NULL;
	struct run_meta m = meta_of("r_conc");
	struct annotate_change ch = {.verdict = "clean", .meta = &m};
	struct annotate_result res;
	struct annot_version shown;
	int asked = 0;

	snprintf(dir, sizeof dir, "%s/conc", tmpdir);
	mkdir(dir, 0755);
	path = annotate_path(dir, "r_conc");
	write_file(path, "run_id: r_conc\nverdict: interesting\nimplication: x\n");
	annot_version_get(path, &shown);
	write_file(path, "run_id: r_conc\nverdict: interesting\nimplication: changed meanwhile\n");
	struct annotate_confirm no = {say_no, &asked};
	is_int(annotate_apply(path, &ch, &shown, &no, &res), ANNOTATE_IOERR,
	       "a file changed since it was shown: the callback says no, refused");
	is_int(asked, 1, "the callback was asked once, about the change on disk");
	has_str(res.err, "changed on disk", "the message says why");
	annotate_result_free(&res);
	is_int(annotate_apply(path, &ch, &shown, NULL, &res), ANNOTATE_IOERR, "no callback: refused");
	annotate_result_free(&res);

	struct annotate_confirm yes = {clobber, path};
	is_int(annotate_apply(path, &ch, &shown, &yes, &res), ANNOTATE_IOERR,
	       "a change on disk between the read and the write is refused");
	has_str(res.err, "changed on disk", "the message says why");
	has_str(res.err, path, "and names the file");
	bytes = util_read_file(path, NULL);
	is_str(bytes, "run_id: r_conc\nverdict: bug\nimplication: other annotator\n",
	       "the other annotator's file is left as it is");
	free(bytes);
	annotate_result_free(&res);

	/* a file created by someone else after we saw none */
	unlink(path);
	annot_version_get(path, &shown);
	write_file(path, "run_id: r_conc\nverdict: bug\nimplication: other annotator\n");
	is_int(annotate_apply(path, &ch, &shown, NULL, &res), ANNOTATE_IOERR, "a file created meanwhile is not overwritten");
	annotate_result_free(&res);
	free(err);
	free(path);
}

/* Runs the read-only case; as root (which ignores permissions) in a child
 * that drops to an unprivileged user. Returns 0 when all held. */
static int readonly_case(const char *dir, const char *path)
{
	struct run_meta m = meta_of("r_ro");
	struct annotate_change ch = {.verdict = "clean"};
	struct annotate_result res;
	int rc = apply_in(dir, &m, &ch, &res), bad = 0;
	if (rc != ANNOTATE_IOERR) {
		printf("# apply returned %d\n", rc);
		bad |= 1;
	}
	if (!res.err || !strstr(res.err, path)) {
		printf("# message: %s\n", res.err ? res.err : "(none)");
		bad |= 2;
	}
	annotate_result_free(&res);
	return bad;
}

static void test_readonly(void)
{
	char dir[600], *path, *bytes;
	const char orig[] = "run_id: r_ro\nverdict: interesting\nimplication: keep me\n";
	int bad;

	snprintf(dir, sizeof dir, "%s/ro", tmpdir);
	mkdir(dir, 0755);
	path = annotate_path(dir, "r_ro");
	write_file(path, orig);
	chmod(dir, 0555);
	if (geteuid() == 0) {
		struct passwd *pw = getpwnam("nobody");
		pid_t pid;
		int st = 0;
		if (!pw) {
			tap_skip("root without a `nobody` user: read-only directory not tested");
			chmod(dir, 0755);
			free(path);
			return;
		}
		chmod(tmpdir, 0755);
		fflush(stdout);
		if ((pid = fork()) == 0) {
			if (setgid(pw->pw_gid) != 0 || setuid(pw->pw_uid) != 0)
				_exit(99);
			_exit(readonly_case(dir, path));
		}
		waitpid(pid, &st, 0);
		bad = WIFEXITED(st) ? WEXITSTATUS(st) : 98;
	} else {
		bad = readonly_case(dir, path);
	}
	ok(!(bad & ~2) && bad != 99, "writing into a read-only directory fails (%d)", bad);
	ok(bad == 0, "with a message naming the file");
	chmod(dir, 0755);
	bytes = util_read_file(path, NULL);
	is_str(bytes, orig, "the old file is intact");
	free(bytes);
	free(path);
}

static void test_artifacts(void)
{
	char dir[600], p[700];
	struct artifacts *as;
	const struct artifact *a;
	char *q;
	size_t len;
	const char *l;

	snprintf(dir, sizeof dir, "%s/run", tmpdir);
	mkdir(dir, 0755);
	snprintf(p, sizeof p, "%s/solution.py", dir);
	write_file(p, "import torch\n\n    x = 1  \n\ty\t= 2\nlast\n");
	snprintf(p, sizeof p, "%s/check.log", dir);
	write_file(p, "PASS\nno newline at end");
	snprintf(p, sizeof p, "%s/result.json", dir);
	write_file(p, "{\"correct\": true}\n");
	snprintf(p, sizeof p, "%s/transcript.jsonl", dir);
	write_file(p, "{\"type\":\"a\"}\n{\"type\":\"b\"}\n");

	struct run *r = run_new();
	struct event *e = run_add(r, EV_TEXT, 1);
	e->text = xstrdup("first answer");
	e = run_add(r, EV_TEXT, 2);
	e->text = xstrdup("Final answer:\nline two");
	e = run_add(r, EV_TOOL_CALL, 3);
	e->name = xstrdup("Bash");

	as = artifacts_load(dir, r, p);
	is_int(as->n, 5, "solution, check.log, result.json, final answer, transcript; missing ones absent");
	{
		struct sbuf b;
		sbuf_init(&b);
		for (size_t i = 0; i < as->n; i++)
			sbuf_addf(&b, "%s ", as->v[i].name);
		is_str(b.s, "solution.py check.log result.json final.txt transcript.jsonl ",
		       "named as annotation quotes name them, in order");
		sbuf_free(&b);
	}
	a = artifacts_find(as, "solution.py");
	is_int(a ? a->nlines : 0, 5, "solution.py has 5 lines");
	q = a ? artifact_quote_text(a, 2, 4) : NULL;
	is_str(q, "\n    x = 1  \n\ty\t= 2\n", "lines [2, 4] are the file's bytes, spaces and tabs kept");
	free(q);
	q = a ? artifact_quote_text(a, 5, 6) : NULL;
	ok(q == NULL, "a range past the end is refused");
	free(q);
	l = a ? artifact_line(a, 2, &len) : "";
	ok(len == 11 && !memcmp(l, "    x = 1  ", 11), "line 3 without its newline, trailing spaces kept");
	a = artifacts_find(as, "check.log");
	is_int(a ? a->nlines : 0, 2, "a last line without a newline counts");
	q = a ? artifact_quote_text(a, 2, 2) : NULL;
	is_str(q, "no newline at end", "and is quoted without one");
	free(q);
	a = artifacts_find(as, "final.txt");
	ok(a && !a->path, "the final answer comes from the run when final.txt is absent");
	q = a ? artifact_quote_text(a, 1, 2) : NULL;
	is_str(q, "Final answer:\nline two", "it is the last assistant text");
	free(q);
	a = artifacts_find(as, "transcript.jsonl");
	q = a ? artifact_quote_text(a, 2, 2) : NULL;
	is_str(q, "{\"type\":\"b\"}\n", "the transcript is quoted by physical line");
	free(q);
	artifacts_free(as);
	run_free(r);

	as = artifacts_load(NULL, NULL, NULL);
	is_int(as->n, 0, "no run directory, no run: no artifacts");
	artifacts_free(as);
}

static void append_file(const char *path, const char *s)
{
	put_file(path, s, "ab");
}

/* The artifact named name is the file's bytes now, line for line. */
static int same_as_file(const struct artifacts *as, const char *name, const char *path)
{
	size_t len = 0, lines = 0;
	char *bytes = util_read_file(path, &len);
	const struct artifact *a = artifacts_find(as, name);
	for (size_t i = 0; bytes && i < len; i++)
		lines += bytes[i] == '\n' || i + 1 == len;
	int same = a && bytes && a->len == len && !memcmp(a->text, bytes, len) && a->nlines == lines;
	for (size_t i = 0; same && i < lines; i++) {  /* each line where the file has it */
		size_t l, k = 0;
		const char *s = artifact_line(a, i, &l);
		for (size_t n = 0; n < i; k++)
			n += bytes[k] == '\n';
		same = s == a->text + k;
	}
	free(bytes);
	return same;
}

/* A run that grows under the artifact pane (a big file read between keys,
 * watch): artifacts_refresh appends the transcript's new bytes (a line cut
 * at the end of the last read completed), reads it whole again when it was
 * rewritten or cut, picks up a file that appeared, and holds the
 * transcript to the dataset's root as a first load does. */
static void test_artifacts_refresh(void)
{
	char dir[600], p[700], res[700];
	snprintf(dir, sizeof dir, "%s/grow", tmpdir);
	mkdir(dir, 0755);
	snprintf(p, sizeof p, "%s/transcript.jsonl", dir);
	write_file(p, "{\"type\":\"a\"}\n{\"type\":");
	struct artifacts *as = artifacts_load(dir, NULL, p);
	ok(same_as_file(as, "transcript.jsonl", p), "loaded: the transcript, its last line cut");
	append_file(p, "\"b\"}\n{\"type\":\"c\"}\n");
	is_int(artifacts_refresh(as, dir, NULL, p), 1, "grown: the same artifacts (the pane keeps its places)");
	ok(same_as_file(as, "transcript.jsonl", p), "the cut line completed and the new one added");
	is_int(artifacts_find(as, "transcript.jsonl") ? (long)artifacts_find(as, "transcript.jsonl")->nlines : -1, 3,
	       "three lines");
	is_int(artifacts_refresh(as, dir, NULL, p), 1, "nothing new: the same");
	ok(same_as_file(as, "transcript.jsonl", p), "and the same bytes");
	write_file(p, "{\"type\":\"x\"}\n{\"type\":\"y\"}\n{\"type\":\"z\"}\n{\"type\":\"w\"}\n");
	artifacts_refresh(as, dir, NULL, p);
	ok(same_as_file(as, "transcript.jsonl", p), "rewritten longer: read again whole, not appended to");
	write_file(p, "{\"type\":\"short\"}\n");
	artifacts_refresh(as, dir, NULL, p);
	ok(same_as_file(as, "transcript.jsonl", p), "cut shorter: read again whole");
	snprintf(res, sizeof res, "%s/result.json", dir);
	write_file(res, "{\"correct\": true}\n");
	is_int(artifacts_refresh(as, dir, NULL, p), 0, "a file appeared: the artifacts changed");
	ok(same_as_file(as, "result.json", res) && same_as_file(as, "transcript.jsonl", p),
	   "it is read, the transcript still whole");
	/* the transcript swapped for a link out of the dataset while watched */
	char secret[700];
	snprintf(secret, sizeof secret, "%s/grow-secret", tmpdir);
	write_file(secret, "{\"type\":\"SECRET\"}\n{\"type\":\"SECRET\"}\n{\"type\":\"SECRET\"}\n");
	unlink(p);
	ok(symlink(secret, p) == 0, "transcript.jsonl replaced by a link outside the run");
	artifacts_refresh(as, dir, NULL, p);
	int leaked = 0;
	for (size_t i = 0; i < as->n; i++)
		leaked |= as->v[i].text && strstr(as->v[i].text, "SECRET") != NULL;
	ok(!leaked && artifacts_find(as, "transcript.jsonl") == NULL, "refused, none of its bytes read");
	artifacts_free(as);
}

/* Real annotations quote solution.py and transcript.jsonl by these line
 * numbers: the artifacts must address the same bytes. */
static void test_real_quotes(void)
{
	const char *kbh = tap_shared_kbh();
	char dir[4400], tr[4500];
	struct artifacts *as;
	const struct artifact *a;
	char *q;

	if (!kbh) {
		tap_skip("../shared/kbh absent: real quotes not compared");
		return;
	}
	snprintf(dir, sizeof dir, "%s/runs/20260428_040539_claude_claude-opus-4-7_01_fp8_gemm", kbh);
	as = artifacts_load(dir, NULL, NULL);
	a = artifacts_find(as, "solution.py");
	q = a ? artifact_quote_text(a, 60, 60) : NULL;
	is_str(q, "using SmArch = cutlass::arch::Sm80;\n", "the real quote solution.py [60, 60] is the same text");
	free(q);
	artifacts_free(as);

	snprintf(dir, sizeof dir, "%s/runs/20260513_153015_zai-claude_glm-5.1_01_fp8_gemm", kbh);
	snprintf(tr, sizeof tr, "%s/transcript.jsonl", dir);
	as = artifacts_load(dir, NULL, tr);
	a = artifacts_find(as, "transcript.jsonl");
	q = a ? artifact_quote_text(a, 127, 127) : NULL;
	has_str(q, "Fix: change problem.yaml key from fp8_e4m3fn to bfloat16",
	        "the real quote transcript.jsonl [127] is on that physical line");
	free(q);
	q = a ? artifact_quote_text(a, 133, 133) : NULL;
	has_str(q, "\"old_string\":\"tolerance:\\n  fp8_e4m3fn: 0.15\"", "and [133] on that one");
	free(q);
	artifacts_free(as);
}

/* For tests/test_annotate.sh, which has no YAML reader: the last quote of
 * an annotation file as "file=F lines=A,B label=L" on stdout, its text
 * byte for byte into out. */
static int print_last_quote(const char *yaml, const char *out)
{
	int line;
	char *err = NULL;
	struct annot *a = annot_load(yaml, &line, &err);
	const struct ynode *q = NULL, *last;
	if (!a) {
		fprintf(stderr, "%s\n", err);
		free(err);
		return 1;
	}
	for (size_t i = 0; i + 1 < a->root->n; i += 2)
		if (!strcmp(a->root->items[i]->value, "quotes"))
			q = a->root->items[i + 1];
	if (!q || q->kind != YN_SEQ || !q->n) {
		fprintf(stderr, "%s: no quotes\n", yaml);
		annot_free(a);
		return 1;
	}
	last = q->items[q->n - 1];
	const char *file = "", *label = "", *text = "";
	size_t text_len = 0;
	char lines[64] = "";
	for (size_t i = 0; last->kind == YN_MAP && i + 1 < last->n; i += 2) {
		const char *k = last->items[i]->value;
		const struct ynode *v = last->items[i + 1];
		if (!strcmp(k, "file"))
			file = v->value;
		else if (!strcmp(k, "label"))
			label = v->value;
		else if (!strcmp(k, "text")) {
			text = v->value;
			text_len = v->len;
		} else if (!strcmp(k, "lines") && v->kind == YN_SEQ && v->n >= 1)
			snprintf(lines, sizeof lines, "%s,%s", v->items[0]->value, v->items[v->n - 1]->value);
	}
	printf("file=%s lines=%s label=%s\n", file, lines, label);
	FILE *f = fopen(out, "wb");
	if (f) {
		fwrite(text, 1, text_len, f);
		fclose(f);
	}
	annot_free(a);
	return f ? 0 : 1;
}

/* A dataset's run whose files are links: inside the dataset they are read,
 * out of it (or to a device or FIFO) refused with the reason, never read. */
static void test_artifact_links(void)
{
	char ds[600], run[700], other[700], p[800], t[800];
	struct artifacts *as;
	const struct artifact *a;

	snprintf(ds, sizeof ds, "%s/ds", tmpdir);
	mkdir(ds, 0755);
	snprintf(p, sizeof p, "%s/runs", ds);
	mkdir(p, 0755);
	snprintf(run, sizeof run, "%s/runs/R", ds);
	mkdir(run, 0755);
	snprintf(other, sizeof other, "%s/runs/S", ds);
	mkdir(other, 0755);
	/* the secret lives outside the dataset, beside it */
	snprintf(t, sizeof t, "%s/secret-shadow", tmpdir);
	write_file(t, "root:$6$SECRET:19000:0:99999:7:::\n");
	snprintf(p, sizeof p, "%s/solution.py", run);
	ok(symlink(t, p) == 0, "solution.py -> a file outside the dataset");
	snprintf(p, sizeof p, "%s/check.log", other);
	write_file(p, "PASS shared\n");
	snprintf(t, sizeof t, "%s/check.log", run);
	ok(symlink("../S/check.log", t) == 0, "check.log -> another run's file, inside the dataset");
	snprintf(p, sizeof p, "%s/benchmark.log", run);
	ok(symlink("/dev/zero", p) == 0, "benchmark.log -> /dev/zero");
	snprintf(p, sizeof p, "%s/stderr.log", run);
	ok(mkfifo(p, 0644) == 0, "stderr.log is a FIFO");
	snprintf(p, sizeof p, "%s/result.json", run);
	ok(symlink("missing-target", p) == 0, "result.json is a dangling link");
	snprintf(p, sizeof p, "%s/final.txt", run);
	ok(symlink("/etc/passwd", p) == 0, "final.txt -> /etc/passwd");

	as = artifacts_load(run, NULL, NULL);
	is_int(as->n, 6, "every file is listed, read or refused");
	ok(artifacts_find(as, "solution.py") == NULL, "the outside solution.py cannot be found for quoting");
	ok(as->n > 0 && !strcmp(as->v[0].name, "solution.py") && as->v[0].refused &&
	   strstr(as->v[0].refused, "outside the dataset"), "solution.py is refused: it resolves outside the dataset");
	int leaked = 0;
	for (size_t i = 0; i < as->n; i++)
		leaked |= as->v[i].text && (strstr(as->v[i].text, "SECRET") || strstr(as->v[i].text, "root:"));
	ok(!leaked, "no refused file's bytes were read");
	a = artifacts_find(as, "check.log");
	ok(a && a->nlines == 1 && !strncmp(a->text, "PASS shared", 11), "a link to another run of the same dataset is read");
	for (size_t i = 0; i < as->n; i++) {
		const struct artifact *v = &as->v[i];
		if (!strcmp(v->name, "benchmark.log"))
			ok(v->refused && strstr(v->refused, "outside"), "/dev/zero is refused (outside the dataset)");
		if (!strcmp(v->name, "stderr.log"))
			ok(v->refused && strstr(v->refused, "not a regular file"), "a FIFO is refused without blocking");
		if (!strcmp(v->name, "result.json"))
			ok(v->refused && strstr(v->refused, "leads nowhere"), "a dangling link says so");
		if (!strcmp(v->name, "final.txt"))
			ok(v->refused && v->nlines == 0, "final.txt -> /etc/passwd is refused, no lines");
	}
	artifacts_free(as);

	/* a transcript opened beside the run is held to the same root */
	snprintf(t, sizeof t, "%s/transcript.jsonl", run);
	snprintf(p, sizeof p, "%s/secret-shadow", tmpdir);
	ok(symlink(p, t) == 0, "transcript.jsonl -> outside");
	as = artifacts_load(run, NULL, t);
	ok(as->n == 7 && as->v[6].refused && artifacts_find(as, "transcript.jsonl") == NULL,
	   "the linked-out transcript is refused in the artifact pane too");
	artifacts_free(as);

	/* a run directory outside any dataset: its own directory is the root */
	char *root = artifact_root(other);
	is_str(root && strrchr(root, '/') ? strrchr(root, '/') + 1 : root, "ds", "runs/<R> resolves inside the dataset above runs/");
	free(root);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "--last-quote"))
		return print_last_quote(argv[2], argv[3]);
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 2;
	}
	test_new_file();
	test_schema_error();
	test_real_file();
	test_concurrent();
	test_readonly();
	test_artifacts();
	test_artifact_links();
	test_artifacts_refresh();
	test_real_quotes();
	if (!getenv("KB_KEEP")) {
		char *rm = xasprintf("rm -rf '%s'", tmpdir);
		(void)!system(rm);
		free(rm);
	}
	return tap_done();
}
