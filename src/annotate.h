/* annotate.h: the one place that changes a run's annotation file
 * (annotations/<run_id>.yaml); the TUI's tagging, its quotes and
 * `kbtui annotate` all go through it.
 *
 * One call does one change: load the file (or start a new document), fill
 * run_id, model, harness, effort, problem and peak_fraction from the run
 * where the document lacks them (existing values and key order are left
 * alone), apply the change, optionally stamp annotator + updated, check it
 * against the schema, and write it atomically under the file's lock,
 * refusing when the file changed on disk since it was read. What was there
 * before is kept in an undo record that can put it back. */
#ifndef KB_ANNOTATE_H
#define KB_ANNOTATE_H

#include <stddef.h>
#include <stdio.h>
#include "annot.h"
#include "run.h"

/* What to change; NULL (or 0) fields leave the document as it is. */
struct annotate_change {
	const char *verdict;
	const char *summary;
	const char *implication;
	/* a quote appended under `quotes` when quote_file is set: lines
	 * [quote_start, quote_end], 1-indexed and inclusive, text verbatim */
	const char *quote_file;
	int quote_start, quote_end;
	const char *quote_label, *quote_text;
	/* any other change, called after the fields above on the loaded
	 * document (e.g. annot_set of another key) */
	void (*edit)(struct annot *a, void *ctx);
	void *ctx;
	/* when set, `annotator` is set to it and `updated` to now (ISO 8601 UTC) */
	const char *annotator;
	/* write even when the schema check finds errors (work in progress in
	 * the TUI); the messages still come back. 0: errors mean no write */
	int allow_errors;
};

/* What a write replaced; annotate_undo puts it back. */
struct annotate_undo {
	char *path;               /* owned */
	int existed;              /* 0: the file was new, undo removes it */
	char *before;             /* previous bytes (owned; NULL when !existed) */
	size_t before_len;
	char *after;              /* bytes written (owned): undo refuses when */
	size_t after_len;         /* the file no longer holds exactly these */
};

enum annotate_status {
	ANNOTATE_OK = 0,          /* written (there may still be warnings) */
	ANNOTATE_INVALID = 1,     /* schema errors, nothing written */
	ANNOTATE_IOERR = -1,      /* unreadable, unwritable, changed on disk, bad run id */
};

struct annotate_result {
	char *path;               /* the annotation file (owned) */
	char *msgs;               /* annot_check messages, one a line (owned, NULL when none) */
	int errors;               /* schema errors among msgs (warnings not counted) */
	char *err;                /* why nothing was written (owned), NULL when written
	                           * or when only the schema refused (see msgs) */
	struct annotate_undo *undo; /* owned; NULL unless written */
};

/* annotations/<run_id>.yaml under dir (owned); NULL when run_id is empty
 * or could escape the directory ('/', leading '.'). */
char *annotate_path(const char *annot_dir, const char *run_id);

/* Applies ch to the annotation of the run described by meta (meta->run_id
 * is required) in annot_dir, which must exist. Fills *res (call
 * annotate_result_free afterwards in every case). */
enum annotate_status annotate_apply(const char *annot_dir, const struct run_meta *meta,
                                    const struct annotate_change *ch,
                                    struct annotate_result *res);
void annotate_result_free(struct annotate_result *res);

/* Restores the bytes before the change (or removes a file that was new),
 * atomically and under the lock; refuses when the file changed since the
 * change was written. 0 ok, -1 with *err (owned) naming the file. */
int annotate_undo(const struct annotate_undo *u, char **err);
void annotate_undo_free(struct annotate_undo *u);

/* kbtui annotate RUN --verdict V [--summary TEXT] [--implication TEXT]
 * [--annotations DIR] [--annotator NAME] [DIR]; argv[0] is "annotate",
 * argv0 the program's (to find the default dataset). Exit status as in
 * cmd.h: 0 written, 1 schema or I/O errors, 2 usage. */
int cmd_annotate(int argc, char **argv, const char *argv0, FILE *out, FILE *err);

/* Current time as ISO 8601 UTC, "2026-04-28T04:05:39Z", into buf (>= 21). */
void annotate_now(char *buf, size_t n);

#endif
