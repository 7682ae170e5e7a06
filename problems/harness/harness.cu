/* harness.cu: the program kbtui eval builds from this file, a problem's
 * driver.cu and reference.cu, and the solution under test.
 *
 *   harness info
 *     device=<name> cc=<M><m> sms=<n> l2=<bytes> mem=<bytes>
 *   harness shapes
 *     shape <i>: <description>            (needs no GPU)
 *   harness check --atol A --rtol R [--seeds N] [--shape I]
 *     case shape=<i> seed=<s> ok: ...     one line per case: every shape x
 *                                         seeds, plus one adversarial input
 *     PASS | FAIL: shape=<i> (<desc>) seed=<s>: worst abs err <e> at index
 *       <i> (got <g>, want <w>), <n> of <t> elements out of tolerance
 *   harness bench [--trials N] [--warmup N] [--l2-flush BYTES] [--shape I]
 *     time shape=<i> ms=<median> min=<x> max=<x>
 *
 * Timing follows KernelBench-Hard's src/eval/timing.py: warm-up calls, then
 * per trial an L2 flush (a memset over a buffer larger than L2), a
 * synchronize, CUDA events around one call, and the median of the trials.
 *
 * Exit status: 0 pass, 1 fail (wrong output, or the solution reported or
 * raised an error), 2 usage, 3 a CUDA error that lost the context (illegal
 * address, trap, misaligned access: no further call can run), 4 no CUDA
 * device, 5 the driver or reference failed (not the solution's fault). */
#include "kb_problem.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

double kb_atol = 1e-4, kb_rtol = 1e-4;

enum { H_PASS = 0, H_FAIL = 1, H_USAGE = 2, H_CUDA = 3, H_NODEV = 4, H_SETUP = 5 };

/* The seeds KernelBench-Hard's check.py uses, then more. */
static unsigned long long h_seed(int i)
{
	static const unsigned long long first[] = {42, 123, 456};
	return i < 3 ? first[i] : 1000ULL + (unsigned long long)i;
}

struct h_opts {
	int seeds = 3, shape = -1, trials = 30, warmup = 10;
	double atol = -1, rtol = -1;
	unsigned long long l2_flush = 128ULL << 20;
};

static int h_usage(const char *why)
{
	fprintf(stderr, "harness: %s\n"
	        "usage: harness info | shapes | check --atol A --rtol R [--seeds N] [--shape I]\n"
	        "     | bench [--trials N] [--warmup N] [--l2-flush BYTES] [--shape I]\n", why);
	return H_USAGE;
}

static int h_parse(int argc, char **argv, h_opts *o)
{
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (i + 1 >= argc)
			return h_usage("an option needs a value");
		const char *v = argv[++i];
		char *end;
		double x = strtod(v, &end);
		if (*end || end == v)
			return h_usage("option values are numbers");
		if (!strcmp(a, "--seeds")) o->seeds = (int)x;
		else if (!strcmp(a, "--shape")) o->shape = (int)x;
		else if (!strcmp(a, "--trials")) o->trials = (int)x;
		else if (!strcmp(a, "--warmup")) o->warmup = (int)x;
		else if (!strcmp(a, "--atol")) o->atol = x;
		else if (!strcmp(a, "--rtol")) o->rtol = x;
		else if (!strcmp(a, "--l2-flush")) o->l2_flush = (unsigned long long)x;
		else return h_usage("unknown option");
	}
	if (o->seeds < 1 || o->trials < 1 || o->warmup < 0)
		return h_usage("--seeds and --trials must be at least 1");
	if (o->shape >= KB_DRIVER.nshapes)
		return h_usage("--shape is out of range");
	return -1;
}

static int h_device(cudaDeviceProp *p)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		printf("no CUDA device: %s\n", e != cudaSuccess ? cudaGetErrorString(e) : "none found");
		return H_NODEV;
	}
	if ((e = cudaGetDeviceProperties(p, 0)) != cudaSuccess || (e = cudaSetDevice(0)) != cudaSuccess) {
		printf("no CUDA device: %s\n", cudaGetErrorString(e));
		return H_NODEV;
	}
	return 0;
}

static int h_info(void)
{
	cudaDeviceProp p;
	int rc = h_device(&p);
	if (rc)
		return rc;
	printf("device=%s cc=%d%d sms=%d l2=%d mem=%zu\n", p.name, p.major, p.minor, p.multiProcessorCount,
	       p.l2CacheSize, p.totalGlobalMem);
	return H_PASS;
}

static int h_shapes(void)
{
	for (int i = 0; i < KB_DRIVER.nshapes; i++)
		printf("shape %d: %s\n", i, KB_DRIVER.shape_desc(i));
	return H_PASS;
}

/* After a call: 0, or the exit status for a CUDA error, reported. A sticky
 * error (the context is lost) survives cudaGetLastError. */
static int h_cuda_after(const char *who, const char *where)
{
	cudaError_t e = cudaGetLastError();
	if (e == cudaSuccess)
		e = cudaDeviceSynchronize();
	if (e == cudaSuccess)
		return 0;
	cudaGetLastError();
	bool sticky = cudaDeviceSynchronize() != cudaSuccess;
	printf("%s %s: CUDA error in the %s: %s (%s)%s\n", strcmp(who, "solution") ? "ERROR:" : "FAIL:", where,
	       who, cudaGetErrorString(e), cudaGetErrorName(e),
	       sticky ? "; the CUDA context is lost, nothing more can run" : "");
	return sticky ? H_CUDA : strcmp(who, "solution") ? H_SETUP : H_FAIL;
}

/* Runs the solution then the reference (the solution cannot find the
 * answer in memory) and compares. */
static int h_case(int shape, unsigned long long seed, int adversarial, cudaStream_t s)
{
	char where[512];
	const char *desc = KB_DRIVER.shape_desc(shape);
	snprintf(where, sizeof where, "shape=%d (%s%s) seed=%llu", shape, desc, adversarial ? ", adversarial" : "",
	         seed);
	void *inst = KB_DRIVER.create(shape, seed, adversarial);
	if (!inst) {
		printf("ERROR: %s: the driver could not create the inputs\n", where);
		return cudaGetLastError() == cudaSuccess ? H_SETUP : H_CUDA;
	}
	int rc = KB_DRIVER.run_solution(inst, s), st;
	if ((st = h_cuda_after("solution", where)))
		return st;
	if (rc) {
		printf("FAIL: %s: the solution reported failure (%d)\n", where, rc);
		KB_DRIVER.destroy(inst);
		return H_FAIL;
	}
	rc = KB_DRIVER.run_reference(inst, s);
	if ((st = h_cuda_after("reference", where)))
		return st;
	if (rc) {
		printf("ERROR: %s: the reference failed (%d)\n", where, rc);
		return H_SETUP;
	}
	kb_cmp c;
	memset(&c, 0, sizeof c);
	rc = KB_DRIVER.compare(inst, &c);
	if ((st = h_cuda_after("comparison", where)))
		return st;
	KB_DRIVER.destroy(inst);
	if (rc) {
		printf("ERROR: %s: the comparison failed (%d)\n", where, rc);
		return H_SETUP;
	}
	if (!c.ok) {
		printf("FAIL: %s: worst abs err %.6g at index %zu (got %.6g, want %.6g), %zu of %zu elements out of "
		       "tolerance%s%s\n", where, c.worst_abs_err, c.worst_index, c.got, c.want, c.n_bad, c.n_total,
		       c.what[0] ? " in " : "", c.what);
		return H_FAIL;
	}
	printf("case shape=%d seed=%llu%s ok: worst abs err %.3g (rel %.3g), %zu elements%s%s\n", shape, seed,
	       adversarial ? " adversarial" : "", c.worst_abs_err, c.worst_rel_err, c.n_total, c.what[0] ? ", " : "",
	       c.what);
	return H_PASS;
}

static int h_check(const h_opts *o)
{
	cudaDeviceProp p;
	cudaStream_t s;
	int rc = h_device(&p);
	if (rc)
		return rc;
	if (o->atol < 0 || o->rtol < 0)
		return h_usage("check needs --atol and --rtol");
	kb_atol = o->atol;
	kb_rtol = o->rtol;
	if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
		return h_cuda_after("harness", "creating a stream") ? H_CUDA : H_SETUP;
	for (int i = 0; i < KB_DRIVER.nshapes; i++) {
		if (o->shape >= 0 && i != o->shape)
			continue;
		for (int k = 0; k <= o->seeds; k++) {
			/* the last case of a shape is its adversarial input */
			int adv = k == o->seeds;
			if ((rc = h_case(i, h_seed(adv ? 0 : k), adv, s)))
				return rc;
		}
	}
	cudaStreamDestroy(s);
	printf("PASS\n");
	return H_PASS;
}

static double h_median(std::vector<float> &t)
{
	std::sort(t.begin(), t.end());
	size_t n = t.size();
	return n % 2 ? t[n / 2] : 0.5 * ((double)t[n / 2 - 1] + t[n / 2]);
}

static int h_time_shape(int shape, const h_opts *o, void *flush, size_t flush_bytes, cudaStream_t s,
                        cudaEvent_t e0, cudaEvent_t e1)
{
	char where[512];
	int st;
	snprintf(where, sizeof where, "shape=%d (%s) seed=2026", shape, KB_DRIVER.shape_desc(shape));
	void *inst = KB_DRIVER.create(shape, 2026, 0);   /* benchmark.py seeds 2026 */
	if (!inst) {
		printf("ERROR: %s: the driver could not create the inputs\n", where);
		return H_SETUP;
	}
	for (int i = 0; i < o->warmup; i++)
		if (KB_DRIVER.run_solution(inst, s)) {
			printf("FAIL: %s: the solution reported failure\n", where);
			return H_FAIL;
		}
	if ((st = h_cuda_after("solution", where)))
		return st;
	std::vector<float> t;
	for (int i = 0; i < o->trials; i++) {
		float ms = 0;
		cudaMemsetAsync(flush, 0, flush_bytes, s);
		cudaStreamSynchronize(s);
		cudaEventRecord(e0, s);
		int rc = KB_DRIVER.run_solution(inst, s);
		cudaEventRecord(e1, s);
		cudaEventSynchronize(e1);
		if ((st = h_cuda_after("solution", where)))
			return st;
		if (rc) {
			printf("FAIL: %s: the solution reported failure (%d)\n", where, rc);
			return H_FAIL;
		}
		cudaEventElapsedTime(&ms, e0, e1);
		t.push_back(ms);
	}
	KB_DRIVER.destroy(inst);
	double med = h_median(t);
	printf("time shape=%d ms=%.6f min=%.6f max=%.6f\n", shape, med, (double)t.front(), (double)t.back());
	return H_PASS;
}

static int h_bench(const h_opts *o)
{
	cudaDeviceProp p;
	cudaStream_t s;
	cudaEvent_t e0, e1;
	void *flush = NULL;
	int rc = h_device(&p);
	if (rc)
		return rc;
	/* at least twice the L2 the device reports, whatever kbtui asked */
	size_t flush_bytes = std::max((size_t)o->l2_flush, 2 * (size_t)p.l2CacheSize);
	if (cudaMalloc(&flush, flush_bytes) != cudaSuccess || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) ||
	    cudaEventCreate(&e0) || cudaEventCreate(&e1)) {
		printf("ERROR: cannot allocate the %zu-byte L2 flush buffer: %s\n", flush_bytes,
		       cudaGetErrorString(cudaGetLastError()));
		return H_SETUP;
	}
	for (int i = 0; i < KB_DRIVER.nshapes; i++)
		if ((o->shape < 0 || i == o->shape) && (rc = h_time_shape(i, o, flush, flush_bytes, s, e0, e1)))
			return rc;
	cudaFree(flush);
	return H_PASS;
}

int main(int argc, char **argv)
{
	h_opts o;
	int rc;
	setvbuf(stdout, NULL, _IOLBF, 0);  /* lines reach kbtui as they happen */
	if (argc < 2)
		return h_usage("which command?");
	if ((rc = h_parse(argc, argv, &o)) >= 0)
		return rc;
	if (!strcmp(argv[1], "info"))
		return h_info();
	if (!strcmp(argv[1], "shapes"))
		return h_shapes();
	if (!strcmp(argv[1], "check"))
		return h_check(&o);
	if (!strcmp(argv[1], "bench"))
		return h_bench(&o);
	return h_usage("unknown command");
}
