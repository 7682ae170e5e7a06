/* provenance.h: a run's outcome as each file of the dataset states it
 * (the transcript, result.json, runs.jsonl, each leaderboard), kept apart
 * so that where they disagree both values can be shown with the file that
 * says each. The merged struct run_meta says one value; this says who. */
#ifndef KB_PROVENANCE_H
#define KB_PROVENANCE_H

#include <stddef.h>
#include <cjson/cJSON.h>

enum prov_source {
	PROV_TRANSCRIPT,          /* the completion marker, or its absence */
	PROV_RESULT,              /* runs/<id>/result.json */
	PROV_INDEX,               /* runs.jsonl */
	PROV_LEADERBOARD,         /* leaderboard.json */
	PROV_LEADERBOARD_V1,      /* leaderboard_v1.json */
	/* kernelbench.com's other boards, a slot each (board.h) */
	PROV_LEADERBOARD_V2,      /* leaderboard_v2.json */
	PROV_LEADERBOARD_FRESH,   /* leaderboard.fresh-preview.json */
	PROV_LEADERBOARD_H100,    /* leaderboard.h100.json */
	PROV_LEADERBOARD_V2_H100, /* leaderboard_v2.h100.json */
	PROV_LEADERBOARD_B200,    /* leaderboard.b200.json */
	PROV_LEADERBOARD_V2_B200, /* leaderboard_v2.b200.json */
	PROV_LEADERBOARD_OTHER,   /* any other leaderboard*.json (the first read) */
	PROV__COUNT
};

enum prov_field {
	PROV_CORRECT,
	PROV_PEAK,
	PROV_COMPLETE,            /* session_complete */
	PROV_SOLUTION,            /* has_solution */
	PROV_FIELD__COUNT
};

/* What one file says; a field counts only when the file states it (a key
 * present, even as null: "peak_fraction": null says "no peak"). */
struct prov_values {          /* (16 bytes: a big dataset holds a dozen a run) */
	unsigned char known;      /* bit (1 << enum prov_field) per field stated */
	unsigned char correct, complete, has_solution;   /* 0 or 1 */
	double peak;              /* < 0: null */
};

/* How the transcript's end looks to one who follows it (kbtui watch): a
 * file without its completion marker that grew a moment ago is still
 * being written; one that has not grown for PROV_QUIET_S seconds may have
 * ended (cut off, crashed) or be in a long step. */
enum prov_end { PROV_END_UNKNOWN, PROV_END_WRITING, PROV_END_QUIET };
#define PROV_QUIET_S 10

struct provenance {
	struct prov_values src[PROV__COUNT];
	enum prov_end end;        /* set by a follower; UNKNOWN elsewhere */
};

/* One disagreement: field, and the two files with what each says. */
struct prov_diff {
	enum prov_field field;
	enum prov_source a, b;
	char va[24], vb[24];      /* "true", "0.4391", "null" */
};

const char *prov_source_name(enum prov_source s);   /* "result.json" */
const char *prov_field_name(enum prov_field f);     /* "peak_fraction" */
/* The slot of a board file: its own, or PROV_LEADERBOARD_OTHER. */
enum prov_source prov_board_slot(const char *file);

/* Reads correct, peak_fraction, session_complete and has_solution from a
 * result.json, a runs.jsonl line or a leaderboard cell (they share keys). */
void prov_read_json(struct prov_values *v, const cJSON *o);
void prov_set(struct prov_values *v, enum prov_field f, int value);
/* The value f has in v as text, "" when v does not state it. */
void prov_value_text(const struct prov_values *v, enum prov_field f, char *buf, size_t n);

/* The disagreements, each pair of files stating different values of a
 * field (peaks within 5e-5 agree: 0.032 is 0.0320), in field then source
 * order, at most max written to out (may be NULL); returns how many there
 * are in all. */
size_t prov_diffs(const struct provenance *p, struct prov_diff *out, size_t max);
/* "correct: result.json says true, runs.jsonl says false" (owned). */
char *prov_diff_text(const struct prov_diff *d);
/* All of them, one per line, NULL when none (owned). */
char *prov_diffs_text(const struct provenance *p);
/* Each field the files disagree on with what every file says, grouped:
 * "correct: result.json true, runs.jsonl false; peak_fraction: ..." (owned),
 * NULL when none. Fields in the skip mask (1 << field) are left out. */
char *prov_summary(const struct provenance *p, unsigned skip);
/* The first file (not the transcript) that says session_complete: true,
 * or -1: what contradicts a transcript without its completion marker. */
int prov_says_complete(const struct provenance *p);
/* The replay's banner line: what is wrong with the run's outcome or its
 * transcript's end, or NULL when nothing is (owned). incomplete: the
 * transcript lacks its completion marker; narrow: the words that fit 80
 * columns; mark: the glyph that flags a disagreement ("!=" in ASCII).
 * With p->end known (a watch), the words tell a file still being written
 * from one that stopped without its marker. */
char *prov_banner(const struct provenance *p, int incomplete, int narrow, const char *mark);

#endif
