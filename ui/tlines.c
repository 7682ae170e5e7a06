/* tlines.c: wrapped, attributed rows of safe text. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "textsafe.h"
#include "theme.h"
#include "tlines.h"
#include "util.h"

void tlines_clear(struct tlines *L)
{
	for (size_t i = 0; i < L->n; i++)
		free(L->v[i].s);
	L->n = 0;
	L->ev = TLINE_NO_EVENT;
}

void tlines_truncate(struct tlines *L, size_t n)
{
	for (size_t i = n; i < L->n; i++)
		free(L->v[i].s);
	if (n < L->n)
		L->n = n;
}

void tlines_free(struct tlines *L)
{
	tlines_clear(L);
	free(L->v);
	L->v = NULL;
	L->cap = 0;
}

void tlines_push(struct tlines *L, const char *s, size_t n, int role)
{
	if (L->n == L->cap) {
		L->cap = L->cap ? L->cap * 2 : 64;
		L->v = xrealloc(L->v, L->cap * sizeof *L->v);
	}
	L->v[L->n].s = xstrndup(s, n);
	L->v[L->n].role = role;
	L->v[L->n].ev = L->ev;
	L->n++;
}

void tlines_wrap(struct tlines *L, const char *s, size_t n, int role, int width)
{
	tlines_wrap_hang(L, s, n, role, width, 0);
}

/* How many bytes of s[0..n) the next row of width columns takes: up to a
 * space in the row's second half when the line goes on, at least one
 * character. Looks at one row's worth of text only. */
static size_t tlines_row_len(const char *s, size_t n, int width)
{
	size_t i = 0, brk = 0;
	int w = 0;
	if (!n)
		return 0;
	while (i < n) {
		size_t cl = draw_u8len(s + i, n - i);
		int cw = (int)textsafe_width(s + i, cl);
		if (w + cw > width)
			break;
		w += cw;
		i += cl;
		if (s[i - 1] == ' ' && w > width / 2)
			brk = i;
	}
	if (i < n && brk)
		return brk;
	if (i == 0)  /* one character wider than the pane */
		return draw_u8len(s, n);
	return i;
}

/* One pass over the line, each row built once: time linear in n, no
 * recursion (a one-line event of megabytes is a hundred thousand rows). */
void tlines_wrap_hang(struct tlines *L, const char *s, size_t n, int role, int width, int hang)
{
	if (width < 1)
		width = 1;
	if (hang < 0 || hang > width / 2)  /* a narrow pane: the text's width matters more */
		hang = 0;
	size_t take = tlines_row_len(s, n, width);
	tlines_push(L, s, take, role);
	s += take;
	n -= take;
	if (!n)
		return;
	struct sbuf b;
	sbuf_init(&b);
	while (n > 0) {  /* continuation rows: under the first row's text */
		take = tlines_row_len(s, n, width - hang);
		sbuf_reset(&b);
		sbuf_addf(&b, "%*s", hang, "");
		sbuf_add(&b, s, take);
		tlines_push(L, b.s, b.len, role);
		s += take;
		n -= take;
	}
	sbuf_free(&b);
}

static int tlines_diff_role(const char *s)
{
	if (!strncmp(s, "+++", 3) || !strncmp(s, "---", 3))
		return RL_DIFF_META;
	if (s[0] == '+')
		return RL_DIFF_ADD;
	if (s[0] == '-')
		return RL_DIFF_DEL;
	if (!strncmp(s, "@@", 2))
		return RL_DIFF_HUNK;
	return RL_NORMAL;
}

void tlines_text(struct tlines *L, const char *raw, int role, int width, int indent, int flags)
{
	char *t = textsafe(raw ? raw : "", raw ? strlen(raw) : 0, TS_KEEP_NL | TS_KEEP_TAB);
	struct sbuf line;
	char *p = t;
	sbuf_init(&line);
	for (;;) {
		size_t n = strcspn(p, "\n");
		sbuf_reset(&line);
		for (int k = 0; k < indent; k++)
			sbuf_addc(&line, ' ');
		size_t col = 0;  /* column within the source line, for tab stops */
		for (size_t i = 0; i < n; i++) {
			if (p[i] == '\t') {
				do {
					sbuf_addc(&line, ' ');
				} while (++col % 8);
			} else {
				sbuf_addc(&line, p[i]);
				if (((unsigned char)p[i] & 0xC0) != 0x80)
					col++;
			}
		}
		int r = (flags & TL_DIFF) ? tlines_diff_role(line.s + indent) : role;
		tlines_wrap(L, line.s, line.len, r, width);
		if (!p[n])
			break;
		p += n + 1;
	}
	sbuf_free(&line);
	free(t);
}

void tlines_head(struct tlines *L, int role, int width, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	va_start(ap, fmt);
	textsafe_vsnprintf(buf, sizeof buf, fmt, ap);  /* a cut falls between characters */
	va_end(ap);
	tlines_wrap(L, buf, strlen(buf), role, width);
}

void tlines_draw(const struct tlines *L, size_t top, int y, int x, int w, int h, struct search *hl)
{
	for (int r = 0; r < h; r++) {
		draw_fill(y + r, x, w, RL_NORMAL);
		size_t i = top + (size_t)r;
		if (i < L->n)
			draw_put_hl(y + r, x, w, L->v[i].s, L->v[i].role, hl);
	}
}

size_t tlines_find_event(const struct tlines *L, size_t ev)
{
	for (size_t i = 0; i < L->n; i++)
		if (L->v[i].ev != TLINE_NO_EVENT && L->v[i].ev >= ev)
			return i;
	return L->n;
}
