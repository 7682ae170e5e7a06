/* stale_output: right on the first call for a given output buffer, then it
 * returns at once, leaving whatever the buffer held (the warm-up and timed
 * calls reuse the buffer). The runner fills outputs with NaN before every
 * call and the checker compares the first and last timed outputs.
 * Expected: FAIL (needs a GPU). */
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	static float *seen;
	if (y == seen)
		return 0;
	seen = y;
	return honest_softmax(x, y, batch, vocab, stream);
}
