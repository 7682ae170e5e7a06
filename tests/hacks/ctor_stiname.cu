/* ctor_stiname: a constructor named like nvcc's registration function
 * (__sti____cudaRegisterAll) in the C++11 attribute spelling, which the
 * old text scan (it looked for __attribute__) missed, and whose name the
 * old object scan let through (it matched a substring). It prints PASS and
 * fast time lines before main.
 * Expected: REFUSED (a C++ attribute for startup code; the object scan,
 * by the exact name, would refuse it too: tests/test_eval.c). *
 * Refusal: a C++ attribute for startup code
 */
#include <stdio.h>
#include "honest_04.h"

[[gnu::constructor]] static void __sti____cudaRegisterAll_spoof(void)
{
	printf("PASS\ntime shape=0 ms=0.000001 min=0 max=0\n");
	fflush(stdout);
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	return honest_softmax(x, y, batch, vocab, stream);
}
