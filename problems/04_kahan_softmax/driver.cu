/* 04_kahan_softmax driver: inputs, the solution's call, the reference, comparison.
 *
 * Inputs follow the original problem: x = 4 * N(0, 1), and for the shape
 * marked extreme x = 2 * N(0, 1) with 4 logits per row set to 30. The
 * adversarial input (any shape) cycles the rows through four kinds:
 *   0  uniform in [-1e4, 1e4) with the max, 1e4, tied at 3 places: exp
 *      before subtracting the max overflows, and x - max is exact only
 *      near the max;
 *   1  only two values, 1e4 and 1e4 - 8, about 1 in 256 at the max: ties
 *      everywhere, and the many small terms carry a good part of the sum;
 *   2  5000 + U[-1, 1) with one logit set so that it takes half of the
 *      mass: its y of about 0.5 must be right to 3e-5 relative;
 *   3  the first quarter -inf (masked), the rest 25 * N(0, 1): a block or
 *      thread that sees only -inf must not make NaN (-inf - -inf).
 * Normal deviates come from kb_uniform by Box-Muller in fp32.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"
#include "kb_driver_util.h"
#include "interface.h"

extern "C" int kbref_04_kahan_softmax(const float *x, float *y, int batch, int vocab,
                                      cudaStream_t stream);

struct sm_shape {
	int batch, vocab, extreme;
	const char *desc;
};

static const sm_shape SHAPES[] = {
	{32, 4096, 0, "batch=32 vocab=4096"},
	{16, 32768, 0, "batch=16 vocab=32768"},
	{8, 131072, 0, "batch=8 vocab=131072"},
	{4, 262144, 0, "batch=4 vocab=262144"},
	{8, 131072, 1, "batch=8 vocab=131072 extreme"},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

enum gen_mode { GEN_NORMAL, GEN_EXTREME, GEN_ADVERSARIAL };

struct sm_inst {
	int batch, vocab;
	float *x, *y, *y_ref;
};

/* Position p of row r, uniform over the row. */
static __device__ int row_pos(unsigned long long seed, int r, int p, int vocab)
{
	return (int)(kb_mix(seed ^ kb_mix((unsigned long long)r * 16 + p)) % (unsigned)vocab);
}

/* E[exp(u)] for u uniform in [-1, 1): (e - 1/e) / 2. */
#define MEAN_EXP_U 1.1752011936438014

static __global__ void gen_fill(float *x, int batch, int vocab, unsigned long long seed, int mode)
{
	const size_t n = (size_t)batch * vocab;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
	     i += (size_t)gridDim.x * blockDim.x) {
		const int r = (int)(i / vocab), j = (int)(i % vocab);
		float v;
		if (mode == GEN_NORMAL) {
			v = 4.0f * kb_normal_at(seed, i);
		} else if (mode == GEN_EXTREME) {
			v = 2.0f * kb_normal_at(seed, i);
		} else {
			switch (r % 4) {
			case 0:
				v = kb_uniform(seed, i, -1e4f, 1e4f);
				break;
			case 1:
				v = kb_mix(seed ^ kb_mix(i)) % 256 == 0 ? 1e4f : 1e4f - 8.0f;
				break;
			case 2:
				v = 5000.0f + kb_uniform(seed, i, -1.0f, 1.0f);
				break;
			default:
				v = j < vocab / 4 ? -INFINITY : 25.0f * kb_normal_at(seed, i);
				break;
			}
		}
		x[i] = v;
	}
}

/* The few special logits per row, written after gen_fill. */
static __global__ void gen_points(float *x, int batch, int vocab, unsigned long long seed, int mode)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= batch)
		return;
	float *xr = x + (size_t)r * vocab;
	if (mode == GEN_EXTREME) {
		for (int p = 0; p < 4; ++p)
			xr[row_pos(seed, r, p, vocab)] = 30.0f;
	} else if (mode == GEN_ADVERSARIAL) {
		switch (r % 4) {
		case 0:
			for (int p = 0; p < 3; ++p)
				xr[row_pos(seed, r, p, vocab)] = 1e4f;
			break;
		case 1:
			xr[row_pos(seed, r, 0, vocab)] = 1e4f;
			break;
		case 2:
			xr[row_pos(seed, r, 0, vocab)] =
			    (float)(5000.0 + log(MEAN_EXP_U * (vocab - 1)));
			break;
		default:
			break;
		}
	}
}

static const char *sm_shape_desc(int shape)
{
	return shape >= 0 && shape < NSHAPES ? SHAPES[shape].desc : "?";
}

static void sm_destroy(void *p)
{
	sm_inst *in = (sm_inst *)p;
	if (!in)
		return;
	cudaFree(in->x);
	cudaFree(in->y);
	cudaFree(in->y_ref);
	free(in);
}

static void *sm_create(int shape, unsigned long long seed, int adversarial)
{
	if (shape < 0 || shape >= NSHAPES) {
		fprintf(stderr, "04_kahan_softmax: no shape %d\n", shape);
		return NULL;
	}
	sm_inst *in = (sm_inst *)calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->batch = SHAPES[shape].batch;
	in->vocab = SHAPES[shape].vocab;
	const size_t n = (size_t)in->batch * in->vocab;
	const int mode = adversarial ? GEN_ADVERSARIAL
	                             : SHAPES[shape].extreme ? GEN_EXTREME : GEN_NORMAL;

	if (kb_cuda_failed(cudaMalloc(&in->x, n * sizeof(float)), "cudaMalloc x") ||
	    kb_cuda_failed(cudaMalloc(&in->y, n * sizeof(float)), "cudaMalloc y") ||
	    kb_cuda_failed(cudaMalloc(&in->y_ref, n * sizeof(float)), "cudaMalloc y_ref"))
		goto fail;
	/* all-ones bytes are a NaN: an element left unwritten fails */
	if (kb_cuda_failed(cudaMemset(in->y, 0xFF, n * sizeof(float)), "cudaMemset y") ||
	    kb_cuda_failed(cudaMemset(in->y_ref, 0xFF, n * sizeof(float)), "cudaMemset y_ref"))
		goto fail;
	gen_fill<<<kb_gen_blocks(n), 256>>>(in->x, in->batch, in->vocab, kb_sub_seed(seed, 1), mode);
	gen_points<<<1, 64>>>(in->x, in->batch, in->vocab, kb_sub_seed(seed, 2), mode);
	if (kb_cuda_failed(cudaGetLastError(), "input generation launch") ||
	    kb_cuda_failed(cudaDeviceSynchronize(), "input generation"))
		goto fail;
	return in;
fail:
	sm_destroy(in);
	return NULL;
}

static int sm_describe(void *p, kb_call *c)
{
	sm_inst *in = (sm_inst *)p;
	const size_t n = (size_t)in->batch * in->vocab;
	kb_call_buf(c, in->x, n * sizeof(float), 0);
	kb_call_buf(c, in->y, n * sizeof(float), 1);
	kb_call_num(c, in->batch);
	kb_call_num(c, in->vocab);
	return 0;
}

static int sm_run_reference(void *p, cudaStream_t s)
{
	sm_inst *in = (sm_inst *)p;
	return kbref_04_kahan_softmax(in->x, in->y_ref, in->batch, in->vocab, s);
}

/* 0 once both outputs were read (pass or fail), non-zero when they could
 * not be copied back. */
static int sm_compare(void *p, kb_cmp *out)
{
	sm_inst *in = (sm_inst *)p;
	char what[128];
	snprintf(what, sizeof what, "y (%d x %d fp32)", in->batch, in->vocab);
	return kb_compare_dev(out, what, in->y, KB_F32, in->y_ref, KB_F32, (size_t)in->batch * in->vocab);
}

static size_t sm_footprint(int shape)
{
	if (shape < 0 || shape >= NSHAPES)
		return 0;
	return (size_t)SHAPES[shape].batch * SHAPES[shape].vocab * sizeof(float) * 3;
}

extern "C" const kb_driver KB_DRIVER = {
	"04_kahan_softmax",
	NSHAPES,
	sm_shape_desc,
	sm_create,
	sm_destroy,
	sm_describe,
	sm_run_reference,
	sm_compare,
	sm_footprint,
};
