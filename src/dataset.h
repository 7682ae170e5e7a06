/* dataset.h: a directory in the KernelBench-Hard dataset layout, indexed
 * without parsing any transcript; transcripts load when first needed.
 *
 *   runs.jsonl               index (when absent, runs/<id>/ are scanned)
 *   leaderboard.json         problems x models grid
 *   leaderboard_v1.json      kernelbench.com's later grid (same schema)
 *   leaderboard*.json        every other board: one per GPU and version
 *                            (board.h), each naming its hardware
 *   problem_baselines.json   eager / compiled / SOTA per problem
 *   problem_baselines.X.json the same on another GPU (X: h100, b200)
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
#include "board.h"

struct strpool;

struct ds_run {
	/* from runs.jsonl / result.json; run_id, session_id and cwd owned,
	 * the names (harness, model, effort, problem, format, label) the
	 * dataset's pool's: set them with dataset_intern, never free them */
	struct run_meta meta;
	char *dir;                /* run directory (owned), NULL when unknown */
	char *transcript;         /* transcript path (owned), NULL when none */
	char *annotation;         /* annotation yaml path (owned), NULL when none */
	char *verdict;            /* annotation verdict (owned), NULL when none */
	char *leaderboard;        /* which leaderboard lists it (the pool's) */
	unsigned boards;          /* bit b: ds->boards[b] lists it */
	/* the boards' verdict (a cell's annotation_verdict, a v2 board's
	 * ranked_valid_passes verdict; owned, NULL none), and whether two
	 * boards gave different ones */
	char *board_verdict;
	int board_verdict_split;
	int held_out;             /* listed by the leaderboard, no transcript here */
	char *deck;               /* the deck its result.json records (owned), NULL none */
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
	char *gpu;                /* "h100" of problem_baselines.h100.json (owned), NULL the main */
};

struct dataset {
	char *root;               /* owned */
	struct ds_run *runs;
	size_t nruns;
	int root_fd;              /* root opened for the inside checks (util_dir_fd), -1 not yet */
	struct ds_problem *problems;
	size_t nproblems;
	char *hardware;           /* from leaderboard.json (owned), may be NULL */
	struct board *boards;     /* every leaderboard*.json, board_cmp_files order */
	size_t nboards;
	/* index problems, with file and line, kept to show the user */
	struct run_error errors[RUN_MAX_ERRORS];
	char *error_files[RUN_MAX_ERRORS];
	int nerrors;
	int annot_errors;         /* of nerrors, the annotation files' (they never fail a listing) */
	size_t details_left;      /* runs whose result.json is still pending */
	size_t details_next;      /* no run before it is pending */
	/* dataset_find's table: run indices by run_id, open addressing (owned) */
	size_t *find_slot;
	size_t find_nslot, find_nruns;
	struct strpool *strs;     /* the runs' names, one copy each (owned) */
};

/* The dataset's one copy of s (NULL for NULL), valid until dataset_free:
 * what a run's names are set to. */
char *dataset_intern(struct dataset *ds, const char *s);

/* NULL and *err (owned) when dir is not a dataset at all. */
struct dataset *dataset_open(const char *dir, char **err);
/* The same but that no annotation is read (no verdict, nor its errors),
 * and each run's result.json only when the run is loaded (as
 * dataset_open_lazy): for `kbtui search`, which shows neither, and where
 * reading every YAML file was a sixth of a cached search, and every
 * result.json a tenth at 14k runs. */
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

/* The GPU of run i: the hardware its first board names (NULL none). */
const char *dataset_gpu(const struct dataset *ds, size_t i);
/* Whether run i's boards name different GPUs (a run listed on an RTX PRO
 * 6000 board and a B200 one): a disagreement, marked as the others are. */
int dataset_gpu_split(const struct dataset *ds, size_t i);
/* The verdict the verdict column shows: the annotation's, else the
 * boards'. *disagree (may be NULL): the annotation and the boards say
 * different verdicts, or the boards differ among themselves. */
const char *dataset_verdict(const struct ds_run *r, int *disagree);
/* What --board and --gpu select (NULL: any). */
struct ds_select {
	const char *board, *gpu;
};
/* 0 when each names a board of ds, else -1 and *err (owned) lists them. */
int dataset_select_check(const struct dataset *ds, const struct ds_select *s, char **err);
/* Whether run i is on a board the selection takes; a run on no board is
 * taken only when nothing is selected. */
int dataset_selected(const struct dataset *ds, size_t i, const struct ds_select *s);
/* Board b's runs whose annotation says reward_hack: to check the board's
 * reward_hack_count against. */
size_t dataset_board_hacks(const struct dataset *ds, size_t b);
/* Baselines of problem name on a board's GPU (that board's
 * problem_baselines.X.json, else the main one); NULL when none. b may be
 * NULL (the main). */
const struct ds_problem *dataset_baseline(const struct dataset *ds, const char *name, const struct board *b);

/* Run i's per-run detail file (rundetail.h): its directory's
 * rundetail.json, else the dataset's rundetail/<run_id>.json; owned, NULL
 * when there is none. */
char *dataset_rundetail(const struct dataset *ds, size_t i);
/* Whether run i can be read as dataset_load reads it (its transcript
 * there and inside the dataset); when not, load_error says why. For a
 * command that reads the transcript its own way (search, a stream). */
int dataset_loadable(struct dataset *ds, size_t i);

/* Parses run i's transcript if not yet done; NULL when it cannot be read
 * (ds->runs[i].load_error says why). */
/* Whether run i's transcript resolves inside the dataset, links followed
 * (what dataset_load requires), without opening it. */
int dataset_transcript_inside(const struct dataset *ds, size_t i);
struct run *dataset_load(struct dataset *ds, size_t i);
/* dataset_load in two halves, for a big transcript read between keys
 * (ui/pager.c): the loader of run i's transcript, its run carrying the
 * index's names already (NULL: load_error says why); then, once read,
 * the run handed to the dataset as dataset_load would have it. */
struct parser_loader;
struct parser_loader *dataset_loader(struct dataset *ds, size_t i);
struct run *dataset_adopt(struct dataset *ds, size_t i, struct run *run);
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
