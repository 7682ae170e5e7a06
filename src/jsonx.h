/* jsonx.h: small conveniences over cJSON for reading untrusted documents:
 * every getter tolerates missing keys and wrong types. */
#ifndef KB_JSONX_H
#define KB_JSONX_H

#include <cjson/cJSON.h>

/* Child by key (case-sensitive), NULL when o is not an object. */
const cJSON *jx_get(const cJSON *o, const char *key);
/* Walks "a.b.c" through objects. */
const cJSON *jx_path(const cJSON *o, const char *dotted);
/* String value or NULL (borrowed). */
const char *jx_str(const cJSON *o, const char *key);
const char *jx_pstr(const cJSON *o, const char *dotted);
/* Number value or dflt. */
double jx_num(const cJSON *o, const char *key, double dflt);
long long jx_ll(const cJSON *o, const char *key, long long dflt);
/* 1 true, 0 false, dflt otherwise. */
int jx_bool(const cJSON *o, const char *key, int dflt);
/* Compact JSON text of o (owned by caller); "null" for NULL. */
char *jx_print(const cJSON *o);
/* String content of o if a string, else its compact JSON (owned). */
char *jx_text(const cJSON *o);
/* Concatenated "text" of an array of content blocks of the given type
 * (e.g. Anthropic/OpenAI content arrays), or the string itself (owned,
 * NULL when nothing). */
char *jx_blocks_text(const cJSON *content, const char *type, const char *field);
/* ISO-8601 UTC timestamp ("2026-04-27T23:07:11.123Z") or a number of
 * seconds/milliseconds to seconds since the epoch; 0 when unparseable. */
double jx_time(const cJSON *v);

/* A scope in which cJSON trees live in a per-line arena: everything cJSON
 * allocated inside is released by the matching jx_arena_end, so no cJSON
 * value (nor a borrowed pointer into one) may outlive the scope. Scopes
 * nest; only the outermost end releases. */
void jx_arena_begin(void);
void jx_arena_end(void);

/* A copy of s (owned by the caller), NULL for NULL. When s is a large
 * string of the current arena's cJSON tree, the string itself is handed
 * over instead of copied: a huge line's text exists once, not twice. The
 * tree's node still points at it, so the caller must be done reading s
 * through the tree (nor may the tree be cJSON_Delete'd: arena trees are
 * released by jx_arena_end, which then leaves s alone). */
char *jx_strdup(const char *s);

/* Parse with a nesting limit; NULL on error. len need not be NUL-terminated.
 * As cJSON but that \u0000 in a string reads as U+2400 (a visible symbol),
 * not as a NUL that would end the string there. */
cJSON *jx_parse(const char *s, size_t len);
/* cJSON_ParseWithLength itself, which jx_parse matches (for tests). */
cJSON *jx_parse_cjson(const char *s, size_t len);

#endif
