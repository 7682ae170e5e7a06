/* jsonx.c: tolerant getters over cJSON for untrusted transcripts. */
#include "jsonx.h"
#include "util.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const cJSON *jx_get(const cJSON *o, const char *key)
{
	if (!o || !cJSON_IsObject(o))
		return NULL;
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

const cJSON *jx_path(const cJSON *o, const char *dotted)
{
	char key[128];
	const char *p = dotted;

	while (o && *p) {
		const char *dot = strchr(p, '.');
		size_t n = dot ? (size_t)(dot - p) : strlen(p);
		if (n >= sizeof key)
			return NULL;
		memcpy(key, p, n);
		key[n] = '\0';
		o = jx_get(o, key);
		p += n + (dot ? 1 : 0);
	}
	return o;
}

const char *jx_str(const cJSON *o, const char *key)
{
	const cJSON *v = jx_get(o, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

const char *jx_pstr(const cJSON *o, const char *dotted)
{
	const cJSON *v = jx_path(o, dotted);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

double jx_num(const cJSON *o, const char *key, double dflt)
{
	const cJSON *v = jx_get(o, key);
	return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

long long jx_ll(const cJSON *o, const char *key, long long dflt)
{
	const cJSON *v = jx_get(o, key);
	/* casting a double outside the range of long long is undefined */
	if (!cJSON_IsNumber(v) || !(v->valuedouble > -9.2e18 && v->valuedouble < 9.2e18))
		return dflt;
	return (long long)v->valuedouble;
}

int jx_bool(const cJSON *o, const char *key, int dflt)
{
	const cJSON *v = jx_get(o, key);
	if (cJSON_IsTrue(v))
		return 1;
	if (cJSON_IsFalse(v))
		return 0;
	return dflt;
}

char *jx_print(const cJSON *o)
{
	char *s, *r;
	if (!o)
		return xstrdup("null");
	s = cJSON_PrintUnformatted(o);
	if (!s)
		return xstrdup("null");
	r = xstrdup(s);
	cJSON_free(s);
	return r;
}

char *jx_text(const cJSON *o)
{
	if (cJSON_IsString(o))
		return xstrdup(o->valuestring);
	return jx_print(o);
}

char *jx_blocks_text(const cJSON *content, const char *type, const char *field)
{
	struct sbuf b;
	const cJSON *it;
	int any = 0;

	if (cJSON_IsString(content))
		return xstrdup(content->valuestring);
	if (!cJSON_IsArray(content))
		return NULL;
	sbuf_init(&b);
	cJSON_ArrayForEach(it, content) {
		const char *t = jx_str(it, "type");
		const char *s = jx_str(it, field);
		if (cJSON_IsString(it)) {
			s = it->valuestring;
		} else if (!t || (type && strcmp(t, type) != 0)) {
			continue;
		}
		if (!s)
			continue;
		if (any)
			sbuf_addc(&b, '\n');
		sbuf_adds(&b, s);
		any = 1;
	}
	if (!any) {
		sbuf_free(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

/* Days from civil date, so that timestamps do not depend on TZ or timegm. */
static long long jx_days(int y, unsigned m, unsigned d)
{
	y -= m <= 2;
	long long era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (long long)doe - 719468;
}

double jx_time(const cJSON *v)
{
	int Y, M, D, h = 0, m = 0, n = 0;
	double s = 0;
	const char *p;

	if (cJSON_IsNumber(v)) {
		double x = v->valuedouble;
		return x > 1e11 ? x / 1000.0 : x; /* milliseconds vs seconds */
	}
	if (!cJSON_IsString(v))
		return 0;
	p = v->valuestring;
	if (sscanf(p, "%4d-%2d-%2d%n", &Y, &M, &D, &n) != 3 || M < 1 || M > 12 || D < 1 || D > 31)
		return 0;
	p += n;
	if (*p == 'T' || *p == ' ') {
		p++;
		if (sscanf(p, "%2d:%2d:%lf%n", &h, &m, &s, &n) == 3)
			p += n;
	}
	double t = (double)jx_days(Y, (unsigned)M, (unsigned)D) * 86400.0 + h * 3600 + m * 60 + s;
	if (*p == '+' || *p == '-') {
		int oh = 0, om = 0;
		if (sscanf(p + 1, "%2d:%2d", &oh, &om) >= 1)
			t -= (*p == '+' ? 1 : -1) * (oh * 3600 + om * 60);
	}
	return t;
}

/* ---- per-line arena for cJSON ---------------------------------------------
 * Parsing a transcript allocates a cJSON tree per line and drops it at
 * once; with malloc/free per node that was a third of the parse time. While
 * an arena scope is open, cJSON allocates by bumping a pointer, its frees
 * are no-ops, and closing the scope releases everything. Outside a scope
 * cJSON uses malloc/free as usual. Not thread-safe: the core parses on one
 * thread. */

#define JX_CHUNK (1u << 20)

struct jx_big {             /* allocations larger than a chunk */
	struct jx_big *next;
	max_align_t data[];
};

static struct {
	char *chunk;            /* JX_CHUNK bytes, kept between scopes */
	size_t used;
	struct jx_big *big;
	int depth;              /* open scopes */
	int hooked;
} jx_arena;

static void *jx_alloc(size_t n)
{
	size_t need = (n + 15) & ~(size_t)15;
	if (!jx_arena.depth)
		return malloc(n);
	if (need <= JX_CHUNK - jx_arena.used) {
		void *p = jx_arena.chunk + jx_arena.used;
		jx_arena.used += need;
		return p;
	}
	struct jx_big *b = malloc(sizeof *b + n);
	if (!b)
		return NULL;
	b->next = jx_arena.big;
	jx_arena.big = b;
	return b->data;
}

static int jx_in_arena(const void *p)
{
	const char *c = p;
	if (jx_arena.chunk && c >= jx_arena.chunk && c < jx_arena.chunk + JX_CHUNK)
		return 1;
	for (struct jx_big *b = jx_arena.big; b; b = b->next)
		if ((const void *)b->data == p)
			return 1;
	return 0;
}

static void jx_free(void *p)
{
	if (p && !jx_in_arena(p))
		free(p);
}

void jx_arena_begin(void)
{
	if (!jx_arena.hooked) {
		cJSON_Hooks h = {jx_alloc, jx_free};
		jx_arena.chunk = xmalloc(JX_CHUNK);
		cJSON_InitHooks(&h);
		jx_arena.hooked = 1;
	}
	jx_arena.depth++;
}

void jx_arena_end(void)
{
	if (--jx_arena.depth > 0)
		return;
	jx_arena.used = 0;
	while (jx_arena.big) {
		struct jx_big *b = jx_arena.big;
		jx_arena.big = b->next;
		free(b);
	}
}

/* cJSON itself stops at CJSON_NESTING_LIMIT (1000) levels, which bounds
 * its recursion on hostile input. */
cJSON *jx_parse(const char *s, size_t len)
{
	return cJSON_ParseWithLength(s, len);
}
