/* Annotation YAML: lossless round trip over every real annotation, schema
 * checks, quotes, atomic and locked saves. */
#include "tap.h"
#include "annot.h"
#include "agree.h"
#include "util.h"

#include <dirent.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <errno.h>
#include <time.h>

static char tmpdir[] = "/tmp/kbtui-annot-XXXXXX";

/* Load, save elsewhere, load again: the same tree. */
static int roundtrip(const char *path, int *bad_line, char **why)
{
	int line;
	char *err = NULL;
	struct annot *a = annot_load(path, &line, &err), *b;
	char out[600];
	int same;

	*why = NULL;
	*bad_line = 0;
	if (!a) {
		*bad_line = line;
		*why = err;
		return -1;
	}
	snprintf(out, sizeof out, "%s/rt.yaml", tmpdir);
	if (annot_save(a, out, 0, &err) != 0) {
		*why = err;
		annot_free(a);
		return 0;
	}
	b = annot_load(out, &line, &err);
	same = b && ynode_equal(a->root, b->root);
	if (!b)
		*why = err;
	annot_free(a);
	annot_free(b);
	return same;
}

static void corpus(const char *dir, const char *what, int *files, int *same, int *failed_load,
                   int *beyond, char *bad_name, size_t bad_cap)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (!util_ends_with(de->d_name, ".yaml"))
			continue;
		char *p = util_path_join(dir, de->d_name);
		int line;
		char *why = NULL;
		int r = roundtrip(p, &line, &why);
		(*files)++;
		if (r < 0) {
			(*failed_load)++;
			snprintf(bad_name, bad_cap, "%s", why);
		} else if (r == 1) {
			(*same)++;
			char *err = NULL, *msgs = NULL;
			struct annot *a = annot_load(p, &line, &err);
			annot_check(a, &msgs);
			if (msgs && strstr(msgs, "beyond the schema's five"))
				(*beyond)++;
			free(msgs);
			annot_free(a);
		} else {
			printf("# %s: %s did not round-trip: %s\n", what, de->d_name, why ? why : "trees differ");
		}
		free(why);
		free(p);
	}
	closedir(d);
}

static void real_files(void)
{
	const char *kbh = tap_shared_kbh();
	if (!kbh) {
		tap_skip("../shared is absent: real annotation round trips skipped");
		return;
	}
	char dir[4200], bad[1024] = "";
	int files = 0, same = 0, failed = 0, beyond = 0;
	snprintf(dir, sizeof dir, "%s/annotations", kbh);
	corpus(dir, "kbh", &files, &same, &failed, &beyond, bad, sizeof bad);
	is_int(files, 27, "27 annotations in the sample");
	is_int(same, 27, "every sample annotation loads and saves to the same document");
	snprintf(dir, sizeof dir, "%s/../annotations-corpus", kbh);
	files = same = failed = beyond = 0;
	corpus(dir, "corpus", &files, &same, &failed, &beyond, bad, sizeof bad);
	printf("# corpus: %d files, %d round-tripped, %d failed to load, %d with verdicts beyond five\n",
	       files, same, failed, beyond);
	ok(files >= 283, "the corpus holds its files (%d)", files);
	is_int(failed, 1, "exactly the one malformed file fails to load");
	is_int(same, files - 1, "every other file round-trips");
	has_str(bad, "minimax-m2.7_10_patch_embed_conv3d_gemm.yaml:", "the malformed file is named");
	ok(strstr(bad, "invalid YAML") != NULL, "and the problem said (%s)", bad);
	ok(beyond >= 14, "verdicts beyond the five are kept and flagged as warnings (%d)", beyond);
}

int main(void)
{
	char path[600], *err = NULL, *msgs = NULL, *text;
	int line;

	if (!mkdtemp(tmpdir))
		return 1;
	snprintf(path, sizeof path, "%s/20260101_000000_grok_m_01_fp8_gemm.yaml", tmpdir);

	/* a new annotation, written as the schema asks */
	struct annot *a = annot_new(path);
	annot_set(a, "verdict", "reward_hack");
	annot_set(a, "run_id", "20260101_000000_grok_m_01_fp8_gemm");
	annot_set(a, "model", "m");
	annot_set(a, "harness", "grok");
	annot_set(a, "effort", "");
	annot_set(a, "problem", "01_fp8_gemm");
	annot_set_number(a, "peak_fraction", 0.4321, 0);
	annot_set(a, "summary", "Casts to bf16 and calls torch.matmul: a wrapper, not a kernel.");
	annot_add_quote(a, "solution.py", 12, 14, "the wrapper", "def forward(self, x):\n    y = x.to(torch.bfloat16)\n    return y @ self.w.T\n");
	ok(annot_check(a, &msgs) == 1 && msgs && strstr(msgs, "`implication` is required"),
	   "reward_hack without implication is an error");
	free(msgs);
	annot_set(a, "implication", "Treat the cell as invalid.");
	is_int(annot_check(a, &msgs), 0, "complete annotation passes the check");
	ok(msgs == NULL, "with no message");
	free(msgs);
	text = annot_emit(a, &err);
	has_str(text, "run_id: 20260101_000000_grok_m_01_fp8_gemm\nmodel: m\nharness: grok\neffort: \"\"\nproblem: 01_fp8_gemm\npeak_fraction: 0.4321\n\nverdict: reward_hack\n",
	        "keys in the schema's order, effort quoted empty, blank line before verdict");
	has_str(text, "  lines: [12, 14]\n", "lines as a flow list");
	has_str(text, "  text: |\n    def forward(self, x):\n        y = x.to(torch.bfloat16)\n",
	        "quote text as a literal block, indentation kept");
	free(text);
	ok(annot_save(a, path, 0, &err) == 0, "saved");
	struct annot *b = annot_load(path, &line, &err);
	ok(b && ynode_equal(a->root, b->root), "reloads identical");
	is_str(b ? annot_get(b, "verdict") : NULL, "reward_hack", "verdict reads back");
	ok(b && annot_get(b, "effort") && !*annot_get(b, "effort"), "empty effort stays an empty string");
	annot_free(b);

	/* text that block scalars cannot hold verbatim still comes back byte for byte */
	annot_add_quote(a, "check.log", 1, 1, "odd", "trailing spaces   \n\ttab\r\n  lead");
	ok(annot_save(a, path, 0, &err) == 0, "saved with an awkward quote");
	b = annot_load(path, &line, &err);
	ok(b && ynode_equal(a->root, b->root), "awkward quote text round-trips byte for byte");
	annot_free(b);

	/* someone else saved in between: refused, their file intact */
	long long m0 = annot_mtime_ns(path);
	usleep(20000);
	FILE *f = fopen(path, "a");
	fputs("annotator: someone-else\n", f);
	fclose(f);
	annot_set(a, "verdict", "clean");
	ok(annot_save(a, path, m0, &err) != 0 && strstr(err, "changed on disk"),
	   "a save over a file changed since loading is refused");
	free(err);
	b = annot_load(path, &line, &err);
	is_str(b ? annot_get(b, "annotator") : NULL, "someone-else", "the other annotator's write survives");
	annot_free(b);

	/* a held lock makes the save wait, then fail with a reason */
	char lockp[800];
	snprintf(lockp, sizeof lockp, "%s/" ANNOT_LOCK_NAME, tmpdir);
	int lfd = open(lockp, O_RDWR | O_CREAT, 0644);
	pid_t pid = fork();
	if (pid == 0) {
		int fd = open(lockp, O_RDWR);
		flock(fd, LOCK_EX);
		sleep(4);
		_exit(0);
	}
	/* the child holds the lock once ours cannot take it (no fixed wait) */
	for (int i = 0; i < 2000 && flock(lfd, LOCK_EX | LOCK_NB) == 0; i++) {
		flock(lfd, LOCK_UN);
		usleep(10000);
	}
	err = NULL;
	ok(annot_save(a, path, 0, &err) != 0 && err && strstr(err, "another annotator"),
	   "a save while another holds the lock fails with a reason");
	free(err);
	kill(pid, 9);
	waitpid(pid, NULL, 0);
	close(lfd);

	/* nothing is left beside the annotation but the file itself */
	annot_set(a, "verdict", "clean");
	char side[800];
	snprintf(side, sizeof side, "%s.lock", path);
	close(open(side, O_RDWR | O_CREAT, 0644));  /* what older versions left */
	ok(annot_save(a, path, 0, &err) == 0, "saved again");
	struct stat st;
	ok(lstat(side, &st) != 0 && errno == ENOENT, "no <file>.lock beside the annotation (the old empty one removed)");
	ok(lstat(lockp, &st) == 0 && S_ISREG(st.st_mode), "one lock file for the directory, " ANNOT_LOCK_NAME);

	/* a planted lock link: refused, nothing created where it points */
	char lnkdir[700], victim[800];
	snprintf(lnkdir, sizeof lnkdir, "%s/lnk", tmpdir);
	mkdir(lnkdir, 0700);
	snprintf(victim, sizeof victim, "%s/outside-victim", tmpdir);
	snprintf(lockp, sizeof lockp, "%s/" ANNOT_LOCK_NAME, lnkdir);
	ok(symlink(victim, lockp) == 0, "planted %s -> outside", ANNOT_LOCK_NAME);
	snprintf(side, sizeof side, "%s/R.yaml", lnkdir);
	err = NULL;
	ok(annot_save(a, side, 0, &err) != 0 && err && strstr(err, "symbolic link"),
	   "a save through a planted lock link is refused with the reason (%s)", err ? err : "saved");
	free(err);
	ok(lstat(victim, &st) != 0 && errno == ENOENT, "the link's target was not created");
	ok(lstat(side, &st) != 0, "and the annotation was not written");
	unlink(lockp);
	ok(mkfifo(lockp, 0644) == 0, "planted a FIFO as the lock");
	err = NULL;
	ok(annot_save(a, side, 0, &err) != 0 && err && strstr(err, "not a plain file"),
	   "a lock that is not a regular file is refused without blocking");
	free(err);
	unlink(lockp);

	/* temporary files a killed writer left: stale ones of ours go, others stay */
	char stale[800], fresh[800], other[800], lookalike[800], stale_link[800];
	snprintf(stale, sizeof stale, "%s/.R.yaml.aB3xY9", lnkdir);
	snprintf(fresh, sizeof fresh, "%s/.R.yaml.Fr3sh1", lnkdir);
	snprintf(other, sizeof other, "%s/.S.yaml.aB3xY9", lnkdir);
	snprintf(lookalike, sizeof lookalike, "%s/.R.yaml.notours-really", lnkdir);
	snprintf(stale_link, sizeof stale_link, "%s/.R.yaml.L1nk00", lnkdir);
	const char *const made[] = {stale, fresh, other, lookalike};
	struct timespec old[2] = {{time(NULL) - 3600, 0}, {time(NULL) - 3600, 0}};
	for (int k = 0; k < 4; k++) {
		close(open(made[k], O_RDWR | O_CREAT, 0600));
		if (made[k] != fresh)
			utimensat(AT_FDCWD, made[k], old, 0);
	}
	if (symlink(victim, stale_link) == 0)
		utimensat(AT_FDCWD, stale_link, old, AT_SYMLINK_NOFOLLOW);
	ok(annot_save(a, side, 0, &err) == 0, "the next write of R.yaml succeeds");
	ok(lstat(stale, &st) != 0, "an hour-old .R.yaml.XXXXXX is removed");
	ok(lstat(fresh, &st) == 0, "a fresh one (maybe being written) stays");
	ok(lstat(other, &st) == 0, "another annotation's temporary file stays");
	ok(lstat(lookalike, &st) == 0, "a name outside our pattern stays");
	ok(lstat(stale_link, &st) == 0, "a link stays");

	/* a write that cannot happen leaves the previous file intact */
	char ro[700];
	snprintf(ro, sizeof ro, "%s/ro", tmpdir);
	mkdir(ro, 0700);
	char rop[800];
	snprintf(rop, sizeof rop, "%s/x.yaml", ro);
	f = fopen(rop, "w");
	fputs("run_id: x\nverdict: bug\nimplication: y\n", f);
	fclose(f);
	chmod(ro, 0500);
	if (geteuid() == 0) {
		tap_skip("running as root: a read-only directory does not stop writes");
	} else {
		err = NULL;
		ok(annot_save(a, rop, 0, &err) != 0 && err, "save into a read-only directory fails");
		free(err);
		b = annot_load(rop, &line, &err);
		is_str(b ? annot_get(b, "verdict") : NULL, "bug", "the previous file is intact");
		annot_free(b);
	}
	chmod(ro, 0700);

	/* schema warnings */
	struct annot *w = annot_new(path);
	annot_set(w, "run_id", "r");
	annot_set(w, "verdict", "contamination");
	annot_set(w, "implication", "x");
	annot_set(w, "summary", "one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two");
	annot_add_quote(w, "solution.py", 0, 0, "bad", "x");
	int errs = annot_check(w, &msgs);
	is_int(errs, 1, "line 0 in a quote is the one error");
	has_str(msgs, "verdict `contamination` is beyond the schema's five", "unknown verdict is a warning");
	has_str(msgs, "summary has 62 words", "long summary is a warning");
	free(msgs);
	annot_free(w);

	/* malformed files name file and line */
	snprintf(rop, sizeof rop, "%s/bad.yaml", tmpdir);
	f = fopen(rop, "w");
	fputs("run_id: x\nverdict: bug\nsummary: \"unterminated\nimplication: y\n", f);
	fclose(f);
	b = annot_load(rop, &line, &err);
	ok(!b && line == 5 && strstr(err, "bad.yaml:5: invalid YAML"), "malformed YAML: file and line (%s)", err ? err : "");
	free(err);
	f = fopen(rop, "w");
	fputs("- a list\n- not a mapping\n", f);
	fclose(f);
	b = annot_load(rop, &line, &err);
	ok(!b && strstr(err, "not a mapping"), "a non-mapping document is refused");
	free(err);

	/* a 600-byte alias bomb: ten copies a level, eight levels, 10^8 nodes */
	f = fopen(rop, "w");
	fputs("run_id: x\nverdict: clean\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n", f);
	for (int k = 1; k <= 8; k++)
		fprintf(f, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n",
		        k, k, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1, k - 1);
	fclose(f);
	b = annot_load(rop, &line, &err);
	ok(!b && err && strstr(err, "alias bomb"), "an alias bomb is refused (%s)", err ? err : "loaded");
	ok(line >= 7 && line <= 9 && err && strstr(err, "bad.yaml:") , "the bomb's message names the file and the alias's line (%d)", line);
	free(err);
	/* one large scalar aliased many times: bytes bound the copies too */
	f = fopen(rop, "w");
	fputs("run_id: x\nbig: &b \"", f);
	for (int k = 0; k < 100000; k++)
		fputs("0123456789", f);
	fputs("\"\ncopies: [", f);
	for (int k = 0; k < 100; k++)
		fputs("*b, ", f);
	fputs("*b]\n", f);
	fclose(f);
	b = annot_load(rop, &line, &err);
	ok(!b && err && strstr(err, "alias bomb") && line == 3, "a megabyte scalar aliased a hundred times is refused at line 3");
	free(err);
	/* copies nest: a chain of anchors is as deep as written nesting */
	f = fopen(rop, "w");
	fputs("run_id: x\nc0: &c0 [x]\n", f);
	for (int k = 1; k <= 200; k++)
		fprintf(f, "c%d: &c%d [*c%d]\n", k, k, k - 1);
	fclose(f);
	b = annot_load(rop, &line, &err);
	ok(!b && err && strstr(err, "nests too deep"), "a 200-link chain of aliases is refused as too deep (%s)", err ? err : "loaded");
	free(err);
	/* aliases that stay small still load as copies */
	f = fopen(rop, "w");
	fputs("run_id: x\nverdict: clean\nq: &q {file: solution.py, lines: [1, 2]}\nagain: *q\n", f);
	fclose(f);
	b = annot_load(rop, &line, &err);
	ok(b != NULL, "a small alias still loads");
	annot_free(b);

	annot_free(a);

	/* Cohen's kappa on a worked example: 50 items, A says yes 25 (20 with
	 * B yes), B says yes 30: po = 0.70, pe = 0.5*0.6 + 0.5*0.4 = 0.50,
	 * kappa = 0.40 */
	struct agree g;
	agree_init(&g);
	for (int i = 0; i < 20; i++) agree_add(&g, "reward_hack", "reward_hack");
	for (int i = 0; i < 5; i++) agree_add(&g, "reward_hack", "clean");
	for (int i = 0; i < 10; i++) agree_add(&g, "clean", "reward_hack");
	for (int i = 0; i < 15; i++) agree_add(&g, "clean", "clean");
	ok(agree_observed(&g) > 0.6999 && agree_observed(&g) < 0.7001, "observed agreement 0.70");
	ok(agree_kappa(&g) > 0.3999 && agree_kappa(&g) < 0.4001, "Cohen's kappa 0.40");
	agree_free(&g);
	agree_init(&g);
	for (int i = 0; i < 5; i++) agree_add(&g, "clean", "clean");
	ok(agree_kappa(&g) == 1.0, "perfect agreement on one label is kappa 1");
	agree_free(&g);

	real_files();
	char cmd[700];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
