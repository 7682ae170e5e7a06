/* swap_checker: computes the right answer and, on its first call (during
 * the check), replaces the checker on disk (WORKDIR/kbcheck, the runner's
 * working directory) by a script that prints PASS and 1 ns time lines,
 * and tries to plant an object among the cached harness objects. The
 * benchmark runs the sealed copy kbtui built (/proc/self/fd/N), and the
 * harness folder is read-only in the sandbox.
 * Expected: cpu FAIL (not refused; no PASS without a device); gpu PASS with
 * the checker's own times (no shape at 0.000001 ms). */
#include <stdio.h>
#include <sys/stat.h>
#include "honest_04.h"

static void kb_swap(void)
{
	FILE *f = fopen("kbcheck", "w");
	if (f) {
		fputs("#!/bin/sh\necho PASS\nfor i in 0 1 2 3 4 5 6 7; do "
		      "echo \"time shape=$i ms=0.000001 min=0.000001 max=0.000001 host_ms=0.000001\"; done\n", f);
		fclose(f);
		chmod("kbcheck", 0755);
	}
	if ((f = fopen("harness/planted.o", "w")))
		fclose(f);
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	static int once;
	if (!once++)
		kb_swap();
	return honest_softmax(x, y, batch, vocab, stream);
}
