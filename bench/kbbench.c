/* kbbench: parsing throughput, index load time and memory, for `make bench`.
 *   kbbench parse REPEAT FILE...   parse every file REPEAT times
 *   kbbench keep FILE...           parse all, keep them, report RSS/bytes
 *   kbbench index DIR              open the dataset index 50 times
 *   kbbench search DIR REGEX...    grep across all runs: kbtui search end to
 *                                  end, then loading and matching apart
 *   kbbench synth EVENTS FILE      write a synthetic Claude Code transcript of
 *                                  about EVENTS events (the scaling series)
 *   kbbench link FILE              load FILE; CPU ms of the load and of
 *                                  pairing its events again from the start
 *   kbbench watch FILE MORE N      follow a copy of FILE, append MORE's lines
 *                                  one a poll (N of them): the core's CPU per
 *                                  poll (read, pair, flags, matches)
 *   kbbench dataset SRC N DST      a dataset of N runs made of SRC's, their
 *                                  files and annotations hard-linked (the
 *                                  browser at scale; a link outside the
 *                                  dataset would be refused)
 *   kbbench scan FILE...           the scan pass's parts on one core: lines
 *                                  split, then every line parsed by jx_parse
 *                                  and its record's kind (top-level "type")
 *                                  read, in GB/s (bench/kbsimd does the same
 *                                  with simdjson, where it is installed) */
#include "cmd.h"
#include "dataset.h"
#include "flags.h"
#include "follow.h"
#include "parser.h"
#include "quote.h"
#include "noise.h"
#include "timeline.h"
#include "ftrack.h"
#include "search.h"
#include "jsonx.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_utime.tv_sec * 1e3 + ru.ru_utime.tv_usec / 1e3 + ru.ru_stime.tv_sec * 1e3 +
	       ru.ru_stime.tv_usec / 1e3;
}

static long rss_kb(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* current resident set, from /proc (the peak includes earlier phases) */
static long cur_rss_kb(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long pages = 0, res = 0;
	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * 4;
}

static long long file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 ? (long long)st.st_size : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

#define SEARCH_REPS 5

/* The best and median of SEARCH_REPS timings (sorted in place). */
static void search_stats(double *v, double *best, double *med)
{
	qsort(v, SEARCH_REPS, sizeof *v, cmp_double);
	*best = v[0];
	*med = v[SEARCH_REPS / 2];
}

static int search_count(void *ud, size_t ev, int line, const char *text, size_t len)
{
	(void)ev;
	(void)line;
	(void)text;
	(void)len;
	++*(size_t *)ud;
	return 0;
}

/* kbtui search REGEX DIR as the command runs it (each run loaded, grepped,
 * unloaded; output to /dev/null), then the same split: every run loaded
 * and kept, then only the matching over them. */
static int bench_search(const char *dir, int npat, char **pats)
{
	FILE *null = fopen("/dev/null", "w");
	char *err = NULL;
	double v[SEARCH_REPS], best, med;
	if (!null)
		return 1;
	for (int p = 0; p < npat; p++) {
		char *argv[] = { "search", pats[p], (char *)dir, NULL };
		int rc = 0;
		double cpu_best = 1e9;
		for (int k = 0; k < SEARCH_REPS; k++) {
			double t0 = now_ms(), c0 = cpu_ms();
			rc = cmd_search(3, argv, "kbbench", null, stderr);
			v[k] = now_ms() - t0;
			if (cpu_ms() - c0 < cpu_best)
				cpu_best = cpu_ms() - c0;
		}
		search_stats(v, &best, &med);
		printf("search end to end '%s': best %.1f ms, median %.1f ms, CPU best %.1f ms (exit %d)\n", pats[p], best,
		       med, cpu_best, rc);
		printf("RESULT search_e2e best %.1f median %.1f cpu_best %.1f\n", best, med, cpu_best);
	}
	struct dataset *ds = NULL;
	size_t nrun = 0;
	for (int k = 0; k < SEARCH_REPS; k++) {
		dataset_free(ds);
		double t0 = now_ms();
		ds = dataset_open(dir, &err);
		if (!ds) {
			fprintf(stderr, "kbbench: %s\n", err);
			return 1;
		}
		nrun = 0;
		for (size_t i = 0; i < ds->nruns; i++)
			nrun += ds->runs[i].transcript && dataset_load(ds, i);
		v[k] = now_ms() - t0;
	}
	search_stats(v, &best, &med);
	printf("search load (index + %zu runs parsed): best %.1f ms, median %.1f ms\n", nrun, best, med);
	printf("RESULT search_load best %.1f median %.1f\n", best, med);
	/* the file edits' diffs are rendered on first use: by the first search */
	size_t ndiff = 0;
	double t0 = now_ms(), c0 = cpu_ms();
	for (size_t i = 0; i < ds->nruns; i++)
		for (size_t k = 0; ds->runs[i].run && k < ds->runs[i].run->nev; k++)
			ndiff += run_event_diff(ds->runs[i].run, k) != NULL;
	printf("search diffs (%zu file edits rendered, once per load): %.1f ms, CPU %.1f ms\n", ndiff, now_ms() - t0,
	       cpu_ms() - c0);
	for (int p = 0; p < npat; p++) {
		struct search *s = search_new(pats[p], &err);
		size_t lines = 0;
		if (!s) {
			fprintf(stderr, "kbbench: %s\n", err);
			return 1;
		}
		for (int k = 0; k < SEARCH_REPS; k++) {
			lines = 0;
			double t0 = now_ms();
			for (size_t i = 0; i < ds->nruns; i++)
				if (ds->runs[i].run)
					flag_grep(s, ds->runs[i].run, search_count, &lines);
			v[k] = now_ms() - t0;
		}
		search_stats(v, &best, &med);
		printf("search matching '%s': %zu lines, best %.1f ms, median %.1f ms\n", pats[p], lines, best, med);
		printf("RESULT search_match best %.1f median %.1f\n", best, med);
		search_free(s);
	}
	dataset_free(ds);
	fclose(null);
	return 0;
}

/* One agent step in Claude Code's stream-json: reasoning, text and a Bash
 * call in one message (with its usage), then the call's result: five
 * events. Ids are unique, as in a real session. */
static void synth_step(FILE *f, long k)
{
	const char *sess = "5e55a0b1-0000-4000-8000-000000000000";
	fprintf(f, "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_synth%08ld\",\"type\":\"message\","
	        "\"role\":\"assistant\",\"model\":\"claude-opus-4-7\",\"content\":[{\"type\":\"thinking\","
	        "\"thinking\":\"Step %ld: the kernel still spills registers; try a 128x64 tile with two stages "
	        "and check the occupancy.\",\"signature\":\"\"}],\"usage\":{\"input_tokens\":6,"
	        "\"cache_creation_input_tokens\":%ld,\"cache_read_input_tokens\":16230,\"output_tokens\":40}},"
	        "\"parent_tool_use_id\":null,\"session_id\":\"%s\",\"uuid\":\"u%ld-a\"}\n", k, k, 1000 + k, sess, k);
	fprintf(f, "{\"type\":\"assistant\",\"message\":{\"id\":\"msg_synth%08ld\",\"type\":\"message\","
	        "\"role\":\"assistant\",\"model\":\"claude-opus-4-7\",\"content\":[{\"type\":\"text\","
	        "\"text\":\"Rebuilding with the new tile size and running the benchmark.\"},{\"type\":\"tool_use\","
	        "\"id\":\"toolu_synth%08ld\",\"name\":\"Bash\",\"input\":{\"command\":\"cd /work && "
	        "nvcc -O3 -arch=sm_90 solution.cu -o sol && ./sol --bench %ld\",\"description\":\"benchmark\"}}],"
	        "\"usage\":{\"input_tokens\":6,\"cache_creation_input_tokens\":%ld,\"cache_read_input_tokens\":16230,"
	        "\"output_tokens\":80}},\"parent_tool_use_id\":null,\"session_id\":\"%s\",\"uuid\":\"u%ld-b\"}\n",
	        k, k, k, 1000 + k, sess, k);
	fprintf(f, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"tool_use_id\":"
	        "\"toolu_synth%08ld\",\"type\":\"tool_result\",\"content\":\"shape 4096x4096: %ld.%03ld ms, "
	        "tflops=%ld.%ld\\nshape 8192x8192: %ld.%03ld ms\\nPASS\",\"is_error\":false}]},"
	        "\"parent_tool_use_id\":null,\"session_id\":\"%s\",\"uuid\":\"u%ld-c\"}\n",
	        k, 1 + k % 7, k % 1000, 300 + k % 400, k % 10, 8 + k % 9, (k * 7) % 1000, sess, k);
}

static int bench_synth(long events, const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		return 1;
	}
	fprintf(f, "{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/work\",\"session_id\":"
	        "\"5e55a0b1-0000-4000-8000-000000000000\",\"tools\":[\"Bash\",\"Read\",\"Write\"],"
	        "\"mcp_servers\":[],\"model\":\"claude-opus-4-7\",\"permissionMode\":\"bypassPermissions\"}\n");
	for (long k = 0; k * 5 < events; k++)
		synth_step(f, k);
	return fclose(f) != 0;
}

/* Loading FILE, then pairing its events again from the start: CPU ms of each. */
static int bench_link(const char *path)
{
	char *err = NULL;
	double c0 = cpu_ms();
	struct run *r = parser_load_file(path, NULL, &err);
	double load = cpu_ms() - c0;
	if (!r) {
		fprintf(stderr, "kbbench: %s\n", err);
		return 1;
	}
	c0 = cpu_ms();
	for (int k = 0; k < 10; k++)
		run_link_again(r);
	printf("RESULT link events %zu load_cpu %.1f link_cpu %.3f\n", r->nev, load, (cpu_ms() - c0) / 10);
	run_free(r);
	return 0;
}

/* What a watch poll costs the core on a long run: the new line read and
 * parsed, results paired, the flags and a search's matches brought up to
 * date (the screen's own panes are not in it). */
static int bench_watch(const char *file, const char *more, int n)
{
	char *copy = xasprintf("%s.watch", file), *err = NULL;
	size_t len = 0, mlen = 0;
	char *text = util_read_file(file, &len), *add = util_read_file(more, &mlen);
	FILE *f = text ? fopen(copy, "w") : NULL;
	if (!f || !add) {
		fprintf(stderr, "kbbench: cannot read %s or %s, or write %s\n", file, more, copy);
		return 1;
	}
	fwrite(text, 1, len, f);
	fflush(f);
	struct run *run = run_new();
	run->source = xstrdup(copy);
	struct follow *fl = follow_new(copy, run, NULL);
	follow_poll(fl);
	const struct flag_rules *rs;
	struct flag_list *fls = flag_run_default(run, &rs);
	struct search *s = search_new("tflops", &err);
	size_t *m = NULL, nm = search_events(s, run, &m);
	double c0 = cpu_ms();
	int polls = 0;
	for (char *p = add; polls < n && p < add + mlen; polls++) {
		char *nl = memchr(p, '\n', (size_t)(add + mlen - p));
		size_t l = nl ? (size_t)(nl - p) + 1 : (size_t)(add + mlen - p);
		fwrite(p, 1, l, f);
		fflush(f);
		p += l;
		size_t old = run->nev;
		if (follow_poll(fl)) {
			fls = flag_run_update(fls, run, old ? old - 1 : 0, &rs);
			nm = search_events_more(s, run, old ? old - 1 : 0, &m, nm);
		}
	}
	double per = (cpu_ms() - c0) / (polls ? polls : 1);
	printf("RESULT watch events %zu polls %d cpu_per_poll %.3f matches %zu\n", run->nev, polls, per, nm);
	fclose(f);
	unlink(copy);
	free(m);
	search_free(s);
	flag_list_delete(fls);
	follow_free(fl);
	run_free(run);
	free(text);
	free(add);
	free(copy);
	return 0;
}

/* What the replay's s, timeline pane and quote jump cost on each run
 * (CPU ms, the run loaded and its flags evaluated first): noise_mark over
 * every event, timeline_build, and quote_find for three lines from the
 * middle of the final solution. */
static int bench_panes(int n, char **files)
{
	double worst[3] = { 0, 0, 0 };
	for (int i = 0; i < n; i++) {
		char *err = NULL;
		struct run *r = parser_load_file(files[i], NULL, &err);
		free(err);
		if (!r)
			continue;
		const struct flag_rules *rs;
		struct flag_list *fl = flag_run_default(r, &rs);
		unsigned char *hide = xcalloc(r->nev + 1, 1);
		double c0 = cpu_ms();
		size_t nh = noise_mark(r, 0, hide);
		double t_noise = cpu_ms() - c0;
		struct timeline t;
		c0 = cpu_ms();
		timeline_build(r, fl, NULL, &t);
		double t_tl = cpu_ms() - c0, t_q = 0;
		const char *last = t.path && t.n ? ftrack_get(r->files, t.path) : NULL;
		if (last) {
			size_t len = strlen(last), at = len / 2;
			while (at > 0 && last[at - 1] != '\n')
				at--;
			const char *e = last + at;
			for (int k = 0; k < 3 && *e; k++)
				e = strchr(e, '\n') ? strchr(e, '\n') + 1 : e + strlen(e);
			char *q = xstrndup(last + at, (size_t)(e - (last + at)));
			struct quote_src src;
			c0 = cpu_ms();
			quote_find(r, "solution.py", q, &src);
			t_q = cpu_ms() - c0;
			free(q);
		}
		printf("RESULT panes events %zu noise %zu noise_cpu %.2f versions %zu timeline_cpu %.2f quote_cpu %.2f\n",
		       r->nev, nh, t_noise, t.n, t_tl, t_q);
		worst[0] = t_noise > worst[0] ? t_noise : worst[0];
		worst[1] = t_tl > worst[1] ? t_tl : worst[1];
		worst[2] = t_q > worst[2] ? t_q : worst[2];
		timeline_free(&t);
		free(hide);
		flag_list_delete(fl);
		run_free(r);
	}
	printf("panes: %d runs, worst CPU: s (noise) %.1f ms, timeline %.1f ms, quote jump %.1f ms\n", n, worst[0],
	       worst[1], worst[2]);
	return 0;
}

/* Every regular file of directory from hard-linked into to (made). */
static int bench_link_dir(const char *from, const char *to)
{
	DIR *d = opendir(from);
	if (!d)
		return -1;
	if (mkdir(to, 0755) < 0) {
		closedir(d);
		return -1;
	}
	for (struct dirent *de; (de = readdir(d));) {
		char *a = util_path_join(from, de->d_name), *b = util_path_join(to, de->d_name);
		if (util_is_file(a) && link(a, b) < 0)
			fprintf(stderr, "kbbench: link %s: %s\n", b, strerror(errno));
		free(a);
		free(b);
	}
	closedir(d);
	return 0;
}

/* SRC's index lines over and over, N in all, each run renamed <id>_xNNNNN
 * with its directory and annotation hard-linked under DST. */
static int bench_dataset(const char *src, long n, const char *dst)
{
	size_t len;
	char *idx = util_path_join(src, "runs.jsonl"), *text = util_read_file(idx, &len);
	free(idx);
	if (!text || mkdir(dst, 0755) < 0) {
		fprintf(stderr, "kbbench: %s: no runs.jsonl, or %s exists\n", src, dst);
		free(text);
		return 1;
	}
	char *runs = util_path_join(dst, "runs"), *annots = util_path_join(dst, "annotations");
	mkdir(runs, 0755);
	mkdir(annots, 0755);
	static const char *const copied[] = { "leaderboard.json", "problem_baselines.json", NULL };
	for (size_t i = 0; copied[i]; i++) {
		char *a = util_path_join(src, copied[i]), *b = util_path_join(dst, copied[i]);
		if (util_is_file(a))
			link(a, b);
		free(a);
		free(b);
	}
	char *out_path = util_path_join(dst, "runs.jsonl");
	FILE *out = fopen(out_path, "w");
	free(out_path);
	long made = 0, annotated = 0;
	while (out && made < n) {
		long before = made;
		for (char *p = text, *nl; made < n && p < text + len; p = nl + 1) {
			if (!(nl = memchr(p, '\n', len - (size_t)(p - text))))
				nl = text + len;
			cJSON *o = jx_parse(p, (size_t)(nl - p));
			const char *id = jx_str(o, "run_id");
			if (!id) {
				cJSON_Delete(o);
				continue;
			}
			char *nid = xasprintf("%s_x%05ld", id, made), *rel = xasprintf("runs/%s", id);
			char *from = util_path_join(src, rel), *to = util_path_join(runs, nid);
			if (util_is_dir(from))
				bench_link_dir(from, to);
			free(rel);
			free(from);
			free(to);
			rel = xasprintf("annotations/%s.yaml", id);
			from = util_path_join(src, rel);
			to = xasprintf("%s/%s.yaml", annots, nid);
			annotated += util_is_file(from) && link(from, to) == 0;
			free(rel);
			free(from);
			free(to);
			cJSON_ReplaceItemInObject(o, "run_id", cJSON_CreateString(nid));
			const char *tr = jx_str(o, "transcript");
			if (tr) {
				const char *base = strrchr(tr, '/');
				char *ntr = xasprintf("runs/%s/%s", nid, base ? base + 1 : tr);
				cJSON_ReplaceItemInObject(o, "transcript", cJSON_CreateString(ntr));
				free(ntr);
			}
			cJSON_DeleteItemFromObject(o, "annotation");  /* annotations/<id>.yaml is found */
			/* the files list as long as it was (an index line's size is part of the cost) */
			cJSON *files = cJSON_GetObjectItemCaseSensitive(o, "files"), *f;
			cJSON_ArrayForEach(f, files) {
				const char *base = cJSON_IsString(f) ? strrchr(f->valuestring, '/') : NULL;
				if (base) {
					char *nf = xasprintf("runs/%s%s", nid, base);
					cJSON_SetValuestring(f, nf);
					free(nf);
				}
			}
			char *line = cJSON_PrintUnformatted(o);
			fprintf(out, "%s\n", line);
			free(line);
			free(nid);
			cJSON_Delete(o);
			made++;
		}
		if (made == before)
			break;   /* no line with a run_id */
	}
	if (!out || fclose(out) != 0) {
		fprintf(stderr, "kbbench: cannot write %s/runs.jsonl\n", dst);
		return 1;
	}
	printf("dataset: %s: %ld runs (%ld annotated) from %s\n", dst, made, annotated, src);
	free(text);
	free(runs);
	free(annots);
	return 0;
}

/* kbbench scan: the figures that choose the scan pass's parser (issue #28:
 * "choose by numbers"), one core, the files mapped and read once before
 * timing (the page cache, not the disk). Lines with a kind: a top-level
 * "type" string, as bench/kbsimd counts them, so the two can be compared. */
static int bench_scan(int n, char **files)
{
	double split = 0, parse = 0;
	size_t bytes = 0, lines = 0, kinds = 0, bad = 0, kind_bytes = 0;
	for (int i = 0; i < n; i++) {
		int fd = open(files[i], O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0 || fstat(fd, &st) < 0) {
			fprintf(stderr, "kbbench: %s: %s\n", files[i], strerror(errno));
			return 1;
		}
		size_t len = (size_t)st.st_size;
		const char *m = len ? mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0) : NULL;
		close(fd);
		if (len && m == MAP_FAILED) {
			fprintf(stderr, "kbbench: %s: %s\n", files[i], strerror(errno));
			return 1;
		}
		size_t nl = 0, *ends = xmalloc((len / 16 + 2) * sizeof *ends);
		double t0 = now_ms();
		for (const char *p = m, *e = m + len, *q; p < e; p = q + 1) {
			q = memchr(p, '\n', (size_t)(e - p));
			if (!q)
				q = e;
			ends[nl++] = (size_t)(q - m);
		}
		double t1 = now_ms();
		for (size_t k = 0, start = 0; k < nl; start = ends[k++] + 1) {
			jx_arena_begin();
			cJSON *o = jx_parse(m + start, ends[k] - start);
			const cJSON *t = o ? cJSON_GetObjectItemCaseSensitive(o, "type") : NULL;
			if (cJSON_IsString(t)) {
				kinds++;
				kind_bytes += strlen(t->valuestring);
			}
			bad += !o && ends[k] > start;
			jx_arena_end();
		}
		double t2 = now_ms();
		split += t1 - t0;
		parse += t2 - t1;
		bytes += len;
		lines += nl;
		free(ends);
		if (len)
			munmap((void *)m, len);
	}
	printf("scan: %.1f MB, %zu lines: split (memchr) %.1f ms, %.2f GB/s; jx_parse + kind %.1f ms, %.2f GB/s; "
	       "%zu kinds (%zu bytes), %zu lines unparsed\n", bytes / 1e6, lines, split, bytes / 1e6 / (split > 0 ? split : 1e-3),
	       parse, bytes / 1e6 / (parse > 0 ? parse : 1e-3), kinds, kind_bytes, bad);
	printf("RESULT scan bytes %zu split_gbps %.2f jx_gbps %.2f kinds %zu kind_bytes %zu end\n", bytes,
	       bytes / 1e6 / (split > 0 ? split : 1e-3), bytes / 1e6 / (parse > 0 ? parse : 1e-3), kinds, kind_bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "dataset"))
		return bench_dataset(argv[2], atol(argv[3]), argv[4]);
	if (argc >= 3 && !strcmp(argv[1], "panes"))
		return bench_panes(argc - 2, argv + 2);
	if (argc == 5 && !strcmp(argv[1], "watch"))
		return bench_watch(argv[2], argv[3], atoi(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "synth"))
		return bench_synth(atol(argv[2]), argv[3]);
	if (argc == 3 && !strcmp(argv[1], "link"))
		return bench_link(argv[2]);
	if (argc >= 3 && !strcmp(argv[1], "scan"))
		return bench_scan(argc - 2, argv + 2);
	if (argc >= 4 && !strcmp(argv[1], "search"))
		return bench_search(argv[2], argc - 3, argv + 3);
	if (argc >= 4 && !strcmp(argv[1], "parse")) {
		int rep = atoi(argv[2]);
		long long bytes = 0, events = 0;
		double t0 = now_ms(), c0 = cpu_ms();
		for (int k = 0; k < rep; k++)
			for (int i = 3; i < argc; i++) {
				char *err = NULL;
				struct run *r = parser_load_file(argv[i], NULL, &err);
				bytes += file_size(argv[i]);
				if (r)
					events += (long long)r->nev;
				free(err);
				run_free(r);
			}
		double ms = now_ms() - t0, cpu = cpu_ms() - c0;
		printf("parse: %d files x %d, %.1f MB, %lld events, %.1f ms wall, %.1f ms cpu, "
		       "%.1f MB/s (cpu), peak RSS %ld KB\n",
		       argc - 3, rep, bytes / 1e6, events, ms, cpu, bytes / 1e6 / (cpu / 1e3), rss_kb());
		return 0;
	}
	if (argc >= 3 && !strcmp(argv[1], "keep")) {
		long long bytes = 0;
		long before = cur_rss_kb();
		struct run **runs = calloc((size_t)argc, sizeof *runs);
		for (int i = 2; i < argc; i++) {
			char *err = NULL;
			runs[i] = parser_load_file(argv[i], NULL, &err);
			bytes += file_size(argv[i]);
			free(err);
		}
		long after = cur_rss_kb();
		printf("memory: %.1f MB of transcripts held as %.1f MB resident (%.2fx)\n", bytes / 1e6,
		       (after - before) / 1e3, (after - before) * 1e3 / (double)bytes);
		for (int i = 2; i < argc; i++)
			run_free(runs[i]);
		free(runs);
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "index")) {
		/* as the commands open it (every result.json read), then as the
		 * browser does (result.json later) */
		for (int lazy = 0; lazy < 2; lazy++) {
			double best = 1e9, total = 0;
			size_t n = 0;
			for (int k = 0; k < 50; k++) {
				char *err = NULL;
				double t0 = now_ms();
				struct dataset *ds = lazy ? dataset_open_lazy(argv[2], &err) : dataset_open(argv[2], &err);
				double ms = now_ms() - t0;
				if (!ds) {
					fprintf(stderr, "kbbench: %s\n", err);
					return 1;
				}
				n = ds->nruns;
				dataset_free(ds);
				total += ms;
				best = ms < best ? ms : best;
			}
			printf("index%s: %zu runs, best %.2f ms, mean %.2f ms over 50 opens\n", lazy ? " (result.json later, as the browser)" : "",
			       n, best, total / 50);
		}
		return 0;
	}
	fprintf(stderr, "usage: kbbench parse REPEAT FILE... | keep FILE... | index DIR | search DIR REGEX... | "
	        "scan FILE... | synth EVENTS FILE | link FILE | watch FILE MORE N | panes FILE... | dataset SRC N DST\n");
	return 2;
}
