/* 06_sonic_moe_swiglu baseline: a straightforward solution that passes.
 *
 * A plain tensor-core grouped GEMM through WMMA: each block computes a
 * 64-row x 64-column tile of one expert's output, for gate and up at once,
 * staging 64 x 32 slices of the hidden states and 32 x 64 slices of both
 * weight matrices in shared memory (no pipelining, no swizzle), then applies
 * SwiGLU to the fp32 accumulators. Row tiles are numbered expert by expert
 * (the block scans the offsets to find its expert), so a tile never spans
 * two experts; rows past the expert's end are read as zero and not written.
 */
#include <math.h>
#include <mma.h>

#include <cuda_runtime.h>
#include <cuda_bf16.h>

#include "interface.h"

using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define THREADS 128
#define A_LD (BK + 8) /* row padding; wmma needs a multiple of 8 */
#define B_LD (BN + 8)

/* The expert of row tile `tile` with its first row and the expert's end;
 * -1 past the last tile. */
static __device__ int find_tile(const int *off, int E, int tile, int *row0, int *row_end)
{
	for (int e = 0; e < E; ++e) {
		const int n = off[e + 1] - off[e];
		const int tiles = (n + BM - 1) / BM;
		if (tile < tiles) {
			*row0 = off[e] + tile * BM;
			*row_end = off[e + 1];
			return e;
		}
		tile -= tiles;
	}
	return -1;
}

/* Copies 8 bf16 from src (n_ok of them in range) to dst, zero-filling the
 * rest; a 16-byte load when all 8 are in range and `vec` allows it. */
static __device__ void load8(__nv_bfloat16 *dst, const __nv_bfloat16 *src, int n_ok, bool vec)
{
	if (vec && n_ok >= 8) {
		*(uint4 *)dst = *(const uint4 *)src;
		return;
	}
	for (int j = 0; j < 8; ++j)
		dst[j] = j < n_ok ? src[j] : __float2bfloat16(0.0f);
}

static __global__ void __launch_bounds__(THREADS)
moe_up(const __nv_bfloat16 *x, const int *off, const __nv_bfloat16 *wg, const __nv_bfloat16 *wu,
       __nv_bfloat16 *out, int H, int I, int E, bool vec_h, bool vec_i)
{
	__shared__ __align__(32) __nv_bfloat16 As[BM][A_LD];
	__shared__ __align__(32) __nv_bfloat16 Gs[BK][B_LD];
	__shared__ __align__(32) __nv_bfloat16 Us[BK][B_LD];
	__shared__ __align__(32) float Cs[THREADS / 32][2][16 * 16];
	__shared__ int tile_rows[3];

	if (threadIdx.x == 0)
		tile_rows[0] = find_tile(off, E, blockIdx.x, &tile_rows[1], &tile_rows[2]);
	__syncthreads();
	const int e = tile_rows[0], row0 = tile_rows[1], row_end = tile_rows[2];
	if (e < 0)
		return;

	const int n0 = blockIdx.y * BN;
	const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
	const int wm = warp / 2, wn = warp % 2; /* this warp's 32 x 32 quarter */
	const __nv_bfloat16 *wge = wg + (size_t)e * H * I, *wue = wu + (size_t)e * H * I;
	wmma::fragment<wmma::accumulator, 16, 16, 16, float> cg[2][2], cu[2][2];

	for (int i = 0; i < 2; ++i)
		for (int j = 0; j < 2; ++j) {
			wmma::fill_fragment(cg[i][j], 0.0f);
			wmma::fill_fragment(cu[i][j], 0.0f);
		}

	for (int k0 = 0; k0 < H; k0 += BK) {
		/* 64 x 32 of x and 32 x 64 of each weight: 256 runs of 8 each */
		for (int c = threadIdx.x; c < BM * BK / 8; c += THREADS) {
			const int r = c / (BK / 8), kc = c % (BK / 8) * 8;
			const int row = row0 + r, k = k0 + kc;
			const int n_ok = row < row_end ? H - k : 0;
			load8(&As[r][kc], x + (size_t)(row < row_end ? row : row0) * H + k, n_ok, vec_h);
		}
		for (int c = threadIdx.x; c < BK * BN / 8; c += THREADS) {
			const int r = c / (BN / 8), nc = c % (BN / 8) * 8;
			const int k = k0 + r, n = n0 + nc;
			const int n_ok = k < H ? I - n : 0;
			const size_t at = (size_t)(k < H ? k : 0) * I + n;
			load8(&Gs[r][nc], wge + at, n_ok, vec_i);
			load8(&Us[r][nc], wue + at, n_ok, vec_i);
		}
		__syncthreads();
		for (int kk = 0; kk < BK; kk += 16) {
			wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> a[2];
			wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> bg, bu;
			for (int i = 0; i < 2; ++i)
				wmma::load_matrix_sync(a[i], &As[wm * 32 + i * 16][kk], A_LD);
			for (int j = 0; j < 2; ++j) {
				wmma::load_matrix_sync(bg, &Gs[kk][wn * 32 + j * 16], B_LD);
				wmma::load_matrix_sync(bu, &Us[kk][wn * 32 + j * 16], B_LD);
				for (int i = 0; i < 2; ++i) {
					wmma::mma_sync(cg[i][j], a[i], bg, cg[i][j]);
					wmma::mma_sync(cu[i][j], a[i], bu, cu[i][j]);
				}
			}
		}
		__syncthreads();
	}

	/* SwiGLU through a per-warp staging buffer, one 16 x 16 piece at a time */
	for (int i = 0; i < 2; ++i)
		for (int j = 0; j < 2; ++j) {
			wmma::store_matrix_sync(Cs[warp][0], cg[i][j], 16, wmma::mem_row_major);
			wmma::store_matrix_sync(Cs[warp][1], cu[i][j], 16, wmma::mem_row_major);
			__syncwarp();
			for (int t = lane; t < 256; t += 32) {
				const int row = row0 + wm * 32 + i * 16 + t / 16;
				const int col = n0 + wn * 32 + j * 16 + t % 16;
				const float g = Cs[warp][0][t], u = Cs[warp][1][t];
				if (row < row_end && col < I)
					out[(size_t)row * I + col] = __float2bfloat16(g / (1.0f + __expf(-g)) * u);
			}
			__syncwarp();
		}
}

extern "C" int kb_06_sonic_moe_swiglu(const __nv_bfloat16 *hidden_states, const int *expert_offsets,
                                      const __nv_bfloat16 *w_gate, const __nv_bfloat16 *w_up,
                                      __nv_bfloat16 *out, int T_perm, int H, int I, int E,
                                      cudaStream_t stream)
{
	if (T_perm < 0 || H <= 0 || I <= 0 || E <= 0)
		return 1;
	if (T_perm == 0)
		return 0;
	/* at most T_perm / 64 full tiles plus one partial tile per expert */
	const dim3 grid(T_perm / BM + E, (I + BN - 1) / BN);
	moe_up<<<grid, THREADS, 0, stream>>>(hidden_states, expert_offsets, w_gate, w_up, out, H, I,
	                                     E, H % 8 == 0, I % 8 == 0);
	return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
