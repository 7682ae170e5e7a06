/* timer.cu: an independent timer for tests/gpu/run.sh, sharing nothing
 * with the checker/runner pair but the problem's driver (for the inputs),
 * call.cu and the solution: one process, a plain cudaEvent pair on a
 * blocking stream around each call after an L2 flush on that stream, and a
 * host clock around a device-wide synchronisation. Built as
 *   nvcc timer.cu driver.cu reference.cu call.cu SOLUTION.cu -o kbtimer
 * and run as `kbtimer TRIALS FLUSH_BYTES`; prints per shape
 *   indep shape=<i> ev_ms=<median> host_ms=<median>
 * run.sh compares ev_ms with what kbtui eval reported. */
#include "kb_problem.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

double kb_atol = 1e-4, kb_rtol = 1e-4;
int kb_kbh_rule = 1;

extern "C" int kb_call_solution(void *const *buf, const double *scalar, cudaStream_t stream);

static double t_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static double t_median(std::vector<double> v)
{
	std::sort(v.begin(), v.end());
	size_t n = v.size();
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int main(int argc, char **argv)
{
	int trials = argc > 1 ? atoi(argv[1]) : 30;
	size_t flush_bytes = argc > 2 ? strtoull(argv[2], NULL, 10) : (size_t)256 << 20;
	void *flush;
	cudaStream_t s;
	cudaEvent_t e0, e1;
	if (cudaMalloc(&flush, flush_bytes) || cudaStreamCreate(&s) || cudaEventCreate(&e0) || cudaEventCreate(&e1)) {
		fprintf(stderr, "kbtimer: no device or no memory\n");
		return 4;
	}
	for (int sh = 0; sh < KB_DRIVER.nshapes; sh++) {
		void *inst = KB_DRIVER.create_timed ? KB_DRIVER.create_timed(sh, 2026) : KB_DRIVER.create(sh, 2026, 0);
		kb_call c = {};
		if (!inst || KB_DRIVER.describe(inst, &c))
			return 5;
		for (int i = 0; i < 10; i++)
			kb_call_solution(c.buf, c.scalar, s);
		cudaDeviceSynchronize();
		std::vector<double> ev, host;
		for (int i = 0; i < trials; i++) {
			float ms = 0;
			cudaMemsetAsync(flush, 0, flush_bytes, s);
			cudaStreamSynchronize(s);
			double t0 = t_now_ms();
			cudaEventRecord(e0, s);
			kb_call_solution(c.buf, c.scalar, s);
			cudaEventRecord(e1, s);
			cudaDeviceSynchronize();
			host.push_back(t_now_ms() - t0);
			cudaEventElapsedTime(&ms, e0, e1);
			ev.push_back(ms);
		}
		if (cudaGetLastError() != cudaSuccess)
			return 3;
		printf("indep shape=%d ev_ms=%.6f host_ms=%.6f\n", sh, t_median(ev), t_median(host));
		KB_DRIVER.destroy(inst);
	}
	return 0;
}
