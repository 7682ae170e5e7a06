/* cmd.h: the subcommands. Each is one file defining a `const struct
 * cmd_entry` (name, usage, summary, help, exec), registered by one line of
 * the table in ui/main.c; `kbtui --help`, `kbtui CMD --help` and the man
 * page check (tests/test_manpage.sh) come from the entries. The headless
 * ones live here (src/cmd_*.c, no curses), those with a screen in ui/.
 * Commands print to out, report problems to err naming file and line, and
 * return the exit status: 0 ok, 1 bad input, 2 usage error. */
#ifndef KB_CMD_H
#define KB_CMD_H

#include <stdio.h>

enum { CMD_OK = 0, CMD_BADINPUT = 1, CMD_USAGE = 2 };

struct cmd_entry;

/* What every command is handed besides its arguments (all borrowed). */
struct cmd_ctx {
	FILE *out, *err;
	const char *argv0;                       /* the program, as run */
	const struct cmd_entry *const *table;    /* every command, NULL-ended */
};

struct cmd_entry {
	const char *name;     /* "runs" */
	/* the forms after "kbtui NAME ", one per line ("[--json] [DIR]") */
	const char *usage;
	/* one line: the list in `kbtui --help`, and the first line of the
	 * command's item in the man page's COMMANDS (the test checks both) */
	const char *summary;
	/* the rest of `kbtui NAME --help`: arguments and options, "  --opt  text"
	 * lines as in `kbtui --help` */
	const char *help;
	/* argv[0] is the name; options are the command's own (getopt_long with
	 * optind reset). --help never reaches it: cmd_dispatch answers it. */
	int (*exec)(int argc, char **argv, const struct cmd_ctx *ctx);
	/* the exit status of trouble such as a write error: 1, or 2 where 1
	 * means something else (search: no match) */
	int trouble;
};

/* The entry named name in table, NULL when none. */
const struct cmd_entry *cmd_lookup(const struct cmd_entry *const *table, const char *name);
/* `kbtui NAME --help`. */
void cmd_help(const struct cmd_entry *e, FILE *out);
/* The usage lines and the list of commands, for `kbtui --help`. */
void cmd_usage_lines(const struct cmd_entry *const *table, FILE *out);
void cmd_list(const struct cmd_entry *const *table, FILE *out);
/* Runs the command of argv[0] (NULL-ended argv): `--help` anywhere before
 * "--" prints its help; then its exec; a write error on out (a full disk,
 * a closed pipe) turns into a non-zero status with a message. */
int cmd_dispatch(const struct cmd_entry *e, int argc, char **argv, const struct cmd_ctx *ctx);
/* Whether out failed (flushed first); says so on err naming what. */
int cmd_write_failed(FILE *out, FILE *err);
/* "kbtui NAME: <fmt with arg>" and "Try 'kbtui NAME --help'."; CMD_USAGE. */
int cmd_usage_error(FILE *err, const char *name, const char *fmt, const char *arg);
/* "kbtui NAME: unknown option 'ARG'", with "did you mean '--X'?" when one
 * of opts (getopt_long's table) is a typo away; CMD_USAGE. */
struct option;
int cmd_unknown_option(FILE *err, const char *name, const char *arg, const struct option *opts);
/* The words after "unknown format '%s'" for a --format name that is none:
 * "; did you mean 'claude'?" when one is a typo away, else " (kbtui
 * formats lists them)". A printf format of one %s (owned). */
char *cmd_format_unknown(const char *name);
/* Whether arg is a typo of one of opts' long options. */
int cmd_option_typo(const struct option *opts, const char *arg);
/* "kbtui NAME: no problem 'P' in DIR", with "did you mean 'Q'?" when a
 * problem there is a typo away. */
void cmd_no_problem(FILE *err, const char *name, const char *dir, const char *problem);
/* The command of table closest to word (a typo of it), NULL when none. */
const char *cmd_suggest(const struct cmd_entry *const *table, const char *word);

/* ---- the dataset and the run a command works on ---------------------- */

struct dataset;
struct run;

/* A directory kbtui reads as a dataset: runs.jsonl or runs/ in it. */
int cmd_is_dataset(const char *dir);
/* The dataset of a command given no DIR: the one the working directory is
 * in (it or a parent is a dataset), else $KBTUI_DATA, a fetched one, the
 * bundled sample. Says on err which one it took when that is not the
 * working directory itself ("kbtui: dataset: PATH (why)"); err NULL: quiet.
 * Owned. */
char *cmd_default_dataset(const char *argv0, FILE *err);
/* dir, or the default dataset when dir is NULL; NULL (with the message on
 * err) when it cannot be opened. */
struct dataset *cmd_open_dataset(const char *dir, const char *argv0, FILE *err);

/* DATASET/runs/ID (or a file in it): its dataset (*dsp, owned) and the
 * run's index; -1 and *dsp NULL when path is not a run of a dataset. */
long cmd_run_in_dataset(const char *path, struct dataset **dsp);
/* The run of ds named by id or by a prefix of one id only; -1 (with a
 * message on err naming the candidates) when none or several match. */
long cmd_find_run(const struct dataset *ds, const char *id, FILE *err);

/* A run as commands take it: a run id, a unique prefix of one (in the
 * dataset dir, or the default one), a run directory or a transcript. */
struct cmd_run {
	struct dataset *ds;   /* owned; NULL for a run outside any dataset */
	long idx;             /* its index in ds, -1 when ds is NULL */
	char *transcript;     /* owned; NULL when the run has none */
	char *name;           /* owned: the run id, else the path as given */
};
/* 0, or -1 with the message on err (NULL: quiet). A path that exists is
 * a path; other words are run ids. */
int cmd_run_resolve(const char *arg, const char *dir, const char *argv0, struct cmd_run *cr, FILE *err);
void cmd_run_free(struct cmd_run *cr);

/* The file holds no transcript kbtui knows (r parsed from it with no
 * format recognised and no event, and the file is not blank): says so on
 * err naming the file, and returns 1. */
int cmd_not_a_transcript(const struct run *r, const char *file, FILE *err);

/* ---- pieces the commands share ---------------------------------------- */

/* kbtui runs, kbtui dump, kbtui formats as functions (tests call them);
 * json and jsonl are an enum cmd_out (1: JSON Lines, 2: one array). */
int cmd_runs(const char *dir, int json, int count, FILE *out, FILE *err);
/* kbtui runs with its options: json, a board/GPU selection, --boards,
 * count (--count-events: transcripts the cache does not know are read). */
struct cmd_runs_opts {
	int json, boards, count;
	const char *board, *gpu;  /* NULL: any */
};
int cmd_runs_sel(const char *dir, const struct cmd_runs_opts *o, FILE *out, FILE *err);
/* path: a run directory or a transcript file; format NULL to sniff. */
int cmd_dump(const char *path, const char *format, int jsonl, FILE *out, FILE *err);
/* cmd_dump reading slice bytes at a time (0: its default), or with slice
 * (size_t)-1 the whole run loaded first, as dump did before it streamed:
 * for tests that hold the two to the same output. */
int cmd_dump_how(const char *path, const char *format, int jsonl, size_t slice, FILE *out, FILE *err);
int cmd_formats(FILE *out);
/* kbtui annotations check DIR: schema errors and warnings of every file. */
int cmd_annot_check(const char *dir, FILE *out, FILE *err);
/* kbtui annotations agree DIR_A DIR_B: confusion table and Cohen's kappa. */
int cmd_annot_agree(const char *dir_a, const char *dir_b, FILE *out, FILE *err);

/* The malformed lines of r, "FILE:LINE: message", on err. */
void cmd_report_run(const struct run *r, FILE *err);

/* One JSON text and a newline, with DEL, C1, line separators and bidi
 * overrides escaped as \uXXXX and invalid UTF-8 as \ufffd (cJSON passes
 * them raw; a terminal would act on an 8-bit CSI). */
void cmd_put_json(FILE *out, const char *json);

/* The one rule of JSON output: --jsonl prints JSON Lines (one object a
 * line, for streams and grep), --json one JSON document (an array of the
 * same objects, for jq and files). */
enum cmd_out { CMD_OUT_TEXT = 0, CMD_OUT_JSONL = 1, CMD_OUT_JSON = 2 };
struct cmd_json_list {
	FILE *out;
	enum cmd_out mode;   /* CMD_OUT_JSONL or CMD_OUT_JSON */
	size_t n;            /* items written */
};
/* One object of the list, made safe as cmd_put_json makes it. */
void cmd_json_item(struct cmd_json_list *l, const char *json);
/* Closes the array of CMD_OUT_JSON ("[]" when empty); nothing for lines. */
void cmd_json_end(struct cmd_json_list *l);

/* `kbtui flags [--rules FILE] [--json] [DIR|RUN]`; argv[0] is "flags". */
int cmd_flags(int argc, char **argv, FILE *out, FILE *err);
int cmd_judge(int argc, char **argv, const char *argv0, FILE *out, FILE *err);
/* kbtui search --judge: cmd_judge with argv a judge --question line, its
 * exit status search's: 0 the model named a place (or --dry-run), 1 none,
 * 2 trouble (usage, no key, the server's error). */
int cmd_judge_search(int argc, char **argv, const char *argv0, FILE *out, FILE *err);
/* `kbtui search [-i] [-l] [-c] [--format FMT] REGEX [DIR]`, or --judge
 * QUESTION (cmd_judge_search); argv[0] is "search". */
int cmd_search(int argc, char **argv, const char *argv0, FILE *out, FILE *err);

/* `kbtui sweep ...` (see src/sweep.h); argv[0] is "sweep". */
int cmd_sweep(int argc, char **argv, FILE *out, FILE *err);

#endif
