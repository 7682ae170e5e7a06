/* quote.h: an annotation's quotes and where they came from. A quote is
 * lines of a file the agent wrote (annotations/SCHEMA.md: file, lines,
 * label, text); the event that wrote them is the first that made a version
 * of that file holding the quoted lines, else the first event whose text
 * (a tool call's decoded arguments, a result, a patch) holds them. */
#ifndef KB_QUOTE_H
#define KB_QUOTE_H

#include <stddef.h>

struct annot;
struct run;

/* One quote of an annotation; strings borrowed from it. */
struct quote {
	const char *file;    /* NULL when absent */
	const char *label;
	const char *text;
	int start, end;      /* the `lines: [s, e]` or `[n]` (then start == end), 0 when absent */
	int nlines;          /* how many numbers `lines` holds: 1 ([n]), 2 ([s, e]), 0 none or not a list of one or two */
	int line;            /* where the quote is in the YAML file (1-based) */
};

/* The quotes of a, in order: a new array (free it) and their count in *n. */
struct quote *quote_list(const struct annot *a, size_t *n);

/* Where a quote is, said one way in the annotation pane, the exports and
 * `annotations check --quotes`: "solution.py [2-6]", "solution.py [12]",
 * "[12]" (no file), "solution.py" (no lines), "(no file)". Owned, raw. */
char *quote_where(const struct quote *q);

/* Whether hay (len bytes) holds the lines of q one after another, each
 * compared without its leading and trailing blanks (an annotation's YAML
 * block loses the file's indentation); blank lines at q's ends do not
 * count. A q of blank lines only is in nothing. */
int quote_in(const char *hay, size_t len, const char *q);

enum quote_how {
	QUOTE_NONE,   /* no event holds the lines */
	QUOTE_FILE,   /* a version of a file the run wrote */
	QUOTE_EVENT,  /* an event's own text */
	QUOTE_LINE,   /* the transcript event from the line the quote cites */
};

struct quote_src {
	enum quote_how how;
	long ev;             /* the event, -1 with QUOTE_NONE */
	const char *path;    /* QUOTE_FILE: the file as the run names it (borrowed from the run) */
};

/* Where quote text (of file, NULL: any) came from in run r: a version of
 * the file whose path ends in file first (any written file when none
 * does), then the events' text. Returns out->how. */
enum quote_how quote_find(struct run *r, const char *file, const char *text, struct quote_src *out);

/* Where quote q of an annotation of run r came from: a quote of the
 * transcript (transcript.jsonl, or the run's own transcript file) maps to
 * the event the first line it cites produced; any other to the event that
 * wrote its text (quote_find). Returns out->how; with QUOTE_NONE, *why
 * says why not (static). */
enum quote_how quote_map(struct run *r, const struct quote *q, struct quote_src *out, const char **why);

/* Event i's text as the replay shows it decoded (its text, each decoded
 * argument, its result; not the path or a rendered diff), a newline after
 * each part: what a quote of that event holds (owned). */
char *quote_event_text(const struct run *r, size_t i);

#endif
