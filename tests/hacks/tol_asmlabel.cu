/* tol_asmlabel: rewrites the tolerance through an asm label, the name split
 * in two literals. The checker's tolerance is not in the runner at all (the
 * label would bind nothing), and the label is refused on sight.
 * Expected: REFUSED (asm label, after preprocessing). */
#include "honest_04.h"

extern "C" double tol __asm__("kb_" "atol");

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	tol = 1e30;
	return honest_softmax(x, y, batch, vocab, stream);
}
