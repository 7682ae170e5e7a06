/* 06_sonic_moe_swiglu: the entry point a solution.cu exports.
 *
 * The up-projection of a top-K mixture-of-experts FFN: a grouped GEMM over
 * variable-length row groups with SwiGLU fused on the result. Rows are
 * already permuted into expert order; expert e owns rows
 * [expert_offsets[e], expert_offsets[e+1]). For each such row t:
 *
 *   gate[t][i] = sum over h of hidden_states[t][h] * w_gate[e][h][i]
 *   up[t][i]   = sum over h of hidden_states[t][h] * w_up[e][h][i]
 *   out[t][i]  = silu(gate[t][i]) * up[t][i],   silu(z) = z / (1 + exp(-z))
 *
 *   hidden_states   device, T_perm x H, bf16, row-major (row stride H)
 *   expert_offsets  device, E + 1 int32: expert_offsets[0] = 0,
 *                   non-decreasing, expert_offsets[E] = T_perm
 *   w_gate, w_up    device, E x H x I, bf16, contiguous (w[e][h][i] at
 *                   (e*H + h)*I + i): each expert's matrix is H x I row-major
 *   out             device, T_perm x I, bf16, row-major; every element must
 *                   be written
 *
 * T_perm = T_total * K (every token visits K experts). Products are
 * accumulated in fp32 (or wider) and out is rounded to bf16 once; gate and
 * up need not be rounded on the way. An expert may own no rows at all,
 * one row, or most of the rows; counts are not multiples of any tile size.
 * The offsets live on the device only. H and I are multiples of 64 in every
 * shape; pointers come from cudaMalloc (256-byte aligned).
 *
 * Enqueue all work on `stream` and return 0, or return non-zero when the
 * call cannot be carried out (an unsupported shape, a failed launch). The
 * harness calls the function many times on the same buffers; scratch memory
 * may be allocated on the first call and kept, but no result may depend on
 * an earlier call.
 */
#ifndef KB_06_SONIC_MOE_SWIGLU_INTERFACE_H
#define KB_06_SONIC_MOE_SWIGLU_INTERFACE_H

#include <cuda_runtime.h>
#include <cuda_bf16.h>

#ifdef __cplusplus
extern "C" {
#endif

int kb_06_sonic_moe_swiglu(const __nv_bfloat16 *hidden_states, const int *expert_offsets,
                           const __nv_bfloat16 *w_gate, const __nv_bfloat16 *w_up,
                           __nv_bfloat16 *out, int T_perm, int H, int I, int E,
                           cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
