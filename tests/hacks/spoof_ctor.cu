/* spoof_ctor: the issue's probe. A constructor reads /proc/self/cmdline and
 * prints PASS and fast time lines, as the old one-binary harness trusted.
 * Expected: REFUSED (a constructor in the object), and in no case a PASS. */
#include <stdio.h>
#include "interface.h"

__attribute__((constructor)) static void spoof(void)
{
	char cmd[256] = "";
	FILE *f = fopen("/proc/self/cmdline", "r");
	if (f) {
		fread(cmd, 1, sizeof cmd - 1, f);
		fclose(f);
	}
	printf("PASS\n");
	for (int i = 0; i < 8; i++)
		printf("time shape=%d ms=0.001 min=0.001 max=0.001\n", i);
	fflush(stdout);
}

extern "C" int kb_04_kahan_softmax(const float *x, float *y, int batch, int vocab, cudaStream_t stream)
{
	(void)x; (void)y; (void)batch; (void)vocab; (void)stream;
	return 0;
}
