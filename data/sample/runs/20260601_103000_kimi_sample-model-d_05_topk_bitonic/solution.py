"""Top-k via bitonic sorting networks (sample solution).

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
                // order equal values by index so duplicates come out deterministically
                bool less = a < b || (a == b && ix[lo] > ix[hi]);
                bool swap = desc ? less : !less;
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
        vals, idx = _ext().topk_forward(x.contiguous(), self.k, CHUNK)
        return vals, idx


def get_inputs():
    return [torch.randn(BATCH, N)]


def get_init_inputs():
    return [BATCH, N, K]
