/* 03_paged_attention baseline: a straightforward solution that passes.
 *
 * One block of 128 threads per (batch element, query head). The scores of
 * the whole sequence go to shared memory (threads take tokens in turn), a
 * block-wide max and sum make them probabilities, then each thread owns
 * output channels and sums p[l] * V[l][d] over the sequence. Nothing is
 * clever: the K and V of a kv head are read once per query head of its
 * group, and the block table is looked up for every token.
 */
#include <math.h>

#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include "interface.h"

#define THREADS 128

/* The bf16 in the low / high half of a 32-bit word, as float (exact). */
static __device__ float bf16_lo(unsigned w)
{
	return __uint_as_float(w << 16);
}

static __device__ float bf16_hi(unsigned w)
{
	return __uint_as_float(w & 0xffff0000u);
}

/* Block-wide max (is_max) or sum of v; every thread gets the result. */
static __device__ float block_reduce(float v, bool is_max, float *red)
{
	const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;

	for (int o = 16; o > 0; o >>= 1) {
		const float w = __shfl_xor_sync(0xffffffffu, v, o);
		v = is_max ? fmaxf(v, w) : v + w;
	}
	__syncthreads(); /* red may still be read by an earlier call */
	if (lane == 0)
		red[warp] = v;
	__syncthreads();
	if (warp == 0) {
		v = lane < THREADS / 32 ? red[lane] : (is_max ? -INFINITY : 0.0f);
		for (int o = 16; o > 0; o >>= 1) {
			const float w = __shfl_xor_sync(0xffffffffu, v, o);
			v = is_max ? fmaxf(v, w) : v + w;
		}
		if (lane == 0)
			red[0] = v;
	}
	__syncthreads();
	return red[0];
}

static __global__ void __launch_bounds__(THREADS)
paged_decode(const __nv_bfloat16 *query, const __nv_bfloat16 *kv, const int *block_table,
             const int *seq_lens, __nv_bfloat16 *out, int H, int Hkv, int D, int P,
             int max_blocks, float scale)
{
	extern __shared__ float smem[]; /* q as float [D], then scores [max_blocks * P] */
	__shared__ float red[32];
	float *qf = smem, *s = smem + D;
	const int bh = blockIdx.x, b = bh / H, kh = (bh % H) / (H / Hkv);
	const int L = seq_lens[b];
	const size_t token_stride = (size_t)Hkv * 2 * D; /* elements from one slot to the next */
	const int *pages = block_table + (size_t)b * max_blocks;

	for (int d = threadIdx.x; d < D; d += THREADS)
		qf[d] = __bfloat162float(query[(size_t)bh * D + d]);
	__syncthreads();

	float m = -INFINITY;
	for (int l = threadIdx.x; l < L; l += THREADS) {
		const __nv_bfloat16 *k = kv + ((size_t)pages[l / P] * P + l % P) * token_stride +
		                         (size_t)kh * 2 * D;
		float acc = 0.0f;
		for (int d = 0; d < D; d += 8) {
			const uint4 raw = *(const uint4 *)(k + d); /* 8 bf16 */
			const unsigned w[4] = {raw.x, raw.y, raw.z, raw.w};
			for (int j = 0; j < 4; ++j) {
				acc = fmaf(qf[d + 2 * j], bf16_lo(w[j]), acc);
				acc = fmaf(qf[d + 2 * j + 1], bf16_hi(w[j]), acc);
			}
		}
		s[l] = acc * scale;
		m = fmaxf(m, s[l]);
	}
	m = block_reduce(m, true, red);

	float sum = 0.0f;
	for (int l = threadIdx.x; l < L; l += THREADS) {
		s[l] = __expf(s[l] - m);
		sum += s[l];
	}
	sum = block_reduce(sum, false, red); /* its barriers also publish s[] */

	for (int d = threadIdx.x; d < D; d += THREADS) {
		float acc = 0.0f;
		for (int l = 0; l < L; ++l) {
			const __nv_bfloat16 *v = kv + ((size_t)pages[l / P] * P + l % P) * token_stride +
			                         (size_t)kh * 2 * D + D;
			acc = fmaf(s[l], __bfloat162float(v[d]), acc);
		}
		out[(size_t)bh * D + d] = __float2bfloat16(acc / sum);
	}
}

extern "C" int kb_03_paged_attention(const __nv_bfloat16 *query, const __nv_bfloat16 *kv_cache,
                                     const int *block_table, const int *seq_lens,
                                     __nv_bfloat16 *out, int batch, int num_heads,
                                     int num_kv_heads, int head_dim, int page_size,
                                     int max_blocks, int num_blocks, float scale,
                                     cudaStream_t stream)
{
	(void)num_blocks;
	/* the 16-byte loads of K need head_dim % 8 == 0 */
	if (batch <= 0 || num_kv_heads <= 0 || num_heads % num_kv_heads || head_dim <= 0 ||
	    head_dim % 8 || page_size <= 0 || max_blocks <= 0)
		return 1;
	const size_t smem = ((size_t)head_dim + (size_t)max_blocks * page_size) * sizeof(float);
	if (smem > 48 * 1024 &&
	    cudaFuncSetAttribute(paged_decode, cudaFuncAttributeMaxDynamicSharedMemorySize,
	                         (int)smem) != cudaSuccess)
		return 1;
	paged_decode<<<batch * num_heads, THREADS, smem, stream>>>(query, kv_cache, block_table,
	                                                           seq_lens, out, num_heads,
	                                                           num_kv_heads, head_dim,
	                                                           page_size, max_blocks, scale);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
