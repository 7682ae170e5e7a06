/* benchlog.c: line classification and the running totals of a log. */
#include "benchlog.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Lines longer than this are not results; only their start is looked at. */
#define BL_MAX_LINE 4096

static int bl_num(const char *s, const char *e, double *out, const char **stop)
{
	char buf[64], *end;
	size_t n = (size_t)(e - s);
	if (n == 0)
		return -1;
	if (n > sizeof buf - 1)
		n = sizeof buf - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtod(buf, &end);
	if (end == buf)
		return -1;
	if (stop)
		*stop = s + (end - buf);
	return 0;
}

/* The value of the space-separated token "key=value", NULL when absent. */
static const char *bl_kv(const char *s, const char *e, const char *key, size_t *vlen)
{
	size_t kl = strlen(key);
	for (const char *p = s; p + kl < e; p++) {
		if ((p == s || p[-1] == ' ' || p[-1] == '\t') && !memcmp(p, key, kl) && p[kl] == '=') {
			const char *v = p + kl + 1, *q = v;
			while (q < e && *q != ' ' && *q != '\t')
				q++;
			*vlen = (size_t)(q - v);
			return v;
		}
	}
	return NULL;
}

static double bl_kv_num(const char *s, const char *e, const char *key)
{
	size_t n;
	double v;
	const char *p = bl_kv(s, e, key, &n);
	const char *stop;
	if (!p || bl_num(p, p + n, &v, &stop) < 0 || stop != p + n)
		return -1;
	return v;
}

static int bl_kv_int(const char *s, const char *e, const char *key)
{
	double v = bl_kv_num(s, e, key);
	return v >= 0 && v < 1e6 && v == (int)v ? (int)v : -1;
}

static int bl_starts(const char *s, const char *e, const char *prefix)
{
	size_t n = strlen(prefix);
	return (size_t)(e - s) >= n && !memcmp(s, prefix, n);
}

static enum benchlog_kind bl_shape_line(const char *s, const char *e, struct benchlog_line *o)
{
	o->shape = bl_kv_int(s, e, "shape");
	if (o->shape < 0)
		return BL_NONE;
	if ((o->value = bl_kv_num(s, e, "solution_peak_fraction")) >= 0)
		return BL_SHAPE_PEAK;
	o->variant = bl_kv(s, e, "variant", &o->variant_len);
	o->ms = bl_kv_num(s, e, "ms");
	if (!o->variant || !o->variant_len || o->ms < 0)
		return BL_NONE;
	o->tflops = bl_kv_num(s, e, "tflops");
	o->gbps = bl_kv_num(s, e, "gbps");
	return BL_VARIANT;
}

static enum benchlog_kind bl_htime(const char *s, const char *e, struct benchlog_line *o)
{
	o->shape = bl_kv_int(s, e, "shape");
	o->ms = bl_kv_num(s, e, "ms");
	o->min = bl_kv_num(s, e, "min");
	o->max = bl_kv_num(s, e, "max");
	return o->shape >= 0 && o->ms >= 0 ? BL_HTIME : BL_NONE;
}

static enum benchlog_kind bl_event(const char *s, const char *e, struct benchlog_line *o)
{
	size_t n;
	const char *ev = bl_kv(s, e, "event", &n);
	if (!ev || n != strlen("variant_end") || memcmp(ev, "variant_end", n))
		return BL_NONE;
	o->shape = bl_kv_int(s, e, "shape");
	o->variant = bl_kv(s, e, "variant", &o->variant_len);
	o->ms = bl_kv_num(s, e, "ms");
	return o->ms >= 0 ? BL_EVENT : BL_NONE;
}

/* "<number> TFLOPS" anywhere after p (p is past the start of the line). */
static double bl_tflops_after(const char *p, const char *e)
{
	for (; p < e; p++) {
		double v;
		const char *stop;
		if (!isdigit((unsigned char)*p) || isalnum((unsigned char)p[-1]) || p[-1] == '.')
			continue;
		if (bl_num(p, e, &v, &stop) < 0)
			continue;
		while (stop < e && *stop == ' ')
			stop++;
		if (bl_starts(stop, e, "TFLOPS") || bl_starts(stop, e, "TFLOP/s") || bl_starts(stop, e, "tflops"))
			return v;
		p = stop - 1;
	}
	return -1;
}

/* "shape=3 ..." or "shape 3 ..." at the start of a free-form line. */
static int bl_leading_shape(const char *s, const char *e)
{
	double v;
	const char *stop;
	if (!bl_starts(s, e, "shape") || e - s < 7 || (s[5] != '=' && s[5] != ' '))
		return -1;
	if (bl_num(s + 6, e, &v, &stop) < 0 || v < 0 || v >= 1e6 || v != (int)v)
		return -1;
	return (int)v;
}

static enum benchlog_kind bl_timing(const char *s, const char *e, struct benchlog_line *o)
{
	for (const char *p = s; p < e; p++) {
		const char *stop, *q;
		double v;
		if (!isdigit((unsigned char)*p) || (p > s && (isalnum((unsigned char)p[-1]) || p[-1] == '.' ||
		                                              p[-1] == '_' || p[-1] == '-')))
			continue;
		if (bl_num(p, e, &v, &stop) < 0)
			continue;
		for (q = stop; q < e && *q == ' '; q++)
			;
		if (q - stop <= 1 && bl_starts(q, e, "ms") && (q + 2 == e || !isalnum((unsigned char)q[2]))) {
			const char *l = s, *le = p;
			while (le > l && strchr(" \t:=>-(", le[-1]))
				le--;
			o->ms = v;
			o->text = l;
			o->text_len = (size_t)(le - l);
			o->shape = bl_leading_shape(s, e);
			o->tflops = bl_tflops_after(q, e);
			return BL_TIMING;
		}
		p = stop - 1;
	}
	return BL_NONE;
}

static enum benchlog_kind bl_verdict(const char *s, const char *e, struct benchlog_line *o)
{
	size_t n = (size_t)(e - s);
	if (n == 4 && !memcmp(s, "PASS", 4))
		return BL_PASS;
	if (bl_starts(s, e, "PASS") && (s[4] == ' ' || s[4] == ':' || s[4] == '.' || s[4] == '!'))
		return BL_PASS;
	if ((n == 4 && !memcmp(s, "FAIL", 4)) || bl_starts(s, e, "FAIL:") || bl_starts(s, e, "FAIL ")) {
		const char *m = s + 4;
		while (m < e && (*m == ':' || *m == ' '))
			m++;
		o->text = m;
		o->text_len = (size_t)(e - m);
		return BL_FAIL;
	}
	return BL_NONE;
}

enum benchlog_kind benchlog_classify(const char *line, size_t len, struct benchlog_line *o)
{
	struct benchlog_line tmp;
	const char *s = line, *e = line + (len > BL_MAX_LINE ? BL_MAX_LINE : len);
	double v;
	const char *stop;

	if (!o)
		o = &tmp;
	memset(o, 0, sizeof *o);
	o->shape = -1;
	o->tflops = o->gbps = o->ms = o->min = o->max = o->value = -1;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == '\r' || e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
		e--;
	/* a line that looks like one of ours but is not may still be a timing,
	 * e.g. an agent's "shape=1 B=2 T=2048: 2.513 ms" */
	if (bl_starts(s, e, "shape=") && (o->kind = bl_shape_line(s, e, o)) != BL_NONE)
		return o->kind;
	if (bl_starts(s, e, "time shape=") && (o->kind = bl_htime(s, e, o)) != BL_NONE)
		return o->kind;
	if (bl_starts(s, e, "benchmark_event ") && (o->kind = bl_event(s, e, o)) != BL_NONE)
		return o->kind;
	o->shape = -1;
	o->variant = NULL;
	o->tflops = o->gbps = o->ms = o->min = o->max = o->value = -1;
	if (bl_starts(s, e, "peak_fraction:")) {
		const char *p = s + 14;
		while (p < e && *p == ' ')
			p++;
		if (bl_num(p, e, &v, &stop) == 0 && v >= 0) {
			o->value = v;
			return o->kind = BL_PEAK;
		}
	}
	if (bl_starts(s, e, "RESULT:")) {
		const char *p = s + 7;
		while (p < e && *p == ' ')
			p++;
		o->text = p;
		o->text_len = (size_t)(e - p);
		return o->kind = BL_RESULT;
	}
	if ((o->kind = bl_verdict(s, e, o)) != BL_NONE)
		return o->kind;
	return o->kind = bl_timing(s, e, o);
}

struct benchlog *benchlog_new(void)
{
	struct benchlog *b = xcalloc(1, sizeof *b);
	b->peak_fraction = -1;
	sbuf_init(&b->partial);
	return b;
}

void benchlog_free(struct benchlog *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->ne; i++)
		free(b->e[i].variant);
	free(b->e);
	free(b->shape_peak);
	free(b->result);
	free(b->fail);
	sbuf_free(&b->partial);
	free(b);
}

static void bl_add_entry(struct benchlog *b, const struct benchlog_line *l)
{
	struct benchlog_entry *x;
	if (b->ne == b->cap)
		b->e = xrealloc(b->e, (size_t)(b->cap = b->cap ? b->cap * 2 : 16) * sizeof *b->e);
	x = &b->e[b->ne++];
	x->kind = l->kind;
	x->line = b->lineno;
	x->shape = l->shape;
	if (l->kind == BL_TIMING)
		x->variant = xstrndup(l->text, l->text_len);
	else if (l->kind == BL_HTIME)
		x->variant = xstrdup("solution");
	else
		x->variant = l->variant ? xstrndup(l->variant, l->variant_len) : NULL;
	x->tflops = l->tflops;
	x->gbps = l->gbps;
	x->ms = l->ms;
	x->min = l->min;
	x->max = l->max;
}

static void bl_set_shape_peak(struct benchlog *b, int shape, double v)
{
	if (shape >= b->nshape_peak) {
		int n = shape + 1;
		b->shape_peak = xrealloc(b->shape_peak, (size_t)n * sizeof *b->shape_peak);
		for (int i = b->nshape_peak; i < n; i++)
			b->shape_peak[i] = -1;
		b->nshape_peak = n;
	}
	b->shape_peak[shape] = v;
}

enum benchlog_kind benchlog_line(struct benchlog *b, const char *line, size_t len)
{
	struct benchlog_line l;
	b->lineno++;
	switch (benchlog_classify(line, len, &l)) {
	case BL_VARIANT: case BL_HTIME: case BL_EVENT: case BL_TIMING:
		bl_add_entry(b, &l);
		break;
	case BL_SHAPE_PEAK:
		bl_set_shape_peak(b, l.shape, l.value);
		break;
	case BL_PEAK:
		b->peak_fraction = l.value;
		break;
	case BL_RESULT:
		free(b->result);
		b->result = xstrndup(l.text, l.text_len);
		break;
	case BL_PASS:
		b->status = 1;
		b->npass++;
		break;
	case BL_FAIL:
		b->status = -1;
		if (!b->nfail++) {
			b->fail = xstrndup(l.text, l.text_len);
			b->fail_line = b->lineno;
		}
		break;
	case BL_NONE:
		break;
	}
	return l.kind;
}

void benchlog_feed(struct benchlog *b, const char *data, size_t len)
{
	const char *p = data, *end = data + len, *nl;
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		if (b->partial.len) {
			sbuf_add(&b->partial, p, (size_t)(nl - p));
			benchlog_line(b, b->partial.s, b->partial.len);
			sbuf_reset(&b->partial);
		} else {
			benchlog_line(b, p, (size_t)(nl - p));
		}
		p = nl + 1;
	}
	/* keep no more of an endless line than a result line could need */
	if (p < end && b->partial.len < BL_MAX_LINE)
		sbuf_add(&b->partial, p, (size_t)(end - p));
}

void benchlog_finish(struct benchlog *b)
{
	if (b->partial.len) {
		benchlog_line(b, b->partial.s, b->partial.len);
		sbuf_reset(&b->partial);
	}
}

const struct benchlog_entry *benchlog_find(const struct benchlog *b, enum benchlog_kind kind, int shape,
                                           const char *variant)
{
	for (int i = b->ne - 1; i >= 0; i--) {
		const struct benchlog_entry *x = &b->e[i];
		if (x->kind == kind && x->shape == shape &&
		    (!variant || (x->variant && !strcmp(x->variant, variant))))
			return x;
	}
	return NULL;
}

int benchlog_reference_variant(const char *v, size_t n)
{
	static const char *const refs[] = { "eager", "compiled", "sota", "reference", NULL };
	for (int i = 0; v && refs[i]; i++)
		if (strlen(refs[i]) == n && !strncmp(v, refs[i], n))
			return 1;
	return 0;
}
