/* flags.h: auto-flags for annotators. A rule file (data/flags.rules, format
 * in kbtui(1), FLAG RULES) names PCRE2 patterns, each with a label and a
 * reason, that mark the events of a run an annotator should look at: a
 * forbidden op written into the solution, an edit of check.py, a timing
 * function replaced ... A run is flagged when any of its events is. */
#ifndef KB_FLAGS_H
#define KB_FLAGS_H

#include <stddef.h>
#include <stdio.h>

#include "flaghit.h"
#include "run.h"

/* One searchable part of an event: a field, or one decoded argument. */
struct flag_field {
	enum flag_where where;
	const char *s;         /* borrowed from the event or from the walk's buffer */
	size_t len;
};

/* Calls fn for each part of event i of r in a fixed order: text, tool-args
 * (each JSON string value decoded; the raw JSON when it does not parse),
 * path, diff (rendered on first use, run_event_diff). fn returns nonzero to
 * stop; the walk returns that value. */
int flag_fields(const struct run *r, size_t i, int (*fn)(void *ud, const struct flag_field *f), void *ud);

struct search;
/* The lines of a run that match s, in order, as `kbtui search` prints them:
 * fn(ud, event, line, text, len) for each matching line (line numbered on
 * across the parts flag_fields walks; text is raw); fn returns nonzero to
 * stop. Returns the lines found. */
size_t flag_grep(struct search *s, const struct run *r,
                 int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len), void *ud);

struct flag_rules;

/* Parses a rule file's text; name is what messages call it. NULL with *err
 * (owned) "name:LINE: what is wrong". */
struct flag_rules *flag_rules_parse(const char *text, size_t len, const char *name, char **err);
struct flag_rules *flag_rules_load(const char *path, char **err);
void flag_rules_free(struct flag_rules *rs);
size_t flag_rules_count(const struct flag_rules *rs);
const char *flag_rule_label(const struct flag_rules *rs, size_t i);
const char *flag_rule_why(const struct flag_rules *rs, size_t i);

/* Where the shipped rules are: $KBTUI_FLAGS, else data/flags.rules where
 * util_data_find looks ($KBTUI_DATADIR, the source tree of an uninstalled
 * build, the installed data directory); owned; the path even when the file
 * is missing. */
char *flag_rules_default_path(void);

/* The forbidden list of a problem (the patterns of problem.json through
 * problem_load, else the `forbidden:` list of a KernelBench-Hard
 * problem.yaml) under problems_dir; *n set, NULL when none. Free with
 * problem_names_free. */
char **flag_forbidden(const char *problems_dir, const char *problem, int *n);

struct flag_list {
	struct flag_hit *hits; /* by event, one per flagged event */
	size_t n, cap;
	/* what flag_run_default found for the run, kept for flag_run_update
	 * (owned; NULL, 0 from flag_eval) */
	char *problem, *problems_dir;
	char **forbidden;
	int nforbidden;
	size_t upto;           /* events evaluated: [0, upto); the rest not yet */
	int lazy;              /* from flag_run_lazy: flag_list_advance evaluates */
	/* what the rules need for the whole run, kept between polls of a
	 * growing run (owned, NULL until first needed) and the events it saw */
	struct flag_prep *prep;
	size_t prep_nev;
};

/* Evaluates the rules on a run of problem `problem` (NULL: rules with a
 * problem glob do not apply) whose forbidden list is given (a `forbidden`
 * rule needs one). Fills out (empty when nothing trips). */
void flag_eval(const struct flag_rules *rs, const struct run *r, const char *problem,
               char *const *forbidden, int nforbidden, struct flag_list *out);
/* The same with the problems the run's checks read (its GPU for physics);
 * NULL: the installed ones. */
void flag_eval_in(const struct flag_rules *rs, const struct run *r, const char *problem, const char *problems_dir,
                  char *const *forbidden, int nforbidden, struct flag_list *out);
void flag_list_free(struct flag_list *l);
/* The hit of event ev, NULL when it is not flagged. */
const struct flag_hit *flag_list_find(const struct flag_list *l, size_t ev);
/* The next flagged event after from (dir 1) or before it (dir -1); -1 when none. */
long flag_list_step(const struct flag_list *l, size_t from, int dir);

const char *flag_where_name(enum flag_where w);

/* ---- for the front end: the shipped rules on a run, a dataset ---------- */

/* The shipped rules (flag_rules_default_path), loaded at the first call and
 * kept; NULL with *err (borrowed) when they cannot be read. */
const struct flag_rules *flag_rules_default(const char **err);
/* The problems of the dataset a transcript is in (DIR/runs/ID/transcript:
 * DIR/problems), else the installed ones. Owned. */
char *flag_problems_dir(const char *transcript);
/* The problem of a run: its metadata, else the problem under problems_dir
 * whose name ends the run id, or the name of the transcript's folder or
 * file. Owned; NULL when unknown. */
char *flag_run_problem(const struct run *r, const char *problems_dir);
/* flag_eval with the forbidden list of `problem` read from problems_dir. */
void flag_run(const struct flag_rules *rs, const struct run *r, const char *problem,
              const char *problems_dir, struct flag_list *out);
/* The shipped rules on a run, its problem and the problems found from its
 * transcript's path: a new list (free with flag_list_delete), NULL when the
 * rules cannot be read. *rs: the rules the hits index. */
struct flag_list *flag_run_default(const struct run *r, const struct flag_rules **rs);
void flag_list_delete(struct flag_list *l);
/* The same, evaluated on demand so that a big run's first screen need not
 * wait for its flags: the list starts with no event evaluated, and
 * flag_list_advance evaluates the next max_events events (a screen calls it
 * between keys until it returns 0; (size_t)-1: all). Returns the events
 * not evaluated yet. flag_list_known says whether event ev's flag is known
 * (flag_list_find is NULL for an event not evaluated yet). Once advanced
 * to the end, the list is the one flag_run_default makes. flag_run_update
 * keeps a lazy list lazy: events from `from` on wait for flag_list_advance. */
struct flag_list *flag_run_lazy(const struct run *r, const struct flag_rules **rs);
size_t flag_list_advance(struct flag_list *l, const struct run *r, size_t max_events);
int flag_list_known(const struct flag_list *l, size_t ev);
/* The auto-flags of a run that grows (watch, live) brought up to date: l
 * (from flag_run_default or an earlier update; NULL: none yet) keeps its
 * hits before event `from` (the events that did not change), and the
 * events from `from` on are evaluated again, with the calls that new
 * results answer. from 0, or a problem that changed (named late in the
 * transcript), evaluates the whole run again. Returns the list to keep (l,
 * or a new one when l was freed); NULL when the rules cannot be read. */
struct flag_list *flag_run_update(struct flag_list *l, const struct run *r, size_t from,
                                  const struct flag_rules **rs);

struct dataset;
/* Which runs of a dataset are flagged, found a run at a time so that a
 * screen can stay responsive: step between keys until it returns 0. */
struct flag_runs;
struct flag_runs *flag_runs_new(struct dataset *ds, const struct flag_rules *rs);
void flag_runs_free(struct flag_runs *fr);
/* Flags the next run not yet done (loading its transcript, and unloading it
 * again unless it was loaded before); 0 when every run is done. Counts are
 * remembered under $XDG_CACHE_HOME/kbtui/flags (one file per dataset,
 * written by flag_runs_free; off with KBTUI_NO_CACHE) for transcripts,
 * rules, program and problem unchanged: a run found there is not loaded,
 * and one step takes many such runs. */
int flag_runs_step(struct flag_runs *fr);
/* Runs first..first+n-1 (the rows on screen) are done before the others. */
void flag_runs_prefer(struct flag_runs *fr, size_t first, size_t n);
/* Run i's transcript appeared or changed since it was done (a sweep's
 * cell that started or finished): it is to be done again, by the next
 * steps (from the cache when the file is one counted before). */
void flag_runs_forget(struct flag_runs *fr, size_t i);
/* Runs whose count came from the cache so far. */
size_t flag_runs_cached(const struct flag_runs *fr);
/* Run i: -1 not done yet (or no transcript), FLAG_RUNS_BIG not done
 * because its transcript is over FLAG_RUNS_BIG_BYTES and not loaded (the
 * size from which the browser opens a run through a pager), else its
 * flagged events. */
#define FLAG_RUNS_BIG (-2)
#define FLAG_RUNS_BIG_BYTES (16ull << 20)
long flag_runs_state(const struct flag_runs *fr, size_t i);
/* Runs done so far, of how many with a transcript. */
size_t flag_runs_done(const struct flag_runs *fr, size_t *total);

#endif
