/* initarray_stiname: an .init_array entry of its own, put there by
 * top-level assembly (no attribute to see), pointing at a function named
 * like nvcc's registration (extern "C", so not nvcc's exact mangled name).
 * Expected: REFUSED (assembler that switches sections; the object scan
 * names the entry by its exact name too: tests/test_eval.c). *
 * Refusal: assembler that switches sections
 */
#include <stdio.h>
#include "honest_04.h"

extern "C" void __sti____cudaRegisterAll_x(void)
{
	printf("PASS\ntime shape=0 ms=0.000001 min=0 max=0\n");
	fflush(stdout);
}
asm(".pushsection .init_array,\"aw\"\n\t.quad __sti____cudaRegisterAll_x\n\t.popsection");

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	return honest_softmax(x, y, batch, vocab, stream);
}
