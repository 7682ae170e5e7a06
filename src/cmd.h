/* cmd.h: the headless subcommands. They print to out, report problems to
 * err naming file and line, and return the exit status:
 * 0 ok, 1 bad input, 2 usage error. */
#ifndef KB_CMD_H
#define KB_CMD_H

#include <stdio.h>

enum { CMD_OK = 0, CMD_BADINPUT = 1, CMD_USAGE = 2 };

int cmd_runs(const char *dir, int json, FILE *out, FILE *err);
/* path: a run directory or a transcript file; format NULL to sniff. */
int cmd_dump(const char *path, const char *format, int jsonl, FILE *out, FILE *err);
/* The formats this build parses, one per line. */
int cmd_formats(FILE *out);

/* kbtui annotations check DIR: schema errors and warnings of every file. */
int cmd_annot_check(const char *dir, FILE *out, FILE *err);
/* kbtui annotations agree DIR_A DIR_B: confusion table and Cohen's kappa. */
int cmd_annot_agree(const char *dir_a, const char *dir_b, FILE *out, FILE *err);

/* One JSON text and a newline, with DEL and the C1 controls escaped as
 * \u00XX too (cJSON passes them raw; a terminal would act on an 8-bit CSI). */
void cmd_put_json(FILE *out, const char *json);

/* `kbtui flags [--rules FILE] [--json] [DIR|RUN]`; argv[0] is "flags". */
int cmd_flags(int argc, char **argv, FILE *out, FILE *err);
/* `kbtui search [-i] [-l] [-c] [--format FMT] REGEX [DIR]`; argv[0] is "search". */
int cmd_search(int argc, char **argv, FILE *out, FILE *err);

/* `kbtui sweep ...` (see src/sweep.h); argv[0] is "sweep". */
int cmd_sweep(int argc, char **argv, FILE *out, FILE *err);

#endif
