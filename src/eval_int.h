/* eval_int.h: what the parts of the eval loop share (eval.c: setup,
 * compile, check, bench and the entry; eval_kbh.c: the original python
 * loop; eval_result.c: result.json). Not for use outside them. */
#ifndef KB_EVAL_INT_H
#define KB_EVAL_INT_H

#include <stddef.h>
#include <stdio.h>

/* Included after eval.h (its types), never including it: the eval module
 * depends on this header, not the other way round. */

struct benchlog;
struct deck;
struct deck_problem;
struct hardware_list;
struct hardware_profile;
struct problem;
struct proc_result;

#define EVAL_DEFAULT_TIMEOUT 300.0
#define EVAL_OUTPUT_CAP (8u << 20)
/* KernelBench-Hard's timing.py flushes 128 MB (its L2 is 96 MB). */
#define EVAL_L2_FLUSH_MIN (128.0 * 1024 * 1024)
/* Exit statuses of the checker, problems/harness/checker.cu. */
enum { H_PASS = 0, H_FAIL = 1, H_USAGE = 2, H_CUDA = 3, H_NODEV = 4, H_SETUP = 5, H_INVALID = 6 };
/* A throughput up to this much above the roofline is measurement noise
 * (clock boost, the profile's rounding); beyond it the number is INVALID. */
#define EVAL_ROOFLINE_NOISE 1.05

struct eval_ctx {
	const struct eval_opts *o;
	struct eval_result *r;
	struct problem *pb;
	struct hardware_list *hw;
	const struct hardware_profile *prof;
	/* the deck the problem runs as (eval_deck.c), its entry for the
	 * problem and its roofline table (peaks and the INVALID gate are
	 * judged on it, not on the device's profile); NULL before chosen */
	struct deck *deck;
	const struct deck_problem *dprob;
	const struct hardware_profile *table;
	int deck_chosen;            /* the choice was made (a deck or none) */
	char *pdir;                 /* the problems directory */
	char *exe;                  /* the built checker (kbcheck) */
	char *runner;               /* the built runner (kbrun), the solution's */
	char *tmpdir;               /* workdir/tmp, the children's TMPDIR */
	double timeout, t0;
	int device_cc;              /* from nvidia-smi or `info`, 0 unknown */
	/* the solution as read once (native): every check and the build use
	 * these bytes, so a file changed meanwhile changes nothing; owned */
	char *src;
	size_t srclen;
};

/* One child step: where its lines go. */
struct eval_step {
	struct eval_ctx *x;
	const char *stage;
	FILE *log;
	struct benchlog *bl;
	char *first_error;          /* compile: the first error line */
	void (*after)(struct eval_step *st, const char *line, size_t len);
};

/* A step begins: the caller's on_stage hears of it. */
void eval_stage_begin(struct eval_ctx *x, enum eval_stage s);
/* Whether the caller asked the loop to stop (eval_opts.abort). */
int eval_aborted(const struct eval_ctx *x);
/* The loop's own message (stage "eval"), printf-style. */
void eval_say(struct eval_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records the first failure (stage reached, why) and returns rc. */
int eval_fail(struct eval_ctx *x, enum eval_stage st, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
int eval_copy_file(const char *from, const char *to);
int eval_copy_tree(const char *from, const char *to, int depth);
/* A log file in the work directory (NULL, said, when it cannot be made). */
FILE *eval_open_log(struct eval_ctx *x, const char *name);
/* Runs one child step with a time limit; its lines go to the step's log,
 * benchmark reader and the caller's on_line. */
void eval_step_run(struct eval_step *st, char *const *argv, const char *cwd, char *const *env,
                   double timeout, struct proc_result *res);
void eval_step_printf(struct eval_step *st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The work directory (made, the solution copied in with extension ext). */
int eval_workdir(struct eval_ctx *x, const char *ext);
/* Shape rows of the result from the problem's metadata. */
void eval_shapes_init(struct eval_ctx *x);

/* eval_static.c: the preprocessed texts nvcc kept in the folder keep (its
 * *.ii) and the solution's object, refused or not; 0, or 1 with the reason
 * recorded (r->refused). nvcc locates the toolkit, whose headers are not
 * the solution's. */
int eval_static(struct eval_ctx *x, const char *obj, const char *keep, const char *nvcc);

/* eval_deck.c: the deck, from --deck, $KBTUI_DECK or the GPU's profile
 * (the current deck for it). final = 0 leaves a default choice for later
 * when the GPU is not known yet. 0, or a failure recorded. */
int eval_deck_choose(struct eval_ctx *x, int final);
/* The profile peaks are judged on: the deck's table, else the device's. */
const struct hardware_profile *eval_roof(const struct eval_ctx *x);

/* eval_kbh.c */
int eval_kbh_problem(struct eval_ctx *x);
int eval_kbh(struct eval_ctx *x);

#endif
