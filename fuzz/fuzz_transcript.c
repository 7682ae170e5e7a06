/* fuzz_transcript.c: libFuzzer target for the transcript reader. Built once
 * sniffing (the sniffer picks the parser, so one target covers every format)
 * and once per format with -DFUZZ_FORMAT='"name"' forcing it.
 *
 * Each input is read three ways: whole; split in two at a point taken from
 * the data (must give the same events as whole: the reader is incremental);
 * and split with a reader_finish in between (a growing file). Beyond "no
 * crash", the run's invariants are checked so that a wrong link or a
 * kind out of range is a finding too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "parser.h"
#include "run.h"
#include "../tests/evsig.h"

static void fuzz_check(const struct run *r)
{
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if ((unsigned)e->kind >= EV__COUNT)
			abort();
		if (e->link != -1 && (e->link < 0 || (size_t)e->link >= r->nev))
			abort();
	}
	if (r->nerrors < 0 || r->nerrors > RUN_MAX_ERRORS)
		abort();
}

static struct run *fuzz_read(const struct parser_ops *forced, const uint8_t *d, size_t n,
                             size_t cut, int finish_between)
{
	struct run *r = run_new();
	struct reader *rd = reader_new(r, forced);
	reader_feed(rd, (const char *)d, cut);
	if (finish_between)
		reader_finish(rd);
	reader_feed(rd, (const char *)d + cut, n - cut);
	reader_finish(rd);
	if (reader_offset(rd) > n)
		abort();
	reader_free(rd);
	fuzz_check(r);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct parser_ops *forced = NULL;
	size_t cut;
#ifdef FUZZ_FORMAT
	forced = parser_find(FUZZ_FORMAT);
	if (!forced)
		abort();
#else
	(void)parser_sniff((const char *)data, size);
#endif
	cut = size ? ((size_t)data[0] * 131u + (size > 1 ? data[size - 1] : 0)) % (size + 1) : 0;

	struct run *whole = fuzz_read(forced, data, size, size, 0);
	struct run *split = fuzz_read(forced, data, size, cut, 0);
	char *a = evsig(whole), *b = evsig(split);
	if (strcmp(a, b) != 0)
		abort(); /* two chunks without a finish must read as one */
	free(a);
	free(b);
	run_free(split);
	run_free(fuzz_read(forced, data, size, cut, 1));
	run_free(whole);
	return 0;
}
