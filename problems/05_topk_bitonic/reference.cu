/* 05_topk_bitonic reference: top-k by k rounds of selection.
 *
 * Elements are ranked by value, larger first, equal values by index,
 * smaller first: a strict total order, so "the next element after the last
 * one taken" is always well defined, ties included. One block per row takes
 * k rounds; in each, every thread finds the best element of its share that
 * ranks after the previous pick, and a block reduction finds the best of
 * those. O(k * n) per row with no sorting network to get wrong.
 */
#include <math.h>
#include <stdint.h>
#include <cuda_runtime.h>

#define REF_THREADS 1024

struct ref_item {
	float v;
	int i; /* -1: none */
};

/* Whether a ranks before b; a missing item ranks after everything. */
static __device__ bool ref_before(ref_item a, ref_item b)
{
	if (a.i < 0)
		return false;
	if (b.i < 0)
		return true;
	return a.v > b.v || (a.v == b.v && a.i < b.i);
}

static __device__ ref_item ref_warp_best(ref_item a)
{
	for (int off = 16; off > 0; off /= 2) {
		ref_item b;
		b.v = __shfl_down_sync(0xffffffffu, a.v, off);
		b.i = __shfl_down_sync(0xffffffffu, a.i, off);
		if (ref_before(b, a))
			a = b;
	}
	return a;
}

/* The best item over the block; every thread gets it. */
static __device__ ref_item ref_block_best(ref_item a, ref_item *scratch)
{
	const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
	a = ref_warp_best(a);
	if (lane == 0)
		scratch[warp] = a;
	__syncthreads();
	if (warp == 0) {
		ref_item none = {-INFINITY, -1};
		a = lane < (int)(blockDim.x / 32) ? scratch[lane] : none;
		a = ref_warp_best(a);
		if (lane == 0)
			scratch[32] = a;
	}
	__syncthreads();
	a = scratch[32];
	__syncthreads(); /* scratch is reused by the next round */
	return a;
}

static __global__ __launch_bounds__(REF_THREADS) void
ref_topk_kernel(const float *x, float *values, int64_t *indices, int n, int k)
{
	__shared__ ref_item scratch[33];
	const float *xr = x + (size_t)blockIdx.x * n;
	ref_item prev = {-INFINITY, -1};

	for (int round = 0; round < k; ++round) {
		ref_item best = {-INFINITY, -1};
		for (int i = threadIdx.x; i < n; i += blockDim.x) {
			ref_item e = {xr[i], i};
			if ((round == 0 || ref_before(prev, e)) && ref_before(e, best))
				best = e;
		}
		best = ref_block_best(best, scratch);
		if (threadIdx.x == 0) {
			values[(size_t)blockIdx.x * k + round] = best.v;
			indices[(size_t)blockIdx.x * k + round] = best.i;
		}
		prev = best;
	}
}

extern "C" int kbref_05_topk_bitonic(const float *x, float *values, int64_t *indices, int batch,
                                     int n, int k, cudaStream_t stream)
{
	if (batch <= 0 || n <= 0 || k <= 0 || k > n)
		return 1;
	ref_topk_kernel<<<batch, REF_THREADS, 0, stream>>>(x, values, indices, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
