# cursor (Cursor CLI stream-json) sample run: 04_kahan_softmax.
# Story: a two-pass online-softmax Triton kernel misses the tight tolerance
# (the shell call fails: a tool error); the agent names both error sources
# (approximate exp, plain fp32 sums), switches to libdevice exp with Kahan-
# compensated lane sums, passes, benchmarks, finishes with a result line.
import difflib

from common import *

RUN = "20260601_120000_cursor_sample-model-g_04_kahan_softmax"
PROBLEM = "04_kahan_softmax"
MODEL = "sample-model-g"
HARNESS = "cursor"
EFFORT = ""
SESSION = sid(RUN, "session")
CWD = pdir(PROBLEM)
SOL = f"{CWD}/solution.py"

REFERENCE = '''"""Softmax reference in float64 (correctness only)."""
import torch
import torch.nn as nn

BATCH, VOCAB = 32, 32000


class Model(nn.Module):
    def __init__(self, batch, vocab):
        super().__init__()

    def forward(self, x):
        return torch.softmax(x.double(), dim=-1).float()


def get_inputs():
    return [torch.randn(BATCH, VOCAB) * 4.0]


def get_init_inputs():
    return [BATCH, VOCAB]
'''

SOL_V1 = '''"""Row softmax for fp32 logits (sample solution).

One program per row, two passes over it: pass 1 keeps a per-lane running
max and running sum of exp (online softmax), then combines the lanes;
pass 2 writes exp(x - max) / sum.
"""
import torch
import torch.nn as nn
import triton
import triton.language as tl

BATCH, VOCAB = 32, 32000


@triton.jit
def _softmax_row(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n
    y_row = y_ptr + row * n
    offs = tl.arange(0, BLOCK)

    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        x = tl.load(x_row + start + offs, mask=start + offs < n, other=float("-inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)

    for start in range(0, n, BLOCK):
        mask = start + offs < n
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offs, tl.exp(x - row_max) / total, mask=mask)


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
'''

OLD = '''    m = tl.full((BLOCK,), float("-inf"), tl.float32)
    s = tl.zeros((BLOCK,), tl.float32)
    for start in range(0, n, BLOCK):
        x = tl.load(x_row + start + offs, mask=start + offs < n, other=float("-inf"))
        m_new = tl.maximum(m, x)
        s = s * tl.exp(m - m_new) + tl.exp(x - m_new)
        m = m_new
    row_max = tl.max(m, axis=0)
    total = tl.sum(s * tl.exp(m - row_max), axis=0)

    for start in range(0, n, BLOCK):
        mask = start + offs < n
        x = tl.load(x_row + start + offs, mask=mask, other=float("-inf"))
        tl.store(y_row + start + offs, tl.exp(x - row_max) / total, mask=mask)
'''
NEW = '''    # Per lane: running max m, Kahan pair (s, c) for the sum of exp(x - m).
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
'''
IMP_OLD = "import triton.language as tl\n"
IMP_NEW = "import triton.language as tl\nfrom triton.language.extra.cuda import libdevice\n"

SOL_FINAL = replace_once(replace_once(SOL_V1, OLD, NEW), IMP_OLD, IMP_NEW)

BENCH = [
    dict(eager=0.0712, compiled=0.0391, sota=0.0688, solution=0.0231),
    dict(eager=0.0735, compiled=0.0402, sota=0.0710, solution=0.0412),
    dict(eager=0.0351, compiled=0.0178, sota=0.0322, solution=0.0062),
    dict(eager=0.0790, compiled=0.0463, sota=0.0761, solution=0.0752),
]


def build():
    bench_txt, pf = bench(PROBLEM, BENCH)
    lines = []
    clock = [1780315200000]  # 2026-06-01T12:00:00Z
    calls = [0]

    def t(ms):
        clock[0] += ms
        return clock[0]

    def think(chunks):
        for ch in chunks:
            lines.append({"type": "thinking", "subtype": "delta", "text": ch, "session_id": SESSION, "timestamp_ms": t(9000)})
        lines.append({"type": "thinking", "subtype": "completed", "session_id": SESSION, "timestamp_ms": t(50)})

    said = []

    def say(text):
        said.append(text)
        lines.append({"type": "assistant", "message": {"role": "assistant", "content": [{"type": "text", "text": text}]},
                      "session_id": SESSION, "timestamp_ms": t(1200)})

    def tool(kind, args, result, ms):
        calls[0] += 1
        cid = "toolu_" + b62(RUN, f"call{calls[0]}", 24)
        lines.append({"type": "tool_call", "subtype": "started", "call_id": cid, "tool_call": {kind: {"args": args}},
                      "session_id": SESSION, "timestamp_ms": t(300)})
        lines.append({"type": "tool_call", "subtype": "completed", "call_id": cid,
                      "tool_call": {kind: {"args": args, "result": result}}, "session_id": SESSION, "timestamp_ms": t(ms)})

    def shell(cmd, stdout, code, ms):
        args = {"command": cmd, "workingDirectory": CWD, "timeout": 600000}
        body = {"command": cmd, "workingDirectory": CWD, "exitCode": code, "signal": "", "stdout": stdout,
                "stderr": "", "executionTime": ms}
        tool("shellToolCall", args, {"success" if code == 0 else "failure": body}, ms)

    prompt = open(f"{OUT}/problems/{PROBLEM}/PROMPT.txt").read()
    lines.append({"type": "system", "subtype": "init", "apiKeySource": "login", "cwd": CWD, "session_id": SESSION,
                  "model": MODEL, "permissionMode": "default"})
    lines.append({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": prompt}]},
                  "session_id": SESSION})
    think(["Softmax is memory-bound: read x, write y, so the floor is two passes of 4 bytes per element each way. ",
           "The catch is the tolerance, rtol 2e-6 against a float64 reference. ",
           "Let me see exactly what the reference does before choosing the summation."])
    say("Reading the reference first.")
    n_ref = len(REFERENCE.rstrip("\n").split("\n"))
    tool("readToolCall", {"path": f"{CWD}/reference.py"},
         {"success": {"content": REFERENCE, "isEmpty": False, "exceededLimit": False, "totalLines": n_ref,
                      "totalChars": len(REFERENCE)}}, 60)
    think(["float64 softmax of randn * 4, so logits span about +-20 and exp(x - max) covers many orders of magnitude. ",
           "Plan: one program per row, 4096 lanes, online max and sum per lane, then combine lanes, then a second pass to write. ",
           "Start with plain fp32 sums and see how far off it is."])
    say("Writing a two-pass online-softmax Triton kernel, one program per row.")
    tool("writeToolCall", {"path": SOL, "fileText": SOL_V1, "toolCallId": "toolu_" + b62(RUN, "call2", 24)},
         {"success": {"path": SOL, "linesCreated": len(SOL_V1.rstrip("\n").split("\n")), "fileSize": len(SOL_V1.encode())}}, 80)
    fail = "FAIL: shape 1 {'batch': 8, 'vocab': 131072} seed 42: tolerance exceeded: max_rel_diff=7.93e-06 (atol=1e-08, rtol=2e-06)\n"
    shell("python check.py", fail, 1, 33400)
    think(["Shape 0 passed, shape 1 (131072 wide) is 4x over rtol. Two error sources, both in fp32: ",
           "tl.exp lowers to ex2.approx after a multiply by log2(e), and for arguments near -20 the rounding of that product alone is around 1e-6 relative; ",
           "and each lane adds 32 to 64 terms of very different size into a plain running sum, then 4096 lanes are tree-summed. ",
           "Fix both: libdevice exp for the accurate expf, and a Kahan pair (s, c) per lane, rescaling c together with s when the max moves. ",
           "Combine lanes as sum((s - c) * exp(m - max))."])
    say("The error comes from the fast exp and the uncompensated fp32 sums. Switching to libdevice exp with Kahan-compensated lane sums.")
    sol_mid = replace_once(SOL_V1, OLD, NEW)
    diff = "".join(difflib.unified_diff(SOL_V1.splitlines(True), SOL_FINAL.splitlines(True), "a/solution.py", "b/solution.py"))
    added = sum(1 for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++"))
    removed = sum(1 for l in diff.splitlines() if l.startswith("-") and not l.startswith("---"))
    assert sol_mid != SOL_FINAL
    tool("editToolCall", {"path": SOL, "streamContent": SOL_FINAL},
         {"success": {"path": SOL, "linesAdded": added, "linesRemoved": removed, "diffString": diff,
                      "beforeFullFileContent": SOL_V1, "afterFullFileContent": SOL_FINAL}}, 120)
    shell("python check.py", "PASS\n", 0, 35100)
    shell("python benchmark.py", bench_txt, 0, 64800)
    final = (f"solution.py: a Triton row softmax, one program per row, two passes. Pass 1 keeps a per-lane running max "
             f"and a Kahan-compensated sum of exp (libdevice expf, not the approximate tl.exp); lanes are combined with "
             f"their compensation terms; pass 2 writes exp(x - max) / sum.\n\n"
             f"check.py: PASS (the uncompensated version failed shape 1 at max_rel_diff 7.9e-06). "
             f"benchmark.py: peak_fraction {pf:.4f}. The 8-row and 4-row shapes are held back by one program per row; "
             f"splitting long rows across several programs with a small second reduction is the next step.")
    say(final)
    lines.append({"type": "result", "subtype": "success", "duration_ms": clock[0] - 1780315200000 + 5000,
                  "duration_api_ms": clock[0] - 1780315200000 + 5000, "is_error": False, "result": "".join(said),
                  "session_id": SESSION, "request_id": sid(RUN, "request"),
                  "usage": {"inputTokens": 48210, "outputTokens": 5120, "cacheReadTokens": 201344, "cacheWriteTokens": 18432}})

    d = f"{OUT}/runs/{RUN}"
    write_jsonl(f"{d}/transcript.jsonl", lines)
    write(f"{d}/solution.py", SOL_FINAL)
    write(f"{d}/check.log", "PASS\n")
    write(f"{d}/benchmark.log", bench_txt)
    write(f"{d}/final.txt", final + "\n")
    elapsed = int((clock[0] - 1780315200000) / 1000) + 5
    write(f"{d}/result.json", result_json(PROBLEM, HARNESS, MODEL, EFFORT, True, True, pf, elapsed, 0, True,
                                          dict(input_tokens=48210, output_tokens=5120, cache_read_tokens=201344,
                                               cache_creation_tokens=18432, reasoning_tokens=None, total_cost_usd=None)))
    return dict(run_id=RUN, harness=HARNESS, model=MODEL, effort=EFFORT, problem=PROBLEM, correct=True,
                has_solution=True, peak_fraction=pf, elapsed_seconds=elapsed, session_complete=True, format="cursor",
                files=["transcript.jsonl", "solution.py", "result.json", "check.log", "benchmark.log", "final.txt"],
                bench_rows=BENCH)
