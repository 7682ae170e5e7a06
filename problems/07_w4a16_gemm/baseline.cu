/* 07_w4a16_gemm baseline solution: fused unpack + GEMM on CUDA cores.
 *
 * Each thread owns one output column n and up to 8 rows of y. Group by
 * group along K, the block stages its 8 rows of x (128 values each) in
 * shared memory as float, every thread reads its column's scale and zero
 * once, then walks the group's 64 packed bytes of its column (consecutive
 * threads read consecutive bytes, so each row of w_q is read coalesced),
 * dequantises in fp32 and accumulates in fp32. W never exists in memory.
 */
#include "interface.h"

#define THREADS 64 /* columns per block */
#define ROWS 8     /* rows of y per block */
#define GROUP KB_W4A16_GROUP

static __global__ __launch_bounds__(THREADS) void
w4a16_fused(const __nv_bfloat16 *__restrict__ x, const uint8_t *__restrict__ w_q,
            const __nv_bfloat16 *__restrict__ scales, const __nv_bfloat16 *__restrict__ zeros,
            __nv_bfloat16 *__restrict__ y, int M, int N, int K)
{
	__shared__ float xs[ROWS][GROUP];
	const int n = blockIdx.x * THREADS + threadIdx.x;
	const int m0 = blockIdx.y * ROWS;
	const bool live = n < N;
	float acc[ROWS];

	for (int r = 0; r < ROWS; ++r)
		acc[r] = 0.0f;

	for (int g = 0; g < K / GROUP; ++g) {
		for (int e = threadIdx.x; e < ROWS * GROUP; e += THREADS) {
			const int r = e / GROUP, kk = e % GROUP;
			const int m = m0 + r;
			xs[r][kk] = m < M ? __bfloat162float(x[(size_t)m * K + g * GROUP + kk]) : 0.0f;
		}
		__syncthreads();
		if (live) {
			const float s = __bfloat162float(scales[(size_t)g * N + n]);
			const float z = __bfloat162float(zeros[(size_t)g * N + n]);
			const uint8_t *col = w_q + (size_t)g * (GROUP / 2) * N + n;
			for (int b = 0; b < GROUP / 2; ++b) {
				const unsigned byte = col[(size_t)b * N];
				const float w0 = ((float)(byte & 0xF) - z) * s;
				const float w1 = ((float)(byte >> 4) - z) * s;
				for (int r = 0; r < ROWS; ++r)
					acc[r] += xs[r][2 * b] * w0 + xs[r][2 * b + 1] * w1;
			}
		}
		__syncthreads();
	}

	if (!live)
		return;
	for (int r = 0; r < ROWS; ++r)
		if (m0 + r < M)
			y[(size_t)(m0 + r) * N + n] = __float2bfloat16(acc[r]);
}

extern "C" int kb_07_w4a16_gemm(const __nv_bfloat16 *x, const uint8_t *w_q,
                                const __nv_bfloat16 *scales, const __nv_bfloat16 *zeros,
                                __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream)
{
	if (M <= 0 || N <= 0 || K <= 0 || K % GROUP != 0)
		return 1;
	dim3 grid((N + THREADS - 1) / THREADS, (M + ROWS - 1) / ROWS);
	w4a16_fused<<<grid, THREADS, 0, stream>>>(x, w_q, scales, zeros, y, M, N, K);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
