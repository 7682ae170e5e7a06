/* 01_fp8_gemm baseline solution: a classic shared-memory tiled SGEMM.
 *
 * Each 256-thread block computes a 64 x 64 tile of y, each thread a 4 x 4
 * sub-tile held in registers. K is walked 16 at a time; the fp8 values are
 * widened to float when staged in shared memory and accumulated in fp32;
 * each output column's weight_scale is applied before the one rounding.
 * No tensor cores: this is the floor a real solution should beat.
 */
#include "interface.h"

#define BM 64
#define BN 64
#define BK 16
#define THREADS 256

static __global__ __launch_bounds__(THREADS) void
fp8_gemm_tiled(const __nv_fp8_e4m3 *__restrict__ x, const __nv_fp8_e4m3 *__restrict__ w,
               const float *__restrict__ scale, __nv_bfloat16 *__restrict__ y, int M, int N, int K)
{
	/* k-major so that the inner loop reads 4 consecutive m (or n) */
	__shared__ float xs[BK][BM];
	__shared__ float ws[BK][BN];
	const int tid = threadIdx.x;
	const int tm = tid / (BN / 4), tn = tid % (BN / 4);
	const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
	float acc[4][4];

	for (int i = 0; i < 4; ++i)
		for (int j = 0; j < 4; ++j)
			acc[i][j] = 0.0f;

	for (int k0 = 0; k0 < K; k0 += BK) {
		for (int e = tid; e < BM * BK; e += THREADS) {
			const int r = e / BK, c = e % BK;
			const int k = k0 + c;
			const int m = m0 + r, n = n0 + r;
			xs[c][r] = (m < M && k < K) ? static_cast<float>(x[(size_t)m * K + k]) : 0.0f;
			ws[c][r] = (n < N && k < K) ? static_cast<float>(w[(size_t)n * K + k]) : 0.0f;
		}
		__syncthreads();
		for (int kk = 0; kk < BK; ++kk) {
			float a[4], b[4];
			for (int i = 0; i < 4; ++i)
				a[i] = xs[kk][tm * 4 + i];
			for (int j = 0; j < 4; ++j)
				b[j] = ws[kk][tn * 4 + j];
			for (int i = 0; i < 4; ++i)
				for (int j = 0; j < 4; ++j)
					acc[i][j] += a[i] * b[j];
		}
		__syncthreads();
	}

	for (int i = 0; i < 4; ++i) {
		const int m = m0 + tm * 4 + i;
		if (m >= M)
			continue;
		for (int j = 0; j < 4; ++j) {
			const int n = n0 + tn * 4 + j;
			if (n < N)
				y[(size_t)m * N + n] = __float2bfloat16(acc[i][j] * scale[n]);
		}
	}
}

extern "C" int kb_01_fp8_gemm(const __nv_fp8_e4m3 *x, const __nv_fp8_e4m3 *w, const float *weight_scale,
                              __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream)
{
	if (M <= 0 || N <= 0 || K <= 0)
		return 1;
	dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
	fp8_gemm_tiled<<<grid, THREADS, 0, stream>>>(x, w, weight_scale, y, M, N, K);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
