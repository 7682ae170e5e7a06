/* 05_topk_bitonic: the entry point a solution.cu exports.
 *
 * For each row r of x, the k largest values and where they are, largest
 * first, as torch.topk(x, k, dim=-1, largest=True, sorted=True):
 *
 *   x        device, batch x n, row-major fp32, row stride n
 *   values   device, batch x k, row-major fp32: values[r][0] >= values[r][1]
 *            >= ... >= values[r][k-1], the k largest of row r
 *   indices  device, batch x k, row-major int64: x[r][indices[r][j]] ==
 *            values[r][j], each in [0, n) and no index twice in a row
 *
 * Among equal values any order of their indices is accepted. x may hold
 * long runs of exactly equal values (ties across the k-th place), -0.0 next
 * to 0.0, and -inf (masked entries), possibly more -inf than n - k so that
 * -inf is among the k largest; there are no NaNs and no +inf. n need not be
 * a power of two (one shape has n = 12000); 1 <= k <= 64 and k <= n.
 * Pointers come from cudaMalloc (256-byte aligned).
 *
 * Enqueue all work on `stream` and return 0, or return non-zero when the
 * call cannot be carried out (an unsupported shape, a failed launch). The
 * harness calls the function many times on the same buffers; scratch memory
 * may be allocated on the first call and kept, but no result may depend on
 * an earlier call.
 */
#ifndef KB_05_TOPK_BITONIC_INTERFACE_H
#define KB_05_TOPK_BITONIC_INTERFACE_H

#include <stdint.h>
#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

int kb_05_topk_bitonic(const float *x, float *values, int64_t *indices,
                       int batch, int n, int k, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
