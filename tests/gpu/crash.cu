/* crash.cu: a solution of 04_kahan_softmax that writes far outside its
 * output, for tests/gpu/run.sh: an illegal address, which loses the CUDA
 * context. kbtui eval must report a crash (CUDA error), not a wrong answer. */
#include "interface.h"

static __global__ void scribble(float *y, size_t far)
{
	y[far + threadIdx.x] = 1.0f;
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	(void)x;
	/* 1 TiB past the buffer: unmapped on any GPU there is */
	scribble<<<1, 32, 0, stream>>>(y, ((size_t)1 << 40) / sizeof(float) + (size_t)batch * vocab);
	return 0;
}
