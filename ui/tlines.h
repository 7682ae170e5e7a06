/* tlines.h: text laid out for a pane: safe, attributed rows of one screen
 * line each, wrapped to the pane's width. Panes build them when what they
 * show changes and draw a window of them when they scroll. */
#ifndef KB_TLINES_H
#define KB_TLINES_H

#include <stddef.h>

struct search;

#define TLINE_NO_EVENT ((size_t)-1)

struct tline {
	char *s;      /* safe text, one screen row (owned) */
	int role;
	size_t ev;    /* the event the row is about, TLINE_NO_EVENT for none */
};

struct tlines {
	struct tline *v;
	size_t n, cap;
	size_t ev;    /* event given to rows pushed from now on */
};

enum { TL_DIFF = 1 };

void tlines_clear(struct tlines *L);
/* Drops the rows from n on (a pane that appends to what it built). */
void tlines_truncate(struct tlines *L, size_t n);
void tlines_free(struct tlines *L);
/* One row of safe text as it is. */
void tlines_push(struct tlines *L, const char *s, size_t n, int role);
/* Breaks one safe line (no newline, no tab) into rows of width columns,
 * at a space when there is one in the row's second half. */
void tlines_wrap(struct tlines *L, const char *s, size_t n, int role, int width);
/* The same, rows after the first indented by hang columns (none when hang
 * is over half the width), so that a table's text column stays one. */
void tlines_wrap_hang(struct tlines *L, const char *s, size_t n, int role, int width, int hang);
/* Untrusted multi-line text, made safe, indented, tabs expanded, wrapped.
 * With TL_DIFF each line's role comes from its +/-/@@ prefix. */
void tlines_text(struct tlines *L, const char *raw, int role, int width, int indent, int flags);
/* A trusted line we compose (headings), wrapped. */
void tlines_head(struct tlines *L, int role, int width, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Draws rows [top, top+h) into the rectangle, matches of hl highlighted. */
void tlines_draw(const struct tlines *L, size_t top, int y, int x, int w, int h, struct search *hl);
/* The first row about event ev or a later one; L->n when none. */
size_t tlines_find_event(const struct tlines *L, size_t ev);

#endif
