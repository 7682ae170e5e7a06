/* tol_asmlabel_device: tol_asmlabel hidden where a host-side preprocessing
 * does not look: under __CUDA_ARCH__, in device code only. The static
 * checks read the preprocessed text of every pass nvcc compiled (it keeps
 * them), the device pass included. Expected: REFUSED (asm label). */
#include "interface.h"

static __global__ void leak(float *y)
{
#ifdef __CUDA_ARCH__
	extern __device__ double tol __asm__("kb_" "atol");
	y[0] = (float)tol;
#endif
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	(void)x; (void)batch; (void)vocab;
	leak<<<1, 1, 0, stream>>>(y);
	return 0;
}
