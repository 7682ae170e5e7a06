/* fuzz_textsafe.c: libFuzzer target for textsafe: whatever goes in, what
 * comes out has no control byte a terminal would act on (C0 other than
 * \t/\n, DEL, C1 as UTF-8) and is valid UTF-8; the same for the JSON
 * escaper; and textsafe_cut never cuts inside a character. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "textsafe.h"
#include "util.h"

static size_t fuzz_utf8_len(const unsigned char *s, size_t n)
{
	/* length of a valid UTF-8 sequence at s, 0 when invalid */
	unsigned c = s[0];
	size_t len;
	unsigned cp;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4, cp = c & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	if (cp >= 0x80 && cp <= 0x9f)
		abort(); /* a C1 control reached the output */
	return len;
}

static void fuzz_check(const char *out, int flags)
{
	const unsigned char *s = (const unsigned char *)out;
	size_t n = strlen(out);
	for (size_t i = 0; i < n;) {
		unsigned c = s[i];
		if (c < 0x20 && !((c == '\n' && (flags & TS_KEEP_NL)) || (c == '\t' && (flags & TS_KEEP_TAB))))
			abort();
		if (c == 0x7f)
			abort();
		size_t l = fuzz_utf8_len(s + i, n - i);
		if (!l)
			abort();
		i += l;
	}
	(void)textsafe_width(out, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *in = (const char *)data;
	for (int flags = 0; flags < 4; flags++) {
		char *out = textsafe(in, size, flags);
		fuzz_check(out, flags);
		free(out);
	}
	/* a JSON string of anything: no raw control, valid UTF-8 */
	struct sbuf b;
	sbuf_init(&b);
	textsafe_json_str(&b, in, size);
	fuzz_check(b.s, 0);
	sbuf_free(&b);
	/* a cut never ends inside a valid character */
	for (size_t max = 0; max <= size && max < 16; max++) {
		size_t k = textsafe_cut(in, size, max);
		char *whole = textsafe(in, size, 0), *part = textsafe(in, k, 0);
		if (k > max || strncmp(whole, part, strlen(part)) != 0)
			abort();
		free(whole);
		free(part);
	}
	return 0;
}
