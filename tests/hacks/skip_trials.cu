/* skip_trials: the trial-counting probe. Honest on the check's calls and
 * the warm-up, then it skips every third call (returns at once, outputs
 * left as LOAD made them): were only the first and the last trial
 * compared, most patterns would pass with a time a third lower.
 * Expected: cpu FAIL (not refused; no PASS without a device); gpu FAIL
 * (every timed output is compared: a skipped trial's outputs are NaN). */
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	static int calls;
	if (++calls > 40 && calls % 3 == 0)
		return 0;
	return honest_softmax(x, y, batch, vocab, stream);
}
