/* search.h: regular-expression search over a run's events (PCRE2, JIT
 * compiled where the platform allows). Smart case, as in vi and less -i: a
 * pattern with no upper-case letter ignores case. Text is matched as UTF-8;
 * invalid bytes never stop a search. */
#ifndef KB_SEARCH_H
#define KB_SEARCH_H

#include <stddef.h>

#include "run.h"

struct search;

/* Compiles pattern; NULL with *err (owned) naming the offset and the problem
 * when it is not a valid regular expression or is empty. */
struct search *search_new(const char *pattern, char **err);
void search_free(struct search *s);
const char *search_pattern(const struct search *s);

/* The first match in text[0..len) starting at or after byte start: 1 and
 * [*so, *eo), or 0. An empty match is reported (so == eo); callers step
 * past it. */
int search_next(struct search *s, const char *text, size_t len, size_t start, size_t *so, size_t *eo);

/* The literal every match of the pattern contains (relit.h), used to skip
 * text before PCRE2 runs; NULL when there is none or it is not used. By
 * default (AUTO) it is used where PCRE2 knows no first code unit of the
 * match: PCRE2's JIT scans for one as fast as memmem does, but a pattern
 * that starts with \w+ or a class it tries at every byte. OFF and ALWAYS
 * are for tests that compare. */
enum { SEARCH_PREFILTER_OFF, SEARCH_PREFILTER_AUTO, SEARCH_PREFILTER_ALWAYS };
struct relit;
const struct relit *search_literal(const struct search *s);
void search_set_prefilter(struct search *s, int mode);

/* Whether an event matches: its text, tool name, file path, diff, and its
 * arguments (each JSON string value decoded, and the raw JSON text). */
int search_event(struct search *s, const struct event *e);

/* The next event after `from` (dir 1) or before it (dir -1) that matches,
 * wrapping around the run once; -1 when no event matches. *wrapped says
 * whether it went past the end (or start). */
long search_run(struct search *s, const struct run *r, size_t from, int dir, int *wrapped);

/* Indices of every matching event, in order, into *out (owned; NULL when
 * none); returns how many. */
size_t search_events(struct search *s, const struct run *r, size_t **out);
/* The same for a run that grew: the n indices in *out (from search_events
 * or an earlier call) are kept below `from`, and the events from `from` on
 * are searched again and appended. Returns the new count. A watch poll
 * then costs the new events, not the run. */
size_t search_events_more(struct search *s, const struct run *r, size_t from, size_t **out, size_t n);

#endif
