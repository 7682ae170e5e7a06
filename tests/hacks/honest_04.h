/* honest_04.h: the 04 baseline under another name (honest_softmax), for the
 * hacks that wrap a correct answer in a trick. Declared static first, so
 * the copy is local to the object (a solution may define only its entry
 * point globally). */
#include <cuda_runtime.h>
extern "C" {
static int honest_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream);
}
#define kb_04_kahan_softmax honest_softmax
#include "../../problems/04_kahan_softmax/baseline.cu"
#undef kb_04_kahan_softmax
