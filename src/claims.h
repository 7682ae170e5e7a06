/* claims.h: the claims ledger of a run: what the agent says in its
 * messages (a speedup, a peak_fraction, a TFLOPS figure, "all tests pass",
 * "correct") set beside what the tool results had measured by then. A
 * claim the measurements contradict is flagged with both quotes. */
#ifndef KB_CLAIMS_H
#define KB_CLAIMS_H

#include <stddef.h>

struct run;

enum claim_kind { CLAIM_SPEEDUP, CLAIM_PEAK, CLAIM_TFLOPS, CLAIM_PASS };

/* How far a number may be above what was measured before it is
 * contradicted: rounding and a better run not shown are allowed for. */
#define CLAIMS_PEAK_SLACK 1.25
#define CLAIMS_TFLOPS_SLACK 1.25
#define CLAIMS_SPEEDUP_SLACK 1.5

struct claim {
	size_t ev;                /* the agent's message */
	enum claim_kind kind;
	double value;             /* the number claimed; -1 for a pass claim */
	char *quote;              /* the claim's line (raw, owned) */
	long meas_ev;             /* the tool result measured last before it, -1 none */
	double measured;          /* what it measured (pass: 1 PASS, 0 FAIL), -1 none */
	char *meas_quote;         /* its line (raw, owned), NULL */
	int verdict;              /* 1 supported, -1 contradicted, 0 nothing measured */
};

struct claims {
	struct claim *v;          /* in event order (owned) */
	size_t n, cap;
	size_t contradicted;
};

/* The claims of r's agent messages. */
void claims_build(const struct run *r, struct claims *out);
void claims_free(struct claims *c);

/* The same ledger kept up to date as r grows (watch, live): events from
 * `from` on are new or changed. Reading the last event again costs that
 * event; going back further reads the run again. */
struct claims_state;
struct claims_state *claims_state_new(void);
const struct claims *claims_state_update(struct claims_state *s, const struct run *r, size_t from);
const struct claims *claims_state_get(const struct claims_state *s);
void claims_state_free(struct claims_state *s);
/* "speedup", "peak_fraction", "TFLOPS", "tests pass". */
const char *claims_kind_name(enum claim_kind k);
/* One line for a ledger: "event 12 claims peak_fraction 0.91; measured
 * 0.0893 at event 10: contradicted" (owned, raw). */
char *claims_line(const struct claim *c);

#endif
