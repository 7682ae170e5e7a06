"""Row softmax for fp32 logits (sample solution).

One program per row, two passes over it: pass 1 keeps a per-lane running
max and running sum of exp (online softmax), then combines the lanes;
pass 2 writes exp(x - max) / sum.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl
from triton.language.extra.cuda import libdevice

BATCH, VOCAB = 32, 32000


@triton.jit
def _softmax_row(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n
    y_row = y_ptr + row * n
    offs = tl.arange(0, BLOCK)

    # Per lane: running max m, Kahan pair (s, c) for the sum of exp(x - m).
    # libdevice expf (about 1 ulp) instead of tl.exp, which is ex2.approx
    # and loses ~1e-6 relative on large arguments.
    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    c = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        x = tl.load(x_row + start + offs, mask=start + offs < n, other=float("-inf"))
        m_new = tl.maximum(m, x)
        r = libdevice.exp(m - m_new)
        s = s * r
        c = c * r
        term = libdevice.exp(x - m_new) - c
        t = s + term
        c = (t - s) - term
        s = t
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum((s - c) * libdevice.exp(m - row_max), axis=0)

    for start in range(0, n, BLOCK):
        mask = start + offs < n
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offs, libdevice.exp(x - row_max) / total, mask=mask)


class Model(nn.Module):
    def __init__(self, batch, vocab):
        super().__init__()

    def forward(self, x):
        y = torch.empty_like(x)
        block = min(4096, triton.next_power_of_2(x.shape[1]))
        _softmax_row[(x.shape[0],)](x, y, x.shape[1], BLOCK=block, num_warps=8)
        return y


def get_inputs():
    return [torch.randn(BATCH, VOCAB) * 4.0]


def get_init_inputs():
    return [BATCH, VOCAB]
