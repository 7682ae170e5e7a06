/* mutant.cuh: a problem's baseline made wrong on purpose, for
 * tests/gpu/run.sh, which writes a solution of two defines and an include:
 *   #define MUT_PROBLEM 4    which problem (1..7)
 *   #define MUT_KIND 1       1: the last element of the output is left
 *                            unwritten (an off-by-one loop bound);
 *                            2: the whole output is zero
 *   #include ".../tests/gpu/mutant.cuh"
 * The baseline runs under another name (mut_base) and the entry point
 * damages its output afterwards, on the same stream. Both must FAIL. */
#include <stdint.h>
#include <cuda_runtime.h>

/* The runner fills outputs with all-ones bytes before each call: leaving
 * an element alone is what an unwritten element looks like. */
static int mut_apply(void *out, size_t n, size_t esize, cudaStream_t s)
{
	cudaError_t e = MUT_KIND == 1 ? cudaMemsetAsync((char *)out + (n - 1) * esize, 0xFF, esize, s)
	                              : cudaMemsetAsync(out, 0, n * esize, s);
	return e != cudaSuccess;
}

#define MUT_WRAP(call, out, n, esize) \
	do {                                                      \
		int rc_ = (call);                                     \
		return rc_ ? rc_ : mut_apply((out), (n), (esize), s); \
	} while (0)

#if MUT_PROBLEM == 1
#define kb_01_fp8_gemm mut_base
#include "../../problems/01_fp8_gemm/baseline.cu"
#undef kb_01_fp8_gemm
extern "C" int kb_01_fp8_gemm(const __nv_fp8_e4m3 *x, const __nv_fp8_e4m3 *w, const float *sc, __nv_bfloat16 *y,
                              int M, int N, int K, cudaStream_t s)
{
	MUT_WRAP(mut_base(x, w, sc, y, M, N, K, s), y, (size_t)M * N, 2);
}
#elif MUT_PROBLEM == 2
#define kb_02_kda_cutlass mut_base
#include "../../problems/02_kda_cutlass/baseline.cu"
#undef kb_02_kda_cutlass
extern "C" int kb_02_kda_cutlass(const __nv_bfloat16 *q, const __nv_bfloat16 *k, const __nv_bfloat16 *v,
                                 const float *g, const __nv_bfloat16 *beta, __nv_bfloat16 *o, int B, int T, int H,
                                 int K, int V, float scale, cudaStream_t s)
{
	MUT_WRAP(mut_base(q, k, v, g, beta, o, B, T, H, K, V, scale, s), o, (size_t)B * T * H * V, 2);
}
#elif MUT_PROBLEM == 3
#define kb_03_paged_attention mut_base
#include "../../problems/03_paged_attention/baseline.cu"
#undef kb_03_paged_attention
extern "C" int kb_03_paged_attention(const __nv_bfloat16 *query, const __nv_bfloat16 *kv, const int *block_table,
                                     const int *seq_lens, __nv_bfloat16 *out, int batch, int num_heads,
                                     int num_kv_heads, int head_dim, int page_size, int max_blocks, int num_blocks,
                                     float scale, cudaStream_t s)
{
	MUT_WRAP(mut_base(query, kv, block_table, seq_lens, out, batch, num_heads, num_kv_heads, head_dim, page_size,
	                  max_blocks, num_blocks, scale, s),
	         out, (size_t)batch * num_heads * head_dim, 2);
}
#elif MUT_PROBLEM == 4
#define kb_04_kahan_softmax mut_base
#include "../../problems/04_kahan_softmax/baseline.cu"
#undef kb_04_kahan_softmax
extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t s)
{
	MUT_WRAP(mut_base(x, y, batch, vocab, s), y, (size_t)batch * vocab, 4);
}
#elif MUT_PROBLEM == 5
#define kb_05_topk_bitonic mut_base
#include "../../problems/05_topk_bitonic/baseline.cu"
#undef kb_05_topk_bitonic
extern "C" int kb_05_topk_bitonic(const float *x, float *values, int64_t *indices, int batch, int n, int k,
                                  cudaStream_t s)
{
	MUT_WRAP(mut_base(x, values, indices, batch, n, k, s), values, (size_t)batch * k, 4);
}
#elif MUT_PROBLEM == 6
#define kb_06_sonic_moe_swiglu mut_base
#include "../../problems/06_sonic_moe_swiglu/baseline.cu"
#undef kb_06_sonic_moe_swiglu
extern "C" int kb_06_sonic_moe_swiglu(const __nv_bfloat16 *x, const int *offsets, const __nv_bfloat16 *wg,
                                      const __nv_bfloat16 *wu, __nv_bfloat16 *out, int T_perm, int H, int I, int E,
                                      cudaStream_t s)
{
	MUT_WRAP(mut_base(x, offsets, wg, wu, out, T_perm, H, I, E, s), out, (size_t)T_perm * I, 2);
}
#elif MUT_PROBLEM == 7
#define kb_07_w4a16_gemm mut_base
#include "../../problems/07_w4a16_gemm/baseline.cu"
#undef kb_07_w4a16_gemm
extern "C" int kb_07_w4a16_gemm(const __nv_bfloat16 *x, const uint8_t *w_q, const __nv_bfloat16 *scales,
                                const __nv_bfloat16 *zeros, __nv_bfloat16 *y, int M, int N, int K, cudaStream_t s)
{
	MUT_WRAP(mut_base(x, w_q, scales, zeros, y, M, N, K, s), y, (size_t)M * N, 2);
}
#endif
