/* sweep.h: a sweep, the model x problem matrix run as `kbtui live` cells
 * into one directory that is a dataset when it is done:
 *
 *   sweep.json             the configuration (models, problems, live options)
 *   runs/<run_id>/         each cell's run, written by `kbtui live --headless`
 *   runs.jsonl             one row per finished cell (appended under runs.lock)
 *   leaderboard.json       problems x models, regenerated from runs.jsonl
 *   cells/<run_id>.json    a started cell's state (running, failed, killed)
 *   cells/<run_id>.lock    held (flock) by the process running the cell
 *   attempts/<run_id>.N/   runs of earlier failed attempts, kept
 *   slurm/                 job script, job ids, task logs (Slurm executor)
 *
 * The core here reads and writes that directory; executors (sweep_local.c,
 * sweep_slurm.c) only decide where and when a cell's runner starts. */
#ifndef KB_SWEEP_H
#define KB_SWEEP_H

#include <stdio.h>
#include <sys/types.h>

struct sweep_model {
	char *label;              /* "gpt-x [high]" (owned) */
	char *slug;               /* label made safe for a run id (owned) */
	char *provider;           /* "openai" or "anthropic" (owned) */
	char *model;              /* the API's model name (owned) */
	char *base_url;           /* owned, NULL: the provider's default */
	char *effort;             /* reasoning effort, recorded (owned, may be NULL) */
	char *key_env;            /* the variable that holds the key (owned) */
	int thinking;             /* --thinking tokens, 0: none */
	int line;                 /* line in the models file */
};

struct sweep_cell {
	char *run_id;             /* "<slug>_<problem>" (owned) */
	int model;                /* index into models */
	int problem;              /* index into problems */
};

struct sweep_config {
	struct sweep_model *models;
	int nmodels;
	char **problems;          /* canonical folder names (owned) */
	int nproblems;
	char *problems_dir;       /* owned, NULL: kbtui live's default */
	double budget_s;          /* 0: kbtui live's default */
	int max_turns;            /* 0: none given */
	int no_eval;
	char *sandbox;            /* owned, NULL: kbtui live's choice */
	char *deck;               /* owned, NULL: each cell's GPU's current deck */
	/* how it runs; may change from one invocation to the next */
	char *executor;           /* "local" or "slurm" (owned) */
	int parallel;
	char *partition;          /* owned, may be NULL */
	char **sbatch_opts;       /* extra sbatch options (owned) */
	int nsbatch_opts;
	int no_gpu;
	struct sweep_cell *cells; /* nmodels x nproblems, model-major */
	int ncells;
};

/* Reads a models file (YAML: a list, or a mapping with "models:", of
 * mappings label/provider/model/base_url/effort/key_env/thinking) into
 * c->models. 0, or -1 with *err (owned) naming file, line and what is wrong. */
int sweep_models_load(struct sweep_config *c, const char *path, char **err);
/* Resolves "all" or "01,kahan_softmax,..." against problems_dir into
 * c->problems and builds the cells. 0, or -1 with *err. */
int sweep_problems_set(struct sweep_config *c, const char *list, char **err);
void sweep_config_free(struct sweep_config *c);

/* DIR/sweep.json: written atomically; read back. A directory that already
 * holds another sweep (different models, problems or live options) is
 * refused with *err. 0, or -1 with *err (owned). */
int sweep_config_save(const struct sweep_config *c, const char *dir, char **err);
int sweep_config_load(struct sweep_config *c, const char *dir, char **err);

/* Index of the cell with run_id, -1 when none. */
int sweep_cell_find(const struct sweep_config *c, const char *run_id);

enum sweep_state {
	SWEEP_QUEUED,             /* not started (or pending in Slurm) */
	SWEEP_RUNNING,
	SWEEP_DONE,               /* finished: its row is in runs.jsonl */
	SWEEP_FAILED,             /* the run failed (provider, setup, crash) */
	SWEEP_KILLED,             /* stopped from outside: signal, cancel, time limit, node lost */
};
const char *sweep_state_name(enum sweep_state s);   /* "queued", "running" ... */

/* What a cell is doing now, read from the sweep directory alone. */
struct sweep_cell_status {
	enum sweep_state state;
	double elapsed;           /* seconds; running: so far, done: the run's */
	int turns;                /* -1 unknown */
	long long tokens;         /* input + output, -1 unknown */
	double peak_fraction;     /* running: the last one seen; done: the result's; < 0 none */
	int correct;              /* done: the eval's verdict */
	int session_complete;     /* done: the agent said it was done (no budget or turn limit) */
	int attempt;              /* 1 for the first, 0 when never started */
	char *reason;             /* failed/killed: why (owned, may be NULL) */
	char *host;               /* where it runs or ran (owned, may be NULL) */
	char *job;                /* Slurm "JOBID_TASK" (owned, may be NULL) */
	char *pending;            /* queued in Slurm: squeue's reason (owned, may be NULL) */
};

/* One status per cell (array owned, free with sweep_status_free), from
 * the directory alone. */
struct sweep_cell_status *sweep_status_read(const struct sweep_config *c, const char *dir);
/* The same, with what the sweep's executor knows beyond the directory
 * (pending in Slurm): what --status prints and a screen shows. */
struct sweep_cell_status *sweep_status_now(const struct sweep_config *c, const char *dir);
void sweep_status_free(struct sweep_cell_status *st, int n);

/* A cell's text in the grid: "queued", "running 3m12s t4 12.3k pf0.420",
 * "done PASS 0.4421 25m10s", "FAILED", "KILLED" (ASCII; owned). */
char *sweep_cell_text(const struct sweep_cell_status *s);
/* The grid as text (one row per model, one column per problem; names made
 * safe for a terminal) or as JSON. */
void sweep_status_print(const struct sweep_config *c, const struct sweep_cell_status *st, FILE *out);
void sweep_status_json(const struct sweep_config *c, const char *dir, const struct sweep_cell_status *st,
                       FILE *out);

/* Runs one cell here and now: takes its lock, moves a failed attempt
 * aside, runs `kbtui` (exe) `live --headless` with the key from the
 * model's key_env as the only key in its environment, records the state
 * and, when it finished, appends its row and regenerates the leaderboard.
 * Progress lines go to log. Returns 0 done (or already done), 1 failed or
 * killed, 2 when another process holds the cell. */
int sweep_cell_run(const struct sweep_config *c, const char *dir, int cell, const char *exe, FILE *log);

/* The row of a finished cell into runs.jsonl: one write(2) of the whole
 * line with O_APPEND under flock(runs.lock), fsync; never a second row
 * for a run_id (0 then too, *dup set). 0, or -1 with *err. */
int sweep_row_append(const char *dir, const char *line, const char *run_id, int *dup, char **err);
/* leaderboard.json from runs.jsonl (call with runs.lock held or not:
 * it takes it). 0, or -1 with *err. */
int sweep_leaderboard_write(const struct sweep_config *c, const char *dir, char **err);

/* run_ids that have a row in DIR/runs.jsonl: is run_id one of them. */
int sweep_row_exists(const char *dir, const char *run_id);

/* The environment for a child: environ without any key variable (every
 * model's key_env, and every name with KEY, TOKEN, SECRET, PASSWORD or
 * CREDENTIAL in it), plus extra (may be
 * NULL, "NAME=value" strings, borrowed). NULL-terminated array, owned:
 * free with sweep_env_free (wipes the strings it made). */
char **sweep_env_clean(const struct sweep_config *c, const char *const *extra);
void sweep_env_free(char **env);

/* Whether a name is one of the variables sweep_env_clean removes. */
int sweep_env_is_key(const struct sweep_config *c, const char *name);

/* The path of this program (/proc/self/exe), owned. */
char *sweep_self_exe(const char *argv0);

/* ---- the sweep as a dataset while it runs (sweep_ds.c) --------------------- */
struct dataset;
/* A run in ds for each cell it does not list yet (label, harness
 * kbtui-live, model, effort, problem as the cell's row will have them):
 * the grid's shape from the start. Returns how many were added. */
int sweep_dataset_cells(struct dataset *ds, const struct sweep_config *c);
/* The runs of cells whose state moved since before (NULL: every cell)
 * read again from their directories (a finished cell's outcome, a running
 * cell's transcript once there is one). Returns how many cells moved. */
int sweep_dataset_update(struct dataset *ds, const struct sweep_config *c, const struct sweep_cell_status *st,
                         const struct sweep_cell_status *before);

/* ---- executors ---------------------------------------------------------- */

/* Where cells run. start runs (or submits) the cells in todo[0..n) and
 * returns 0, or -1 with *err; status fills in what the scheduler knows
 * beyond the directory (queued in Slurm); cancel stops what runs. */
struct sweep_executor {
	const char *name;
	int (*start)(const struct sweep_config *c, const char *dir, const int *todo, int n, const char *exe,
	             FILE *out, char **err);
	void (*status)(const struct sweep_config *c, const char *dir, struct sweep_cell_status *st);
	int (*cancel)(const struct sweep_config *c, const char *dir, FILE *out, char **err);
};
extern const struct sweep_executor sweep_local;
extern const struct sweep_executor sweep_slurm;
const struct sweep_executor *sweep_executor_find(const char *name);

/* ---- shared by the files of the sweep ---------------------------------- */
struct cJSON;
/* DIR/cells/<run_id>.<ext> (owned). */
char *sweep_cell_file(const char *dir, const char *run_id, const char *ext);
/* Whether some process holds a flock on path (it is left unlocked). */
int sweep_lock_held(const char *path);
/* A cell's state file, NULL when it has none (owned). */
struct cJSON *sweep_state_load(const char *dir, const char *run_id);
/* o printed, with a final newline, to path atomically (annot_replace).
 * 0, or -1 with *err. */
int sweep_json_save(const char *path, const struct cJSON *o, char **err);
/* Written atomically. 0, or -1 with *err. */
int sweep_state_save(const char *dir, const char *run_id, const struct cJSON *o, char **err);
/* argv run with env (NULL: ours), its stdout captured (owned, may be NULL)
 * and its stderr's last line in *why (owned) when it fails. The exit
 * status, or -1 when it could not start (*why says why). */
int sweep_spawn(char *const argv[], char *const env[], char **out, char **why);

/* For the local executor: the GPUs here (nvidia-smi -L lines), 0 when none. */
int sweep_local_gpus(void);

#endif
