/* runcount.h: the figures of a run that only its transcript gives (events,
 * tool calls, malformed lines, whether it ends incomplete, whether its
 * token figures are approximate, the format it was read as), kept in the
 * cache ($XDG_CACHE_HOME/kbtui/counts, one table per dataset, by device
 * and inode: hard links share) while the transcript is the same file, so that listing a dataset reads its index
 * and never a transcript. */
#ifndef KB_RUNCOUNT_H
#define KB_RUNCOUNT_H

#include <stddef.h>

struct dataset;
struct ds_run;
struct idcache;
struct run;

struct runcount {
	size_t events, tools;
	int malformed, incomplete, approx;
	char format[32];              /* "" when the run named none */
};

/* The dataset's table (idcache_free saves and frees it). */
struct idcache *runcount_open(const struct dataset *ds);
/* 1 and *out when the figures of d's transcript are kept and still hold;
 * the transcript is stat'ed, never opened. */
int runcount_get(struct idcache *c, const struct ds_run *d, struct runcount *out);
/* Keeps r's figures, r being d's transcript as dataset_load read it. */
void runcount_put(struct idcache *c, const struct ds_run *d, const struct run *r);
/* The same, of figures taken elsewhere (a helper process). */
void runcount_keep(struct idcache *c, const struct ds_run *d, const struct runcount *n);
/* r's figures. */
void runcount_of(const struct run *r, struct runcount *out);

#endif
