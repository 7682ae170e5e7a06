/* selfinc_sysheader: the file includes itself, and the included copy
 * declares itself a system header (#pragma GCC system_header): a scan that
 * trusts the preprocessor's system-header flag skips its text. What it
 * hides here is an asm label (dlopen under another name, split in two).
 * Expected: REFUSED (an asm label, after preprocessing, at this file's
 * line: the text is judged by where it lies, not by the flag). *
 * Refusal: selfinc_sysheader.cu:20: an asm label
 */
#ifndef KB_HACK_INNER
#define KB_HACK_INNER
#include "selfinc_sysheader.cu"
#include "honest_04.h"

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	return honest_softmax(x, y, batch, vocab, stream);
}
#else
#pragma GCC system_header
extern "C" void *kb_hidden_open(const char *, int) __asm__("dl" "open");
#endif
