/* noise.h: the events a reader of a run can do without: token usage
 * records, system events, and tool calls that change nothing (reads,
 * greps, listings: a read-only tool, or a shell command made only of
 * known programs with known options that neither write nor run anything,
 * and no file diff), with their results. The replay's s hides them, so
 * the rules fail safe: a hack must not hide behind s (anything unknown,
 * --i for --in-place, sed --expression='1w f', >&file, ./cat are shown). */
#ifndef KB_NOISE_H
#define KB_NOISE_H

#include <stddef.h>

struct run;

/* Whether a shell command only reads: every command of its pipelines and
 * lists (|, &&, ||, ;) is a known program by its bare name (cat, ls, grep,
 * sed -n ...) whose every option is known and harmless (long options
 * abbreviated as getopt_long allows), and it writes no file (no > but to
 * /dev/null or a descriptor, no tee, no here document, no command
 * substitution). NULL: no. */
int noise_command_reads(const char *cmd);
/* Whether event i of r is noise. */
int noise_event(struct run *r, size_t i);
/* hide[i] set to noise_event for i in [from, r->nev) (hide holds r->nev);
 * returns how many of them are noise. */
size_t noise_mark(struct run *r, size_t from, unsigned char *hide);

/* The events of r that are not noise, in order: a new array (free it) of
 * *nshown indexes; *nhidden gets the noise count. */
size_t *noise_shown(struct run *r, size_t *nshown, size_t *nhidden);

/* The marks of a run that grows (a big file read between keys, watch,
 * live): noise_marks_update marks the events from `from` on and the calls
 * their results complete (a result can bring its call's diff), not the
 * whole run again; the events shown are then listed from the marks, a
 * byte each. */
struct noise_marks {
	unsigned char *hide;      /* per event (owned) */
	size_t n, cap;            /* events marked */
	size_t nhidden;
	size_t *shown;            /* the events not hidden, in order (owned) */
	size_t nshown;
};
void noise_marks_update(struct noise_marks *m, struct run *r, size_t from);
void noise_marks_free(struct noise_marks *m);

#endif
