/* interpose_memcpy: defines cudaMemcpy itself, so the harness's copies of
 * inputs and outputs would go through it (here: it copies nothing, leaving
 * stale data for the comparison). Expected: REFUSED (defines cudaMemcpy). */
#include "honest_04.h"

extern "C" cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind kind)
{
	(void)dst; (void)src; (void)n; (void)kind;
	return cudaSuccess;
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	return honest_softmax(x, y, batch, vocab, stream);
}
