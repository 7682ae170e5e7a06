/* runstats.h: where a run's time went and how much of its reasoning can be
 * seen. Time: the wall clock between consecutive timestamped events is
 * given to the event that ends the gap, so the parts add up to the run's
 * elapsed time even when tool calls run in parallel:
 *   - a tool result: tool time (call -> result), by what the call ran:
 *     compile, check, benchmark or other;
 *   - reasoning, text, a tool call, usage, an error: model time (from the
 *     previous event's end to the assistant's output);
 *   - the person's or the harness's messages (user, system, compaction):
 *     wait time.
 * Where a turn records how long it was active (Claude Code's
 * turn_duration), its model and tool time add up to no more than that:
 * the rest of its clock is wait (runstats.c: rs_turns).
 * Reasoning: whether the run's reasoning is visible, redacted, encrypted or
 * summary-only, with the reasoning tokens the usage events report beside
 * the characters shown, so an empty reasoning pane is not read as a model
 * that did not think. */
#ifndef KB_RUNSTATS_H
#define KB_RUNSTATS_H

#include <stddef.h>

#include "run.h"

/* What a tool call does, from its command. */
enum runstats_tool { RS_COMPILE, RS_CHECK, RS_BENCH, RS_OTHER, RS__TOOLS };
/* Who an event's time belongs to. */
enum runstats_part { RS_NONE = -1, RS_MODEL, RS_TOOL, RS_WAIT, RS__PARTS };

enum runstats_reasoning {
	RS_R_NONE,        /* no reasoning event, no reasoning token */
	RS_R_VISIBLE,     /* every reasoning event has its text */
	RS_R_PARTIAL,     /* some shown, some hidden */
	RS_R_SUMMARY,     /* only summaries (Codex reasoning summaries) */
	RS_R_REDACTED,    /* hidden, empty (Claude redacted or unreturned thinking) */
	RS_R_ENCRYPTED,   /* hidden, empty (Codex, opencode encrypted reasoning) */
	RS_R_UNRECORDED,  /* reasoning tokens reported, no reasoning event */
};

/* The time of one event: the gap before it. */
struct runstats_ev {
	signed char part;         /* enum runstats_part; RS_NONE: no timestamp */
	signed char tool;         /* enum runstats_tool, for RS_TOOL */
	double secs;
};

struct runstats {
	size_t nev;               /* the events counted (runstats_update adds more) */
	struct runstats_ev *ev;   /* per event (owned) */
	size_t cap;               /* of ev */
	/* where the walk over the events stands: the first and the last stamp
	 * seen, how many were stamped, the first event of the open turn */
	double first, prev;
	int stamped;
	size_t turn_start;
	int timed;                /* the transcript has timestamps */
	double total;             /* first to last timestamp */
	double part[RS__PARTS];   /* seconds per part */
	double tool[RS__TOOLS];   /* tool seconds by kind */
	int turns;                /* turns that record their active time (turn_duration) */
	double active;            /* their active seconds, summed */
	/* reasoning honesty */
	enum runstats_reasoning reasoning;
	size_t nreasoning, nhidden;   /* reasoning events, and those redacted */
	size_t chars_shown;           /* characters of visible reasoning */
	size_t chars_summary;         /* characters of redacted events' summaries */
	long long tok_reasoning;      /* reasoning tokens of the usage events */
	int thinking;                 /* Claude-like: its tokens are "thinking" */
};

struct runstats *runstats_new(const struct run *r);
/* Of its first upto events only (runstats_update adds the rest). */
struct runstats *runstats_new_upto(const struct run *r, size_t upto);
/* Adds events [s->nev, upto) of r (upto at most r->nev) to s, made for the
 * same run when it had fewer: a run that only grew (a big file read in
 * turns) costs its new events. Leaving out the last events while they may
 * still grow (merged deltas) is the caller's choice. */
void runstats_update(struct runstats *s, const struct run *r, size_t upto);
void runstats_free(struct runstats *s);

/* The command a tool call runs (a shell tool's command or cmd argument,
 * an array joined with spaces); NULL when it runs none. Owned. */
char *runstats_command(const struct event *call);
/* What a command does: compile (nvcc, a C++ compiler, make, ninja, or
 * Python that mentions load_inline, cpp_extension or triton.jit), check
 * (check.py), benchmark (benchmark.py, a bench script), other. */
enum runstats_tool runstats_classify(const char *cmd);
/* The class of a tool call: its command's, or RS_CHECK for a harness
 * eval tool; RS_OTHER when it runs no command. */
enum runstats_tool runstats_call_class(const struct event *call);
/* Whether cmd runs a Python interpreter (python, python3.11, uv run ...). */
int runstats_runs_python(const char *cmd);

const char *runstats_tool_name(enum runstats_tool t);     /* "compile", "check", "bench", "other" */
const char *runstats_reasoning_name(enum runstats_reasoning r); /* "visible", "redacted", ... */

/* Short durations: 42s, 3m, 1h05m. */
void runstats_duration(char *buf, size_t n, double secs);
/* "model 41m tool 12m: compile 3m check 2m bench 4m" (and "wait 1m" when
 * the user or harness took time); NULL when
 * the run has no timestamps. */
char *runstats_split_text(const struct runstats *s);
/* One event's time: "model 12s", "tool 3m compile"; NULL when unknown. */
char *runstats_event_text(const struct runstats *s, size_t i);
/* "reasoning redacted: 18.2k thinking tokens, 0 chars shown" (owned). */
char *runstats_reasoning_text(const struct runstats *s);
/* The split and the reasoning mark in at most max bytes: both, else the
 * reasoning mark, else the split; NULL when neither fits. Owned. */
char *runstats_summary(const struct runstats *s, size_t max);

#endif
