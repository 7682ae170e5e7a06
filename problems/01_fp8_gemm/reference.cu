/* 01_fp8_gemm reference: y = (x @ w^T) * weight_scale with fp8 e4m3 inputs,
 * a per-output-channel fp32 scale, bf16 output.
 *
 * Kept as plain as a GEMM can be so that it is easy to trust: one output
 * element per thread, 32 x 32 tiles staged in shared memory as float, fp32
 * accumulation (a product of two e4m3 values is exact in fp32), out-of-range
 * rows and K columns read as zero, the scale applied in fp32, one rounding
 * to bf16 at the end.
 */
#include <cuda_runtime.h>
#include <cuda_fp8.h>
#include <cuda_bf16.h>

#define REF_TILE 32

static __global__ __launch_bounds__(REF_TILE * REF_TILE) void
ref_fp8_gemm_kernel(const __nv_fp8_e4m3 *x, const __nv_fp8_e4m3 *w, const float *scale, __nv_bfloat16 *y,
                    int M, int N, int K)
{
	/* +1 column: a warp reads ws[tx][kk], 33 floats apart, no bank conflict */
	__shared__ float xs[REF_TILE][REF_TILE + 1]; /* [m][k] */
	__shared__ float ws[REF_TILE][REF_TILE + 1]; /* [n][k] */
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int m = blockIdx.y * REF_TILE + ty;
	const int n = blockIdx.x * REF_TILE + tx;
	/* the row of w this thread stages (tile row ty, not the thread's own n) */
	const int wn = blockIdx.x * REF_TILE + ty;
	float acc = 0.0f;

	for (int k0 = 0; k0 < K; k0 += REF_TILE) {
		const int k = k0 + tx;
		xs[ty][tx] = (m < M && k < K) ? static_cast<float>(x[(size_t)m * K + k]) : 0.0f;
		ws[ty][tx] = (wn < N && k < K) ? static_cast<float>(w[(size_t)wn * K + k]) : 0.0f;
		__syncthreads();
		for (int kk = 0; kk < REF_TILE; ++kk)
			acc += xs[ty][kk] * ws[tx][kk];
		__syncthreads();
	}
	if (m < M && n < N)
		y[(size_t)m * N + n] = __float2bfloat16(acc * scale[n]);
}

extern "C" int kbref_01_fp8_gemm(const __nv_fp8_e4m3 *x, const __nv_fp8_e4m3 *w, const float *scale,
                                 __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream)
{
	if (M <= 0 || N <= 0 || K <= 0)
		return 1;
	dim3 block(REF_TILE, REF_TILE);
	dim3 grid((N + REF_TILE - 1) / REF_TILE, (M + REF_TILE - 1) / REF_TILE);
	ref_fp8_gemm_kernel<<<grid, block, 0, stream>>>(x, w, scale, y, M, N, K);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
