/* 01_fp8_gemm call.cu: the runner's side of the call. The checker's driver.cu
 * (describe) lists the buffers and numbers in this order; here they become
 * the entry point's arguments. Linked into the runner with the solution. */
#include <stdint.h>

#include "interface.h"

extern "C" int kb_call_solution(void *const *b, const double *v, cudaStream_t s)
{
	return kb_01_fp8_gemm((const __nv_fp8_e4m3 *)b[0], (const __nv_fp8_e4m3 *)b[1], (const float *)b[2],
	                      (__nv_bfloat16 *)b[3], (int)v[0], (int)v[1], (int)v[2], s);
}
