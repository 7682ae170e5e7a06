# claude (Claude Code stream-json) sample run: 03_paged_attention.
# Story: an Explore subagent maps the harness, a first Triton kernel fails to
# compile (tl.dot needs 16 rows, a GQA group has 4 or 8: a tool error), the
# agent switches to CUDA-core reductions, passes, tunes pipelining, finishes.
from common import *

RUN = "20260601_090000_claude_sample-model-a_03_paged_attention"
PROBLEM = "03_paged_attention"
MODEL = "sample-model-a"
HARNESS = "claude"
EFFORT = "high"
SESSION = sid(RUN, "session")
CWD = ROOT
SOL = f"{pdir(PROBLEM)}/solution.py"

REFERENCE = '''"""Paged attention decode: slow PyTorch reference, for correctness only."""
import math

import torch
import torch.nn as nn

BATCH, NUM_HEADS, NUM_KV_HEADS, HEAD_DIM, SEQ_LEN, PAGE_SIZE = 8, 32, 8, 128, 1024, 16


class Model(nn.Module):
    def __init__(self, batch, num_heads, num_kv_heads, head_dim, seq_len, page_size):
        super().__init__()
        self.num_heads, self.num_kv_heads = num_heads, num_kv_heads
        self.head_dim, self.page_size = head_dim, page_size
        self.scale = 1.0 / math.sqrt(head_dim)

    def forward(self, query, k_cache, v_cache, block_table, seq_lens):
        group = self.num_heads // self.num_kv_heads
        out = torch.empty_like(query)
        for b in range(query.shape[0]):
            n = int(seq_lens[b])
            pages = block_table[b, : (n + self.page_size - 1) // self.page_size].long()
            k = k_cache[pages].reshape(-1, self.num_kv_heads, self.head_dim)[:n]
            v = v_cache[pages].reshape(-1, self.num_kv_heads, self.head_dim)[:n]
            k = k.float().repeat_interleave(group, dim=1)  # (n, H, D)
            v = v.float().repeat_interleave(group, dim=1)
            s = torch.einsum("hd,nhd->hn", query[b].float(), k) * self.scale
            out[b] = torch.einsum("hn,nhd->hd", s.softmax(-1), v).to(query.dtype)
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
'''

CHECK = '''"""Correctness gate: every shape, three seeds, tolerance from problem.yaml."""
import sys

import torch
import yaml

import reference
import shapes
import solution
from src.eval.correctness import compare, forbidden_ops


def main():
    meta = yaml.safe_load(open("problem.yaml"))
    bad = forbidden_ops(open("solution.py").read(), meta.get("forbidden", []))
    if bad:
        print(f"FAIL: forbidden op used: {bad[0]}")
        sys.exit(1)
    for i, shape in enumerate(shapes.SHAPES):
        for seed in (42, 43, 44):
            torch.manual_seed(seed)
            reference.__dict__.update({k.upper(): v for k, v in shape.items()})
            inputs = [t.cuda() for t in reference.get_inputs()]
            init = reference.get_init_inputs()
            ref = reference.Model(*init).cuda()
            sol = solution.Model(*init).cuda()
            sol.load_state_dict(ref.state_dict())
            ok, msg = compare(ref(*inputs), sol(*inputs), meta["tolerance"])
            if not ok:
                print(f"FAIL: shape {i} {shape} seed {seed}: {msg}")
                sys.exit(1)
    print("PASS")


if __name__ == "__main__":
    main()
'''

SOL_V1 = '''"""Paged-attention decode, one query token per sequence (Triton).

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
        s = tl.dot(q, tl.trans(k))                      # (GROUP, PAGE)
        s = tl.where(valid[None, :], s, float("-inf"))
        m_new = tl.maximum(m, tl.max(s, axis=1))
        alpha = tl.exp(m - m_new)
        pr = tl.exp(s - m_new[:, None])
        l = l * alpha + tl.sum(pr, axis=1)
        acc = acc * alpha[:, None] + tl.dot(pr, v)      # (GROUP, D)
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
            num_warps=4,
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
'''

EDIT1_OLD = '''        s = tl.dot(q, tl.trans(k))                      # (GROUP, PAGE)
'''
EDIT1_NEW = '''        # GROUP is 4 or 8, below tl.dot's 16-row minimum; decode is bound by
        # the K/V stream anyway, so reduce on CUDA cores instead of padding.
        s = tl.sum(q[:, None, :] * k[None, :, :], axis=2)  # (GROUP, PAGE)
'''
EDIT1B_OLD = '''        acc = acc * alpha[:, None] + tl.dot(pr, v)      # (GROUP, D)
'''
EDIT1B_NEW = '''        acc = acc * alpha[:, None] + tl.sum(pr[:, :, None] * v[None, :, :], axis=1)
'''
EDIT2_OLD = '''            num_warps=4,
'''
EDIT2_NEW = '''            num_warps=4, num_stages=3,  # prefetch the next page while reducing this one
'''

SOL_V2 = replace_once(replace_once(SOL_V1, EDIT1_OLD, EDIT1_NEW), EDIT1B_OLD, EDIT1B_NEW)
SOL_FINAL = replace_once(SOL_V2, EDIT2_OLD, EDIT2_NEW)

COMPILE_ERR = f'''Exit code 1
Traceback (most recent call last):
  File "{pdir(PROBLEM)}/check.py", line 37, in <module>
    main()
  File "{pdir(PROBLEM)}/check.py", line 28, in main
    ok, msg = compare(ref(*inputs), sol(*inputs), meta["tolerance"])
                                    ^^^^^^^^^^^^
  File "{ROOT}/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1775, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "{ROOT}/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py", line 1786, in _call_impl
    return forward_call(*args, **kwargs)
  File "{SOL}", line {lineno(SOL_V1, "_decode_kernel[grid](")}, in forward
    _decode_kernel[grid](
  File "{ROOT}/.venv/lib/python3.12/site-packages/triton/runtime/jit.py", line 419, in <lambda>
    return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)
  File "{ROOT}/.venv/lib/python3.12/site-packages/triton/compiler/compiler.py", line 300, in compile
    module = src.make_ir(options, codegen_fns, module_map, context)
triton.compiler.errors.CompilationError: at {lineno(SOL_V1, "s = tl.dot(q") - lineno(SOL_V1, "def _decode_kernel") + 1}:12:
        off = ((block * PAGE + slot) * HKV + kvh)[:, None] * D + d[None, :]
        k = tl.load(k_ptr + off, mask=valid[:, None], other=0.0).to(tl.float32)
        v = tl.load(v_ptr + off, mask=valid[:, None], other=0.0).to(tl.float32)
        s = tl.dot(q, tl.trans(k))                      # (GROUP, PAGE)
            ^
AssertionError('Input shapes should have M >= 16, N >= 16 and K >= 16')'''

BENCH_ROWS_V2 = [
    dict(eager=9.512, compiled=1.204, sota=0.0512, solution=0.0861),
    dict(eager=71.30, compiled=9.114, sota=0.4410, solution=0.6630),
    dict(eager=8.905, compiled=2.210, sota=0.0905, solution=0.2475),
    dict(eager=15.62, compiled=1.331, sota=0.0300, solution=0.0562),
]
BENCH_ROWS_FINAL = [
    dict(eager=9.512, compiled=1.204, sota=0.0512, solution=0.0702),
    dict(eager=71.30, compiled=9.114, sota=0.4410, solution=0.5521),
    dict(eager=8.905, compiled=2.210, sota=0.0905, solution=0.2024),
    dict(eager=15.62, compiled=1.331, sota=0.0300, solution=0.0468),
]


def build():
    bench_v2, pf_v2 = bench(PROBLEM, BENCH_ROWS_V2)
    bench_final, pf = bench(PROBLEM, BENCH_ROWS_FINAL)
    lines = []
    n = [0]

    def uuid():
        n[0] += 1
        return sid(RUN, f"uuid{n[0]}")

    def asst(msg, block, usage, parent=None):
        lines.append({"type": "assistant", "message": {
            "id": "msg_01" + b62(RUN, msg, 22), "type": "message", "role": "assistant", "model": MODEL,
            "content": [block], "stop_reason": None, "stop_sequence": None, "usage": usage},
            "parent_tool_use_id": parent, "session_id": SESSION, "uuid": uuid()})

    def result(tool_id, content, parent=None, is_error=False):
        blk = {"tool_use_id": tool_id, "type": "tool_result", "content": content}
        if is_error:
            blk["is_error"] = True
        lines.append({"type": "user", "message": {"role": "user", "content": [blk]},
                      "parent_tool_use_id": parent, "session_id": SESSION, "uuid": uuid()})

    def tid(name):
        return "toolu_01" + b62(RUN, name, 22)

    def use(name, i, **inp):
        return {"type": "tool_use", "id": tid(i), "name": name, "input": inp}

    def think(text):
        return {"type": "thinking", "thinking": text, "signature": "c2FtcGxlLXNpZ25hdHVyZS1ub3QtcmVhbA=="}

    def u(inp, cw, cr, out):
        return {"input_tokens": inp, "cache_creation_input_tokens": cw, "cache_read_input_tokens": cr, "output_tokens": out}

    lines.append({"type": "system", "subtype": "init", "cwd": CWD, "session_id": SESSION,
                  "tools": ["Agent", "Bash", "Edit", "Glob", "Grep", "Read", "TodoWrite", "Write"],
                  "mcp_servers": [], "model": MODEL, "permissionMode": "bypassPermissions",
                  "apiKeySource": "none", "claude_code_version": "2.1.0-sample", "uuid": uuid()})

    u1 = u(6, 14210, 11820, 412)
    asst("m1", think("Decode attention: one query token per sequence, so the whole cost is streaming K and V "
                     "out of the paged cache once. With GQA the right unit of work is (sequence, kv head): all "
                     "query heads of a group reuse the same page. Before writing anything I want the exact "
                     "cache layout, the tolerance and how check.py builds inputs. An Explore agent can read "
                     "the harness while I plan the kernel."), u1)
    agent = use("Agent", "agent", description="Map the 03_paged_attention harness", subagent_type="Explore",
                prompt=("In problems/03_paged_attention read reference.py and check.py and report: the KV cache "
                        "layout and dtypes, how block_table and seq_lens are built, the tolerance, the forbidden "
                        "ops, and which Triton version is installed. Keep it short."))
    asst("m1", agent, u1)
    task_id = hexid(RUN, "task", 17)
    lines.append({"type": "system", "subtype": "task_started", "task_id": task_id, "tool_use_id": agent["id"],
                  "description": "Map the 03_paged_attention harness", "task_type": "local_agent",
                  "session_id": SESSION, "uuid": uuid()})
    lines.append({"type": "user", "message": {"role": "user", "content": [{"type": "text", "text": agent["input"]["prompt"]}]},
                  "parent_tool_use_id": agent["id"], "session_id": SESSION, "uuid": uuid()})
    r1 = use("Read", "sub-read-ref", file_path=f"{pdir(PROBLEM)}/reference.py")
    asst("s1", r1, u(3, 2210, 9050, 61), agent["id"])
    result(r1["id"], numbered(REFERENCE, "claude"), agent["id"])
    r2 = use("Read", "sub-read-check", file_path=f"{pdir(PROBLEM)}/check.py")
    asst("s2", r2, u(1, 1480, 11260, 58), agent["id"])
    result(r2["id"], numbered(CHECK, "claude"), agent["id"])
    r3 = use("Bash", "sub-triton", command="python -c 'import torch, triton; print(torch.__version__, triton.__version__)'",
             description="Report torch and Triton versions")
    asst("s3", r3, u(1, 940, 12740, 49), agent["id"])
    result(r3["id"], "2.9.1+cu130 3.5.1", agent["id"])
    summary = ("Findings for problems/03_paged_attention:\n\n"
               "- Caches: k_cache and v_cache are separate tensors (num_blocks, page_size, num_kv_heads, head_dim), bf16. "
               "Token t of sequence b lives in page block_table[b, t // page_size], slot t % page_size.\n"
               "- block_table is (batch, max_pages) int32 filled from a random permutation, so pages are scattered. "
               "seq_lens is int32; shape 3 uses seq_len 1537, which ends mid-page, so the last page needs a mask.\n"
               "- GQA: num_heads / num_kv_heads is 4 or 8 across shapes.json; head_dim is 64 or 128.\n"
               "- Tolerance 0.02 abs/rel on bf16 (problem.yaml). Forbidden: scaled_dot_product_attention, vllm, flashinfer.\n"
               "- check.py copies the reference state_dict into the solution (there are no parameters) and compares "
               "three seeds per shape.\n"
               "- torch 2.9.1+cu130, Triton 3.5.1.")
    asst("s4", {"type": "text", "text": summary}, u(1, 520, 13680, 233), agent["id"])
    lines.append({"type": "system", "subtype": "task_notification", "task_id": task_id, "tool_use_id": agent["id"],
                  "status": "completed", "summary": "Map the 03_paged_attention harness", "session_id": SESSION, "uuid": uuid()})
    result(agent["id"], [{"type": "text", "text": summary}])

    u2 = u(1, 3120, 26030, 2875)
    asst("m2", think("Plan: grid (batch, num_kv_heads). Load the GROUP query rows once, scaled. Loop over "
                     "ceil(seq_len / PAGE) pages: look the page up in block_table, load a (PAGE, D) tile of K and V "
                     "for this kv head (row stride HKV*D), scores = q @ k^T, masked past seq_len, then the usual "
                     "online-softmax rescale of acc and l. Bytes per program are exactly the group's K/V, which is "
                     "the floor. Start simple, get PASS, then look at occupancy: shape 2 only has 4*8 = 32 programs."), u2)
    asst("m2", {"type": "text", "text": "The harness is clear. Writing a first Triton kernel: one program per (sequence, KV head), online softmax over pages."}, u2)
    w = use("Write", "write", file_path=SOL, content=SOL_V1)
    asst("m2", w, u2)
    result(w["id"], f"File created successfully at: {SOL}")

    c1 = use("Bash", "check1", command=f"cd {pdir(PROBLEM)} && python check.py", description="Run the correctness check")
    asst("m3", c1, u(1, 2960, 29150, 96))
    result(c1["id"], COMPILE_ERR, is_error=True)

    u4 = u(1, 1310, 32110, 688)
    asst("m4", think("tl.dot wants M >= 16 and my M is GROUP = 4 or 8. Padding the group to 16 rows would work "
                     "but wastes half or more of every MMA. This kernel is bandwidth-bound: per page it does "
                     "GROUP*PAGE*D multiply-adds on a 2*PAGE*D*2-byte load, a few FLOPs per byte, far below the "
                     "CUDA-core roofline. So replace both dots with broadcast-multiply-and-reduce."), u4)
    e1 = use("Edit", "edit1", file_path=SOL, old_string=EDIT1_OLD.rstrip("\n"), new_string=EDIT1_NEW.rstrip("\n"), replace_all=False)
    asst("m4", e1, u4)
    result(e1["id"], f"The file {SOL} has been updated successfully.")
    e1b = use("Edit", "edit1b", file_path=SOL, old_string=EDIT1B_OLD.rstrip("\n"), new_string=EDIT1B_NEW.rstrip("\n"), replace_all=False)
    asst("m4b", e1b, u(1, 402, 33420, 131))
    result(e1b["id"], f"The file {SOL} has been updated successfully.")

    c2 = use("Bash", "check2", command=f"cd {pdir(PROBLEM)} && python check.py", description="Re-run the correctness check")
    asst("m5", c2, u(1, 388, 33822, 90))
    result(c2["id"], "PASS")
    b1 = use("Bash", "bench1", command=f"cd {pdir(PROBLEM)} && python benchmark.py", description="Benchmark all shapes")
    asst("m6", b1, u(1, 95, 34210, 88))
    result(b1["id"], bench_v2.rstrip("\n"))

    u7 = u(1, 1702, 34305, 903)
    asst("m7", think(f"{pf_v2:.4f} of bandwidth. Per shape it is fairly even, so this is not only the 32-program "
                     "shape. Each iteration issues the block_table load, then the K/V loads that depend on it, "
                     "then reduces: with num_stages=1 nothing overlaps the dependent load latency. Triton can "
                     "software-pipeline this loop (the page index load is hoisted by the pipeliner), so try "
                     "num_stages=3 before restructuring into split-sequence programs."), u7)
    e2 = use("Edit", "edit2", file_path=SOL, old_string=EDIT2_OLD.rstrip("\n"), new_string=EDIT2_NEW.rstrip("\n"), replace_all=False)
    asst("m7", e2, u7)
    result(e2["id"], f"The file {SOL} has been updated successfully.")
    b2 = use("Bash", "bench2", command=f"cd {pdir(PROBLEM)} && python check.py && python benchmark.py",
             description="Check and benchmark the pipelined version")
    asst("m8", b2, u(1, 340, 36007, 104))
    result(b2["id"], "PASS\n" + bench_final.rstrip("\n"))

    final = (f"solution.py is done: a Triton paged-attention decode kernel, one program per (sequence, KV head) so "
             f"each K/V page is streamed once for its whole GQA group, online softmax in fp32, masked tail page.\n\n"
             f"- check.py: PASS on all 4 shapes.\n"
             f"- benchmark.py: peak_fraction {pf:.4f} (was {pf_v2:.4f} before pipelining the page loop with num_stages=3).\n\n"
             f"Not done: splitting long sequences across programs (flash-decoding style) would help the 32-program shape most.")
    asst("m9", {"type": "text", "text": final}, u(1, 610, 36347, 188))
    lines.append({"type": "result", "subtype": "success", "is_error": False, "duration_ms": 1262000,
                  "duration_api_ms": 1131000, "num_turns": 14, "result": final, "session_id": SESSION,
                  "total_cost_usd": 1.8421, "usage": {"input_tokens": 27, "cache_creation_input_tokens": 34111,
                                                      "cache_read_input_tokens": 391560, "output_tokens": 6261},
                  "uuid": uuid()})

    d = f"{OUT}/runs/{RUN}"
    write_jsonl(f"{d}/transcript.jsonl", lines)
    write(f"{d}/solution.py", SOL_FINAL)
    write(f"{d}/check.log", "PASS\n")
    write(f"{d}/benchmark.log", bench_final)
    write(f"{d}/final.txt", final + "\n")
    write(f"{d}/result.json", result_json(PROBLEM, HARNESS, MODEL, EFFORT, True, True, pf, 1262, 0, True,
                                          dict(input_tokens=27, output_tokens=6261, cache_read_tokens=391560,
                                               cache_creation_tokens=34111, reasoning_tokens=None, total_cost_usd=1.8421)))
    return dict(run_id=RUN, harness=HARNESS, model=MODEL, effort=EFFORT, problem=PROBLEM, correct=True,
                has_solution=True, peak_fraction=pf, elapsed_seconds=1262, session_complete=True, format="claude",
                files=["transcript.jsonl", "solution.py", "result.json", "check.log", "benchmark.log", "final.txt"],
                bench_rows=BENCH_ROWS_FINAL)
