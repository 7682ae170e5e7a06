/* rundetail.h: the publisher's per-run detail (kernelbench.com's
 * public/data/rundetail/<run_id>.json, a dataset's rundetail/<run_id>.json
 * or a run directory's rundetail.json): each benchmark shape's time,
 * TFLOPS, GB/s, fraction of the roofline, utilisation and bound, and the
 * run's stats (agent/check/benchmark seconds, tokens, cost, template
 * mutation) and GPU-lock wait. Rendered as plain lines with bars; the
 * replay's shapes pane and `kbtui export --full` show them. */
#ifndef KB_RUNDETAIL_H
#define KB_RUNDETAIL_H

#include <stddef.h>
#include "util.h"

struct rd_shape {
	int idx;
	char *label;              /* "1x131072x64" (owned), NULL unsaid */
	double ms, tflops, gbps;  /* < 0 unsaid */
	double frac;              /* fraction of the roofline the bound names */
	double compute_util, mem_util;
	char *bound;              /* "memory" | "compute" (owned), NULL */
};

struct rundetail {
	char *run_id, *gpu, *problem, *regime, *dtype, *failure_reason;  /* owned, NULL */
	char *table;              /* the hardware table id result.json names (owned), NULL unsaid */
	char *source;             /* the file read (owned) */
	int own;                  /* 1: kbtui's own eval's result.json, 0: the publisher's rundetail */
	double peak_tflops, peak_bw_gb_s;  /* the roofline it was measured against; < 0 */
	double peak_fraction;     /* < 0 null */
	/* stats; < 0 unsaid */
	double agent_s, total_s, check_s, benchmark_s, cost_usd;
	long long input_tokens, output_tokens;
	int template_mutated;     /* 1, 0, -1 unsaid */
	/* gpu_lock; < 0 unsaid */
	double lock_wait_s, lock_active_s;
	long long lock_acquisitions;
	struct rd_shape *shapes;
	size_t nshapes;
};

/* NULL and *err (owned, naming the file) when it cannot be read. */
struct rundetail *rundetail_load(const char *path, char **err);
void rundetail_free(struct rundetail *d);

/* Where a run's detail lies: its directory's rundetail.json, else
 * ROOT/rundetail/<run_id>.json (owned, NULL when neither is a file). Either
 * of run_dir and root may be NULL. */
char *rundetail_path(const char *run_dir, const char *root, const char *run_id);
/* The same from a transcript's path alone (a replay outside a dataset):
 * its directory's rundetail.json, else, when that directory is
 * ROOT/runs/<id>/, ROOT/rundetail/<run_id>.json. */
char *rundetail_path_near(const char *transcript, const char *run_id);

/* What the replay's shapes pane shows for the run whose transcript is
 * given: the publisher's rundetail (rundetail_path_near), else kbtui's own
 * eval's result.json beside the transcript when it has timed shapes. NULL
 * and *why (owned) when neither. */
struct rundetail *rundetail_for_run(const char *transcript, const char *run_id, char **why);

/* "agent 2701 s  check 29 s  benchmark 133 s  cost -  template unchanged
 *  GPU lock wait 132 s (2 acquisitions)": the stats in one line (owned). */
char *rundetail_stats_text(const struct rundetail *d);
/* The same in brief for the replay's header: "agent 195s check 12s bench
 * 28s $0.41 lock 5s" (template MUTATED when it was); owned, NULL when the
 * file states none of them. */
char *rundetail_stats_brief(const struct rundetail *d);
/* The deck the result.json beside a transcript records (its "deck"),
 * owned, raw; NULL when there is no such file or field. */
char *rundetail_result_deck(const char *transcript);
/* Each shape as "LABEL ms tflops gbps frac bound", "; " between (owned). */
char *rundetail_shapes_text(const struct rundetail *d);
/* The pane's text: the file it comes from and its table, a header naming
 * the roofline, the stats (the publisher's file only), then two rows
 * a shape: its numbers, and a bar of width cols - 2 filled to its
 * fraction of the roofline (the glyphs given: full and empty cells). Lines
 * end in '\n'; untrusted text is left raw for the caller to make safe. */
void rundetail_render(struct sbuf *b, const struct rundetail *d, int cols, const char *full, const char *empty);

#endif
