/* test_jsonx.c: jx_print writes what cJSON_PrintUnformatted writes, byte
 * for byte, for strings of every byte value at every length and alignment
 * (the escaping skips plain text eight bytes at a time), and jx_parse reads
 * it back to the same strings. */
#include <cjson/cJSON.h>

#include "jsonx.h"
#include "util.h"
#include "tap.h"

int main(void)
{
	unsigned seed = 7;
	int same = 0, back = 0, n = 0;
	char s[80];
	for (int t = 0; t < 20000; t++, n++) {
		int len = (int)((seed = seed * 1103515245u + 12345u) >> 16) % 70;
		int mode = t % 4;  /* plain, a few specials, all bytes, high bytes */
		for (int i = 0; i < len; i++) {
			unsigned x = (seed = seed * 1103515245u + 12345u) >> 16;
			unsigned char c = mode == 0 ? (unsigned char)('a' + x % 26)
			                  : mode == 1 ? (unsigned char)(x % 13 == 0 ? (unsigned char)"\"\\\n\t\x01\x1f"[x % 6] : 'a' + x % 26)
			                  : mode == 2 ? (unsigned char)(1 + x % 255)
			                              : (unsigned char)(0x80 + x % 128);
			s[i] = (char)c;
		}
		s[len] = '\0';
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, s, s + (len > 3 ? 3 : len));  /* a key and an unaligned value */
		cJSON_AddItemToObject(o, "v", cJSON_CreateString(s));
		char *a = cJSON_PrintUnformatted(o), *b = jx_print(o);
		same += a && b && !strcmp(a, b);
		/* plain and escaped text comes back as it was; bytes that are not
		 * UTF-8 come back as cJSON's own parser gives them */
		cJSON *p = b ? jx_parse(b, strlen(b)) : NULL, *q = b ? jx_parse_cjson(b, strlen(b)) : NULL;
		const cJSON *v = cJSON_GetArrayItem(p, 1), *w = cJSON_GetArrayItem(q, 1);  /* the second member */
		const char *want = mode < 2 ? s : cJSON_IsString(w) ? w->valuestring : NULL;
		back += (cJSON_IsString(v) && want && !strcmp(v->valuestring, want)) || (!v && !want);
		cJSON_Delete(q);
		if (a && b && strcmp(a, b) && same + 1 == n)
			printf("# differs: %s\n#    from: %s\n", b, a);
		cJSON_Delete(p);
		free(a);
		free(b);
		cJSON_Delete(o);
	}
	is_int(same, n, "jx_print writes cJSON's text for %d objects of random strings", n);

	/* numbers: integers written without cJSON, the rest through it */
	static const double nums[] = {0, -0.0, 1, -1, 7, 10, 99, 100, 2147483647.0, -2147483648.0, 2147483648.0,
	                              -2147483649.0, 1e15, 123456789012345.0, 0.5, -0.25, 1e-7, 1.7e9 + 0.123,
	                              3.141592653589793, 1e300, -1e300, 4294967296.0, 12345.0, -987654321.0};
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = 0; i < sizeof nums / sizeof *nums; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(nums[i]));
	for (int i = -3000; i <= 3000; i += 7)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(i * 1000003.0));
	cJSON *nan = cJSON_CreateNumber(0);
	nan->valuedouble = 0.0 / 0.0;  /* cJSON writes null for NaN */
	cJSON_AddItemToArray(arr, nan);
	char *a = cJSON_PrintUnformatted(arr), *b = jx_print(arr);
	ok(a && b && !strcmp(a, b), "jx_print writes cJSON's text for integers, fractions, NaN, both signs");
	if (a && b && strcmp(a, b))
		printf("# %s\n# %s\n", a, b);
	free(a);
	free(b);
	cJSON_Delete(arr);
	is_int(back, n, "and jx_parse reads them back (as cJSON does)");
	return tap_done();
}
