/* kbbench: parsing throughput, index load time and memory, for `make bench`.
 *   kbbench parse REPEAT FILE...   parse every file REPEAT times
 *   kbbench keep FILE...           parse all, keep them, report RSS/bytes
 *   kbbench index DIR              open the dataset index 50 times */
#include "dataset.h"
#include "parser.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

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

int main(int argc, char **argv)
{
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
		double best = 1e9, total = 0;
		size_t n = 0;
		for (int k = 0; k < 50; k++) {
			char *err = NULL;
			double t0 = now_ms();
			struct dataset *ds = dataset_open(argv[2], &err);
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
		printf("index: %zu runs, best %.2f ms, mean %.2f ms over 50 opens\n", n, best, total / 50);
		return 0;
	}
	fprintf(stderr, "usage: kbbench parse REPEAT FILE... | keep FILE... | index DIR\n");
	return 2;
}
