# gemini (Gemini CLI --output-format stream-json) sample run: 05_topk_bitonic
# on the sample's second GPU (an H100 PCIe board).  Story: the agent reads the
# reference, writes a one-pass per-row top-k in Triton, check.py fails (one
# shape's row length, 10000, is not a power of two, which tl.arange needs),
# the agent rounds the block up and masks the tail, check passes, the
# benchmark is memory
# bound at a small fraction of DRAM bandwidth.  The answer streams in pieces
# (delta: true) that kbtui joins; the result record carries the tokens.
from common import *

RUN = "20260602_090000_gemini_sample-model-h_05_topk_bitonic"
PROBLEM = "05_topk_bitonic"
MODEL = "sample-model-h"
HARNESS = "gemini"
EFFORT = ""
SESSION = sid(RUN, "session")
H100_GBPS = 2039.0

SOL_1 = '''"""Top-k per row: one program sorts a row and keeps its first k (sample solution)."""
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _topk_row(x_ptr, v_ptr, i_ptr, n, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n + offs, mask=offs < n, other=float("-inf"))
    vals = tl.sort(x, descending=True)
    tl.store(v_ptr + row * K + offs, vals, mask=offs < K)   # the first K of the sorted row


class Model(nn.Module):
    def __init__(self, batch, n, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        b, n = x.shape
        v = torch.empty(b, self.k, device=x.device, dtype=x.dtype)
        i = torch.empty(b, self.k, device=x.device, dtype=torch.int64)
        _topk_row[(b,)](x, v, i, n, K=self.k, BLOCK=n)
        return v, i
'''

OLD = "        _topk_row[(b,)](x, v, i, n, K=self.k, BLOCK=n)\n"
NEW = ("        # tl.arange needs a power of two: the tail is masked to -inf\n"
       "        _topk_row[(b,)](x, v, i, n, K=self.k, BLOCK=triton.next_power_of_2(n))\n")
SOL_2 = SOL_1.replace(OLD, NEW)

BENCH = [
    dict(eager=0.0301, compiled=0.0540, sota=0.0296, solution=0.0262),
    dict(eager=0.0322, compiled=0.0581, sota=0.0311, solution=0.0240),
    dict(eager=0.0305, compiled=0.0552, sota=0.0299, solution=0.0229),
    dict(eager=0.0160, compiled=0.0440, sota=0.0157, solution=0.0198),
]

CHECK_FAIL = ("shape 0 ok\nshape 1 ok\nTraceback (most recent call last):\n  File \"check.py\", line 41, in <module>\n"
              "triton.compiler.errors.CompilationError: at 3:11: arange's range must be a power of 2\n"
              "FAIL shape 2 (n=10000)\n")


def write_detail(pf, elapsed):
    """rundetail/<run>.json in the shape the publisher's site gives a run:
    per shape time, TFLOPS, GB/s, fraction, utilisation, bound; the stats."""
    p = PROBLEMS[PROBLEM]
    shapes = []
    for i, (shape, ms) in enumerate(zip(p["shapes"], BENCH)):
        t = ms["solution"] * 1e-3
        tf, gb = p["flops"](shape) / t / 1e12, p["bytes"](shape) / t / 1e9
        shapes.append({"idx": i, "tflops": round(tf, 3), "gbps": round(gb, 3), "ms": ms["solution"],
                       "frac": round(gb / H100_GBPS, 4), "label": "x".join(str(x) for x in (shape.values() if isinstance(shape, dict) else shape)),
                       "compute_util": round(tf / 51.2, 4), "mem_util": round(gb / H100_GBPS, 4),
                       "bound": "memory", "util": round(gb / H100_GBPS, 4)})
    d = {"_note": "SAMPLE per-run detail written for kbtui: invented numbers, the site's layout.",
         "run_id": RUN, "bench": "hard", "gpu": "h100", "problem": PROBLEM, "harness": HARNESS, "model": MODEL,
         "regime": "memory", "dtype": "fp32", "peak_tflops": 51.2, "peak_bw_gb_s": H100_GBPS, "correct": True,
         "failure_reason": "pass", "peak_fraction": pf, "annotation_verdict": None,
         "stats": {"agent_s": elapsed, "total_s": elapsed + 40, "check_s": 12, "benchmark_s": 28,
                   "output_tokens": 3120, "input_tokens": 41870, "cost_usd": 0.41, "template_mutated": False},
         "gpu_lock": {"wait_s": 5, "active_s": 35, "acquisitions": 3},
         "shapes": shapes}
    write(f"{OUT}/rundetail/{RUN}.json", json.dumps(d, indent=2) + "\n")


def build():
    bench_txt, pf = bench(PROBLEM, BENCH, peak_gbps=H100_GBPS)
    t = [0.0]

    def ts():
        t[0] += 7.5
        return f"2026-06-02T09:{int(t[0]) // 60:02d}:{t[0] % 60:06.3f}Z"

    lines = [{"type": "init", "timestamp": ts(), "session_id": SESSION, "model": MODEL},
             {"type": "message", "timestamp": ts(), "role": "user",
              "content": "Write solution.py for 05_topk_bitonic (PROMPT.txt has the task); check.py must pass."}]

    def say(pieces):
        for p in pieces:
            lines.append({"type": "message", "timestamp": ts(), "role": "assistant", "content": p, "delta": True})

    n = [0]

    def call(name, params, status, output, error=None):
        n[0] += 1
        tid = f"{name}-{sid(RUN, str(n[0]))[:8]}"
        lines.append({"type": "tool_use", "timestamp": ts(), "tool_name": name, "tool_id": tid, "parameters": params})
        r = {"type": "tool_result", "timestamp": ts(), "tool_id": tid, "status": status, "output": output}
        if error:
            r["error"] = {"type": "execution_failed", "message": error}
        lines.append(r)

    say(["I'll read the reference ", "and the shapes first."])
    call("read_file", {"file_path": "reference.py"}, "success", "torch.topk(x, k, dim=-1) ... (reference)")
    call("read_file", {"file_path": "shapes.json"}, "success", json.dumps(PROBLEMS[PROBLEM]["shapes"]))
    say(["One program per row: load the row, ", "tl.sort it descending, keep the first k."])
    call("write_file", {"file_path": "solution.py", "content": SOL_1}, "success", "Successfully wrote solution.py")
    call("run_shell_command", {"command": "python check.py"}, "error", CHECK_FAIL,
         "Command exited with code 1")
    say(["n=10000 is not a power of two: ", "I'll round the block up and let the mask fill the tail with -inf."])
    call("replace", {"file_path": "solution.py", "old_string": OLD, "new_string": NEW},
         "success", "Successfully modified file: solution.py (1 replacements).")
    call("run_shell_command", {"command": "python check.py"}, "success", "PASS\n")
    call("run_shell_command", {"command": "python benchmark.py"}, "success", bench_txt)
    say(["check.py passes. ", f"peak_fraction {pf:.4f} of the H100's DRAM bandwidth: ",
         "memory bound, one pass over each row."])
    lines.append({"type": "result", "timestamp": ts(), "status": "success",
                  "stats": {"total_tokens": 48210, "input_tokens": 41870, "output_tokens": 3120, "cached": 30500,
                            "input": 11370, "duration_ms": int(t[0] * 1000), "tool_calls": 7,
                            "models": {MODEL: {"total_tokens": 48210, "input_tokens": 41870, "output_tokens": 3120,
                                               "cached": 30500, "input": 11370}}}})
    final = f"check.py passes. peak_fraction {pf:.4f} of the H100's DRAM bandwidth: memory bound, one pass over each row."

    d = f"{OUT}/runs/{RUN}"
    write_jsonl(f"{d}/transcript.jsonl", lines)
    write(f"{d}/solution.py", SOL_2)
    write(f"{d}/check.log", "PASS\n")
    write(f"{d}/benchmark.log", bench_txt)
    write(f"{d}/final.txt", final + "\n")
    write(f"{d}/result.json", result_json(PROBLEM, HARNESS, MODEL, EFFORT, True, True, pf, int(t[0]), 0, True,
                                          {"input_tokens": 11370, "output_tokens": 3120, "cache_read_tokens": 30500}))
    write_detail(pf, int(t[0]))
    return dict(run_id=RUN, harness=HARNESS, model=MODEL, effort=EFFORT, problem=PROBLEM, correct=True,
                has_solution=True, peak_fraction=pf, elapsed_seconds=int(t[0]), session_complete=True, format="gemini",
                files=["transcript.jsonl", "solution.py", "result.json", "check.log", "benchmark.log", "final.txt"],
                bench_rows=BENCH, gpu="h100", gbps=H100_GBPS)
