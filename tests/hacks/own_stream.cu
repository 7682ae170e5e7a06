/* own_stream: the work goes on a stream of the solution's own, created
 * non-blocking, so nothing is enqueued on the harness's stream between its
 * two events: the events time an empty interval. The runner's device-wide
 * synchronisation waits for the work; the checker's host clock sees it.
 * Expected: INVALID (events against the host clock; needs a GPU). */
#include "honest_04.h"

static __global__ void spin(long long cycles)
{
	long long t0 = clock64();
	while (clock64() - t0 < cycles)
		;
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	static cudaStream_t mine;
	(void)stream;
	if (!mine && cudaStreamCreateWithFlags(&mine, cudaStreamNonBlocking) != cudaSuccess)
		return 1;
	spin<<<1, 1, 0, mine>>>(2000000);   /* about 1 ms: well past the slack */
	return honest_softmax(x, y, batch, vocab, mine);
}
