/* 07_w4a16_gemm: the entry point a solution.cu exports.
 *
 *   y = x @ W,  W[k][n] = (q[k][n] - zeros[k / 128][n]) * scales[k / 128][n]
 *
 *   x       device, M x K, row-major bf16, row stride K
 *   w_q     device, K/2 x N, row-major uint8, row stride N: byte [kk][n]
 *           holds q[2kk][n] in its low nibble and q[2kk+1][n] in its high
 *           nibble, each an unsigned int4 in 0..15
 *   scales  device, K/128 x N, row-major bf16 (one per group of 128 k and
 *           column n; may be 0, and up to 2^14)
 *   zeros   device, K/128 x N, row-major bf16 (integral values 0..15, kept
 *           as bf16 as AWQ does)
 *   y       device, M x N, row-major bf16, row stride N; every element must
 *           be written
 *
 * Asymmetric int4 weights with one scale and zero-point per group of
 * KB_W4A16_GROUP = 128 along K (AWQ/GPTQ style). Accumulate in fp32; (q - z)
 * * s can exceed the fp16 range, so do not dequantise to fp16. K is a
 * multiple of 128 and N a multiple of 128 in every shape; M is 1 to 256.
 * Pointers come from cudaMalloc (256-byte aligned).
 *
 * Enqueue all work on `stream` and return 0, or return non-zero when the
 * call cannot be carried out (an unsupported shape, a failed launch). The
 * harness calls the function many times on the same buffers; scratch memory
 * may be allocated on the first call and kept, but no result may depend on
 * an earlier call (in particular, no caching of a dequantised W).
 */
#ifndef KB_07_W4A16_GEMM_INTERFACE_H
#define KB_07_W4A16_GEMM_INTERFACE_H

#include <stdint.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>

#define KB_W4A16_GROUP 128

#ifdef __cplusplus
extern "C" {
#endif

int kb_07_w4a16_gemm(const __nv_bfloat16 *x, const uint8_t *w_q,
                     const __nv_bfloat16 *scales, const __nv_bfloat16 *zeros,
                     __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
