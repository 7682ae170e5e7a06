/* flaghit.h: what an auto-flag found: where in an event it looked, and
 * the hit itself. Apart from flags.h so that the rules written in C
 * (src/flagcheck.h) fill hits without depending on the rule engine that
 * calls them. */
#ifndef KB_FLAGHIT_H
#define KB_FLAGHIT_H

#include <stddef.h>

/* Where in an event a rule looks (`in` of a rule). */
enum flag_where {
	FW_TOOL_ARGS = 1,      /* a tool call's arguments, each JSON string value */
	FW_TOOL_RESULT = 2,    /* a tool result's text */
	FW_TEXT = 4,           /* the agent's text (and user/system text) */
	FW_REASONING = 8,      /* reasoning */
	FW_PATH = 16,          /* the file a tool call reads or writes */
	FW_WRITE_PATH = 32,    /* the file a tool call writes or edits (it has a diff) */
	FW_DIFF = 64,          /* the lines a write or edit adds */
	FW_ANY = 127,
};

/* One flagged event: the first rule (in file order) that trips on it. */
struct flag_hit {
	size_t event;          /* index into run->ev */
	size_t rule;           /* index into the rules */
	enum flag_where where; /* the part it matched in */
	int line;              /* 1-based line of that part */
	char *text;            /* the matching line, raw (owned; make it safe to show) */
	size_t so, eo;         /* the match within text */
	char *note;            /* a check's finding (src/flagcheck.h), raw (owned); NULL for patterns */
	char *other;           /* contamination: the other run's id (owned), NULL */
	double overlap;        /* contamination: the solutions' shared fingerprints, 0..1; -1 none */
};

#endif
