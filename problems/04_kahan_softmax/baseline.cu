/* 04_kahan_softmax baseline solution: three passes over each row in fp32.
 *
 * One 1024-thread block per row: the row max, then the sum of
 * exp(x - max) with each thread's share summed with Kahan compensation and
 * the 1024 partial sums added in a tree (about ten roundings deep), then
 * y = exp(x - max) / sum. Simple and accurate, but a batch of 4 rows keeps
 * only 4 SMs busy: a real solution splits long rows across blocks.
 */
#include <math.h>
#include "interface.h"

#define THREADS 1024

/* Reduces v over the block with op; every thread gets the result. */
template <typename Op>
static __device__ float block_reduce(float v, float identity, float *scratch, Op op)
{
	for (int off = 16; off > 0; off /= 2)
		v = op(v, __shfl_down_sync(0xffffffffu, v, off));
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	if (lane == 0)
		scratch[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < (int)(blockDim.x / 32) ? scratch[lane] : identity;
		for (int off = 16; off > 0; off /= 2)
			v = op(v, __shfl_down_sync(0xffffffffu, v, off));
		if (lane == 0)
			scratch[32] = v;
	}
	__syncthreads();
	v = scratch[32];
	__syncthreads(); /* scratch is reused by the next reduction */
	return v;
}

struct op_max {
	__device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};
struct op_add {
	__device__ float operator()(float a, float b) const { return a + b; }
};

static __global__ __launch_bounds__(THREADS) void softmax_rows(const float *__restrict__ x,
                                                               float *__restrict__ y, int vocab)
{
	__shared__ float scratch[33];
	const float *xr = x + (size_t)blockIdx.x * vocab;
	float *yr = y + (size_t)blockIdx.x * vocab;

	float m = -INFINITY;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x)
		m = fmaxf(m, xr[i]);
	m = block_reduce(m, -INFINITY, scratch, op_max());

	/* Kahan: c carries the low-order bits that the running sum dropped */
	float s = 0.0f, c = 0.0f;
	for (int i = threadIdx.x; i < vocab; i += blockDim.x) {
		const float term = expf(xr[i] - m) - c;
		const float t = s + term;
		c = (t - s) - term;
		s = t;
	}
	s = block_reduce(s, 0.0f, scratch, op_add());

	for (int i = threadIdx.x; i < vocab; i += blockDim.x)
		yr[i] = expf(xr[i] - m) / s;
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab,
                                   cudaStream_t stream)
{
	if (batch <= 0 || vocab <= 0)
		return 1;
	softmax_rows<<<batch, THREADS, 0, stream>>>(x, y, vocab);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
