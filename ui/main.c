/* main.c: the command line: the table of commands, and the TUI for a
 * dataset, run or transcript when no command is named. A command is one
 * file (src/cmd_*.c, or ui/cmd_*.c when it has a screen) defining a
 * `const struct cmd_entry`, and one line of KBTUI_COMMANDS below; --help,
 * `kbtui CMD --help` and the man page check come from the entries. */
#include "config.h"
#include "textsafe.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cmd_screen.h"
#include "dataset.h"
#include "pager.h"
#include "parser.h"
#include "suggest.h"
#include "tui.h"
#include "tui_entry.h"
#include "util.h"

/* Every command, in the order --help lists them: one line each. */
#define KBTUI_COMMANDS(X) \
	X(runs) \
	X(dump) \
	X(watch) \
	X(formats) \
	X(annotations) \
	X(annotate) \
	X(export) \
	X(keys) \
	X(compare) \
	X(flags) \
	X(judge) \
	X(search) \
	X(cache) \
	X(fetch) \
	X(eval) \
	X(live) \
	X(sweep) \
	X(help) \
	/* end */

#define KBTUI_DECLARE(n) extern const struct cmd_entry cmd_##n##_entry;
KBTUI_COMMANDS(KBTUI_DECLARE)
#define KBTUI_REGISTER(n) &cmd_##n##_entry,
static const struct cmd_entry *const kbtui_commands[] = { KBTUI_COMMANDS(KBTUI_REGISTER) NULL };

/* ---- kbtui --help ---------------------------------------------------- */

static const char main_about[] =
	"\n"
	"Replay and browse AI agent runs of KernelBench-Hard (GPU kernel writing).\n"
	"PATH is a dataset directory (run browser), a run directory, a transcript\n"
	"file or a run id (straight into its replay). Without PATH: the dataset the\n"
	"working directory is in, else $KBTUI_DATA, else a fetched dataset, else the\n"
	"bundled sample. A word that names a command is the command: a folder\n"
	"named like one is ./NAME.\n"
	"\n"
	"Commands:\n";

static const char main_options[] =
	"\n"
	"Options of the browser and the replay (kbtui [OPTIONS] [PATH]):\n"
	CMD_SCREEN_HELP
	"  --annotations DIR  where annotation files are written and their verdicts\n"
	"                  read (default: the dataset's annotations/)\n"
	"  --annotator NAME  recorded as annotator in each annotation written\n"
	"                  (default $KBTUI_ANNOTATOR)\n"
	"  --blind         start in blind mode (models and harnesses hidden)\n"
	"  --board B, --gpu G  start on that board's runs, or those of the boards\n"
	"                  on that GPU (as kbtui runs; d cycles the boards)\n"
	"  --event N       open the run's replay at event N (also PATH@N)\n"
	"  -h, --help      show this help and exit\n"
	"  -V, --version   show the version and exit\n"
	"\n"
	"kbtui COMMAND --help describes a command, its arguments and options.\n"
	"Exit status: 0 ok, 1 bad input (the message names file and line), 2 usage.\n"
	"See kbtui(1).\n";

static void main_usage(FILE *out)
{
	fputs("Usage: kbtui [OPTIONS] [PATH]\n", out);
	cmd_usage_lines(kbtui_commands, out);
	fputs(main_about, out);
	cmd_list(kbtui_commands, out);
	fputs(main_options, out);
}

static int cmd_help_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	if (argc > 2)
		return cmd_usage_error(ctx->err, "help", "takes one COMMAND, got '%s' too", argv[2]);
	if (argc == 1) {
		main_usage(ctx->out);
		return CMD_OK;
	}
	const struct cmd_entry *e = cmd_lookup(ctx->table, argv[1]);
	if (!e) {
		const char *hint = cmd_suggest(ctx->table, argv[1]);
		char *fmt = hint ? xasprintf("no command '%%s'; did you mean '%s'?", hint)
		                 : xstrdup("no command '%s' (kbtui --help lists them)");
		int rc = cmd_usage_error(ctx->err, "help", fmt, argv[1]);
		free(fmt);
		return rc;
	}
	cmd_help(e, ctx->out);
	return CMD_OK;
}

const struct cmd_entry cmd_help_entry = {
	.name = "help",
	.usage = "[COMMAND]",
	.summary = "this help, or a command's",
	.help = "",
	.exec = cmd_help_exec,
};

/* ---- the browser and the replay -------------------------------------- */

enum { OPT_THEME = 256, OPT_NO_MOUSE, OPT_ANNOTATIONS, OPT_ANNOTATOR, OPT_BLIND, OPT_BOARD, OPT_GPU, OPT_EVENT };

static const struct option main_opts[] = {
	{"format", required_argument, NULL, 'f'},
	{"theme", required_argument, NULL, OPT_THEME},
	{"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
	{"annotations", required_argument, NULL, OPT_ANNOTATIONS},
	{"annotator", required_argument, NULL, OPT_ANNOTATOR},
	{"blind", no_argument, NULL, OPT_BLIND},
	{"board", required_argument, NULL, OPT_BOARD},
	{"gpu", required_argument, NULL, OPT_GPU},
	{"event", required_argument, NULL, OPT_EVENT},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

struct main_cli {
	struct cmd_screen scr;  /* --format, --theme, --no-mouse */
	struct tui_tagging tag; /* --annotations, --annotator, --blind */
	const char *path;       /* NULL: the default dataset */
	char *path_buf;         /* PATH of PATH@N (owned), NULL */
};

/* Whether a word that is no command names a path or a run. */
static int main_names_something(const char *word, const char *argv0)
{
	if (strchr(word, '/') || util_is_file(word) || util_is_dir(word))
		return 1;
	struct cmd_run cr;
	if (cmd_run_resolve(word, NULL, argv0, &cr, NULL) < 0)
		return 0;
	cmd_run_free(&cr);
	return 1;
}

static int main_usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "kbtui: ");
	textsafe_fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'kbtui --help'.\n");
	return CMD_USAGE;
}

static int main_unknown_option(const char *arg)
{
	char *hint = suggest_option(main_opts, arg);
	char *fmt = hint ? xasprintf("unknown option '%%s'; did you mean '%s'?", hint) : NULL;
	int rc = main_usage_error(fmt ? fmt : "unknown option '%s'", arg);
	free(fmt);
	free(hint);
	return rc;
}

/* Returns -1 when parsing succeeded, else the exit status. */
/* "123" -> 123; 0 for anything else (events count from 1). */
static size_t main_event_number(const char *s)
{
	char *end;
	if (!*s || *s < '0' || *s > '9')
		return 0;
	unsigned long long v = strtoull(s, &end, 10);
	return *end || v > (size_t)-1 / 2 ? 0 : (size_t)v;
}

/* PATH@N, a link to one event: the path without @N (kept in c->path_buf),
 * N in c->tag.event. A path that exists as written is not split. -1: the
 * part after @ is no event number. */
static int main_split_event(struct main_cli *c)
{
	const char *at = strrchr(c->path, '@');
	if (!at || util_is_file(c->path) || util_is_dir(c->path))
		return 0;
	size_t ev = main_event_number(at + 1);
	if (!ev)
		return -1;
	c->path_buf = xstrndup(c->path, (size_t)(at - c->path));
	c->path = c->path_buf;
	c->tag.event = ev;
	return 0;
}

static int main_parse(struct main_cli *c, int argc, char **argv)
{
	int ch;
	memset(c, 0, sizeof *c);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":f:hV", main_opts, NULL)) != -1) {
		switch (ch) {
		case 'f': c->scr.format = optarg; break;
		case OPT_THEME: c->scr.theme = optarg; break;
		case OPT_NO_MOUSE: c->scr.no_mouse = 1; break;
		case OPT_ANNOTATIONS: c->tag.dir = optarg; break;
		case OPT_ANNOTATOR: c->tag.annotator = optarg; break;
		case OPT_BLIND: c->tag.blind = 1; break;
		case OPT_BOARD: c->tag.board = optarg; break;
		case OPT_GPU: c->tag.gpu = optarg; break;
		case OPT_EVENT:
			if (!(c->tag.event = main_event_number(optarg)))
				return main_usage_error("--event takes an event number from 1, not '%s'", optarg);
			break;
		case 'h': main_usage(stdout); return CMD_OK;
		case 'V': printf("kbtui %s\n", PACKAGE_VERSION); return CMD_OK;
		case ':': return main_usage_error("option '%s' needs an argument", argv[optind - 1]);
		default: return main_unknown_option(argv[optind - 1]);
		}
	}
	if (argc - optind > 1 && !main_names_something(argv[optind], argv[0]))  /* "kbtui stats run.jsonl" */
		return main_usage_error("'%s' is not a command (nor a file or a run); kbtui --help lists the commands",
		                        argv[optind]);
	if (argc - optind > 1)
		return main_usage_error("one PATH at most, got '%s' too", argv[optind + 1]);
	c->path = optind < argc ? argv[optind] : NULL;
	if (c->path && main_split_event(c) < 0)
		return main_usage_error("an event number from 1 after @, not '%s'", strrchr(c->path, '@') + 1);
	if (c->scr.format && !parser_find(c->scr.format)) {
		char *f = cmd_format_unknown(c->scr.format);
		int rc = main_usage_error(f, c->scr.format);
		free(f);
		return rc;
	}
	if (!c->tag.annotator)
		c->tag.annotator = getenv("KBTUI_ANNOTATOR");
	return -1;
}

static int main_need_terminal(void)
{
	if (isatty(STDIN_FILENO) && isatty(STDOUT_FILENO))
		return 0;
	fprintf(stderr, "kbtui: the browser needs a terminal; use 'kbtui runs' or 'kbtui dump' in scripts\n");
	return 1;
}

/* The browser over the dataset at dir, the run open at index open (-1:
 * none). */
static int main_browse(const char *dir, const struct tui_tagging *tg, long open)
{
	char *err = NULL;
	/* result.json of each run later: the first screen of 14,000 runs waits for none */
	struct dataset *ds = dataset_open_lazy(dir, &err);
	if (!ds) {
		textsafe_fprintf(stderr, "kbtui: %s\n", err);
		free(err);
		return CMD_BADINPUT;
	}
	const struct ds_select sel = { tg->board, tg->gpu };
	if (dataset_select_check(ds, &sel, &err) < 0) {
		textsafe_fprintf(stderr, "kbtui: %s\n", err);
		free(err);
		dataset_free(ds);
		return CMD_BADINPUT;
	}
	int rc = main_need_terminal() ? CMD_USAGE : tui_browse(ds, tg, open);
	dataset_free(ds);
	return rc;
}

/* The replay of one transcript outside any dataset; a file that is no
 * transcript kbtui knows is an error here, not an empty replay. The file
 * is read as a pager reads: the first slices before the first screen (up
 * to the event asked for), the rest between keys. */
static int main_replay(const char *file, const char *format, size_t event)
{
	char *err = NULL;
	struct parser_loader *ld = parser_loader_open(file, format ? parser_find(format) : NULL, &err);
	int rc = ld ? pager_first(ld, event ? event - 1 : 0, &err) : -1;
	struct run *r = ld ? parser_loader_run(ld) : NULL;
	/* without a terminal there is no screen to open reading: the file
	 * is judged first, as a whole load would */
	while (rc > 0 && r->nev == 0 && !(isatty(STDIN_FILENO) && isatty(STDOUT_FILENO)))
		rc = parser_loader_step(ld, 4u << 20, &err);
	if (rc < 0) {
		textsafe_fprintf(stderr, "kbtui: %s\n", err);
		free(err);
		parser_loader_free(ld);
		return CMD_BADINPUT;
	}
	/* the first screen waits for a few megabytes only: a big file with no
	 * event in them opens reading, and is judged once read */
	int judged = rc == 0 || r->nev > 0;
	if (judged && cmd_not_a_transcript(r, file, stderr)) {
		cmd_report_run(r, stderr);
		rc = CMD_BADINPUT;
	} else if (main_need_terminal()) {
		rc = CMD_USAGE;
	} else if (rc == 0) {
		rc = tui_replay_at(r, file, event ? event - 1 : 0);
	} else {
		rc = pager_replay(ld, file, event ? event - 1 : 0);
		if (!judged && parser_loader_over(ld) && cmd_not_a_transcript(r, file, stderr)) {
			cmd_report_run(r, stderr);  /* the screen said so too */
			rc = CMD_BADINPUT;
		}
	}
	parser_loader_free(ld);
	return rc;
}

static int main_tui(const struct main_cli *c, const char *argv0)
{
	int rc;
	if ((rc = cmd_screen_prepare(&c->scr, stderr)) >= 0)
		return rc;
	if (!c->path) {
		char *def = cmd_default_dataset(argv0, NULL);
		rc = main_browse(def, &c->tag, -1);
		free(def);
		return rc;
	}
	if (cmd_is_dataset(c->path))
		return main_browse(c->path, &c->tag, -1);
	struct stat pst;
	if (stat(c->path, &pst) == 0 && S_ISFIFO(pst.st_mode))  /* a pipe: kbtui <(zcat run.jsonl.gz) */
		return main_replay(c->path, c->scr.format, c->tag.event);
	if (!util_is_file(c->path) && !util_is_dir(c->path)) {
		/* a path (run ids have no slash and no .json ending) that is not
		 * there is not looked for as a run of the default dataset */
		struct stat st;
		size_t len = strlen(c->path);
		int pathy = strchr(c->path, '/') || (len > 5 && !strcmp(c->path + len - 5, ".json")) ||
		            (len > 6 && !strcmp(c->path + len - 6, ".jsonl"));
		if (pathy && stat(c->path, &st) < 0) {
			textsafe_fprintf(stderr, "kbtui: %s: %s\n", c->path, strerror(errno));
			return CMD_BADINPUT;
		}
		/* a run id or a prefix of one: the browser with that run open */
		struct cmd_run cr;
		if (cmd_run_resolve(c->path, NULL, argv0, &cr, stderr) < 0)
			return CMD_BADINPUT;
		rc = main_need_terminal() ? CMD_USAGE : tui_browse(cr.ds, &c->tag, cr.idx);
		cmd_run_free(&cr);
		return rc;
	}
	/* a run of a dataset (its directory or its transcript): the browser
	 * with it open, so the replay has its metadata and annotation */
	struct dataset *ds = NULL;
	long in_ds = c->scr.format ? -1 : cmd_run_in_dataset(c->path, &ds);
	if (in_ds >= 0) {
		rc = main_need_terminal() ? CMD_USAGE : tui_browse(ds, &c->tag, in_ds);
		dataset_free(ds);
		return rc;
	}
	char *file = util_is_dir(c->path) ? dataset_find_transcript(c->path) : xstrdup(c->path);
	if (!file) {
		textsafe_fprintf(stderr, "kbtui: %s: not a dataset (no runs.jsonl or runs/) and no transcript in it\n", c->path);
		return CMD_BADINPUT;
	}
	rc = main_replay(file, c->scr.format, c->tag.event);
	free(file);
	return rc;
}

/* ---- dispatch --------------------------------------------------------- */

/* Whether the option argv[i] of the browser takes the next argument. */
static int main_opt_takes_arg(const char *a)
{
	return !strcmp(a, "-f") || !strcmp(a, "--format") || !strcmp(a, "--theme") ||
	       !strcmp(a, "--annotations") || !strcmp(a, "--annotator");
}

/* The index of the first word that is not an option, 0 when none. */
static int main_first_word(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return i + 1 < argc ? i + 1 : 0;
		if (argv[i][0] != '-' || !argv[i][1])
			return i;
		if (main_opt_takes_arg(argv[i]))
			i++;
	}
	return 0;
}

/* A word in the place of a command that is a typo of one ("anotate"), no
 * file and no run: says which command was meant; -1 when it is not such. */
static int main_typo(const char *word, const char *argv0)
{
	const char *hint = cmd_suggest(kbtui_commands, word);
	if (!hint || main_names_something(word, argv0))
		return -1;
	char *safe = textsafe(word, strlen(word), 0);
	textsafe_fprintf(stderr, "kbtui: '%s' is not a command (nor a file or a run); did you mean '%s'?\n"
	        "Try 'kbtui --help'.\n", safe, hint);
	free(safe);
	return CMD_USAGE;
}

/* A closed standard descriptor would be taken by the next file opened (an
 * annotation written through "stdout"): it gets /dev/null, read-only, so
 * that writing to it fails as writing to a closed one does. */
static void main_std_fds(void)
{
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0) {
			int nfd = open("/dev/null", O_RDONLY);
			if (nfd >= 0 && nfd != fd) {
				dup2(nfd, fd);
				close(nfd);
			}
		}
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	main_std_fds();
	struct cmd_ctx ctx = { stdout, stderr, argv[0], kbtui_commands };
	int w = main_first_word(argc, argv);
	const struct cmd_entry *e = w ? cmd_lookup(kbtui_commands, argv[w]) : NULL;
	if (e) {
		/* the command's name first, the options before it after */
		char **av = xcalloc((size_t)argc + 1, sizeof *av);
		int n = 0;
		av[n++] = argv[w];
		for (int i = 1; i < argc; i++)
			if (i != w)
				av[n++] = argv[i];
		int rc = cmd_dispatch(e, n, av, &ctx);
		free(av);
		return rc;
	}
	int rc;
	if (w && (rc = main_typo(argv[w], argv[0])) >= 0)
		return rc;
	struct main_cli c;
	rc = main_parse(&c, argc, argv);
	if (rc < 0)
		rc = main_tui(&c, argv[0]);
	free(c.path_buf);
	if (cmd_write_failed(stdout, stderr) && rc == CMD_OK)
		rc = CMD_BADINPUT;
	return rc;
}
