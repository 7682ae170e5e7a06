/* textsafe.h: transcript text is untrusted. Before any of it reaches a
 * terminal, control characters and escape sequences are made visible
 * (ESC as "^[", other C0 as ^X, DEL as ^?, C1 as <U+009B>), and invalid
 * UTF-8 bytes as <XX>. Tabs and newlines are kept unless asked. */
#ifndef KB_TEXTSAFE_H
#define KB_TEXTSAFE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

struct sbuf;

enum {
	TS_KEEP_NL = 1,    /* keep newlines (else each becomes a space) */
	TS_KEEP_TAB = 2,   /* keep '\t' (else expanded to a space) */
};

/* Newly allocated safe copy of s[0..n). */
char *textsafe(const char *s, size_t n, int flags);
/* Display width in columns of a safe string's first n bytes (UTF-8). */
size_t textsafe_width(const char *s, size_t n);

/* ---- the one way untrusted text reaches a human-readable stream ----------
 * stderr diagnostics, text tables, Markdown and CSV: every string that came
 * from a transcript, annotation, dataset path, server or model goes out
 * through these, made safe as above. They return a negative value on a
 * write error, as fputs does. */

/* s[0..n) made safe (s may hold NULs: each shows as ^@, the rest follows). */
int textsafe_fput(FILE *f, const char *s, size_t n, int flags);
/* A NUL-terminated string (NULL writes nothing). */
int textsafe_fputs(FILE *f, const char *s, int flags);
/* A message composed as printf does and made safe, tabs kept: for
 * diagnostics that embed file names, record types, server replies or
 * messages composed from them. The format's newlines are kept; a newline
 * inside a %s argument shows as "^J", so a name cannot forge a line. */
int textsafe_fprintf(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A table cell of exactly width columns (no cut or padding when width <= 0):
 * s made safe, cut at a character with "~" when wider, padded with spaces
 * on the right (or the left when right is set). */
int textsafe_fput_cell(FILE *f, const char *s, int width, int right);

/* How many bytes of s[0..n) to keep to cut it at no more than max bytes
 * without splitting a UTF-8 sequence (for "%.*s"). */
size_t textsafe_cut(const char *s, size_t n, size_t max);

/* vsnprintf into dst[size] that, when the text is cut, cuts it before a
 * character rather than inside one. */
void textsafe_vsnprintf(char *dst, size_t size, const char *fmt, va_list ap);

/* A JSON string literal of s[0..n), quotes included, appended to b: control
 * characters, DEL, C1, line separators and bidi overrides escaped as
 * \uXXXX, each invalid UTF-8 byte as \ufffd (JSON is UTF-8). */
void textsafe_json_str(struct sbuf *b, const char *s, size_t n);
/* The same escapes applied to a JSON text that a JSON library wrote (which
 * leaves DEL, C1, separators, bidi and invalid bytes raw in strings);
 * outside strings such text is ASCII, so the result is still JSON. */
void textsafe_json_fix(struct sbuf *b, const char *json);

#endif
