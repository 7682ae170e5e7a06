/* search.c: PCRE2 matching of events, JIT compiled when available. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "search.h"
#include "util.h"

struct search {
	char *pattern;
	pcre2_code *re;
	pcre2_match_data *md;
};

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

static int search_str(struct search *s, const char *t)
{
	size_t so, eo;
	return t && search_next(s, t, strlen(t), 0, &so, &eo);
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
	cJSON *o = cJSON_Parse(e->args);
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
