/* wrong_04.cu: a deliberately wrong solution of 04_kahan_softmax for
 * tests/gpu/run.sh. It exponentiates without subtracting the row maximum:
 * right on the normal inputs (|x| stays small), but exp(1e4) overflows on
 * the adversarial input, so the check must end in FAIL naming that case. */
#include <math.h>
#include "interface.h"

static __global__ void wrong_softmax(const float *x, float *y, int vocab)
{
	__shared__ float part[256];
	const float *xr = x + (size_t)blockIdx.x * vocab;
	float *yr = y + (size_t)blockIdx.x * vocab;
	float s = 0;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x)
		s += expf(xr[i]);
	part[threadIdx.x] = s;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k)
			part[threadIdx.x] += part[threadIdx.x + k];
		__syncthreads();
	}
	for (int i = threadIdx.x; i < vocab; i += blockDim.x)
		yr[i] = expf(xr[i]) / part[0];
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	wrong_softmax<<<batch, 256, 0, stream>>>(x, y, vocab);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
