/* follow.h: a transcript file that a harness is still writing, followed
 * into a run: what was appended since the last poll goes through the
 * incremental reader; a truncated, rewritten or replaced file is read again
 * from the start; a file that is missing (not yet written, or gone for a
 * while) is waited for. Polling with stat: see follow.c for why. */
#ifndef KB_FOLLOW_H
#define KB_FOLLOW_H

#include "parser.h"
#include "run.h"

struct follow;

/* Why the run was read again from the start. */
enum follow_why {
	FOLLOW_NONE,
	FOLLOW_TRUNCATED,   /* shorter than what was read */
	FOLLOW_REWRITTEN,   /* same file, the bytes already read changed */
	FOLLOW_REPLACED,    /* another file under the name (new inode, or gone and back) */
};

/* Follows path into run (borrowed; emptied and refilled on a restart);
 * forced: the format, NULL to sniff. Nothing is read until the first poll. */
struct follow *follow_new(const char *path, struct run *run, const struct parser_ops *forced);
void follow_free(struct follow *f);
/* Reads what changed since the last poll: 1 when the run changed (events
 * added, the last one grown, or all read again), 0 when not. */
int follow_poll(struct follow *f);
/* The same, feeding about `budget` new bytes (whole 64 KiB reads; more
 * until the lines that choose the format are in): a big file is
 * read over several polls, so that a screen can show its first events
 * while the rest is read between keys (the run is then, after each poll,
 * what a watch of a file written that far would show). follow_pending: the
 * bytes that the last poll saw in the file and left for the next. */
int follow_poll_budget(struct follow *f, size_t budget);
size_t follow_pending(const struct follow *f);
/* Whether the file was there at the last poll. */
int follow_present(const struct follow *f);
/* How many times the run was read again from the start, and the last reason. */
unsigned follow_restarts(const struct follow *f);
enum follow_why follow_last_why(const struct follow *f);
const char *follow_why_name(enum follow_why why);   /* "truncated", ... */
/* Bytes read so far. */
size_t follow_offset(const struct follow *f);

#endif
