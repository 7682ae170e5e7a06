/* fuzz_diff.c: libFuzzer target for the unified diffs every edit of a run
 * is shown by (src/diff.c: lines compared as numbers, lines found on one
 * side only left out of Myers' search, both ends narrowed first). The
 * input is two texts split at its first NUL byte (or at its middle). Each
 * diff, narrowed and whole, applied to the first text gives the second,
 * final newline included; and each changes as few lines as can be: a
 * longest common subsequence of the two texts' lines (dynamic programming,
 * for texts of up to 200 lines) leaves the rest, and that is what they
 * delete and add. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"
#include "util.h"

/* A hunk's range, "L" or "L,N" (N is 1 when left out), at *p. */
static int fz_range(const char **p, size_t *l, size_t *n)
{
	char *e;
	*l = strtoul(*p, &e, 10);
	*n = 1;
	if (e == *p)
		return 0;
	if (*e == ',') {
		const char *q = e + 1;
		*n = strtoul(q, &e, 10);
		if (e == q)
			return 0;
	}
	*p = e;
	return 1;
}

/* The unified diff d applied to a, read by its hunks' line counts (a
 * deleted line "-- x" reads "--- x", as a header would); *changed counts
 * its - and + lines. NULL when d does not fit a. */
static char *fz_apply(const char *a, const char *d, size_t *changed)
{
	struct sbuf out;
	const char *p = a, *l = d;
	size_t aline = 1, old_left = 0, new_left = 0;
	char last = 0;
	sbuf_init(&out);
	*changed = 0;
	/* the two headers, then hunks */
	for (int h = 0; h < 2 && *l; h++) {
		if (strncmp(l, h ? "+++ " : "--- ", 4))
			goto bad;
		l = strchr(l, '\n');
		l = l ? l + 1 : l + strlen(l);
	}
	while (*l) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		const char *e = strchr(p, '\n');
		size_t m = e ? (size_t)(e - p) + 1 : strlen(p);
		if (l[0] == '\\') {
			/* the line before has no newline: a '+' line's own is taken
			 * back; a ' ' or '-' line was the text's last, as it was */
			if (last == '+' && out.len && out.s[out.len - 1] == '\n')
				out.s[--out.len] = '\0';
		} else if (!old_left && !new_left) {
			size_t as, an, bs, bn;
			const char *q = l + 4;
			if (strncmp(l, "@@ -", 4) || !fz_range(&q, &as, &an) || strncmp(q, " +", 2))
				goto bad;
			q += 2;
			if (!fz_range(&q, &bs, &bn) || strncmp(q, " @@", 3))
				goto bad;
			old_left = an;
			new_left = bn;
			/* the lines before the hunk (after line as when it deletes none) */
			while ((an ? aline < as : aline <= as) && *p) {
				e = strchr(p, '\n');
				m = e ? (size_t)(e - p) + 1 : strlen(p);
				sbuf_add(&out, p, m);
				p += m;
				aline++;
			}
		} else if ((l[0] == ' ' || l[0] == '-') && old_left && (l[0] == '-' || new_left)) {
			/* the line as the text has it, newline aside */
			size_t body = m && p[m - 1] == '\n' ? m - 1 : m;
			if (!*p || body != n - 1 || memcmp(p, l + 1, body))
				goto bad;
			if (l[0] == ' ')
				sbuf_add(&out, p, m);
			else
				++*changed;
			old_left--;
			new_left -= l[0] == ' ';
			p += m;
			aline++;
		} else if (l[0] == '+' && new_left) {
			sbuf_add(&out, l + 1, n - 1);
			sbuf_addc(&out, '\n');
			new_left--;
			++*changed;
		} else {
			goto bad;
		}
		last = l[0];
		l += n + (nl ? 1 : 0);
	}
	if (old_left || new_left)
		goto bad;
	sbuf_adds(&out, p);
	return sbuf_detach(&out);
bad:
	sbuf_free(&out);
	return NULL;
}

/* The lines of t (a last line without its newline differs from one with
 * it, as the diff treats it), at most max: their count, or max + 1. */
static size_t fz_lines(const char *t, const char **v, size_t *len, size_t max)
{
	size_t n = 0;
	while (*t) {
		const char *e = strchr(t, '\n');
		size_t m = e ? (size_t)(e - t) + 1 : strlen(t);
		if (n == max)
			return max + 1;
		v[n] = t;
		len[n++] = m;
		t += m;
	}
	return n;
}

/* The lines a minimal diff of a and b deletes and adds, or -1 when either
 * has more lines than the table takes. */
static long fz_minimal(const char *a, const char *b)
{
	enum { MAX = 200 };
	static const char *av[MAX], *bv[MAX];
	static size_t al[MAX], bl[MAX];
	static unsigned short t[MAX + 1][MAX + 1];
	size_t na = fz_lines(a, av, al, MAX), nb = fz_lines(b, bv, bl, MAX);
	if (na > MAX || nb > MAX)
		return -1;
	for (size_t i = na + 1; i-- > 0;)
		for (size_t j = nb + 1; j-- > 0;)
			t[i][j] = i == na || j == nb ? 0
			        : al[i] == bl[j] && !memcmp(av[i], bv[j], al[i]) ? (unsigned short)(t[i + 1][j + 1] + 1)
			        : t[i + 1][j] > t[i][j + 1] ? t[i + 1][j] : t[i][j + 1];
	return (long)(na + nb - 2 * (size_t)t[0][0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *z = memchr(s, '\0', size);
	size_t cut = z ? (size_t)(z - s) : size / 2;
	char *a = xstrndup(s, cut), *b = xstrndup(s + cut + (z != NULL), size - cut - (z != NULL));
	char *d1 = diff_unified("f", a, b, 3), *d2 = diff_unified_whole("f", a, b, 3);
	size_t c1 = 0, c2 = 0;
	char *r1 = fz_apply(a, d1, &c1), *r2 = fz_apply(a, d2, &c2);
	if (!r1 || strcmp(r1, b) || !r2 || strcmp(r2, b))
		abort();  /* a diff that does not turn a into b */
	long min = fz_minimal(a, b);
	if (c1 != c2 || (min >= 0 && c1 != (size_t)min))
		abort();  /* a diff that changes more lines than it must */
	if (!strcmp(a, b) != !*d1)
		abort();  /* equal texts, and only they, have an empty diff */
	free(r1);
	free(r2);
	free(d1);
	free(d2);
	free(a);
	free(b);
	return 0;
}
