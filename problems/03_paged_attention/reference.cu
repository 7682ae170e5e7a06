/* 03_paged_attention reference: decode attention over the paged KV cache.
 *
 * Written to be easy to trust rather than fast: three passes in which every
 * thread computes one value on its own (no shared memory, no cooperation),
 * so each pass reads like the formula in interface.h.
 *   1. one thread per (b, h, l): the scaled score, an fp32 dot product
 *      (a product of two bf16 values is exact in fp32);
 *   2. one thread per (b, h): max over the sequence, the sum of exp(s - max)
 *      in fp64, then p[l] in place of s[l];
 *   3. one thread per (b, h, d): out = sum over l of p[l] * V[l][d].
 * Tokens at l >= seq_lens[b] are never read. The output stays fp32 so that
 * the comparison sees the solution's own bf16 rounding.
 */
#include <math.h>

#include <cuda_runtime.h>
#include <cuda_bf16.h>

struct kbref_paged {
	const __nv_bfloat16 *query, *kv;
	const int *block_table, *seq_lens;
	int H, Hkv, D, P, max_blocks;
	float scale;
};

/* Start of the [K | V] row of token l of batch element b for kv head kh. */
static inline __host__ __device__ const __nv_bfloat16 *kbref_kv_row(const kbref_paged &a,
                                                                     int b, int l, int kh)
{
	const int page = a.block_table[(size_t)b * a.max_blocks + l / a.P];
	return a.kv + (((size_t)page * a.P + l % a.P) * a.Hkv + kh) * 2 * (size_t)a.D;
}

static inline __host__ __device__ int kbref_kv_head(const kbref_paged &a, int h)
{
	return h / (a.H / a.Hkv);
}

/* Pass 1, item i = (b*H + h) * Lmax + l: the score of token l, if it exists. */
static inline __host__ __device__ void kbref_score(const kbref_paged &a, float *s, size_t i)
{
	const int Lmax = a.max_blocks * a.P;
	const int l = (int)(i % Lmax);
	const int bh = (int)(i / Lmax);
	const int b = bh / a.H, h = bh % a.H;

	if (l >= a.seq_lens[b])
		return;
	const __nv_bfloat16 *q = a.query + (size_t)bh * a.D;
	const __nv_bfloat16 *k = kbref_kv_row(a, b, l, kbref_kv_head(a, h));
	float acc = 0.0f;
	for (int d = 0; d < a.D; ++d)
		acc = fmaf(__bfloat162float(q[d]), __bfloat162float(k[d]), acc);
	s[i] = acc * a.scale;
}

/* Pass 2, item bh = b*H + h: turns the scores of (b, h) into probabilities.
 * Subtracting the max first keeps every exp() in [0, 1]. */
static inline __host__ __device__ void kbref_softmax(const kbref_paged &a, float *s, int bh)
{
	const int L = a.seq_lens[bh / a.H];
	float *row = s + (size_t)bh * a.max_blocks * a.P;
	float m = -INFINITY;
	double sum = 0.0;

	for (int l = 0; l < L; ++l)
		m = fmaxf(m, row[l]);
	for (int l = 0; l < L; ++l)
		sum += (double)expf(row[l] - m);
	for (int l = 0; l < L; ++l)
		row[l] = (float)((double)expf(row[l] - m) / sum);
}

/* Pass 3, item i = (b*H + h) * D + d: one output element. */
static inline __host__ __device__ void kbref_weighted_v(const kbref_paged &a, const float *p,
                                                 float *out, size_t i)
{
	const int d = (int)(i % a.D);
	const int bh = (int)(i / a.D);
	const int b = bh / a.H, kh = kbref_kv_head(a, bh % a.H);
	const int L = a.seq_lens[b];
	const float *row = p + (size_t)bh * a.max_blocks * a.P;
	float acc = 0.0f;

	for (int l = 0; l < L; ++l)
		acc = fmaf(row[l], __bfloat162float(kbref_kv_row(a, b, l, kh)[a.D + d]), acc);
	out[i] = acc;
}

static __global__ void kbref_score_kernel(kbref_paged a, float *s, size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		kbref_score(a, s, i);
}

static __global__ void kbref_softmax_kernel(kbref_paged a, float *s, int n)
{
	const int bh = blockIdx.x * blockDim.x + threadIdx.x;
	if (bh < n)
		kbref_softmax(a, s, bh);
}

static __global__ void kbref_weighted_v_kernel(kbref_paged a, const float *p, float *out,
                                               size_t n)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		kbref_weighted_v(a, p, out, i);
}

static unsigned kbref_blocks(size_t n)
{
	const size_t b = (n + 255) / 256;
	return (unsigned)(b > 65536 ? 65536 : b);
}

/* out: batch x num_heads x head_dim fp32; scratch: batch * num_heads *
 * max_blocks * page_size floats. */
extern "C" int kbref_03_paged_attention(const __nv_bfloat16 *query, const __nv_bfloat16 *kv_cache,
                                        const int *block_table, const int *seq_lens, float *out,
                                        float *scratch, int batch, int num_heads,
                                        int num_kv_heads, int head_dim, int page_size,
                                        int max_blocks, float scale, cudaStream_t stream)
{
	if (batch <= 0 || num_kv_heads <= 0 || num_heads % num_kv_heads || head_dim <= 0 ||
	    page_size <= 0 || max_blocks <= 0)
		return 1;
	const kbref_paged a = {query, kv_cache, block_table, seq_lens, num_heads,
	                       num_kv_heads, head_dim, page_size, max_blocks, scale};
	const int nbh = batch * num_heads;
	const size_t nscore = (size_t)nbh * max_blocks * page_size;
	const size_t nout = (size_t)nbh * head_dim;

	kbref_score_kernel<<<kbref_blocks(nscore), 256, 0, stream>>>(a, scratch, nscore);
	kbref_softmax_kernel<<<(nbh + 127) / 128, 128, 0, stream>>>(a, scratch, nbh);
	kbref_weighted_v_kernel<<<kbref_blocks(nout), 256, 0, stream>>>(a, scratch, out, nout);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
