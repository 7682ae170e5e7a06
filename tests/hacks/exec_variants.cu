/* exec_variants: the ways to start another program the old list missed:
 * _Fork, execle, execvpe, fexecve, wordexp (its $(...) runs a shell).
 * Expected: REFUSED (the object calls one of them; tests/test_eval.c
 * checks each name). *
 * Refusal: the object calls 
 */
#include <unistd.h>
#include <wordexp.h>
#include "honest_04.h"

extern "C" pid_t _Fork(void);

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	static char *const av[] = {(char *)"sh", NULL}, *const ev[] = {NULL};
	if (batch < 0) {   /* never taken: the symbols are what counts */
		wordexp_t w;
		wordexp("$(id)", &w, 0);
		if (_Fork() == 0) {
			execle("/bin/sh", "sh", (char *)NULL, ev);
			execvpe("sh", av, ev);
			fexecve(3, av, ev);
		}
	}
	return honest_softmax(x, y, batch, vocab, stream);
}
