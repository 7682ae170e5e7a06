/* runcount.c: a run's figures as one cache value, "EVENTS TOOLS MALFORMED
 * INCOMPLETE APPROX FORMAT". */
#include "runcount.h"
#include "dataset.h"
#include "idcache.h"
#include "run.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct idcache *runcount_open(const struct dataset *ds)
{
	return idcache_open("counts", ds->root);
}

/* What the figures depend on besides the transcript: this program, and
 * the format the index names (dataset_load reads the file as that). */
static unsigned long long runcount_key(const struct ds_run *d)
{
	unsigned long long exe[2];
	idcache_exe(exe);
	return idcache_str_hash(idcache_fnv(IDCACHE_FNV0, exe, sizeof exe), d->meta.format);
}

/* The table's name for a transcript: its device and inode, so that the
 * hard links of one file (a dataset made of links) share its figures. */
static void runcount_name(char *buf, size_t n, const unsigned long long id[4])
{
	snprintf(buf, n, "@%llx:%llx", id[0], id[1]);
}

void runcount_of(const struct run *r, struct runcount *out)
{
	memset(out, 0, sizeof *out);
	out->events = r->nev;
	out->tools = run_count(r, EV_TOOL_CALL);
	out->malformed = r->malformed;
	out->incomplete = r->incomplete != 0;
	out->approx = r->tokens_approx != 0;
	const char *f = r->meta.format ? r->meta.format : "";
	if (strlen(f) < sizeof out->format && strspn(f, "abcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(f))
		strcpy(out->format, f);
}

int runcount_get(struct idcache *c, const struct ds_run *d, struct runcount *out)
{
	unsigned long long id[4];
	if (!c || !d->transcript || idcache_identify(d->transcript, id) < 0)
		return 0;
	char name[48];
	runcount_name(name, sizeof name, id);
	const char *v = idcache_get(c, name, id, runcount_key(d));
	unsigned long long ev, tools;
	int mal, inc, approx, used = 0;
	memset(out, 0, sizeof *out);
	if (!v || sscanf(v, "%llu %llu %d %d %d %n", &ev, &tools, &mal, &inc, &approx, &used) < 5 || !used ||
	    strlen(v + used) >= sizeof out->format)
		return 0;
	out->events = (size_t)ev;
	out->tools = (size_t)tools;
	out->malformed = mal;
	out->incomplete = inc;
	out->approx = approx;
	strcpy(out->format, v + used);
	return 1;
}

void runcount_keep(struct idcache *c, const struct ds_run *d, const struct runcount *n)
{
	unsigned long long id[4];
	if (!c || !d->transcript || idcache_identify(d->transcript, id) < 0)
		return;
	char v[128];
	snprintf(v, sizeof v, "%zu %zu %d %d %d %s", n->events, n->tools, n->malformed, n->incomplete, n->approx,
	         n->format);
	char name[48];
	runcount_name(name, sizeof name, id);
	idcache_put(c, name, id, runcount_key(d), v);
}

void runcount_put(struct idcache *c, const struct ds_run *d, const struct run *r)
{
	struct runcount n;
	runcount_of(r, &n);
	runcount_keep(c, d, &n);
}
