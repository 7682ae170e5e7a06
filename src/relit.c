/* relit.c: the required literal of a PCRE2 pattern, by a small recursive
 * reading of its syntax: a sequence keeps its longest run of plain
 * characters, an alternation the longest string common to its branches,
 * an optional part (?, *, {0,...}) nothing, a lookaround nothing. */
#include "config.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "relit.h"

struct rl_str {
	char s[RELIT_MAX];
	size_t n;
	int full;                 /* a unit did not fit: the run ends here */
};

struct rl {
	const char *p;
	int icase;
	int fail;                 /* not sure: no literal */
	int newline;              /* something consumed may be '\n' */
};

static void rl_best(struct rl_str *best, const struct rl_str *c)
{
	if (c->n > best->n) {
		*best = *c;
		best->full = 0;
	}
}

static void rl_add(struct rl_str *cur, const char *u, size_t n)
{
	if (cur->full || cur->n + n > RELIT_MAX) {   /* a part of a required literal is required */
		cur->full = 1;
		return;
	}
	memcpy(cur->s + cur->n, u, n);
	cur->n += n;
}

/* The longest string common to a and b (both short), into a. */
static void rl_common(struct rl_str *a, const struct rl_str *b)
{
	size_t bi = 0, bn = 0;
	for (size_t i = 0; i < a->n; i++)
		for (size_t j = 0; j < b->n; j++) {
			size_t k = 0;
			while (i + k < a->n && j + k < b->n && a->s[i + k] == b->s[j + k])
				k++;
			if (k > bn) {
				bn = k;
				bi = i;
			}
		}
	memmove(a->s, a->s + bi, bn);
	a->n = bn;
}

static int rl_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* A quantifier after an atom, consumed: its minimum, or -1 when there is
 * none. A brace that is not \{\d+(,\d*)?\} is not sure (PCRE2 versions
 * read "{,n}" differently). */
static int rl_quant(struct rl *r)
{
	int min = -1;
	const char *p = r->p;
	if (*p == '*' || *p == '?') {
		min = 0;
		p++;
	} else if (*p == '+') {
		min = 1;
		p++;
	} else if (*p == '{') {
		const char *q = p + 1;
		if (!rl_digit(*q)) {
			r->fail = 1;
			return -1;
		}
		min = 0;
		for (; rl_digit(*q); q++)
			min = min < 1000 ? min * 10 + (*q - '0') : min;
		if (*q == ',')
			for (q++; rl_digit(*q); q++)
				;
		if (*q != '}') {
			r->fail = 1;
			return -1;
		}
		p = q + 1;
	}
	if (min >= 0 && (*p == '?' || *p == '+'))
		p++;   /* lazy or possessive: the same minimum */
	if (*p == '*' || *p == '+' || *p == '?' || *p == '{')
		r->fail = 1;
	r->p = p;
	return min;
}

/* A character class from its '[', consumed; whether it might hold '\n'
 * (negated, an escape, a POSIX name, a range over it) is noted. */
static void rl_class(struct rl *r)
{
	const char *p = r->p + 1;
	if (*p == '^') {
		r->newline = 1;
		p++;
	}
	if (*p == ']')
		p++;   /* a leading ] is a member */
	for (; *p && *p != ']'; p++) {
		if (*p == '\\') {
			r->newline = 1;
			if (!*++p)
				break;
		} else if (*p == '[' && (p[1] == ':' || p[1] == '.' || p[1] == '=')) {
			/* a POSIX class [:name:] (or [:^name:]); anything else that
			 * starts so PCRE2 reads by rules of its own (a ']' before
			 * the ":]" makes the '[' a member): not ours to mirror */
			const char *q = p + 2 + (p[1] == ':' && p[2] == '^');
			while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z'))
				q++;
			if (p[1] != ':' || q == p + 2 || *q != ':' || q[1] != ']') {
				r->fail = 1;
				return;
			}
			r->newline = 1;
			p = q + 1;
		} else if (*p == '\n' || (p[1] == '-' && p[2] && p[2] != ']' && (unsigned char)*p <= '\n')) {
			r->newline = 1;
		}
	}
	if (*p != ']') {
		r->fail = 1;
		return;
	}
	r->p = p + 1;
}

/* The length of the UTF-8 sequence at p, 0 when it is not one. */
static size_t rl_utf8(const char *p)
{
	unsigned char c = (unsigned char)*p;
	size_t n = c >= 0xf0 && c < 0xf8 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	if (c >= 0xf8)
		n = 0;
	for (size_t k = 1; k < n; k++)
		if (((unsigned char)p[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* The name or number after \g, \k, \p or \P, consumed: {..}, <..>, '..',
 * or a signed number, or (\p) one letter. */
static void rl_ref(struct rl *r, char kind)
{
	const char *p = r->p, *e = NULL;
	if (*p == '{')
		e = strchr(p, '}');
	else if (*p == '<' && kind != 'p' && kind != 'P')
		e = strchr(p, '>');
	else if (*p == '\'' && kind != 'p' && kind != 'P')
		e = strchr(p + 1, '\'');
	if (e) {
		r->p = e + 1;
		return;
	}
	if (kind == 'p' || kind == 'P') {
		if (*p >= 'A' && *p <= 'Z')
			r->p = p + 1;
		else
			r->fail = 1;
		return;
	}
	if (*p == '-' || *p == '+')
		p++;
	if (!rl_digit(*p)) {
		r->fail = 1;
		return;
	}
	while (rl_digit(*p))
		p++;
	r->p = p;
}

/* An escape after its '\', consumed: the literal character it stands for
 * into u (1), or 0 for a class, an assertion or a reference. */
static int rl_escape(struct rl *r, char *u)
{
	char c = *r->p++;
	static const char lit[] = "ntrfea", val[] = "\n\t\r\f\033\a";
	if (!c) {
		r->fail = 1;
		return 0;
	}
	if ((unsigned char)c < 0x80 && !((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || rl_digit(c))) {
		*u = c;   /* an escaped punctuation mark (or space, or newline) is itself */
		r->newline |= c == '\n';
		return 1;
	}
	const char *l = strchr(lit, c);
	if (l) {
		*u = val[l - lit];
		r->newline |= *u == '\n';
		return 1;
	}
	if (strchr("dwhVNbBAzZK", c))
		return 0;   /* never '\n' where the newline is LF */
	if (strchr("DWSsHvRXC", c)) {
		r->newline = 1;
		return 0;
	}
	r->newline = 1;
	if (c >= '1' && c <= '9') {
		while (rl_digit(*r->p))
			r->p++;
		return 0;   /* a back reference */
	}
	if (c == 'g' || c == 'k' || c == 'p' || c == 'P') {
		rl_ref(r, c);
		return 0;
	}
	r->fail = 1;   /* \Q, \x, \o, \c, \0, \G, \E, \L ... */
	return 0;
}

static struct rl_str rl_alt(struct rl *r, int depth);
static void rl_anchors(struct relit_one *l, int icase);

/* After the '?' at q of a named group's opening, "(?<name>", "(?'name'",
 * "(?P<name>": past it, or NULL when q opens no such group (a name is a
 * letter or '_', then letters, digits, '_': "(?<*" is PCRE2's non-atomic
 * lookbehind, "(?<=" and "(?<!" are lookbehinds). */
static const char *rl_named(const char *q)
{
	const char *p = q + 1;
	char close = '>';
	if (*p == 'P' && p[1] == '<')
		p++;
	else if (*p == '\'')
		close = '\'';
	else if (*p != '<')
		return NULL;
	p++;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_'))
		return NULL;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_')
		p++;
	return *p == close ? p + 1 : NULL;
}

/* A group from its '(', consumed up to its ')': its literal, or none for
 * a lookaround (which consumes nothing). */
static struct rl_str rl_group(struct rl *r, int depth)
{
	struct rl_str none = { .n = 0 };
	const char *p = r->p + 1;
	int look = 0;
	if (*p == '*') {
		r->fail = 1;   /* verbs and settings */
		return none;
	}
	if (*p == '?') {
		p++;
		if (*p == ':' || *p == '|' || *p == '>')
			p++;
		else if (*p == '=' || *p == '!')
			look = 1, p++;
		else if (*p == '<' && (p[1] == '=' || p[1] == '!'))
			look = 1, p += 2;
		else if ((p = rl_named(p - 1)) != NULL) {
			/* a named group: p is past its name */
		} else {
			r->fail = 1;   /* options, recursion, conditionals, callouts, comments */
			return none;
		}
	}
	r->p = p;
	int nl = r->newline;
	struct rl_str in = rl_alt(r, depth + 1);
	if (*r->p != ')') {
		r->fail = 1;
		return none;
	}
	r->p++;
	if (look) {
		r->newline = nl;   /* what it looks at is not consumed */
		return none;
	}
	return in;
}

/* A sequence up to '|', ')' or the end: its longest literal run (or a
 * group's literal when longer). */
static struct rl_str rl_seq(struct rl *r, int depth)
{
	struct rl_str best = { .n = 0 }, cur = { .n = 0 };
	while (!r->fail && *r->p && *r->p != '|' && *r->p != ')') {
		char u[4];
		size_t n = 0;
		char c = *r->p;
		struct rl_str atom = { .n = 0 };
		if (c == '(') {
			atom = rl_group(r, depth);
		} else if (c == '[') {
			rl_class(r);
		} else if (c == '.' || c == '^' || c == '$') {
			r->p++;
		} else if (c == '\\') {
			r->p++;
			n = (size_t)rl_escape(r, u);
		} else if (c == '*' || c == '+' || c == '?' || c == '{') {
			r->fail = 1;
		} else if ((unsigned char)c >= 0x80) {
			n = rl_utf8(r->p);
			if (!n) {
				r->fail = 1;
				break;
			}
			memcpy(u, r->p, n);
			r->p += n;
			if (r->icase)
				n = 0;   /* Unicode case folding: not ours to mirror */
		} else {
			u[0] = c;
			n = 1;
			r->p++;
			r->newline |= c == '\n';
		}
		if (r->fail)
			break;
		if (n == 1 && r->icase) {
			u[0] = (char)((u[0] >= 'A' && u[0] <= 'Z') ? u[0] + 32 : u[0]);
			if (u[0] == 'k' || u[0] == 's')
				n = 0;   /* K and S fold with U+212A and U+017F too */
		}
		int min = rl_quant(r);
		if (n && min < 0) {
			rl_add(&cur, u, n);
			continue;
		}
		rl_best(&best, &cur);
		cur.n = 0;
		cur.full = 0;
		if (n && min > 0)
			rl_add(&cur, u, n);   /* its last repetition is followed by what follows */
		if (min != 0)
			rl_best(&best, &atom);
	}
	rl_best(&best, &cur);
	return best;
}

static struct rl_str rl_alt(struct rl *r, int depth)
{
	struct rl_str lit = { .n = 0 };
	if (depth > 32) {
		r->fail = 1;
		return lit;
	}
	lit = rl_seq(r, depth);
	while (!r->fail && *r->p == '|') {
		r->p++;
		struct rl_str b = rl_seq(r, depth);
		rl_common(&lit, &b);
	}
	return lit;
}

/* The pattern's top level, an alternation: its branches' literals (up to
 * RELIT_ALTS, *nb of them; more are counted but not kept) and the longest
 * string common to them all, as rl_alt gives it. */
static struct rl_str rl_top(struct rl *r, struct rl_str *br, size_t *nb)
{
	struct rl_str lit = rl_seq(r, 0);
	br[0] = lit;
	*nb = 1;
	while (!r->fail && *r->p == '|') {
		r->p++;
		struct rl_str b = rl_seq(r, 0);
		if (*nb < RELIT_ALTS)
			br[*nb] = b;
		++*nb;
		rl_common(&lit, &b);
	}
	return lit;
}

/* Where no string is common to the branches but each has its own of two
 * bytes or more: each is looked for, and a match holds one of them. */
static int rl_use_branches(const struct rl_str *common, const struct rl_str *br, size_t nb)
{
	if (nb < 2 || nb > RELIT_ALTS || common->n >= 3)
		return 0;
	for (size_t i = 0; i < nb; i++)
		if (br[i].n < 2 || br[i].n <= common->n)
			return 0;
	return 1;
}

static void rl_one_set(struct relit_one *o, const struct rl_str *b, int icase)
{
	memcpy(o->s, b->s, b->n);
	o->n = b->n;
	rl_anchors(o, icase);
}

/* Where the inside of the group p opens begins, when p opens a group that
 * captures or only groups ("(", "(?:", "(?>", "(?|", a named one); NULL
 * otherwise (a lookaround, options, anything else). */
static const char *rl_whole_group(const char *p)
{
	if (*p++ != '(')
		return NULL;
	if (*p != '?')
		return *p == '*' ? NULL : p;
	p++;
	if (*p == ':' || *p == '>' || *p == '|')
		return p + 1;
	return rl_named(p - 1);
}

size_t relit_extract(const char *pattern, int caseless, struct relit *l)
{
	struct rl r = { .p = pattern, .icase = caseless };
	struct rl_str br[RELIT_ALTS], lit;
	size_t nb = 0;
	memset(l, 0, sizeof *l);
	if (strncmp(r.p, "(?i)", 4) == 0) {   /* kbtui search -i */
		r.icase = 1;
		r.p += 4;
	}
	/* a group that is the whole pattern, "(error|warning)": its inside is
	 * the top level (not a lookaround: its match would hold nothing) */
	const char *in = rl_whole_group(r.p);
	struct rl g = r;
	if (in) {
		g.p = in;
		struct rl_str glit = rl_top(&g, br, &nb);
		if (!g.fail && *g.p == ')' && !g.p[1]) {
			r = g;
			r.p++;
			lit = glit;
		} else {
			in = NULL;
		}
	}
	if (!in)
		lit = rl_top(&r, br, &nb);
	if (r.fail || *r.p)
		return 0;
	struct relit_one first;
	if (rl_use_branches(&lit, br, nb)) {
		lit = br[0];
		for (size_t i = 1; i < nb; i++)
			rl_one_set(&l->alt[i - 1], &br[i], r.icase);
		l->nalt = nb - 1;
	}
	if (!lit.n)
		return 0;
	rl_one_set(&first, &lit, r.icase);
	memcpy(l->s, first.s, first.n);
	l->n = first.n;
	l->o1 = first.o1;
	l->o2 = first.o2;
	l->icase = r.icase;
	l->one_line = !r.newline;
	return l->n;
}

/* ---- finding it --------------------------------------------------------- */

static int rl_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

/* How common a byte is in transcripts, roughly (English text, code): the
 * scan looks for the two rarest bytes of the literal at once, so that
 * few places are checked whole. */
static int rl_common_byte(unsigned char c, int icase)
{
	static const char freq[] = "etaoinsrhldcumfpgwybvkxjqz";
	if (icase)
		c = (unsigned char)rl_lower(c);
	if (c == ' ')
		return 255;
	if (c >= 'a' && c <= 'z')
		return 100 + 5 * (26 - (int)(strchr(freq, c) - freq));
	if (c >= '0' && c <= '9')
		return 90;
	if (c == '_' || c == '.' || c == '\n' || c == '"' || c == ',')
		return 80;
	if (c >= 'A' && c <= 'Z')
		return 60;
	return c < 0x80 ? 40 : 20;
}

static void rl_anchors(struct relit_one *l, int icase)
{
	size_t a = 0, b = 0;
	for (size_t i = 1; i < l->n; i++)
		if (rl_common_byte((unsigned char)l->s[i], icase) < rl_common_byte((unsigned char)l->s[a], icase))
			a = i;
	b = a ? 0 : l->n > 1;
	for (size_t i = 0; i < l->n; i++)
		if (i != a && rl_common_byte((unsigned char)l->s[i], icase) < rl_common_byte((unsigned char)l->s[b], icase))
			b = i;
	l->o1 = a;
	l->o2 = b;
}

/* One literal as the scan reads it: l's own or an alternative's, borrowed. */
struct rl_view {
	const char *s;
	size_t n, o1, o2;
};

static int rl_at(const struct rl_view *l, int icase, const char *t)
{
	if (!icase)
		return memcmp(t, l->s, l->n) == 0;
	for (size_t k = 0; k < l->n; k++)
		if (rl_lower((unsigned char)t[k]) != (unsigned char)l->s[k])
			return 0;
	return 1;
}

static unsigned char rl_upper(int icase, unsigned char c)
{
	return icase && c >= 'a' && c <= 'z' ? (unsigned char)(c - 32) : c;
}

/* The i-th literal of l (0: l's own). */
static struct rl_view rl_nth(const struct relit *l, size_t i)
{
	const struct relit_one *a = i ? &l->alt[i - 1] : NULL;
	return a ? (struct rl_view){ a->s, a->n, a->o1, a->o2 } : (struct rl_view){ l->s, l->n, l->o1, l->o2 };
}

static size_t rl_find_one(const struct rl_view *l, int icase, const char *text, size_t len, size_t start);

size_t relit_find(const struct relit *l, const char *text, size_t len, size_t start)
{
	size_t best = len;
	for (size_t i = 0; l->n && i <= l->nalt; i++) {
		struct rl_view o = rl_nth(l, i);
		/* only a place before the best so far will do */
		size_t lim = best < len && best + o.n - 1 < len ? best + o.n - 1 : len;
		size_t q = rl_find_one(&o, l->icase, text, lim, start);
		if (q < best)
			best = q;
	}
	return best;
}

size_t relit_find_memo(const struct relit *l, struct relit_memo *m, const char *text, size_t len, size_t start)
{
	if (!l->nalt)
		return relit_find(l, text, len, start);
	if (m->text != text || m->len != len) {
		m->text = text;
		m->len = len;
		for (size_t i = 0; i < RELIT_ALTS; i++)
			m->from[i] = m->at[i] = (size_t)-1;
	}
	size_t best = len;
	for (size_t i = 0; l->n && i <= l->nalt; i++) {
		/* none between from and at: from any start in that range, at */
		if (m->from[i] == (size_t)-1 || start < m->from[i] || start > m->at[i]) {
			struct rl_view o = rl_nth(l, i);
			m->from[i] = start;
			m->at[i] = rl_find_one(&o, l->icase, text, len, start);
		}
		if (m->at[i] < best)
			best = m->at[i];
	}
	return best;
}

/* The first place of one literal in text[start, len) (the whole literal
 * before len), or len. */
static size_t rl_find_one(const struct rl_view *l, int icase, const char *text, size_t len, size_t start)
{
	if (!l->n || start > len || len - start < l->n)
		return len;
	unsigned char a1 = (unsigned char)l->s[l->o1], a2 = (unsigned char)l->s[l->o2];
	unsigned char b1 = rl_upper(icase, a1), b2 = rl_upper(icase, a2);
	const char *t1 = text + l->o1, *t2 = text + l->o2;
	size_t i = start, last = len - l->n;
#ifdef __SSE2__
	/* sixteen places a step: both anchor bytes in place (either case) */
	const __m128i x1 = _mm_set1_epi8((char)a1), y1 = _mm_set1_epi8((char)b1);
	const __m128i x2 = _mm_set1_epi8((char)a2), y2 = _mm_set1_epi8((char)b2);
	for (; i <= last && last - i >= 15; i += 16) {
		__m128i v1 = _mm_loadu_si128((const __m128i *)(const void *)(t1 + i));
		__m128i v2 = _mm_loadu_si128((const __m128i *)(const void *)(t2 + i));
		__m128i m1 = _mm_or_si128(_mm_cmpeq_epi8(v1, x1), _mm_cmpeq_epi8(v1, y1));
		__m128i m2 = _mm_or_si128(_mm_cmpeq_epi8(v2, x2), _mm_cmpeq_epi8(v2, y2));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_and_si128(m1, m2));
		for (; m; m &= m - 1) {
			size_t k = i + (size_t)__builtin_ctz(m);
			if (rl_at(l, icase, text + k))
				return k;
		}
	}
#endif
	for (; i <= last; i++) {
		unsigned char c1 = (unsigned char)t1[i], c2 = (unsigned char)t2[i];
		if ((c1 == a1 || c1 == b1) && (c2 == a2 || c2 == b2) && rl_at(l, icase, text + i))
			return i;
	}
	return len;
}
