/* Opening a big dataset (issue #19): the directory listing, the identity
 * cache, util_read_file, dataset_find's table, result.json read later
 * (dataset_open_lazy) and annotation verdicts kept by file identity. Each
 * check compares with what the plain, eager path gives. */
#include "tap.h"
#include "dataset.h"
#include "dirlist.h"
#include "crc32c.h"
#include "idcache.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

static char root[] = "/tmp/kbtui-index-XXXXXX";

static void put(const char *rel, const char *text)
{
	char *p = util_path_join(root, rel);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
	free(p);
}

/* rel's mtime set secs seconds back (older than idcache_racy's window) */
/* Each line of each table in dir given the checksum of what it now says
 * (as a writer of the cache would): an edit made behind kbtui's back that
 * passes the check. */
static int resign(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int done = 0;
	while (d && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		char *f = util_path_join(dir, de->d_name);
		size_t n;
		char *text = util_read_file(f, &n);
		struct sbuf b;
		sbuf_init(&b);
		for (char *p = text, *nl; p && (nl = strchr(p, '\n')); p = nl + 1) {
			*nl = '\0';
			if (strlen(p) > 9)
				sbuf_addf(&b, "%08x %s\n", (unsigned)crc32c(0, p + 9, strlen(p + 9)), p + 9);
		}
		FILE *o = fopen(f, "w");
		done += o && fputs(b.s ? b.s : "", o) >= 0;
		if (o)
			fclose(o);
		sbuf_free(&b);
		free(text);
		free(f);
	}
	if (d)
		closedir(d);
	return done;
}

static void age(const char *rel, int secs)
{
	char *p = util_path_join(root, rel);
	struct timeval tv[2];
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= secs;
	tv[1] = tv[0];
	utimes(p, tv);
	free(p);
}

static void mk(const char *rel)
{
	char *p = util_path_join(root, rel);
	mkdir(p, 0700);
	free(p);
}

static void test_dirlist(void)
{
	mk("dl");
	mk("dl/sub");
	put("dl/file", "x");
	char *d = util_path_join(root, "dl"), *t = util_path_join(root, "dl/file"), *l = util_path_join(root, "dl/link");
	ok(symlink("sub", l) == 0, "a symbolic link to a directory");
	struct dirlist dl;
	dirlist_read(&dl, d);
	ok(dl.ok && dl.n == 3, "three names listed, . and .. not (%zu)", dl.n);
	ok(dl.n == 3 && !strcmp(dl.names[0], "file") && !strcmp(dl.names[1], "link") && !strcmp(dl.names[2], "sub"),
	   "in strcmp order");
	ok(dirlist_has(&dl, d, "sub", 1) && !dirlist_has(&dl, d, "sub", 0), "sub: a directory, not a file");
	ok(dirlist_has(&dl, d, "file", 0) && !dirlist_has(&dl, d, "file", 1), "file: a file, not a directory");
	ok(dirlist_has(&dl, d, "link", 1), "a link is followed, as stat(2) does");
	ok(!dirlist_has(&dl, d, "absent", 0) && !dirlist_has(&dl, d, "absent", 1), "a name not listed is absent");
	ok(!dirlist_has(&dl, d, "fil", 0) && !dirlist_has(&dl, d, "filex", 0), "no prefix matches");
	dirlist_free(&dl);
	dirlist_read(&dl, "/nonexistent-kbtui-dir");
	ok(!dl.ok && dl.n == 0 && !dirlist_has(&dl, "/nonexistent-kbtui-dir", "x", 0), "a missing directory: empty, not ok");
	dirlist_free(&dl);
	free(d);
	free(t);
	free(l);
}

static void test_read_file(void)
{
	size_t len = 0;
	put("rf", "");
	char *p = util_path_join(root, "rf"), *s = util_read_file(p, &len);
	ok(s && len == 0 && !*s, "an empty file: \"\", length 0");
	free(s);
	/* bigger than any first guess, and not a multiple of it */
	FILE *f = fopen(p, "w");
	for (int i = 0; i < 50000; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
	struct stat st;
	stat(p, &st);
	s = util_read_file(p, &len);
	ok(s && len == (size_t)st.st_size && s[len] == '\0' && strstr(s, "line 49999\n"), "a 600 KB file read whole");
	free(s);
	free(p);
	/* /proc says size 0 and gives its text in pieces */
	s = util_read_file("/proc/self/maps", &len);
	ok(s && len > 0 && strlen(s) == len && s[len - 1] == '\n', "a /proc file (size 0) read to its end");
	free(s);
	errno = 0;
	ok(util_read_file("/nonexistent-kbtui", &len) == NULL && errno == ENOENT, "a missing file: NULL, errno ENOENT");
	ok(util_read_file("/", &len) == NULL, "a directory: NULL");
}

/* CRC-32C against its definition, bit by bit: the check value, and
 * buffers of every length to 100 and of blocks the hardware path takes in
 * three lanes, at each alignment. */
static uint32_t crc_bits(const unsigned char *p, size_t n)
{
	uint32_t c = ~0u;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ 0x82f63b78u : c >> 1;
	}
	return ~c;
}

static void test_crc32c(void)
{
	is_int((long long)crc32c(0, "123456789", 9), 0xe3069283ll, "CRC-32C of 123456789: its check value");
	static unsigned char buf[3 * 4096 * 3 + 64];
	unsigned x = 12345;
	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (unsigned char)((x = x * 1103515245u + 12345u) >> 16);
	int same = 1;
	for (size_t n = 0; n <= 100; n++)
		same &= crc32c(0, buf + 3, n) == crc_bits(buf + 3, n);
	size_t lens[] = {12287, 12288, 12289, 24576 + 5, 36864, sizeof buf - 8};
	for (size_t k = 0; k < sizeof lens / sizeof *lens; k++)
		for (size_t off = 0; off < 8; off++)
			same &= crc32c(0, buf + off, lens[k]) == crc_bits(buf + off, lens[k]);
	same &= crc32c(crc32c(0, buf, 5000), buf + 5000, 20000) == crc_bits(buf, 25000);
	ok(same, "CRC-32C as defined: every length to 100, blocks of three lanes at every alignment, continued");
}

static void test_idcache(void)
{
	char *cache = util_path_join(root, "cache");
	setenv("XDG_CACHE_HOME", cache, 1);
	unsetenv("KBTUI_NO_CACHE");
	put("f1", "one");
	put("f2", "two");
	age("f1", 10);
	char *f1 = util_path_join(root, "f1"), *f2 = util_path_join(root, "f2");
	unsigned long long id1[4], id2[4], idx[4];
	ok(idcache_identify(f1, id1) == 0 && idcache_identify(f2, id2) == 0, "two files identified");
	ok(idcache_identify(root, idx) < 0, "a directory is not identified");
	ok(!idcache_racy(id1) && idcache_racy(id2), "a file changed 10 s ago may be kept, one changed now not");

	struct idcache *c = idcache_open("test", root);
	ok(idcache_get(c, f1, id1, 7) == NULL, "an empty table");
	idcache_put(c, f1, id1, 7, "value one");
	idcache_put(c, f2, id2, 7, "value two");
	idcache_put(c, "/tab\tpath", id1, 7, "v");
	idcache_put(c, f1, id1, 8, "new\nline");
	is_str(idcache_get(c, f1, id1, 7), "value one", "kept and found");
	ok(idcache_get(c, f2, id2, 7) == NULL, "a file changed just now is not kept (racy)");
	ok(idcache_get(c, f1, id1, 8) == NULL, "another key: not found");
	ok(idcache_get(c, "/tab\tpath", id1, 7) == NULL, "a path with a tab is not kept");
	idcache_free(c);   /* saved */

	c = idcache_open("test", root);
	is_str(idcache_get(c, f1, id1, 7), "value one", "opened again: read from its file");
	unsigned long long moved[4];
	memcpy(moved, id1, sizeof moved);
	moved[3]++;
	ok(idcache_get(c, f1, moved, 7) == NULL, "another mtime: not trusted");
	moved[3]--;
	moved[2]++;
	ok(idcache_get(c, f1, moved, 7) == NULL, "another size: not trusted");
	for (int i = 0; i < 600; i++) {   /* the table grows past its first 256 slots */
		char path[64], v[16];
		snprintf(path, sizeof path, "/p/%d", i);
		snprintf(v, sizeof v, "%d", i * 3);
		idcache_put(c, path, id1, 1, v);
	}
	idcache_free(c);
	c = idcache_open("test", root);
	int all = 1;
	for (int i = 0; i < 600 && all; i++) {
		char path[64], v[16];
		snprintf(path, sizeof path, "/p/%d", i);
		snprintf(v, sizeof v, "%d", i * 3);
		all = idcache_get(c, path, id1, 1) && !strcmp(idcache_get(c, path, id1, 1), v);
	}
	ok(all, "600 entries kept across a save and a load");
	idcache_free(c);

	/* a torn or damaged file: its good lines only */
	char *dir = idcache_dir("test");
	ok(dir && util_starts_with(dir, cache), "the table's directory is under $XDG_CACHE_HOME");
	char *cmd = xasprintf("f=$(ls '%s'/* | head -1) && head -c 5 \"$f\" > \"$f.x\" && printf 'garbage\\n1 2\\n' >> \"$f.x\" && "
	                      "cat \"$f\" >> \"$f.x\" && printf '1 2 3 4 5\\tcut' >> \"$f.x\" && mv \"$f.x\" \"$f\"", dir);
	ok(system(cmd) == 0, "the table's file damaged");
	free(cmd);
	c = idcache_open("test", root);
	is_str(idcache_get(c, f1, id1, 7), "value one", "damaged lines skipped, the good ones read");
	idcache_free(c);
	setenv("KBTUI_NO_CACHE", "1", 1);
	c = idcache_open("test", root);
	ok(idcache_get(c, f1, id1, 7) == NULL && idcache_dir("test") == NULL, "KBTUI_NO_CACHE: no table read");
	idcache_free(c);
	unsetenv("KBTUI_NO_CACHE");
	free(dir);
	free(f1);
	free(f2);
	free(cache);
}

/* A dataset of n runs: results that agree, but run 1's result.json says
 * correct: false against the index; run 2's is not JSON; run 3 has no
 * directory; annotations for runs 0 (clean) and 4 (broken YAML). */
static char *make_dataset(const char *name, int n)
{
	char rel[256];
	snprintf(rel, sizeof rel, "%s", name);
	mk(rel);
	snprintf(rel, sizeof rel, "%s/runs", name);
	mk(rel);
	snprintf(rel, sizeof rel, "%s/annotations", name);
	mk(rel);
	struct sbuf idx;
	sbuf_init(&idx);
	for (int i = 0; i < n; i++) {
		sbuf_addf(&idx, "{\"run_id\":\"r%d\",\"correct\":true,\"peak_fraction\":0.25,\"problem\":\"01_fp8_gemm\"", i);
		if (i == 3) {   /* no directory, no transcript */
			sbuf_adds(&idx, "}\n");
			continue;
		}
		sbuf_addf(&idx, ",\"transcript\":\"runs/r%d/transcript.jsonl\"}\n", i);
		snprintf(rel, sizeof rel, "%s/runs/r%d", name, i);
		mk(rel);
		snprintf(rel, sizeof rel, "%s/runs/r%d/transcript.jsonl", name, i);
		put(rel, "{\"type\":\"text\",\"data\":\"hi\"}\n");
		snprintf(rel, sizeof rel, "%s/runs/r%d/result.json", name, i);
		put(rel, i == 1 ? "{\"correct\":false,\"peak_fraction\":0.25}" : i == 2 ? "{not json" : "{\"correct\":true,\"peak_fraction\":0.25}");
	}
	snprintf(rel, sizeof rel, "%s/runs.jsonl", name);
	put(rel, idx.s);
	sbuf_free(&idx);
	snprintf(rel, sizeof rel, "%s/annotations/r0.yaml", name);
	put(rel, "run_id: r0\nverdict: clean\n");
	age(rel, 10);
	snprintf(rel, sizeof rel, "%s/annotations/r4.yaml", name);
	put(rel, "run_id: r4\nverdict: [unclosed\n");
	age(rel, 10);
	return util_path_join(root, name);
}

static int has_error(const struct dataset *ds, const char *file_end, const char *msg)
{
	for (int i = 0; i < ds->nerrors; i++)
		if (util_ends_with(ds->error_files[i], file_end) && strstr(ds->errors[i].msg, msg))
			return 1;
	return 0;
}

static void test_lazy(void)
{
	char *dir = make_dataset("lazy", 6);
	char *err = NULL;
	struct dataset *eager = dataset_open(dir, &err), *lazy = dataset_open_lazy(dir, &err);
	ok(eager && lazy && eager->nruns == 6 && lazy->nruns == 6, "both open: six runs");
	if (!eager || !lazy)
		return;
	is_int(eager->details_left, 0, "eager: nothing left to read");
	is_int(lazy->details_left, 5, "lazy: the five runs with a directory have result.json to read");
	ok(prov_diffs(&eager->runs[1].prov, NULL, 0) > 0, "eager: run 1's files disagree");
	ok(prov_diffs(&lazy->runs[1].prov, NULL, 0) == 0, "lazy: not known before its result.json is read");
	ok(has_error(eager, "r2/result.json", "not valid JSON") && !has_error(lazy, "r2/result.json", "not valid JSON"),
	   "lazy: the broken result.json was not read at open");
	int same_dirs = 1;
	for (size_t i = 0; i < 6; i++)
		same_dirs &= !eager->runs[i].dir == !lazy->runs[i].dir &&
		             (!eager->runs[i].dir || !strcmp(eager->runs[i].dir, lazy->runs[i].dir));
	ok(same_dirs && lazy->runs[3].dir == NULL, "the same run directories (none for run 3)");
	dataset_details(lazy, 1);
	ok(prov_diffs(&lazy->runs[1].prov, NULL, 0) > 0 && lazy->details_left == 4, "run 1 read on its own: its disagreement known, 4 left");
	dataset_details(lazy, 1);
	is_int(lazy->details_left, 4, "read once only");
	is_int(dataset_details_step(lazy, 2), 2, "a step of 2: 2 left");
	is_int(dataset_details_step(lazy, 100), 0, "then none");
	ok(has_error(lazy, "r2/result.json", "not valid JSON"), "the broken result.json reported once read");
	int same = 1;
	for (size_t i = 0; i < 6; i++)
		same &= !memcmp(&eager->runs[i].prov, &lazy->runs[i].prov, sizeof eager->runs[i].prov);
	ok(same, "every run's provenance as the eager open has it");
	dataset_free(lazy);
	lazy = dataset_open_lazy(dir, &err);
	struct run *r = dataset_load(lazy, 1);
	ok(r && r->prov && prov_diffs(r->prov, NULL, 0) > 0 && lazy->details_left == 4,
	   "loading a run reads its result.json first: the replay's banner has it");
	dataset_free(lazy);
	dataset_free(eager);
	free(dir);
}

static void test_verdicts(void)
{
	char *dir = make_dataset("verd", 6);
	char *cache = util_path_join(root, "vcache");
	setenv("XDG_CACHE_HOME", cache, 1);
	unsetenv("KBTUI_NO_CACHE");
	char *err = NULL;
	struct dataset *a = dataset_open(dir, &err);
	ok(a && a->runs[0].verdict && !strcmp(a->runs[0].verdict, "clean"), "run 0's verdict read");
	ok(a && a->runs[0].annotation_mtime_ns > 0 && a->runs[1].annotation_mtime_ns == 0,
	   "the annotation's version noted for tagging (none for an unannotated run)");
	ok(a && has_error(a, "annotations/r4.yaml", "YAML"), "run 4's broken annotation reported");
	int line_a = 0;
	for (int i = 0; a && i < a->nerrors; i++)
		if (util_ends_with(a->error_files[i], "r4.yaml"))
			line_a = a->errors[i].line;
	char *vdir = idcache_dir("verdicts");
	char *cmd = xasprintf("cat '%s'/* | grep -c . > '%s/vcount' && grep -q 'Vclean' '%s'/* && grep -q 'E%d:' '%s'/*",
	                      vdir, root, vdir, line_a, vdir);
	ok(system(cmd) == 0, "both kept in the verdict cache: the verdict, the error with its line (%d)", line_a);
	free(cmd);
	/* the cache is what a second open reads: plant another verdict for the same identity */
	cmd = xasprintf("sed -i 's/\\tVclean\\t/\\tVreward_hack\\t/' '%s'/*", vdir);
	ok(system(cmd) == 0, "the cached verdict changed behind kbtui's back");
	free(cmd);
	struct dataset *b = dataset_open(dir, &err);
	is_str(b ? b->runs[0].verdict : NULL, "clean", "a line that fails its checksum is read again from the annotation");
	dataset_free(b);
	cmd = xasprintf("sed -i 's/\\tVclean\\t/\\tVreward_hack\\t/' '%s'/*", vdir);
	ok(system(cmd) == 0 && resign(vdir) > 0, "changed again, and its checksum made to match");
	free(cmd);
	b = dataset_open(dir, &err);
	is_str(b ? b->runs[0].verdict : NULL, "reward_hack", "a second open takes the verdict from the cache");
	int line_b = 0;
	for (int i = 0; b && i < b->nerrors; i++)
		if (util_ends_with(b->error_files[i], "r4.yaml") && strstr(b->errors[i].msg, "YAML"))
			line_b = b->errors[i].line;
	ok(line_b == line_a && line_b > 0, "and the broken file's error, the same line");
	dataset_free(b);
	/* the file changes (same size, another mtime): read again */
	put("verd/annotations/r0.yaml", "run_id: r0\nverdict: bug  \n");
	age("verd/annotations/r0.yaml", 5);
	b = dataset_open(dir, &err);
	is_str(b ? b->runs[0].verdict : NULL, "bug", "an annotation changed since: read again, not the cached");
	dataset_free(b);
	/* changed just now: read each time, never kept (idcache_racy) */
	put("verd/annotations/r0.yaml", "run_id: r0\nverdict: interesting\n");
	b = dataset_open(dir, &err);
	dataset_free(b);
	put("verd/annotations/r0.yaml", "run_id: r0\nverdict: rubric_leak\n");
	b = dataset_open(dir, &err);
	is_str(b ? b->runs[0].verdict : NULL, "rubric_leak", "rewritten twice within its mtime's tick: the second verdict seen");
	dataset_free(b);
	setenv("KBTUI_NO_CACHE", "1", 1);
	b = dataset_open(dir, &err);
	is_str(b ? b->runs[0].verdict : NULL, "rubric_leak", "KBTUI_NO_CACHE: read from the file");
	dataset_free(b);
	unsetenv("KBTUI_NO_CACHE");
	dataset_free(a);
	free(vdir);
	free(cache);
	free(dir);
}

static void test_find(void)
{
	char *dir = make_dataset("find", 300);
	char *err = NULL;
	struct dataset *ds = dataset_open_lazy(dir, &err);
	ok(ds && ds->nruns == 300, "300 runs");
	if (!ds)
		return;
	int all = 1;
	for (size_t i = 0; i < ds->nruns; i++)
		all &= dataset_find(ds, ds->runs[i].meta.run_id) == (long)i;
	ok(all, "each run found at its index");
	ok(dataset_find(ds, "r300") < 0 && dataset_find(ds, "") < 0 && dataset_find(ds, NULL) < 0, "absent ids: -1");
	for (int i = 0; i < 200; i++) {   /* added while the table exists: it grows */
		char id[16];
		snprintf(id, sizeof id, "new%d", i);
		dataset_add_run(ds, id);
	}
	all = 1;
	for (int i = 0; i < 200; i++) {
		char id[16];
		snprintf(id, sizeof id, "new%d", i);
		all &= dataset_find(ds, id) == 300 + i;
	}
	ok(all && dataset_find(ds, "r7") == 7, "runs added later are found, the first ones still");
	dataset_free(ds);
	free(dir);
}

/* A real dataset opened both ways: once every result.json is read, the
 * same runs, provenance and errors. */
static void same_both_ways(const char *dir, const char *what)
{
	char *err = NULL;
	struct dataset *e = dataset_open(dir, &err), *l = dataset_open_lazy(dir, &err);
	if (!e || !l) {
		ok(0, "%s opens both ways", what);
		return;
	}
	size_t pending = l->details_left;
	dataset_details_step(l, (size_t)-1);
	int same = e->nruns == l->nruns && e->nerrors == l->nerrors, differ = 0;
	for (size_t i = 0; same && i < e->nruns; i++) {
		same = !strcmp(e->runs[i].meta.run_id, l->runs[i].meta.run_id) &&
		       !memcmp(&e->runs[i].prov, &l->runs[i].prov, sizeof e->runs[i].prov) &&
		       !e->runs[i].verdict == !l->runs[i].verdict &&
		       (!e->runs[i].verdict || !strcmp(e->runs[i].verdict, l->runs[i].verdict));
		differ += prov_diffs(&l->runs[i].prov, NULL, 0) > 0;
	}
	ok(same && pending > 0, "%s: lazy (%zu result.json later) ends as eager: %zu runs, %d with files that disagree",
	   what, pending, e->nruns, differ);
	dataset_free(e);
	dataset_free(l);
}

int main(void)
{
	if (!mkdtemp(root)) {
		ok(0, "mkdtemp");
		return tap_done();
	}
	test_dirlist();
	test_read_file();
	test_crc32c();
	test_idcache();
	test_lazy();
	test_verdicts();
	test_find();
	same_both_ways(tap_path("tests/fixtures/kbh"), "the shipped KernelBench-Hard runs");
	if (tap_shared_kbh())
		same_both_ways(tap_shared_kbh(), "../shared/kbh");
	else
		tap_skip("../shared/kbh is absent: the real sample both ways skipped");
	char *cmd = xasprintf("rm -rf '%s'", root);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", root);
	free(cmd);
	return tap_done();
}
