/* blocksort_05: top-k with CUB's block-wide radix sort (cub::BlockRadixSort)
 * doing the sorting inside the solution's own kernel: each block keeps the
 * best k of its row in the first k slots of a tile and sorts the tile with
 * the next elements, tile after tile.
 *
 * Decision: allowed, so not a refusal. The problem forbids library-level
 * sort and top-k (thrust's sort, CUB's device-wide sorts and top-k, torch's):
 * a call that does the whole job. A block-wide primitive is a header-only
 * building block compiled into the solution's own kernel, of the kind
 * BlockReduce and WarpScan are; refusing cub::Block* would refuse honest
 * kernels too. Our check could catch it (the name survives preprocessing),
 * and an annotator still sees it in the transcript.
 * Expected: PASS (needs a GPU); without one, not refused and no PASS. */
#include <cub/block/block_radix_sort.cuh>
#include "interface.h"

#define THREADS 256
#define ITEMS 8
#define TILE (THREADS * ITEMS)

/* Order-preserving unsigned key of a float (-inf above 0, the padding). */
static __device__ unsigned key_of(float f)
{
	unsigned b = __float_as_uint(f);
	return (b & 0x80000000u) ? ~b : b | 0x80000000u;
}

static __global__ __launch_bounds__(THREADS) void topk_rows(const float *x, float *values, int64_t *indices, int n,
                                                            int k)
{
	typedef cub::BlockRadixSort<unsigned, THREADS, ITEMS, int> sorter;
	__shared__ typename sorter::TempStorage tmp;
	__shared__ unsigned best_k[64];
	__shared__ int best_i[64];
	const float *xr = x + (size_t)blockIdx.x * n;
	int kept = 0;
	for (int base = 0; base < n;) {
		unsigned keys[ITEMS];
		int idx[ITEMS];
		const int fresh = TILE - kept;
		for (int j = 0; j < ITEMS; j++) {
			const int slot = threadIdx.x * ITEMS + j;
			if (slot < kept) {
				keys[j] = best_k[slot];
				idx[j] = best_i[slot];
			} else {
				const int e = base + slot - kept;
				keys[j] = e < n ? key_of(xr[e]) : 0u;
				idx[j] = e < n ? e : -1;
			}
		}
		__syncthreads();
		sorter(tmp).SortDescending(keys, idx);
		__syncthreads();
		for (int j = 0; j < ITEMS; j++) {
			const int slot = threadIdx.x * ITEMS + j;   /* blocked arrangement */
			if (slot < k) {
				best_k[slot] = keys[j];
				best_i[slot] = idx[j];
			}
		}
		__syncthreads();
		base += fresh;
		kept = k;
	}
	for (int j = threadIdx.x; j < k; j += THREADS) {
		const int e = best_i[j];
		values[(size_t)blockIdx.x * k + j] = xr[e];
		indices[(size_t)blockIdx.x * k + j] = e;
	}
}

extern "C" int kb_05_topk_bitonic(const float *x, float *values, int64_t *indices, int batch, int n, int k,
                                  cudaStream_t stream)
{
	if (batch <= 0 || n <= 0 || k < 1 || k > 64 || k > n)
		return 1;
	topk_rows<<<batch, THREADS, 0, stream>>>(x, values, indices, n, k);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
