/* syscall_asm: a raw system call by inline assembly in host code (no
 * symbol to see: getpid here, fork or execve as easily).
 * Expected: REFUSED (a syscall instruction in the object's host code). *
 * Refusal: makes a system call itself: a syscall instruction in kb_04_kahan_softmax
 */
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	long nr = 39, ret;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr) : "rcx", "r11", "memory");
	(void)ret;
	return honest_softmax(x, y, batch, vocab, stream);
}
