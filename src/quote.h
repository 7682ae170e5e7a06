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
	int start, end;      /* the `lines: [s, e]`, 0 when absent */
};

/* The quotes of a, in order: a new array (free it) and their count in *n. */
struct quote *quote_list(const struct annot *a, size_t *n);

/* Whether hay (len bytes) holds the lines of q one after another, each
 * compared without its leading and trailing blanks (an annotation's YAML
 * block loses the file's indentation); blank lines at q's ends do not
 * count. A q of blank lines only is in nothing. */
int quote_in(const char *hay, size_t len, const char *q);

enum quote_how {
	QUOTE_NONE,   /* no event holds the lines */
	QUOTE_FILE,   /* a version of a file the run wrote */
	QUOTE_EVENT,  /* an event's own text */
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

#endif
