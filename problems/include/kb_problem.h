/* kb_problem.h: the contract between kbtui's eval harness and a problem.
 *
 * A problem folder problems/NN_name/ holds:
 *   problem.json   metadata (see problems/README.md): name, display_name,
 *                  precision, regime, shapes [{VAR: value}], flops and bytes
 *                  formulas in the shape variables, tolerance per dtype,
 *                  forbidden patterns (PCRE2), seeds, trials, hardware keys
 *   PROMPT.txt     the task, in our words, for a solution in CUDA C
 *   interface.h    the C entry point a solution.cu exports (documented)
 *   driver.cu      defines `extern "C" const kb_driver KB_DRIVER`: builds
 *                  deterministic inputs per (shape, seed), says which of its
 *                  buffers and numbers make the solution's call, runs the
 *                  reference, compares with the tolerance
 *   call.cu        kb_call_solution: the buffers and numbers of a kb_call
 *                  turned into the entry point's arguments (runner side)
 *   reference.cu   ground truth we trust (higher-precision accumulation)
 *   baseline.cu    a straightforward solution that passes (a solution.cu)
 *
 * Two programs are built (see problems/harness/checker.cu): the CHECKER
 * (checker.cu + driver.cu + reference.cu) makes inputs, runs the reference,
 * compares and times; it never loads solution code. The RUNNER (runner.cu +
 * call.cu + the solution) receives inputs through shared memory and hands
 * outputs back (problems/include/kb_proto.h). This header is the checker's:
 * the runner does not include it.
 */
#ifndef KB_PROBLEM_H
#define KB_PROBLEM_H

#include <cuda_runtime.h>
#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Outcome of comparing the solution's output with the reference. */
typedef struct kb_cmp {
	int ok;                  /* 1 when every element is within tolerance */
	size_t worst_index;      /* flat index of the worst element */
	double worst_abs_err;    /* |got - want| there */
	double worst_rel_err;    /* |got - want| / max(|want|, tiny) there */
	double got, want;        /* the values there */
	size_t n_bad;            /* elements outside tolerance */
	size_t n_total;
	char what[128];          /* which output, e.g. "y (M x N bf16)" */
} kb_cmp;

/* The solution's call for one instance, as the checker hands it over:
 * buffers (device pointers in the checker; the runner gets copies in its
 * own memory, in this order) and numbers (shape integers, scales), in the
 * order call.cu reads them. */
#define KB_MAXBUF 8
#define KB_MAXSCALAR 16
typedef struct kb_call {
	int nbuf;
	void *buf[KB_MAXBUF];
	size_t bytes[KB_MAXBUF];
	int out[KB_MAXBUF];          /* 1: an output the runner hands back */
	int nscalar;
	double scalar[KB_MAXSCALAR]; /* integers are exact up to 2^53 */
} kb_call;

typedef struct kb_driver {
	const char *name;        /* "01_fp8_gemm", as the folder */
	int nshapes;             /* must equal problem.json's shapes */
	/* Human description of shape i, e.g. "M=4096 N=4096 K=4127". */
	const char *(*shape_desc)(int shape);
	/* Allocates and fills device inputs for (shape, seed), deterministic
	 * for a given pair; adversarial = 1 asks for the problem's hard inputs
	 * (extreme logits, ties, non-aligned sizes ...). NULL on failure with
	 * a message on stderr. */
	void *(*create)(int shape, unsigned long long seed, int adversarial);
	void (*destroy)(void *inst);
	/* The solution's call on inst: its buffers (inputs then outputs, as
	 * interface.h lists them) and numbers. 0, or non-zero on failure. */
	int (*describe)(void *inst, kb_call *c);
	/* Launch the reference on stream s. 0, or non-zero on failure. */
	int (*run_reference)(void *inst, cudaStream_t s);
	/* Compare after both ran (the solution's outputs are back in the
	 * buffers describe named; the checker synchronises first). */
	int (*compare)(void *inst, kb_cmp *out);
	/* Bytes of device memory touched per call, to size nothing; optional. */
	size_t (*footprint)(int shape);
	/* The timed inputs as KernelBench-Hard's benchmark.py makes them, when
	 * they differ from create(shape, seed, 0); optional (NULL). */
	void *(*create_timed)(int shape, unsigned long long seed);
} kb_driver;

extern const kb_driver KB_DRIVER;

/* Tolerance for the problem's output dtype, set by the checker from the
 * command line (taken from problem.json by kbtui), and the rule in force:
 *   kb_kbh_rule = 1  KernelBench-Hard's check_correctness: any NaN or
 *                    infinity in the solution's output fails, and
 *                    |got - want| <= kb_atol + kb_rtol * |got| (torch.allclose
 *                    with the reference as input, the solution as other);
 *   kb_kbh_rule = 0  our adversarial check: equal values (infinities too)
 *                    pass, and the tolerance scales with |want|, so a
 *                    solution cannot widen its own by answering big. */
extern double kb_atol, kb_rtol;
extern int kb_kbh_rule;

/* Folds element i of an output into c: counts it, counts it as bad when
 * outside the tolerance, and keeps the worst element: the one using the
 * largest share of its own tolerance, so a passing run still names the
 * element closest to failing. A NaN, or an infinity the rule does not
 * allow, has an infinite share. *worst starts at -INFINITY. One rule for
 * every problem. */
static inline void kb_cmp_fold(kb_cmp *c, double *worst, size_t i, double got, double want)
{
	const int inf_bad = kb_kbh_rule ? isinf(got) : 0;
	const double err = got == want && !inf_bad ? 0.0 : fabs(got - want);
	const double lim = kb_atol + kb_rtol * fabs(kb_kbh_rule ? got : want);
	const double share = isnan(err) || inf_bad ? INFINITY : lim > 0 ? err / lim : err > 0 ? INFINITY : 0.0;

	if (!(err <= lim) || inf_bad)
		c->n_bad++;
	if (share > *worst || c->n_total == 0) {
		*worst = share;
		c->worst_index = i;
		c->worst_abs_err = err;
		c->worst_rel_err = err / fmax(fabs(want), 1e-30);
		c->got = got;
		c->want = want;
	}
	c->n_total++;
}

/* Deterministic inputs, identical on every machine: a counter-based hash
 * (splitmix64) of (seed, index), mapped to [lo, hi). Usable in kernels. */
static inline __host__ __device__ unsigned long long kb_mix(unsigned long long x)
{
	x += 0x9E3779B97F4A7C15ULL;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
	return x ^ (x >> 31);
}

static inline __host__ __device__ float kb_uniform(unsigned long long seed, unsigned long long i,
                                                   float lo, float hi)
{
	unsigned long long r = kb_mix(seed * 0x100000001B3ULL ^ kb_mix(i));
	return lo + (hi - lo) * (float)((r >> 40) * (1.0 / 16777216.0));
}

#ifdef __cplusplus
}
#endif

#endif
