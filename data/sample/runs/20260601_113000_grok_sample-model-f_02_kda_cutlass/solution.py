"""Kimi Delta Attention forward, recurrent form (sample solution).

For each (batch, head) the K x V state S evolves token by token:
    S <- diag(exp(g_t)) S                       per-channel decay
    S <- S + k_t (beta_t * (v_t - S^T k_t))^T   delta-rule write
    o_t = S^T (q_t / sqrt(K))
One program owns a BLOCK_V slice of the state's columns for one (b, h) and
keeps it in registers for the whole sequence: q, k, v, g, beta are read
once and the state never goes to memory.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

B, T, H, K, V = 2, 1024, 8, 128, 128


@triton.jit
def _kda_recurrent(q_ptr, k_ptr, v_ptr, g_ptr, beta_ptr, o_ptr, T, scale,
                   H: tl.constexpr, K: tl.constexpr, V: tl.constexpr, BLOCK_V: tl.constexpr):
    pid_v = tl.program_id(0)
    bh = tl.program_id(1)
    b = bh // H
    h = bh % H
    rk = tl.arange(0, K)
    rv = pid_v * BLOCK_V + tl.arange(0, BLOCK_V)
    S = tl.zeros((K, BLOCK_V), tl.float32)
    for t in range(0, T):
        tok = (b * T + t) * H + h
        q = tl.load(q_ptr + tok * K + rk).to(tl.float32) * scale
        k = tl.load(k_ptr + tok * K + rk).to(tl.float32)
        v = tl.load(v_ptr + tok * V + rv).to(tl.float32)
        g = tl.load(g_ptr + tok * K + rk)
        beta = tl.load(beta_ptr + tok).to(tl.float32)
        S = S * tl.exp(g)[:, None]
        v_new = beta * (v - tl.sum(S * k[:, None], axis=0))
        S = S + k[:, None] * v_new[None, :]
        o = tl.sum(S * q[:, None], axis=0)
        tl.store(o_ptr + tok * V + rv, o.to(tl.bfloat16))


class Model(nn.Module):
    def __init__(self, B, T, H, K, V):
        super().__init__()
        self.scale = K ** -0.5

    def forward(self, q, k, v, g, beta):
        b, t, h, kd = q.shape
        vd = v.shape[-1]
        o = torch.empty_like(v)
        block_v = 32
        grid = (triton.cdiv(vd, block_v), b * h)
        _kda_recurrent[grid](q, k, v, g, beta, o, t, self.scale,
                             H=h, K=kd, V=vd, BLOCK_V=block_v, num_warps=4)
        return o


def get_inputs():
    q = torch.nn.functional.normalize(torch.randn(B, T, H, K), dim=-1).to(torch.bfloat16)
    k = torch.nn.functional.normalize(torch.randn(B, T, H, K), dim=-1).to(torch.bfloat16)
    v = torch.randn(B, T, H, V, dtype=torch.bfloat16)
    g = -torch.rand(B, T, H, K) * 0.1                  # log-decay, fp32
    beta = torch.sigmoid(torch.randn(B, T, H)).to(torch.bfloat16)
    return [q, k, v, g, beta]


def get_init_inputs():
    return [B, T, H, K, V]
