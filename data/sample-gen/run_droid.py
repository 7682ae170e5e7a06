# droid (Factory droid exec stream-json) sample run: 06_sonic_moe_swiglu.
# Story: a grouped Triton GEMM with fused SwiGLU passes; bigger tiles run out
# of shared memory (tool error); the agent lowers num_stages and launches the
# benchmark, and the wall-clock budget ends the session there: no completion
# line, the last tool call has no result.  The harness checked afterwards.
from common import *

RUN = "20260601_110000_droid_sample-model-e_06_sonic_moe_swiglu"
PROBLEM = "06_sonic_moe_swiglu"
MODEL = "sample-model-e"
HARNESS = "droid"
EFFORT = ""
SESSION = sid(RUN, "session")
CWD = pdir(PROBLEM)
SOL = f"{CWD}/solution.py"

REFERENCE = '''"""MoE up-projection reference: loop over experts, SwiGLU in fp32 (correctness only)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

TOKENS, HIDDEN, INTER, EXPERTS, TOP_K = 4096, 2048, 1024, 64, 4


class Model(nn.Module):
    def __init__(self, tokens, hidden, intermediate, experts, top_k):
        super().__init__()
        self.inter = intermediate
        self.w_gate_up = nn.Parameter(torch.randn(experts, hidden, 2 * intermediate, dtype=torch.bfloat16) * 0.02)

    def forward(self, x_sorted, expert_offsets):
        out = torch.empty(x_sorted.shape[0], self.inter, device=x_sorted.device, dtype=torch.bfloat16)
        for e in range(self.w_gate_up.shape[0]):
            lo, hi = int(expert_offsets[e]), int(expert_offsets[e + 1])
            if hi > lo:
                gu = x_sorted[lo:hi].float() @ self.w_gate_up[e].float()
                out[lo:hi] = (F.silu(gu[:, : self.inter]) * gu[:, self.inter :]).to(torch.bfloat16)
        return out


def get_inputs():
    rows = TOKENS * TOP_K
    counts = torch.bincount(torch.randint(0, EXPERTS, (rows,)), minlength=EXPERTS)
    offsets = torch.zeros(EXPERTS + 1, dtype=torch.int32)
    offsets[1:] = torch.cumsum(counts, 0)
    return [torch.randn(rows, HIDDEN, dtype=torch.bfloat16), offsets]


def get_init_inputs():
    return [TOKENS, HIDDEN, INTER, EXPERTS, TOP_K]
'''

SOL_V1 = '''"""MoE up-projection with a fused SwiGLU epilogue (sample solution).

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
        BLOCK_M, BLOCK_N, BLOCK_K, WARPS, STAGES = 64, 64, 64, 4, 3
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
'''

E1_OLD = "        BLOCK_M, BLOCK_N, BLOCK_K, WARPS, STAGES = 64, 64, 64, 4, 3"
E1_NEW = "        BLOCK_M, BLOCK_N, BLOCK_K, WARPS, STAGES = 128, 128, 64, 8, 3"
E2_OLD = E1_NEW
E2_NEW = ("        # two 64x128 weight tiles + one 128x64 x tile = 48 KB per stage; SM120 has 99 KB\n"
          "        BLOCK_M, BLOCK_N, BLOCK_K, WARPS, STAGES = 128, 128, 64, 8, 2")

SOL_V2 = replace_once(SOL_V1, E1_OLD, E1_NEW)
SOL_FINAL = replace_once(SOL_V2, E2_OLD, E2_NEW)

BENCH_V1 = [
    dict(eager=4.912, compiled=4.701, sota=1.302, solution=2.8840),
    dict(eager=1.561, compiled=1.498, sota=0.410, solution=0.8410),
    dict(eager=6.020, compiled=5.733, sota=1.301, solution=2.8460),
]
BENCH_FINAL = [
    dict(eager=4.912, compiled=4.701, sota=1.302, solution=1.8520),
    dict(eager=1.561, compiled=1.498, sota=0.410, solution=0.5310),
    dict(eager=6.020, compiled=5.733, sota=1.301, solution=1.9170),
]


def build():
    bench_v1, pf_v1 = bench(PROBLEM, BENCH_V1)
    bench_final, pf = bench(PROBLEM, BENCH_FINAL)
    lines = []
    clock = [1780311600000]  # 2026-06-01T11:00:00Z
    n = [0]

    def t(ms):
        clock[0] += ms * 13  # the sample compresses a 45-minute session into a few steps
        return clock[0]

    def nid(tag):
        n[0] += 1
        return sid(RUN, f"{tag}{n[0]}")

    cur_msg = [None]

    def say(text, ms=4000):
        cur_msg[0] = nid("msg")
        lines.append({"type": "message", "role": "assistant", "id": cur_msg[0], "text": text, "timestamp": t(ms),
                      "session_id": SESSION})

    def call(name, params, value=None, is_error=False, ms=1500, answered=True):
        call_id = "call_" + b62(RUN, f"call{n[0]}", 24)
        n[0] += 1
        lines.append({"type": "tool_call", "id": call_id, "messageId": cur_msg[0], "toolId": name, "toolName": name,
                      "parameters": params, "timestamp": t(300), "session_id": SESSION})
        if answered:
            lines.append({"type": "tool_result", "id": call_id, "messageId": nid("msg"), "toolId": name,
                          "isError": is_error, "value": value, "timestamp": t(ms), "session_id": SESSION})

    prompt = open(f"{OUT}/problems/{PROBLEM}/PROMPT.txt").read()
    lines.append({"type": "system", "subtype": "init", "cwd": CWD, "session_id": SESSION,
                  "tools": ["Read", "LS", "Execute", "Edit", "Create", "Grep", "Glob", "TodoWrite"],
                  "model": MODEL, "reasoning_effort": "none"})
    lines.append({"type": "message", "role": "user", "id": nid("msg"), "text": prompt, "timestamp": t(0),
                  "session_id": SESSION})
    say("I'll start by reading the reference implementation and listing the problem directory.")
    call("Read", {"file_path": f"{CWD}/reference.py"}, numbered(REFERENCE), ms=200)
    call("LS", {"directory_path": CWD},
         "benchmark.py\ncheck.py\nproblem.yaml\nPROMPT.txt\nreference.py\nshapes.py", ms=100)

    say("Rows are already sorted by expert, so this is a grouped GEMM: for each expert, its rows times a "
        "(hidden x 2*intermediate) weight, then silu(gate) * up. Plan: one Triton launch over a host-built tile "
        "map of (expert, first row) pairs, two fp32 accumulators (gate and up) per tile, SwiGLU applied in the "
        "epilogue so the 2*intermediate intermediate never touches memory.", 9000)
    call("Create", {"file_path": SOL, "content": SOL_V1}, f"File created successfully at {SOL}", ms=300)
    call("Execute", {"command": "python check.py"}, "PASS", ms=52000)
    call("Execute", {"command": "python benchmark.py"}, bench_v1.rstrip("\n"), ms=88000)

    say(f"Correct at {pf_v1:.4f} of bf16 peak. 64x64 tiles with two accumulators re-read the expert's weights "
        "for every 64 rows; 128x128 tiles halve that traffic and give the tensor cores bigger MMAs. Trying "
        "128x128x64 with 8 warps.", 7000)
    call("Edit", {"file_path": SOL, "old_str": E1_OLD, "new_str": E1_NEW}, "File edited successfully.", ms=200)
    oor = (f"Traceback (most recent call last):\n"
           f"  File \"{CWD}/check.py\", line 37, in <module>\n"
           f"    main()\n"
           f"  File \"{SOL}\", line {lineno(SOL_V2, '_moe_up_swiglu[grid](')}, in forward\n"
           f"    _moe_up_swiglu[grid](x_sorted, self.w_gate_up, y, te, tr, expert_offsets,\n"
           f"  File \"{ROOT}/.venv/lib/python3.12/site-packages/triton/compiler/compiler.py\", line 496, in _init_handles\n"
           f"    raise OutOfResources(self.metadata.shared, max_shared, \"shared memory\")\n"
           f"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, Hardware limit: 101376. "
           f"Reducing block sizes or `num_stages` may help.\n"
           f"Exit code: 1")
    call("Execute", {"command": "python check.py && python benchmark.py"}, oor, is_error=True, ms=31000)

    say("Three stages of (128x64 x tile + two 64x128 weight tiles) is 144 KB, over the 99 KB SM120 limit. "
        "Two stages is 96 KB and fits.", 5000)
    call("Edit", {"file_path": SOL, "old_str": E2_OLD, "new_str": E2_NEW}, "File edited successfully.", ms=200)
    call("Execute", {"command": "python check.py && python benchmark.py"}, answered=False)

    d = f"{OUT}/runs/{RUN}"
    write_jsonl(f"{d}/transcript.jsonl", lines)
    write(f"{d}/solution.py", SOL_FINAL)
    write(f"{d}/check.log", "PASS\n")
    write(f"{d}/benchmark.log", bench_final)
    write(f"{d}/result.json", result_json(PROBLEM, HARNESS, MODEL, EFFORT, True, True, pf, 2700, 124, False, {}))
    return dict(run_id=RUN, harness=HARNESS, model=MODEL, effort=EFFORT, problem=PROBLEM, correct=True,
                has_solution=True, peak_fraction=pf, elapsed_seconds=2700, session_complete=False, format="droid",
                files=["transcript.jsonl", "solution.py", "result.json", "check.log", "benchmark.log"],
                bench_rows=BENCH_FINAL)
