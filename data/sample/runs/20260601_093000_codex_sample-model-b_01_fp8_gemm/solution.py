"""FP8 e4m3 GEMM, y = x @ w.T in bf16, for SM120 (sample solution).

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
#include <cuda_fp8.h>
#include <mma.h>

using namespace nvcuda;

constexpr int BM = 128, BN = 128, BK = 32, PAD = 8;
constexpr int WARPS_N = 2;  // 8 warps as 4 x 2, each owns a 32x64 piece of C

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
        // widen fp8 -> bf16 while staging, four bytes per load
        for (int i = threadIdx.x; i < BM * BK / 4; i += blockDim.x) {
            int r = i / (BK / 4), c = (i % (BK / 4)) * 4;
            stage4(&As[r][c], A, row0 + r, k0 + c, M, K);
            stage4(&Bs[r][c], B, col0 + r, k0 + c, N, K);
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
