/* 07_w4a16_gemm driver: inputs, the solution's call, the reference, comparison.
 *
 * Inputs follow the original problem: x = N(0, 1) in bf16, and the weights
 * come from a dense W = 0.02 * N(0, 1) quantised per group of 128 along K
 * the AWQ way: s = max(max - min, 1e-8) / 15, z = round(-min / s) clamped
 * to 0..15, q = round(W / s + z) clamped to 0..15 (round half to even, as
 * torch), s and z then stored as bf16.
 *
 * The adversarial input, by column n % 8:
 *   3  every scale 0 (the column of W is 0, so y there is 0);
 *   5  every scale 2^14 with q and z anywhere in 0..15: (q - z) * s reaches
 *      245760, past the fp16 range, and y reaches 1e7 or so;
 *   other columns: per group, 1 in 5 a zero scale and 1 in 5 an extreme
 *      zero-point (0 or 15) with q anywhere in 0..15, the rest as usual;
 *   and in x every k with k % 61 == 7 is 8 times larger (outlier channels,
 *      as in real activations).
 * The adversarial input stays fair to every sound way of dequantising:
 * simulated at full size, fp32 (q - z) * s, the reference's bf16-rounded W,
 * and bf16 fma(q, s, -bf16(z * s)) stay within 0.4 of the tolerance of each
 * other. (With 64x outliers, or one q for a whole extreme group, the
 * rounding errors of W line up and correct kernels fail, hence these.)
 * Normal deviates come from kb_uniform by Box-Muller in fp32.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"
#include "kb_driver_util.h"
#include "interface.h"

extern "C" int kbref_07_w4a16_gemm(const __nv_bfloat16 *x, const uint8_t *w_q,
                                   const __nv_bfloat16 *scales, const __nv_bfloat16 *zeros,
                                   __nv_bfloat16 *y, int M, int N, int K,
                                   __nv_bfloat16 *w_workspace, cudaStream_t stream);

struct w4_shape {
	int M, N, K;
	const char *desc;
};

static const w4_shape SHAPES[] = {
	{1, 12288, 4096, "M=1 N=12288 K=4096"},
	{32, 12288, 4096, "M=32 N=12288 K=4096"},
	{256, 12288, 4096, "M=256 N=12288 K=4096"},
	{1, 4096, 4096, "M=1 N=4096 K=4096"},
	{16, 14336, 4096, "M=16 N=14336 K=4096"},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

#define GROUP KB_W4A16_GROUP
#define BIG_SCALE 16384.0f

struct w4_inst {
	int M, N, K;
	__nv_bfloat16 *x, *scales, *zeros, *y, *y_ref, *w_ref;
	uint8_t *w_q;
};

static __global__ void gen_x(__nv_bfloat16 *x, int M, int K, unsigned long long seed,
                             int adversarial)
{
	const size_t n = (size_t)M * K;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		float v = kb_normal_at(seed, i);
		if (adversarial && (i % K) % 61 == 7)
			v *= 8.0f;
		x[i] = __float2bfloat16(v);
	}
}

/* The dense weight W[k][n] before quantisation. */
static __device__ float dense_w(unsigned long long seed, int k, int n, int N)
{
	return 0.02f * kb_normal_at(seed, (unsigned long long)k * N + n);
}

/* One thread per (group, column): quantise 128 weights and pack them. */
static __global__ void gen_weights(uint8_t *w_q, __nv_bfloat16 *scales, __nv_bfloat16 *zeros,
                                   int N, int K, unsigned long long seed, int adversarial)
{
	const size_t cells = (size_t)(K / GROUP) * N;
	for (size_t c = blockIdx.x * (size_t)blockDim.x + threadIdx.x; c < cells;
	     c += (size_t)gridDim.x * blockDim.x) {
		const int g = (int)(c / N), n = (int)(c % N);
		const int k0 = g * GROUP;
		const unsigned long long h = kb_mix(seed ^ kb_mix(c ^ 0x5A5A5A5A00000000ULL));
		/* kind: 0 usual, 1 zero scale, 2 big scale, 3 z = 0, 4 z = 15 */
		int kind = 0;
		if (adversarial) {
			if (n % 8 == 3)
				kind = 1;
			else if (n % 8 == 5)
				kind = 2;
			else if (h % 5 == 0)
				kind = 1;
			else if (h % 5 == 1)
				kind = (h >> 32) & 1 ? 3 : 4;
		}

		float wmin = INFINITY, wmax = -INFINITY;
		for (int i = 0; i < GROUP; ++i) {
			const float w = dense_w(seed, k0 + i, n, N);
			wmin = fminf(wmin, w);
			wmax = fmaxf(wmax, w);
		}
		float s = fmaxf(wmax - wmin, 1e-8f) / 15.0f;
		const float zq = fminf(fmaxf(rintf(-wmin / s), 0.0f), 15.0f);
		float z = zq;
		if (kind == 2)
			z = (float)((h >> 8) % 16);
		else if (kind == 3)
			z = 0.0f;
		else if (kind == 4)
			z = 15.0f;

		for (int i = 0; i < GROUP; i += 2) {
			int q[2];
			for (int j = 0; j < 2; ++j) {
				const int k = k0 + i + j;
				const unsigned long long hk = kb_mix(h ^ kb_mix((unsigned long long)k));
				if (kind == 0 || kind == 1) {
					const float w = dense_w(seed, k, n, N);
					q[j] = (int)fminf(fmaxf(rintf(w / s + zq), 0.0f), 15.0f);
				} else {
					q[j] = (int)((hk >> 8) % 16);
				}
			}
			w_q[(size_t)(k0 + i) / 2 * N + n] = (uint8_t)(q[0] | q[1] << 4);
		}
		if (kind == 1)
			s = 0.0f;
		else if (kind == 2)
			s = BIG_SCALE;
		scales[c] = __float2bfloat16(s);
		zeros[c] = __float2bfloat16(z);
	}
}

static const char *w4_shape_desc(int shape)
{
	return shape >= 0 && shape < NSHAPES ? SHAPES[shape].desc : "?";
}

static void w4_destroy(void *p)
{
	w4_inst *in = (w4_inst *)p;
	if (!in)
		return;
	cudaFree(in->x);
	cudaFree(in->w_q);
	cudaFree(in->scales);
	cudaFree(in->zeros);
	cudaFree(in->y);
	cudaFree(in->y_ref);
	cudaFree(in->w_ref);
	free(in);
}

static void *w4_create(int shape, unsigned long long seed, int adversarial)
{
	if (shape < 0 || shape >= NSHAPES) {
		fprintf(stderr, "07_w4a16_gemm: no shape %d\n", shape);
		return NULL;
	}
	w4_inst *in = (w4_inst *)calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->M = SHAPES[shape].M;
	in->N = SHAPES[shape].N;
	in->K = SHAPES[shape].K;
	const size_t nx = (size_t)in->M * in->K, ny = (size_t)in->M * in->N;
	const size_t nq = (size_t)in->K / 2 * in->N, ng = (size_t)in->K / GROUP * in->N;
	const size_t nw = (size_t)in->K * in->N;

	if (kb_cuda_failed(cudaMalloc(&in->x, nx * 2), "cudaMalloc x") ||
	    kb_cuda_failed(cudaMalloc(&in->w_q, nq), "cudaMalloc w_q") ||
	    kb_cuda_failed(cudaMalloc(&in->scales, ng * 2), "cudaMalloc scales") ||
	    kb_cuda_failed(cudaMalloc(&in->zeros, ng * 2), "cudaMalloc zeros") ||
	    kb_cuda_failed(cudaMalloc(&in->y, ny * 2), "cudaMalloc y") ||
	    kb_cuda_failed(cudaMalloc(&in->y_ref, ny * 2), "cudaMalloc y_ref") ||
	    kb_cuda_failed(cudaMalloc(&in->w_ref, nw * 2), "cudaMalloc w_ref"))
		goto fail;
	/* all-ones bytes are bf16 NaN: an element left unwritten fails */
	if (kb_cuda_failed(cudaMemset(in->y, 0xFF, ny * 2), "cudaMemset y") ||
	    kb_cuda_failed(cudaMemset(in->y_ref, 0xFF, ny * 2), "cudaMemset y_ref"))
		goto fail;
	gen_x<<<kb_gen_blocks(nx), 256>>>(in->x, in->M, in->K, kb_sub_seed(seed, 1), adversarial);
	gen_weights<<<kb_gen_blocks(ng), 256>>>(in->w_q, in->scales, in->zeros, in->N, in->K,
	                                     kb_sub_seed(seed, 2), adversarial);
	if (kb_cuda_failed(cudaGetLastError(), "input generation launch") ||
	    kb_cuda_failed(cudaDeviceSynchronize(), "input generation"))
		goto fail;
	return in;
fail:
	w4_destroy(in);
	return NULL;
}

static int w4_describe(void *p, kb_call *c)
{
	w4_inst *in = (w4_inst *)p;
	const size_t M = in->M, N = in->N, K = in->K;
	kb_call_buf(c, in->x, M * K * 2, 0);
	kb_call_buf(c, in->w_q, K / 2 * N, 0);
	kb_call_buf(c, in->scales, K / GROUP * N * 2, 0);
	kb_call_buf(c, in->zeros, K / GROUP * N * 2, 0);
	kb_call_buf(c, in->y, M * N * 2, 1);
	kb_call_num(c, in->M);
	kb_call_num(c, in->N);
	kb_call_num(c, in->K);
	return 0;
}

static int w4_run_reference(void *p, cudaStream_t s)
{
	w4_inst *in = (w4_inst *)p;
	return kbref_07_w4a16_gemm(in->x, in->w_q, in->scales, in->zeros, in->y_ref, in->M, in->N,
	                           in->K, in->w_ref, s);
}

/* 0 once both outputs were read (pass or fail), non-zero when they could
 * not be copied back. */
static int w4_compare(void *p, kb_cmp *out)
{
	w4_inst *in = (w4_inst *)p;
	char what[128];
	snprintf(what, sizeof what, "y (%d x %d bf16)", in->M, in->N);
	return kb_compare_dev(out, what, in->y, KB_BF16, in->y_ref, KB_BF16, (size_t)in->M * in->N);
}

static size_t w4_footprint(int shape)
{
	if (shape < 0 || shape >= NSHAPES)
		return 0;
	const size_t M = SHAPES[shape].M, N = SHAPES[shape].N, K = SHAPES[shape].K;
	return M * K * 2 + K / 2 * N + 2 * (K / GROUP * N * 2) + 2 * (M * N * 2) + K * N * 2;
}

extern "C" const kb_driver KB_DRIVER = {
	"07_w4a16_gemm",
	NSHAPES,
	w4_shape_desc,
	w4_create,
	w4_destroy,
	w4_describe,
	w4_run_reference,
	w4_compare,
	w4_footprint,
};
