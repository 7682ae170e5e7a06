/* cmd_sweep.c: `kbtui sweep`, the model x problem matrix as live runs into
 * one dataset directory: start, continue, watch (--status), cancel, and
 * --run-cell, what each cell's process runs wherever an executor put it. */
#include "cmd.h"
#include "agent.h"
#include "sweep.h"
#include "textsafe.h"
#include "util.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern const struct cmd_entry cmd_sweep_entry;


enum {
	OPT_MODELS = 256, OPT_PROBLEMS, OPT_OUT, OPT_EXECUTOR, OPT_PARALLEL, OPT_BUDGET, OPT_MAX_TURNS, OPT_NO_EVAL,
	OPT_SANDBOX, OPT_PROBLEMS_DIR, OPT_RETRY, OPT_STATUS, OPT_JSON, OPT_CANCEL, OPT_RUN_CELL, OPT_PARTITION,
	OPT_SBATCH_OPT, OPT_NO_GPU, OPT_HELP, OPT_DECK,
};

static const struct option cmd_sweep_opts[] = {
	{"models", required_argument, NULL, OPT_MODELS},
	{"problems", required_argument, NULL, OPT_PROBLEMS},
	{"out", required_argument, NULL, OPT_OUT},
	{"executor", required_argument, NULL, OPT_EXECUTOR},
	{"parallel", required_argument, NULL, OPT_PARALLEL},
	{"budget", required_argument, NULL, OPT_BUDGET},
	{"max-turns", required_argument, NULL, OPT_MAX_TURNS},
	{"no-eval", no_argument, NULL, OPT_NO_EVAL},
	{"sandbox", required_argument, NULL, OPT_SANDBOX},
	{"problems-dir", required_argument, NULL, OPT_PROBLEMS_DIR},
	{"deck", required_argument, NULL, OPT_DECK},
	{"retry", required_argument, NULL, OPT_RETRY},
	{"status", no_argument, NULL, OPT_STATUS},
	{"json", no_argument, NULL, OPT_JSON},
	{"cancel", no_argument, NULL, OPT_CANCEL},
	{"run-cell", no_argument, NULL, OPT_RUN_CELL},
	{"partition", required_argument, NULL, OPT_PARTITION},
	{"sbatch-opt", required_argument, NULL, OPT_SBATCH_OPT},
	{"no-gpu", no_argument, NULL, OPT_NO_GPU},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static int cmd_sweep_usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int cmd_sweep_usage_error(FILE *err, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];  /* (what is quoted was typed, or named a file: made safe) */
	fputs("kbtui sweep: ", err);
	va_start(ap, fmt);
	textsafe_vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	textsafe_fputs(err, msg, TS_KEEP_NL | TS_KEEP_TAB);
	fputs("\nTry 'kbtui sweep --help'.\n", err);
	return CMD_USAGE;
}

/* What the command line asked for. */
struct cmd_sweep_args {
	const char *models, *problems, *out, *executor, *sandbox, *problems_dir, *partition, *deck;
	const char **sbatch_opts;
	int nsbatch_opts;
	int parallel, max_turns, no_eval, no_gpu, retry, status, json, cancel, run_cell;
	double budget_s;
	int live_opts;            /* any option that belongs to the sweep's identity */
};

static int cmd_sweep_parse(int argc, char **argv, struct cmd_sweep_args *a, FILE *out, FILE *err)
{
	int ch;
	char *end;
	long v;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", cmd_sweep_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_MODELS: a->models = optarg; break;
		case OPT_PROBLEMS: a->problems = optarg; break;
		case OPT_OUT: a->out = optarg; break;
		case OPT_EXECUTOR:
			if (!sweep_executor_find(optarg))
				return cmd_sweep_usage_error(err, "--executor is local or slurm, not '%s'", optarg);
			a->executor = optarg;
			break;
		case OPT_PARALLEL: case OPT_MAX_TURNS:
			v = strtol(optarg, &end, 10);
			if (end == optarg || *end || v <= 0 || v > 100000)
				return cmd_sweep_usage_error(err, "%s wants a positive integer, not '%s'", argv[optind - 1], optarg);
			if (ch == OPT_PARALLEL)
				a->parallel = (int)v;
			else
				a->max_turns = (int)v, a->live_opts = 1;
			break;
		case OPT_BUDGET:
			if ((a->budget_s = agent_parse_duration(optarg)) <= 0)
				return cmd_sweep_usage_error(err, "--budget wants a duration like 45m, 90s or 2h, not '%s'", optarg);
			a->live_opts = 1;
			break;
		case OPT_NO_EVAL: a->no_eval = 1; a->live_opts = 1; break;
		case OPT_SANDBOX:
			if (strcmp(optarg, "none") && strcmp(optarg, "bwrap"))
				return cmd_sweep_usage_error(err, "--sandbox is none or bwrap, not '%s'", optarg);
			a->sandbox = optarg;
			a->live_opts = 1;
			break;
		case OPT_PROBLEMS_DIR: a->problems_dir = optarg; a->live_opts = 1; break;
		case OPT_DECK: a->deck = optarg; a->live_opts = 1; break;
		case OPT_RETRY:
			if (strcmp(optarg, "failed"))
				return cmd_sweep_usage_error(err, "--retry takes 'failed', not '%s'", optarg);
			a->retry = 1;
			break;
		case OPT_STATUS: a->status = 1; break;
		case OPT_JSON: a->json = 1; break;
		case OPT_CANCEL: a->cancel = 1; break;
		case OPT_RUN_CELL: a->run_cell = 1; break;
		case OPT_PARTITION: a->partition = optarg; break;
		case OPT_SBATCH_OPT:
			a->sbatch_opts = xrealloc(a->sbatch_opts, (size_t)(a->nsbatch_opts + 1) * sizeof *a->sbatch_opts);
			a->sbatch_opts[a->nsbatch_opts++] = optarg;
			break;
		case OPT_NO_GPU: a->no_gpu = 1; break;
		case OPT_HELP: cmd_help(&cmd_sweep_entry, out); return CMD_OK;
		case ':': return cmd_sweep_usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(err, "sweep", argv[optind - 1], cmd_sweep_opts);
		}
	}
	return -1;
}

/* The run options of the command line over those recorded. */
static void cmd_sweep_run_opts(struct sweep_config *c, const struct cmd_sweep_args *a)
{
	if (a->executor) {
		free(c->executor);
		c->executor = xstrdup(a->executor);
	}
	if (!c->executor)
		c->executor = xstrdup("local");
	if (a->parallel)
		c->parallel = a->parallel;
	if (a->partition) {
		free(c->partition);
		c->partition = xstrdup(a->partition);
	}
	if (a->nsbatch_opts) {
		for (int i = 0; i < c->nsbatch_opts; i++)
			free(c->sbatch_opts[i]);
		free(c->sbatch_opts);
		c->sbatch_opts = xcalloc((size_t)a->nsbatch_opts, sizeof *c->sbatch_opts);
		for (int i = 0; i < a->nsbatch_opts; i++)
			c->sbatch_opts[i] = xstrdup(a->sbatch_opts[i]);
		c->nsbatch_opts = a->nsbatch_opts;
	}
	if (a->no_gpu)
		c->no_gpu = 1;
}

/* A new sweep from --models and --problems into --out. */
static int cmd_sweep_new(struct sweep_config *c, const struct cmd_sweep_args *a, FILE *err)
{
	char *msg = NULL;
	if (!a->problems || !a->out) {
		cmd_sweep_usage_error(err, "%s", "--models FILE needs --problems LIST|all and --out DIR");
		return CMD_USAGE;
	}
	c->problems_dir = a->problems_dir ? realpath(a->problems_dir, NULL) : NULL;
	if (a->problems_dir && !c->problems_dir) {
		textsafe_fprintf(err, "kbtui sweep: --problems-dir %s: %s\n", a->problems_dir, strerror(errno));
		return CMD_BADINPUT;
	}
	c->budget_s = a->budget_s;
	c->max_turns = a->max_turns;
	c->no_eval = a->no_eval;
	c->sandbox = xstrdup(a->sandbox);
	c->deck = xstrdup(a->deck);
	c->parallel = 0;
	if (sweep_models_load(c, a->models, &msg) < 0 || sweep_problems_set(c, a->problems, &msg) < 0) {
		textsafe_fprintf(err, "kbtui sweep: %s\n", msg);
		free(msg);
		return CMD_BADINPUT;
	}
	if (mkdir(a->out, 0777) < 0 && errno != EEXIST) {
		textsafe_fprintf(err, "kbtui sweep: cannot create %s: %s\n", a->out, strerror(errno));
		return CMD_BADINPUT;
	}
	return -1;
}

static int cmd_sweep_save(struct sweep_config *c, const char *dir, FILE *err)
{
	char *msg = NULL;
	if (sweep_config_save(c, dir, &msg) < 0) {
		textsafe_fprintf(err, "kbtui sweep: %s\n", msg);
		free(msg);
		return CMD_BADINPUT;
	}
	return -1;
}

/* The cells to start now: not done, not running, not queued in Slurm;
 * failed and killed ones only when retrying. */
static int *cmd_sweep_todo(const struct sweep_config *c, const struct sweep_cell_status *st, int retry, int *n)
{
	int *todo = xcalloc((size_t)(c->ncells ? c->ncells : 1), sizeof *todo);
	*n = 0;
	for (int i = 0; i < c->ncells; i++)
		if ((st[i].state == SWEEP_QUEUED && !st[i].pending) ||
		    (retry && (st[i].state == SWEEP_FAILED || st[i].state == SWEEP_KILLED)))
			todo[(*n)++] = i;
	return todo;
}

static int cmd_sweep_go(struct sweep_config *c, const char *dir, const struct cmd_sweep_args *a, const char *exe,
                        FILE *out, FILE *err)
{
	const struct sweep_executor *ex = sweep_executor_find(c->executor);
	struct sweep_cell_status *st = sweep_status_now(c, dir);
	int n = 0, *todo = cmd_sweep_todo(c, st, a->retry, &n), rc = CMD_OK, left = 0;
	char *msg = NULL;

	if (n == 0) {
		int count[5] = {0};
		for (int i = 0; i < c->ncells; i++)
			count[st[i].state]++;
		fprintf(out, "kbtui sweep: nothing to start: %d done, %d running, %d queued, %d failed, %d killed%s\n",
		        count[SWEEP_DONE], count[SWEEP_RUNNING], count[SWEEP_QUEUED], count[SWEEP_FAILED],
		        count[SWEEP_KILLED],
		        count[SWEEP_FAILED] + count[SWEEP_KILLED] && !a->retry ? " (--retry failed reruns them)" : "");
	} else if (ex->start(c, dir, todo, n, exe, out, &msg) < 0) {
		textsafe_fprintf(err, "kbtui sweep: %s\n", msg);
		free(msg);
		rc = CMD_BADINPUT;
	}
	sweep_status_free(st, c->ncells);
	free(todo);
	if (rc == CMD_OK && ex == &sweep_local) {
		st = sweep_status_now(c, dir);
		sweep_status_print(c, st, out);
		for (int i = 0; i < c->ncells; i++)
			left += st[i].state != SWEEP_DONE;
		sweep_status_free(st, c->ncells);
		rc = left ? CMD_BADINPUT : CMD_OK;
	}
	return rc;
}

int cmd_sweep(int argc, char **argv, FILE *out, FILE *err)
{
	struct cmd_sweep_args a = {0};
	struct sweep_config c = {0};
	char *msg = NULL, *dir = NULL, *exe = NULL;
	int rc = cmd_sweep_parse(argc, argv, &a, out, err), npos;

	if (rc >= 0)
		goto done;
	npos = argc - optind;
	if (a.models) {
		if (npos) {
			rc = cmd_sweep_usage_error(err, "unexpected argument '%s' (with --models, the directory is --out DIR)",
			                           argv[optind]);
			goto done;
		}
		if ((rc = cmd_sweep_new(&c, &a, err)) >= 0)
			goto done;
		dir = realpath(a.out, NULL);
	} else {
		const char *d = npos ? argv[optind] : a.out;
		if (!d || npos > (a.run_cell ? 2 : 1)) {
			rc = cmd_sweep_usage_error(err, "%s", npos > 1 ? "too many arguments" : "which sweep directory?");
			goto done;
		}
		if (a.live_opts || a.problems) {
			rc = cmd_sweep_usage_error(err, "%s keeps the models, problems and live options it was started with "
			                           "(sweep.json); only --retry, --executor, --parallel and the slurm options "
			                           "change", d);
			goto done;
		}
		if (sweep_config_load(&c, d, &msg) < 0) {
			textsafe_fprintf(err, "kbtui sweep: %s\n", msg);
			free(msg);
			rc = CMD_BADINPUT;
			goto done;
		}
		dir = realpath(d, NULL);
	}
	if (!dir) {
		textsafe_fprintf(err, "kbtui sweep: %s: %s\n", a.models ? a.out : argv[optind], strerror(errno));
		rc = CMD_BADINPUT;
		goto done;
	}
	exe = sweep_self_exe(argv[0]);
	if (a.run_cell) {
		int cell = npos == 2 ? sweep_cell_find(&c, argv[optind + 1]) : -1;
		if (cell < 0) {
			char *safe = npos == 2 ? textsafe(argv[optind + 1], strlen(argv[optind + 1]), 0) : NULL;
			textsafe_fprintf(err, "kbtui sweep: --run-cell: %s is no cell of %s\n", safe ? safe : "(none)", dir);
			free(safe);
			rc = npos == 2 ? CMD_BADINPUT : CMD_USAGE;
		} else {
			rc = sweep_cell_run(&c, dir, cell, exe, out) == 0 ? CMD_OK : CMD_BADINPUT;
		}
	} else if (a.status) {
		struct sweep_cell_status *st = sweep_status_now(&c, dir);
		if (a.json)
			sweep_status_json(&c, dir, st, out);
		else
			sweep_status_print(&c, st, out);
		sweep_status_free(st, c.ncells);
		rc = CMD_OK;
	} else if (a.cancel) {
		const struct sweep_executor *ex = sweep_executor_find(a.executor ? a.executor : c.executor);
		rc = CMD_OK;
		if (ex->cancel(&c, dir, out, &msg) < 0) {
			textsafe_fprintf(err, "kbtui sweep: %s\n", msg);
			free(msg);
			rc = CMD_BADINPUT;
		}
	} else {
		cmd_sweep_run_opts(&c, &a);
		if ((rc = cmd_sweep_save(&c, dir, err)) < 0)
			rc = cmd_sweep_go(&c, dir, &a, exe, out, err);
	}
done:
	free(a.sbatch_opts);
	free(dir);
	free(exe);
	sweep_config_free(&c);
	return rc;
}

static int cmd_sweep_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_sweep(argc, argv, ctx->out, ctx->err);
}

const struct cmd_entry cmd_sweep_entry = {
	.name = "sweep",
	.usage = "--models FILE --problems LIST|all --out DIR [--executor local|slurm] [--parallel N]\n"
	         "DIR [--retry failed]\n"
	         "--status DIR [--json]\n"
	         "--cancel DIR",
	.summary = "every model of a models file on every problem, each cell a live run",
	.help = "Each cell is a `kbtui live --headless` run into DIR/runs/<run_id>/;\n"
	        "finished runs get a row in DIR/runs.jsonl and DIR/leaderboard.json is\n"
	        "regenerated, so DIR is a dataset. Running it again skips finished cells.\n"
	        "The models file (YAML) lists label, provider (openai|anthropic), model,\n"
	        "base_url, effort, key_env (the NAME of the variable holding the key) and\n"
	        "thinking for each model.\n"
	        "  --models FILE   the models; with --problems LIST|all and --out DIR\n"
	        "  --problems LIST|all  problems by number or name, comma-separated\n"
	        "  --out DIR       the sweep directory (a dataset)\n"
	        "  --executor E    local (default) or slurm (one sbatch --array job)\n"
	        "  --parallel N    cells at a time (local: 1; slurm: the array's %N)\n"
	        "  --budget TIME   each cell's wall-clock budget, e.g. 45m\n"
	        "  --max-turns N   each cell's model turns at most\n"
	        "  --no-eval       no eval tool, no final eval\n"
	        "  --sandbox none|bwrap  where the cells' tools run\n"
	        "  --problems-dir DIR  where the problems are\n"
	        "  --deck NAME     the deck every cell's eval runs as (kbtui eval --deck)\n"
	        "  --retry failed  rerun failed and killed cells too\n"
	        "  --status        the grid of DIR's cells (--json: as JSON); `kbtui DIR`\n"
	        "                  shows it live, Enter on a running cell watches it\n"
	        "  --json          with --status: one JSON document\n"
	        "  --cancel        stop DIR's cells (scancel on Slurm)\n"
	        "  --run-cell      run one cell, DIR RUN_ID (what executors start)\n"
	        "  --partition P   slurm: the partition\n"
	        "  --sbatch-opt OPT  slurm: one more sbatch option (repeatable)\n"
	        "  --no-gpu        slurm: no --gres=gpu:1\n",
	.exec = cmd_sweep_exec,
};
