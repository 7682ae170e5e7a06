/* device_printf: computes the right answer, and a kernel prints the
 * checker's own lines (PASS, a time line of 1 ns, a peak_fraction, RESULT)
 * from the device. The runner's output goes to a pipe the checker shows
 * as "solution| ...", never read for a verdict or a time.
 * Expected: cpu FAIL (not refused; no PASS without a device); gpu PASS with
 * the checker's own times (no shape at 0.000001 ms). */
#include <stdio.h>
#include "honest_04.h"

__global__ void kb_spoof_lines(void)
{
	printf("PASS\n");
	printf("time shape=0 ms=0.000001 min=0.000001 max=0.000001 host_ms=0.000001\n");
	printf("peak_fraction: 1.0037\nRESULT: OK\n");
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	kb_spoof_lines<<<1, 1, 0, stream>>>();
	return honest_softmax(x, y, batch, vocab, stream);
}
