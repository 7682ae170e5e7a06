# codex (Codex session rollout JSONL) sample run: 01_fp8_gemm.
# Story: WMMA bf16 kernel fed by fp8 widened in shared memory; the first build
# fails in nvcc (cuda_fp8.h not included), a patch fixes it, check passes,
# a second patch vectorises the fp8 staging loads, benchmark improves.
from common import *

RUN = "20260601_093000_codex_sample-model-b_01_fp8_gemm"
PROBLEM = "01_fp8_gemm"
MODEL = "sample-model-b"
HARNESS = "codex"
EFFORT = "xhigh"
SESSION = sid(RUN, "session")
CWD = pdir(PROBLEM)
SOL = f"{CWD}/solution.py"
EXT_DIR = "/home/sample/.cache/torch_extensions/py312_cu130/fp8_gemm_wmma"

REFERENCE = '''"""FP8 GEMM reference: widen to bf16 and use torch.matmul (correctness only)."""
import torch
import torch.nn as nn

M, N, K = 4096, 4096, 4096


class Model(nn.Module):
    """y = x @ w.T in bf16; x (M, K) and w (N, K) are float8_e4m3fn."""

    def __init__(self, M, N, K):
        super().__init__()
        self.register_buffer("weight", (torch.randn(N, K) * 0.05).to(torch.float8_e4m3fn))

    def forward(self, x):
        return x.to(torch.bfloat16) @ self.weight.to(torch.bfloat16).T


def get_inputs():
    return [(torch.randn(M, K) * 0.5).to(torch.float8_e4m3fn)]


def get_init_inputs():
    return [M, N, K]
'''

SHAPES_PY = '''SHAPES = [
    {"M": 4096, "N": 4096, "K": 4096},
    {"M": 2048, "N": 8192, "K": 4096},
    {"M": 16, "N": 8192, "K": 8192},    # decode-like: skinny M
    {"M": 4096, "N": 4096, "K": 4160},  # K not a multiple of 128
]
'''

SOL_V1 = r'''"""FP8 e4m3 GEMM, y = x @ w.T in bf16, for SM120 (sample solution).

fp8 tiles are widened to bf16 while they are staged into shared memory and
multiplied on bf16 tensor cores with WMMA (fp32 accumulators). Widening
e4m3 to bf16 is exact, so this matches the reference up to summation order.
"""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

M, N, K = 4096, 4096, 4096

CUDA_SRC = r"""
#include <ATen/cuda/CUDAContext.h>
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32, PAD = 8;
constexpr int WARPS_N = 2;  // 8 warps as 4 x 2, each owns a 32x64 piece of C

__global__ void __launch_bounds__(256)
fp8_gemm_kernel(const __nv_fp8_e4m3* __restrict__ A, const __nv_fp8_e4m3* __restrict__ B,
                __nv_bfloat16* __restrict__ C, int M, int N, int K) {
    __shared__ __nv_bfloat16 As[BM][BK + PAD];
    __shared__ __nv_bfloat16 Bs[BN][BK + PAD];
    __shared__ float Cs[8][16][16];

    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < K; k0 += BK) {
        // widen fp8 -> bf16 while staging; zero-fill outside the matrix
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
            int r = i / BK, c = i % BK, gk = k0 + c;
            int ga = row0 + r, gb = col0 + r;
            As[r][c] = __float2bfloat16(ga < M && gk < K ? float(A[(size_t)ga * K + gk]) : 0.f);
            Bs[r][c] = __float2bfloat16(gb < N && gk < K ? float(B[(size_t)gb * K + gk]) : 0.f);
        }
        __syncthreads();
        #pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> fb[4];
            for (int i = 0; i < 2; i++) wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], BK + PAD);
            for (int j = 0; j < 4; j++) wmma::load_matrix_sync(fb[j], &Bs[wn * 64 + j * 16][kk], BK + PAD);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 4; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    // through a per-warp scratch tile, so ragged edges (M=16, K=4160) can be masked
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 4; j++) {
            wmma::store_matrix_sync(&Cs[warp][0][0], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 256; e += 32) {
                int r = row0 + wm * 32 + i * 16 + e / 16, c = col0 + wn * 64 + j * 16 + e % 16;
                if (r < M && c < N) C[(size_t)r * N + c] = __float2bfloat16(Cs[warp][e / 16][e % 16]);
            }
            __syncwarp();
        }
}

torch::Tensor fp8_gemm(torch::Tensor x, torch::Tensor w) {
    const int M = x.size(0), K = x.size(1), N = w.size(0);
    auto y = torch::empty({M, N}, x.options().dtype(torch::kBFloat16));
    dim3 grid((N + BN - 1) / BN, (M + BM - 1) / BM);
    fp8_gemm_kernel<<<grid, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        reinterpret_cast<const __nv_fp8_e4m3*>(x.data_ptr()),
        reinterpret_cast<const __nv_fp8_e4m3*>(w.data_ptr()),
        reinterpret_cast<__nv_bfloat16*>(y.data_ptr()), M, N, K);
    return y;
}
"""

CPP_SRC = "torch::Tensor fp8_gemm(torch::Tensor x, torch::Tensor w);"

_mod = None


def _ext():
    global _mod
    if _mod is None:
        _mod = load_inline("fp8_gemm_wmma", CPP_SRC, cuda_sources=CUDA_SRC, functions=["fp8_gemm"],
                           extra_cuda_cflags=["-O3", "-gencode=arch=compute_120a,code=sm_120a"])
    return _mod


class Model(nn.Module):
    def __init__(self, M, N, K):
        super().__init__()
        self.register_buffer("weight", (torch.randn(N, K) * 0.05).to(torch.float8_e4m3fn))

    def forward(self, x):
        return _ext().fp8_gemm(x.contiguous(), self.weight)


def get_inputs():
    return [(torch.randn(M, K) * 0.5).to(torch.float8_e4m3fn)]


def get_init_inputs():
    return [M, N, K]
'''

FIX_OLD = '''#include <cuda_bf16.h>
'''
FIX_NEW = '''#include <cuda_bf16.h>
#include <cuda_fp8.h>
'''

VEC_HELPER_OLD = '''constexpr int WARPS_N = 2;  // 8 warps as 4 x 2, each owns a 32x64 piece of C
'''
VEC_HELPER_NEW = '''constexpr int WARPS_N = 2;  // 8 warps as 4 x 2, each owns a 32x64 piece of C

// Four fp8 -> four bf16. K is a multiple of 4 in every shape, so an in-range
// group is 4-byte aligned; the tail of a ragged K falls back to scalar loads.
__device__ __forceinline__ void stage4(__nv_bfloat16* dst, const __nv_fp8_e4m3* src,
                                       int row, int k, int rows, int K) {
    if (row < rows && k + 3 < K) {
        float4 f = float4(*reinterpret_cast<const __nv_fp8x4_e4m3*>(src + (size_t)row * K + k));
        dst[0] = __float2bfloat16(f.x); dst[1] = __float2bfloat16(f.y);
        dst[2] = __float2bfloat16(f.z); dst[3] = __float2bfloat16(f.w);
    } else {
        for (int t = 0; t < 4; t++)
            dst[t] = __float2bfloat16(row < rows && k + t < K ? float(src[(size_t)row * K + k + t]) : 0.f);
    }
}
'''
VEC_LOOP_OLD = '''        // widen fp8 -> bf16 while staging; zero-fill outside the matrix
        for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
            int r = i / BK, c = i % BK, gk = k0 + c;
            int ga = row0 + r, gb = col0 + r;
            As[r][c] = __float2bfloat16(ga < M && gk < K ? float(A[(size_t)ga * K + gk]) : 0.f);
            Bs[r][c] = __float2bfloat16(gb < N && gk < K ? float(B[(size_t)gb * K + gk]) : 0.f);
        }
'''
VEC_LOOP_NEW = '''        // widen fp8 -> bf16 while staging, four bytes per load
        for (int i = threadIdx.x; i < BM * BK / 4; i += blockDim.x) {
            int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            stage4(&As[r][c], A, row0 + r, k0 + c, M, K);
            stage4(&Bs[r][c], B, col0 + r, k0 + c, N, K);
        }
'''


def cu_line(src, needle):
    """Line in the cuda.cu that load_inline writes (3 include lines first)."""
    return 3 + lineno(src.split('CUDA_SRC = r"""', 1)[1], needle) - 1


def build():
    patch1 = patch_add(SOL, SOL_V1)
    patch2, sol_v2 = patch_update(SOL, SOL_V1, [(FIX_OLD, FIX_NEW)])
    patch3, sol_final = patch_update(SOL, sol_v2, [(VEC_HELPER_OLD, VEC_HELPER_NEW), (VEC_LOOP_OLD, VEC_LOOP_NEW)])

    bench_rows_v2 = [
        dict(eager=0.912, compiled=0.874, solution=1.402),
        dict(eager=0.905, compiled=0.880, solution=1.431),
        dict(eager=0.118, compiled=0.104, solution=0.142),
        dict(eager=0.951, compiled=0.902, solution=1.468),
    ]
    bench_rows = [
        dict(eager=0.912, compiled=0.874, solution=1.0210),
        dict(eager=0.905, compiled=0.880, solution=1.0495),
        dict(eager=0.118, compiled=0.104, solution=0.0951),
        dict(eager=0.951, compiled=0.902, solution=1.0783),
    ]
    bench_v2, pf_v2 = bench(PROBLEM, bench_rows_v2)
    bench_final, pf = bench(PROBLEM, bench_rows)

    l1, l2, l3 = cu_line(SOL_V1, "fp8_gemm_kernel(const __nv_fp8_e4m3*"), cu_line(SOL_V1, "reinterpret_cast<const __nv_fp8_e4m3*>(x"), cu_line(SOL_V1, "reinterpret_cast<const __nv_fp8_e4m3*>(w")
    nvcc = (f"/usr/local/cuda/bin/nvcc --generate-dependencies-with-compile --dependency-output cuda.cuda.o.d "
            f"-DTORCH_EXTENSION_NAME=fp8_gemm_wmma -isystem {ROOT}/.venv/lib/python3.12/site-packages/torch/include "
            f"-D__CUDA_NO_HALF_OPERATORS__ --expt-relaxed-constexpr -O3 -gencode=arch=compute_120a,code=sm_120a "
            f"-std=c++17 -c {EXT_DIR}/cuda.cu -o cuda.cuda.o")
    build_err = (f"[1/3] c++ -MMD -MF main.o.d -DTORCH_EXTENSION_NAME=fp8_gemm_wmma -O3 -std=c++17 -c {EXT_DIR}/main.cpp -o main.o\n"
                 f"[2/3] {nvcc}\n"
                 f"FAILED: cuda.cuda.o\n"
                 f"{nvcc}\n"
                 f"{EXT_DIR}/cuda.cu({l1}): error: identifier \"__nv_fp8_e4m3\" is undefined\n"
                 f"  fp8_gemm_kernel(const __nv_fp8_e4m3* __restrict__ A, const __nv_fp8_e4m3* __restrict__ B,\n"
                 f"                        ^\n\n"
                 f"{EXT_DIR}/cuda.cu({l1}): error: identifier \"__nv_fp8_e4m3\" is undefined\n"
                 f"  fp8_gemm_kernel(const __nv_fp8_e4m3* __restrict__ A, const __nv_fp8_e4m3* __restrict__ B,\n"
                 f"                                                                   ^\n\n"
                 f"{EXT_DIR}/cuda.cu({l2}): error: identifier \"__nv_fp8_e4m3\" is undefined\n"
                 f"          reinterpret_cast<const __nv_fp8_e4m3*>(x.data_ptr()),\n"
                 f"                                 ^\n\n"
                 f"{EXT_DIR}/cuda.cu({l3}): error: identifier \"__nv_fp8_e4m3\" is undefined\n"
                 f"          reinterpret_cast<const __nv_fp8_e4m3*>(w.data_ptr()),\n"
                 f"                                 ^\n\n"
                 f"4 errors detected in the compilation of \"{EXT_DIR}/cuda.cu\".\n"
                 f"ninja: build stopped: subcommand failed.\n"
                 f"Traceback (most recent call last):\n"
                 f"  File \"{ROOT}/.venv/lib/python3.12/site-packages/torch/utils/cpp_extension.py\", line 2597, in _run_ninja_build\n"
                 f"    subprocess.run(\n"
                 f"subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit status 1.\n\n"
                 f"The above exception was the direct cause of the following exception:\n\n"
                 f"Traceback (most recent call last):\n"
                 f"  File \"{CWD}/check.py\", line 37, in <module>\n"
                 f"    main()\n"
                 f"  File \"{CWD}/solution.py\", line {lineno(SOL_V1, 'return _ext().fp8_gemm')}, in forward\n"
                 f"    return _ext().fp8_gemm(x.contiguous(), self.weight)\n"
                 f"  File \"{CWD}/solution.py\", line {lineno(SOL_V1, '_mod = load_inline(')}, in _ext\n"
                 f"    _mod = load_inline(\"fp8_gemm_wmma\", CPP_SRC, cuda_sources=CUDA_SRC, functions=[\"fp8_gemm\"],\n"
                 f"RuntimeError: Error building extension 'fp8_gemm_wmma'\n")

    lines = []
    ts = [1780304400000]  # 2026-06-01T09:00:00Z, in ms

    def t(step=4.0):
        ts[0] += int(round(step * 1000))
        import datetime
        return datetime.datetime.fromtimestamp(ts[0] // 1000, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts[0] % 1000:03d}Z"

    def item(payload, step=4.0, kind="response_item"):
        lines.append({"timestamp": t(step), "type": kind, "payload": payload})

    def reasoning(title, body, step=45.0):
        item({"type": "reasoning", "summary": [{"type": "summary_text", "text": f"**{title}**\n\n{body}"}], "content": None}, step)

    def say(text, step=3.0):
        item({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}, step)

    calls = [0]

    def exec_(cmd, output, code=0, wall=0.4, step=2.0):
        calls[0] += 1
        cid = "call_" + b62(RUN, f"call{calls[0]}", 24)
        item({"type": "function_call", "name": "exec_command",
              "arguments": jl({"cmd": cmd, "workdir": CWD, "yield_time_ms": 120000, "max_output_tokens": 12000}),
              "call_id": cid}, step)
        body = (f"Chunk ID: {hexid(RUN, cid, 6)}\nWall time: {wall:.4f} seconds\nProcess exited with code {code}\n"
                f"Original token count: {max(1, len(output) // 4)}\nOutput:\n{output}")
        item({"type": "function_call_output", "call_id": cid, "output": body}, wall)

    def patch(text, files, step=20.0):
        calls[0] += 1
        cid = "call_" + b62(RUN, f"call{calls[0]}", 24)
        item({"type": "custom_tool_call", "status": "completed", "call_id": cid, "name": "apply_patch", "input": text}, step)
        out = "Success. Updated the following files:\n" + "".join(f"{k} {p}\n" for k, p in files)
        item({"type": "custom_tool_call_output", "call_id": cid,
              "output": jl({"output": out, "metadata": {"exit_code": 0, "duration_seconds": 0.0}})}, 0.2)

    tok = [0, 0, 0, 0]

    def tokens(inp, cached, out, reas, step=0.1):
        tok[0] += inp; tok[1] += cached; tok[2] += out; tok[3] += reas
        last = {"input_tokens": inp, "cached_input_tokens": cached, "output_tokens": out,
                "reasoning_output_tokens": reas, "total_tokens": inp + out}
        total = {"input_tokens": tok[0], "cached_input_tokens": tok[1], "output_tokens": tok[2],
                 "reasoning_output_tokens": tok[3], "total_tokens": tok[0] + tok[2]}
        item({"type": "token_count", "info": {"total_token_usage": total, "last_token_usage": last,
                                              "model_context_window": 258400}}, step, "event_msg")

    prompt = open(f"{OUT}/problems/{PROBLEM}/PROMPT.txt").read()
    turn = sid(RUN, "turn")
    item({"id": SESSION, "timestamp": t(0), "cwd": CWD, "originator": "codex_exec", "cli_version": "0.0.0-sample",
          "model_provider": "sample"}, 0, "session_meta")
    item({"type": "message", "role": "developer", "content": [{"type": "input_text", "text":
          "<permissions instructions>\nSandbox: danger-full-access. Approval policy: never. Commands run without asking.\n</permissions instructions>"}]}, 0.0)
    item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": prompt}]}, 0.0)
    item({"type": "task_started", "turn_id": turn, "model_context_window": 258400}, 0.0, "event_msg")
    item({"cwd": CWD, "approval_policy": "never", "sandbox_policy": {"type": "danger-full-access"},
          "model": MODEL, "effort": EFFORT, "summary": "auto"}, 0.0, "turn_context")

    reasoning("Scoping the FP8 GEMM task", "The score is TFLOPS over the fp8 peak, so the real target is fp8 tensor cores. "
              "First I need the exact interface: weight dtype, whether it is a parameter or a buffer, and the shapes.")
    say("I'll read the reference and the shapes first so the kernel matches the interface exactly.")
    exec_("sed -n '1,80p' reference.py && cat shapes.py", REFERENCE + SHAPES_PY, wall=0.05)
    exec_("nvidia-smi --query-gpu=name,compute_cap,memory.total --format=csv && nvcc --version | tail -2",
          "name, compute_cap, memory.total [MiB]\nNVIDIA RTX PRO 6000 Blackwell Workstation Edition, 12.0, 97887 MiB\n"
          "Cuda compilation tools, release 13.0, V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0", wall=0.3)
    tokens(14820, 9984, 1630, 1102)

    reasoning("Choosing a first kernel", "A native fp8 MMA path on sm_120a means hand-written mma.sync PTX with "
              "fragment layouts I would have to get exactly right. A safer first step: widen fp8 to bf16 while "
              "staging tiles in shared memory and use WMMA bf16 tensor cores. It caps at the bf16 rate (half the "
              "fp8 peak), but it is correct by construction and gives a baseline. 128x128x32 tiles, 8 warps, "
              "masked epilogue through shared memory for M=16 and K=4160.")
    patch(patch1, [("A", SOL)])
    exec_("python check.py", build_err, code=1, wall=41.2)
    tokens(9120, 8704, 2841, 1920)

    reasoning("Fixing the build", "nvcc does not know __nv_fp8_e4m3: the fp8 types live in cuda_fp8.h, which "
              "neither ATen's headers nor cuda_bf16.h pull in. One include.")
    patch(patch2, [("M", SOL)], step=8.0)
    exec_("python check.py", "PASS\n", wall=58.7)
    exec_("python benchmark.py", bench_v2, wall=96.4)
    tokens(11240, 10752, 942, 610)

    reasoning("Where the time goes", f"peak_fraction {pf_v2:.4f}. Every staged element is a 1-byte global load "
              "plus a conversion, done one byte per thread per iteration, and the WMMA work per tile is small "
              "(BK=32), so the staging loop dominates. Loading four fp8 values at once as __nv_fp8x4_e4m3 and "
              "converting through float4 cuts the load instructions by 4x. K is a multiple of 4 everywhere, "
              "so the vector path is aligned; keep a scalar tail for safety.")
    say("The build is fixed and check passes. Staging is the bottleneck, so I'm vectorising the fp8 loads (4 bytes per load).")
    patch(patch3, [("M", SOL)], step=30.0)
    exec_("python check.py && python benchmark.py", "PASS\n" + bench_final, wall=151.0)
    tokens(12960, 12288, 1355, 880)

    final = (f"Implemented `solution.py`: a CUDA extension (load_inline) that widens fp8 e4m3 tiles to bf16 while "
             f"staging them in shared memory and multiplies them with WMMA bf16 tensor cores, fp32 accumulation, "
             f"masked epilogue for the skinny and ragged shapes.\n\n"
             f"- `python check.py`: PASS\n"
             f"- `python benchmark.py`: peak_fraction {pf:.4f} (first working version {pf_v2:.4f}; vectorised fp8 staging loads).\n\n"
             f"This path tops out at the bf16 tensor-core rate; a native fp8 mma.sync kernel with a cp.async pipeline is the next step.")
    say(final, step=5.0)
    tokens(3410, 3072, 402, 118)
    item({"type": "task_complete", "turn_id": turn, "last_agent_message": final}, 0.1, "event_msg")

    d = f"{OUT}/runs/{RUN}"
    write_jsonl(f"{d}/transcript.jsonl", lines)
    write(f"{d}/solution.py", sol_final)
    write(f"{d}/check.log", "PASS\n")
    write(f"{d}/benchmark.log", bench_final)
    write(f"{d}/final.txt", final + "\n")
    elapsed = (ts[0] - 1780304400000) // 1000
    write(f"{d}/result.json", result_json(PROBLEM, HARNESS, MODEL, EFFORT, True, True, pf, elapsed, 0, True,
                                          dict(input_tokens=tok[0], output_tokens=tok[2], cache_read_tokens=tok[1],
                                               cache_creation_tokens=None, reasoning_tokens=tok[3], total_cost_usd=None)))
    return dict(run_id=RUN, harness=HARNESS, model=MODEL, effort=EFFORT, problem=PROBLEM, correct=True,
                has_solution=True, peak_fraction=pf, elapsed_seconds=elapsed, session_complete=True, format="codex",
                files=["transcript.jsonl", "solution.py", "result.json", "check.log", "benchmark.log", "final.txt"],
                bench_rows=bench_rows)
