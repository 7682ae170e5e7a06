/* export.h: the leaderboard's cells with their verdicts, one row per run,
 * as CSV (RFC 4180), a JSON array or Markdown tables, for spreadsheets,
 * scripts and the website (`kbtui export`). */
#ifndef KB_EXPORT_H
#define KB_EXPORT_H

#include <stddef.h>
#include <stdio.h>
#include "util.h"

struct dataset;

enum export_format { EXPORT_CSV, EXPORT_JSON, EXPORT_MD, EXPORT_JSONL, EXPORT_HTML };

struct export_row {
	char *run_id, *model, *harness, *problem; /* owned, NULL when unknown */
	char *label;              /* the leaderboard's row for md's grid (owned) */
	/* the rest of the run key (owned, NULL unknown): the effort, so that
	 * [xhigh] and [high] of one model stay apart (the GPU is below) */
	char *effort;
	int correct;              /* 1, 0, -1 unknown */
	double peak_fraction;     /* < 0 none */
	char *verdict, *annotator; /* from the annotation (owned), NULL none */
	/* with --full only (owned, NULL / 0 none): the annotation's summary and
	 * implication, its quotes as "FILE [START-END] LABEL: TEXT", and the
	 * shipped flag rules that trip on the transcript, "LABEL (event N)" */
	char *summary, *implication;
	char **quotes, **flags;
	size_t nquotes, nflags;
	/* the GPU of its first board (else the dataset's), its boards' files
	 * joined with "; ", the boards' verdict (owned, NULL none) */
	char *gpu, *boards, *board_verdict;
	/* with EXPORT_DETAIL, the publisher's per-run detail (rundetail.h):
	 * seconds, cost (< 0 unknown), template mutation (-1 unknown), GPU-lock
	 * wait, and the shapes as one text (owned, NULL none) */
	double agent_s, check_s, benchmark_s, cost_usd, lock_wait_s;
	int template_mutated;
	char *shapes;
	/* with --full: the claims ledger (src/claims.h), one claims_line each */
	char **claims;
	size_t nclaims;
	/* with --full: the deck its result.json records (owned, NULL none) */
	char *deck;
};

/* What the writers' `full` argument holds, as bits. */
#define EXPORT_FULL 1         /* summary, implication, quotes, flags */
#define EXPORT_BOARDS 2       /* boards, board_verdict (a dataset of several boards) */
#define EXPORT_DETAIL 4       /* the per-run detail's stats and shapes (--full, where a run has one) */

/* What export_rows reads besides the run's metadata. */
struct export_opts {
	const char *annot_dir;    /* annotations from here (NULL: the dataset's) */
	int full;                 /* summary, implication, quotes and flags too */
	const char *board, *gpu;  /* only the runs of these boards (NULL: all) */
};

/* "csv", "json", "jsonl", "md" (also "markdown") or "html"; -1 otherwise. */
int export_format_parse(const char *s);

/* One row per run of ds (of the boards o selects), in the dataset's order. Annotations that cannot
 * be read are reported in *warn (owned, one a line, NULL when none) and
 * give no verdict. */
struct export_row *export_rows(struct dataset *ds, const struct export_opts *o, size_t *n, char **warn);
/* Whether a row has per-run detail (then --full adds its columns). */
int export_rows_detail(const struct export_row *rows, size_t n);
void export_rows_free(struct export_row *rows, size_t n);

/* The columns: run_id, model, harness, problem, correct, peak_fraction,
 * verdict (the annotation's, else the boards'), annotator, label, effort,
 * gpu (the last three after the first eight, so that a reader by position
 * still works); with EXPORT_BOARDS boards, board_verdict; with EXPORT_FULL
 * also summary, implication, quotes, flags, claims
 * (lists joined with "; " in csv and md, arrays of strings in json). */
void export_csv(struct sbuf *b, const struct export_row *rows, size_t n, int full);
void export_json(struct sbuf *b, const struct export_row *rows, size_t n, int full);
/* The same objects as JSON Lines, one a line (--format jsonl). */
void export_jsonl(struct sbuf *b, const struct export_row *rows, size_t n, int full);
/* The runs table, then a models x problems table of peak_fraction with
 * verdict marks. */
void export_md(struct sbuf *b, const struct export_row *rows, size_t n, int full);

/* Appends s as one CSV field: quoted when it holds a comma, quote, CR or
 * LF, quotes doubled (RFC 4180); a ' put before a value that begins with
 * =, +, -, @, tab or CR so that no spreadsheet runs it as a formula.
 * NULL: empty. */
void export_csv_field(struct sbuf *b, const char *s);

/* kbtui export --format csv|json|md [--full] [--annotations DIR] [DIR]; argv[0] is "export", argv0
 * the program's (to find the default dataset). Exit status as in cmd.h. */
int cmd_export(int argc, char **argv, const char *argv0, FILE *out, FILE *err);

#endif
