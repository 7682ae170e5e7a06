/* dataset.h: a directory in the KernelBench-Hard dataset layout, indexed
 * without parsing any transcript; transcripts load when first needed.
 *
 *   runs.jsonl               index (when absent, runs/<id>/ are scanned)
 *   leaderboard.json         problems x models grid
 *   leaderboard_v1.json      kernelbench.com's later grid (same schema)
 *   problem_baselines.json   eager / compiled / SOTA per problem
 *   runs/<id>/{transcript.jsonl|codex_session.jsonl, solution.py,
 *              result.json, check.log, benchmark.log, final.txt}
 *   annotations/<id>.yaml    verdicts
 *   problems/<name>/         problem metadata
 */
#ifndef KB_DATASET_H
#define KB_DATASET_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "run.h"
#include "provenance.h"

struct ds_run {
	struct run_meta meta;     /* from runs.jsonl / result.json */
	char *dir;                /* run directory (owned), NULL when unknown */
	char *transcript;         /* transcript path (owned), NULL when none */
	char *annotation;         /* annotation yaml path (owned), NULL when none */
	char *verdict;            /* annotation verdict (owned), NULL when none */
	char *leaderboard;        /* which leaderboard lists it (owned) */
	int held_out;             /* listed by the leaderboard, no transcript here */
	struct run *run;          /* parsed transcript, loaded lazily (owned) */
	char *load_error;         /* why the transcript did not load (owned) */
	/* the outcome as each file says it (meta above is their merge); the
	 * transcript's part is known once it has loaded */
	struct provenance prov;
	int result_pending;       /* result.json not read yet (dataset_open_lazy) */
	/* annotations/<id>.yaml's mtime in ns when the index was read, 0 when
	 * there was none: the version a tagging session starts from */
	long long annotation_mtime_ns;
};

struct ds_baseline {          /* one variant of problem_baselines.json */
	double ms, tflops, gbps;
};

struct ds_problem {
	char *name;               /* "01_fp8_gemm" (owned) */
	/* problem_baselines.json variants; ms < 0 when absent */
	struct ds_baseline eager, compiled, sota, solution;
};

struct dataset {
	char *root;               /* owned */
	struct ds_run *runs;
	size_t nruns;
	struct ds_problem *problems;
	size_t nproblems;
	char *hardware;           /* from leaderboard.json (owned), may be NULL */
	/* index problems, with file and line, kept to show the user */
	struct run_error errors[RUN_MAX_ERRORS];
	char *error_files[RUN_MAX_ERRORS];
	int nerrors;
	size_t details_left;      /* runs whose result.json is still pending */
	size_t details_next;      /* no run before it is pending */
	/* dataset_find's table: run indices by run_id, open addressing (owned) */
	size_t *find_slot;
	size_t find_nslot, find_nruns;
};

/* NULL and *err (owned) when dir is not a dataset at all. */
struct dataset *dataset_open(const char *dir, char **err);
/* The same but that no annotation is read (no verdict, nor its errors):
 * for `kbtui search`, which shows none, and where reading every YAML file
 * was a sixth of a cached search. */
struct dataset *dataset_open_runs(const char *dir, char **err);
/* The same, but that each run's result.json, which only says what the
 * other files say or where they disagree, is read later: for the browser,
 * whose first screen at 14,000 runs must not wait for 14,000 files. A run
 * is read by dataset_details (dataset_load does it), the rest a few at a
 * time by dataset_details_step. */
struct dataset *dataset_open_lazy(const char *dir, char **err);
void dataset_free(struct dataset *ds);

/* Run i's result.json read if it is pending (its provenance complete). */
void dataset_details(struct dataset *ds, size_t i);
/* Up to n pending runs read, in order; returns how many are left. */
size_t dataset_details_step(struct dataset *ds, size_t n);

/* Parses run i's transcript if not yet done; NULL when it cannot be read
 * (ds->runs[i].load_error says why). */
/* Whether run i's transcript resolves inside the dataset, links followed
 * (what dataset_load requires), without opening it. */
int dataset_transcript_inside(const struct dataset *ds, size_t i);
struct run *dataset_load(struct dataset *ds, size_t i);
/* Runs whose index names no harness or model (a directory without
 * runs.jsonl) get them from their parsed transcript: the format's harness,
 * the model the transcript names. Parses those runs once and frees them. */
void dataset_fill_meta(struct dataset *ds);

/* Index of run_id, or -1. */
long dataset_find(const struct dataset *ds, const char *run_id);

/* A run the index does not list yet (a sweep's cell still queued or
 * running): run_id copied, its directory DIR/runs/<run_id>, the rest of
 * its meta for the caller to fill. ds->runs may move: call it before
 * anything holds a pointer into them. */
struct ds_run *dataset_add_run(struct dataset *ds, const char *run_id);
/* Run i's directory read again after it changed (a cell that finished):
 * its transcript looked for when it had none, result.json's outcome, a
 * parsed transcript dropped (parsed again when next loaded). */
void dataset_reread_run(struct dataset *ds, size_t i);

/* Path of an artifact of run i ("solution.py", "result.json", ...), NULL
 * when the run has no directory or the file is absent. Owned by caller. */
char *dataset_artifact(const struct dataset *ds, size_t i, const char *name);

/* The transcript of a run directory: transcript.jsonl, codex_session.jsonl,
 * or the only *.jsonl there (owned; NULL when none or ambiguous). */
char *dataset_find_transcript(const char *run_dir);

/* Where `kbtui` with no argument looks: $KBTUI_DATA, else a fetched dataset,
 * else the bundled sample. Owned by caller; argv0 helps find an uninstalled
 * sample. */
char *dataset_default_dir(const char *argv0);

/* Run i's annotation is the file at path now (tagging wrote it, or the
 * annotator's own directory holds it): its verdict is read again; an
 * absent file (or path NULL) means no verdict. */
void dataset_set_verdict(struct dataset *ds, size_t i, const char *path);

/* Reads the top-level "verdict" of an annotation file with libyaml (owned,
 * NULL when absent or unreadable; then *err says what and *err_line where,
 * 0 when the file could not be opened). */
char *dataset_read_verdict(const char *yaml_path, int *err_line, char **err);

#endif
