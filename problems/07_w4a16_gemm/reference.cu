/* 07_w4a16_gemm reference: dequantise W to bf16, then a plain GEMM.
 *
 * As the original's torch reference: unpack the nibbles, W = (q - z) * s
 * rounded to bf16 (q - z is exact, the product is rounded once, as a bf16
 * multiply does), then y = x @ W with fp32 accumulation and one rounding to
 * bf16. The GEMM is one output per thread over 32 x 32 shared-memory tiles.
 * W needs a K x N bf16 workspace from the caller.
 */
#include <stdint.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#define REF_GROUP 128
#define REF_TILE 32

static __global__ void ref_dequant_kernel(const uint8_t *w_q, const __nv_bfloat16 *scales,
                                          const __nv_bfloat16 *zeros, __nv_bfloat16 *w, int N,
                                          int K)
{
	const size_t total = (size_t)K * N;
	for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < total;
	     e += (size_t)gridDim.x * blockDim.x) {
		const int k = (int)(e / N), n = (int)(e % N);
		const uint8_t byte = w_q[(size_t)(k / 2) * N + n];
		const int q = k % 2 == 0 ? byte & 0xF : byte >> 4;
		const size_t g = (size_t)(k / REF_GROUP) * N + n;
		const float s = __bfloat162float(scales[g]), z = __bfloat162float(zeros[g]);
		w[e] = __float2bfloat16(((float)q - z) * s);
	}
}

static __global__ __launch_bounds__(REF_TILE * REF_TILE) void
ref_gemm_kernel(const __nv_bfloat16 *x, const __nv_bfloat16 *w, __nv_bfloat16 *y, int M, int N,
                int K)
{
	__shared__ float xs[REF_TILE][REF_TILE + 1]; /* [m][k] */
	__shared__ float ws[REF_TILE][REF_TILE + 1]; /* [k][n] */
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int m = blockIdx.y * REF_TILE + ty;
	const int n = blockIdx.x * REF_TILE + tx;
	float acc = 0.0f;

	for (int k0 = 0; k0 < K; k0 += REF_TILE) {
		xs[ty][tx] = (m < M && k0 + tx < K) ? __bfloat162float(x[(size_t)m * K + k0 + tx]) : 0.0f;
		ws[ty][tx] = (n < N && k0 + ty < K) ? __bfloat162float(w[(size_t)(k0 + ty) * N + n]) : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < REF_TILE; ++kk)
			acc += xs[ty][kk] * ws[kk][tx];
		__syncthreads();
	}
	if (m < M && n < N)
		y[(size_t)m * N + n] = __float2bfloat16(acc);
}

extern "C" int kbref_07_w4a16_gemm(const __nv_bfloat16 *x, const uint8_t *w_q,
                                   const __nv_bfloat16 *scales, const __nv_bfloat16 *zeros,
                                   __nv_bfloat16 *y, int M, int N, int K,
                                   __nv_bfloat16 *w_workspace, cudaStream_t stream)
{
	if (M <= 0 || N <= 0 || K <= 0 || K % REF_GROUP != 0)
		return 1;
	const size_t total = (size_t)K * N;
	size_t blocks = (total + 255) / 256;
	if (blocks > 65535)
		blocks = 65535;
	ref_dequant_kernel<<<(unsigned)blocks, 256, 0, stream>>>(w_q, scales, zeros, w_workspace, N,
	                                                         K);
	dim3 block(REF_TILE, REF_TILE);
	dim3 grid((N + REF_TILE - 1) / REF_TILE, (M + REF_TILE - 1) / REF_TILE);
	ref_gemm_kernel<<<grid, block, 0, stream>>>(x, w_workspace, y, M, N, K);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
