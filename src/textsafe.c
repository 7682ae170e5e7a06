/* textsafe.c: makes untrusted text safe to draw: no byte that a terminal
 * would act on survives, and everything stays visible. */
#include "textsafe.h"
#include "util.h"

#include <stdint.h>
#include <wchar.h>

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

char *textsafe(const char *str, size_t n, int flags)
{
	const unsigned char *s = (const unsigned char *)str;
	struct sbuf b;
	size_t i = 0;

	sbuf_init(&b);
	while (i < n) {
		uint32_t cp;
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
		else if (cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) ||
		         (cp >= 0x2066 && cp <= 0x2069))
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
