/* honest_04.h: the 04 baseline under another name (honest_softmax), for the
 * hacks that wrap a correct answer in a trick. */
#define kb_04_kahan_softmax honest_softmax
#include "../../problems/04_kahan_softmax/baseline.cu"
#undef kb_04_kahan_softmax
