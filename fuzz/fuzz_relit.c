/* fuzz_relit.c: libFuzzer target for the literal prefilter (src/relit.c).
 * A search skips text that lacks its pattern's literal (or, for an
 * alternation, all of its branches' literals) before PCRE2 runs: a wrong
 * literal hides a match, and a hack hunted by search goes unseen. The
 * input is a pattern and a text split at the first NUL. Wherever PCRE2
 * finds a match from any start, the scan from that start finds a literal
 * before the match ends; a match said to stay on one line holds no
 * newline; and relit_find_memo answers as relit_find. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "relit.h"
#include "search.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *d = (const char *)data, *z = memchr(d, '\0', size);
	if (!z || z == d || (size_t)(z - d) > 200)
		return 0;
	char *pat = xstrndup(d, (size_t)(z - d));
	const char *text = z + 1;
	size_t n = size - (size_t)(z - d) - 1;
	char *err = NULL;
	struct search *s = search_new(pat, &err);
	free(err);
	if (s) {
		search_set_prefilter(s, SEARCH_PREFILTER_ALWAYS);
		const struct relit *l = search_literal(s);
		struct relit_memo memo = { NULL, 0, {0}, {0} };
		size_t so, eo;
		for (size_t start = 0; l && start <= n; start++) {
			if (!search_next(s, text, n, start, &so, &eo))
				break;
			size_t q = relit_find(l, text, n, start);
			if (relit_find_memo(l, &memo, text, n, start) != q)
				abort();  /* the memo answered otherwise */
			/* what PCRE2 found from start holds a literal: the scan from
			 * start finds one before the match ends */
			if (q >= eo)
				abort();
			if (l->one_line && memchr(text + so, '\n', eo - so))
				abort();  /* a match on more than one line */
			start = so;
		}
		search_free(s);
	}
	free(pat);
	return 0;
}
