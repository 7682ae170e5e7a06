/* draw.h: putting safe text on the screen, cut by display width, in a
 * role's colours; and making untrusted text safe first. Every string that
 * came from a transcript or the dataset goes through draw_safe (or
 * draw_first_line, or tlines_text) before it is drawn. */
#ifndef KB_DRAW_H
#define KB_DRAW_H

#include <stddef.h>

struct search;

/* What changed since the last redraw; each view redraws only those parts. */
enum {
	D_HEADER = 1, D_LIST = 2, D_DETAIL = 4, D_STATUS = 8,
	D_ALL = 15,
};

/* Draws safe text at (y, x) in at most w columns; returns the columns used. */
int draw_put(int y, int x, int w, const char *s, int role);
/* Like draw_put, ending with an ellipsis when s does not fit. */
int draw_fit(int y, int x, int w, const char *s, int role);
/* Like draw_fit, the cut in the middle: names that differ at their end
 * (a model under a long provider path, a run id) stay told apart. */
int draw_fit_mid(int y, int x, int w, const char *s, int role);
/* Like draw_put, for untrusted text. */
int draw_untrusted(int y, int x, int w, const char *s, int role);
/* Like draw_put, with the matches of hl (may be NULL) in the match role. */
int draw_put_hl(int y, int x, int w, const char *s, int role, struct search *hl);
void draw_fill(int y, int x, int w, int role);
/* A whole row in one role: text on the left, and right-aligned text when
 * there is room for it. */
void draw_bar(int y, int role, const char *left, const char *right);
/* Like draw_bar, the left text after its first head bytes cut in the
 * middle when both do not fit, so that the right text stays (while the
 * left keeps 20 columns). */
void draw_bar_cut(int y, int role, const char *left, size_t head, const char *right);

/* A filter every string passes on its way to the screen (blind mode masks
 * model names with it): returns an owned replacement, or NULL to keep s.
 * NULL: none. */
void draw_set_filter(char *(*filter)(const char *s));

/* Safe one-line copy of untrusted s; NULL gives "". Owned by the caller. */
char *draw_safe(const char *s);
/* Safe copy of the first non-blank line of s, at most about cap bytes. */
char *draw_first_line(const char *s, size_t cap);
/* Display width of safe text. */
size_t draw_width(const char *s);
/* Bytes of the UTF-8 character at s (1 for a stray byte). */
size_t draw_u8len(const char *s, size_t n);
/* Elapsed time: 42s, 12:03, 1:02:03. */
void draw_duration(char *buf, size_t n, double seconds);

#endif
