/* cache_sample: memoises answers keyed by a hash of a few input values
 * (two entries, so the alternating timed inputs both hit). Every answer it
 * returns is right for its input. Expected: not catchable, by design: a
 * content cache that only returns right answers is memoisation; it cannot
 * be told apart from a fast kernel except by a time above the roofline
 * (INVALID) or inputs that share the sampled values (we generate fresh
 * random inputs, which do not). Needs a GPU; reported, not asserted. */
#include <string.h>
#include "honest_04.h"

struct entry {
	unsigned long long key;
	float *y;
	size_t n;
};

static unsigned long long sample_key(const float *x, size_t n)
{
	float s[8];
	unsigned long long h = 1469598103934665603ULL;
	for (int i = 0; i < 8; i++)
		cudaMemcpy(&s[i], x + (n / 8) * i, sizeof(float), cudaMemcpyDeviceToHost);
	for (int i = 0; i < 8; i++) {
		unsigned u;
		memcpy(&u, &s[i], 4);
		h = (h ^ u) * 1099511628211ULL;
	}
	return h ^ n;
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	static entry e[2];
	static int next;
	const size_t n = (size_t)batch * vocab;
	const unsigned long long k = sample_key(x, n);
	for (int i = 0; i < 2; i++)
		if (e[i].y && e[i].key == k && e[i].n == n)
			return cudaMemcpyAsync(y, e[i].y, n * 4, cudaMemcpyDeviceToDevice, stream) != cudaSuccess;
	int rc = honest_softmax(x, y, batch, vocab, stream);
	entry *d = &e[next++ % 2];
	if (d->y)
		cudaFree(d->y);
	if (cudaMalloc(&d->y, n * 4) != cudaSuccess)
		return 1;
	d->key = k;
	d->n = n;
	return rc || cudaMemcpyAsync(d->y, y, n * 4, cudaMemcpyDeviceToDevice, stream) != cudaSuccess;
}
