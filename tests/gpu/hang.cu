/* hang.cu: a solution of 04_kahan_softmax that never finishes, for
 * tests/gpu/run.sh: its kernel waits for a flag nobody sets. kbtui eval
 * must kill the check at its time limit, with its process group, report
 * the hang, and run the next solution normally. */
#include "interface.h"

static __device__ volatile int never_set = 0;

static __global__ void spin(float *y)
{
	while (!never_set)
		__nanosleep(1000);
	y[0] = 0;
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	(void)x;
	(void)batch;
	(void)vocab;
	spin<<<1, 1, 0, stream>>>(y);
	return 0;
}
