/* evlink.c: RUN@N references and the clipboard sequence carrying them. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "evlink.h"
#include "util.h"

char *evlink_ref(const char *run_id, size_t ev)
{
	return xasprintf("%s@%zu", run_id ? run_id : "", ev + 1);
}

char *evlink_base64(const void *p, size_t n)
{
	static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *s = p;
	char *out = xmalloc((n + 2) / 3 * 4 + 1), *o = out;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)s[i] << 16 | (i + 1 < n ? (unsigned)s[i + 1] << 8 : 0) | (i + 2 < n ? s[i + 2] : 0);
		*o++ = tab[v >> 18 & 63];
		*o++ = tab[v >> 12 & 63];
		*o++ = i + 1 < n ? tab[v >> 6 & 63] : '=';
		*o++ = i + 2 < n ? tab[v & 63] : '=';
	}
	*o = '\0';
	return out;
}

char *evlink_osc52(const char *text)
{
	char *b = evlink_base64(text, strlen(text));
	char *seq = xasprintf("\033]52;c;%s\007", b);
	free(b);
	return seq;
}
