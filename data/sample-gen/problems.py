# Problem definitions for kbtui's synthetic sample dataset (our own words,
# our own shapes and formulas).  Imported by gen.py.

HW_PEAK_TFLOPS = {"fp8": 400.0, "bf16": 200.0, "fp32": 100.0}
HW_PEAK_GBPS = 1800.0

PROBLEMS = {}

PROBLEMS["01_fp8_gemm"] = dict(
    yaml='''# SAMPLE problem file written for kbtui; not the benchmark's own.
name: 01_fp8_gemm
display_name: "FP8 e4m3 GEMM (sample)"
precision: fp8_e4m3
regime: compute

# y = x @ w.T with x (M, K) and w (N, K) both float8_e4m3fn, y bfloat16.
flops_formula: "2 * M * N * K"
# fp8 operands read once, bf16 result written once.
bytes_formula: "M*K + N*K + M*N*2"

hardware: [RTX_PRO_6000]
peak_tflops_key: fp8
peak_bandwidth_key: dram

tolerance:
  bfloat16: 0.05

# Calling the vendor fp8 matmul would skip the exercise.
forbidden:
  - "torch._scaled_mm"
  - "torch.ops.aten._scaled_mm"

sota:
  name: "cuBLASLt fp8 matmul"
  function: "torch._scaled_mm"
  deps: []

num_correct_trials: 3
num_perf_trials: 30
''',
    prompt='''[SAMPLE PROMPT written for kbtui; paraphrases the task, not the benchmark's text]

Write a fast FP8 GEMM for an RTX PRO 6000 (Blackwell, SM120). reference.py holds a slow but
correct PyTorch version; put your kernel in solution.py, keeping the Model / get_inputs /
get_init_inputs interface. Inputs: x (M, K) float8_e4m3fn and a weight buffer w (N, K)
float8_e4m3fn; return x @ w.T as bfloat16 (M, N). The output must match the reference within
0.05 abs/rel. Shapes are listed in shapes.json. torch._scaled_mm is off limits.

Check correctness with `python check.py` and speed with `python benchmark.py`. Your score is
the geometric mean over shapes of achieved TFLOPS divided by the card's fp8 peak.
''',
    shapes=[dict(M=4096, N=4096, K=4096), dict(M=2048, N=8192, K=4096),
            dict(M=16, N=8192, K=8192), dict(M=4096, N=4096, K=4160)],
    flops=lambda s: 2 * s["M"] * s["N"] * s["K"],
    bytes=lambda s: s["M"] * s["K"] + s["N"] * s["K"] + s["M"] * s["N"] * 2,
    regime="compute", peak="fp8",
)

PROBLEMS["02_kda_cutlass"] = dict(
    yaml='''# SAMPLE problem file written for kbtui; not the benchmark's own.
name: 02_kda_cutlass
display_name: "Kimi Delta Attention forward (sample)"
precision: bf16
regime: compute

# Gated delta rule with a per-channel decay g (B, T, H, K) and a per-token
# write strength beta (B, T, H).  Counted as the chunked algorithm's work.
flops_formula: "4 * B * T * H * (K*V + 64*K + 64*V)"
bytes_formula: "B*T*H*(K*2*2 + V*2 + K*4 + 2) + B*T*H*V*2"

hardware: [RTX_PRO_6000]
peak_tflops_key: bf16
peak_bandwidth_key: dram

tolerance:
  bfloat16: 0.05

# The point is to write the recurrence, not to import it.
forbidden:
  - "fla.ops"
  - "chunk_kda"

sota:
  name: "flash-linear-attention chunk_kda"
  function: "fla.ops.kda.chunk_kda"
  deps: ["flash-linear-attention"]

num_correct_trials: 3
num_perf_trials: 20
''',
    prompt='''[SAMPLE PROMPT written for kbtui; paraphrases the task, not the benchmark's text]

Implement the forward pass of Kimi Delta Attention (a gated delta rule with per-channel decay)
for an RTX PRO 6000 (SM120). reference.py is a token-by-token PyTorch loop that is correct and
very slow. Inputs q, k (B, T, H, K), v (B, T, H, V) in bf16, g (B, T, H, K) fp32 log-decay,
beta (B, T, H) bf16. Output o (B, T, H, V) bf16 within 0.05 abs/rel. CUTLASS/CuTe, Triton or
raw CUDA are all fine; importing flash-linear-attention is not.

`python check.py` checks correctness, `python benchmark.py` reports the score (fraction of the
bf16 tensor-core peak, geometric mean over shapes.json).
''',
    shapes=[dict(B=2, T=1024, H=8, K=128, V=128), dict(B=1, T=4096, H=16, K=128, V=128),
            dict(B=4, T=512, H=32, K=64, V=64)],
    flops=lambda s: 4 * s["B"] * s["T"] * s["H"] * (s["K"] * s["V"] + 64 * s["K"] + 64 * s["V"]),
    bytes=lambda s: s["B"] * s["T"] * s["H"] * (s["K"] * 4 + s["V"] * 2 + s["K"] * 4 + 2) + s["B"] * s["T"] * s["H"] * s["V"] * 2,
    regime="compute", peak="bf16",
)

PROBLEMS["03_paged_attention"] = dict(
    yaml='''# SAMPLE problem file written for kbtui; not the benchmark's own.
name: 03_paged_attention
display_name: "Paged attention decode (sample)"
precision: bf16
regime: memory   # one query token per sequence: the KV cache is streamed once

flops_formula: "4 * batch * num_heads * seq_len * head_dim"
bytes_formula: "2 * batch * seq_len * num_kv_heads * head_dim * 2 + 2 * batch * num_heads * head_dim * 2"

hardware: [RTX_PRO_6000]
peak_tflops_key: bf16
peak_bandwidth_key: dram

tolerance:
  bfloat16: 0.02

forbidden:
  - "scaled_dot_product_attention"
  - "vllm"
  - "flashinfer"

sota:
  name: "FlashInfer batch decode"
  function: "flashinfer.BatchDecodeWithPagedKVCacheWrapper"
  deps: ["flashinfer"]

num_correct_trials: 3
num_perf_trials: 30
''',
    prompt='''[SAMPLE PROMPT written for kbtui; paraphrases the task, not the benchmark's text]

Write a paged-attention decode kernel for an RTX PRO 6000 (SM120, about 1.8 TB/s). Each
sequence has one query token, query (batch, num_heads, head_dim) bf16. Keys and values live
in separate caches (num_blocks, page_size, num_kv_heads, head_dim) addressed through
block_table (batch, max_pages) int32; seq_lens (batch,) int32 gives each sequence's length.
Heads are grouped (GQA): num_heads / num_kv_heads query heads share a KV head. Return
(batch, num_heads, head_dim) bf16 within 0.02 abs/rel of reference.py. No SDPA, vLLM or
FlashInfer calls.

`python check.py` for correctness, `python benchmark.py` for the score (fraction of DRAM
bandwidth, geometric mean over shapes.json).
''',
    shapes=[dict(batch=8, num_heads=32, num_kv_heads=8, head_dim=128, seq_len=1024, page_size=16),
            dict(batch=32, num_heads=32, num_kv_heads=8, head_dim=128, seq_len=2048, page_size=16),
            dict(batch=4, num_heads=64, num_kv_heads=8, head_dim=128, seq_len=4000, page_size=16),
            dict(batch=16, num_heads=16, num_kv_heads=4, head_dim=64, seq_len=1537, page_size=16)],
    flops=lambda s: 4 * s["batch"] * s["num_heads"] * s["seq_len"] * s["head_dim"],
    bytes=lambda s: 2 * s["batch"] * s["seq_len"] * s["num_kv_heads"] * s["head_dim"] * 2 + 2 * s["batch"] * s["num_heads"] * s["head_dim"] * 2,
    regime="memory", peak="bf16",
)

PROBLEMS["04_kahan_softmax"] = dict(
    yaml='''# SAMPLE problem file written for kbtui; not the benchmark's own.
name: 04_kahan_softmax
display_name: "Softmax with compensated summation (sample)"
precision: fp32
regime: memory   # read the row, write the row; the arithmetic is cheap

flops_formula: "5 * batch * vocab"
bytes_formula: "batch * vocab * 4 * 2"

hardware: [RTX_PRO_6000]
peak_tflops_key: fp32
peak_bandwidth_key: dram

# Tight on purpose: fast exp and a plain fp32 running sum drift past it.
tolerance:
  float32:
    atol: 1.0e-8
    rtol: 2.0e-6

forbidden:
  - "torch.softmax"
  - "torch.nn.functional.softmax"
  - "torch.special.softmax"
  - "Tensor.softmax"

sota:
  name: "torch.softmax in float64, cast back"
  function: "torch.softmax"
  deps: []

num_correct_trials: 3
num_perf_trials: 30
''',
    prompt='''[SAMPLE PROMPT written for kbtui; paraphrases the task, not the benchmark's text]

Write a row softmax for fp32 logits (batch, vocab) on an RTX PRO 6000 (SM120). The tolerance
is tight (rtol 2e-6): reference.py works in float64, and long rows (up to 262144) need an
accurate exp and compensated (Kahan) or otherwise careful summation to stay within it in fp32. Do not call any
torch softmax. Keep the Model / get_inputs / get_init_inputs interface.

`python check.py` for correctness, `python benchmark.py` for the score (fraction of DRAM
bandwidth, geometric mean over shapes.json).
''',
    shapes=[dict(batch=32, vocab=32000), dict(batch=8, vocab=131072),
            dict(batch=128, vocab=4096), dict(batch=4, vocab=262144)],
    flops=lambda s: 5 * s["batch"] * s["vocab"],
    bytes=lambda s: s["batch"] * s["vocab"] * 8,
    regime="memory", peak="fp32",
)

PROBLEMS["05_topk_bitonic"] = dict(
    yaml='''# SAMPLE problem file written for kbtui; not the benchmark's own.
name: 05_topk_bitonic
display_name: "Top-k by bitonic sorting (sample)"
precision: fp32
regime: memory   # the input read dominates; k is small

flops_formula: "batch * n * 4"
bytes_formula: "batch * n * 4 + batch * k * 12"

hardware: [RTX_PRO_6000]
peak_tflops_key: fp32
peak_bandwidth_key: dram

# Values must match; indices only have to point at equal values (ties).
tolerance:
  float32: 1.0e-4

forbidden:
  - "torch.topk"
  - "torch.sort"
  - "torch.argsort"
  - "torch.kthvalue"
  - "Tensor.topk"
  - "Tensor.sort"

sota:
  name: "torch.topk"
  function: "torch.topk"
  deps: []

num_correct_trials: 3
num_perf_trials: 50
''',
    prompt='''[SAMPLE PROMPT written for kbtui; paraphrases the task, not the benchmark's text]

Implement top-k along the last dimension of a (batch, n) fp32 tensor on an RTX PRO 6000
(SM120): return the k largest values sorted descending and their int64 indices, like
torch.topk(largest=True, sorted=True). Use a sorting network (bitonic) of your own; torch.topk,
torch.sort and friends are forbidden. Values must match within 1e-4; tied indices may differ.
n is not always a power of two (see shapes.json).

`python check.py` for correctness, `python benchmark.py` for the score (fraction of DRAM
bandwidth, geometric mean over shapes).
''',
    shapes=[dict(batch=1, n=65536, k=32), dict(batch=64, n=8192, k=16),
            dict(batch=16, n=10000, k=8), dict(batch=256, n=2048, k=4)],
    flops=lambda s: s["batch"] * s["n"] * 4,
    bytes=lambda s: s["batch"] * s["n"] * 4 + s["batch"] * s["k"] * 12,
    regime="memory", peak="fp32",
)

PROBLEMS["06_sonic_moe_swiglu"] = dict(
    yaml='''# SAMPLE problem file written for kbtui; not the benchmark's own.
name: 06_sonic_moe_swiglu
display_name: "MoE up-projection with SwiGLU epilogue (sample)"
precision: bf16
regime: compute

# tokens are already routed and sorted by expert; every routed copy does a
# (hidden x 2*intermediate) GEMM row followed by silu(gate) * up.
flops_formula: "2 * tokens * top_k * hidden * 2 * intermediate"
bytes_formula: "tokens*top_k*hidden*2 + experts*hidden*2*intermediate*2 + tokens*top_k*intermediate*2"

hardware: [RTX_PRO_6000]
peak_tflops_key: bf16
peak_bandwidth_key: dram

tolerance:
  bfloat16: 0.02

forbidden:
  - "torch._grouped_mm"
  - "sonicmoe"

sota:
  name: "torch grouped mm + fused silu"
  function: "torch._grouped_mm"
  deps: []

num_correct_trials: 3
num_perf_trials: 20
''',
    prompt='''[SAMPLE PROMPT written for kbtui; paraphrases the task, not the benchmark's text]

Write the up-projection of a mixture-of-experts layer for an RTX PRO 6000 (SM120). Tokens come
already routed: x_sorted (tokens*top_k, hidden) bf16 grouped by expert, with expert_offsets
(experts+1,) int32. Each expert e has a weight w_gate_up[e] (hidden, 2*intermediate) bf16; the
output row is silu(x @ W_gate) * (x @ W_up), shape (tokens*top_k, intermediate), bf16 within
0.02 of reference.py. One grouped kernel with the SwiGLU fused in its epilogue is the goal.

`python check.py` for correctness, `python benchmark.py` for the score (fraction of the bf16
peak, geometric mean over shapes.json).
''',
    shapes=[dict(tokens=4096, hidden=2048, intermediate=1024, experts=64, top_k=4),
            dict(tokens=1024, hidden=4096, intermediate=1536, experts=32, top_k=2),
            dict(tokens=8192, hidden=1024, intermediate=512, experts=128, top_k=8)],
    flops=lambda s: 2 * s["tokens"] * s["top_k"] * s["hidden"] * 2 * s["intermediate"],
    bytes=lambda s: s["tokens"] * s["top_k"] * s["hidden"] * 2 + s["experts"] * s["hidden"] * 2 * s["intermediate"] * 2 + s["tokens"] * s["top_k"] * s["intermediate"] * 2,
    regime="compute", peak="bf16",
)

PROBLEMS["07_w4a16_gemm"] = dict(
    yaml='''# SAMPLE problem file written for kbtui; not the benchmark's own.
name: 07_w4a16_gemm
display_name: "int4 weight, bf16 activation GEMM (sample)"
precision: int4_bf16
regime: memory   # small M: streaming the packed weight is the whole cost

flops_formula: "2 * M * N * K"
# packed int4 weight, bf16 scales per 128-wide group, bf16 x and y
bytes_formula: "M*K*2 + N*K/2 + N*(K/128)*2 + M*N*2"

hardware: [RTX_PRO_6000]
peak_tflops_key: bf16
peak_bandwidth_key: dram

tolerance:
  bfloat16: 0.02

forbidden:
  - "torch._weight_int4pack_mm"
  - "bitsandbytes"
  - "marlin"

sota:
  name: "torch._weight_int4pack_mm"
  function: "torch._weight_int4pack_mm"
  deps: []

num_correct_trials: 3
num_perf_trials: 50
''',
    prompt='''[SAMPLE PROMPT written for kbtui; paraphrases the task, not the benchmark's text]

Write a weight-only int4 GEMM for an RTX PRO 6000 (SM120). x is (M, K) bf16. The weight is
packed two 4-bit values per byte, w_packed (N, K/2) uint8 with the low nibble first, stored
unsigned with an implicit zero point of 8, and scaled by scales (N, K/128) bf16 per group of
128 along K. Return y = x @ dequant(w).T as bf16 (M, N) within 0.02 of reference.py. M is
small, so this is mostly about streaming the packed weight fast. No int4 library kernels.

`python check.py` for correctness, `python benchmark.py` for the score (fraction of DRAM
bandwidth, geometric mean over shapes.json).
''',
    shapes=[dict(M=1, N=4096, K=4096), dict(M=16, N=4096, K=4096),
            dict(M=64, N=11008, K=4096), dict(M=256, N=4096, K=11008)],
    flops=lambda s: 2 * s["M"] * s["N"] * s["K"],
    bytes=lambda s: s["M"] * s["K"] * 2 + s["N"] * s["K"] // 2 + s["N"] * (s["K"] // 128) * 2 + s["M"] * s["N"] * 2,
    regime="memory", peak="bf16",
)
