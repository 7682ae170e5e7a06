/* 01_fp8_gemm driver: inputs, the solution's call, the reference, comparison.
 *
 * Inputs follow the publisher's current deck (reference.py of
 * problems-rtxpro6000/01_fp8_gemm): x uniform in [-4, 4) rounded to e4m3; a weight
 * drawn with std 0.02 (uniform in [-0.02 sqrt 3, 0.02 sqrt 3) here), each
 * row divided by its largest magnitude / 448 and rounded to e4m3, that
 * divisor (clamped to 1e-12) being the row's fp32 weight_scale. The
 * original deck's bf16 weight cannot be passed to an fp8 entry point: its
 * deck (kbh-2026-04) runs these inputs at its 0.01 tolerance.
 *
 * The adversarial input makes x uniform in [0, 4) and w in [0, 448), then
 * sets whole rows of x and of w to +448 (the e4m3 maximum), to -448 and to
 * 0. Every row is then of one sign, so every dot product is a sum of terms
 * of one sign: up to 448 * 448 * K, about 8e8, far past what an fp16
 * accumulator holds, yet with no cancellation, so a kernel whose fp32
 * accumulation is only approximately fp32 (fp8 tensor cores may keep about
 * 14 bits inside an MMA chain) still passes, and only a wrong one fails.
 * Its scales are 2^u, u uniform in [-14, -4) per channel, so a kernel that
 * applies one channel's scale to another fails.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"
#include "kb_driver_util.h"
#include "interface.h"

extern "C" int kbref_01_fp8_gemm(const __nv_fp8_e4m3 *x, const __nv_fp8_e4m3 *w, const float *scale,
                                 __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream);

struct fp8_shape {
	int M, N, K;
	const char *desc;
};

static const fp8_shape SHAPES[] = {
	{4096, 4096, 4096, "M=4096 N=4096 K=4096"},
	{4096, 4096, 4127, "M=4096 N=4096 K=4127"},
	{32, 8192, 8192, "M=32 N=8192 K=8192"},
	{4096, 14336, 4096, "M=4096 N=14336 K=4096"},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

#define E4M3_MAX 448.0f
/* uniform with the std 0.02 of the publisher's normal weight */
#define W_HALF (0.02f * 1.7320508f)
#define GEN_THREADS 256

struct fp8_inst {
	int M, N, K;
	__nv_fp8_e4m3 *x, *w;
	float *scale;
	__nv_bfloat16 *y, *y_ref;
};

/* One block a row of w: the row drawn, its largest magnitude found, the
 * row normalised into the e4m3 range and its scale kept, as reference.py
 * does with amax / 448. */
static __global__ __launch_bounds__(GEN_THREADS) void gen_scaled_weight(__nv_fp8_e4m3 *w, float *scale, int K,
                                                                       unsigned long long seed)
{
	__shared__ float red[GEN_THREADS];
	const int n = blockIdx.x;
	const size_t row = (size_t)n * K;
	float amax = 0.0f;
	for (int k = threadIdx.x; k < K; k += GEN_THREADS)
		amax = fmaxf(amax, fabsf(kb_uniform(seed, row + k, -W_HALF, W_HALF)));
	red[threadIdx.x] = amax;
	__syncthreads();
	for (int s = GEN_THREADS / 2; s > 0; s >>= 1) {
		if ((int)threadIdx.x < s)
			red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
		__syncthreads();
	}
	const float sc = fmaxf(red[0] / E4M3_MAX, 1e-12f);
	for (int k = threadIdx.x; k < K; k += GEN_THREADS)
		w[row + k] = __nv_fp8_e4m3(kb_uniform(seed, row + k, -W_HALF, W_HALF) / sc);
	if (threadIdx.x == 0)
		scale[n] = sc;
}

/* The adversarial scales: 2^u, u uniform in [-14, -4). */
static __global__ void gen_adversarial_scale(float *scale, int N, unsigned long long seed)
{
	for (int n = blockIdx.x * blockDim.x + threadIdx.x; n < N; n += gridDim.x * blockDim.x)
		scale[n] = exp2f(kb_uniform(seed, (unsigned long long)n, -14.0f, -4.0f));
}

static __global__ void gen_uniform_e4m3(__nv_fp8_e4m3 *p, size_t n, unsigned long long seed,
                                        float lo, float hi)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = __nv_fp8_e4m3(kb_uniform(seed, i, lo, hi));
}

/* Adversarial rows of a rows x K matrix: row r with r % period equal to
 * plus / minus / zero becomes all +max / all -max / all 0. */
static __global__ void gen_adversarial_rows(__nv_fp8_e4m3 *p, int rows, int K, int period,
                                            int plus, int minus, int zero)
{
	const size_t n = (size_t)rows * K;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		const int r = (int)(i / K) % period;
		if (r == plus)
			p[i] = __nv_fp8_e4m3(E4M3_MAX);
		else if (r == minus)
			p[i] = __nv_fp8_e4m3(-E4M3_MAX);
		else if (r == zero)
			p[i] = __nv_fp8_e4m3(0.0f);
	}
}

static const char *fp8_shape_desc(int shape)
{
	return shape >= 0 && shape < NSHAPES ? SHAPES[shape].desc : "?";
}

static void fp8_destroy(void *p)
{
	fp8_inst *in = (fp8_inst *)p;
	if (!in)
		return;
	cudaFree(in->x);
	cudaFree(in->w);
	cudaFree(in->scale);
	cudaFree(in->y);
	cudaFree(in->y_ref);
	free(in);
}

static void *fp8_create(int shape, unsigned long long seed, int adversarial)
{
	if (shape < 0 || shape >= NSHAPES) {
		fprintf(stderr, "01_fp8_gemm: no shape %d\n", shape);
		return NULL;
	}
	fp8_inst *in = (fp8_inst *)calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->M = SHAPES[shape].M;
	in->N = SHAPES[shape].N;
	in->K = SHAPES[shape].K;
	const size_t nx = (size_t)in->M * in->K, nw = (size_t)in->N * in->K;
	const size_t ny = (size_t)in->M * in->N;
	const unsigned long long sx = kb_sub_seed(seed, 1), sw = kb_sub_seed(seed, 2), ss = kb_sub_seed(seed, 3);

	if (kb_cuda_failed(cudaMalloc(&in->x, nx), "cudaMalloc x") ||
	    kb_cuda_failed(cudaMalloc(&in->w, nw), "cudaMalloc w") ||
	    kb_cuda_failed(cudaMalloc(&in->scale, (size_t)in->N * sizeof(float)), "cudaMalloc weight_scale") ||
	    kb_cuda_failed(cudaMalloc(&in->y, ny * 2), "cudaMalloc y") ||
	    kb_cuda_failed(cudaMalloc(&in->y_ref, ny * 2), "cudaMalloc y_ref"))
		goto fail;
	/* all-ones bytes are bf16 NaN: an element left unwritten fails */
	if (kb_cuda_failed(cudaMemset(in->y, 0xFF, ny * 2), "cudaMemset y") ||
	    kb_cuda_failed(cudaMemset(in->y_ref, 0xFF, ny * 2), "cudaMemset y_ref"))
		goto fail;
	/* adversarial: one sign per row (see the top of the file) */
	gen_uniform_e4m3<<<kb_gen_blocks(nx), 256>>>(in->x, nx, sx, adversarial ? 0.0f : -4.0f, 4.0f);
	if (!adversarial)
		gen_scaled_weight<<<in->N, GEN_THREADS>>>(in->w, in->scale, in->K, sw);
	if (adversarial) {
		gen_uniform_e4m3<<<kb_gen_blocks(nw), 256>>>(in->w, nw, sw, 0.0f, E4M3_MAX);
		gen_adversarial_scale<<<kb_gen_blocks(in->N), 256>>>(in->scale, in->N, ss);
		gen_adversarial_rows<<<kb_gen_blocks(nx), 256>>>(in->x, in->M, in->K, 61, 7, 23, 41);
		gen_adversarial_rows<<<kb_gen_blocks(nw), 256>>>(in->w, in->N, in->K, 53, 3, 31, 17);
	}
	if (kb_cuda_failed(cudaGetLastError(), "input generation launch") ||
	    kb_cuda_failed(cudaDeviceSynchronize(), "input generation"))
		goto fail;
	return in;
fail:
	fp8_destroy(in);
	return NULL;
}

static int fp8_describe(void *p, kb_call *c)
{
	fp8_inst *in = (fp8_inst *)p;
	const size_t M = in->M, N = in->N, K = in->K;
	kb_call_buf(c, in->x, M * K, 0);
	kb_call_buf(c, in->w, N * K, 0);
	kb_call_buf(c, in->scale, N * sizeof(float), 0);
	kb_call_buf(c, in->y, M * N * 2, 1);
	kb_call_num(c, in->M);
	kb_call_num(c, in->N);
	kb_call_num(c, in->K);
	return 0;
}

static int fp8_run_reference(void *p, cudaStream_t s)
{
	fp8_inst *in = (fp8_inst *)p;
	return kbref_01_fp8_gemm(in->x, in->w, in->scale, in->y_ref, in->M, in->N, in->K, s);
}

/* 0 once both outputs were read (pass or fail), non-zero when they could
 * not be copied back. */
static int fp8_compare(void *p, kb_cmp *out)
{
	fp8_inst *in = (fp8_inst *)p;
	char what[128];
	snprintf(what, sizeof what, "y (%d x %d bf16)", in->M, in->N);
	return kb_compare_dev(out, what, in->y, KB_BF16, in->y_ref, KB_BF16, (size_t)in->M * in->N);
}

static size_t fp8_footprint(int shape)
{
	if (shape < 0 || shape >= NSHAPES)
		return 0;
	const size_t M = SHAPES[shape].M, N = SHAPES[shape].N, K = SHAPES[shape].K;
	return M * K + N * K + N * sizeof(float) + 2 * (M * N * 2);
}

extern "C" const kb_driver KB_DRIVER = {
	"01_fp8_gemm",
	NSHAPES,
	fp8_shape_desc,
	fp8_create,
	fp8_destroy,
	fp8_describe,
	fp8_run_reference,
	fp8_compare,
	fp8_footprint,
};
