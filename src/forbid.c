/* forbid.c: PCRE2 over the whole source, lines counted afterwards. */
#include "forbid.h"
#include "util.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

struct forbid {
	pcre2_code **code;
	int n;
	pcre2_match_data *md;
};

struct forbid *forbid_new(const char *const *patterns, int n, char **err)
{
	struct forbid *f = xcalloc(1, sizeof *f);
	f->code = xcalloc((size_t)n + 1, sizeof *f->code);
	for (int i = 0; i < n; i++) {
		int ec;
		PCRE2_SIZE off;
		/* MULTILINE so ^ and $ mean a line of the source; no UTF so that
		 * invalid UTF-8 in a source cannot make matching fail */
		f->code[i] = pcre2_compile((PCRE2_SPTR)patterns[i], PCRE2_ZERO_TERMINATED, PCRE2_MULTILINE, &ec,
		                           &off, NULL);
		if (!f->code[i]) {
			PCRE2_UCHAR msg[256];
			pcre2_get_error_message(ec, msg, sizeof msg);
			*err = xasprintf("forbidden pattern %d \"%s\": %s at offset %zu", i + 1, patterns[i],
			                 (const char *)msg, (size_t)off);
			f->n = i;
			forbid_free(f);
			return NULL;
		}
		pcre2_jit_compile(f->code[i], PCRE2_JIT_COMPLETE); /* falls back to the interpreter */
		f->n = i + 1;
	}
	f->md = pcre2_match_data_create(4, NULL);
	return f;
}

void forbid_free(struct forbid *f)
{
	if (!f)
		return;
	for (int i = 0; i < f->n; i++)
		pcre2_code_free(f->code[i]);
	free(f->code);
	pcre2_match_data_free(f->md);
	free(f);
}

int forbid_scan(const struct forbid *f, const char *src, size_t len, struct forbid_hit *hit)
{
	size_t best = (size_t)-1;
	int best_i = -1;

	memset(hit, 0, sizeof *hit);
	for (int i = 0; i < f->n; i++) {
		int rc = pcre2_match(f->code[i], (PCRE2_SPTR)src, len, 0, 0, f->md, NULL);
		if (rc < 0)
			continue;   /* no match, or a resource limit: not a hit */
		size_t at = pcre2_get_ovector_pointer(f->md)[0];
		if (at < best) {
			best = at;
			best_i = i;
		}
	}
	if (best_i < 0)
		return 0;
	const char *bol = src;
	hit->line = 1;
	for (const char *p = src; p < src + best; p++)
		if (*p == '\n') {
			hit->line++;
			bol = p + 1;
		}
	hit->col = (int)(src + best - bol) + 1;
	hit->pattern = best_i;
	const char *eol = memchr(bol, '\n', (size_t)(src + len - bol));
	hit->text = xstrndup(bol, (size_t)((eol ? eol : src + len) - bol));
	return 1;
}

void forbid_hit_free(struct forbid_hit *hit)
{
	free(hit->text);
	hit->text = NULL;
}
