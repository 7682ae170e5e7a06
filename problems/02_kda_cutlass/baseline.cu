/* 02_kda_cutlass baseline: a straightforward solution that passes.
 *
 * The token-by-token recurrence, not the chunk form: column c of a head's
 * K x V state only ever reads itself, v_t[c] and the shared q_t, k_t, g_t,
 * beta_t, so each thread keeps one column in registers and walks the
 * sequence. A block is one warp: 32 columns of one (b, h). Every 16 tokens
 * the warp stages q, k, exp(g), beta and its v values in shared memory, so
 * exp(g) is computed once per element rather than once per column. It is
 * sequential in T and uses few SMs; the chunk form is what makes KDA fast.
 */
#include <math.h>

#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include "interface.h"

#define COLS 32  /* columns per block: one warp */
#define STEPS 16 /* tokens staged at a time */

template <int KD>
static __global__ void __launch_bounds__(COLS)
kda_recurrent(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v,
              const float *g, const __nv_bfloat16 *beta, __nv_bfloat16 *o, int T, int H, int V,
              float scale)
{
	__shared__ float qs[STEPS][KD], ks[STEPS][KD], es[STEPS][KD];
	__shared__ float bs[STEPS], vs[STEPS][COLS];
	const int bh = blockIdx.y, b = bh / H, h = bh % H;
	const int lane = threadIdx.x, c = blockIdx.x * COLS + lane;
	float S[KD];

#pragma unroll
	for (int d = 0; d < KD; ++d)
		S[d] = 0.0f;

	for (int t0 = 0; t0 < T; t0 += STEPS) {
		const int n = T - t0 < STEPS ? T - t0 : STEPS;
		__syncthreads(); /* the previous tokens are done with the buffers */
		for (int idx = lane; idx < n * KD; idx += COLS) {
			const int j = idx / KD, d = idx % KD;
			const size_t at = (((size_t)b * T + t0 + j) * H + h) * KD + d;
			qs[j][d] = __bfloat162float(q[at]);
			ks[j][d] = __bfloat162float(k[at]);
			es[j][d] = expf(g[at]);
		}
		for (int j = 0; j < n; ++j) {
			const size_t row = ((size_t)b * T + t0 + j) * H + h;
			if (lane == 0)
				bs[j] = __bfloat162float(beta[row]);
			vs[j][lane] = c < V ? __bfloat162float(v[row * V + c]) : 0.0f;
		}
		__syncthreads();

		for (int j = 0; j < n; ++j) {
			/* two partial sums: a single chain of KD dependent FMAs is slow */
			float kS[2] = {0.0f, 0.0f}, qS[2] = {0.0f, 0.0f};
#pragma unroll
			for (int d = 0; d < KD; ++d) {
				S[d] *= es[j][d];
				kS[d & 1] = fmaf(ks[j][d], S[d], kS[d & 1]);
			}
			const float w = bs[j] * (vs[j][lane] - (kS[0] + kS[1]));
#pragma unroll
			for (int d = 0; d < KD; ++d) {
				S[d] = fmaf(ks[j][d], w, S[d]);
				qS[d & 1] = fmaf(qs[j][d], S[d], qS[d & 1]);
			}
			if (c < V)
				o[(((size_t)b * T + t0 + j) * H + h) * V + c] =
				    __float2bfloat16(scale * (qS[0] + qS[1]));
		}
	}
}

extern "C" int kb_02_kda_cutlass(const __nv_bfloat16 *q, const __nv_bfloat16 *k,
                                 const __nv_bfloat16 *v, const float *g,
                                 const __nv_bfloat16 *beta, __nv_bfloat16 *o, int B, int T, int H,
                                 int K, int V, float scale, cudaStream_t stream)
{
	if (B <= 0 || T <= 0 || H <= 0 || V <= 0)
		return 1;
	const dim3 grid((V + COLS - 1) / COLS, B * H);
	if (K == 128)
		kda_recurrent<128><<<grid, COLS, 0, stream>>>(q, k, v, g, beta, o, T, H, V, scale);
	else if (K == 64)
		kda_recurrent<64><<<grid, COLS, 0, stream>>>(q, k, v, g, beta, o, T, H, V, scale);
	else
		return 1; /* the state lives in registers: K must be known at compile time */
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
