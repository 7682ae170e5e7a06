/* test_tlines.c: wrapping of pane text (ui/tlines.c). A one-line event of
 * megabytes once recursed a level per row and rebuilt every row a level
 * (stack overflow at 8 MB); here it must wrap in one pass and lose nothing. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "tlines.h"
#include "util.h"

/* The rows joined back, each row's first skip bytes dropped after the first. */
static char *tl_join(const struct tlines *L, size_t skip)
{
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < L->n; i++) {
		const char *s = L->v[i].s;
		sbuf_adds(&b, i && strlen(s) >= skip ? s + skip : s);
	}
	return sbuf_detach(&b);
}

static int tl_max_len(const struct tlines *L)
{
	size_t m = 0;
	for (size_t i = 0; i < L->n; i++)
		if (strlen(L->v[i].s) > m)
			m = strlen(L->v[i].s);
	return (int)m;
}

static void test_small(void)
{
	struct tlines L = {0};
	L.ev = TLINE_NO_EVENT;
	const char *s = "aaaa bbbb cccc dddd";
	tlines_wrap(&L, s, strlen(s), 0, 10);
	is_int(L.n, 2, "19 columns at width 10: two rows");
	is_str(L.n ? L.v[0].s : NULL, "aaaa bbbb ", "the first row breaks after a space in its second half");
	is_str(L.n > 1 ? L.v[1].s : NULL, "cccc dddd", "the second row has the rest");
	tlines_clear(&L);

	tlines_wrap_hang(&L, "0123456789abcdefghij", 20, 0, 10, 4);
	is_int(L.n, 3, "20 columns at width 10, hang 4: 10 + 6 + 4");
	is_str(L.n ? L.v[0].s : NULL, "0123456789", "first row: the full width");
	is_str(L.n > 1 ? L.v[1].s : NULL, "    abcdef", "continuation: indented, 6 columns of text");
	is_str(L.n > 2 ? L.v[2].s : NULL, "    ghij", "last row: indented too");
	tlines_clear(&L);

	tlines_wrap(&L, "", 0, 0, 10);
	is_int(L.n, 1, "an empty line is one empty row");
	tlines_clear(&L);

	/* two-column characters are never split and never overflow */
	const char *wide = "\xe4\xb8\x80\xe4\xb8\x80\xe4\xb8\x80";  /* three CJK ideographs */
	tlines_wrap(&L, wide, strlen(wide), 0, 1);
	is_int(L.n, 3, "width 1: one wide character a row");
	is_int(L.n ? (int)strlen(L.v[0].s) : 0, 3, "a row holds a whole UTF-8 sequence");
	tlines_free(&L);
}

static void test_big(size_t mb, int hang)
{
	size_t n = mb << 20;
	char *s = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		s[i] = (i % 5 == 4) ? ' ' : 'w';
	s[n] = '\0';
	struct tlines L = {0};
	L.ev = TLINE_NO_EVENT;
	tlines_wrap_hang(&L, s, n, 0, 94, hang);
	ok(L.n > n / 94 && L.n < n / 40, "%zu MB one-line text, hang %d: wrapped into %zu rows", mb, hang, L.n);
	ok(tl_max_len(&L) <= 94, "%zu MB: no row wider than the pane", mb);
	char *j = tl_join(&L, (size_t)hang);
	ok(strlen(j) == n && !memcmp(j, s, n), "%zu MB, hang %d: the rows hold the text, nothing lost or repeated", mb, hang);
	free(j);
	size_t bad = 0;
	for (size_t i = 1; i < L.n; i++)
		if (hang && strncmp(L.v[i].s, "        ", (size_t)hang))
			bad++;
	is_int(bad, 0, "%zu MB, hang %d: every continuation row indented", mb, hang);
	tlines_free(&L);
	free(s);
}

int main(void)
{
	test_small();
	test_big(1, 0);
	test_big(8, 0);   /* the size that overflowed the stack */
	test_big(8, 8);
	return tap_done();
}
