/* tallies.h: what the replay's status bar counts up to the selected
 * event: tokens in, out and cached, tool calls, model turns begun, and the
 * run's first timestamp (kept up to date as a growing run grows). The sums
 * are kept every TALLY_STEP events, and the rest added when asked: 40
 * bytes an event were 40 MB at a million events, for a status line that
 * shows one event's. */
#ifndef KB_TALLIES_H
#define KB_TALLIES_H

#include <stddef.h>

struct run;

#define TALLY_STEP 64

struct tally_sum {
	long long in, out, cache;   /* tokens */
	size_t tools;               /* tool calls */
	size_t turns;               /* model turns begun */
};

struct tallies {
	struct tally_sum *at;       /* at[k]: the sums over events [0, k * TALLY_STEP) (owned) */
	size_t nat, cap;            /* checkpoints made, and room */
	double t0;                  /* first timestamp, 0 when the run has none */
};

/* Computes them again from event from on (0: all; a growing run: its new
 * events and the last old one, which may have grown too). */
void tallies_update(struct tallies *t, const struct run *run, size_t from);
/* The sums over events 0..i of run (i < run->nev), as tallies_update last
 * saw it. */
struct tally_sum tallies_at(const struct tallies *t, const struct run *run, size_t i);
void tallies_free(struct tallies *t);

#endif
