/* draw.c: safe text onto the screen, cut by display width. */
#include "config.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "search.h"
#include "textsafe.h"
#include "theme.h"
#include "util.h"

size_t draw_u8len(const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];
	size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 :
	             (c & 0xF8) == 0xF0 ? 4 : 1;
	return len > n ? n : len;
}

char *draw_safe(const char *s)
{
	return s ? textsafe(s, strlen(s), 0) : xstrdup("");
}

char *draw_first_line(const char *s, size_t cap)
{
	if (!s)
		return xstrdup("");
	while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
		s++;
	size_t n = strcspn(s, "\n");
	if (n > cap) {
		n = cap;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return textsafe(s, n, 0);
}

size_t draw_width(const char *s)
{
	return textsafe_width(s, strlen(s));
}

void draw_duration(char *buf, size_t n, double seconds)
{
	long s = seconds < 0 ? 0 : (long)(seconds + 0.5);
	if (s < 60)
		snprintf(buf, n, "%lds", s);
	else if (s < 3600)
		snprintf(buf, n, "%ld:%02ld", s / 60, s % 60);
	else
		snprintf(buf, n, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
}

/* Bytes of s that fit in w columns; *used gets their width. */
static size_t draw_span(const char *s, size_t n, int w, int *used)
{
	size_t i = 0;
	*used = 0;
	while (i < n) {
		size_t cl = draw_u8len(s + i, n - i);
		int cw = (int)textsafe_width(s + i, cl);
		if (*used + cw > w)
			break;
		*used += cw;
		i += cl;
	}
	return i;
}

static char *(*draw_filter)(const char *s);

void draw_set_filter(char *(*filter)(const char *s))
{
	draw_filter = filter;
}

int draw_put(int y, int x, int w, const char *s, int role)
{
	int used;
	if (w <= 0)
		return 0;
	char *f = draw_filter ? draw_filter(s) : NULL;
	if (f)
		s = f;
	size_t i = draw_span(s, strlen(s), w, &used);
	attrset(theme_attr(role));
	mvaddnstr(y, x, s, (int)i);
	attrset(A_NORMAL);
	free(f);
	return used;
}

int draw_fit(int y, int x, int w, const char *s, int role)
{
	if (w <= 1 || (int)draw_width(s) <= w)
		return draw_put(y, x, w, s, role);
	int used = draw_put(y, x, w - 1, s, role);
	return used + draw_put(y, x + used, 1, theme_glyph()->more, role);
}

int draw_fit_mid(int y, int x, int w, const char *s, int role)
{
	if (w <= 2 || (int)draw_width(s) <= w)
		return draw_fit(y, x, w, s, role);
	/* filtered whole first: blind mode must see a model name before the cut */
	char *f = draw_filter ? draw_filter(s) : NULL;
	if (f)
		s = f;
	if ((int)draw_width(s) <= w) {  /* the mask made it short enough */
		int used = draw_put(y, x, w, s, role);
		free(f);
		return used;
	}
	size_t n = strlen(s), i = 0;
	int total = (int)draw_width(s), head = (w - 1) * 2 / 5, tail = w - 1 - head, seen = 0;
	while (i < n && total - seen > tail) {  /* the tail starts where what is left fits */
		size_t cl = draw_u8len(s + i, n - i);
		seen += (int)textsafe_width(s + i, cl);
		i += cl;
	}
	char *h = xstrndup(s, draw_span(s, n, head, &head));
	int used = draw_put(y, x, head, h, role);
	used += draw_put(y, x + used, 1, theme_glyph()->more, role);
	used += draw_put(y, x + used, w - used, s + i, role);
	free(h);
	free(f);
	return used;
}

int draw_untrusted(int y, int x, int w, const char *s, int role)
{
	char *t = draw_safe(s);
	int used = draw_put(y, x, w, t, role);
	free(t);
	return used;
}

/* Draws s[0..n) at (y, x) in at most w columns. */
static int draw_piece(int y, int x, int w, const char *s, size_t n, int role)
{
	int used;
	if (w <= 0 || n == 0)
		return 0;
	size_t i = draw_span(s, n, w, &used);
	attrset(theme_attr(role));
	mvaddnstr(y, x, s, (int)i);
	attrset(A_NORMAL);
	return used;
}

int draw_put_hl(int y, int x, int w, const char *s, int role, struct search *hl)
{
	size_t n, at = 0, so, eo;
	int used = 0;
	if (!hl)
		return draw_put(y, x, w, s, role);
	char *f = draw_filter ? draw_filter(s) : NULL;
	if (f)  /* highlight what is shown */
		s = f;
	n = strlen(s);
	while (at < n && used < w && search_next(hl, s, n, at, &so, &eo)) {
		if (eo == so) {  /* an empty match marks nothing; look past it */
			eo = so + draw_u8len(s + so, n - so);
			used += draw_piece(y, x + used, w - used, s + at, eo - at, role);
			at = eo;
			continue;
		}
		used += draw_piece(y, x + used, w - used, s + at, so - at, role);
		used += draw_piece(y, x + used, w - used, s + so, eo - so, RL_MATCH);
		at = eo;
	}
	if (at < n && used < w)
		used += draw_piece(y, x + used, w - used, s + at, n - at, role);
	free(f);
	return used;
}

void draw_fill(int y, int x, int w, int role)
{
	if (w > 0)
		mvhline(y, x, ' ' | theme_attr(role), w);
}

void draw_bar_cut(int y, int role, const char *left, size_t head, const char *right)
{
	int lw = (int)draw_width(left), rw = right ? (int)draw_width(right) : 0, keep = COLS - rw - 3;
	if (!right || rw + lw + 2 < COLS || keep < 20 || head > strlen(left)) {
		draw_bar(y, role, left, right);
		return;
	}
	draw_fill(y, 0, COLS, role);
	char *h = xstrndup(left, head);
	int used = draw_put(y, 0, keep, h, role);
	free(h);
	draw_fit_mid(y, used, keep - used, left + head, role);
	draw_put(y, COLS - rw, rw, right, role);
}

void draw_bar(int y, int role, const char *left, const char *right)
{
	draw_fill(y, 0, COLS, role);
	int used = draw_put(y, 0, COLS, left, role);
	if (right) {
		int rw = (int)draw_width(right);
		if (rw < COLS - used - 2)
			draw_put(y, COLS - rw, rw, right, role);
	}
}
