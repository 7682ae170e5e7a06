/* diff.c: Myers' O(ND) line diff, rendered as a unified diff. Written by
 * hand because no packaged C library offers a plain text diff. */
#include "diff.h"
#include "util.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct dline {
	const char *s;
	size_t n;       /* length without the newline */
	unsigned h;     /* hash, to compare quickly */
	int open;       /* the last line, without a newline: not the same line
	                 * as one with it ("\ No newline at end of file") */
};

struct dlines {
	struct dline *v;
	size_t n;
	int last_nl;    /* 1 when the text ends with a newline */
};

/* A line's hash, a word at a time (only ever compared with another's). */
static unsigned diff_hash(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		memcpy(&w, s + i, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	if (i < n) {
		w = 0;
		memcpy(&w, s + i, n - i);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	}
	h ^= h >> 32;
	return (unsigned)h;
}

/* The lines of t[0..len) (no NUL needed). */
static void diff_split(const char *t, size_t len, struct dlines *L)
{
	size_t cap = 16;
	const char *end = t ? t + len : NULL;
	L->v = xmalloc(cap * sizeof *L->v);
	L->n = 0;
	L->last_nl = 1;
	if (!t)
		return;
	while (t < end) {
		const char *nl = memchr(t, '\n', (size_t)(end - t));
		size_t n = nl ? (size_t)(nl - t) : (size_t)(end - t);
		if (L->n == cap) {
			cap *= 2;
			L->v = xrealloc(L->v, cap * sizeof *L->v);
		}
		L->v[L->n].s = t;
		L->v[L->n].n = n;
		L->v[L->n].open = !nl;
		L->n++;
		if (!nl) {
			L->last_nl = 0;
			break;
		}
		t = nl + 1;
	}
}

static int diff_eq(const struct dline *a, const struct dline *b)
{
	return a->h == b->h && a->n == b->n && a->open == b->open && memcmp(a->s, b->s, a->n) == 0;
}

/* Each line of A[a0..a1) and B[b0..b1) as a number, equal lines the same
 * number (*ia[i] for A's line a0 + i): the search then compares ints in
 * two arrays rather than lines scattered through both texts. */
static void diff_ids(const struct dlines *A, size_t a0, size_t a1, const struct dlines *B, size_t b0, size_t b1,
                     int **ia, int **ib)
{
	struct slot {
		const struct dline *l;  /* NULL: empty */
		int id;
	};
	size_t n = (a1 - a0) + (b1 - b0), cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	struct slot *T = xcalloc(cap, sizeof *T);
	int next = 0;
	*ia = xmalloc((a1 - a0 + 1) * sizeof **ia);
	*ib = xmalloc((b1 - b0 + 1) * sizeof **ib);
	for (size_t side = 0; side < 2; side++) {
		const struct dlines *L = side ? B : A;
		size_t from = side ? b0 : a0, to = side ? b1 : a1;
		int *out = side ? *ib : *ia;
		for (size_t i = from; i < to; i++) {
			const struct dline *l = &L->v[i];
			size_t k = l->h & (cap - 1);
			while (T[k].l && !diff_eq(T[k].l, l))
				k = (k + 1) & (cap - 1);
			if (!T[k].l) {
				T[k].l = l;
				T[k].id = next++;
			}
			out[i - from] = T[k].id;
		}
	}
	free(T);
}

/* diff_eq before the hashes are made: most edits change a few lines of a
 * long file, and hashing every line of both versions was a fifth of the
 * diff's time (make bench). */
static int diff_same(const struct dline *a, const struct dline *b)
{
	return a->n == b->n && a->open == b->open && memcmp(a->s, b->s, a->n) == 0;
}

/* Hashes lines [from, to) of L, the ones the search compares. */
static void diff_hash_lines(struct dlines *L, size_t from, size_t to)
{
	for (size_t i = from; i < to; i++)
		L->v[i].h = diff_hash(L->v[i].s, L->v[i].n);
}

/* Edit script as one op per output line: ' ', '-', '+', with indexes. */
struct dop {
	char op;
	size_t ai, bi;
};

struct dscript {
	struct dop *v;
	size_t n, cap;
};

static void script_add(struct dscript *s, char op, size_t ai, size_t bi)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = xrealloc(s->v, s->cap * sizeof *s->v);
	}
	s->v[s->n].op = op;
	s->v[s->n].ai = ai;
	s->v[s->n].bi = bi;
	s->n++;
}

/* Beyond this many differences the diff degrades to "replace the middle":
 * still a correct diff, just not minimal, and bounded in time and memory. */
#define DIFF_MAX_D 2000

/* Myers forward search over ia[0..N) x ib[0..M) (lines as numbers, equal
 * lines equal numbers). Round d's V (diagonals -d..d) is written straight
 * into one history buffer, at H[d*d + d + k], reading round d-1's just
 * before it, so that the path can be walked back. The history is
 * O(D^2): kept in ints, in one block grown in few steps, since fresh
 * memory page by page cost more than the search (make bench). The
 * matches found go to out as ' ' ops (ai, bi: indexes into ia and ib), in
 * order. Returns 0 when D exceeded the cap. */
static int diff_myers(const int *ia, long N, const int *ib, long M, struct dscript *out)
{
	long max = N + M;
	long dmax = max < DIFF_MAX_D ? max : DIFF_MAX_D;
	int *H = NULL, round0[3] = { 0, 0, 0 };
	size_t cap = 0;
	long d, found = -1;

	if (max > INT_MAX - DIFF_MAX_D - 2)  /* x and y fit an int (a file of 2^31 lines cannot) */
		return 0;
	for (d = 0; d <= dmax && found < 0; d++) {
		size_t need = (size_t)(d + 1) * (size_t)(d + 1), most = (size_t)(dmax + 1) * (size_t)(dmax + 1);
		if (need > cap) {  /* O(D^2) in all, grown in few steps */
			cap = need < 4096 ? 4096 : need * 4;
			cap = cap < most ? cap : most;
			H = xrealloc(H, cap * sizeof *H);
		}
		/* round 0 starts from x 0 on diagonal 1, as if a round -1 had */
		int *V = H + d * d + d, *Vp = d ? H + (d - 1) * (d - 1) + (d - 1) : round0 + 1;
		for (long k = -d; k <= d; k += 2) {
			long x;
			if (k == -d || (k != d && Vp[k - 1] < Vp[k + 1]))
				x = Vp[k + 1];
			else
				x = Vp[k - 1] + 1;
			long y = x - k;
			while (x < N && y < M && ia[x] == ib[y]) {
				x++;
				y++;
			}
			V[k] = (int)x;
			if (x >= N && y >= M) {
				found = d;
				break;
			}
		}
	}
	if (found < 0) {
		free(H);
		return 0;
	}
	/* Walk back from (N, M), collecting the matches in reverse. */
	struct dscript rev = {0};
	long x = N, y = M;
	for (d = found; d > 0; d--) {
		int *Vp = H + (d - 1) * (d - 1) + (d - 1); /* Vp[k] for k in -(d-1)..d-1 */
		long k = x - y, pk, px, py;
		if (k == -d || (k != d && Vp[k - 1] < Vp[k + 1]))
			pk = k + 1;
		else
			pk = k - 1;
		px = Vp[pk];
		py = px - pk;
		while (x > px && y > py) {
			x--;
			y--;
			script_add(&rev, ' ', (size_t)x, (size_t)y);
		}
		if (x == px)
			--y;
		else
			--x;
	}
	while (x > 0 && y > 0) {
		x--;
		y--;
		script_add(&rev, ' ', (size_t)x, (size_t)y);
	}
	for (size_t i = rev.n; i-- > 0;)
		script_add(out, ' ', rev.v[i].ai, rev.v[i].bi);
	free(rev.v);
	free(H);
	return 1;
}

/* The lines of A[a0..a1) that some line of B[b0..b1) equals, as numbers
 * (*ka: where each is in A), and the same of B: a line found on one side
 * only can be in no common subsequence, so the search leaves it out. A
 * rewrite shares few lines with what it replaces, and without this Myers
 * spent O(D^2) walking through them (a cold search renders every write). */
static void diff_shared(const struct dlines *A, size_t a0, size_t a1, const struct dlines *B, size_t b0,
                        size_t b1, int **ra, size_t **ka, size_t *na, int **rb, size_t **kb, size_t *nb)
{
	int *ia, *ib;
	size_t n = (a1 - a0) + (b1 - b0);
	diff_ids(A, a0, a1, B, b0, b1, &ia, &ib);
	unsigned char *in = xcalloc(n + 1, 1);   /* per number: 1 in A, 2 in B */
	for (size_t i = 0; i < a1 - a0; i++)
		in[ia[i]] |= 1;
	for (size_t j = 0; j < b1 - b0; j++)
		in[ib[j]] |= 2;
	*ka = xmalloc((a1 - a0 + 1) * sizeof **ka);
	*kb = xmalloc((b1 - b0 + 1) * sizeof **kb);
	*na = *nb = 0;
	for (size_t i = 0; i < a1 - a0; i++)
		if (in[ia[i]] == 3) {
			ia[*na] = ia[i];
			(*ka)[(*na)++] = a0 + i;
		}
	for (size_t j = 0; j < b1 - b0; j++)
		if (in[ib[j]] == 3) {
			ib[*nb] = ib[j];
			(*kb)[(*nb)++] = b0 + j;
		}
	free(in);
	*ra = ia;
	*rb = ib;
}

/* Lines A[*ai..ta) deleted, then B[*bi..tb) inserted. */
static void diff_gap(struct dscript *out, size_t *ai, size_t ta, size_t *bi, size_t tb)
{
	for (; *ai < ta; ++*ai)
		script_add(out, '-', *ai, *bi);
	for (; *bi < tb; ++*bi)
		script_add(out, '+', *ai, *bi);
}

/* The middle A[a0..a1) against B[b0..b1): the lines both have searched,
 * the matches found kept, each gap between them its deletions then its
 * insertions (as git shows a change). 0 when the search gave up. */
static int diff_middle(const struct dlines *A, size_t a0, size_t a1, const struct dlines *B, size_t b0,
                       size_t b1, struct dscript *out)
{
	int *ra, *rb;
	size_t *ka, *kb, na, nb;
	struct dscript m = {0};
	diff_shared(A, a0, a1, B, b0, b1, &ra, &ka, &na, &rb, &kb, &nb);
	int ok = diff_myers(ra, (long)na, rb, (long)nb, &m);
	if (ok) {
		size_t ai = a0, bi = b0;
		for (size_t i = 0; i < m.n; i++) {
			diff_gap(out, &ai, ka[m.v[i].ai], &bi, kb[m.v[i].bi]);
			script_add(out, ' ', ai++, bi++);
		}
		diff_gap(out, &ai, a1, &bi, b1);
	}
	free(m.v);
	free(ra);
	free(rb);
	free(ka);
	free(kb);
	return ok;
}

static void diff_script(struct dlines *A, struct dlines *B, struct dscript *out)
{
	size_t pre = 0, suf = 0;
	while (pre < A->n && pre < B->n && diff_same(&A->v[pre], &B->v[pre]))
		pre++;
	while (suf < A->n - pre && suf < B->n - pre &&
	       diff_same(&A->v[A->n - 1 - suf], &B->v[B->n - 1 - suf]))
		suf++;
	diff_hash_lines(A, pre, A->n - suf);
	diff_hash_lines(B, pre, B->n - suf);
	for (size_t i = 0; i < pre; i++)
		script_add(out, ' ', i, i);
	/* only insertions or only deletions (a new file, an appended block):
	 * no search needed, and Myers would spend O(D^2) finding that out */
	if (pre + suf == A->n || pre + suf == B->n || !diff_middle(A, pre, A->n - suf, B, pre, B->n - suf, out)) {
		for (size_t i = pre; i < A->n - suf; i++)
			script_add(out, '-', i, pre);
		for (size_t j = pre; j < B->n - suf; j++)
			script_add(out, '+', A->n - suf, j);
	}
	for (size_t i = 0; i < suf; i++)
		script_add(out, ' ', A->n - suf + i, B->n - suf + i);
}

static void diff_emit_line(struct sbuf *b, char op, const struct dlines *L, size_t i)
{
	sbuf_addc(b, op);
	sbuf_add(b, L->v[i].s, L->v[i].n);
	sbuf_addc(b, '\n');
	if (i == L->n - 1 && !L->last_nl)
		sbuf_adds(b, "\\ No newline at end of file\n");
}

/* "start,count", with ",1" left out as GNU diff does */
static void diff_range(struct sbuf *b, size_t start, size_t count)
{
	if (count == 1)
		sbuf_addf(b, "%zu", start);
	else
		sbuf_addf(b, "%zu,%zu", start, count);
}

/* Bytes a and b share at their start, compared a word at a time. */
static size_t diff_common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	for (uint64_t x, y; i + 8 <= n; i += 8) {
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			break;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Bytes a[0..na) and b[0..nb) share at their end, at most max. */
static size_t diff_common_suffix(const char *a, size_t na, const char *b, size_t nb, size_t max)
{
	size_t i = 0;
	for (uint64_t x, y; i + 8 <= max; i += 8) {
		memcpy(&x, a + na - i - 8, 8);
		memcpy(&y, b + nb - i - 8, 8);
		if (x != y)
			break;
	}
	while (i < max && a[na - 1 - i] == b[nb - 1 - i])
		i++;
	return i;
}

/* The part of a and b the diff has to look at: from `context` lines
 * before the first line that differs to `context` lines after the last
 * (*start, in both; *ea and *eb, where it ends in each), found byte by
 * byte; *off, the lines before it. An edit changes a few lines of a
 * long file, and splitting and comparing every line of both versions
 * was most of a diff's time (a cold search renders every edit's). */
static void diff_region(const char *a, size_t na, const char *b, size_t nb, int context, size_t *start,
                        size_t *ea, size_t *eb, size_t *off)
{
	size_t p = diff_common_prefix(a, b, na < nb ? na : nb);
	const char *q = memrchr(a, '\n', p);
	size_t first = q ? (size_t)(q - a) + 1 : 0;  /* the start of the first line that differs */
	size_t st = first;
	for (int k = 0; k < context && st > 0; k++) {
		q = memrchr(a, '\n', st - 1);
		st = q ? (size_t)(q - a) + 1 : 0;
	}
	/* the shared end, from a line start in both: past its first newline
	 * (the byte before it differs, so it begins mid-line) */
	size_t s = diff_common_suffix(a, na, b, nb, (na < nb ? na : nb) - first);
	q = s ? memchr(a + na - s, '\n', s) : NULL;
	s = q ? s - (size_t)(q - (a + na - s)) - 1 : 0;
	size_t e = na - s;
	for (int k = 0; k < context && e < na; k++) {
		q = memchr(a + e, '\n', na - e);
		e = q ? (size_t)(q - a) + 1 : na;
	}
	*start = st;
	*ea = e;
	*eb = e + (nb - na);  /* past the shared end: the same bytes in both */
	size_t lines = 0;
	for (const char *t = a, *end = a + st; t < end && (t = memchr(t, '\n', (size_t)(end - t))); t++)
		lines++;
	*off = lines;
}

static char *diff_render(const char *path, const char *a, const char *b, int context, int whole)
{
	struct dlines A, B;
	struct dscript S = {0};
	struct sbuf out;
	size_t i = 0, na = a ? strlen(a) : 0, nb = b ? strlen(b) : 0, start = 0, ea = na, eb = nb, off = 0;

	sbuf_init(&out);
	if ((a ? strcmp(a, b ? b : "") : (b && *b ? 1 : 0)) == 0)
		return sbuf_detach(&out);
	if (a && b && !whole)
		diff_region(a, na, b, nb, context, &start, &ea, &eb, &off);
	diff_split(a ? a + start : NULL, ea - start, &A);
	diff_split(b ? b + start : NULL, eb - start, &B);
	diff_script(&A, &B, &S);
	while (*path == '/') /* "a//abs/path" reads badly; git shows "a/abs/path" */
		path++;
	sbuf_addf(&out, "--- %s%s\n+++ %s%s\n", a ? "a/" : "", a ? path : "/dev/null",
	          b ? "b/" : "", b ? path : "/dev/null");
	while (i < S.n) {
		size_t hs, end, j;
		if (S.v[i].op == ' ') {
			i++;
			continue;
		}
		/* hunk: from `context` lines before the change to `context` after
		 * the last change that is within 2*context of the previous one */
		hs = i >= (size_t)context ? i - (size_t)context : 0;
		end = i;
		for (j = i; j < S.n; j++) {
			if (S.v[j].op != ' ')
				end = j;
			else if (j - end > (size_t)(2 * context))
				break;
		}
		end = end + (size_t)context + 1 < S.n ? end + (size_t)context + 1 : S.n;
		size_t as = 0, bs = 0, al = 0, bl = 0;
		int have_a = 0, have_b = 0;
		for (j = hs; j < end; j++) {
			if (S.v[j].op != '+') {
				if (!have_a++) as = S.v[j].ai;
				al++;
			}
			if (S.v[j].op != '-') {
				if (!have_b++) bs = S.v[j].bi;
				bl++;
			}
		}
		if (!have_a) as = S.v[hs].ai;
		if (!have_b) bs = S.v[hs].bi;
		sbuf_adds(&out, "@@ -");
		diff_range(&out, off + (al ? as + 1 : as), al);
		sbuf_adds(&out, " +");
		diff_range(&out, off + (bl ? bs + 1 : bs), bl);
		sbuf_adds(&out, " @@\n");
		for (j = hs; j < end; j++) {
			if (S.v[j].op == '+')
				diff_emit_line(&out, '+', &B, S.v[j].bi);
			else
				diff_emit_line(&out, S.v[j].op, &A, S.v[j].ai);
		}
		i = end;
	}
	free(S.v);
	free(A.v);
	free(B.v);
	return sbuf_detach(&out);
}

char *diff_unified(const char *path, const char *a, const char *b, int context)
{
	return diff_render(path, a, b, context, 0);
}

char *diff_unified_whole(const char *path, const char *a, const char *b, int context)
{
	return diff_render(path, a, b, context, 1);
}
