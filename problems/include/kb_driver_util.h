/* kb_driver_util.h: what every problem's driver.cu did in its own copy:
 * naming a failed CUDA call, grid sizes for the input generators, seeds for
 * independent streams of numbers, and the element-by-element comparison of
 * a device output with the reference's (copied back in slices, folded with
 * kb_cmp_fold). Checker side only: include after kb_problem.h. */
#ifndef KB_DRIVER_UTIL_H
#define KB_DRIVER_UTIL_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kb_problem.h"

/* Reports a failed CUDA call on stderr, with the problem's name; returns
 * non-zero when it failed. */
static inline int kb_cuda_failed(cudaError_t e, const char *what)
{
	if (e == cudaSuccess)
		return 0;
	fprintf(stderr, "%s: %s: %s\n", KB_DRIVER.name, what, cudaGetErrorString(e));
	return 1;
}

/* A grid for a grid-stride generator over n elements, 256 threads a block. */
static inline unsigned kb_gen_blocks(size_t n)
{
	size_t b = (n + 255) / 256;
	return (unsigned)(b > 4096 ? 4096 : b);
}

/* Independent streams of numbers for the tensors of one instance. */
static inline unsigned long long kb_sub_seed(unsigned long long seed, unsigned long long tag)
{
	return kb_mix(seed ^ (tag * 0xD1B54A32D192ED03ULL));
}

/* A standard normal deviate for index i (Box-Muller on two uniforms, in
 * fp32: fp64 is slow on the consumer parts and the inputs are fp32 or
 * narrower). */
static __device__ __forceinline__ float kb_normal_at(unsigned long long seed, unsigned long long i)
{
	const float u1 = 1.0f - kb_uniform(seed, 2 * i, 0.0f, 1.0f); /* (0, 1], exact */
	const float u2 = kb_uniform(seed, 2 * i + 1, 0.0f, 1.0f);
	return sqrtf(-2.0f * logf(u1)) * cospif(2.0f * u2);
}

/* p[i] = uniform in [lo, hi), rounded to bf16; grid-stride. */
static __global__ void kb_gen_uniform_bf16(__nv_bfloat16 *p, size_t n, unsigned long long seed, float lo, float hi)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
		p[i] = __float2bfloat16(kb_uniform(seed, i, lo, hi));
}

/* Element types the comparison reads. */
typedef enum kb_dtype { KB_F32, KB_BF16, KB_F16, KB_I32, KB_I64 } kb_dtype;

static inline size_t kb_dtype_size(kb_dtype t)
{
	return t == KB_F32 || t == KB_I32 ? 4 : t == KB_I64 ? 8 : 2;
}

static inline double kb_dtype_get(const void *p, kb_dtype t, size_t i)
{
	switch (t) {
	case KB_F32: return ((const float *)p)[i];
	case KB_BF16: return __bfloat162float(((const __nv_bfloat16 *)p)[i]);
	case KB_F16: return __half2float(((const __half *)p)[i]);
	case KB_I32: return ((const int32_t *)p)[i];
	default: return (double)((const int64_t *)p)[i];
	}
}

/* Compares n elements of got (device, type gt) with want (device, type wt)
 * into c (which it clears; what names the output). Copies in slices so the
 * largest outputs need no gigabytes of host memory. 0 once both were read
 * (pass or fail: c->ok says), non-zero when they could not be. */
static inline int kb_compare_dev(kb_cmp *c, const char *what, const void *got, kb_dtype gt, const void *want,
                                 kb_dtype wt, size_t n)
{
	const size_t slice = (size_t)1 << 24, gs = kb_dtype_size(gt), ws = kb_dtype_size(wt);
	void *hg = malloc(slice * gs), *hw = malloc(slice * ws);
	double worst = -INFINITY;
	int rc = 1;

	memset(c, 0, sizeof *c);
	snprintf(c->what, sizeof c->what, "%s", what);
	if (!hg || !hw) {
		fprintf(stderr, "%s: out of host memory\n", KB_DRIVER.name);
		goto done;
	}
	for (size_t i0 = 0; i0 < n; i0 += slice) {
		const size_t m = n - i0 < slice ? n - i0 : slice;
		if (kb_cuda_failed(cudaMemcpy(hg, (const char *)got + i0 * gs, m * gs, cudaMemcpyDeviceToHost),
		                   "copy the solution's output") ||
		    kb_cuda_failed(cudaMemcpy(hw, (const char *)want + i0 * ws, m * ws, cudaMemcpyDeviceToHost),
		                   "copy the reference's output"))
			goto done;
		for (size_t i = 0; i < m; ++i)
			kb_cmp_fold(c, &worst, i0 + i, kb_dtype_get(hg, gt, i), kb_dtype_get(hw, wt, i));
	}
	c->ok = c->n_bad == 0;
	rc = 0;
done:
	free(hg);
	free(hw);
	return rc;
}

/* Fills a kb_call's buffer slot i. */
static inline void kb_call_buf(kb_call *c, const void *dev, size_t bytes, int out)
{
	c->buf[c->nbuf] = (void *)dev;
	c->bytes[c->nbuf] = bytes;
	c->out[c->nbuf] = out;
	c->nbuf++;
}

static inline void kb_call_num(kb_call *c, double v)
{
	c->scalar[c->nscalar++] = v;
}

#endif
