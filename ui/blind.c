/* blind.c: blind mode: each model of the dataset gets a stable label
 * ("model 3", the same in every session), and every name of a model or
 * harness on its way to the screen is masked by the draw filter, so that
 * an annotator judges a run without knowing whose it is. The annotation
 * session (tag.c) owns one; the grid and compare ask for a run's label. */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "blind.h"
#include "dataset.h"
#include "draw.h"
#include "modelname.h"
#include "util.h"

/* A name blind mode keeps off the screen, and what stands in for it. */
struct blind_word {
	char *s;                     /* owned */
	size_t n;
	char *mask;                  /* owned */
};

struct blind {
	const struct dataset *ds;    /* borrowed */
	int on;
	char **label;                /* per model label number: "model 3" (owned) */
	size_t *of;                  /* per run: index into label */
	struct blind_word *words;    /* longest first */
	size_t nwords;
};

/* The blind mode the draw filter and the grid read (one at a time). */
static struct blind *blind_active;

static int blind_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}


static int blind_cmp_word(const void *a, const void *b)
{
	const struct blind_word *x = a, *y = b;
	return x->n != y->n ? (x->n < y->n) - (x->n > y->n) : strcmp(x->s, y->s);
}

/* The words being gathered (blind_init): a hash set of them, case
 * ignored, so that de-duplicating costs one probe, not a scan of all. */
struct blind_wordset {
	size_t cap;       /* of b->words */
	size_t *slot;     /* index + 1 into b->words; 0: free */
	size_t nslot;     /* a power of two, more than twice the words */
};

/* FNV-1a of the lower-cased bytes (strcasecmp's equality). */
static size_t blind_word_hash(const char *s)
{
	size_t h = 14695981039346656037ULL & SIZE_MAX;
	for (; *s; s++)
		h = (h ^ (unsigned char)tolower((unsigned char)*s)) * (size_t)1099511628211ULL;
	return h;
}

/* The slot of s: the one holding it, else the free one it would take. */
static size_t *blind_wordset_find(struct blind *b, struct blind_wordset *ws, const char *s)
{
	size_t i = blind_word_hash(s) & (ws->nslot - 1);
	while (ws->slot[i] && strcasecmp(b->words[ws->slot[i] - 1].s, s))
		i = (i + 1) & (ws->nslot - 1);
	return &ws->slot[i];
}

static void blind_wordset_grow(struct blind *b, struct blind_wordset *ws)
{
	free(ws->slot);
	ws->nslot = ws->nslot ? ws->nslot * 2 : 64;
	ws->slot = xcalloc(ws->nslot, sizeof *ws->slot);
	for (size_t k = 0; k < b->nwords; k++)
		*blind_wordset_find(b, ws, b->words[k].s) = k + 1;
}

static void blind_add_word(struct blind *b, struct blind_wordset *ws, const char *s, const char *mask)
{
	if (!s || strlen(s) < 3)  /* shorter names would mask ordinary words */
		return;
	if (strcasestr("[model] [harness]", s))  /* a mask must not be masked again */
		return;
	if ((b->nwords + 1) * 2 > ws->nslot)
		blind_wordset_grow(b, ws);
	size_t *slot = blind_wordset_find(b, ws, s);
	if (*slot)
		return;
	if (b->nwords == ws->cap)
		b->words = xrealloc(b->words, (ws->cap = ws->cap ? ws->cap * 2 : 32) * sizeof *b->words);
	b->words[b->nwords].s = xstrdup(s);
	b->words[b->nwords].n = strlen(s);
	b->words[b->nwords].mask = xstrdup(mask);
	*slot = ++b->nwords;
}

/* A name and each of its parts between '/' and ':' ("deepseek" and
 * "deepseek-v4-flash" of "deepseek/deepseek-v4-flash"). */
static void blind_add_name(struct blind *b, struct blind_wordset *ws, const char *s)
{
	if (!s)
		return;
	blind_add_word(b, ws, s, "[model]");
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, "/:");
		if (n < strlen(s)) {
			char *part = xstrndup(p, n);
			blind_add_word(b, ws, part, "[model]");
			free(part);
		}
		p += n + (p[n] ? 1 : 0);
	}
}

/* A run id names harness and model: in blind mode it reads
 * "20260428_040539_[model 3]_01_fp8_gemm" (time and problem kept). */
static void blind_add_run_id(struct blind *b, struct blind_wordset *ws, const struct run_meta *m, const char *label)
{
	const char *id = m->run_id;
	if (!id)
		return;
	size_t n = strlen(id), pl = m->problem ? strlen(m->problem) : 0, ts = 0;
	while (ts < n && ts < 16 && (id[ts] == '_' || (id[ts] >= '0' && id[ts] <= '9')))
		ts++;
	int has_problem = pl && pl < n && !strcmp(id + n - pl, m->problem);
	char *mask = xasprintf("%.*s[%s]%s%s", (int)ts, id, label, has_problem ? "_" : "", has_problem ? m->problem : "");
	blind_add_word(b, ws, id, mask);
	free(mask);
}

/* Numbers the models of the dataset in a shuffled order that is the same
 * every time (a fixed seed), so "model 3" stays model 3 across sessions
 * but says nothing of the name; and lists the names to mask in text. */
static void blind_init(struct blind *b)
{
	size_t n = b->ds->nruns, nl = 0;
	struct blind_wordset ws = { 0 };
	char **real = xcalloc(n + 1, sizeof *real), **labels = xcalloc(n + 1, sizeof *labels);
	for (size_t i = 0; i < n; i++)
		labels[i] = real[i] = modelname(&b->ds->runs[i].meta);
	qsort(labels, n, sizeof *labels, blind_cmp_str);
	for (size_t i = 0; i < n; i++)
		if (!nl || strcmp(labels[nl - 1], labels[i]))
			labels[nl++] = labels[i];
	/* Fisher-Yates with a fixed xorshift seed */
	unsigned long long x = 0x6b62747569ULL;
	for (size_t i = nl; i > 1; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		size_t j = (size_t)(x % i);
		char *s = labels[i - 1];
		labels[i - 1] = labels[j];
		labels[j] = s;
	}
	int digits = snprintf(NULL, 0, "%zu", nl);
	b->label = xcalloc(nl + 1, sizeof *b->label);
	b->of = xcalloc(n + 1, sizeof *b->of);
	for (size_t k = 0; k < nl; k++)
		b->label[k] = xasprintf("model %0*zu", digits, k + 1);  /* padded: sorts in order */
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < nl; k++)
			if (!strcmp(real[i], labels[k]))
				b->of[i] = k;
	for (size_t i = 0; i < n; i++) {
		const struct run_meta *m = &b->ds->runs[i].meta;
		blind_add_run_id(b, &ws, m, b->label[b->of[i]]);
		blind_add_word(b, &ws, m->harness, "[harness]");  /* before the labels that contain it */
		blind_add_word(b, &ws, real[i], "[model]");
		blind_add_name(b, &ws, m->label);
		blind_add_name(b, &ws, m->model);
	}
	free(ws.slot);  /* sorting moves the words: the set is of no more use */
	if (b->nwords)
		qsort(b->words, b->nwords, sizeof *b->words, blind_cmp_word);
	for (size_t i = 0; i < n; i++)
		free(real[i]);
	free(real);
	free(labels);
}

/* The draw filter of blind mode: every name of a model or harness in a
 * string on its way to the screen becomes a mask (NULL: nothing to mask). */
static char *blind_mask(const char *s)
{
	const struct blind *bl = blind_active;
	struct sbuf b;
	int hit = 0;
	if (!bl || !bl->on)
		return NULL;
	sbuf_init(&b);
	for (const char *p = s; *p;) {
		const struct blind_word *w = NULL;
		for (size_t k = 0; k < bl->nwords && !w; k++)
			if ((*p | 0x20) == (bl->words[k].s[0] | 0x20) && !strncasecmp(p, bl->words[k].s, bl->words[k].n))
				w = &bl->words[k];
		if (w) {
			sbuf_adds(&b, w->mask);
			p += w->n;
			hit = 1;
		} else {
			sbuf_addc(&b, *p++);
		}
	}
	if (!hit) {
		sbuf_free(&b);
		return NULL;
	}
	return sbuf_detach(&b);
}

struct blind *blind_new(const struct dataset *ds, int on)
{
	struct blind *b = xcalloc(1, sizeof *b);
	b->ds = ds;
	blind_active = b;
	blind_set(b, on);
	return b;
}

void blind_set(struct blind *b, int on)
{
	if (on && !b->label)
		blind_init(b);  /* on first use: a big dataset opens without it */
	b->on = on;
	if (blind_active == b)
		draw_set_filter(on ? blind_mask : NULL);
}

int blind_on(const struct blind *b)
{
	return b && b->on;
}

const char *blind_model(const struct run_meta *m)
{
	const struct blind *b = blind_active;
	if (!b || !b->on || !b->ds->nruns)
		return NULL;
	/* which run m is the meta of, without a search: the grid asks often */
	uintptr_t p = (uintptr_t)m, base = (uintptr_t)&b->ds->runs[0].meta;
	size_t i = (size_t)(p - base) / sizeof *b->ds->runs;
	if (p < base || (p - base) % sizeof *b->ds->runs || i >= b->ds->nruns)
		return NULL;
	return b->label[b->of[i]];
}

void blind_free(struct blind *b)
{
	if (!b)
		return;
	if (blind_active == b) {
		draw_set_filter(NULL);
		blind_active = NULL;
	}
	for (size_t i = 0; b->label && b->label[i]; i++)
		free(b->label[i]);
	free(b->label);
	free(b->of);
	for (size_t k = 0; k < b->nwords; k++) {
		free(b->words[k].s);
		free(b->words[k].mask);
	}
	free(b->words);
	free(b);
}
