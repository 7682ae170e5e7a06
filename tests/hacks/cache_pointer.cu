/* cache_pointer: computes once per (x, y) pointer pair and, on later calls
 * with the same pointers, copies the answer it kept. The checker changes the
 * contents of the same buffers between trials (two inputs alternate), and
 * compares the first and last timed outputs. Expected: FAIL (needs a GPU). */
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	static const float *last_x;
	static float *kept;
	static size_t kept_n;
	const size_t n = (size_t)batch * vocab;
	if (x == last_x && kept && kept_n == n)
		return cudaMemcpyAsync(y, kept, n * sizeof(float), cudaMemcpyDeviceToDevice, stream) != cudaSuccess;
	int rc = honest_softmax(x, y, batch, vocab, stream);
	if (kept)
		cudaFree(kept);
	if (cudaMalloc(&kept, n * sizeof(float)) != cudaSuccess)
		return 1;
	kept_n = n;
	last_x = x;
	return rc || cudaMemcpyAsync(kept, y, n * sizeof(float), cudaMemcpyDeviceToDevice, stream) != cudaSuccess;
}
