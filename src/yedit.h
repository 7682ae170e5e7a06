/* yedit.h: changes to the top-level mapping of a hand-written YAML file
 * made in its text, at the marks libyaml gives for the node changed, so
 * that everything else (comments, blank lines, indentation, quoting, key
 * order, errors the file already has) stays byte for byte. The caller
 * re-parses the result to check it (annotate.c). */
#ifndef KB_YEDIT_H
#define KB_YEDIT_H

#include <stddef.h>

/* Text being edited: bytes (owned, NUL-terminated) and length. */
struct yedit_text {
	char *s;
	size_t len;
};

/* Sets top-level key to value (NULL: null). An existing value is replaced
 * where it stands, in its own quoting style when value can be written in
 * it; an absent key is added on a line of its own after the last key that
 * order (NULL-terminated) puts before it. A block scalar written with
 * clip chomping keeps its header: *used (owned) is the value as written,
 * value with a final newline then. Returns the scalar style written
 * (yaml_scalar_style_t), or -1 with *err (owned) saying why nothing was
 * changed. */
int yedit_set(struct yedit_text *t, const char *key, const char *value, const char *const *order,
              char **used, char **err);

/* Appends one item to the block sequence under top-level key (made when
 * absent, null or an empty flow list). item is the item's mapping as block
 * YAML at column 0 ("file: x\nlines: [1]\n..."); it is indented to the
 * sequence's items. 0, or -1 with *err. */
int yedit_append_item(struct yedit_text *t, const char *key, const char *item, const char *const *order,
                      char **err);

/* value as a scalar in style (yaml_scalar_style_t) or, when it cannot be
 * written so, the nearest that can (block, then double-quoted); block lines
 * indented by indent. Returns the style used; *out (owned) the text, the
 * block header and its lines without the final newline. */
int yedit_scalar(const char *value, int style, int indent, char **out);

/* Where text stops being YAML: "LINE:COLUMN: problem" (owned), NULL when
 * it parses. */
char *yedit_syntax_error(const char *text, size_t len);

#endif
