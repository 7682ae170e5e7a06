# grok (Grok Build streaming-json) sample run: 02_kda_cutlass.
# The stream carries only thought/text deltas and an end record.  Story: the
# agent (no GPU in its phase, as with the real grok runs) reasons about the
# chunked WY form, settles for a recurrent Triton kernel it can get right,
# and says so; the harness's check passes and the benchmark is LOW.
from common import *

RUN = "20260601_113000_grok_sample-model-f_02_kda_cutlass"
PROBLEM = "02_kda_cutlass"
MODEL = "sample-model-f"
HARNESS = "grok"
EFFORT = ""
SESSION = sid(RUN, "session")

SOL = '''"""Kimi Delta Attention forward, recurrent form (sample solution).

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
'''

BENCH = [
    dict(eager=181.2, compiled=22.41, sota=0.2210, solution=3.1020),
    dict(eager=702.5, compiled=88.32, sota=0.6330, solution=12.380),
    dict(eager=102.1, compiled=12.86, sota=0.0810, solution=0.8210),
]

THOUGHT_1 = [
    "The task: KDA forward. Per (b, h) a K x V state, per token a per-channel decay exp(g_t), ",
    "then a delta-rule write with strength beta_t, then o_t = S^T q_t. ",
    "reference.py is the token loop in PyTorch, so correctness is easy to define.\n\n",
    "The fast path is the chunked WY form: within a chunk of 64 tokens, build the decayed k k^T interactions, ",
    "invert the unit lower-triangular (I + beta * tril(...)) by forward substitution to get w and u, ",
    "then one state update per chunk as two GEMMs. That is where tensor cores come in.\n\n",
    "Risk: the per-channel decay has to be folded into k and q as exp(cumsum g) ratios inside the chunk, ",
    "and those ratios overflow in fp32 if the cumsum spans the whole chunk without re-centering. ",
    "Getting the triangular solve and the decay bookkeeping right without running anything is a lot to get right blind.\n\n",
    "I cannot run check.py in this phase, so correctness has to come from construction. ",
    "A recurrent kernel is a direct transcription of the reference: state in registers, one token per step.",
]
TEXT_1 = [
    "I'll write a recurrent Triton kernel first: one program per (batch*head, 32-column slice of V), ",
    "the K x 32 state kept in registers across the whole sequence, and per token ",
    "decay, delta-rule write and output exactly as reference.py does them.",
]
THOUGHT_2 = [
    "Cost check: per token each program does about 3*K*BLOCK_V FMAs on CUDA cores and reads q, k, g (K each) ",
    "plus a BLOCK_V slice of v. The loop over T is sequential, so parallelism is only B*H*V/32 programs: ",
    "64 programs for shape 0, far below the SM count. It will be slow, likely under one percent of the tensor-core peak, ",
    "but it is correct, and the chunked version can replace the inner loop later.\n\n",
    "Details: g is fp32 log-decay, apply exp(g) per row of S before the read-out of S^T k. ",
    "q is scaled by K**-0.5 like the reference. Output bf16. K must be a power of two for tl.arange: 64 and 128, fine.",
]
TEXT_2 = [
    "\n\nsolution.py is written: `_kda_recurrent` keeps each (b, h) state slice in registers and walks the sequence once; ",
    "`Model.forward` launches it over (V/32, B*H). It follows reference.py operation for operation, so it should pass check.py. ",
    "Expect a low score: the token loop is sequential and only B*H*V/32 programs run. ",
    "The next step would be the chunked WY formulation (64-token chunks, triangular solve, two GEMMs per chunk) on tensor cores. ",
    "I did not run check.py or benchmark.py here; the harness runs them.",
]


def build():
    bench_txt, pf = bench(PROBLEM, BENCH)
    lines = []
    for s in THOUGHT_1:
        lines.append({"type": "thought", "data": s})
    for s in TEXT_1:
        lines.append({"type": "text", "data": s})
    for s in THOUGHT_2:
        lines.append({"type": "thought", "data": s})
    for s in TEXT_2:
        lines.append({"type": "text", "data": s})
    lines.append({"type": "end", "sessionId": SESSION, "stopReason": "EndTurn", "requestId": sid(RUN, "request")})
    final = "".join(TEXT_1) + "".join(TEXT_2)

    d = f"{OUT}/runs/{RUN}"
    write_jsonl(f"{d}/transcript.jsonl", lines)
    write(f"{d}/solution.py", SOL)
    write(f"{d}/check.log", "PASS\n")
    write(f"{d}/benchmark.log", bench_txt)
    write(f"{d}/final.txt", final + "\n")
    write(f"{d}/result.json", result_json(PROBLEM, HARNESS, MODEL, EFFORT, True, True, pf, 912, 0, True, {}))
    return dict(run_id=RUN, harness=HARNESS, model=MODEL, effort=EFFORT, problem=PROBLEM, correct=True,
                has_solution=True, peak_fraction=pf, elapsed_seconds=912, session_complete=True, format="grok",
                files=["transcript.jsonl", "solution.py", "result.json", "check.log", "benchmark.log", "final.txt"],
                bench_rows=BENCH)
