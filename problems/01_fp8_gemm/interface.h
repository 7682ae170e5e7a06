/* 01_fp8_gemm: the entry point a solution.cu exports.
 *
 *   y = (x @ w^T) * weight_scale
 *   y[m][n] = (sum over k of x[m][k] * w[n][k]) * weight_scale[n]
 *
 *   x             device, M x K, row-major, fp8 e4m3 (__nv_fp8_e4m3), row
 *                 stride K
 *   w             device, N x K, row-major, fp8 e4m3, row stride K (one row
 *                 per output column, the nn.Linear layout), each row
 *                 normalised into the e4m3 range
 *   weight_scale  device, N floats: the per-output-channel dequantisation
 *                 scale (the standard scaled-fp8 layout of the publisher's
 *                 current deck)
 *   y             device, M x N, row-major, bf16 (__nv_bfloat16), row stride
 *                 N; every element must be written
 *
 * Products are accumulated in fp32 (or wider), scaled, and y is rounded to
 * bf16 once.
 * K need not be a multiple of any tile size (one shape has K = 4127), and M
 * may be small (32). Pointers come from cudaMalloc (256-byte aligned); rows
 * of x and w are only K-byte aligned.
 *
 * Enqueue all work on `stream` and return 0, or return non-zero when the
 * call cannot be carried out (an unsupported shape, a failed launch). The
 * harness calls the function many times on the same buffers; scratch memory
 * may be allocated on the first call and kept, but no result may depend on
 * an earlier call.
 */
#ifndef KB_01_FP8_GEMM_INTERFACE_H
#define KB_01_FP8_GEMM_INTERFACE_H

#include <cuda_runtime.h>
#include <cuda_fp8.h>
#include <cuda_bf16.h>

#ifdef __cplusplus
extern "C" {
#endif

int kb_01_fp8_gemm(const __nv_fp8_e4m3 *x, const __nv_fp8_e4m3 *w,
                   const float *weight_scale, __nv_bfloat16 *y, int M, int N, int K,
                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
