/* 06_sonic_moe_swiglu driver: inputs, the solution's call, the reference, comparison.
 *
 * The regular inputs are the decks': hidden states with std 0.1 and
 * weights with std 0.02 (uniform here), so gate and up are about 0.1, the
 * output about 0.01, and the decks' 0.02 tolerance passes nearly anything
 * (even gate and up swapped): the published verdict. In our adversarial
 * input the weights are uniform in [-3/sqrt(H), 3/sqrt(H)), so gate and up
 * have std 1 or more, the output is of order 1 and the 2% relative
 * tolerance is what matters.
 *
 * Checked inputs: near-balanced routing like the original's even split,
 * each expert's share jittered by up to +-25% so the groups have unequal,
 * unaligned lengths. Timed inputs (create_timed): the original's exact even
 * split, tile-aligned for every shape, as benchmark.py times it. The adversarial input routes very unevenly: the first
 * and last experts get no rows, others get 1, 3, 63 and 129 rows, one expert
 * in the middle gets 60% of all rows, and the rest share what is left with
 * skewed random weights (some get none). Its hidden states are uniform in
 * [-2, 2), so gate reaches deep into silu's flat negative side.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"
#include "kb_driver_util.h"
#include "interface.h"

extern "C" int kbref_06_sonic_moe_swiglu(const __nv_bfloat16 *hidden_states,
                                         const int *expert_offsets, const __nv_bfloat16 *w_gate,
                                         const __nv_bfloat16 *w_up, float *out, int T_perm, int H,
                                         int I, int E, cudaStream_t stream);

struct moe_shape {
	int T_total, H, I, E, K;
	const char *desc;
};

static const moe_shape SHAPES[] = {
	{32768, 4096, 1536, 128, 8, "T_total=32768 H=4096 I=1536 E=128 K=8"},
	{4096, 2048, 1024, 64, 4, "T_total=4096 H=2048 I=1024 E=64 K=4"},
	{16384, 2048, 4096, 64, 8, "T_total=16384 H=2048 I=4096 E=64 K=8"},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

struct moe_inst {
	moe_shape s;
	int T_perm;
	__nv_bfloat16 *x, *wg, *wu, *out;
	int *offsets;
	float *ref_out;
};

/* Splits `total` rows over the experts listed in who[0..n) in proportion to
 * weight[], adding to counts[]; the rounding remainder goes to who[0]. */
static void share_rows(int *counts, const int *who, const double *weight, int n, long long total)
{
	double wsum = 0.0;
	long long given = 0;

	for (int j = 0; j < n; ++j)
		wsum += weight[j];
	for (int j = 0; j < n; ++j) {
		const long long c = wsum > 0.0 ? (long long)((double)total * weight[j] / wsum) : 0;
		counts[who[j]] += (int)c;
		given += c;
	}
	if (n > 0)
		counts[who[0]] += (int)(total - given);
}

/* Row counts per expert, summing to T_perm; non-zero when out of memory.
 * even: KernelBench-Hard's _build_routing, T_perm / E each with the rest
 * to the first experts (for our shapes exactly even and tile-aligned). */
static int make_counts(int *counts, const moe_inst *in, unsigned long long seed, int adversarial, int even)
{
	const int E = in->s.E;
	int *who = (int *)malloc(E * sizeof *who);
	double *weight = (double *)malloc(E * sizeof *weight);
	int n = 0;

	if (!who || !weight) {
		free(who);
		free(weight);
		return 1;
	}
	for (int e = 0; e < E; ++e)
		counts[e] = even ? in->T_perm / E + (e < in->T_perm % E) : 0;
	if (even) {
		free(who);
		free(weight);
		return 0;
	}
	if (!adversarial) {
		for (int e = 0; e < E; ++e) {
			who[e] = e;
			weight[e] = kb_uniform(seed, e, 0.75f, 1.25f);
		}
		share_rows(counts, who, weight, E, in->T_perm);
	} else {
		/* expert, rows: tiny groups and groups just past a tile boundary */
		static const int special[4][2] = {{1, 1}, {2, 3}, {3, 129}, {4, 63}};
		const int hot = E / 2;
		long long given = (long long)in->T_perm * 6 / 10;
		/* experts 0 and E-1 stay empty */
		counts[hot] = (int)given;
		for (int j = 0; j < 4; ++j) {
			const int e = special[j][0];
			if (e != hot && e < E - 1 && given + special[j][1] <= in->T_perm) {
				counts[e] = special[j][1];
				given += special[j][1];
			}
		}
		for (int e = 1; e < E - 1; ++e) {
			if (e == hot || counts[e] > 0)
				continue;
			const float u = kb_uniform(seed, e, 0.0f, 1.0f);
			who[n] = e;
			/* u^3 is skewed: a few experts get most of the rest, some get none */
			weight[n++] = u < 0.15f ? 0.0 : (double)u * u * u;
		}
		if (n == 0) { /* too few experts to share: the hot one takes the rest */
			who[n] = hot;
			weight[n++] = 1.0;
		}
		share_rows(counts, who, weight, n, in->T_perm - given);
	}
	free(who);
	free(weight);
	return 0;
}

static const char *moe_shape_desc(int shape)
{
	return shape >= 0 && shape < NSHAPES ? SHAPES[shape].desc : "?";
}

static void moe_destroy(void *p)
{
	moe_inst *in = (moe_inst *)p;
	if (!in)
		return;
	cudaFree(in->x);
	cudaFree(in->wg);
	cudaFree(in->wu);
	cudaFree(in->out);
	cudaFree(in->offsets);
	cudaFree(in->ref_out);
	free(in);
}

/* adversarial 2: the regular inputs with KernelBench-Hard's even routing */
static void *moe_create(int shape, unsigned long long seed, int adversarial)
{
	const int even = adversarial == 2;
	if (even)
		adversarial = 0;
	if (shape < 0 || shape >= NSHAPES) {
		fprintf(stderr, "06_sonic_moe_swiglu: no shape %d\n", shape);
		return NULL;
	}
	moe_inst *in = (moe_inst *)calloc(1, sizeof *in);
	if (!in)
		return NULL;
	const moe_shape &s = in->s = SHAPES[shape];
	in->T_perm = s.T_total * s.K;

	const size_t nx = (size_t)in->T_perm * s.H;
	const size_t nw = (size_t)s.E * s.H * s.I;
	const size_t nout = (size_t)in->T_perm * s.I;
	/* the decks' std 0.02 and 0.1; order 1 in our adversarial input */
	const float wr = adversarial ? 3.0f / sqrtf((float)s.H) : 0.02f * 1.7320508f;
	const float xr = adversarial ? 2.0f : 0.1f * 1.7320508f;
	int *counts = (int *)malloc(s.E * sizeof *counts);
	int *offsets = (int *)malloc((s.E + 1) * sizeof *offsets);

	if (!counts || !offsets || make_counts(counts, in, kb_sub_seed(seed, 1), adversarial, even)) {
		fprintf(stderr, "06_sonic_moe_swiglu: out of host memory\n");
		goto fail;
	}
	offsets[0] = 0;
	for (int e = 0; e < s.E; ++e)
		offsets[e + 1] = offsets[e] + counts[e];
	if (offsets[s.E] != in->T_perm) {
		fprintf(stderr, "06_sonic_moe_swiglu: routing sums to %d, not %d\n", offsets[s.E],
		        in->T_perm);
		goto fail;
	}
	if (kb_cuda_failed(cudaMalloc(&in->x, nx * 2), "cudaMalloc hidden_states") ||
	    kb_cuda_failed(cudaMalloc(&in->wg, nw * 2), "cudaMalloc w_gate") ||
	    kb_cuda_failed(cudaMalloc(&in->wu, nw * 2), "cudaMalloc w_up") ||
	    kb_cuda_failed(cudaMalloc(&in->out, nout * 2), "cudaMalloc out") ||
	    kb_cuda_failed(cudaMalloc(&in->offsets, (s.E + 1) * sizeof(int)), "cudaMalloc offsets") ||
	    kb_cuda_failed(cudaMalloc(&in->ref_out, nout * sizeof(float)), "cudaMalloc ref_out"))
		goto fail;
	if (kb_cuda_failed(cudaMemcpy(in->offsets, offsets, (s.E + 1) * sizeof(int),
	                           cudaMemcpyHostToDevice), "copy offsets"))
		goto fail;
	/* all-ones bytes are NaN: an element left unwritten fails */
	if (kb_cuda_failed(cudaMemset(in->out, 0xFF, nout * 2), "cudaMemset out") ||
	    kb_cuda_failed(cudaMemset(in->ref_out, 0xFF, nout * sizeof(float)), "cudaMemset ref_out"))
		goto fail;
	kb_gen_uniform_bf16<<<kb_gen_blocks(nx), 256>>>(in->x, nx, kb_sub_seed(seed, 2), -xr, xr);
	kb_gen_uniform_bf16<<<kb_gen_blocks(nw), 256>>>(in->wg, nw, kb_sub_seed(seed, 3), -wr, wr);
	kb_gen_uniform_bf16<<<kb_gen_blocks(nw), 256>>>(in->wu, nw, kb_sub_seed(seed, 4), -wr, wr);
	if (kb_cuda_failed(cudaGetLastError(), "input generation launch") ||
	    kb_cuda_failed(cudaDeviceSynchronize(), "input generation"))
		goto fail;
	free(counts);
	free(offsets);
	return in;
fail:
	free(counts);
	free(offsets);
	moe_destroy(in);
	return NULL;
}

static int moe_describe(void *p, kb_call *c)
{
	moe_inst *in = (moe_inst *)p;
	const moe_shape &s = in->s;
	const size_t nw = (size_t)s.E * s.H * s.I;
	kb_call_buf(c, in->x, (size_t)in->T_perm * s.H * 2, 0);
	kb_call_buf(c, in->offsets, (size_t)(s.E + 1) * sizeof(int), 0);
	kb_call_buf(c, in->wg, nw * 2, 0);
	kb_call_buf(c, in->wu, nw * 2, 0);
	kb_call_buf(c, in->out, (size_t)in->T_perm * s.I * 2, 1);
	const double nums[] = {(double)in->T_perm, (double)s.H, (double)s.I, (double)s.E};
	for (double v : nums)
		kb_call_num(c, v);
	return 0;
}

static int moe_run_reference(void *p, cudaStream_t st)
{
	moe_inst *in = (moe_inst *)p;
	return kbref_06_sonic_moe_swiglu(in->x, in->offsets, in->wg, in->wu, in->ref_out,
	                                 in->T_perm, in->s.H, in->s.I, in->s.E, st);
}

/* 0 once both outputs were read (pass or fail), non-zero when they could
 * not be copied back. */
static int moe_compare(void *p, kb_cmp *out)
{
	moe_inst *in = (moe_inst *)p;
	char what[128];
	snprintf(what, sizeof what, "out (%d x %d bf16)", in->T_perm, in->s.I);
	return kb_compare_dev(out, what, in->out, KB_BF16, in->ref_out, KB_F32, (size_t)in->T_perm * in->s.I);
}

/* The timed inputs, as benchmark.py routes them: exactly even. */
static void *moe_create_timed(int shape, unsigned long long seed)
{
	return moe_create(shape, seed, 2);
}

/* Bytes a call must move: hidden states, both weight tensors, the output. */
static size_t moe_footprint(int shape)
{
	if (shape < 0 || shape >= NSHAPES)
		return 0;
	const moe_shape &s = SHAPES[shape];
	const size_t T_perm = (size_t)s.T_total * s.K;
	return T_perm * s.H * 2 + (size_t)s.E * s.H * 2 * s.I * 2 + T_perm * s.I * 2;
}

extern "C" const kb_driver KB_DRIVER = {
	"06_sonic_moe_swiglu",
	NSHAPES,
	moe_shape_desc,
	moe_create,
	moe_destroy,
	moe_describe,
	moe_run_reference,
	moe_compare,
	moe_footprint,
	moe_create_timed,
};
