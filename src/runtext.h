/* runtext.h: the searchable text of a run, flat: the parts flag_fields
 * walks (text, each decoded argument, path, diff) of every event, one after
 * another in one buffer, each with its event and the line it starts on.
 * `kbtui search` matches it as flag_grep matches the run (same lines, same
 * numbers, same order), and keeps it in a cache file keyed by the
 * transcript's identity, so that searching an unchanged run again neither
 * parses JSON nor renders diffs: it reads the text and runs the regular
 * expression over it. */
#ifndef KB_RUNTEXT_H
#define KB_RUNTEXT_H

#include <stddef.h>

#include "run.h"

struct search;
struct runtext;

/* The text of a loaded run (diffs rendered on the way). */
struct runtext *runtext_new(const struct run *r);
/* The text of events [from, to) alone, numbered as in the whole run: a
 * run read as a stream is searched a slice at a time. */
struct runtext *runtext_events(const struct run *r, size_t from, size_t to);
void runtext_free(struct runtext *t);
size_t runtext_bytes(const struct runtext *t);

/* flag_grep over the text: fn(ud, event, line, text, len) for each matching
 * line, in order; fn returns nonzero to stop. Returns the lines found. */
size_t runtext_grep(struct search *s, const struct runtext *t,
                    int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len), void *ud);

/* The cache: $XDG_CACHE_HOME/kbtui/text (else ~/.cache/kbtui/text), one
 * file per transcript (device and inode: hard links share it) and format
 * (NULL: sniffed), valid while the transcript's device, inode, size and
 * modification time and this program's own file are what they were when
 * it was written, and its checksum holds (cachedir.h: trusted directory,
 * bounded size). Off when KBTUI_NO_CACHE is set. runtext_load: NULL when there is no valid entry;
 * *key is then what a new entry must stand for (the transcript as it is
 * before it is parsed). runtext_save: 0 when written (atomically), -1 when
 * it was not (no cache directory, a full disk, a transcript changed since
 * runtext_load): the cache is an optimisation only. */
struct runtext_key {
	unsigned long long v[6];
	int ok;
};
struct runtext *runtext_load(const char *transcript, const char *format, struct runtext_key *key);
int runtext_save(const struct runtext *t, const char *transcript, const char *format,
                 const struct runtext_key *key);
/* The same entry written as the run is read (its text need not be held
 * whole): each runtext_events of it added in order, then ended; it is kept
 * when keep and the transcript is still what key says. NULL (and every
 * call on it a no-op) when there is no cache or no entry can be made. */
struct runtext_writer;
struct runtext_writer *runtext_writer_new(const char *transcript, const char *format,
                                          const struct runtext_key *key);
void runtext_writer_add(struct runtext_writer *w, const struct runtext *t);
int runtext_writer_end(struct runtext_writer *w, int keep);
/* An entry of min_bytes or more is searched from its file, parts bytes
 * and parts at a time, rather than read whole (defaults: 64 MB, 65536
 * parts, 8 MB of text). For tests, which make small entries big. */
void runtext_stream_limits(size_t min_bytes, size_t parts, size_t bytes);
/* Whether t is searched from its entry's file (a big entry) rather than
 * held in memory. */
int runtext_streamed(const struct runtext *t);
/* Whether an entry for the transcript as it is now exists, by its header
 * alone (its checksum is runtext_load's to check): for a helper that fills
 * the cache and need not read what is there. */
int runtext_have(const char *transcript, const char *format);

#endif
