/* define_libc: defines libc functions the runner (or the CUDA runtime)
 * calls, so that theirs run in place of libc's: ioctl (the driver's door),
 * fstat, strerror, snprintf.
 * Expected: REFUSED (the object defines ioctl: interposition; the
 * allowlist refuses any other C name too). *
 * Refusal: the object defines ioctl, which it may only call (interposition)
 */
#include <stdarg.h>
#include <stddef.h>
#include <sys/stat.h>
#include "honest_04.h"

extern "C" int ioctl(int fd, unsigned long req, ...) { (void)fd; (void)req; return 0; }
extern "C" int fstat(int fd, struct stat *st) noexcept { (void)fd; (void)st; return 0; }
extern "C" char *strerror(int e) noexcept { (void)e; return (char *)"PASS"; }
extern "C" int snprintf(char *s, size_t n, const char *fmt, ...) noexcept { (void)fmt; if (n) *s = 0; return 0; }

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	return honest_softmax(x, y, batch, vocab, stream);
}
