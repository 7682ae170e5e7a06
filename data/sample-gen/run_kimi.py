# kimi (Kimi CLI stream-json) sample run: 05_topk_bitonic.
# Story: chunked bitonic top-k in CUDA; a Python traceback (wrong pybind call),
# then a correctness failure on the one shape whose n is not a multiple of the
# chunk (the host drops the partial last chunk).  The agent chases ties
# instead, and ends with a solution that still fails check.py.
from common import *

RUN = "20260601_103000_kimi_sample-model-d_05_topk_bitonic"
PROBLEM = "05_topk_bitonic"
MODEL = "sample-model-d"
HARNESS = "kimi"
EFFORT = ""
CWD = pdir(PROBLEM)
SOL = f"{CWD}/solution.py"

REFERENCE = '''"""Top-k reference (correctness only): torch.topk, largest first."""
import torch
import torch.nn as nn

BATCH, N, K = 1, 65536, 32


class Model(nn.Module):
    def __init__(self, batch, n, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        return torch.topk(x, self.k, dim=-1, largest=True, sorted=True)


def get_inputs():
    return [torch.randn(BATCH, N)]


def get_init_inputs():
    return [BATCH, N, K]
'''

SHAPES_PY = '''SHAPES = [
    {"batch": 1, "n": 65536, "k": 32},
    {"batch": 64, "n": 8192, "k": 16},
    {"batch": 16, "n": 10000, "k": 8},
    {"batch": 256, "n": 2048, "k": 4},
]
'''

SOL_V1 = r'''"""Top-k via bitonic sorting networks (sample solution).

Pass 1: each block bitonic-sorts one CHUNK of a row in shared memory and
keeps its k largest (value, index) pairs. Pass 2: one block per row sorts
the chunks' candidates and writes the final k, largest first.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

BATCH, N, K = 1, 65536, 32
CHUNK = 2048

CUDA_SRC = r"""
#include <ATen/cuda/CUDAContext.h>
#include <cfloat>
#include <vector>

// Sorts len (a power of two) (value, index) pairs in shared memory, largest first.
__device__ void bitonic_desc(float* v, int* ix, int len) {
    for (int size = 2; size <= len; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < len / 2; i += blockDim.x) {
                int lo = 2 * i - (i & (stride - 1));
                int hi = lo + stride;
                bool desc = (lo & size) == 0;
                float a = v[lo], b = v[hi];
                bool swap = desc ? (a < b) : (a > b);
                if (swap) {
                    v[lo] = b; v[hi] = a;
                    int t = ix[lo]; ix[lo] = ix[hi]; ix[hi] = t;
                }
            }
            __syncthreads();
        }
    }
}

constexpr int CHUNK = 2048;

__global__ void chunk_topk(const float* __restrict__ x, float* cand_v, int* cand_i,
                           int n, int k, int chunks) {
    __shared__ float v[CHUNK];
    __shared__ int ix[CHUNK];
    const int row = blockIdx.y, c = blockIdx.x;
    for (int i = threadIdx.x; i < CHUNK; i += blockDim.x) {
        int g = c * CHUNK + i;
        v[i] = g < n ? x[(size_t)row * n + g] : -FLT_MAX;
        ix[i] = g;
    }
    __syncthreads();
    bitonic_desc(v, ix, CHUNK);
    for (int i = threadIdx.x; i < k; i += blockDim.x) {
        cand_v[((size_t)row * chunks + c) * k + i] = v[i];
        cand_i[((size_t)row * chunks + c) * k + i] = ix[i];
    }
}

__global__ void merge_topk(const float* cand_v, const int* cand_i, float* out_v,
                           int64_t* out_i, int total, int len, int k) {
    extern __shared__ float smem[];
    float* v = smem;
    int* ix = reinterpret_cast<int*>(smem + len);
    const int row = blockIdx.x;
    for (int i = threadIdx.x; i < len; i += blockDim.x) {
        v[i] = i < total ? cand_v[(size_t)row * total + i] : -FLT_MAX;
        ix[i] = i < total ? cand_i[(size_t)row * total + i] : -1;
    }
    __syncthreads();
    bitonic_desc(v, ix, len);
    for (int i = threadIdx.x; i < k; i += blockDim.x) {
        out_v[(size_t)row * k + i] = v[i];
        out_i[(size_t)row * k + i] = ix[i];
    }
}

std::vector<torch::Tensor> topk_forward(torch::Tensor x, int64_t k, int64_t chunk) {
    const int batch = x.size(0), n = x.size(1);
    const int chunks = n / chunk;
    const int total = chunks * k;
    int len = 1;
    while (len < total) len <<= 1;
    auto f32 = x.options();
    auto cand_v = torch::empty({batch, total}, f32);
    auto cand_i = torch::empty({batch, total}, f32.dtype(torch::kInt32));
    auto out_v = torch::empty({batch, k}, f32);
    auto out_i = torch::empty({batch, k}, f32.dtype(torch::kInt64));
    auto stream = at::cuda::getCurrentCUDAStream();
    chunk_topk<<<dim3(chunks, batch), 1024, 0, stream>>>(
        x.data_ptr<float>(), cand_v.data_ptr<float>(), cand_i.data_ptr<int>(), n, k, chunks);
    merge_topk<<<batch, 512, len * 8, stream>>>(
        cand_v.data_ptr<float>(), cand_i.data_ptr<int>(), out_v.data_ptr<float>(),
        out_i.data_ptr<int64_t>(), total, len, k);
    return {out_v, out_i};
}
"""

CPP_SRC = "std::vector<torch::Tensor> topk_forward(torch::Tensor x, int64_t k, int64_t chunk);"

_mod = None


def _ext():
    global _mod
    if _mod is None:
        _mod = load_inline("topk_bitonic", CPP_SRC, cuda_sources=CUDA_SRC,
                           functions=["topk_forward"], extra_cuda_cflags=["-O3"])
    return _mod


class Model(nn.Module):
    def __init__(self, batch, n, k):
        super().__init__()
        self.k = k

    def forward(self, x):
        vals, idx = _ext().topk_forward(x.contiguous(), self.k)
        return vals, idx


def get_inputs():
    return [torch.randn(BATCH, N)]


def get_init_inputs():
    return [BATCH, N, K]
'''

FIX1_OLD = "        vals, idx = _ext().topk_forward(x.contiguous(), self.k)"
FIX1_NEW = "        vals, idx = _ext().topk_forward(x.contiguous(), self.k, CHUNK)"
TIE_OLD = "                bool swap = desc ? (a < b) : (a > b);"
TIE_NEW = ("                // order equal values by index so duplicates come out deterministically\n"
           "                bool less = a < b || (a == b && ix[lo] > ix[hi]);\n"
           "                bool swap = desc ? less : !less;")

SOL_V2 = replace_once(SOL_V1, FIX1_OLD, FIX1_NEW)
SOL_FINAL = replace_once(SOL_V2, TIE_OLD, TIE_NEW)

BENCH = [
    dict(eager=0.0391, compiled=0.0702, sota=0.0388, solution=0.0602),
    dict(eager=0.0412, compiled=0.0744, sota=0.0405, solution=0.0331),
    dict(eager=0.0398, compiled=0.0719, sota=0.0391, solution=0.0296),
    dict(eager=0.0205, compiled=0.0571, sota=0.0201, solution=0.0288),
]


def build():
    bench_txt, pf_bench = bench(PROBLEM, BENCH)
    lines = []
    ids = [0]

    def cid():
        ids[0] += 1
        return "tool_" + b62(RUN, f"tool{ids[0]}", 24)

    def asst(think=None, text=None, calls=()):
        content = []
        if think:
            content.append({"type": "think", "think": think})
        if text:
            content.append({"type": "text", "text": text})
        msg = {"role": "assistant", "content": content}
        out = []
        if calls:
            msg["tool_calls"] = []
            for name, args in calls:
                i = cid()
                msg["tool_calls"].append({"type": "function", "id": i, "function": {"name": name, "arguments": json.dumps(args, ensure_ascii=False)}})
                out.append(i)
        lines.append(msg)
        return out

    def tool(i, text):
        lines.append({"role": "tool", "content": [{"type": "text", "text": text}], "tool_call_id": i})

    def readfile(text):
        n = len(text.rstrip("\n").split("\n"))
        return (f"<system>{n} lines read from file starting from line 1. Total lines in file: {n}. End of file reached.</system>\n"
                + numbered(text) + "\n")

    def failed(out, code=1):
        return f"<system>ERROR: Command failed with exit code: {code}.</system>\n{out}"

    a, b = asst("Top-k over the last dim, values sorted descending plus int64 indices. The input read dominates, so "
                "the target is one pass over x. Let me read the reference and the shapes before designing anything.",
                None, [("ReadFile", {"path": "reference.py"}), ("ReadFile", {"path": "shapes.py"})])
    tool(a, readfile(REFERENCE))
    tool(b, readfile(SHAPES_PY))

    (w,) = asst("Shapes: n up to 65536 and k up to 32. A whole row of 65536 floats does not fit in shared memory, so "
                "two passes: (1) a block per 2048-element chunk, bitonic sort in shared memory, keep the top k; "
                "(2) one block per row sorts the chunks' k-candidates and writes the final k. Pad with -FLT_MAX to "
                "the power of two. 1024 threads per chunk block, each doing one compare-exchange per stage.",
                "I'll write a two-pass chunked bitonic top-k as a CUDA extension.",
                [("WriteFile", {"path": "solution.py", "content": SOL_V1})])
    tool(w, f"<system>File successfully written. Current size: {len(SOL_V1.encode())} bytes.</system>")

    (c1,) = asst(None, None, [("Shell", {"command": "python check.py"})])
    line_fwd = lineno(SOL_V1, FIX1_OLD.strip())
    tb = (f"Traceback (most recent call last):\n"
          f"  File \"{CWD}/check.py\", line 37, in <module>\n"
          f"    main()\n"
          f"  File \"{CWD}/check.py\", line 28, in main\n"
          f"    ok, msg = compare(ref(*inputs), sol(*inputs), meta[\"tolerance\"])\n"
          f"                                    ^^^^^^^^^^^^\n"
          f"  File \"{ROOT}/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py\", line 1775, in _wrapped_call_impl\n"
          f"    return self._call_impl(*args, **kwargs)\n"
          f"  File \"{ROOT}/.venv/lib/python3.12/site-packages/torch/nn/modules/module.py\", line 1786, in _call_impl\n"
          f"    return forward_call(*args, **kwargs)\n"
          f"  File \"{SOL}\", line {line_fwd}, in forward\n"
          f"    vals, idx = _ext().topk_forward(x.contiguous(), self.k)\n"
          f"                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n"
          f"TypeError: topk_forward(): incompatible function arguments. The following argument types are supported:\n"
          f"    1. (arg0: torch.Tensor, arg1: typing.SupportsInt, arg2: typing.SupportsInt) -> list[torch.Tensor]\n\n"
          f"Invoked with: tensor([[ 0.1940,  2.1614, -0.1721,  ...,  0.2708, -0.7531,  1.1316]],\n"
          f"       device='cuda:0'), 32\n")
    tool(c1, failed(tb))

    (e1,) = asst("The extension built; the call is wrong. topk_forward takes (x, k, chunk) and I passed two arguments. "
                 "Pass CHUNK.", None,
                 [("StrReplaceFile", {"path": "solution.py", "edit": {"old": FIX1_OLD, "new": FIX1_NEW}})])
    tool(e1, "<system>File successfully edited. Applied 1 edit(s) with 1 total replacement(s).</system>")

    (c2,) = asst(None, None, [("Shell", {"command": "python check.py"})])
    fail = "FAIL: shape 2 {'batch': 16, 'n': 10000, 'k': 8} seed 42: values mismatch: max_abs_diff=0.31274 (atol=0.0001, rtol=0.0001)\n"
    tool(c2, failed(fail))

    (e2,) = asst("Shapes 0 and 1 pass, shape 2 fails. Shape 2 is the only one with small k (8) and many rows... "
                 "With randn inputs equal values are rare but the comparator leaves equal pairs in arbitrary order, "
                 "and if two threads see a tie the index arrays could diverge from the values. Break ties by index "
                 "so the network is a strict total order.",
                 None,
                 [("StrReplaceFile", {"path": "solution.py", "edit": {"old": TIE_OLD, "new": TIE_NEW}})])
    tool(e2, "<system>File successfully edited. Applied 1 edit(s) with 1 total replacement(s).</system>")

    (c3,) = asst(None, None, [("Shell", {"command": "python check.py"})])
    tool(c3, failed(fail))

    (b1,) = asst("Same diff, so it is not ties. Let me at least see the performance while I think about what is "
                 "special about shape 2.", None, [("Shell", {"command": "python benchmark.py"})])
    tool(b1, bench_txt)

    final = ("solution.py implements top-k with two bitonic passes (per-2048-element chunk in shared memory, then a "
             "per-row merge of the chunks' candidates), with index tie-breaking in the comparator.\n\n"
             "check.py passes shapes 0 and 1 but still fails shape 2 (batch 16, n 10000, k 8) with max_abs_diff 0.31. "
             "Tie ordering was not the cause. I have not found the remaining bug; the solution is not correct as it stands.")
    asst("The max_abs_diff of 0.31 is about the gap between the 8th largest of 10000 normals and a slightly smaller "
         "one, so some true top values are never candidates at all. Out of ideas for this session; report honestly.",
         final)

    d = f"{OUT}/runs/{RUN}"
    write_jsonl(f"{d}/transcript.jsonl", lines)
    write(f"{d}/solution.py", SOL_FINAL)
    write(f"{d}/check.log", fail)
    write(f"{d}/final.txt", final + "\n")
    write(f"{d}/result.json", result_json(PROBLEM, HARNESS, MODEL, EFFORT, True, False, None, 1486, 0, True, {}))
    return dict(run_id=RUN, harness=HARNESS, model=MODEL, effort=EFFORT, problem=PROBLEM, correct=False,
                has_solution=True, peak_fraction=None, elapsed_seconds=1486, session_complete=True, format="kimi",
                files=["transcript.jsonl", "solution.py", "result.json", "check.log", "final.txt"], bench_rows=BENCH)
