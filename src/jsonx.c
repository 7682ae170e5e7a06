/* jsonx.c: tolerant getters over cJSON for untrusted transcripts. */
#include "jsonx.h"
#include "util.h"

#include <ctype.h>
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* cJSON_GetObjectItemCaseSensitive's walk (it stops at a member without a
 * name, as that does), inline and with the first two bytes compared before
 * strcmp: parsers ask a line's object for several keys, and the calls into
 * cJSON and strcmp for every member were a tenth of a load's time. */
const cJSON *jx_get(const cJSON *o, const char *key)
{
	const cJSON *c;

	if (!o || (o->type & 0xFF) != cJSON_Object || !key)
		return NULL;
	for (c = o->child; c && c->string; c = c->next)
		if (c->string[0] == key[0] &&
		    (!key[0] || (c->string[1] == key[1] && (!key[1] || !strcmp(c->string + 2, key + 2)))))
			return c;
	return NULL;
}

const cJSON *jx_path(const cJSON *o, const char *dotted)
{
	char key[128];
	const char *p = dotted;

	while (o && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		o = jx_get(o, key);
		p += n + (dot ? 1 : 0);
	}
	return o;
}

const char *jx_str(const cJSON *o, const char *key)
{
	const cJSON *v = jx_get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *jx_pstr(const cJSON *o, const char *dotted)
{
	const cJSON *v = jx_path(o, dotted);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double jx_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = jx_get(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

long long jx_ll(const cJSON *o, const char *key, long long dflt)
{
	const cJSON *v = jx_get(o, key);
	/* casting a double outside the range of long long is undefined */
	if (!cJSON_IsNumber(v) || !(v->valuedouble > -9.2e18 && v->valuedouble < 9.2e18))
		return dflt;
	return (long long)v->valuedouble;
}

int jx_bool(const cJSON *o, const char *key, int dflt)
{
	const cJSON *v = jx_get(o, key);
	if (cJSON_IsTrue(v))
		return 1;
	if (cJSON_IsFalse(v))
		return 0;
	return dflt;
}

/* Whether any of the 8 bytes of w needs an escape: below 0x20, '"' or
 * '\\' (the has-zero-byte tests; bytes of 0x80 and up never count). */
static int jx_word_special(uint64_t w)
{
	const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
	uint64_t q = w ^ (0x22 * ones), bs = w ^ (0x5c * ones);
	return (((w - 0x20 * ones) & ~w) | ((q - ones) & ~q) | ((bs - ones) & ~bs)) & high ? 1 : 0;
}

/* The first byte in [p, end) that a JSON string cannot hold as it is (below
 * 0x20, '"' or '\\'), or end: sixteen bytes a step with SSE2, else eight. */
static const unsigned char *jx_find_special(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), ctl = _mm_set1_epi8(0x1f);
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)),
		    _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
		unsigned m = (unsigned)_mm_movemask_epi8(hit);
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	uint64_t w;
	while (end - p >= 8 && (memcpy(&w, p, 8), !jx_word_special(w)))
		p += 8;
	while (p < end && *p >= 32 && *p != '"' && *p != '\\')
		p++;
	return p;
}

/* cJSON's string escaping: the short escapes, \u00xx for other control
 * bytes, everything else (UTF-8 included) as it is. Many bytes at a time
 * past the ones that need nothing: tool arguments are printed for every
 * call, and most of their text is plain. */
static void jx_print_string(struct sbuf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)(s ? s : ""), *run = p;
	const unsigned char *end = p + strlen((const char *)p);

	sbuf_addc(b, '"');
	for (;;) {
		p = jx_find_special(p, end);
		if (p >= end)
			break;
		unsigned char c = *p;
		if (c >= 32 && c != '"' && c != '\\') {
			p++;
			continue;
		}
		sbuf_add(b, (const char *)run, (size_t)(p - run));
		run = ++p;
		char esc[6] = {'\\', 0};
		size_t n = 2;
		switch (c) {
		case '"': esc[1] = '"'; break;
		case '\\': esc[1] = '\\'; break;
		case '\b': esc[1] = 'b'; break;
		case '\f': esc[1] = 'f'; break;
		case '\n': esc[1] = 'n'; break;
		case '\r': esc[1] = 'r'; break;
		case '\t': esc[1] = 't'; break;
		default:
			esc[1] = 'u';
			esc[2] = '0';
			esc[3] = '0';
			esc[4] = hex[c >> 4];
			esc[5] = hex[c & 15];
			n = 6;
		}
		sbuf_add(b, esc, n);
	}
	sbuf_add(b, (const char *)run, (size_t)(end - run));
	sbuf_addc(b, '"');
}

/* The same text as cJSON_PrintUnformatted, written straight into one
 * buffer: cJSON's printer copies its buffer on every growth and once more
 * at the end, which showed in load profiles (tool arguments are printed
 * for every call). Numbers and raw values go through cJSON itself, so
 * that their formatting is cJSON's to the byte. Returns 0 when cJSON
 * would fail (an invalid node). */
static int jx_print_value(struct sbuf *b, const cJSON *o)
{
	const cJSON *c;
	char *s;

	switch (o->type & 0xff) {
	case cJSON_NULL: sbuf_add(b, "null", 4); return 1;
	case cJSON_False: sbuf_add(b, "false", 5); return 1;
	case cJSON_True: sbuf_add(b, "true", 4); return 1;
	case cJSON_String: jx_print_string(b, o->valuestring); return 1;
	case cJSON_Array:
		sbuf_addc(b, '[');
		for (c = o->child; c; c = c->next) {
			if (!jx_print_value(b, c))
				return 0;
			if (c->next)
				sbuf_addc(b, ',');
		}
		sbuf_addc(b, ']');
		return 1;
	case cJSON_Object:
		sbuf_addc(b, '{');
		for (c = o->child; c; c = c->next) {
			jx_print_string(b, c->string); /* NULL prints "" as in cJSON */
			sbuf_addc(b, ':');
			if (!jx_print_value(b, c))
				return 0;
			if (c->next)
				sbuf_addc(b, ',');
		}
		sbuf_addc(b, '}');
		return 1;
	case cJSON_Number:
		/* an integer that valueint holds (NaN and infinities are none; -0
		 * is "-0" to cJSON): what cJSON's "%1.15g" writes for it, its
		 * digits. Counts and ids are most of a dump's numbers, and
		 * sprintf and its sscanf round trip were a fifth of one. */
		if (o->valuedouble == (double)o->valueint && !(o->valueint == 0 && signbit(o->valuedouble))) {
			char num[16], *p = num + sizeof num;
			long long v = o->valueint;
			unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
			do
				*--p = (char)('0' + u % 10);
			while (u /= 10);
			if (v < 0)
				*--p = '-';
			sbuf_add(b, p, (size_t)(num + sizeof num - p));
			return 1;
		}
		/* the rest as cJSON formats it */
		/* fall through */
	default: /* other numbers, raw: rare and short */
		s = cJSON_PrintUnformatted(o);
		if (!s)
			return 0;
		sbuf_adds(b, s);
		cJSON_free(s);
		return 1;
	}
}

char *jx_print(const cJSON *o)
{
	struct sbuf b;
	if (!o)
		return xstrdup("null");
	sbuf_init(&b);
	if (!jx_print_value(&b, o)) {
		sbuf_free(&b);
		return xstrdup("null");
	}
	return sbuf_detach(&b);
}

char *jx_text(const cJSON *o)
{
	if (cJSON_IsString(o))
		return xstrdup(o->valuestring);
	return jx_print(o);
}

char *jx_blocks_text(const cJSON *content, const char *type, const char *field)
{
	struct sbuf b;
	const cJSON *it;
	int any = 0;

	if (cJSON_IsString(content))
		return xstrdup(content->valuestring);
	if (!cJSON_IsArray(content))
		return NULL;
	sbuf_init(&b);
	cJSON_ArrayForEach(it, content) {
		const char *t = jx_str(it, "type");
		const char *s = jx_str(it, field);
		if (cJSON_IsString(it)) {
			s = it->valuestring;
		} else if (!t || (type && strcmp(t, type) != 0)) {
			continue;
		}
		if (!s)
			continue;
		if (any)
			sbuf_addc(&b, '\n');
		sbuf_adds(&b, s);
		any = 1;
	}
	if (!any) {
		sbuf_free(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

/* Days from civil date, so that timestamps do not depend on TZ or timegm. */
static long long jx_days(int y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long long)doe - 719468;
}

double jx_time(const cJSON *v)
{
	int Y, M, D, h = 0, m = 0, n = 0;
	double s = 0;
	const char *p;

	if (cJSON_IsNumber(v)) {
		double x = v->valuedouble;
		return x > 1e11 ? x / 1000.0 : x; /* milliseconds vs seconds */
	}
	if (!cJSON_IsString(v))
		return 0;
	p = v->valuestring;
	if (sscanf(p, "%4d-%2d-%2d%n", &Y, &M, &D, &n) != 3 || M < 1 || M > 12 || D < 1 || D > 31)
		return 0;
	p += n;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (sscanf(p, "%2d:%2d:%lf%n", &h, &m, &s, &n) == 3)
			p += n;
	}
	double t = (double)jx_days(Y, (unsigned)M, (unsigned)D) * 86400.0 + h * 3600 + m * 60 + s;
	if (*p == '+' || *p == '-') {
		int oh = 0, om = 0;
		if (sscanf(p + 1, "%2d:%2d", &oh, &om) >= 1)
			t -= (*p == '+' ? 1 : -1) * (oh * 3600 + om * 60);
	}
	return t;
}

/* ---- per-line arena for cJSON ---------------------------------------------
 * Parsing a transcript allocates a cJSON tree per line and drops it at
 * once; with malloc/free per node that was a third of the parse time. While
 * an arena scope is open, cJSON allocates by bumping a pointer, its frees
 * are no-ops, and closing the scope releases everything. Outside a scope
 * cJSON uses malloc/free as usual. The arena is the thread's own: while
 * `kbtui live` parses the growing transcript on the screen's thread, the
 * agent's thread builds and frees its cJSON trees with malloc and free (a
 * shared arena handed it memory that the parse then released). */

#define JX_CHUNK (1u << 20)

static _Thread_local struct {
	char *chunk;            /* JX_CHUNK bytes, kept between scopes */
	size_t used;
	void **big;             /* allocations larger than a chunk: plain malloc */
	size_t nbig, capbig;
	int depth;              /* open scopes */
	int hooked;
} jx_arena;

static void *jx_alloc(size_t n)
{
	size_t need = (n + 15) & ~(size_t)15;
	if (!jx_arena.depth)
		return malloc(n);
	if (need <= JX_CHUNK - jx_arena.used) {
		void *p = jx_arena.chunk + jx_arena.used;
		jx_arena.used += need;
		return p;
	}
	void *b = malloc(n);
	if (!b)
		return NULL;
	if (jx_arena.nbig == jx_arena.capbig) {
		jx_arena.capbig = jx_arena.capbig ? jx_arena.capbig * 2 : 16;
		jx_arena.big = xrealloc(jx_arena.big, jx_arena.capbig * sizeof *jx_arena.big);
	}
	jx_arena.big[jx_arena.nbig++] = b;
	return b;
}

/* Index+1 of p among the big allocations, 0 when it is not one. */
static size_t jx_big_index(const void *p)
{
	for (size_t i = jx_arena.nbig; i-- > 0;)
		if (jx_arena.big[i] == p)
			return i + 1;
	return 0;
}

static int jx_in_arena(const void *p)
{
	const char *c = p;
	if (jx_arena.chunk && c >= jx_arena.chunk && c < jx_arena.chunk + JX_CHUNK)
		return 1;
	return jx_big_index(p) != 0;
}

static void jx_free(void *p)
{
	if (p && !jx_in_arena(p))
		free(p);
}

char *jx_strdup(const char *s)
{
	size_t i;
	if (!s)
		return NULL;
	if (!jx_arena.depth || !(i = jx_big_index(s)))
		return xstrdup(s);
	/* a string of its own malloc block: hand the block over, uncopied */
	jx_arena.big[i - 1] = jx_arena.big[--jx_arena.nbig];
	return (char *)s;
}

void jx_arena_begin(void)
{
	if (!jx_arena.hooked) {
		cJSON_Hooks h = {jx_alloc, jx_free};
		jx_arena.chunk = xmalloc(JX_CHUNK);
		cJSON_InitHooks(&h);
		jx_arena.hooked = 1;
	}
	jx_arena.depth++;
}

void jx_arena_end(void)
{
	if (--jx_arena.depth > 0)
		return;
	jx_arena.used = 0;
	while (jx_arena.nbig)
		free(jx_arena.big[--jx_arena.nbig]);
}

/* ---- the parser -----------------------------------------------------------
 * cJSON_ParseWithLength's grammar and trees, decision for decision (the
 * same nesting limit, number scan, \u handling but for \u0000 (see
 * jx_utf16), whitespace rule of any
 * byte <= 32, trailing bytes ignored), but faster where load profiles
 * showed cJSON's time going: three strncmp per value before looking at
 * its first byte, and strings scanned and copied a byte at a time. Nodes
 * and strings come from cJSON's allocator hooks, so cJSON_Delete and the
 * per-line arena treat them as cJSON's own. tests/test_reader.c compares
 * the two parsers' trees on hand-made and real lines. */

struct jx_in {
	const unsigned char *s;
	size_t len, off;
	int depth;
};

static void jx_skip_ws(struct jx_in *in)
{
	if (in->off >= in->len)
		return;
	while (in->off < in->len && in->s[in->off] <= 32)
		in->off++;
	if (in->off == in->len)
		in->off--; /* as cJSON: stay on the last byte */
}

static cJSON *jx_node(void)
{
	cJSON *c = jx_alloc(sizeof *c);
	if (c)
		memset(c, 0, sizeof *c);
	return c;
}

static unsigned jx_hex4(const unsigned char *h)
{
	unsigned v = 0;
	for (int i = 0; i < 4; i++) {
		unsigned char c = h[i];
		v <<= 4;
		if (c >= '0' && c <= '9')
			v += c - '0';
		else if (c >= 'A' && c <= 'F')
			v += 10u + c - 'A';
		else if (c >= 'a' && c <= 'f')
			v += 10u + c - 'a';
		else
			return 0; /* cJSON reads a bad digit as code 0 */
	}
	return v;
}

/* \uXXXX (or a surrogate pair) at p, before end, to UTF-8 at *out; the
 * bytes consumed, 0 when invalid. */
static int jx_utf16(const unsigned char *p, const unsigned char *end, unsigned char **out)
{
	unsigned long cp;
	unsigned first, n;
	int seq, len;
	unsigned char mark = 0;

	if (end - p < 6)
		return 0;
	first = jx_hex4(p + 2);
	if (first >= 0xDC00 && first <= 0xDFFF)
		return 0;
	if (first >= 0xD800 && first <= 0xDBFF) {
		const unsigned char *q = p + 6;
		if (end - q < 6 || q[0] != '\\' || q[1] != 'u')
			return 0;
		n = jx_hex4(q + 2);
		if (n < 0xDC00 || n > 0xDFFF)
			return 0;
		cp = 0x10000 + (((first & 0x3FF) << 10) | (n & 0x3FF));
		seq = 12;
	} else {
		cp = first;
		seq = 6;
	}
	/* The one place we part from cJSON: \u0000 would end the C string and
	 * hide the rest of it (a transcript's "fine\u0000<the hack>"), so it
	 * becomes U+2400 SYMBOL FOR NULL, visible, and the rest is kept. */
	if (cp == 0 && !memcmp(p + 2, "0000", 4))  /* not a bad digit: cJSON's 0 for those stays */
		cp = 0x2400;
	if (cp < 0x80)
		len = 1;
	else if (cp < 0x800)
		len = 2, mark = 0xC0;
	else if (cp < 0x10000)
		len = 3, mark = 0xE0;
	else if (cp <= 0x10FFFF)
		len = 4, mark = 0xF0;
	else
		return 0;
	for (int i = len - 1; i > 0; i--) {
		(*out)[i] = (unsigned char)((cp | 0x80) & 0xBF);
		cp >>= 6;
	}
	(*out)[0] = len > 1 ? (unsigned char)((cp | mark) & 0xFF) : (unsigned char)(cp & 0x7F);
	*out += len;
	return seq;
}

/* The first '"' or '\\' in [p, end), or end: sixteen bytes a step with
 * SSE2. Most strings of a transcript are short keys and values, for which
 * two calls of memchr (a quote, then a backslash before it) cost more
 * than the scan. */
static const unsigned char *jx_find_qb(const unsigned char *p, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
	while (end - p >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (p < end && *p != '"' && *p != '\\')
		p++;
	return p;
}

static int jx_hex_digit(unsigned char c)
{
	return (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'f');
}

/* Whether the \\u escape at p has four hex digits, and a high surrogate
 * a \\u and four more after it: then the closing quote is past it and
 * jx_utf16 reads it as the two-pass path would. Anything else (cJSON's
 * odd readings of bad digits) is left to that path. */
static int jx_u_plain(const unsigned char *p, const unsigned char *end)
{
	if (end - p < 6)
		return 0;
	for (int i = 2; i < 6; i++)
		if (!jx_hex_digit(p[i]))
			return 0;
	if ((p[2] | 0x20) != 'd' || p[3] < '8' || (p[3] > '9' && (p[3] | 0x20) > 'b'))
		return 1;  /* not a high surrogate (D800-DBFF) */
	if (end - p < 12 || p[6] != '\\' || p[7] != 'u')
		return 0;
	for (int i = 8; i < 12; i++)
		if (!jx_hex_digit(p[i]))
			return 0;
	return 1;
}

/* The byte a one-letter JSON escape (\n, \t, \" ...) stands for; -1 for
 * any other letter (\u is read apart). */
static int jx_escape_char(char c)
{
	switch (c) {
	case 'b': return '\b';
	case 'f': return '\f';
	case 'n': return '\n';
	case 'r': return '\r';
	case 't': return '\t';
	case '"': case '\\': case '/': return c;
	default: return -1;
	}
}

/* The string literal at in->off decoded in one pass straight into the
 * arena, the result's length known only at its end: possible when the
 * chunk has room for the rest of the line (the text never grows when
 * decoded), 16 bytes a step copied while they are scanned. 1 done, 0 not
 * a valid string (as jx_pstring would say), -1 when this path does not
 * apply (no arena, no room, an escape it leaves to jx_pstring). */
static int jx_pstring_arena(struct jx_in *in, char **dst)
{
	const unsigned char *p = in->s + in->off + 1, *end = in->s + in->len;
	unsigned char *out, *o;

	if (!jx_arena.depth || (size_t)(end - p) + 32 > JX_CHUNK - jx_arena.used)
		return -1;
	out = o = (unsigned char *)jx_arena.chunk + jx_arena.used;
	for (;;) {
#ifdef __SSE2__
		const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
		for (;;) {
			if (end - p < 16)
				goto tail;
			__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
			_mm_storeu_si128((__m128i *)(void *)o, v);
			unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
			if (m) {
				unsigned k = (unsigned)__builtin_ctz(m);
				p += k;
				o += k;
				goto special;
			}
			p += 16;
			o += 16;
		}
	tail:
#endif
		while (p < end && *p != '"' && *p != '\\')
			*o++ = *p++;
#ifdef __SSE2__
	special:
#endif
		if (p >= end)
			return 0;
		if (*p == '"')
			break;
		if (p + 1 >= end)
			return 0;
		if (p[1] == 'u') {
			int seq;
			if (!jx_u_plain(p, end))
				return -1;
			if (!(seq = jx_utf16(p, end, &o)))
				return 0;
			p += seq;
			continue;
		}
		int c = jx_escape_char(p[1]);
		if (c < 0)
			return 0;
		*o++ = (unsigned char)c;
		p += 2;
	}
	*o = '\0';
	jx_arena.used += ((size_t)(o - out) + 1 + 15) & ~(size_t)15;
	*dst = (char *)out;
	in->off = (size_t)(p - in->s) + 1;
	return 1;
}

/* A string literal at in->off into *dst (allocated). */
static int jx_pstring(struct jx_in *in, char **dst)
{
	int r;
	if (in->off < in->len && in->s[in->off] == '"' && (r = jx_pstring_arena(in, dst)) >= 0)
		return r;
	const unsigned char *start = in->s + in->off, *end = in->s + in->len;
	const unsigned char *p = start + 1, *q;
	size_t skipped = 0;
	unsigned char *out, *o;

	if (in->off >= in->len || *start != '"')
		return 0;
	/* the closing quote: the first one no backslash escapes */
	for (;;) {
		q = jx_find_qb(p, end);
		if (q >= end)
			return 0;
		if (*q == '"')
			break;
		if (q + 1 >= end)
			return 0;
		skipped++;
		p = q + 2;
		if (p >= end)
			return 0;
	}
	out = jx_alloc((size_t)(q - start) - skipped + 1);
	if (!out)
		return 0;
	if (!skipped) {
		memcpy(out, start + 1, (size_t)(q - start - 1));
		out[q - start - 1] = '\0';
	} else {
		o = out;
		for (p = start + 1; p < q;) {
			if (*p != '\\') {
				/* a quote before q follows a backslash: it is never found
				 * here, where escapes are consumed whole */
				const unsigned char *bs = jx_find_qb(p, q);
				size_t run = (size_t)(bs - p);
				if (!run)
					run = 1;  /* (a quote: a byte as any other) */
				memcpy(o, p, run);
				o += run;
				p += run;
				continue;
			}
			int seq = 2, c = p[1] == 'u' ? 0 : jx_escape_char(p[1]);
			if (p[1] == 'u')
				seq = jx_utf16(p, q, &o);
			else if (c >= 0)
				*o++ = (unsigned char)c;
			if (!seq || c < 0) {
				jx_free(out);
				return 0;
			}
			p += seq;
		}
		*o = '\0';
	}
	*dst = (char *)out;
	in->off = (size_t)(q - in->s) + 1;
	return 1;
}

/* As the packaged cJSON (with the fix for CVE-2023-26819): the whole run
 * of number characters, however long, goes to strtod. */
static int jx_pnumber(struct jx_in *in, cJSON *item)
{
	char small[64], *buf = small, *after;
	size_t i, n = 0, digits = 0;
	double d;
	while (in->off + n < in->len) {
		unsigned char c = in->s[in->off + n];
		if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'e' || c == 'E' || c == '.'))
			break;
		digits += c >= '0' && c <= '9';
		n++;
	}
	/* An integer of up to 15 digits (token counts, ids, times in ms: most
	 * numbers of a transcript), optionally negative, is exact in a double:
	 * strtod would give the same value, -0 included, and take it all. */
	const unsigned char *q = in->s + in->off;
	int neg = n && q[0] == '-';
	if (digits && digits <= 15 && digits == n - (size_t)neg) {
		unsigned long long v = 0;
		for (i = (size_t)neg; i < n; i++)
			v = v * 10 + (unsigned)(q[i] - '0');
		d = neg ? -(double)v : (double)v;
		item->valuedouble = d;
		item->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
		item->type = cJSON_Number;
		in->off += n;
		return 1;
	}
	if (n >= sizeof small)
		buf = xmalloc(n + 1);
	for (i = 0; i < n; i++) {
		char c = (char)in->s[in->off + i];
		buf[i] = c == '.' ? *localeconv()->decimal_point : c;
	}
	buf[n] = '\0';
	d = strtod(buf, &after);
	size_t used = (size_t)(after - buf);
	if (buf != small)
		free(buf);
	if (!used)
		return 0;
	item->valuedouble = d;
	item->valueint = d >= INT_MAX ? INT_MAX : d <= (double)INT_MIN ? INT_MIN : (int)d;
	item->type = cJSON_Number;
	in->off += used;
	return 1;
}

static int jx_pvalue(struct jx_in *in, cJSON *item);

/* An array or object's members; obj: members are "key": value. */
static int jx_pmembers(struct jx_in *in, cJSON *item, int obj)
{
	cJSON *head = NULL, *cur = NULL;
	unsigned char close = obj ? '}' : ']';

	if (in->depth >= CJSON_NESTING_LIMIT)
		return 0;
	in->depth++;
	in->off++;
	jx_skip_ws(in);
	if (in->off < in->len && in->s[in->off] == close)
		goto done;
	if (in->off >= in->len) {
		in->off--;
		goto fail;
	}
	in->off--;
	do {
		cJSON *n = jx_node();
		if (!n)
			goto fail;
		if (!head) {
			head = cur = n;
		} else {
			cur->next = n;
			n->prev = cur;
			cur = n;
		}
		in->off++;
		jx_skip_ws(in);
		if (obj) {
			if (!jx_pstring(in, &cur->string))
				goto fail;
			jx_skip_ws(in);
			if (in->off >= in->len || in->s[in->off] != ':')
				goto fail;
			in->off++;
			jx_skip_ws(in);
		}
		if (!jx_pvalue(in, cur))
			goto fail;
		jx_skip_ws(in);
	} while (in->off < in->len && in->s[in->off] == ',');
	if (in->off >= in->len || in->s[in->off] != close)
		goto fail;
done:
	in->depth--;
	if (head)
		head->prev = cur;
	item->type = obj ? cJSON_Object : cJSON_Array;
	item->child = head;
	in->off++;
	return 1;
fail:
	if (head)
		cJSON_Delete(head);
	return 0;
}

static int jx_pvalue(struct jx_in *in, cJSON *item)
{
	const unsigned char *p = in->s + in->off;
	size_t left = in->off < in->len ? in->len - in->off : 0;

	if (!left)
		return 0;
	switch (*p) {
	case 'n':
		if (left >= 4 && !memcmp(p, "null", 4)) {
			item->type = cJSON_NULL;
			in->off += 4;
			return 1;
		}
		return 0;
	case 'f':
		if (left >= 5 && !memcmp(p, "false", 5)) {
			item->type = cJSON_False;
			in->off += 5;
			return 1;
		}
		return 0;
	case 't':
		if (left >= 4 && !memcmp(p, "true", 4)) {
			item->type = cJSON_True;
			item->valueint = 1;
			in->off += 4;
			return 1;
		}
		return 0;
	case '"':
		if (!jx_pstring(in, &item->valuestring))
			return 0;
		item->type = cJSON_String;
		return 1;
	case '[':
		return jx_pmembers(in, item, 0);
	case '{':
		return jx_pmembers(in, item, 1);
	default:
		if (*p == '-' || (*p >= '0' && *p <= '9'))
			return jx_pnumber(in, item);
		return 0;
	}
}

/* cJSON itself stops at CJSON_NESTING_LIMIT (1000) levels, which bounds
 * its recursion on hostile input; so does this parser. */
cJSON *jx_parse(const char *s, size_t len)
{
	struct jx_in in = {(const unsigned char *)s, len, 0, 0};
	cJSON *item;

	if (!s || !len)
		return NULL;
	if (len > 4 && !memcmp(s, "\xEF\xBB\xBF", 3))
		in.off = 3;
	if (!(item = jx_node()))
		return NULL;
	jx_skip_ws(&in);
	if (!jx_pvalue(&in, item)) {
		cJSON_Delete(item);
		return NULL;
	}
	return item;
}

/* The same through cJSON itself: for tests that hold the two together. */
cJSON *jx_parse_cjson(const char *s, size_t len)
{
	return cJSON_ParseWithLength(s, len);
}
