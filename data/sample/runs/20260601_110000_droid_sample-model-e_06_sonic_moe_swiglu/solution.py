"""MoE up-projection with a fused SwiGLU epilogue (sample solution).

Rows of x_sorted are grouped by expert (expert_offsets). A tile map built
on the host lists (expert, first row) for every BLOCK_M row tile, so a
single launch covers all experts. Each program accumulates the gate and up
halves of its tile separately and writes silu(gate) * up in bf16.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

TOKENS, HIDDEN, INTER, EXPERTS, TOP_K = 4096, 2048, 1024, 64, 4


@triton.jit
def _moe_up_swiglu(x_ptr, w_ptr, y_ptr, tile_expert, tile_row, offsets_ptr,
                   H: tl.constexpr, I: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    t = tl.program_id(0)
    pid_n = tl.program_id(1)
    e = tl.load(tile_expert + t)
    row0 = tl.load(tile_row + t)
    row_end = tl.load(offsets_ptr + e + 1)
    rm = row0 + tl.arange(0, BLOCK_M)
    rn = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    rk = tl.arange(0, BLOCK_K)
    mask_m = rm < row_end
    w_e = w_ptr + e.to(tl.int64) * H * (2 * I)
    gate = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    up = tl.zeros((BLOCK_M, BLOCK_N), tl.float32)
    for k0 in range(0, H, BLOCK_K):
        x = tl.load(x_ptr + rm[:, None] * H + (k0 + rk)[None, :], mask=mask_m[:, None], other=0.0)
        wg = tl.load(w_e + (k0 + rk)[:, None] * (2 * I) + rn[None, :])
        wu = tl.load(w_e + (k0 + rk)[:, None] * (2 * I) + (I + rn)[None, :])
        gate = tl.dot(x, wg, gate)
        up = tl.dot(x, wu, up)
    h = gate * tl.sigmoid(gate) * up
    tl.store(y_ptr + rm[:, None] * I + rn[None, :], h.to(tl.bfloat16), mask=mask_m[:, None])


def _tile_map(offsets, block_m):
    starts = offsets[:-1].tolist()
    ends = offsets[1:].tolist()
    experts, rows = [], []
    for e, (lo, hi) in enumerate(zip(starts, ends)):
        for r in range(lo, hi, block_m):
            experts.append(e)
            rows.append(r)
    dev = offsets.device
    return (torch.tensor(experts, dtype=torch.int32, device=dev),
            torch.tensor(rows, dtype=torch.int32, device=dev))


class Model(nn.Module):
    def __init__(self, tokens, hidden, intermediate, experts, top_k):
        super().__init__()
        self.hidden, self.inter = hidden, intermediate
        self.w_gate_up = nn.Parameter(torch.randn(experts, hidden, 2 * intermediate, dtype=torch.bfloat16) * 0.02)

    def forward(self, x_sorted, expert_offsets):
        # two 64x128 weight tiles + one 128x64 x tile = 48 KB per stage; SM120 has 99 KB
        BLOCK_M, BLOCK_N, BLOCK_K, WARPS, STAGES = 128, 128, 64, 8, 2
        te, tr = _tile_map(expert_offsets, BLOCK_M)
        y = torch.empty(x_sorted.shape[0], self.inter, device=x_sorted.device, dtype=torch.bfloat16)
        grid = (te.numel(), triton.cdiv(self.inter, BLOCK_N))
        _moe_up_swiglu[grid](x_sorted, self.w_gate_up, y, te, tr, expert_offsets,
                             H=self.hidden, I=self.inter, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                             BLOCK_K=BLOCK_K, num_warps=WARPS, num_stages=STAGES)
        return y


def get_inputs():
    rows = TOKENS * TOP_K
    counts = torch.bincount(torch.randint(0, EXPERTS, (rows,)), minlength=EXPERTS)
    offsets = torch.zeros(EXPERTS + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(counts, 0)
    return [torch.randn(rows, HIDDEN, dtype=torch.bfloat16), offsets]


def get_init_inputs():
    return [TOKENS, HIDDEN, INTER, EXPERTS, TOP_K]
