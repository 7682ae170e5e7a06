/* fork_daemon: a second process through a libc function that forks
 * inside (daemon), a name the static lists do not hold: deliberately, so
 * this row proves the second line. After CUDA's initialisation the runner
 * has its seccomp filter: the clone without CLONE_THREAD traps, and the
 * runner ends with a status that names the call.
 * Expected: cpu FAIL (not refused: the lists miss it, no PASS without a
 * device); gpu REFUSED (the seccomp filter names clone). */
#include <stdlib.h>
#include <unistd.h>
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	daemon(1, 1);   /* the child would outlive the eval and keep the GPU */
	return honest_softmax(x, y, batch, vocab, stream);
}
