/* kbbench_tui: the replay's first screen and keys, for `make bench`. It
 * drives the real replay (ui/replay.c through its one-key-at-a-time entry
 * points) on a pseudo-terminal of a fixed size, so it needs no terminal of
 * its own; a child process reads the terminal's output away, as a terminal
 * emulator would.
 *   kbbench_tui DATASET [REPS [PRESSES]]
 * opens the run with the largest transcript of DATASET;
 *   kbbench_tui browser DATASET [REPS]
 * times the browser's first screen as `kbtui DATASET` makes it: the index
 * opened, the browser set up, its first frame drawn;
 *   kbbench_tui pager FILE [KEYS]
 * times `kbtui FILE` on a big transcript (ui/pager.c): the first screen,
 * a key pressed after each slice read while the rest is read, the time
 * until the last event is there, and the memory held then; KEYS, pressed
 * after the first screen, choose the layout and pane it reads under ("=v"
 * one pane beside the list, the next after the detail). */
#include "config.h"

#include <curses.h>
#include <fcntl.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "browse.h"
#include "dataset.h"
#include "keys.h"
#include "linescan.h"
#include "pager.h"
#include "parser.h"
#include "replay.h"
#include "run.h"
#include "theme.h"
#include "util.h"
#include "view.h"

#define BENCH_ROWS 50
#define BENCH_COLS 200

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CPU time of this process: what the replay itself spent, whatever the
 * neighbours on a shared machine take */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Sorts v and returns its value at fraction q (0: least, 1: most). */
static double quantile(double *v, size_t n, double q)
{
	qsort(v, n, sizeof *v, cmp_double);
	size_t i = (size_t)(q * (double)(n - 1) + 0.5);
	return n ? v[i < n ? i : n - 1] : 0;
}

/* ---- the terminal ------------------------------------------------------------ */

struct bench_term {
	int slave;
	pid_t drain;       /* reads the master side until the slave closes */
	FILE *out, *in;
	SCREEN *scr;
};

/* A pseudo-terminal of BENCH_COLS x BENCH_ROWS with a reader on its master
 * side; /dev/null when the system has no pseudo-terminals. */
static int bench_term_open(struct bench_term *t)
{
	memset(t, 0, sizeof *t);
	t->drain = -1;
	int master = posix_openpt(O_RDWR | O_NOCTTY);
	if (master >= 0 && grantpt(master) == 0 && unlockpt(master) == 0 && ptsname(master))
		t->slave = open(ptsname(master), O_RDWR | O_NOCTTY);
	else
		t->slave = -1;
	if (t->slave >= 0) {
		struct winsize ws = { .ws_row = BENCH_ROWS, .ws_col = BENCH_COLS };
		ioctl(t->slave, TIOCSWINSZ, &ws);
		t->drain = fork();
		if (t->drain == 0) {
			char buf[65536];
			close(t->slave);
			while (read(master, buf, sizeof buf) > 0)
				;
			_exit(0);
		}
		close(master);
		printf("terminal: pseudo-terminal %dx%d\n", BENCH_COLS, BENCH_ROWS);
	} else {
		if (master >= 0)
			close(master);
		t->slave = open("/dev/null", O_RDWR);
		char n[16];
		snprintf(n, sizeof n, "%d", BENCH_ROWS);
		setenv("LINES", n, 1);
		snprintf(n, sizeof n, "%d", BENCH_COLS);
		setenv("COLUMNS", n, 1);
		printf("terminal: /dev/null %dx%d (no pseudo-terminal)\n", BENCH_COLS, BENCH_ROWS);
	}
	t->out = fdopen(t->slave, "w");
	t->in = fdopen(dup(t->slave), "r");
	if (!t->out || !t->in)
		return -1;
	static const char *const terms[] = { "xterm-256color", "xterm", "vt100", NULL };
	for (size_t i = 0; terms[i] && !t->scr; i++)
		if ((t->scr = newterm(terms[i], t->out, t->in)))
			printf("TERM=%s\n", terms[i]);
	if (!t->scr)
		return -1;
	/* as tui_start sets the screen up, less the signals and the mouse */
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	theme_init();
	return 0;
}

static void bench_term_close(struct bench_term *t)
{
	endwin();
	delscreen(t->scr);
	fclose(t->out);
	fclose(t->in);
	if (t->drain > 0)
		waitpid(t->drain, NULL, 0);
}

/* ---- the run ------------------------------------------------------------------ */

/* The run of ds with the largest transcript, -1 when none has one. */
static long bench_largest(const struct dataset *ds, long long *bytes)
{
	long best = -1;
	*bytes = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		struct stat st;
		if (ds->runs[i].transcript && stat(ds->runs[i].transcript, &st) == 0 && st.st_size > *bytes) {
			*bytes = st.st_size;
			best = (long)i;
		}
	}
	return best;
}

/* The first screen REPS times: load as `kbtui RUN_DIR` loads (find the
 * transcript, parse it), then the replay's first draw on a cleared
 * terminal up to the end of its doupdate. The last replay stays open in
 * *rp for the keys, over *runp titled *filep (both the caller's to free). */
static void bench_first(const char *run_dir, int reps, struct replay *rp, struct run **runp, char **filep)
{
	double *load = xcalloc((size_t)reps, sizeof *load), *draw = xcalloc((size_t)reps, sizeof *draw);
	double *total = xcalloc((size_t)reps, sizeof *total), *cpu = xcalloc((size_t)reps, sizeof *cpu);
	double *full = xcalloc((size_t)reps, sizeof *full);
	struct run *run = NULL;
	char *file = NULL;
	for (int k = 0; k < reps; k++) {
		char *err = NULL;
		clearok(curscr, TRUE);  /* every repetition paints the whole screen */
		double c0 = cpu_ms(), t0 = now_ms();
		file = dataset_find_transcript(run_dir);
		run = file ? parser_load_file(file, NULL, &err) : NULL;
		double t1 = now_ms();
		if (!run) {
			fprintf(stderr, "kbbench_tui: %s\n", err ? err : "no transcript");
			exit(1);
		}
		replay_init(rp, run, file);
		erase();
		replay_draw(rp);
		double t2 = now_ms();
		cpu[k] = cpu_ms() - c0;
		/* what the first screen left to the poll (the whole-run panes, the
		 * header's statistics), made and drawn as the loop does next */
		int ms;
		rp->v.ops->poll(&rp->v, &ms);
		replay_draw(rp);
		full[k] = now_ms() - t0;
		load[k] = t1 - t0;
		draw[k] = t2 - t1;
		total[k] = t2 - t0;
		if (k + 1 < reps) {
			replay_free(rp);
			run_free(run);
			free(file);
		}
	}
	printf("run: %s, %zu events\n", run_dir, run->nev);
	printf("first screen (kbtui RUN_DIR, %d reps): load best %.1f median %.1f ms, draw best %.1f median %.1f ms\n",
	       reps, quantile(load, (size_t)reps, 0), quantile(load, (size_t)reps, 0.5), quantile(draw, (size_t)reps, 0),
	       quantile(draw, (size_t)reps, 0.5));
	printf("RESULT first_screen best %.1f median %.1f cpu_median %.1f\n", quantile(total, (size_t)reps, 0),
	       quantile(total, (size_t)reps, 0.5), quantile(cpu, (size_t)reps, 0.5));
	printf("first screen complete (the whole-run panes and header statistics the poll makes next): best %.1f median %.1f ms\n",
	       quantile(full, (size_t)reps, 0), quantile(full, (size_t)reps, 0.5));
	printf("RESULT first_full best %.1f median %.1f\n", quantile(full, (size_t)reps, 0), quantile(full, (size_t)reps, 0.5));
	free(full);
	free(cpu);
	free(load);
	free(draw);
	free(total);
	*runp = run;
	*filep = file;
}

/* The same from the browser: the index open already, Enter loads the run
 * with the index's metadata (dataset_load). */
static void bench_first_browser(struct dataset *ds, size_t i, int reps)
{
	double *load = xcalloc((size_t)reps, sizeof *load), *total = xcalloc((size_t)reps, sizeof *total);
	for (int k = 0; k < reps; k++) {
		struct replay rp;
		clearok(curscr, TRUE);
		double t0 = now_ms();
		struct run *run = dataset_load(ds, i);
		double t1 = now_ms();
		if (!run)
			return;
		replay_init(&rp, run, ds->runs[i].meta.run_id ? ds->runs[i].meta.run_id : ds->runs[i].transcript);
		erase();
		replay_draw(&rp);
		total[k] = now_ms() - t0;
		load[k] = t1 - t0;
		replay_free(&rp);
		run_free(ds->runs[i].run);
		ds->runs[i].run = NULL;
	}
	printf("first screen (browser Enter, index open): load median %.1f ms, total best %.1f median %.1f ms\n",
	       quantile(load, (size_t)reps, 0.5), quantile(total, (size_t)reps, 0),
	       quantile(total, (size_t)reps, 0.5));
	free(load);
	free(total);
}

/* One first screen of the browser: dataset_open_lazy (as main_browse
 * does), the browser's view made, its first frame drawn to the end of its
 * refresh; then what the loop does between keys until the browser has
 * nothing left to do (the rows' details, the flag rules from the cache),
 * as "complete". out[]: wall, cpu, index open, complete cpu (ms). */
static int bench_browser_once(const char *dir, double out[4], size_t *nruns)
{
	char *err = NULL;
	clearok(curscr, TRUE);
	double c0 = cpu_ms(), t0 = now_ms();
	struct dataset *ds = dataset_open_lazy(dir, &err);
	if (!ds) {
		fprintf(stderr, "kbbench_tui: %s\n", err);
		return -1;
	}
	double t1 = now_ms();
	struct view *v = browse_new(ds, NULL);
	erase();
	v->ops->draw(v);
	out[0] = now_ms() - t0;
	out[1] = cpu_ms() - c0;
	out[2] = t1 - t0;
	const char *fo = getenv("KBBENCH_FIRST_ONLY");
	int ms = fo && *fo ? -1 : 0;   /* the first screen alone (to profile it; a cold flag cache) */
	for (long polls = 0; ms == 0 && polls < 10000000; polls++) {
		v->ops->poll(v, &ms);
		if (v->dirty)
			v->ops->draw(v);
	}
	out[3] = cpu_ms() - c0;
	*nruns = ds->nruns;
	v->ops->free(v);
	dataset_free(ds);
	return 0;
}

/* The browser's first screen REPS times, each in a process of its own as
 * `kbtui DATASET` is: a second open in one process finds the heap and the
 * caches the first left (it measured 19 ms where a fresh one took 40). */
static int bench_browser(const char *dir, int reps)
{
	double *v[4];
	for (int j = 0; j < 4; j++)
		v[j] = xcalloc((size_t)reps, sizeof *v[j]);
	size_t nruns = 0;
	for (int k = 0; k < reps; k++) {
		int fd[2];
		double got[5] = { 0 };
		if (pipe(fd) < 0)
			return 1;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			size_t n = 0;
			close(fd[0]);
			got[4] = bench_browser_once(dir, got, &n) < 0 ? -1 : (double)n;
			_exit(write(fd[1], got, sizeof got) == (ssize_t)sizeof got ? 0 : 1);
		}
		close(fd[1]);
		ssize_t r = pid > 0 ? read(fd[0], got, sizeof got) : -1;
		close(fd[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		if (r != (ssize_t)sizeof got || got[4] < 0)
			return 1;
		for (int j = 0; j < 4; j++)
			v[j][k] = got[j];
		nruns = (size_t)got[4];
	}
	size_t n = (size_t)reps;
	printf("browser: %s, %zu runs\n", dir, nruns);
	printf("browser first screen (%d fresh processes): index open median %.1f ms; wall best %.1f median %.1f ms, "
	       "cpu median %.1f ms; complete (flags, details) cpu median %.1f ms\n",
	       reps, quantile(v[2], n, 0.5), quantile(v[0], n, 0), quantile(v[0], n, 0.5), quantile(v[1], n, 0.5),
	       quantile(v[3], n, 0.5));
	printf("RESULT browser_first runs %zu best %.1f median %.1f cpu_median %.1f full_cpu %.1f\n", nruns,
	       quantile(v[0], n, 0), quantile(v[0], n, 0.5), quantile(v[1], n, 0.5), quantile(v[3], n, 0.5));
	for (int j = 0; j < 4; j++)
		free(v[j]);
	return 0;
}

/* ---- keys ---------------------------------------------------------------------- */

/* One key as the loop handles it: the replay takes it, then what it made
 * dirty is drawn (the draw ends in doupdate). Wall milliseconds; *cpu: CPU
 * milliseconds. */
static double bench_press(struct replay *rp, int ch, double *cpu)
{
	struct key k = { .code = ch, .ch = (wint_t)ch, .fn = 0 };
	double c0 = cpu_ms(), t0 = now_ms();
	replay_key(rp, &k);
	if (rp->v.dirty)
		replay_draw(rp);
	double t = now_ms() - t0;
	*cpu = cpu_ms() - c0;
	return t;
}

/* Wall times v and CPU times c of n presses. */
static void bench_report(const char *what, const char *tag, double *v, double *c, size_t n)
{
	double p99 = quantile(v, n, 0.99), med = quantile(v, n, 0.5), max = v[n - 1];
	double cp99 = quantile(c, n, 0.99), cmed = quantile(c, n, 0.5), cmax = c[n - 1];
	printf("%s (%zu presses): wall median %.3f p99 %.3f max %.3f ms; cpu median %.3f p99 %.3f max %.3f ms\n",
	       what, n, med, p99, max, cmed, cp99, cmax);
	printf("RESULT %s median %.3f p99 %.3f max %.3f cpu_p99 %.3f cpu_max %.3f\n", tag, med, p99, max, cp99, cmax);
}

/* j across the run, back to the top (untimed) at its end. */
static void bench_keys(struct replay *rp, int presses)
{
	size_t n = (size_t)presses;
	double *v = xcalloc(n, sizeof *v), *c = xcalloc(n, sizeof *c);
	replay_goto(rp, 0);
	replay_draw(rp);
	for (size_t k = 0; k < n; k++) {
		if (rp->cx.sel + 1 >= rp->cx.run->nev) {
			replay_goto(rp, 0);
			replay_draw(rp);
		}
		v[k] = bench_press(rp, 'j', &c[k]);
	}
	bench_report("key j (next event)", "key_j", v, c, n);

	size_t m = 100;
	double *g = xcalloc(m, sizeof *g), *G = xcalloc(m, sizeof *G);
	double *gc = xcalloc(m, sizeof *gc), *Gc = xcalloc(m, sizeof *Gc);
	for (size_t k = 0; k < m; k++) {
		G[k] = bench_press(rp, 'G', &Gc[k]);
		g[k] = bench_press(rp, 'g', &gc[k]);
	}
	bench_report("key G (last event)", "key_G", G, Gc, m);
	bench_report("key g (first event)", "key_g", g, gc, m);

	/* v: the pane beside the list, every kind in turn, from the middle */
	size_t nv = 6 * 10;
	double *pv = xcalloc(nv, sizeof *pv), *pc = xcalloc(nv, sizeof *pc);
	replay_goto(rp, rp->cx.run->nev / 2);
	replay_draw(rp);
	for (size_t k = 0; k < nv; k++)
		pv[k] = bench_press(rp, 'v', &pc[k]);
	bench_report("key v (next pane, whole screen)", "key_v", pv, pc, nv);
	free(v);
	free(c);
	free(g);
	free(G);
	free(gc);
	free(Gc);
	free(pv);
	free(pc);
}

/* kbtui FILE as the loop runs it: the first screen, then polls (a slice
 * read, the replay grown) each followed by a key (j, then k back) and its
 * redraw, until the file is read; the longest a key waited is the longest
 * poll plus its own time. */
static int bench_pager(const char *file, const char *keys)
{
	char *err = NULL;
	struct stat st;
	if (stat(file, &st) < 0) {
		perror(file);
		return 1;
	}
	double c0 = cpu_ms(), t0 = now_ms();
	struct parser_loader *ld = parser_loader_open(file, NULL, &err);
	if (!ld || pager_first(ld, 0, &err) < 0) {
		fprintf(stderr, "kbbench_tui: %s\n", err ? err : file);
		return 1;
	}
	struct pager *pg = pager_new(ld);
	struct run *run = parser_loader_run(ld);
	struct replay_opts o = { .feed = pager_feed(pg) };
	struct view *v = replay_view_new(run, file, &o);
	struct replay *rp = (struct replay *)v;
	erase();
	replay_draw(rp);
	double first = now_ms() - t0, first_cpu = cpu_ms() - c0;
	double kc0;
	for (const char *k = keys; k && *k; k++)  /* the layout and pane to read under */
		bench_press(rp, (unsigned char)*k, &kc0);
	/* G at once: the end read apart (its lines counted, its last MB
	 * parsed), its last event the file's last line */
	struct replay_feed *f = pager_feed(pg);
	double e0 = now_ms(), ec0 = cpu_ms();
	struct view *end = f->last(f, v);
	double end_ms = now_ms() - e0, end_cpu = cpu_ms() - ec0;
	if (end) {
		struct replay *erp = (struct replay *)end;
		const struct run *er = erp->cx.run;
		printf("RESULT pager_end ms %.2f cpu %.2f events %zu last_line %d\n", end_ms, end_cpu, er->nev,
		       er->nev ? er->ev[er->nev - 1].line : 0);
		end->ops->free(end);
	} else {
		printf("RESULT pager_end none (%s)\n", v->msg ? v->msg : "little left to read");
	}
	/* the pass that splits lines, alone: the newlines of the whole file */
	double l0 = now_ms();
	size_t lines = 0;
	linescan_count(parser_loader_fd(ld), 0, (size_t)st.st_size, &lines);
	double lms = now_ms() - l0;
	printf("RESULT pager_lines ms %.2f lines %zu gbps %.2f\n", lms, lines, (double)st.st_size / 1e6 / (lms > 0 ? lms : 1e-3));
	size_t n = 0, cap = 1024;
	double *poll = xcalloc(cap, sizeof *poll), *key = xcalloc(cap, sizeof *key), kc;
	while (!rp->feed.ended) {
		int ms;
		double p0 = cpu_ms();
		v->ops->poll(v, &ms);
		if (v->dirty)
			replay_draw(rp);
		if (n == cap) {
			cap *= 2;
			poll = xrealloc(poll, cap * sizeof *poll);
			key = xrealloc(key, cap * sizeof *key);
		}
		poll[n] = cpu_ms() - p0;
		if (getenv("KBBENCH_SLOW") && poll[n] > 50) fprintf(stderr, "slow poll %zu: %.1f ms at %zu events\n", n, poll[n], run->nev);  /* CPU: the neighbours' time slices are not the pager's */
		key[n] = bench_press(rp, n % 2 ? 'k' : 'j', &kc);
		n++;
	}
	double all = now_ms() - t0, all_cpu = cpu_ms() - c0;
	double G = bench_press(rp, 'G', &kc);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double mb = (double)st.st_size / 1e6, rss = (double)ru.ru_maxrss * 1024 / 1e6;
	printf("pager: %s, %.1f MB, %zu events\n", file, mb, run->nev);
	printf("RESULT pager_first ms %.2f cpu %.2f\n", first, first_cpu);
	double p99 = quantile(poll, n, 0.99), pmax = quantile(poll, n, 1), kmax = quantile(key, n, 1);
	printf("RESULT pager_read ms %.1f cpu %.1f polls %zu poll_cpu_p99 %.2f poll_cpu_max %.2f key_max %.2f\n", all, all_cpu, n,
	       p99, pmax, kmax);
	printf("RESULT pager_last ms %.1f G %.2f\n", all + G, G);
	printf("RESULT pager_rss mb %.1f ratio %.2f\n", rss, rss / mb);
	free(poll);
	free(key);
	v->ops->free(v);
	pager_free(pg);
	parser_loader_free(ld);
	return 0;
}

int main(int argc, char **argv)
{
	int browser = argc > 2 && !strcmp(argv[1], "browser");
	if (browser) {
		argc--;
		argv++;
	}
	if (argc < 2 || argc > 4 || (browser && argc > 3)) {
		fprintf(stderr, "usage: kbbench_tui DATASET [REPS [PRESSES]] | browser DATASET [REPS]\n");
		return 2;
	}
	int reps = argc > 2 ? atoi(argv[2]) : 10, presses = argc > 3 ? atoi(argv[3]) : 1000;
	if (reps < 1)
		reps = 1;
	if (presses < 1)
		presses = 1;
	setlocale(LC_ALL, "");
	if (strcmp(nl_langinfo(CODESET), "UTF-8"))
		setlocale(LC_ALL, "C.UTF-8");  /* as a UTF-8 terminal would be */
	unsetenv("LINES");  /* the size is the pseudo-terminal's */
	unsetenv("COLUMNS");
	signal(SIGPIPE, SIG_IGN);

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "pager")) {
		struct bench_term t;
		if (bench_term_open(&t) < 0) {
			fprintf(stderr, "kbbench_tui: cannot start curses on a pseudo-terminal\n");
			return 1;
		}
		int rc = bench_pager(argv[2], argc == 4 ? argv[3] : NULL);
		bench_term_close(&t);
		return rc;
	}
	if (browser) {
		struct bench_term t;
		if (bench_term_open(&t) < 0) {
			fprintf(stderr, "kbbench_tui: cannot start curses on a pseudo-terminal\n");
			return 1;
		}
		int rc = bench_browser(argv[1], reps);
		bench_term_close(&t);
		return rc;
	}
	char *err = NULL;
	struct dataset *ds = dataset_open(argv[1], &err);
	if (!ds) {
		fprintf(stderr, "kbbench_tui: %s\n", err);
		return 1;
	}
	long long bytes;
	long big = bench_largest(ds, &bytes);
	if (big < 0) {
		fprintf(stderr, "kbbench_tui: %s: no run has a transcript\n", argv[1]);
		return 1;
	}
	char *dir = xstrdup(ds->runs[big].transcript);
	char *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	printf("largest run: %s (%lld bytes of transcript)\n", ds->runs[big].meta.run_id, bytes);

	struct bench_term t;
	double c0 = now_ms();
	if (bench_term_open(&t) < 0) {
		fprintf(stderr, "kbbench_tui: cannot start curses on a pseudo-terminal\n");
		return 1;
	}
	double start = now_ms() - c0;
	printf("curses start (newterm on the terminal, once): %.1f ms\n", start);
	printf("RESULT curses_start ms %.1f\n", start);

	struct replay rp;
	struct run *run;
	char *file;
	bench_first(dir, reps, &rp, &run, &file);
	bench_first_browser(ds, (size_t)big, reps);
	bench_keys(&rp, presses);

	replay_free(&rp);
	run_free(run);
	free(file);
	bench_term_close(&t);
	dataset_free(ds);
	free(dir);
	return 0;
}
