/* provenance.c: per-file outcome values and the list of their
 * disagreements (see provenance.h). */
#include "provenance.h"
#include "jsonx.h"
#include "util.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const prov_sources[PROV__COUNT] = {
	"transcript", "result.json", "runs.jsonl", "leaderboard.json", "leaderboard_v1.json",
	"leaderboard_v2.json", "leaderboard.fresh-preview.json", "leaderboard.h100.json",
	"leaderboard_v2.h100.json", "leaderboard.b200.json", "leaderboard_v2.b200.json", "another leaderboard",
};

static const char *const prov_fields[PROV_FIELD__COUNT] = {
	"correct", "peak_fraction", "session_complete", "has_solution",
};

const char *prov_source_name(enum prov_source s)
{
	return (unsigned)s < PROV__COUNT ? prov_sources[s] : "?";
}

enum prov_source prov_board_slot(const char *file)
{
	for (int s = PROV_LEADERBOARD; s < PROV_LEADERBOARD_OTHER; s++)
		if (!strcmp(prov_sources[s], file))
			return (enum prov_source)s;
	return PROV_LEADERBOARD_OTHER;
}

const char *prov_field_name(enum prov_field f)
{
	return (unsigned)f < PROV_FIELD__COUNT ? prov_fields[f] : "?";
}

void prov_set(struct prov_values *v, enum prov_field f, int value)
{
	v->known |= 1u << f;
	if (f == PROV_CORRECT)
		v->correct = value != 0;
	else if (f == PROV_COMPLETE)
		v->complete = value != 0;
	else if (f == PROV_SOLUTION)
		v->has_solution = value != 0;
}

/* A boolean key that is there; a non-boolean value states nothing. */
static void prov_read_bool(struct prov_values *v, const cJSON *o, const char *key, enum prov_field f)
{
	const cJSON *x = jx_get(o, key);
	if (cJSON_IsBool(x))
		prov_set(v, f, cJSON_IsTrue(x));
}

void prov_read_json(struct prov_values *v, const cJSON *o)
{
	const cJSON *pf = jx_get(o, "peak_fraction");
	prov_read_bool(v, o, "correct", PROV_CORRECT);
	prov_read_bool(v, o, "session_complete", PROV_COMPLETE);
	prov_read_bool(v, o, "has_solution", PROV_SOLUTION);
	if (cJSON_IsNumber(pf) || cJSON_IsNull(pf)) {
		v->known |= 1u << PROV_PEAK;
		v->peak = cJSON_IsNumber(pf) && pf->valuedouble >= 0 ? pf->valuedouble : -1;
	}
}

void prov_value_text(const struct prov_values *v, enum prov_field f, char *buf, size_t n)
{
	if (!n)
		return;
	buf[0] = '\0';
	if (!(v->known & (1u << f)))
		return;
	if (f == PROV_PEAK) {
		if (v->peak < 0)
			snprintf(buf, n, "null");
		else
			snprintf(buf, n, "%.4f", v->peak);
		return;
	}
	int b = f == PROV_CORRECT ? v->correct : f == PROV_COMPLETE ? v->complete : v->has_solution;
	snprintf(buf, n, "%s", b ? "true" : "false");
}

static int prov_same(const struct prov_values *a, const struct prov_values *b, enum prov_field f)
{
	switch (f) {
	case PROV_CORRECT:
		return a->correct == b->correct;
	case PROV_COMPLETE:
		return a->complete == b->complete;
	case PROV_SOLUTION:
		return a->has_solution == b->has_solution;
	case PROV_PEAK:
		if ((a->peak < 0) != (b->peak < 0))
			return 0;
		return a->peak < 0 || fabs(a->peak - b->peak) < 5e-5;
	default:
		return 1;
	}
}

size_t prov_diffs(const struct provenance *p, struct prov_diff *out, size_t max)
{
	size_t n = 0;
	for (int f = 0; f < PROV_FIELD__COUNT; f++)
		for (int a = 0; a < PROV__COUNT; a++)
			for (int b = a + 1; b < PROV__COUNT; b++) {
				const struct prov_values *x = &p->src[a], *y = &p->src[b];
				unsigned bit = 1u << f;
				if (!(x->known & bit) || !(y->known & bit) || prov_same(x, y, (enum prov_field)f))
					continue;
				if (out && n < max) {
					struct prov_diff *d = &out[n];
					d->field = (enum prov_field)f;
					d->a = (enum prov_source)a;
					d->b = (enum prov_source)b;
					prov_value_text(x, d->field, d->va, sizeof d->va);
					prov_value_text(y, d->field, d->vb, sizeof d->vb);
				}
				n++;
			}
	return n;
}

char *prov_diff_text(const struct prov_diff *d)
{
	return xasprintf("%s: %s says %s, %s says %s", prov_field_name(d->field), prov_source_name(d->a), d->va,
	                 prov_source_name(d->b), d->vb);
}

char *prov_diffs_text(const struct provenance *p)
{
	struct prov_diff d[PROV_FIELD__COUNT * PROV__COUNT * PROV__COUNT];
	size_t n = prov_diffs(p, d, sizeof d / sizeof d[0]);
	struct sbuf b;
	if (!n)
		return NULL;
	sbuf_init(&b);
	for (size_t i = 0; i < n; i++) {
		char *t = prov_diff_text(&d[i]);
		sbuf_addf(&b, "%s%s", i ? "\n" : "", t);
		free(t);
	}
	return sbuf_detach(&b);
}

char *prov_summary(const struct provenance *p, unsigned skip)
{
	struct sbuf b;
	unsigned bad = 0;
	struct prov_diff d[PROV_FIELD__COUNT * PROV__COUNT * PROV__COUNT];
	size_t n = prov_diffs(p, d, sizeof d / sizeof d[0]);
	for (size_t i = 0; i < n; i++)
		bad |= 1u << d[i].field;
	bad &= ~skip;
	if (!bad)
		return NULL;
	sbuf_init(&b);
	for (int f = 0; f < PROV_FIELD__COUNT; f++) {
		if (!(bad & (1u << f)))
			continue;
		sbuf_addf(&b, "%s%s:", b.len ? "; " : "", prov_field_name((enum prov_field)f));
		int first = 1;
		for (int s = 0; s < PROV__COUNT; s++) {
			char v[24];
			prov_value_text(&p->src[s], (enum prov_field)f, v, sizeof v);
			if (!*v)
				continue;
			sbuf_addf(&b, "%s %s %s", first ? "" : ",", prov_source_name((enum prov_source)s), v);
			first = 0;
		}
	}
	return sbuf_detach(&b);
}

int prov_says_complete(const struct provenance *p)
{
	for (int s = PROV_TRANSCRIPT + 1; s < PROV__COUNT; s++)
		if ((p->src[s].known & (1u << PROV_COMPLETE)) && p->src[s].complete)
			return s;
	return -1;
}

char *prov_banner(const struct provenance *p, int incomplete, int narrow, const char *mark)
{
	int says = p && incomplete ? prov_says_complete(p) : -1;
	/* the end of the transcript is said once, in the words below */
	char *sum = p ? prov_summary(p, incomplete ? 1u << PROV_COMPLETE : 0) : NULL;
	struct sbuf b;
	if (!incomplete && !sum)
		return NULL;
	sbuf_init(&b);
	if (says >= 0)  /* both said: neither file is taken for the truth */
		sbuf_addf(&b, " transcript ends mid-turn (no completion marker); %s says session_complete: true",
		          prov_source_name((enum prov_source)says));
	else if (incomplete && p && p->end == PROV_END_WRITING)
		sbuf_addf(&b, narrow ? " STILL BEING WRITTEN: grew in the last %d s, no completion marker yet"
		                     : " STILL BEING WRITTEN: the transcript grew in the last %d s; "
		                       "no completion marker yet", PROV_QUIET_S);
	else if (incomplete && p && p->end == PROV_END_QUIET && !sum)
		sbuf_addf(&b, narrow ? " INCOMPLETE RUN: no completion marker, nothing written for %d s"
		                     : " INCOMPLETE RUN: the transcript stops without the harness's completion marker; "
		                       "nothing written for over %d s (cut off, crashed, or a long step)", PROV_QUIET_S);
	else if (incomplete && sum)  /* the list after it needs the room */
		sbuf_adds(&b, " INCOMPLETE RUN (no completion marker)");
	else if (incomplete && narrow)
		sbuf_adds(&b, " INCOMPLETE RUN: no completion marker (cut off, crashed or still being written)");
	else if (incomplete)
		sbuf_adds(&b, " INCOMPLETE RUN: the transcript ends without the harness's completion marker "
		              "(cut off, crashed, or still being written)");
	if (sum)
		sbuf_addf(&b, "%s%s files disagree: %s", b.len ? "  " : " ", mark, sum);
	free(sum);
	return sbuf_detach(&b);
}
