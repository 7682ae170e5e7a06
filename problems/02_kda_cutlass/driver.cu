/* 02_kda_cutlass driver: inputs, the solution's call, the reference, comparison.
 *
 * The regular inputs are the decks': q, k, v with std 0.1 (uniform here),
 * g the decks' randn * 0.1 - 0.05 (mean -0.05, std 0.1, sometimes
 * positive) and beta their sigmoid(randn), as uniform draws with the same
 * mean and spread. The output is then about 0.002 and the decks' 0.05
 * tolerance passes an all-zero answer: that is the published verdict. Our
 * adversarial input (below) gives q and v std 1, which makes the output of
 * order 1; k keeps std 0.1 there (|k|^2 about 1.3, so beta * |k|^2 < 2 and
 * the delta rule stays stable, as L2-normalised keys would).
 *
 * The adversarial input: each (head, key channel) gets a decay class. A
 * quarter decay hard, g uniform in [-3, -1) per token, so a chunk's prefix
 * sum of g falls to about -128 and exp(-G) overflows fp32 (a chunk kernel
 * that factors exp(G_i - G_j) into exp(G_i) * exp(-G_j) over a whole chunk
 * returns inf or NaN); a quarter barely decay, g in [-0.001, 0), so the
 * state carries information across the whole sequence and errors in the
 * inter-chunk recurrence add up; the rest keep the regular g. beta is in
 * [0.9, 1), the strongest delta-rule coupling.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"
#include "kb_driver_util.h"
#include "interface.h"

extern "C" int kbref_02_kda_cutlass(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                                    const __nv_bfloat16 *v, const float *g,
                                    const __nv_bfloat16 *beta, float *o, float *scratch, int B,
                                    int T, int H, int K, int V, float scale, cudaStream_t stream);

struct kda_shape {
	int B, T, H, K, V, CHUNK_SIZE;
	const char *desc;
};

static const kda_shape SHAPES[] = {
	{2, 1024, 8, 128, 128, 64, "B=2 T=1024 H=8 K=128 V=128 CHUNK_SIZE=64"},
	{2, 2048, 8, 128, 128, 64, "B=2 T=2048 H=8 K=128 V=128 CHUNK_SIZE=64"},
	{1, 4096, 8, 128, 128, 64, "B=1 T=4096 H=8 K=128 V=128 CHUNK_SIZE=64"},
	{1, 2048, 4, 128, 128, 64, "B=1 T=2048 H=4 K=128 V=128 CHUNK_SIZE=64"},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

#define SQRT3 1.7320508f
#define G_MEAN (-0.05f)
#define G_HALF (0.1f * SQRT3)

struct kda_inst {
	kda_shape s;
	float scale;
	__nv_bfloat16 *q, *k, *v, *beta, *o;
	float *g, *ref_o, *ref_scratch;
};

/* beta: sigmoid of a uniform draw with the spread of randn (regular), or
 * uniform in [0.9, 1) (adversarial). */
static inline __host__ __device__ float beta_value(size_t i, unsigned long long seed,
                                                   int adversarial)
{
	if (adversarial)
		return kb_uniform(seed, i, 0.9f, 1.0f);
	return 1.0f / (1.0f + expf(-kb_uniform(seed, i, -SQRT3, SQRT3)));
}

/* Element i of g (B x T x H x K); in the adversarial input the class of
 * channel (h, d) picks its range: 0 hard decay, 1 almost none, 2 and 3
 * regular. */
static inline __host__ __device__ float g_value(size_t i, int H, int K, unsigned long long seed,
                                                unsigned long long class_seed, int adversarial)
{
	const unsigned long long ch = i % ((size_t)H * K); /* h * K + d */
	const int cls = adversarial ? (int)(kb_mix(class_seed ^ ch) & 3) : 2;

	if (cls == 0)
		return kb_uniform(seed, i, -3.0f, -1.0f);
	if (cls == 1)
		return kb_uniform(seed, i, -0.001f, 0.0f);
	return kb_uniform(seed, i, G_MEAN - G_HALF, G_MEAN + G_HALF);
}

static __global__ void gen_beta(__nv_bfloat16 *p, size_t n, unsigned long long seed,
                                int adversarial)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = __float2bfloat16(beta_value(i, seed, adversarial));
}

static __global__ void gen_g(float *p, size_t n, int H, int K, unsigned long long seed,
                             unsigned long long class_seed, int adversarial)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x)
		p[i] = g_value(i, H, K, seed, class_seed, adversarial);
}

static const char *kda_shape_desc(int shape)
{
	return shape >= 0 && shape < NSHAPES ? SHAPES[shape].desc : "?";
}

static void kda_destroy(void *p)
{
	kda_inst *in = (kda_inst *)p;
	if (!in)
		return;
	cudaFree(in->q);
	cudaFree(in->k);
	cudaFree(in->v);
	cudaFree(in->beta);
	cudaFree(in->o);
	cudaFree(in->g);
	cudaFree(in->ref_o);
	cudaFree(in->ref_scratch);
	free(in);
}

static void *kda_create(int shape, unsigned long long seed, int adversarial)
{
	if (shape < 0 || shape >= NSHAPES) {
		fprintf(stderr, "02_kda_cutlass: no shape %d\n", shape);
		return NULL;
	}
	kda_inst *in = (kda_inst *)calloc(1, sizeof *in);
	if (!in)
		return NULL;
	const kda_shape &s = in->s = SHAPES[shape];
	in->scale = 1.0f / sqrtf((float)s.K);
	/* std 0.1 as the decks draw q and v; std 1 in our adversarial input */
	const float qv = adversarial ? SQRT3 : 0.1f * SQRT3;

	const size_t rows = (size_t)s.B * s.T * s.H;
	const size_t nk = rows * s.K, nv = rows * s.V;

	if (kb_cuda_failed(cudaMalloc(&in->q, nk * 2), "cudaMalloc q") ||
	    kb_cuda_failed(cudaMalloc(&in->k, nk * 2), "cudaMalloc k") ||
	    kb_cuda_failed(cudaMalloc(&in->v, nv * 2), "cudaMalloc v") ||
	    kb_cuda_failed(cudaMalloc(&in->beta, rows * 2), "cudaMalloc beta") ||
	    kb_cuda_failed(cudaMalloc(&in->o, nv * 2), "cudaMalloc o") ||
	    kb_cuda_failed(cudaMalloc(&in->g, nk * sizeof(float)), "cudaMalloc g") ||
	    kb_cuda_failed(cudaMalloc(&in->ref_o, nv * sizeof(float)), "cudaMalloc ref_o") ||
	    kb_cuda_failed(cudaMalloc(&in->ref_scratch, nk * sizeof(float)), "cudaMalloc scratch"))
		goto fail;
	/* all-ones bytes are NaN: an element left unwritten fails */
	if (kb_cuda_failed(cudaMemset(in->o, 0xFF, nv * 2), "cudaMemset o") ||
	    kb_cuda_failed(cudaMemset(in->ref_o, 0xFF, nv * sizeof(float)), "cudaMemset ref_o"))
		goto fail;
	kb_gen_uniform_bf16<<<kb_gen_blocks(nk), 256>>>(in->q, nk, kb_sub_seed(seed, 1), -qv, qv);
	kb_gen_uniform_bf16<<<kb_gen_blocks(nk), 256>>>(in->k, nk, kb_sub_seed(seed, 2), -0.1f * SQRT3,
	                                          0.1f * SQRT3);
	kb_gen_uniform_bf16<<<kb_gen_blocks(nv), 256>>>(in->v, nv, kb_sub_seed(seed, 3), -qv, qv);
	gen_g<<<kb_gen_blocks(nk), 256>>>(in->g, nk, s.H, s.K, kb_sub_seed(seed, 4), kb_sub_seed(seed, 5),
	                               adversarial);
	gen_beta<<<kb_gen_blocks(rows), 256>>>(in->beta, rows, kb_sub_seed(seed, 6), adversarial);
	if (kb_cuda_failed(cudaGetLastError(), "input generation launch") ||
	    kb_cuda_failed(cudaDeviceSynchronize(), "input generation"))
		goto fail;
	return in;
fail:
	kda_destroy(in);
	return NULL;
}

static int kda_describe(void *p, kb_call *c)
{
	kda_inst *in = (kda_inst *)p;
	const kda_shape &s = in->s;
	const size_t rows = (size_t)s.B * s.T * s.H;
	kb_call_buf(c, in->q, rows * s.K * 2, 0);
	kb_call_buf(c, in->k, rows * s.K * 2, 0);
	kb_call_buf(c, in->v, rows * s.V * 2, 0);
	kb_call_buf(c, in->g, rows * s.K * sizeof(float), 0);
	kb_call_buf(c, in->beta, rows * 2, 0);
	kb_call_buf(c, in->o, rows * s.V * 2, 1);
	const double nums[] = {(double)s.B, (double)s.T, (double)s.H, (double)s.K, (double)s.V, in->scale};
	for (double v : nums)
		kb_call_num(c, v);
	return 0;
}

static int kda_run_reference(void *p, cudaStream_t st)
{
	kda_inst *in = (kda_inst *)p;
	const kda_shape &s = in->s;
	return kbref_02_kda_cutlass(in->q, in->k, in->v, in->g, in->beta, in->ref_o,
	                            in->ref_scratch, s.B, s.T, s.H, s.K, s.V, in->scale, st);
}

/* 0 once both outputs were read (pass or fail), non-zero when they could
 * not be copied back. */
static int kda_compare(void *p, kb_cmp *out)
{
	kda_inst *in = (kda_inst *)p;
	const kda_shape &s = in->s;
	char what[128];
	snprintf(what, sizeof what, "o (%d x %d x %d x %d bf16)", s.B, s.T, s.H, s.V);
	return kb_compare_dev(out, what, in->o, KB_BF16, in->ref_o, KB_F32, (size_t)s.B * s.T * s.H * s.V);
}

/* Bytes a call must move: q, k, v, g, beta once and o once. */
static size_t kda_footprint(int shape)
{
	if (shape < 0 || shape >= NSHAPES)
		return 0;
	const kda_shape &s = SHAPES[shape];
	const size_t rows = (size_t)s.B * s.T * s.H;
	return rows * s.K * (2 + 2 + 4) + rows * s.V * (2 + 2) + rows * 2;
}

extern "C" const kb_driver KB_DRIVER = {
	"02_kda_cutlass",
	NSHAPES,
	kda_shape_desc,
	kda_create,
	kda_destroy,
	kda_describe,
	kda_run_reference,
	kda_compare,
	kda_footprint,
};
