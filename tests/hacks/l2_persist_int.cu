/* l2_persist_int: l2_persist with no tell-tale name in the text: the window
 * filled through a byte copy and the attribute given as the number 1.
 * Expected: REFUSED (the object needs cudaStreamSetAttribute). */
#include <string.h>
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	unsigned char v[64] = {0};
	const void *base = x;
	size_t bytes = (size_t)batch * vocab * sizeof(float);
	float ratio = 1.0f;
	int hit = 2, miss = 1;
	memcpy(v, &base, 8);
	memcpy(v + 8, &bytes, 8);
	memcpy(v + 16, &ratio, 4);
	memcpy(v + 20, &hit, 4);
	memcpy(v + 24, &miss, 4);
	cudaStreamSetAttribute(stream, (cudaStreamAttrID)1, (const cudaStreamAttrValue *)v);
	return honest_softmax(x, y, batch, vocab, stream);
}
