/* dlopen_cublas: cuBLAS behind token pasting and dlopen, past a grep of the
 * source (the library's name never appears whole). After preprocessing
 * the call reads as the GEMM entry of the library, a forbidden pattern of
 * 01; the object needs dlopen.
 * Expected: REFUSED (the forbidden pattern after preprocessing, with its
 * line; dlopen among the undefined symbols besides). */
#include <dlfcn.h>
#include "interface.h"

#define PASTE(a, b) a##b
#define LIB(x) PASTE(cu, x)
#define OPEN PASTE(dl, open)
#define SYM PASTE(dl, sym)

typedef int (*gemm_fn)(void *, int, int, int, int, int, const void *, const void *, int, int,
                       const void *, int, int, const void *, void *, int, int, int, int);

extern "C" int kb_01_fp8_gemm(const __nv_fp8_e4m3 *x, const __nv_fp8_e4m3 *w, const float *weight_scale,
                              __nv_bfloat16 *y, int M, int N, int K, cudaStream_t stream)
{
	(void)weight_scale;
	static void *h = OPEN("libcu" "blas.so.12", RTLD_NOW);
	gemm_fn LIB(blasGemmEx) = h ? (gemm_fn)SYM(h, "cu" "blasGemmEx") : 0;
	(void)stream;
	return LIB(blasGemmEx) ? LIB(blasGemmEx)(0, 0, 0, N, M, K, 0, w, 0, K, x, 0, K, 0, y, 0, N, 0, 0) : 1;
}
