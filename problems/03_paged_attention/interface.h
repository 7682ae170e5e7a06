/* 03_paged_attention: the entry point a solution.cu exports.
 *
 * Single-query (decode) attention over a paged KV cache, with grouped-query
 * heads. For batch element b and query head h, with kv head kh = h / G where
 * G = num_heads / num_kv_heads, and L = seq_lens[b]:
 *
 *   s[l]       = scale * sum over d of query[b][h][d] * K(b, l, kh)[d]
 *   p[l]       = exp(s[l] - max s) / sum over l' < L of exp(s[l'] - max s)
 *   out[b][h]  = sum over l < L of p[l] * V(b, l, kh)
 *
 * where token l of batch element b lives in page block_table[b][l / page_size]
 * at slot l % page_size:
 *
 *   K(b, l, kh)[d] = kv_cache[page][slot][kh][d]             (d < head_dim)
 *   V(b, l, kh)[d] = kv_cache[page][slot][kh][head_dim + d]
 *
 *   query        device, batch x num_heads x head_dim, bf16, contiguous
 *   kv_cache     device, num_blocks x page_size x num_kv_heads x (2*head_dim),
 *                bf16, contiguous; the last dimension packs [K | V]
 *   block_table  device, batch x max_blocks, int32, row-major; only the first
 *                ceil(seq_lens[b] / page_size) entries of row b are pages of
 *                b, the rest of the row may name any page (do not read
 *                through them)
 *   seq_lens     device, batch, int32, 1 <= seq_lens[b] <= max_blocks*page_size
 *   out          device, batch x num_heads x head_dim, bf16, contiguous;
 *                every element must be written
 *   scale        1 / sqrt(head_dim)
 *
 * Slots past seq_lens[b] in b's last page hold data that is not part of the
 * sequence and must not take part. seq_lens differ between batch elements
 * and need not be multiples of page_size; some keys are large enough that
 * exp() of an unshifted score overflows fp32. num_heads is a multiple of
 * num_kv_heads. Pointers come from cudaMalloc (256-byte aligned).
 *
 * Enqueue all work on `stream` and return 0, or return non-zero when the
 * call cannot be carried out (an unsupported shape, a failed launch). The
 * harness calls the function many times on the same buffers; scratch memory
 * may be allocated on the first call and kept, but no result may depend on
 * an earlier call.
 */
#ifndef KB_03_PAGED_ATTENTION_INTERFACE_H
#define KB_03_PAGED_ATTENTION_INTERFACE_H

#include <cuda_runtime.h>
#include <cuda_bf16.h>

#ifdef __cplusplus
extern "C" {
#endif

int kb_03_paged_attention(const __nv_bfloat16 *query, const __nv_bfloat16 *kv_cache,
                          const int *block_table, const int *seq_lens,
                          __nv_bfloat16 *out, int batch, int num_heads,
                          int num_kv_heads, int head_dim, int page_size,
                          int max_blocks, int num_blocks, float scale,
                          cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
