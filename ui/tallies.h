/* tallies.h: what the replay's status bar counts up to the selected
 * event: tokens in, out and cached, tool calls, model turns begun, and the
 * run's first timestamp, for every event at once (kept up to date as a
 * growing run grows). */
#ifndef KB_TALLIES_H
#define KB_TALLIES_H

#include <stddef.h>

struct run;

/* Arrays of nev + 1 entries (cap allocated, owned), zeroed: none yet. */
struct tallies {
	long long *in, *out, *cache; /* token sums up to each event */
	size_t *tools;               /* tool calls up to each event */
	size_t *turns;               /* model turns begun up to each event */
	double t0;                   /* first timestamp, 0 when the run has none */
	size_t cap;
};

/* Computes them again from event from on (0: all; a growing run: its new
 * events and the last old one, which may have grown too). */
void tallies_update(struct tallies *t, const struct run *run, size_t from);
void tallies_free(struct tallies *t);

#endif
