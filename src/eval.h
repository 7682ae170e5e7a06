/* eval.h: the loop that scores a solution on the GPU, as KernelBench-Hard
 * does with check.py and benchmark.py:
 *   forbidden patterns -> nvcc (the solution, preprocessed and compiled)
 *   -> static checks on both (refusals) -> the checker (checker + driver +
 *   reference) and the runner (runner + call + solution) linked apart
 *   -> check (KernelBench-Hard's seeds, then an adversarial input a shape)
 *   -> bench (CUDA events, L2 flush, median, the host clock around each
 *   call, timed outputs compared) -> TFLOPS, GB/s, peak_fraction
 * Verdicts and times are read from the checker's stdout only.
 * Each step is a child process with a time limit. The work directory gets
 * solution.cu, compile.log, check.log, benchmark.log and result.json (the
 * dataset's run layout) and nothing is written elsewhere.
 * With opts.kbh the original python check.py / benchmark.py of a
 * KernelBench-Hard checkout run instead, on a copy of the problem folder. */
#ifndef KB_EVAL_H
#define KB_EVAL_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>

enum eval_stage { EVAL_SETUP, EVAL_FORBID, EVAL_COMPILE, EVAL_CHECK, EVAL_BENCH, EVAL_DONE };

/* Called for every line of every step as it arrives: stage is "compile",
 * "check", "bench" or "eval" (the loop's own messages). */
typedef void (*eval_line_fn)(void *ud, const char *stage, const char *line, size_t len);

struct eval_opts {
	const char *problem;        /* "04_kahan_softmax", "04" or "kahan_softmax" */
	const char *problems_dir;   /* NULL: problem_default_dir() */
	const char *hardware;       /* profile key; NULL: from the device name */
	const char *deck;           /* problems/decks/NAME; NULL: $KBTUI_DECK, else the GPU's current deck */
	int no_own_checks;          /* our adversarial input not counted: the deck's verdict alone */
	const char *arch;           /* nvcc target "sm_90a"; NULL: from the profile/device */
	const char *workdir;        /* NULL: ./kbtui-eval-<problem> */
	const char *solution;       /* solution.cu (solution.py with kbh) */
	const char *kbh;            /* a KernelBench-Hard checkout, or NULL */
	const char *nvcc;           /* NULL: eval_find_nvcc() */
	const char *python;         /* kbh: NULL finds python, then python3 */
	const char *model;          /* result.json "model"; may be NULL */
	double timeout_s;           /* per step; <= 0: 300 */
	int seeds, trials;          /* <= 0: the problem's */
	eval_line_fn on_line;
	/* Called as a step begins (EVAL_FORBID, EVAL_COMPILE, EVAL_CHECK,
	 * EVAL_BENCH), before its lines: a screen opens a section per step.
	 * NULL: none. Gets ud too. */
	void (*on_stage)(void *ud, enum eval_stage stage);
	void *ud;
	/* Set to nonzero (by another thread, or a signal handler) to stop the
	 * loop: the running step's process group is killed, no further step
	 * starts, the failure is "aborted". NULL: not abortable. */
	volatile sig_atomic_t *abort;
};

struct eval_shape {
	int shape;
	char *desc;
	double flops, bytes;
	double ms, min_ms, max_ms;  /* -1 until timed */
	double tflops, gbps;
	double peak_fraction;       /* -1 without a hardware profile */
	double host_ms;             /* the checker's host clock, median; -1 */
	/* as the publisher's rundetail defines them: tflops and gbps against
	 * the table's peaks (-1 without one); bound names the larger (static
	 * string, NULL until timed) */
	double compute_util, mem_util;
	const char *bound;
};

struct eval_result {
	char *problem, *hardware, *device, *arch, *solution, *workdir, *model;
	char *mode;                 /* "native" or "kbh" */
	char *deck, *table;         /* the deck run and its hardware table id; NULL: none */
	char *regime, *dtype;       /* the problem's regime and peak_tflops key; NULL */
	double peak_tflops, peak_gbps;  /* the roofline the shapes were scored on; -1 */
	int own_checks;             /* 1: our adversarial check counted in correct */
	int has_solution, correct;
	double peak_fraction;       /* geomean over shapes; -1: none */
	char *verdict;              /* "OK" / "LOW" when benchmarked, "INVALID", "REFUSED" */
	double elapsed_seconds;
	enum eval_stage stage;      /* where it stopped: EVAL_DONE when it got through */
	char *failure;              /* why it stopped or what went wrong, else NULL */
	int crashed, timed_out, no_device;
	/* refused: the static checks said no before the device was needed;
	 * invalid: the numbers cannot be right (event time against the host
	 * clock, or above the hardware's roofline): never a score */
	int refused, invalid;
	/* the check in two parts (native): KernelBench-Hard's seeds, tolerance
	 * and rule alone, comparable with the dataset; and our adversarial
	 * inputs. correct needs both. -1 when not reached. */
	int kbh_correct, adversarial_correct;
	struct eval_shape *shapes;
	int nshapes;
};

/* 0: the solution is correct (benchmarked unless something failed there);
 * 1: it is not, or a step failed (r->failure says why);
 * -1: bad input before anything ran (no such problem, no nvcc ...): the
 * message is in r->failure. r is always filled; free with eval_result_free. */
int eval_run(const struct eval_opts *o, struct eval_result *r);
void eval_result_free(struct eval_result *r);

/* A timed shape's peak_fraction, compute_util, mem_util and bound from its
 * tflops and gbps against the peaks (<= 0: unknown), regime choosing which
 * utilisation is the fraction, as the publisher's rundetail files do. */
void eval_shape_roofline(struct eval_shape *s, const char *regime, double peak_tflops, double peak_gbps);

/* result.json of r, written atomically. 0, or -1 with *err (owned). */
int eval_write_result(const struct eval_result *r, const char *path, char **err);
/* The JSON object (owned by the caller, cJSON_Delete). */
struct cJSON *eval_result_json(const struct eval_result *r);

/* nvcc: $KBTUI_NVCC, else configure's KB_NVCC, else $CUDA_HOME/bin/nvcc,
 * else nvcc in PATH;
 * NULL when there is none. Owned. */
char *eval_find_nvcc(void);
const char *eval_stage_name(enum eval_stage s);

/* `kbtui eval`: argv[0] is the command name; options as in kbtui(1).
 * Returns 0 pass, 1 fail or bad input, 2 usage (--tui too: the screen is
 * ui/evaltui.c's). */
int cmd_eval(int argc, char **argv, FILE *out, FILE *err);

/* The options of `kbtui eval`, parsed; o's strings point into argv. */
struct eval_cmd {
	struct eval_opts o;
	int tui;                    /* --tui */
	const char *sandbox;        /* --sandbox none|bwrap (borrowed); NULL: evalbox_choose's default */
};
/* -1 when ec is ready to run, else the exit status (help or the hardware
 * list printed, or a usage error said on err). */
int cmd_eval_prepare(int argc, char **argv, struct eval_cmd *ec, FILE *out, FILE *err);
/* Runs ec with the loop's lines on out, the verdict at the end. */
int cmd_eval_headless(struct eval_cmd *ec, FILE *out, FILE *err);
/* The verdict lines ("kbtui eval: NAME on ...: PASS, ...", "results in"). */
void cmd_eval_summary(const struct eval_result *r, FILE *out);

#endif
