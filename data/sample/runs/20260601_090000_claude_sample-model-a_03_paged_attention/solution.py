"""Paged-attention decode, one query token per sequence (Triton).

One program per (sequence, KV head). It walks the sequence's pages through
block_table and keeps an online softmax (running max m, running sum l) in
fp32. All query heads of the GQA group are handled by the same program, so
each K/V page is read from DRAM once instead of once per query head.
"""
import math

import torch
import torch.nn as nn
import triton
import triton.language as tl

BATCH, NUM_HEADS, NUM_KV_HEADS, HEAD_DIM, SEQ_LEN, PAGE_SIZE = 8, 32, 8, 128, 1024, 16


@triton.jit
def _decode_kernel(q_ptr, k_ptr, v_ptr, bt_ptr, lens_ptr, o_ptr, scale, max_pages,
                   H: tl.constexpr, HKV: tl.constexpr, D: tl.constexpr,
                   PAGE: tl.constexpr, GROUP: tl.constexpr):
    b = tl.program_id(0)
    kvh = tl.program_id(1)
    seq_len = tl.load(lens_ptr + b)

    heads = kvh * GROUP + tl.arange(0, GROUP)
    d = tl.arange(0, D)
    q = tl.load(q_ptr + (b * H + heads)[:, None] * D + d[None, :]).to(tl.float32) * scale

    m = tl.full((GROUP,), float("-inf"), tl.float32)
    l = tl.zeros((GROUP,), tl.float32)
    acc = tl.zeros((GROUP, D), tl.float32)

    for p in range(0, tl.cdiv(seq_len, PAGE)):
        block = tl.load(bt_ptr + b * max_pages + p)
        slot = tl.arange(0, PAGE)
        valid = p * PAGE + slot < seq_len
        off = ((block * PAGE + slot) * HKV + kvh)[:, None] * D + d[None, :]
        k = tl.load(k_ptr + off, mask=valid[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + off, mask=valid[:, None], other=0.0).to(tl.float32)
        # GROUP is 4 or 8, below tl.dot's 16-row minimum; decode is bound by
        # the K/V stream anyway, so reduce on CUDA cores instead of padding.
        s = tl.sum(q[:, None, :] * k[None, :, :], axis=2)  # (GROUP, PAGE)
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp(m - m_new)
        pr = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(pr, axis=1)
        acc = acc * alpha[:, None] + tl.sum(pr[:, :, None] * v[None, :, :], axis=1)
        m = m_new

    out = acc / l[:, None]
    tl.store(o_ptr + (b * H + heads)[:, None] * D + d[None, :], out.to(tl.bfloat16))


class Model(nn.Module):
    def __init__(self, batch, num_heads, num_kv_heads, head_dim, seq_len, page_size):
        super().__init__()
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim, self.page_size = head_dim, page_size
        self.scale = 1.0 / math.sqrt(head_dim)

    def forward(self, query, k_cache, v_cache, block_table, seq_lens):
        out = torch.empty_like(query)
        grid = (query.shape[0], self.num_kv_heads)
        _decode_kernel[grid](
            query, k_cache, v_cache, block_table, seq_lens, out,
            self.scale, block_table.shape[1],
            H=self.num_heads, HKV=self.num_kv_heads, D=self.head_dim,
            PAGE=self.page_size, GROUP=self.num_heads // self.num_kv_heads,
            num_warps=4, num_stages=3,  # prefetch the next page while reducing this one
        )
        return out


def get_inputs():
    pages = (SEQ_LEN + PAGE_SIZE - 1) // PAGE_SIZE
    blocks = BATCH * pages
    q = torch.randn(BATCH, NUM_HEADS, HEAD_DIM, dtype=torch.bfloat16)
    k = torch.randn(blocks, PAGE_SIZE, NUM_KV_HEADS, HEAD_DIM, dtype=torch.bfloat16)
    v = torch.randn(blocks, PAGE_SIZE, NUM_KV_HEADS, HEAD_DIM, dtype=torch.bfloat16)
    table = torch.randperm(blocks, dtype=torch.int32).view(BATCH, pages)
    lens = torch.full((BATCH,), SEQ_LEN, dtype=torch.int32)
    return [q, k, v, table, lens]


def get_init_inputs():
    return [BATCH, NUM_HEADS, NUM_KV_HEADS, HEAD_DIM, SEQ_LEN, PAGE_SIZE]
