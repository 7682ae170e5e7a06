/* textsafe.h: transcript text is untrusted. Before any of it reaches a
 * terminal, control characters and escape sequences are made visible
 * (ESC as "^[", other C0 as ^X, DEL as ^?, C1 as <U+009B>), and invalid
 * UTF-8 bytes as <XX>. Tabs and newlines are kept unless asked. */
#ifndef KB_TEXTSAFE_H
#define KB_TEXTSAFE_H

#include <stddef.h>

enum {
	TS_KEEP_NL = 1,    /* keep newlines (else each becomes a space) */
	TS_KEEP_TAB = 2,   /* keep '\t' (else expanded to a space) */
};

/* Newly allocated safe copy of s[0..n). */
char *textsafe(const char *s, size_t n, int flags);
/* Display width in columns of a safe string's first n bytes (UTF-8). */
size_t textsafe_width(const char *s, size_t n);

#endif
