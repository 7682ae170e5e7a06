/* textsafe.c: makes untrusted text safe to draw: no byte that a terminal
 * would act on survives, and everything stays visible. */
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Length of a valid UTF-8 sequence at s (max n bytes), 0 if invalid;
 * the code point goes to *cp. Overlongs and surrogates are invalid. */
static size_t ts_utf8(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	} else if ((s[0] & 0xE0) == 0xC0) {
		len = 2;
		c = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		len = 3;
		c = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/* Line separators and bidi controls: they move or reorder what follows. */
static int ts_reorders(uint32_t cp)
{
	return cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* How many bytes from s on are printable ASCII (0x20 to 0x7E), which every
 * function here passes on as they are, but '"' and '\\' when quote (JSON
 * escapes them): the bulk of a transcript's text, copied as one run
 * instead of a code point at a time. Sixteen bytes a step with SSE2. */
static size_t ts_ascii_run(const unsigned char *s, size_t n, int quote)
{
	size_t i = 0;
#ifdef __SSE2__
	const __m128i lo = _mm_set1_epi8(0x20), del = _mm_set1_epi8(0x7F);
	const __m128i q = _mm_set1_epi8(quote ? '"' : 0x7F), bs = _mm_set1_epi8(quote ? '\\' : 0x7F);
	for (; n - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
		/* signed: below 0x20, or 0x80 and up (negative) */
		__m128i bad = _mm_or_si128(_mm_cmplt_epi8(v, lo), _mm_cmpeq_epi8(v, del));
		bad = _mm_or_si128(bad, _mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
		unsigned m = (unsigned)_mm_movemask_epi8(bad);
		if (m)
			return i + (size_t)__builtin_ctz(m);
	}
#endif
	for (; i < n; i++)
		if (s[i] < 0x20 || s[i] >= 0x7F || (quote && (s[i] == '"' || s[i] == '\\')))
			break;
	return i;
}

char *textsafe(const char *str, size_t n, int flags)
{
	const unsigned char *s = (const unsigned char *)str;
	struct sbuf b;
	size_t i = 0;

	sbuf_init(&b);
	while (i < n) {
		uint32_t cp;
		size_t run = ts_ascii_run(s + i, n - i, 0);
		if (run) {
			sbuf_add(&b, (const char *)s + i, run);
			i += run;
			continue;
		}
		size_t len = ts_utf8(s + i, n - i, &cp);
		if (!len) {
			sbuf_addf(&b, "<%02X>", s[i]);
			i++;
			continue;
		}
		if (cp == '\n' && (flags & TS_KEEP_NL))
			sbuf_addc(&b, '\n');
		else if (cp == '\t')
			sbuf_adds(&b, (flags & TS_KEEP_TAB) ? "\t" : " ");
		else if (cp == '\n')
			sbuf_adds(&b, " ");
		else if (cp < 0x20)
			sbuf_addf(&b, "^%c", (char)(cp + 0x40));
		else if (cp == 0x7F)
			sbuf_adds(&b, "^?");
		else if (cp >= 0x80 && cp < 0xA0)
			sbuf_addf(&b, "<U+%04X>", cp);
		else if (ts_reorders(cp))
			/* line separators and bidi overrides can reorder what is shown */
			sbuf_addf(&b, "<U+%04X>", cp);
		else
			sbuf_add(&b, (const char *)s + i, len);
		i += len;
	}
	return sbuf_detach(&b);
}

size_t textsafe_width(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, w = 0;
	while (i < n) {
		uint32_t cp;
		/* printable ASCII is a cell a byte: no wcwidth for it */
		size_t run = ts_ascii_run(s + i, n - i, 0);
		if (run) {
			i += run;
			w += run;
			continue;
		}
		size_t len = ts_utf8(s + i, n - i, &cp);
		if (!len) {
			i++;
			w++;
			continue;
		}
		int cw = wcwidth((wchar_t)cp);
		/* unknown to the locale (C locale, new code points): one cell */
		w += cw >= 0 ? (size_t)cw : 1;
		i += len;
	}
	return w;
}

int textsafe_fput(FILE *f, const char *s, size_t n, int flags)
{
	char *t = textsafe(s ? s : "", s ? n : 0, flags);
	int rc = fputs(t, f);
	free(t);
	return rc;
}

int textsafe_fputs(FILE *f, const char *s, int flags)
{
	return s ? textsafe_fput(f, s, strlen(s), flags) : 0;
}

/* ---- a message: our format, their arguments ------------------------------
 * The format's newlines break lines; a newline inside an argument (a file
 * name, a record type, a server's reply) must not, or a name could forge a
 * line of its own ("x\nkbtui: all runs clean"). So the message is composed
 * a conversion at a time: each string argument's newlines become "^J" as
 * any other control character does, then the whole is made safe. */

/* One conversion, spec[0..) its text ("%-*.*zu"), its value fetched by
 * type from ap, appended to b. */
#define TS_ONE(b, spec, nstar, s1, s2, type)                                                  \
	do {                                                                                  \
		type v_ = va_arg(*ap, type);                                                  \
		if (nstar == 2)                                                               \
			sbuf_addf(b, spec, s1, s2, v_);                                       \
		else if (nstar == 1)                                                          \
			sbuf_addf(b, spec, s1, v_);                                           \
		else                                                                          \
			sbuf_addf(b, spec, v_);                                               \
	} while (0)

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"
static void ts_string_arg(struct sbuf *b, const char *spec, int nstar, int s1, int s2, const char *v)
{
	size_t from = b->len;
	if (!v)
		v = "(null)";
	if (nstar == 2)
		sbuf_addf(b, spec, s1, s2, v);
	else if (nstar == 1)
		sbuf_addf(b, spec, s1, v);
	else
		sbuf_addf(b, spec, v);
	if (!memchr(b->s + from, '\n', b->len - from))
		return;
	struct sbuf t;
	sbuf_init(&t);
	for (size_t i = from; i < b->len; i++) {
		if (b->s[i] == '\n')
			sbuf_adds(&t, "^J");
		else
			sbuf_addc(&t, b->s[i]);
	}
	b->len = from;
	b->s[from] = '\0';
	sbuf_add(b, t.s, t.len);
	sbuf_free(&t);
}

/* The conversion at fmt (just past its '%'), appended; returns where the
 * format goes on. Types follow C's length modifiers; the compiler has
 * checked every call's arguments against its format. */
static const char *ts_conversion(struct sbuf *b, const char *fmt, va_list *ap, int err)
{
	char spec[32];
	size_t n = 0;
	int nstar = 0, star[2] = { 0, 0 };
	spec[n++] = '%';
	for (; *fmt && strchr("-+ #0123456789.*hlLqjzt", *fmt) && n < sizeof spec - 2; fmt++) {
		if (*fmt == '*' && nstar < 2)
			star[nstar++] = va_arg(*ap, int);
		spec[n++] = *fmt;
	}
	char conv = *fmt ? *fmt++ : '\0';
	spec[n++] = conv;
	spec[n] = '\0';
	int l = 0;   /* 'h' -1, none 0, 'l' 1, "ll" 2, 'z' 3, 'j' 4, 't' 5, 'L' 6 */
	for (size_t i = 1; i + 1 < n; i++)
		switch (spec[i]) {
		case 'l': l = l == 1 ? 2 : 1; break;
		case 'q': l = 2; break;
		case 'z': l = 3; break;
		case 'j': l = 4; break;
		case 't': l = 5; break;
		case 'L': l = 6; break;
		case 'h': l = -1; break;
		default: break;
		}
	switch (conv) {
	case 'd': case 'i':
		if (l == 1) TS_ONE(b, spec, nstar, star[0], star[1], long);
		else if (l == 2) TS_ONE(b, spec, nstar, star[0], star[1], long long);
		else if (l == 3) TS_ONE(b, spec, nstar, star[0], star[1], ssize_t);
		else if (l == 4) TS_ONE(b, spec, nstar, star[0], star[1], intmax_t);
		else if (l == 5) TS_ONE(b, spec, nstar, star[0], star[1], ptrdiff_t);
		else TS_ONE(b, spec, nstar, star[0], star[1], int);
		break;
	case 'u': case 'x': case 'X': case 'o':
		if (l == 1) TS_ONE(b, spec, nstar, star[0], star[1], unsigned long);
		else if (l == 2) TS_ONE(b, spec, nstar, star[0], star[1], unsigned long long);
		else if (l == 3) TS_ONE(b, spec, nstar, star[0], star[1], size_t);
		else if (l == 4) TS_ONE(b, spec, nstar, star[0], star[1], uintmax_t);
		else if (l == 5) TS_ONE(b, spec, nstar, star[0], star[1], ptrdiff_t);
		else TS_ONE(b, spec, nstar, star[0], star[1], unsigned);
		break;
	case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
		if (l == 6) TS_ONE(b, spec, nstar, star[0], star[1], long double);
		else TS_ONE(b, spec, nstar, star[0], star[1], double);
		break;
	case 'c':
		if (l == 1) {
			TS_ONE(b, spec, nstar, star[0], star[1], wint_t);
		} else {  /* a character from the data is as a string of one */
			char one[2] = { (char)va_arg(*ap, int), '\0' };
			spec[n - 1] = 's';
			if (one[0])
				ts_string_arg(b, spec, nstar, star[0], star[1], one);
			else
				sbuf_addc(b, '\0');  /* (shown as ^@) */
		}
		break;
	case 'p':
		TS_ONE(b, spec, nstar, star[0], star[1], void *);
		break;
	case 's':
		if (l == 1) {  /* a wide string: as printf converts it (its newlines kept) */
			TS_ONE(b, spec, nstar, star[0], star[1], const wchar_t *);
			break;
		}
		ts_string_arg(b, spec, nstar, star[0], star[1], va_arg(*ap, const char *));
		break;
	case '%':
		sbuf_addc(b, '%');
		break;
	case 'm':
		sbuf_adds(b, strerror(err));
		break;
	case 'n':  /* its pointer taken, so the rest stay in step; never written */
		(void)va_arg(*ap, void *);
		sbuf_add(b, spec, n);
		break;
	default:   /* a spec we do not know: shown as it is */
		sbuf_add(b, spec, n);
		break;
	}
	return fmt;
}
#pragma GCC diagnostic pop

/* err: errno as the caller left it, for %m */
static void ts_vformat(struct sbuf *b, const char *fmt, va_list ap, int err)
{
	va_list cp;
	va_copy(cp, ap);
	while (*fmt) {
		const char *pc = strchr(fmt, '%');
		size_t lit = pc ? (size_t)(pc - fmt) : strlen(fmt);
		sbuf_add(b, fmt, lit);
		if (!pc)
			break;
		fmt = ts_conversion(b, pc + 1, &cp, err);
	}
	va_end(cp);
}

int textsafe_fprintf(FILE *f, const char *fmt, ...)
{
	va_list ap;
	struct sbuf b;
	int err = errno;
	sbuf_init(&b);
	va_start(ap, fmt);
	ts_vformat(&b, fmt, ap, err);
	va_end(ap);
	int rc = textsafe_fput(f, b.s ? b.s : "", b.len, TS_KEEP_NL | TS_KEEP_TAB);
	sbuf_free(&b);
	return rc;
}

size_t textsafe_cut(const char *str, size_t n, size_t max)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		size_t len = ts_utf8(s + i, n - i, &cp);
		if (!len)
			len = 1;  /* an invalid byte is one character (shown as <XX>) */
		if (i + len > max)
			break;
		i += len;
	}
	return i;
}

void textsafe_vsnprintf(char *dst, size_t size, const char *fmt, va_list ap)
{
	va_list cp;
	if (!size)
		return;
	va_copy(cp, ap);
	int n = vsnprintf(dst, size, fmt, ap);
	if (n >= 0 && (size_t)n >= size) {
		char *full = xmalloc((size_t)n + 1);
		vsnprintf(full, (size_t)n + 1, fmt, cp);
		size_t keep = textsafe_cut(full, (size_t)n, size - 1);
		memcpy(dst, full, keep);
		dst[keep] = '\0';
		free(full);
	}
	va_end(cp);
}

int textsafe_fput_cell(FILE *f, const char *s, int width, int right)
{
	char *safe = textsafe(s ? s : "", s ? strlen(s) : 0, 0);
	size_t len = strlen(safe);
	int n = (int)textsafe_width(safe, len), rc;
	if (width <= 0) {
		rc = fputs(safe, f);
	} else if (n > width) {
		/* cut by display width, never inside a character */
		size_t i = 0;
		int used = 0;
		while (i < len) {
			uint32_t cp;
			size_t cl = ts_utf8((const unsigned char *)safe + i, len - i, &cp);
			int cw = (int)textsafe_width(safe + i, cl ? cl : 1);
			if (used + cw > width - 1)
				break;
			used += cw;
			i += cl ? cl : 1;
		}
		int pad = width - 1 - used;
		rc = right ? fprintf(f, "%*s%.*s~", pad, "", (int)i, safe) : fprintf(f, "%.*s~%*s", (int)i, safe, pad, "");
	} else {
		rc = right ? fprintf(f, "%*s%s", width - n, "", safe) : fprintf(f, "%s%*s", safe, width - n, "");
	}
	free(safe);
	return rc;
}

static void ts_json_esc(struct sbuf *b, const unsigned char *s, size_t n, int quote)
{
	size_t i = 0;
	while (i < n) {
		uint32_t cp;
		size_t run = ts_ascii_run(s + i, n - i, quote);
		if (run) {
			sbuf_add(b, (const char *)s + i, run);
			i += run;
			continue;
		}
		size_t len = ts_utf8(s + i, n - i, &cp);
		if (!len) {
			sbuf_adds(b, "\\ufffd");
			i++;
			continue;
		}
		if (quote && (cp == '"' || cp == '\\'))
			sbuf_addf(b, "\\%c", (char)cp);
		else if (quote && cp == '\n')
			sbuf_adds(b, "\\n");
		else if (quote && cp == '\t')
			sbuf_adds(b, "\\t");
		else if (quote && cp == '\r')
			sbuf_adds(b, "\\r");
		else if (!quote && (cp == '\n' || cp == '\t' || cp == '\r'))
			sbuf_addc(b, (char)cp);  /* a library's layout between tokens */
		else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) || ts_reorders(cp))
			sbuf_addf(b, "\\u%04x", cp);
		else
			sbuf_add(b, (const char *)s + i, len);
		i += len;
	}
}

void textsafe_json_str(struct sbuf *b, const char *s, size_t n)
{
	sbuf_addc(b, '"');
	ts_json_esc(b, (const unsigned char *)(s ? s : ""), s ? n : 0, 1);
	sbuf_addc(b, '"');
}

void textsafe_json_fix(struct sbuf *b, const char *json)
{
	ts_json_esc(b, (const unsigned char *)json, strlen(json), 0);
}
