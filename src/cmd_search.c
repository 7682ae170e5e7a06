/* cmd_search.c: `kbtui search`: grep over every run of a dataset. An
 * event's text is its parts in the order flag_fields walks them (text, each
 * argument, path, diff), lines numbered on across the parts. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "dataset.h"
#include "flags.h"
#include "ftrack.h"
#include "parser.h"
#include "runtext.h"
#include "idcache.h"
#include "runcount.h"
#include "search.h"
#include "textsafe.h"
#include "util.h"

extern const struct cmd_entry cmd_search_entry;

/* grep's statuses: a match, none, trouble */
enum { SEARCH_FOUND = 0, SEARCH_NONE = 1, SEARCH_TROUBLE = 2 };

struct cmd_search {
	struct search *s;
	int list, count;
	FILE *out;
	char *run_id;             /* owned: the run's id, made safe to show */
	size_t hits;              /* lines of the run being searched */
};

/* text made safe to show, as textsafe makes it: printable ASCII is itself
 * there, so the run of it a line nearly always is goes out as it is */
static void cmd_search_put(FILE *out, const char *text, size_t len)
{
	size_t k = 0;
	while (k < len && (unsigned char)text[k] >= 0x20 && (unsigned char)text[k] < 0x7f)
		k++;
	fwrite(text, 1, k, out);
	if (k < len) {
		char *t = textsafe(text + k, len - k, 0);
		fputs(t, out);
		free(t);
	}
}

static int cmd_search_line(void *ud, size_t ev, int line, const char *text, size_t len)
{
	struct cmd_search *c = ud;
	if (c->list)
		return 1;  /* one is enough */
	if (!c->count) {
		/* "id:event:line: ", without printf: a common search prints
		 * thousands of lines */
		char num[48], *p = num + sizeof num;
		*--p = ' ';
		*--p = ':';
		for (unsigned long v = (unsigned long)(line > 0 ? line : 0);; v /= 10) {
			*--p = (char)('0' + v % 10);
			if (v < 10)
				break;
		}
		*--p = ':';
		for (size_t v = ev + 1;; v /= 10) {
			*--p = (char)('0' + v % 10);
			if (v < 10)
				break;
		}
		*--p = ':';
		fputs(c->run_id, c->out);
		fwrite(p, 1, (size_t)(num + sizeof num - p), c->out);
		cmd_search_put(c->out, text, len);
		putc('\n', c->out);
	}
	return 0;
}

/* A run's search: begun, its text grepped (in one piece, or slice by
 * slice as it is read), ended with -l's id or -c's count; 1 when it
 * matched. */
static void cmd_search_begin(struct cmd_search *c, const char *run_id)
{
	c->run_id = textsafe(run_id, strlen(run_id), 0);
	c->hits = 0;
}

static void cmd_search_grep(struct cmd_search *c, const struct runtext *t)
{
	if (!(c->list && c->hits))  /* -l: one is enough */
		c->hits += runtext_grep(c->s, t, cmd_search_line, c);
}

static int cmd_search_end(struct cmd_search *c)
{
	if (c->hits && c->list)
		fprintf(c->out, "%s\n", c->run_id);
	else if (c->hits && c->count)
		fprintf(c->out, "%s:%zu\n", c->run_id, c->hits);
	free(c->run_id);
	c->run_id = NULL;
	return c->hits > 0;
}

/* Searches one run's text; 1 when it matched. */
static int cmd_search_run(struct cmd_search *c, const struct runtext *t, const char *run_id)
{
	cmd_search_begin(c, run_id);
	cmd_search_grep(c, t);
	return cmd_search_end(c);
}

/* ---- a run read as a stream ----------------------------------------------------
 * A run the cache does not know is read a slice at a time: the events
 * each slice settles (reader_settled: no later line changes their text)
 * are searched, their text is added to the cache entry being written, and
 * dropped, so that the memory a search takes follows the number of events,
 * not the transcript's text (issue #28). The lines and their order are a
 * whole load's (test_runtext holds the two to it). */
struct cmd_stream {
	struct cmd_search *c;      /* NULL: nothing is searched */
	struct runtext_writer *w;  /* NULL: nothing is cached */
	size_t done;               /* events searched and dropped */
};

static void cmd_search_settled(void *arg, struct run *r, size_t settled)
{
	struct cmd_stream *st = arg;
	if (settled <= st->done)
		return;
	struct runtext *t = runtext_events(r, st->done, settled);
	if (st->c)  /* (a helper fills the cache only) */
		cmd_search_grep(st->c, t);
	runtext_writer_add(st->w, t);
	runtext_free(t);
	for (; st->done < settled; st->done++)
		run_event_drop_text(&r->ev[st->done]);
	ftrack_forget(r->files, st->done);
}

/* Reads and searches file (begun: cmd_search_begin), its entry written when
 * key allows and kept when it is a transcript. The run, its text dropped,
 * or NULL with *e (owned) when it cannot be read. */
static struct run *cmd_search_stream(struct cmd_search *c, const char *file, const struct parser_ops *as,
                                     const struct runtext_key *key, char **e)
{
	struct cmd_stream st = { c, runtext_writer_new(file, as ? as->name : NULL, key), 0 };
	struct run *r = parser_load_stream(file, as, e, 0, NULL, cmd_search_settled, &st);
	runtext_writer_end(st.w, r && r->meta.format);  /* (a file no format reads: read and named each time) */
	return r;
}

/* Whether a freshly read run is no transcript at all (no format fits,
 * and the file is not blank): stderr says so, as dump does, and there is
 * nothing to search. Malformed lines of a transcript are not reported: a
 * warm search, from the cache, would not see them. */
static int cmd_search_unreadable(const struct run *r, const char *file, FILE *err)
{
	if (!cmd_not_a_transcript(r, file, err))
		return 0;
	if (r->malformed)  /* the line that failed says why */
		cmd_report_run(r, err);
	return 1;
}


/* The pattern, case ignored with -i; an error names the offset in the
 * pattern as typed. */
static struct search *cmd_search_compile(const char *pat, int icase, char **err)
{
	if (!icase)
		return search_new(pat, err);
	char *p = xasprintf("(?i)%s", pat);
	struct search *s = *pat ? search_new(p, err) : NULL;
	free(p);
	if (!s) {
		free(*err);
		s = search_new(pat, err);  /* fails the same way, at its own offsets */
		if (s) {
			search_free(s);
			s = NULL;
			*err = xstrdup("bad regular expression");
		}
	}
	return s;
}

/* The transcript of path when it is one run rather than a dataset (a
 * transcript file, or a directory with no runs.jsonl or runs/ and one
 * transcript); owned, NULL for a dataset. */
static char *cmd_search_one_file(const char *path)
{
	if (util_is_file(path))
		return xstrdup(path);
	char *idx = util_path_join(path, "runs.jsonl"), *runs = util_path_join(path, "runs");
	int dataset = !util_is_dir(path) || util_is_file(idx) || util_is_dir(runs);
	free(idx);
	free(runs);
	return dataset ? NULL : dataset_find_transcript(path);
}

/* Searches the one run of file; it is named as its directory (a run
 * directory's name is the run id) or, given as a file, by the file. */
static int cmd_search_file(struct cmd_search *c, const char *file, const char *path,
                           const struct parser_ops *fmt, FILE *err)
{
	char *e = NULL, *name = xstrdup(path);
	size_t n = strlen(name);
	while (n > 1 && name[n - 1] == '/')
		name[--n] = '\0';
	const char *base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	struct runtext_key key;
	struct runtext *t = runtext_load(file, fmt ? fmt->name : NULL, &key);
	int rc = SEARCH_TROUBLE;
	if (t) {
		rc = cmd_search_run(c, t, base) ? SEARCH_FOUND : SEARCH_NONE;
		runtext_free(t);
		free(name);
		return rc;
	}
	cmd_search_begin(c, base);
	struct run *r = cmd_search_stream(c, file, fmt, &key, &e);
	if (!r) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
	} else if (!cmd_search_unreadable(r, file, err)) {
		rc = SEARCH_NONE;
	}
	if (cmd_search_end(c))
		rc = SEARCH_FOUND;
	run_free(r);
	free(name);
	return rc;
}

/* ---- a second core ------------------------------------------------------------ */

/* While the search goes through the runs from the first, parsing those the
 * cache does not know, helper processes (one a core but the search's, 7 at
 * most) take runs from the last backwards and keep each one's text in the
 * cache, until they meet the search: a cold search over a dataset takes
 * about half the time on two cores, its output the same (the search reads,
 * in order, what the helpers kept). The page they share: [0] the run the
 * search is at, [1] stop, [2] the next run a helper takes, counting down. */
#define CMD_HELPERS_MAX 7

struct cmd_helper {
	pid_t pid[CMD_HELPERS_MAX];
	int n;
	volatile size_t *at;
	int fd;                       /* the helper's counts, "RUN FIGURES\n" a run; -1: none */
	struct sbuf got;              /* what was read of them, a line not yet whole */
	struct dataset *ds;           /* borrowed, with the counts table */
	struct idcache *counts;
};

/* The format dataset_load reads run d as: the index's, when known. */
static const struct parser_ops *cmd_search_as(const struct parser_ops *fmt, const struct ds_run *d)
{
	return fmt ? fmt : d->meta.format ? parser_find(d->meta.format) : NULL;
}

static void cmd_helper_work(struct dataset *ds, const struct parser_ops *fmt, volatile size_t *at, int out)
{
	for (;;) {
		size_t i = __atomic_sub_fetch(&at[2], 1, __ATOMIC_RELAXED);   /* (wraps below 0: caught as past the search) */
		if (__atomic_load_n(&at[1], __ATOMIC_RELAXED) || i >= ds->nruns || i <= __atomic_load_n(&at[0], __ATOMIC_RELAXED))
			break;
		struct ds_run *d = &ds->runs[i];
		if (!d->transcript || (!fmt && !dataset_transcript_inside(ds, i)))
			continue;
		const struct parser_ops *as = cmd_search_as(fmt, d);
		if (runtext_have(d->transcript, as ? as->name : NULL))
			continue;   /* (reading it would only check what the search checks) */
		struct runtext_key key = { .ok = 0 };
		struct runtext *t = runtext_load(d->transcript, as ? as->name : NULL, &key);
		if (!t && key.ok && (fmt || dataset_loadable(ds, i))) {
			/* read as the search reads it, as a stream, with nothing to grep */
			char *e = NULL;
			struct run *r = cmd_search_stream(NULL, d->transcript, as, &key, &e);
			free(e);
			if (r && !fmt) {   /* kbtui runs's figures, kept by the search (one writer of the table) */
				struct runcount n;
				runcount_of(r, &n);
				dprintf(out, "%zu %zu %zu %d %d %d %s\n", i, n.events, n.tools, n.malformed, n.incomplete,
				        n.approx, n.format);
			}
			run_free(r);
		}
		runtext_free(t);
	}
	_exit(0);
}

/* Starts the helper when there is a cache to fill and more runs after
 * this one (it starts at the first run the cache does not know, so that a
 * warm search never forks); one that cannot start is no loss. */
static void cmd_helper_start(struct cmd_helper *h, struct dataset *ds, const struct parser_ops *fmt,
                             struct idcache *counts)
{
	int p[2];
	char *dir = ds->nruns > 1 ? idcache_dir("text") : NULL;
	if (!dir)
		return;
	free(dir);
	void *m = mmap(NULL, 3 * sizeof(size_t), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return;
	if (pipe(p) < 0) {
		munmap(m, 3 * sizeof(size_t));
		return;
	}
	h->at = m;
	h->at[2] = ds->nruns;
	h->ds = ds;
	h->counts = counts;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	int want = cores > CMD_HELPERS_MAX + 1 ? CMD_HELPERS_MAX : cores > 2 ? (int)cores - 1 : 1;
	fflush(NULL);   /* nothing buffered is written twice */
	for (h->n = 0; h->n < want; h->n++) {
		pid_t pid = fork();
		if (pid == 0) {
			close(p[0]);
			int null = open("/dev/null", O_RDWR);
			for (int k = 1; k < 3 && null >= 0; k++)
				dup2(null, k);   /* it never speaks: the search says what is wrong */
			cmd_helper_work(ds, fmt, h->at, p[1]);   /* (lines under PIPE_BUF: whole) */
		}
		if (pid < 0)
			break;
		h->pid[h->n] = pid;
	}
	close(p[1]);
	h->fd = p[0];
	fcntl(h->fd, F_SETFL, O_NONBLOCK);
	if (!h->n) {
		close(h->fd);
		h->fd = -1;
	}
}

/* The helper's counts read so far (to its end when wait), kept. */
static void cmd_helper_drain(struct cmd_helper *h, int wait)
{
	char buf[4096];
	ssize_t k;
	if (h->fd < 0)
		return;
	if (wait)
		fcntl(h->fd, F_SETFL, 0);
	while ((k = read(h->fd, buf, sizeof buf)) > 0 || (k < 0 && errno == EINTR))
		if (k > 0)
			sbuf_add(&h->got, buf, (size_t)k);
	char *p = h->got.s, *nl;
	for (; p && (nl = memchr(p, '\n', h->got.len - (size_t)(p - h->got.s))); p = nl + 1) {
		*nl = '\0';
		struct runcount n = { .format = "" };
		size_t i;
		if (sscanf(p, "%zu %zu %zu %d %d %d %31s", &i, &n.events, &n.tools, &n.malformed, &n.incomplete, &n.approx,
		           n.format) >= 6 && i < h->ds->nruns)
			runcount_keep(h->counts, &h->ds->runs[i], &n);
	}
	if (p && p > h->got.s) {
		size_t rest = h->got.len - (size_t)(p - h->got.s);
		memmove(h->got.s, p, rest);
		h->got.len = rest;
		h->got.s[rest] = '\0';
	}
}

static void cmd_helper_at(struct cmd_helper *h, size_t i)
{
	if (h->at)
		__atomic_store_n(&h->at[0], i, __ATOMIC_RELAXED);
	cmd_helper_drain(h, 0);
}

/* Stops the helpers (after the run each is on: an entry is renamed into
 * place whole) and waits for them. */
static void cmd_helper_stop(struct cmd_helper *h)
{
	if (h->n) {
		__atomic_store_n(&h->at[1], 1, __ATOMIC_RELAXED);
		cmd_helper_drain(h, 1);   /* to its end: every helper has exited */
		for (int k = 0; k < h->n; k++)
			while (waitpid(h->pid[k], NULL, 0) < 0 && errno == EINTR)
				;
	}
	if (h->fd >= 0)
		close(h->fd);
	sbuf_free(&h->got);
	if (h->at)
		munmap((void *)h->at, 3 * sizeof(size_t));
}

/* --judge QUESTION: kbtui judge --question over DIR or RUN (the model
 * names the places that answer it); jargs: the judge's options given. */
static int cmd_search_judge(const char *question, const char **jargs, int nj, int regex_opts, int argc, char **argv,
                            const char *argv0, FILE *out, FILE *err)
{
	if (!question || regex_opts || argc > 1) {
		textsafe_fprintf(err, "kbtui search: %s\nTry 'kbtui search --help'.\n",
		                 !question ? "--model, --provider, --base-url and --dry-run go with --judge QUESTION"
		                 : regex_opts ? "-i, -l, -c and --format are for a REGEX, not --judge"
		                              : "--judge QUESTION takes one DIR or RUN at most, no REGEX");
		return SEARCH_TROUBLE;
	}
	char *def = argc ? NULL : cmd_default_dataset(NULL, err);
	if (!argc && !def)
		return SEARCH_TROUBLE;
	const char *jv[24];
	int n = 0;
	jv[n++] = "judge";
	jv[n++] = "--question";
	jv[n++] = question;
	for (int i = 0; i < nj; i++)
		jv[n++] = jargs[i];
	jv[n++] = argc ? argv[0] : def;
	jv[n] = NULL;
	int rc = cmd_judge_search(n, (char **)jv, argv0, out, err);
	free(def);
	return rc;
}

int cmd_search(int argc, char **argv, const char *argv0, FILE *out, FILE *err)
{
	enum { O_JUDGE = 256, O_MODEL, O_PROVIDER, O_BASE_URL, O_DRY };
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"judge", required_argument, NULL, O_JUDGE},
		{"model", required_argument, NULL, O_MODEL},
		{"provider", required_argument, NULL, O_PROVIDER},
		{"base-url", required_argument, NULL, O_BASE_URL},
		{"dry-run", no_argument, NULL, O_DRY},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *judge = NULL, *jargs[16];
	int nj = 0, judged = 0;
	struct cmd_search c = { .out = out };
	const char *format = NULL;
	int icase = 0, ch;
	/* a search can print a line for most of a dataset (78 MB at 14k runs):
	 * into a file or a pipe, in 256 kB writes rather than 4 kB ones (a
	 * fifth of a warm search's system time); nothing was written yet */
	static char outbuf[256 << 10];
	if (out == stdout && !isatty(fileno(stdout)))
		setvbuf(stdout, outbuf, _IOFBF, sizeof outbuf);
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+ilcf:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'i': icase = 1; break;
		case 'l': c.list = 1; break;
		case 'c': c.count = 1; break;
		case 'f': format = optarg; break;
		case O_JUDGE: judge = optarg; judged = 1; break;
		case O_MODEL:
		case O_PROVIDER:
		case O_BASE_URL:
		case O_DRY:
			if (nj > 12)
				break;  /* each given once is all the judge reads */
			jargs[nj++] = ch == O_MODEL ? "--model" : ch == O_PROVIDER ? "--provider" : ch == O_BASE_URL ? "--base-url"
			                                                                                       : "--dry-run";
			if (ch != O_DRY)
				jargs[nj++] = optarg;
			judged = 1;
			break;
		case 'h': cmd_help(&cmd_search_entry, out); return SEARCH_FOUND;
		default:
			if (cmd_option_typo(opts, argv[optind - 1])) {
				cmd_unknown_option(err, "search", argv[optind - 1], opts);
				return SEARCH_TROUBLE;
			}
			textsafe_fprintf(err, "kbtui search: unknown option or missing argument '%s'\nTry 'kbtui search --help'.\n",
			        argv[optind - 1]);
			return SEARCH_TROUBLE;
		}
	}
	if (judged)
		return cmd_search_judge(judge, jargs, nj, icase || c.list || c.count || format, argc - optind, argv + optind,
		                        argv0, out, err);
	if (argc - optind < 1 || argc - optind > 2) {
		textsafe_fprintf(err, "kbtui search: %s\nTry 'kbtui search --help'.\n",
		        argc - optind < 1 ? "needs a REGEX" : "one REGEX and one DIR at most");
		return SEARCH_TROUBLE;
	}
	const struct parser_ops *fmt = format ? parser_find(format) : NULL;
	if (format && !fmt) {
		char *f = cmd_format_unknown(format);
		cmd_usage_error(err, "search", f, format);
		free(f);
		return SEARCH_TROUBLE;
	}
	char *e = NULL;
	c.s = cmd_search_compile(argv[optind], icase, &e);
	if (!c.s) {
		char *safe = textsafe(e, strlen(e), 0);
		textsafe_fprintf(err, "kbtui search: bad regular expression: %s\n", safe);
		free(safe);
		free(e);
		return SEARCH_TROUBLE;
	}
	char *def = argc - optind > 1 ? NULL : cmd_default_dataset(NULL, err);
	const char *dir = def ? def : argv[optind + 1];
	char *one = cmd_search_one_file(dir);
	if (one) {  /* a run directory or a transcript: that run alone */
		int rc = cmd_search_file(&c, one, dir, fmt, err);
		free(one);
		free(def);
		search_free(c.s);
		return rc;
	}
	if (!util_is_dir(dir)) {  /* a run id or a prefix of one: that run alone */
		struct cmd_run cr;
		int rc = SEARCH_TROUBLE;
		if (cmd_run_resolve(dir, NULL, NULL, &cr, err) == 0) {
			if (cr.transcript)
				rc = cmd_search_file(&c, cr.transcript, cr.name, fmt, err);
			else
				textsafe_fprintf(err, "kbtui: %s: this run has no transcript in the dataset\n", cr.name);
		}
		cmd_run_free(&cr);
		search_free(c.s);
		return rc;
	}
	struct dataset *ds = dataset_open_runs(dir, &e);  /* verdicts unused */
	int rc = SEARCH_NONE;
	if (!ds) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		rc = SEARCH_TROUBLE;
	}
	/* a run parsed here gives `kbtui runs` its counts too */
	struct idcache *counts = ds && !fmt ? runcount_open(ds) : NULL;
	struct cmd_helper helper = { .n = 0, .fd = -1 };
	sbuf_init(&helper.got);
	int helped = 0;
	for (size_t i = 0; ds && i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		cmd_helper_at(&helper, i);
		if (!d->transcript)
			continue;
		const struct parser_ops *as = cmd_search_as(fmt, d);
		struct runtext_key key = { .ok = 0 };
		struct runtext *t = NULL;
		/* the cache only for a transcript dataset_load would read (inside
		 * the dataset; with --format it reads any) */
		if (fmt || dataset_transcript_inside(ds, i))
			t = runtext_load(d->transcript, as ? as->name : NULL, &key);
		if (!t && !helped++) {  /* the first run to parse: the cache is cold, a helper is worth its start */
			cmd_helper_start(&helper, ds, fmt, counts);
			cmd_helper_at(&helper, i);
		}
		if (t) {
			if (cmd_search_run(&c, t, d->meta.run_id))
				rc = SEARCH_FOUND;
			runtext_free(t);
			continue;
		}
		if (!fmt && !dataset_loadable(ds, i)) {  /* as dataset_load would refuse it */
			textsafe_fprintf(err, "kbtui: %s\n", d->load_error);
			continue;
		}
		cmd_search_begin(&c, d->meta.run_id);
		struct run *r = cmd_search_stream(&c, d->transcript, as, &key, &e);
		if (!r) {
			textsafe_fprintf(err, "kbtui: %s\n", e);
			free(e);
			e = NULL;
		} else {
			runcount_put(counts, d, r);
			cmd_search_unreadable(r, d->transcript, err);
		}
		if (cmd_search_end(&c))
			rc = SEARCH_FOUND;
		run_free(r);
	}
	cmd_helper_stop(&helper);
	idcache_free(counts);
	dataset_free(ds);
	free(def);
	search_free(c.s);
	return rc;
}

static int cmd_search_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_search(argc, argv, ctx->argv0, ctx->out, ctx->err);
}

const struct cmd_entry cmd_search_entry = {
	.name = "search",
	.usage = "[-i] [-l] [-c] [--format FMT] REGEX [DIR|RUN]\n"
	         "--judge QUESTION --model MODEL [--provider openai|anthropic]\n"
	         " [--base-url URL] [--dry-run] [DIR|RUN]",
	.summary = "every line of every run that matches a regular expression",
	.help = "Prints run_id:event:line: text for every line of every event of every\n"
	        "run of the dataset DIR (default: the one the working directory is in,\n"
	        "else the default one) that matches REGEX (PCRE2; all lower case: case\n"
	        "ignored). RUN, a run id, a unique prefix, a run directory or a\n"
	        "transcript: that run alone.\n"
	        "  -i              ignore case\n"
	        "  -l              the ids of the matching runs only\n"
	        "  -c              the number of matching lines per run\n"
	        "  -f, --format FMT  read the transcripts as FMT\n"
	        "  --judge QUESTION  a semantic search instead: each run, condensed, is sent\n"
	        "                  to MODEL as kbtui judge --question does (its keys, costs\n"
	        "                  and tokens said before and after); the places that\n"
	        "                  answer QUESTION as RUN:EVENT: \"QUOTE\" WHY, each quote\n"
	        "                  checked against the run; nothing kept\n"
	        "  --model MODEL, --provider P, --base-url URL, --dry-run  with --judge:\n"
	        "                  as kbtui judge\n"
	        "Exit status: 0 a match, 1 none, 2 bad regular expression or usage, or the\n"
	        "one run searched is no transcript (a dataset's is named, and skipped) (with\n"
	        "--judge: 0 also with --dry-run; 2 also no key or the model's error).\n",
	.exec = cmd_search_exec,
	.trouble = 2,
};
