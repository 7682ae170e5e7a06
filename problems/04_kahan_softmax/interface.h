/* 04_kahan_softmax: the entry point a solution.cu exports.
 *
 *   y[r][i] = exp(x[r][i] - max_j x[r][j]) / sum_j exp(x[r][j] - max_j x[r][j])
 *
 *   x  device, batch x vocab, row-major fp32, row stride vocab
 *   y  device, batch x vocab, row-major fp32, row stride vocab; every
 *      element must be written
 *
 * Softmax along the last dimension. The answer is checked against an fp64
 * computation with atol = rtol = 1e-5, so the row sum has to be accurate to
 * about 1e-6 relative at vocab = 262144. x may hold very large magnitudes
 * (|x| up to 1e4), many exactly equal values, and -inf (a masked logit);
 * every row has at least one finite value and there are no NaNs. x and y
 * never overlap. Pointers come from cudaMalloc (256-byte aligned); vocab is
 * a multiple of 4 in every shape.
 *
 * Enqueue all work on `stream` and return 0, or return non-zero when the
 * call cannot be carried out (an unsupported shape, a failed launch). The
 * harness calls the function many times on the same buffers; scratch memory
 * may be allocated on the first call and kept, but no result may depend on
 * an earlier call.
 */
#ifndef KB_04_KAHAN_SOFTMAX_INTERFACE_H
#define KB_04_KAHAN_SOFTMAX_INTERFACE_H

#include <cuda_runtime.h>

#ifdef __cplusplus
extern "C" {
#endif

int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab,
                        cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
