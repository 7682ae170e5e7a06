/* search.c: PCRE2 matching of events, JIT compiled when available. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsonx.h"
#include "relit.h"
#include "search.h"
#include "util.h"

struct search {
	char *pattern;
	pcre2_code *re;
	pcre2_match_data *md;
	struct relit lit;         /* what every match holds; n 0: none */
	int prefilter;            /* SEARCH_PREFILTER_* (search_set_prefilter) */
	int pcre_first;           /* PCRE2 knows the first code unit: its JIT scans as fast */
};

/* The literal every match holds: ours (relit.c), else the one code unit
 * PCRE2 knows a match needs, where the pattern is case-sensitive and sets
 * no option inside, and the unit is no letter PCRE2 may have made
 * caseless (it does not say whether its unit is). A
 * line may be skipped only where PCRE2's newline is LF (or any of CR, LF,
 * CRLF): '.' and \N then never match a '\n'. */
static void search_literal_of(struct search *s, const char *pattern, uint32_t opts)
{
	uint32_t nl = 0, type = 0, cu = 0, all = 0;
	relit_extract(pattern, (opts & PCRE2_CASELESS) != 0, &s->lit);
	pcre2_pattern_info(s->re, PCRE2_INFO_NEWLINE, &nl);
	if (nl != PCRE2_NEWLINE_LF && nl != PCRE2_NEWLINE_ANYCRLF && nl != PCRE2_NEWLINE_ANY)
		s->lit.one_line = 0;
	/* A known first code unit PCRE2's JIT scans for as fast as we would; a
	 * set of first bytes it tries one by one (3x slower over the sample:
	 * a caseless word starting with s or k, which UTF gives a third case,
	 * U+017F and U+212A, has only such a set) */
	pcre2_pattern_info(s->re, PCRE2_INFO_FIRSTCODETYPE, &type);
	s->pcre_first = type == 1;
	type = 0;
	pcre2_pattern_info(s->re, PCRE2_INFO_ALLOPTIONS, &all);
	if (s->lit.n || (all & PCRE2_CASELESS) || strstr(pattern, "(?") || strstr(pattern, "(*"))
		return;
	pcre2_pattern_info(s->re, PCRE2_INFO_LASTCODETYPE, &type);
	if (type == 1) {
		pcre2_pattern_info(s->re, PCRE2_INFO_LASTCODEUNIT, &cu);
	} else {
		pcre2_pattern_info(s->re, PCRE2_INFO_FIRSTCODETYPE, &type);
		if (type == 1)
			pcre2_pattern_info(s->re, PCRE2_INFO_FIRSTCODEUNIT, &cu);
	}
	/* PCRE2 merges a letter's two cases into one caseless unit where the
	 * branches or a class hold both ("or|O", "[oO]r") and does not say so:
	 * a letter whose other case the pattern may hold (written, or behind
	 * an escape or in a class) is not taken */
	int letter = cu < 128 && ((cu | 0x20) >= 'a' && (cu | 0x20) <= 'z');
	if (letter && (strchr(pattern, (int)(cu ^ 0x20)) || strpbrk(pattern, "\\[")))
		return;
	if (type == 1 && cu < 256) {
		s->lit.s[0] = (char)cu;
		s->lit.n = 1;
		s->lit.one_line = 0;
	}
}

/* vi's smartcase: any upper-case letter (outside an escape like \S or \W)
 * makes the search case-sensitive. */
static int search_has_upper(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p >= 'A' && *p <= 'Z')
			return 1;
	}
	return 0;
}

struct search *search_new(const char *pattern, char **err)
{
	int code;
	PCRE2_SIZE off;
	uint32_t opts = PCRE2_UTF | PCRE2_MULTILINE;

	*err = NULL;
	if (!pattern || !*pattern) {
		*err = xstrdup("empty pattern");
		return NULL;
	}
#ifdef PCRE2_MATCH_INVALID_UTF
	opts |= PCRE2_MATCH_INVALID_UTF;
#else
	opts &= ~(uint32_t)PCRE2_UTF;  /* old PCRE2: bytes, so bad UTF-8 cannot fail a match */
#endif
	if (!search_has_upper(pattern))
		opts |= PCRE2_CASELESS;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, opts, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		*err = xasprintf("at offset %zu: %s", (size_t)off, (const char *)msg);
		return NULL;
	}
	/* JIT is an optimisation: where it is missing the interpreter runs */
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	struct search *s = xcalloc(1, sizeof *s);
	s->pattern = xstrdup(pattern);
	s->re = re;
	s->md = pcre2_match_data_create_from_pattern(re, NULL);
	if (!s->md)
		abort();
	s->prefilter = SEARCH_PREFILTER_AUTO;
	search_literal_of(s, pattern, opts);
	return s;
}

void search_free(struct search *s)
{
	if (!s)
		return;
	pcre2_match_data_free(s->md);
	pcre2_code_free(s->re);
	free(s->pattern);
	free(s);
}

const char *search_pattern(const struct search *s)
{
	return s->pattern;
}

int search_next(struct search *s, const char *text, size_t len, size_t start, size_t *so, size_t *eo)
{
	if (!text || start > len)
		return 0;
	int rc = pcre2_match(s->re, (PCRE2_SPTR)text, len, start, 0, s->md, NULL);
	if (rc < 0)
		return 0;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
	if (ov[0] > ov[1] || ov[1] > len)  /* \K can put the start after the end */
		return 0;
	*so = ov[0];
	*eo = ov[1];
	return 1;
}

const struct relit *search_literal(const struct search *s)
{
	if (!s->lit.n || s->prefilter == SEARCH_PREFILTER_OFF)
		return NULL;
	return s->prefilter == SEARCH_PREFILTER_ALWAYS || !s->pcre_first ? &s->lit : NULL;
}

void search_set_prefilter(struct search *s, int mode)
{
	s->prefilter = mode;
}

static int search_str(struct search *s, const char *t)
{
	size_t so, eo, n;
	if (!t)
		return 0;
	n = strlen(t);
	if (search_literal(s) && relit_find(&s->lit, t, n, 0) == n)
		return 0;   /* no match can lack it */
	return search_next(s, t, n, 0, &so, &eo);
}

/* JSON string values, decoded, anywhere in the tree. */
static int search_json(struct search *s, const cJSON *c)
{
	for (; c; c = c->next) {
		if (cJSON_IsString(c) && search_str(s, c->valuestring))
			return 1;
		if (c->string && search_str(s, c->string))
			return 1;
		if (c->child && search_json(s, c->child))
			return 1;
	}
	return 0;
}

int search_event(struct search *s, const struct event *e)
{
	if (search_str(s, e->text) || search_str(s, e->name) || search_str(s, e->path) || search_str(s, e->diff))
		return 1;
	if (!e->args)
		return 0;
	if (search_str(s, e->args))
		return 1;
	cJSON *o = jx_parse(e->args, strlen(e->args));  /* a \u0000 shown, not an end */
	int hit = o && search_json(s, o);
	cJSON_Delete(o);
	return hit;
}

/* search_event reads e->diff: render the diff first (it is made on use) */
static int search_event_at(struct search *s, const struct run *r, size_t i)
{
	run_event_diff(r, i);
	return search_event(s, &r->ev[i]);
}

long search_run(struct search *s, const struct run *r, size_t from, int dir, int *wrapped)
{
	size_t n = r->nev;
	*wrapped = 0;
	if (!n)
		return -1;
	if (from >= n)
		from = dir > 0 ? n - 1 : 0;
	size_t i = from;
	for (size_t k = 0; k < n; k++) {
		if (dir > 0) {
			i = i + 1 < n ? i + 1 : 0;
			*wrapped |= i == 0;
		} else {
			*wrapped |= i == 0;
			i = i > 0 ? i - 1 : n - 1;
		}
		if (search_event_at(s, r, i))
			return (long)i;
	}
	*wrapped = 0;
	return -1;
}

size_t search_events(struct search *s, const struct run *r, size_t **out)
{
	*out = NULL;
	return search_events_more(s, r, 0, out, 0);
}

size_t search_events_more(struct search *s, const struct run *r, size_t from, size_t **out, size_t n)
{
	while (n > 0 && (*out)[n - 1] >= from)
		n--;
	/* the array grows by doubling: its capacity is the power of two at or
	 * above n, so that it need not be stored */
	size_t cap = 16;
	while (cap < n)
		cap *= 2;
	if (!*out)
		cap = 0;
	for (size_t i = from; i < r->nev; i++) {
		if (!search_event_at(s, r, i))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			*out = xrealloc(*out, cap * sizeof **out);
		}
		(*out)[n++] = i;
	}
	return n;
}
