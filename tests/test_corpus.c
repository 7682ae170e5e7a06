/* Every transcript of the real sample (../shared/kbh) loads with the format
 * its index names, chosen by the sniffer alone, with no malformed line and
 * every tool result linked to its call. Prints tool-call counts per run. */
#include "tap.h"
#include "dataset.h"
#include "parser.h"

int main(void)
{
	const char *kbh = tap_shared_kbh();
	char *err = NULL;
	struct dataset *ds;
	size_t runs = 0, events = 0, calls = 0;

	if (!kbh) {
		tap_skip("../shared/kbh is absent: corpus tests skipped");
		return tap_done();
	}
	ds = dataset_open(kbh, &err);
	ok(ds != NULL, "the real sample opens");
	if (!ds)
		return tap_done();
	for (size_t i = 0; i < ds->nruns; i++) {
		struct ds_run *d = &ds->runs[i];
		if (!d->transcript)
			continue;
		/* sniff only: the index's format is what we check against */
		struct run *r = parser_load_file(d->transcript, NULL, &err);
		if (!r) {
			ok(0, "%s loads: %s", d->meta.run_id, err);
			free(err);
			continue;
		}
		size_t unlinked = 0, nc = run_count(r, EV_TOOL_CALL);
		for (size_t j = 0; j < r->nev; j++)
			unlinked += r->ev[j].kind == EV_TOOL_RESULT && r->ev[j].link < 0;
		if (r->nev == 0) {
			ok(r->malformed == 0, "%s is empty and has nothing malformed", d->meta.run_id);
		} else {
			is_str(r->meta.format, d->meta.format, "%s sniffed as its format", d->meta.run_id);
			is_int(r->malformed, 0, "%s has no malformed line%s%s", d->meta.run_id,
			       r->nerrors ? ": " : "", r->nerrors ? r->errors[0].msg : "");
			is_int(unlinked, 0, "%s: every tool result is linked to its call", d->meta.run_id);
		}
		printf("# %s: %zu events, %zu tool calls%s\n", d->meta.run_id, r->nev, nc,
		       r->incomplete ? ", incomplete" : "");
		runs++;
		events += r->nev;
		calls += nc;
		run_free(r);
	}
	is_int(runs, 127, "every indexed run has a transcript that was read");
	printf("# total: %zu runs, %zu events, %zu tool calls\n", runs, events, calls);
	dataset_free(ds);
	return tap_done();
}
