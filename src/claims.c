/* claims.c: claims in the agent's messages against the measurements. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "benchlog.h"
#include "claims.h"
#include "ftrack.h"
#include "run.h"
#include "util.h"

/* What the tool results had measured up to an event: the last verdict,
 * and the best figures so far (a claim may speak of an earlier, better
 * version; it is contradicted only when nothing measured reaches it). */
struct claims_meas {
	long sol_ev;              /* the last write of the solution file */
	long check_ev;            /* the last verdict */
	int check;                /* 1 PASS, 0 FAIL */
	char *check_line;
	long peak_ev, tflops_ev, speedup_ev;
	double peak, tflops, speedup;
	char *peak_line, *tflops_line, *speedup_line;
};

static void claims_set(char **slot, const char *s, size_t n)
{
	free(*slot);
	*slot = xstrndup(s, n);
}

/* A better figure than the best so far: kept with its line. */
static void claims_best(double *best, long *best_ev, char **line, double v, size_t ev, const char *s, size_t n)
{
	if (v > *best) {
		*best = v;
		*best_ev = (long)ev;
		claims_set(line, s, n);
	}
}

/* Per shape, the slowest baseline's ms, for the solution's speedup. */
struct claims_shape {
	int shape;
	double base_ms;
};

/* A tool result read into the measurements. */
static void claims_measure(struct claims_meas *m, size_t ev, const char *text)
{
	struct claims_shape sh[64];
	int nsh = 0;
	for (const char *p = text; p && *p;) {
		size_t n = strcspn(p, "\n");
		struct benchlog_line l;
		switch (benchlog_classify(p, n, &l)) {
		case BL_PASS:
		case BL_FAIL:
			m->check_ev = (long)ev;
			m->check = l.kind == BL_PASS;
			claims_set(&m->check_line, p, n);
			break;
		case BL_PEAK:
		case BL_SHAPE_PEAK:
			claims_best(&m->peak, &m->peak_ev, &m->peak_line, l.value, ev, p, n);
			break;
		case BL_VARIANT: {
			int solution = !benchlog_reference_variant(l.variant, l.variant_len);
			int k = 0;
			while (k < nsh && sh[k].shape != l.shape)
				k++;
			if (k == nsh && nsh < 64)
				sh[nsh++] = (struct claims_shape){ l.shape, -1 };
			if (k < nsh && !solution && l.ms > sh[k].base_ms)
				sh[k].base_ms = l.ms;
			if (solution)
				claims_best(&m->tflops, &m->tflops_ev, &m->tflops_line, l.tflops, ev, p, n);
			if (solution && k < nsh && sh[k].base_ms > 0 && l.ms > 0)
				claims_best(&m->speedup, &m->speedup_ev, &m->speedup_line, sh[k].base_ms / l.ms, ev, p, n);
			break;
		}
		default:
			break;
		}
		p += n;
		if (*p)
			p++;
	}
}

/* The number just after position p (skipping " :=~is of was about"),
 * -1 when none within a few characters. */
static double claims_num_after(const char *p, const char *e)
{
	for (int skipped = 0; p < e && skipped < 16 && !isdigit((unsigned char)*p); skipped++, p++)
		if (!strchr(" :=~\t", *p) && !isalpha((unsigned char)*p))
			return -1;
	if (p >= e || !isdigit((unsigned char)*p))
		return -1;
	return strtod(p, NULL);
}

/* The number just before position p ("3.2x", "41 TFLOPS"), -1 none. */
static double claims_num_before(const char *s, const char *p)
{
	while (p > s && (p[-1] == ' ' || p[-1] == '\t'))
		p--;
	const char *d = p;
	while (d > s && (isdigit((unsigned char)d[-1]) || d[-1] == '.'))
		d--;
	return d < p && isdigit((unsigned char)*d) ? strtod(d, NULL) : -1;
}

/* word in [s, e), case ignored; the first byte compared inline, so that
 * strncasecmp runs only where a match can start (a whole run is scanned
 * at every poll of a watched file) */
static const char *claims_find(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);
	char lo = (char)tolower((unsigned char)word[0]), up = (char)toupper((unsigned char)word[0]);
	for (const char *p = s; p + n <= e; p++)
		if ((*p == lo || *p == up) && !strncasecmp(p, word, n))
			return p;
	return NULL;
}

/* A line that negates or asks ("not", "n't", "?", "if") claims nothing. */
static int claims_hedged(const char *s, const char *e)
{
	return claims_find(s, e, "not ") || claims_find(s, e, "n't") || memchr(s, '?', (size_t)(e - s)) ||
	       claims_find(s, e, "if ") || claims_find(s, e, "should ") || claims_find(s, e, "expect");
}

static void claims_push(struct claims *c, size_t ev, enum claim_kind k, double v, const char *s, const char *e)
{
	c->v = xgrow(c->v, &c->cap, c->n + 1, sizeof *c->v);
	struct claim *x = &c->v[c->n++];
	memset(x, 0, sizeof *x);
	x->ev = ev;
	x->kind = k;
	x->value = v;
	x->quote = xstrndup(s, (size_t)(e - s));
	x->meas_ev = -1;
	x->measured = -1;
}

/* The claims of one line of an agent message, at most one of each kind. */
static void claims_line_scan(struct claims *c, size_t ev, const char *s, const char *e)
{
	if (claims_hedged(s, e))
		return;
	const char *p;
	double v;
	if ((p = claims_find(s, e, "peak_fraction")) && (v = claims_num_after(p + 13, e)) >= 0)
		claims_push(c, ev, CLAIM_PEAK, v, s, e);
	else if ((p = claims_find(s, e, "% of peak")) && (v = claims_num_before(s, p)) >= 0)
		claims_push(c, ev, CLAIM_PEAK, v / 100, s, e);
	if ((p = claims_find(s, e, "TFLOPS")) && (v = claims_num_before(s, p)) >= 0)
		claims_push(c, ev, CLAIM_TFLOPS, v, s, e);
	/* a speedup is judged only against a baseline the benchmark times
	 * ("13x faster than my last version" is about no measured line) */
	static const char *const bases[] = { "eager", "baseline", "reference", "pytorch", "torch", "compiled", "sota",
		NULL };
	int based = 0;
	for (int i = 0; bases[i] && !based; i++)
		based = claims_find(s, e, bases[i]) != NULL;
	static const char *const fast[] = { "x faster", "x speedup", "x speed-up", "\xc3\x97 faster", "\xc3\x97 speedup", NULL };
	int speed = !based;
	for (int i = 0; fast[i] && !speed; i++)
		if ((p = claims_find(s, e, fast[i])) && (v = claims_num_before(s, p)) > 0) {
			claims_push(c, ev, CLAIM_SPEEDUP, v, s, e);
			speed = 1;
		}
	if (!speed && (p = claims_find(s, e, "speedup of")) && (v = claims_num_after(p + 10, e)) > 0)
		claims_push(c, ev, CLAIM_SPEEDUP, v, s, e);
	static const char *const pass[] = { "all tests pass", "all checks pass", "all shapes pass", "passes all",
		"solution is correct", "kernel is correct", "correctness verified", "correctness confirmed", NULL };
	for (int i = 0; pass[i]; i++)
		if (claims_find(s, e, pass[i])) {
			claims_push(c, ev, CLAIM_PASS, -1, s, e);
			break;
		}
}

/* A claim against the measurements: the verdict and the quote it rests
 * on. A pass claim is judged by a verdict on the solution as it stands
 * (none since its last write: nothing measured). */
static void claims_judge(struct claim *x, const struct claims_meas *m)
{
	double mv = -1, slack = 1;
	long mev = -1;
	const char *mq = NULL;
	switch (x->kind) {
	case CLAIM_PEAK: mv = m->peak; mev = m->peak_ev; mq = m->peak_line; slack = CLAIMS_PEAK_SLACK; break;
	case CLAIM_TFLOPS: mv = m->tflops; mev = m->tflops_ev; mq = m->tflops_line; slack = CLAIMS_TFLOPS_SLACK; break;
	case CLAIM_SPEEDUP: mv = m->speedup; mev = m->speedup_ev; mq = m->speedup_line; slack = CLAIMS_SPEEDUP_SLACK; break;
	case CLAIM_PASS:
		if (m->check_ev > m->sol_ev) {
			mv = m->check;
			mev = m->check_ev;
			mq = m->check_line;
		}
		break;
	}
	if (mev < 0 || mv < 0 || !mq)
		return;
	x->meas_ev = mev;
	x->measured = mv;
	x->meas_quote = xstrdup(mq);
	if (x->kind == CLAIM_PASS)
		x->verdict = mv > 0 ? 1 : -1;
	else  /* a little over for rounding; 0.01 so that a tiny figure is not judged by its last digit */
		x->verdict = x->value > mv * slack + 0.01 ? -1 : 1;
}

/* Whether call e writes the solution file. */
static int claims_writes_solution(const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	return e->kind == EV_TOOL_CALL && e->path && run_event_diff(r, i) && ftrack_is_solution(e->path);
}

/* What the ledger knows of a run read up to `upto`, and the measurements
 * as they stood before its last event: a watched run's last event is read
 * again at each poll (it may have been cut mid-line), and going back one
 * event must not mean reading the whole run again. */
struct claims_state {
	struct claims c;
	struct claims_meas m, snap;   /* snap: m before event snap_at */
	size_t upto;
	long snap_at;                 /* -1: no snapshot */
};

static const struct claims_meas claims_meas0 = { .sol_ev = -1, .check_ev = -1, .peak_ev = -1, .tflops_ev = -1,
	                                          .speedup_ev = -1, .peak = -1, .tflops = -1, .speedup = -1 };

static void claims_meas_free(struct claims_meas *m)
{
	free(m->check_line);
	free(m->peak_line);
	free(m->tflops_line);
	free(m->speedup_line);
	*m = claims_meas0;
}

static char *claims_dup0(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void claims_meas_copy(struct claims_meas *to, const struct claims_meas *from)
{
	claims_meas_free(to);
	*to = *from;
	to->check_line = claims_dup0(from->check_line);
	to->peak_line = claims_dup0(from->peak_line);
	to->tflops_line = claims_dup0(from->tflops_line);
	to->speedup_line = claims_dup0(from->speedup_line);
}

/* The claims of events from ev on dropped. */
static void claims_truncate(struct claims *c, size_t ev)
{
	while (c->n && c->v[c->n - 1].ev >= ev) {
		struct claim *x = &c->v[--c->n];
		c->contradicted -= x->verdict < 0;
		free(x->quote);
		free(x->meas_quote);
	}
}

/* Event i read into the ledger. */
static void claims_event(struct claims_state *s, const struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	struct claims *out = &s->c;
	if (claims_writes_solution(r, i))
		s->m.sol_ev = (long)i;
	/* a result may complete its call (a path, a diff) after the call was read */
	if (e->kind == EV_TOOL_RESULT && e->link >= 0 && e->link > s->m.sol_ev && claims_writes_solution(r, (size_t)e->link))
		s->m.sol_ev = e->link;
	if (e->kind == EV_TOOL_RESULT && e->text) {
		claims_measure(&s->m, i, e->text);
		return;
	}
	if (e->kind != EV_TEXT || !e->text)
		return;
	size_t first = out->n;
	for (const char *p = e->text; *p;) {
		const char *nl = strchr(p, '\n'), *le = nl ? nl : p + strlen(p);
		claims_line_scan(out, i, p, le);
		p = nl ? nl + 1 : le;
	}
	for (size_t k = first; k < out->n; k++) {
		claims_judge(&out->v[k], &s->m);
		out->contradicted += out->v[k].verdict < 0;
	}
}

struct claims_state *claims_state_new(void)
{
	struct claims_state *s = xcalloc(1, sizeof *s);
	s->m = claims_meas0;
	s->snap = claims_meas0;
	s->snap_at = -1;
	return s;
}

const struct claims *claims_state_update(struct claims_state *s, const struct run *r, size_t from)
{
	size_t start = s->upto;
	if (from < s->upto) {
		if (s->snap_at >= 0 && from >= (size_t)s->snap_at) {
			start = (size_t)s->snap_at;  /* back to the state before the last event */
			claims_meas_copy(&s->m, &s->snap);
		} else {
			start = 0;                   /* further back: all again */
			claims_meas_free(&s->m);
		}
		claims_truncate(&s->c, start);
	}
	if (start > r->nev) {                /* the run shrank: all again */
		start = 0;
		claims_meas_free(&s->m);
		claims_truncate(&s->c, 0);
	}
	for (size_t i = start; i < r->nev; i++) {
		if (i + 1 == r->nev) {
			claims_meas_copy(&s->snap, &s->m);
			s->snap_at = (long)i;
		}
		claims_event(s, r, i);
	}
	s->upto = r->nev;
	return &s->c;
}

const struct claims *claims_state_get(const struct claims_state *s)
{
	return &s->c;
}

void claims_state_free(struct claims_state *s)
{
	if (!s)
		return;
	claims_free(&s->c);
	claims_meas_free(&s->m);
	claims_meas_free(&s->snap);
	free(s);
}

void claims_build(const struct run *r, struct claims *out)
{
	struct claims_state *s = claims_state_new();
	claims_state_update(s, r, 0);
	*out = s->c;
	memset(&s->c, 0, sizeof s->c);
	claims_state_free(s);
}

void claims_free(struct claims *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].quote);
		free(c->v[i].meas_quote);
	}
	free(c->v);
	memset(c, 0, sizeof *c);
}

const char *claims_kind_name(enum claim_kind k)
{
	switch (k) {
	case CLAIM_SPEEDUP: return "speedup";
	case CLAIM_PEAK: return "peak_fraction";
	case CLAIM_TFLOPS: return "TFLOPS";
	case CLAIM_PASS: return "tests pass";
	}
	return "?";
}

char *claims_line(const struct claim *c)
{
	char claimed[48], measured[48];
	if (c->kind == CLAIM_PASS)
		snprintf(claimed, sizeof claimed, "tests pass");
	else
		snprintf(claimed, sizeof claimed, "%s %g", claims_kind_name(c->kind), c->value);
	if (c->meas_ev < 0)
		return xasprintf("event %zu claims %s: \"%s\"; nothing measured before it", c->ev + 1, claimed, c->quote);
	if (c->kind == CLAIM_PASS)
		snprintf(measured, sizeof measured, "%s", c->measured > 0 ? "PASS" : "FAIL");
	else
		snprintf(measured, sizeof measured, "%g", c->measured);
	return xasprintf("event %zu claims %s: \"%s\"; measured %s at event %ld: \"%s\": %s", c->ev + 1, claimed, c->quote,
	                 measured, c->meas_ev + 1, c->meas_quote, c->verdict < 0 ? "contradicted" : "supported");
}
