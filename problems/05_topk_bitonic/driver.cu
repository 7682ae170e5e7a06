/* 05_topk_bitonic driver: inputs, the solution's call, the reference, comparison.
 *
 * Inputs follow the original problem: x = N(0, 1) (Box-Muller in fp32 on
 * kb_uniform). The adversarial input (any shape) cycles the rows through:
 *   0  a few levels, multiples of 0.5 around 0 (with -0.0 beside 0.0),
 *      about 3k/4 elements per level, so ties straddle the k-th place;
 *   1  -inf everywhere but max(1, k/2) normal values, so -inf ties fill
 *      the rest of the top k;
 *   2  ascending in runs of 4 equal values (the worst order for a running
 *      top-k list, and ties at the top);
 *   3  the same descending.
 * Row 0 is always kind 0, so the batch = 1 shape meets the ties.
 *
 * The comparison follows the original check: values position by position
 * within tolerance; then every index in [0, n), none twice in a row, and
 * x at each index equal, within tolerance, to the reference value there.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"
#include "kb_driver_util.h"
#include "interface.h"

extern "C" int kbref_05_topk_bitonic(const float *x, float *values, int64_t *indices, int batch,
                                     int n, int k, cudaStream_t stream);

struct tk_shape {
	int batch, n, k;
	const char *desc;
};

static const tk_shape SHAPES[] = {
	{1, 131072, 64, "batch=1 n=131072 k=64"},
	{64, 8192, 8, "batch=64 n=8192 k=8"},
	{32, 16384, 32, "batch=32 n=16384 k=32"},
	{16, 12000, 16, "batch=16 n=12000 k=16"},
	{128, 4096, 1, "batch=128 n=4096 k=1"},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

struct tk_inst {
	int batch, n, k;
	float *x, *values, *values_ref;
	int64_t *indices, *indices_ref;
};

static __global__ void gen_fill(float *x, int batch, int n, int k, unsigned long long seed,
                                int adversarial)
{
	const size_t total = (size_t)batch * n;
	/* levels so that one level holds about 3k/4 elements */
	long long levels = 4LL * n / (3LL * k);
	if (levels < 2)
		levels = 2;
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < total;
	     i += (size_t)gridDim.x * blockDim.x) {
		const int r = (int)(i / n), j = (int)(i % n);
		const unsigned long long h = kb_mix(seed ^ kb_mix(i));
		float v;
		if (!adversarial) {
			v = kb_normal_at(seed, i);
		} else {
			switch (r % 4) {
			case 0:
				v = (float)((long long)(h % levels) - levels / 2) * 0.5f;
				if (v == 0.0f && (h >> 40) & 1)
					v = -0.0f;
				break;
			case 1:
				v = -INFINITY;
				break;
			case 2:
				v = (float)(j / 4);
				break;
			default:
				v = (float)((n - 1 - j) / 4);
				break;
			}
		}
		x[i] = v;
	}
}

/* The finite values of the -inf rows, written after gen_fill. */
static __global__ void gen_points(float *x, int batch, int n, int k, unsigned long long seed)
{
	const int r = blockIdx.x * blockDim.x + threadIdx.x;
	if (r >= batch || r % 4 != 1)
		return;
	const int finite = k / 2 > 1 ? k / 2 : 1;
	for (int p = 0; p < finite; ++p) {
		const unsigned long long id = (unsigned long long)r * 64 + p;
		const int j = (int)(kb_mix(seed ^ kb_mix(id)) % (unsigned)n);
		x[(size_t)r * n + j] = kb_normal_at(seed, id);
	}
}

static const char *tk_shape_desc(int shape)
{
	return shape >= 0 && shape < NSHAPES ? SHAPES[shape].desc : "?";
}

static void tk_destroy(void *p)
{
	tk_inst *in = (tk_inst *)p;
	if (!in)
		return;
	cudaFree(in->x);
	cudaFree(in->values);
	cudaFree(in->values_ref);
	cudaFree(in->indices);
	cudaFree(in->indices_ref);
	free(in);
}

static void *tk_create(int shape, unsigned long long seed, int adversarial)
{
	if (shape < 0 || shape >= NSHAPES) {
		fprintf(stderr, "05_topk_bitonic: no shape %d\n", shape);
		return NULL;
	}
	tk_inst *in = (tk_inst *)calloc(1, sizeof *in);
	if (!in)
		return NULL;
	in->batch = SHAPES[shape].batch;
	in->n = SHAPES[shape].n;
	in->k = SHAPES[shape].k;
	const size_t nx = (size_t)in->batch * in->n, no = (size_t)in->batch * in->k;

	if (kb_cuda_failed(cudaMalloc(&in->x, nx * sizeof(float)), "cudaMalloc x") ||
	    kb_cuda_failed(cudaMalloc(&in->values, no * sizeof(float)), "cudaMalloc values") ||
	    kb_cuda_failed(cudaMalloc(&in->values_ref, no * sizeof(float)), "cudaMalloc values_ref") ||
	    kb_cuda_failed(cudaMalloc(&in->indices, no * sizeof(int64_t)), "cudaMalloc indices") ||
	    kb_cuda_failed(cudaMalloc(&in->indices_ref, no * sizeof(int64_t)), "cudaMalloc indices_ref"))
		goto fail;
	/* all-ones bytes: NaN values and index -1, so anything unwritten fails */
	if (kb_cuda_failed(cudaMemset(in->values, 0xFF, no * sizeof(float)), "cudaMemset values") ||
	    kb_cuda_failed(cudaMemset(in->values_ref, 0xFF, no * sizeof(float)), "cudaMemset") ||
	    kb_cuda_failed(cudaMemset(in->indices, 0xFF, no * sizeof(int64_t)), "cudaMemset") ||
	    kb_cuda_failed(cudaMemset(in->indices_ref, 0xFF, no * sizeof(int64_t)), "cudaMemset"))
		goto fail;
	gen_fill<<<kb_gen_blocks(nx), 256>>>(in->x, in->batch, in->n, in->k, kb_sub_seed(seed, 1),
	                                  adversarial);
	if (adversarial)
		gen_points<<<(in->batch + 127) / 128, 128>>>(in->x, in->batch, in->n, in->k,
		                                             kb_sub_seed(seed, 2));
	if (kb_cuda_failed(cudaGetLastError(), "input generation launch") ||
	    kb_cuda_failed(cudaDeviceSynchronize(), "input generation"))
		goto fail;
	return in;
fail:
	tk_destroy(in);
	return NULL;
}

static int tk_describe(void *p, kb_call *c)
{
	tk_inst *in = (tk_inst *)p;
	const size_t nx = (size_t)in->batch * in->n, no = (size_t)in->batch * in->k;
	kb_call_buf(c, in->x, nx * sizeof(float), 0);
	kb_call_buf(c, in->values, no * sizeof(float), 1);
	kb_call_buf(c, in->indices, no * sizeof(int64_t), 1);
	kb_call_num(c, in->batch);
	kb_call_num(c, in->n);
	kb_call_num(c, in->k);
	return 0;
}

static int tk_run_reference(void *p, cudaStream_t s)
{
	tk_inst *in = (tk_inst *)p;
	return kbref_05_topk_bitonic(in->x, in->values_ref, in->indices_ref, in->batch, in->n,
	                             in->k, s);
}

/* Records an index that is out of range or repeated: got is the index. */
static void cmp_bad_index(kb_cmp *c, size_t i, int64_t index, const char *what)
{
	if (c->n_bad++ == 0) {
		c->worst_index = i;
		c->got = (double)index;
		c->want = NAN;
		c->worst_abs_err = INFINITY;
		c->worst_rel_err = INFINITY;
		snprintf(c->what, sizeof c->what, "%s", what);
	}
}

/* Range and repetition of the indices, row by row; 0 when all are sound. */
static size_t check_index_sets(const tk_inst *in, const int64_t *idx, kb_cmp *c)
{
	char what[128];
	snprintf(what, sizeof what, "indices (%d x %d int64): index outside [0, %d)", in->batch,
	         in->k, in->n);
	for (size_t e = 0; e < (size_t)in->batch * in->k; ++e)
		if (idx[e] < 0 || idx[e] >= in->n)
			cmp_bad_index(c, e, idx[e], what);
	if (c->n_bad)
		return c->n_bad;
	snprintf(what, sizeof what, "indices (%d x %d int64): same index twice in a row",
	         in->batch, in->k);
	for (int r = 0; r < in->batch; ++r)
		for (int a = 0; a < in->k; ++a)
			for (int b = 0; b < a; ++b)
				if (idx[(size_t)r * in->k + a] == idx[(size_t)r * in->k + b])
					cmp_bad_index(c, (size_t)r * in->k + a,
					              idx[(size_t)r * in->k + a], what);
	return c->n_bad;
}

/* Fills out and returns 0 once the outputs were read (pass or fail);
 * returns non-zero when they could not be copied back. */
static int tk_compare(void *p, kb_cmp *out)
{
	tk_inst *in = (tk_inst *)p;
	const size_t nx = (size_t)in->batch * in->n, no = (size_t)in->batch * in->k;
	float *x = (float *)malloc(nx * sizeof *x);
	float *got = (float *)malloc(no * sizeof *got);
	float *want = (float *)malloc(no * sizeof *want);
	int64_t *idx = (int64_t *)malloc(no * sizeof *idx);
	double worst = -INFINITY;
	int rc = 1;

	memset(out, 0, sizeof *out);
	snprintf(out->what, sizeof out->what, "values (%d x %d fp32)", in->batch, in->k);
	if (!x || !got || !want || !idx) {
		fprintf(stderr, "05_topk_bitonic: out of host memory\n");
		goto done;
	}
	if (kb_cuda_failed(cudaMemcpy(x, in->x, nx * sizeof *x, cudaMemcpyDeviceToHost), "copy x") ||
	    kb_cuda_failed(cudaMemcpy(got, in->values, no * sizeof *got, cudaMemcpyDeviceToHost),
	                "copy values") ||
	    kb_cuda_failed(cudaMemcpy(want, in->values_ref, no * sizeof *want, cudaMemcpyDeviceToHost),
	                "copy values_ref") ||
	    kb_cuda_failed(cudaMemcpy(idx, in->indices, no * sizeof *idx, cudaMemcpyDeviceToHost),
	                "copy indices"))
		goto done;
	rc = 0;

	for (size_t e = 0; e < no; ++e) {
		kb_cmp_fold(out, &worst, e, got[e], want[e]);
	}
	if (out->n_bad)
		goto done;

	memset(out, 0, sizeof *out);
	out->n_total = no;
	if (check_index_sets(in, idx, out))
		goto done;

	memset(out, 0, sizeof *out);
	snprintf(out->what, sizeof out->what, "indices (%d x %d int64): x[index] vs reference value",
	         in->batch, in->k);
	worst = -INFINITY;
	for (size_t e = 0; e < no; ++e) {
		const size_t r = e / in->k;
		kb_cmp_fold(out, &worst, e, x[r * in->n + idx[e]], want[e]);
	}
done:
	out->ok = rc == 0 && out->n_bad == 0;
	free(x);
	free(got);
	free(want);
	free(idx);
	return rc;
}

static size_t tk_footprint(int shape)
{
	if (shape < 0 || shape >= NSHAPES)
		return 0;
	const size_t b = SHAPES[shape].batch, n = SHAPES[shape].n, k = SHAPES[shape].k;
	return b * n * sizeof(float) + 2 * b * k * (sizeof(float) + sizeof(int64_t));
}

extern "C" const kb_driver KB_DRIVER = {
	"05_topk_bitonic",
	NSHAPES,
	tk_shape_desc,
	tk_create,
	tk_destroy,
	tk_describe,
	tk_run_reference,
	tk_compare,
	tk_footprint,
};
