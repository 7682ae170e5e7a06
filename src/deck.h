/* deck.h: a deck (problems/decks/NAME.json): one published version of the
 * benchmark's definitions (which problems, tolerances and what they are
 * keyed on, seeds, timing protocol, named checks, the hardware table), each
 * value with the file and line of the publisher's source it comes from. The
 * eval loop runs a problem as its deck says; --describe prints it. */
#ifndef KB_DECK_H
#define KB_DECK_H

#include <stdio.h>

struct cJSON;
struct problem;
struct hardware_profile;

struct deck_problem {
	const char *name;           /* borrowed from the deck's JSON */
	double atol, rtol;          /* the deck's tolerance for the output */
	const char *keyed_on;       /* "bfloat16": the dtype the tolerance is looked up by */
	int seeds;                  /* correctness seeds per shape */
	int trials;                 /* 0: the problem's num_perf_trials */
	const struct cJSON *json;   /* the deck's per_problem entry */
};

struct deck {
	struct cJSON *doc;          /* owns every string below */
	const char *name, *title, *date, *source;
	const char *table;          /* hardware.json key of the deck's roofline table */
	int warmup;
	double l2_flush_bytes;
	struct deck_problem *p;
	int np;
};

/* problems_dir/decks/NAME.json. NULL with *err (owned) naming the file and
 * what is wrong (no such deck: the decks there are listed). */
struct deck *deck_load(const char *problems_dir, const char *name, char **err);
void deck_free(struct deck *d);
/* The deck names under problems_dir/decks, sorted. Free with
 * problem_names_free. */
char **deck_names(const char *problems_dir, int *n);
/* The current deck for the GPU of hardware key hwkey: the deck whose
 * "default_for" lists it (*own_table = 0: scored on the deck's table), else
 * one whose "definitions_for" does (*own_table = 1: the deck's definitions,
 * the GPU's own table, as for an H100 SXM or an H200, which no deck of the
 * publisher's scores). Owned; NULL when none. */
char *deck_default_for(const char *problems_dir, const char *hwkey, int *own_table);
/* The deck's entry for problem name (a folder name); NULL when the deck
 * does not hold that problem. */
const struct deck_problem *deck_problem(const struct deck *d, const char *name);

/* The whole definition of problem p as this deck runs it: shapes, formulas,
 * regime, inputs, reference, tolerance and keying, seeds, trials, warm-up,
 * flush, named checks (the deck's and our own), the table's figures and
 * source, the differences kbtui cannot remove, every value cited. Owned by
 * the caller (cJSON_Delete). table may be NULL (no such profile). */
struct cJSON *deck_describe(const struct deck *d, const struct problem *p, const struct hardware_profile *table);
/* The same as text, a field a line. */
void deck_describe_print(const struct cJSON *desc, FILE *out);

#endif
