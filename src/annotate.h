/* annotate.h: the one place that changes a run's annotation file
 * (annotations/<run_id>.yaml); `kbtui annotate`, the browser, the grid and
 * the replay (ui/tag.c, the artifact pane's quotes) all call annotate_apply.
 *
 * One call does one change: one read of the file; the check that it is
 * still the version the caller showed (else a callback is asked); the
 * change made in the file's text where the values stand (yedit.h), so
 * that comments, blank lines, indentation, quoting and key order stay and
 * a one-field change is a one-line diff; the result re-parsed and checked
 * against the schema, errors the file already had kept as they were and
 * named, only an error the change brings refused; one atomic write under
 * the file's lock, refused when the bytes changed since the read. A new
 * file gets run_id, model, harness, effort, problem and peak_fraction from
 * the run. What was there before is kept in an undo record. */
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
	/* one more top-level scalar (NULL: none), e.g. reviewed_by */
	const char *set_key, *set_value;
	/* the run a new file is made for (its fields fill the header); NULL:
	 * a new file holds only the change */
	const struct run_meta *meta;
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
	ANNOTATE_INVALID = 1,     /* the change brings schema errors, nothing written */
	ANNOTATE_IOERR = -1,      /* unreadable, unwritable, changed on disk, bad run id */
};

struct annotate_result {
	char *path;               /* the annotation file (owned) */
	char *msgs;               /* schema messages, one a line (owned, NULL when none) */
	int errors;               /* schema errors the change brought (warnings not counted) */
	int kept;                 /* errors the file had before, kept as they were (a warning) */
	int needs_implication;    /* refused because the verdict needs an implication and
	                           * there is none: the field to ask for */
	struct annot_version version; /* of the file as written */
	char *err;                /* why nothing was written (owned), NULL when written
	                           * or when only the schema refused (see msgs) */
	struct annotate_undo *undo; /* owned; NULL unless written */
};

/* annotations/<run_id>.yaml under dir (owned); NULL when run_id is empty
 * or could escape the directory ('/', leading '.'). */
char *annotate_path(const char *annot_dir, const char *run_id);

/* Asked when the file is no longer the version the caller showed: 1 to
 * write over it anyway. question: the file and why (not terminal-safe). */
struct annotate_confirm {
	int (*ask)(void *ctx, const char *question);
	void *ctx;
};

/* Applies ch to the annotation file path (its directory must exist).
 * expected: the version the caller showed (NULL: no check), confirm: who
 * decides when it changed (NULL: refused). Fills *res (call
 * annotate_result_free afterwards in every case). */
enum annotate_status annotate_apply(const char *path, const struct annotate_change *ch,
                                    const struct annot_version *expected,
                                    const struct annotate_confirm *confirm, struct annotate_result *res);
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
