/* main.c: command line: the TUI for a dataset, run or transcript, and the
 * headless subcommands. Every option here is in --help and man/kbtui.1
 * (tests/test_manpage.sh checks they agree). */
#include "config.h"

#include <getopt.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "compare.h"
#include "dataset.h"
#include "fetch.h"
#include "eval.h"
#include "evaltui.h"
#include "agent.h"
#include "live.h"
#include "annotate.h"
#include "export.h"
#include "parser.h"
#include "mouse.h"
#include "theme.h"
#include "tui.h"
#include "util.h"
#include "watch.h"

static const char usage_text[] =
	"Usage: kbtui [OPTIONS] [PATH]\n"
	"       kbtui runs [--json] [DIR]\n"
	"       kbtui dump [--jsonl] [--format FMT] RUN_DIR|TRANSCRIPT\n"
	"       kbtui watch [--format FMT] FILE|RUN_DIR\n"
	"       kbtui formats\n"
	"       kbtui annotations check [DIR]\n"
	"       kbtui annotations agree DIR_A DIR_B\n"
	"       kbtui annotate RUN --verdict V [--summary TEXT] [--implication TEXT]\n"
	"                      [--annotations DIR] [--annotator NAME] [DIR]\n"
	"       kbtui export --format csv|json|md [DIR]\n"
	"       kbtui keys\n"
	"       kbtui compare RUN_A RUN_B [DIR]\n"
	"       kbtui flags [--rules FILE] [--verdicts DIR] [--json] [DIR|RUN]\n"
	"       kbtui search [-i] [-l] [-c] [--format FMT] REGEX [DIR|RUN]\n"
	"       kbtui fetch [--repo OWNER/NAME] [--revision REV] [--dest DIR] [--jobs N] [--quiet]\n"
	"       kbtui eval --problem NAME [--hardware KEY] [--arch SM] [--tui] [OPTIONS] SOLUTION.cu\n"
	"       kbtui eval --kbh DIR --problem NAME [--python PATH] [OPTIONS] solution.py\n"
	"       kbtui eval --list-hardware\n"
	"       kbtui live --problem NAME --model MODEL [--provider openai|anthropic] [--base-url URL]\n"
	"                  [--budget 45m] [--max-turns N] [--headless] [--sandbox none|bwrap] [--out DIR]\n"
	"       kbtui sweep --models FILE --problems LIST|all --out DIR [--executor local|slurm] [--parallel N]\n"
	"       kbtui sweep DIR [--retry failed] | --status DIR [--json] | --cancel DIR\n"
	"\n"
	"Replay and browse AI agent runs of KernelBench-Hard (GPU kernel writing).\n"
	"PATH is a dataset directory (run browser), a run directory or a transcript\n"
	"file (straight into its replay). Without PATH: $KBTUI_DATA, else a fetched\n"
	"dataset, else the bundled sample.\n"
	"\n"
	"Commands:\n"
	"  runs [DIR]          one row per run: run_id, model, problem, correct,\n"
	"                      peak_fraction, verdict, events, tool calls\n"
	"  dump PATH           the normalized events of one transcript\n"
	"  watch FILE          replay a transcript a harness is still writing, following\n"
	"                      its tail (FILE or a run directory; truncated or replaced:\n"
	"                      read again)\n"
	"  formats             the transcript formats this build reads\n"
	"  annotations check [DIR]\n"
	"                      check annotation files against the schema (DIR:\n"
	"                      the dataset's annotations/ by default)\n"
	"  annotations agree DIR_A DIR_B\n"
	"                      two annotators' verdicts: confusion table, Cohen's kappa\n"
	"  annotate RUN        write a verdict (and summary, implication) into the\n"
	"                      annotation of RUN (a run id or a unique prefix), checked\n"
	"                      against the schema, atomically\n"
	"  export              one row per run with its verdict: CSV, JSON or Markdown\n"
	"  keys                the keys of the browser and the replay\n"
	"  compare RUN_A RUN_B [DIR]\n"
	"                      two runs side by side, aligned on their milestones (first\n"
	"                      compile, first PASS, best peak_fraction, end); a RUN is a\n"
	"                      run id or unique prefix in DIR, a run directory or a transcript\n"
	"  flags [DIR|RUN]     the events the auto-flag rules mark in each run (run_id,\n"
	"                      event, rule, the matching line), and a table of verdict x\n"
	"                      flagged over the annotated runs\n"
	"  search REGEX [DIR]  every line of every run that matches a PCRE2 regular\n"
	"                      expression, as run_id:event:line: text; -i ignore case,\n"
	"                      -l run ids only, -c matching lines per run; exit 0 a\n"
	"                      match, 1 none, 2 bad expression\n"
	"  fetch               download the dataset from the Hugging Face Hub into\n"
	"                      $XDG_DATA_HOME/kbtui/NAME (or --dest): verified,\n"
	"                      resumable, up-to-date files skipped (HF_ENDPOINT, HF_TOKEN)\n"
	"  eval SOLUTION       score a solution on the GPU: forbidden patterns, nvcc,\n"
	"                      check on every shape and seed, benchmark, peak_fraction;\n"
	"                      writes result.json, check.log, benchmark.log\n"
	"  live                a model works on a problem through the OpenAI-compatible\n"
	"                      or Anthropic API (OPENAI_API_KEY / ANTHROPIC_API_KEY,\n"
	"                      *_BASE_URL), recorded as a replayable run (see kbtui live --help)\n"
	"  sweep               every model of a models file on every problem, each a live run\n"
	"                      into one dataset directory, locally or on Slurm; resumable\n"
	"                      (see kbtui sweep --help)\n"
	"  help                this help\n"
	"\n"
	"Options:\n"
	"  -f, --format FMT    read transcripts as FMT instead of sniffing the content;\n"
	"                      export: csv, json or md\n"
	"      --json          runs: one JSON object per run, one per line\n"
	"      --jsonl         dump: one JSON object per event, one per line\n"
	"      --repo REPO     fetch: the Hub dataset, OWNER/NAME (default\n"
	"                      Infatoshi/kernelbench-hard-runs)\n"
	"      --revision REV  fetch: branch, tag or commit (default main)\n"
	"      --dest DIR      fetch: where the files go\n"
	"      --jobs N        fetch: files downloaded at once, 1 to 64 (default 4)\n"
	"      --quiet         fetch: no progress line, no summary\n"
	"      --problem NAME  eval, live: the problem (04_kahan_softmax, 04 or kahan_softmax)\n"
	"      --problems DIR  eval, live: where the problems are (default: the installed ones)\n"
	"      --hardware KEY  eval: hardware profile for peak_fraction (default: the GPU's)\n"
	"      --arch SM       eval: nvcc target, e.g. sm_90a or sm_120a (default: the GPU's)\n"
	"      --list-hardware eval: list the hardware profiles and exit\n"
	"      --kbh DIR       eval: run the check.py and benchmark.py of this\n"
	"                      KernelBench-Hard checkout on solution.py instead\n"
	"      --workdir DIR   eval: where the build and results go (./kbtui-eval-NAME)\n"
	"      --timeout SECONDS  eval: time limit of each step (default 300)\n"
	"      --seeds N       eval: correctness seeds per shape (default: the problem's)\n"
	"      --trials N      eval: timed calls per shape (default: the problem's)\n"
	"      --python PATH   eval --kbh: the python for check.py and benchmark.py\n"
	"      --tui           eval: the loop on the replay screen, its steps as tool calls\n"
	"                      filling the compiler and timing panes (q asks, then stops it).\n"
	"                      In a replay, R re-evaluates the solution at the selected\n"
	"                      event: $KBTUI_KBH names the KernelBench-Hard checkout for\n"
	"                      dataset runs ($KBTUI_PYTHON its python)\n"
	"      --model MODEL   live: the model name the API knows\n"
	"      --provider P    live: openai (Chat Completions, also OpenRouter, vLLM,\n"
	"                      llama.cpp ...) or anthropic (Messages API)\n"
	"      --base-url URL  live: the API's base URL (else *_BASE_URL, else the vendor's)\n"
	"      --budget TIME   live: wall-clock budget, e.g. 45m, 90s, 2h\n"
	"      --max-turns N   live: model turns at most\n"
	"      --max-tokens N  live: input + output tokens at most over the run\n"
	"      --thinking N    live: thinking token budget (anthropic)\n"
	"      --out DIR       live: the run directory (transcript.jsonl, result.json ...)\n"
	"      --no-eval       live: no eval tool, no final eval\n"
	"      --headless      live: a compact log line per event instead of a screen\n"
	"      --sandbox none|bwrap  live: where the bash tool runs; bwrap (the default when it\n"
	"                      works here): only the work directory writable, no network\n"
	"      --models FILE   sweep: the models (YAML: label, provider, model, base_url,\n"
	"                      effort, key_env, thinking); --problems LIST|all, --out DIR\n"
	"      --executor E    sweep: local (default) or slurm (one sbatch --array job)\n"
	"      --parallel N    sweep: cells at a time (local: 1; slurm: the array's %N)\n"
	"      --problems-dir DIR  sweep: where the problems are\n"
	"      --retry failed  sweep: rerun failed and killed cells too\n"
	"      --status        sweep: the grid of DIR's cells (--json: as JSON)\n"
	"      --cancel        sweep: stop DIR's cells (scancel on Slurm)\n"
	"      --run-cell      sweep: run one cell, DIR RUN_ID (what executors start)\n"
	"      --partition P   sweep, slurm: the partition\n"
	"      --sbatch-opt OPT  sweep, slurm: one more sbatch option (repeatable)\n"
	"      --no-gpu        sweep, slurm: no --gres=gpu:1\n"
	"      --theme NAME|PATH  the colour theme (kbtui-theme(5)); default $KBTUI_THEME,\n"
	"                      else default\n"
	"      --no-mouse      no mouse: clicks and the wheel go to the terminal\n"
	"      --annotations DIR  browser, annotate: where annotation files are written and\n"
	"                      their verdicts read (default: the dataset's annotations/)\n"
	"      --annotator NAME  browser, annotate: recorded as annotator in each annotation\n"
	"                      written (default $KBTUI_ANNOTATOR)\n"
	"      --blind         browser: start in blind mode (models and harnesses hidden)\n"
	"      --rules FILE    flags: the rule file (default: the shipped flags.rules)\n"
	"      --verdicts DIR  flags: verdicts from DIR/RUN_ID.yaml first (another\n"
	"                      annotator's files), else the dataset's\n"
	"      --verdict V     annotate: clean, rubric_leak, reward_hack, interesting or bug\n"
	"                      (others are written with a warning)\n"
	"      --summary TEXT  annotate: the one-paragraph summary\n"
	"      --implication TEXT  annotate: how the cell should be read (required\n"
	"                      unless the verdict is clean)\n"
	"  -h, --help          show this help and exit\n"
	"  -V, --version       show the version and exit\n"
	"\n"
	"Exit status: 0 ok, 1 bad input (the message names file and line), 2 usage.\n"
	"See kbtui(1).\n";

enum { OPT_JSON = 256, OPT_JSONL, OPT_THEME, OPT_NO_MOUSE, OPT_ANNOTATIONS, OPT_ANNOTATOR, OPT_BLIND };

static const struct option long_opts[] = {
	{"format", required_argument, NULL, 'f'},
	{"json", no_argument, NULL, OPT_JSON},
	{"jsonl", no_argument, NULL, OPT_JSONL},
	{"theme", required_argument, NULL, OPT_THEME},
	{"no-mouse", no_argument, NULL, OPT_NO_MOUSE},
	{"annotations", required_argument, NULL, OPT_ANNOTATIONS},
	{"annotator", required_argument, NULL, OPT_ANNOTATOR},
	{"blind", no_argument, NULL, OPT_BLIND},
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{NULL, 0, NULL, 0},
};

struct cli {
	const char *format;
	const char *theme;     /* --theme, NULL: $KBTUI_THEME or default */
	int no_mouse;
	int json, jsonl;
	struct tui_tagging tag; /* --annotations, --annotator, --blind */
	const char *cmd;       /* subcommand, NULL for the TUI */
	char **args;           /* positional arguments after the subcommand */
	int nargs;
};

static int usage_error(const char *fmt, const char *arg)
{
	fprintf(stderr, "kbtui: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\nTry 'kbtui --help'.\n");
	return CMD_USAGE;
}

static int is_command(const char *s)
{
	return !strcmp(s, "runs") || !strcmp(s, "dump") || !strcmp(s, "formats") || !strcmp(s, "help") || !strcmp(s, "keys") ||
	       !strcmp(s, "annotations") || !strcmp(s, "watch") || !strcmp(s, "compare");
}

/* Returns -1 when parsing succeeded, else the exit status. */
static int cli_parse(struct cli *c, int argc, char **argv)
{
	int ch;
	memset(c, 0, sizeof *c);
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "f:hV", long_opts, NULL)) != -1) {
		switch (ch) {
		case 'f': c->format = optarg; break;
		case OPT_JSON: c->json = 1; break;
		case OPT_JSONL: c->jsonl = 1; break;
		case OPT_THEME: c->theme = optarg; break;
		case OPT_NO_MOUSE: c->no_mouse = 1; break;
		case OPT_ANNOTATIONS: c->tag.dir = optarg; break;
		case OPT_ANNOTATOR: c->tag.annotator = optarg; break;
		case OPT_BLIND: c->tag.blind = 1; break;
		case 'h': fputs(usage_text, stdout); return CMD_OK;
		case 'V': printf("kbtui %s\n", PACKAGE_VERSION); return CMD_OK;
		case ':': return usage_error("option '%s' needs an argument", argv[optind - 1]);
		default: return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	c->args = argv + optind;
	c->nargs = argc - optind;
	if (c->nargs > 0 && is_command(c->args[0]) && !util_is_dir(c->args[0]) &&
	    !util_is_file(c->args[0])) {
		c->cmd = c->args[0];
		c->args++;
		c->nargs--;
	}
	if (c->json && (!c->cmd || strcmp(c->cmd, "runs")))
		return usage_error("%s applies to 'kbtui runs' only", "--json");
	if (c->jsonl && (!c->cmd || strcmp(c->cmd, "dump")))
		return usage_error("%s applies to 'kbtui dump' only", "--jsonl");
	if (c->format && !parser_find(c->format))
		return usage_error("unknown format '%s' (kbtui formats lists them)", c->format);
	if (c->cmd && (c->tag.dir || c->tag.annotator || c->tag.blind))
		return usage_error("%s applies to the browser only",
		                   c->tag.dir ? "--annotations" : c->tag.annotator ? "--annotator" : "--blind");
	if (!c->tag.annotator)
		c->tag.annotator = getenv("KBTUI_ANNOTATOR");
	return -1;
}

/* DATASET/runs/ID (or a file in it): the dataset and the run's index, so
 * the replay has its metadata, outcome and annotation keys as from the
 * browser. -1 (and *dsp NULL) when path is not a run of a dataset. */
static long run_in_dataset(const char *path, struct dataset **dsp)
{
	char *real = realpath(path, NULL), *run_dir, *slash;
	long found = -1;
	*dsp = NULL;
	if (!real)
		return -1;
	run_dir = util_is_dir(real) ? xstrdup(real) : xstrndup(real, (size_t)(strrchr(real, '/') - real));
	slash = strrchr(run_dir, '/');
	if (slash && slash > run_dir) {
		char *runs = xstrndup(run_dir, (size_t)(slash - run_dir));
		char *root = strrchr(runs, '/');
		if (root && !strcmp(root, "/runs") && root > runs) {
			*root = '\0';
			char *idx = util_path_join(runs, "runs.jsonl"), *err = NULL;
			struct dataset *ds = util_is_file(idx) ? dataset_open(runs, &err) : NULL;
			for (size_t i = 0; ds && i < ds->nruns && found < 0; i++) {
				char *d = ds->runs[i].dir ? realpath(ds->runs[i].dir, NULL) : NULL;
				char *t = ds->runs[i].transcript ? realpath(ds->runs[i].transcript, NULL) : NULL;
				/* the run's own transcript, not another file of its directory */
				if (d && !strcmp(d, run_dir) && (util_is_dir(real) || (t && !strcmp(t, real))))
					found = (long)i;
				free(d);
				free(t);
			}
			if (found >= 0)
				*dsp = ds;
			else if (ds)
				dataset_free(ds);
			free(err);
			free(idx);
		}
		free(runs);
	}
	free(run_dir);
	free(real);
	return found;
}

static int run_tui(const char *path, const char *format, const struct tui_tagging *tg, const char *argv0)
{
	char *def = NULL, *err = NULL;
	int rc;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "kbtui: the browser needs a terminal; use 'kbtui runs' or 'kbtui dump' in scripts\n");
		return CMD_USAGE;
	}
	if (!path)
		path = def = dataset_default_dir(argv0);
	char *idx = util_path_join(path, "runs.jsonl");
	char *runs = util_path_join(path, "runs");
	int is_dataset = util_is_dir(path) && (util_is_file(idx) || util_is_dir(runs));
	free(idx);
	free(runs);
	if (is_dataset) {
		struct dataset *ds = dataset_open(path, &err);
		if (!ds) {
			fprintf(stderr, "kbtui: %s\n", err);
			free(err);
			free(def);
			return CMD_BADINPUT;
		}
		rc = tui_browse(ds, tg, -1);
		dataset_free(ds);
		free(def);
		return rc;
	}
	struct dataset *ds = NULL;
	long in_ds = format ? -1 : run_in_dataset(path, &ds);
	if (in_ds >= 0) {
		rc = tui_browse(ds, tg, in_ds);
		dataset_free(ds);
		free(def);
		return rc;
	}
	char *file = util_is_dir(path) ? dataset_find_transcript(path) : xstrdup(path);
	if (!file) {
		fprintf(stderr, "kbtui: %s: not a dataset (no runs.jsonl or runs/) and no transcript in it\n", path);
		free(def);
		return CMD_BADINPUT;
	}
	struct run *r = parser_load_final(file, format ? parser_find(format) : NULL, &err);
	if (!r) {
		fprintf(stderr, "kbtui: %s\n", err);
		free(err);
		free(file);
		free(def);
		return CMD_BADINPUT;
	}
	rc = tui_replay(r, file);
	run_free(r);
	free(file);
	free(def);
	return rc;
}

/* Screen settings that must be right before the screen starts: a bad
 * theme file is reported here, not on a half-drawn screen. -1: go on. */
static int tui_prepare(const struct cli *c)
{
	char *err = NULL;
	if (c->no_mouse)
		mouse_disable();
	if (theme_select(c->theme, &err) < 0) {
		fprintf(stderr, "kbtui: %s\n", err);
		free(err);
		return CMD_BADINPUT;
	}
	return -1;
}

static int run_annotations(struct cli *c, const char *argv0)
{
	const char *what = c->nargs ? c->args[0] : "";
	if (!strcmp(what, "agree")) {
		if (c->nargs != 3)
			return usage_error("%s", "annotations agree needs DIR_A and DIR_B");
		return cmd_annot_agree(c->args[1], c->args[2], stdout, stderr);
	}
	if (!strcmp(what, "check")) {
		char *def = NULL;
		int rc;
		if (c->nargs > 2)
			return usage_error("annotations check takes one DIR, got '%s' too", c->args[2]);
		if (c->nargs == 2) {
			rc = cmd_annot_check(c->args[1], stdout, stderr);
		} else {
			char *ds = dataset_default_dir(argv0);
			def = util_path_join(ds, "annotations");
			free(ds);
			rc = cmd_annot_check(def, stdout, stderr);
		}
		free(def);
		return rc;
	}
	return usage_error("annotations: unknown action '%s' (check or agree)", what);
}

int main(int argc, char **argv)
{
	struct cli c;
	int rc;

	setlocale(LC_ALL, "");
	/* subcommands with options of their own parse them themselves */
	if (argc > 1 && !strcmp(argv[1], "fetch"))
		return cmd_fetch(argc - 1, argv + 1, stdout, stderr);
	if (argc > 1 && !strcmp(argv[1], "eval"))
		return evaltui_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "live"))
		return live_main(argc - 1, argv + 1);
	if (argc > 1 && !strcmp(argv[1], "annotate"))
		return cmd_annotate(argc - 1, argv + 1, argv[0], stdout, stderr);
	if (argc > 1 && !strcmp(argv[1], "export"))
		return cmd_export(argc - 1, argv + 1, argv[0], stdout, stderr);
	if (argc > 1 && !strcmp(argv[1], "flags"))
		return cmd_flags(argc - 1, argv + 1, stdout, stderr);
	if (argc > 1 && !strcmp(argv[1], "search"))
		return cmd_search(argc - 1, argv + 1, stdout, stderr);
	if (argc > 1 && !strcmp(argv[1], "sweep"))
		return cmd_sweep(argc - 1, argv + 1, stdout, stderr);
	if ((rc = cli_parse(&c, argc, argv)) >= 0)
		return rc;
	if (!c.cmd) {
		if (c.nargs > 1)
			return usage_error("one PATH at most, got '%s' too", c.args[1]);
		if ((rc = tui_prepare(&c)) >= 0)
			return rc;
		return run_tui(c.nargs ? c.args[0] : NULL, c.format, &c.tag, argv[0]);
	}
	if (!strcmp(c.cmd, "help")) {
		fputs(usage_text, stdout);
		return CMD_OK;
	}
	if (!strcmp(c.cmd, "keys")) {
		tui_print_keys(stdout, 0);
		return CMD_OK;
	}
	if (!strcmp(c.cmd, "compare"))
		return (rc = tui_prepare(&c)) >= 0 ? rc : compare_cmd(c.nargs, c.args, c.format, argv[0]);
	if (!strcmp(c.cmd, "formats"))
		return cmd_formats(stdout);
	if (!strcmp(c.cmd, "runs")) {
		char *def = NULL;
		if (c.nargs > 1)
			return usage_error("runs takes one DIR, got '%s' too", c.args[1]);
		const char *dir = c.nargs ? c.args[0] : (def = dataset_default_dir(argv[0]));
		rc = cmd_runs(dir, c.json, stdout, stderr);
		free(def);
		return rc;
	}
	if (!strcmp(c.cmd, "annotations"))
		return run_annotations(&c, argv[0]);
	if (!strcmp(c.cmd, "watch")) {
		if (c.nargs != 1)
			return usage_error("%s", "watch needs exactly one FILE or RUN_DIR");
		return watch_main(c.args[0], c.format);
	}
	/* dump */
	if (c.nargs != 1)
		return usage_error("%s", "dump needs exactly one RUN_DIR or TRANSCRIPT");
	return cmd_dump(c.args[0], c.format, c.jsonl, stdout, stderr);
}
