/* spoof_print: no constructor: the entry point itself prints PASS and time
 * lines and computes nothing. It passes every static check; its output goes
 * to the runner's pipe, shown as "solution| ...", never read.
 * Expected: FAIL (no device here: no PASS without one; on a GPU the output
 * is all NaN, the checker's FAIL). */
#include <stdio.h>
#include "interface.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	(void)x; (void)y; (void)batch; (void)vocab; (void)stream;
	printf("PASS\ntime shape=0 ms=0.000001 min=0 max=0\npeak_fraction: 1.0037\nRESULT: OK\n");
	fflush(stdout);
	return 0;
}
