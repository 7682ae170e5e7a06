/* fuzz_jsonx.c: libFuzzer target, jx_parse against cJSON itself. Every
 * reader of kbtui parses hostile lines with jx_parse (a parser of ours,
 * for speed and for \u0000), which promises cJSON's reading: both refuse
 * an input or both give the same tree, with plain malloc and inside a
 * line's arena; and jx_print writes what cJSON_PrintUnformatted writes.
 * Inputs with a \u0000 escape are left out: there jx_parse differs on
 * purpose (a visible U+2400 where cJSON ends the string). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cjson/cJSON.h>

#include "jsonx.h"
#include "../tests/jxsame.h"

static void fz_agree(const char *s, size_t n)
{
	cJSON *a = jx_parse(s, n), *b = jx_parse_cjson(s, n);
	if (!a != !b || (a && !jx_same_tree(a, b)))
		abort();  /* jx_parse read it otherwise than cJSON */
	if (b) {
		char *x = cJSON_PrintUnformatted(b), *y = jx_print(b);
		if (!x != !y || (x && strcmp(x, y)))
			abort();  /* jx_print wrote otherwise than cJSON */
		free(x);
		free(y);
	}
	cJSON_Delete(a);
	cJSON_Delete(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	for (size_t i = 0; i + 6 <= size; i++)
		if (!memcmp(s + i, "\\u0000", 6))
			return 0;
	fz_agree(s, size);
	jx_arena_begin();  /* strings decoded straight into the line's arena */
	cJSON *a = jx_parse(s, size), *b = jx_parse_cjson(s, size);
	if (!a != !b || (a && !jx_same_tree(a, b)))
		abort();
	cJSON_Delete(b);
	jx_arena_end();
	return 0;
}
