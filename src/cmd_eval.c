/* cmd_eval.c: `kbtui eval`, the headless front of the eval loop: options,
 * the loop's lines streamed to out, a one-line verdict at the end. */
#include "eval.h"
#include "evalbox.h"
#include "cmd.h"
#include "deck.h"
#include "hardware.h"
#include "jsonx.h"
#include "problem.h"
#include "util.h"
#include "textsafe.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* the library's own --help (tests call it); the command's is ui/cmd_eval_tui.c's */
static const char cmd_eval_usage[] =
	"Usage: kbtui eval --problem NAME [OPTIONS] SOLUTION.cu\n"
	"       kbtui eval --kbh DIR --problem NAME [OPTIONS] solution.py\n"
	"       kbtui eval --list-hardware\n"
	"       kbtui eval --describe --problem NAME [--deck NAME] [--json]\n"
	"The options: kbtui eval --help, kbtui(1).\n";

enum {
	OPT_PROBLEM = 256, OPT_PROBLEMS, OPT_HARDWARE, OPT_ARCH, OPT_LIST_HW, OPT_KBH, OPT_WORKDIR,
	OPT_TIMEOUT, OPT_SEEDS, OPT_TRIALS, OPT_HELP, OPT_PYTHON, OPT_TUI, OPT_SANDBOX,
	OPT_DECK, OPT_NO_OWN, OPT_DESCRIBE, OPT_JSON,
};

static const struct option cmd_eval_opts[] = {
	{"problem", required_argument, NULL, OPT_PROBLEM},
	{"problems", required_argument, NULL, OPT_PROBLEMS},
	{"hardware", required_argument, NULL, OPT_HARDWARE},
	{"arch", required_argument, NULL, OPT_ARCH},
	{"list-hardware", no_argument, NULL, OPT_LIST_HW},
	{"kbh", required_argument, NULL, OPT_KBH},
	{"workdir", required_argument, NULL, OPT_WORKDIR},
	{"timeout", required_argument, NULL, OPT_TIMEOUT},
	{"seeds", required_argument, NULL, OPT_SEEDS},
	{"trials", required_argument, NULL, OPT_TRIALS},
	{"help", no_argument, NULL, OPT_HELP},
	{"python", required_argument, NULL, OPT_PYTHON},
	{"tui", no_argument, NULL, OPT_TUI},
	{"sandbox", required_argument, NULL, OPT_SANDBOX},
	{"deck", required_argument, NULL, OPT_DECK},
	{"no-own-checks", no_argument, NULL, OPT_NO_OWN},
	{"describe", no_argument, NULL, OPT_DESCRIBE},
	{"json", no_argument, NULL, OPT_JSON},
	{NULL, 0, NULL, 0},
};

struct cmd_eval_out {
	FILE *out, *err;
};

static void cmd_eval_line(void *ud, const char *stage, const char *line, size_t len)
{
	const struct cmd_eval_out *o = ud;
	/* waiting for the GPU's lock is news about this process, not the log */
	FILE *out = !strcmp(stage, "lock") ? o->err : o->out;
	if (!strcmp(stage, "eval") || !strcmp(stage, "lock"))
		fputs("kbtui eval: ", out);
	textsafe_fput(out, line, len, TS_KEEP_TAB);  /* the compiler's and the harness's bytes */
	fputc('\n', out);
	fflush(out);
}

static int cmd_eval_usage_error(FILE *err, const char *fmt, const char *arg)
{
	fputs("kbtui eval: ", err);
	textsafe_fprintf(err, fmt, arg);
	fputs("\nTry 'kbtui eval --help'.\n", err);
	return CMD_USAGE;
}

/* A positive number; -1 when s is not one. */
static double cmd_eval_number(const char *s, int integer)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > 1e7 || (integer && v != (int)v))
		return -1;
	return v;
}

static int cmd_eval_list_hardware(const char *problems, FILE *out, FILE *err)
{
	char *dir = problems ? xstrdup(problems) : problem_default_dir();
	char *path = util_path_join(dir, "hardware.json"), *msg = NULL;
	struct hardware_list *l = hardware_load(path, &msg);
	free(dir);
	free(path);
	if (!l) {
		textsafe_fprintf(err, "kbtui eval: %s\n", msg);
		free(msg);
		return CMD_BADINPUT;
	}
	hardware_print(l, out);
	hardware_free(l);
	return CMD_OK;
}

/* The deck --describe shows: --deck, $KBTUI_DECK, the current deck of
 * --hardware's profile (*own: on that profile's table), else the
 * publisher's first GPU's. Owned. */
static char *cmd_eval_describe_deck(const struct eval_opts *o, const char *dir, int *own)
{
	const char *env = getenv("KBTUI_DECK");
	char *d;
	*own = 0;
	if (o->deck)
		return xstrdup(o->deck);
	if (env && *env)
		return xstrdup(env);
	if (o->hardware && (d = deck_default_for(dir, o->hardware, own)))
		return d;
	return xstrdup("kbcom-2026-08-rtxpro6000");
}

/* --describe: the problem as the deck defines it, nothing run. */
static int cmd_eval_describe(const struct eval_opts *o, int json, FILE *out, FILE *err)
{
	char *dir = o->problems_dir ? xstrdup(o->problems_dir) : problem_default_dir();
	int own;
	char *pdir = o->problem ? problem_find(dir, o->problem) : NULL, *name = cmd_eval_describe_deck(o, dir, &own);
	char *hwp = util_path_join(dir, "hardware.json"), *msg = NULL;
	struct problem *p = NULL;
	struct deck *d = NULL;
	struct hardware_list *hw = NULL;
	int rc = CMD_BADINPUT;
	if (!o->problem)
		textsafe_fprintf(err, "kbtui eval: --describe needs --problem NAME\n");
	else if (!pdir)
		textsafe_fprintf(err, "kbtui eval: %s: no problem '%s' there (or more than one matches)\n", dir, o->problem);
	else if (!(p = problem_load(pdir, &msg)) || !(d = deck_load(dir, name, &msg)) || !(hw = hardware_load(hwp, &msg)))
		textsafe_fprintf(err, "kbtui eval: %s\n", msg);
	else if (!deck_problem(d, p->name))
		textsafe_fprintf(err, "kbtui eval: %s is not in deck %s\n", p->name, d->name);
	else {
		cJSON *desc = deck_describe(d, p, hardware_find(hw, own ? o->hardware : d->table));
		if (json) {
			char *s = cJSON_Print(desc);
			fputs(s, out);
			fputc('\n', out);
			free(s);
		} else {
			deck_describe_print(desc, out);
		}
		cJSON_Delete(desc);
		rc = CMD_OK;
	}
	free(msg);
	hardware_free(hw);
	deck_free(d);
	problem_free(p);
	free(pdir);
	free(name);
	free(hwp);
	free(dir);
	return rc;
}

void cmd_eval_summary(const struct eval_result *r, FILE *out)
{
	textsafe_fprintf(out, "kbtui eval: %s", r->problem ? r->problem : "?");
	if (r->hardware || r->arch)
		textsafe_fprintf(out, " on %s (%s)", r->hardware ? r->hardware : r->device ? r->device : "unknown GPU",
		        r->arch ? r->arch : "-");
	if (r->deck)
		textsafe_fprintf(out, " [deck %s%s]", r->deck, r->own_checks ? "" : ", own checks off");
	if (r->refused)
		textsafe_fprintf(out, ": REFUSED: %s", r->failure ? r->failure : "?");
	else if (r->invalid)
		textsafe_fprintf(out, ": %s, timing INVALID (no score): %s", r->correct ? "PASS" : "FAIL",
		        r->failure ? r->failure : "?");
	else if (r->correct && r->peak_fraction >= 0)
		textsafe_fprintf(out, ": PASS, peak_fraction %.4f (%s)", r->peak_fraction, r->verdict ? r->verdict : "-");
	else if (r->correct)
		textsafe_fprintf(out, ": PASS, not benchmarked%s%s", r->failure ? ": " : "", r->failure ? r->failure : "");
	else
		textsafe_fprintf(out, ": FAIL at %s: %s", eval_stage_name(r->stage), r->failure ? r->failure : "?");
	fputc('\n', out);
	if (r->workdir)
		textsafe_fprintf(out, "kbtui eval: results in %s/result.json\n", r->workdir);
}

/* The problem and the solution named exist; -1 when they do, else the
 * exit status with the message (a problem a typo away named). */
static int cmd_eval_args_exist(const struct eval_opts *o, FILE *err)
{
	char *pdir = o->kbh ? util_path_join(o->kbh, "problems") :
	             o->problems_dir ? xstrdup(o->problems_dir) : problem_default_dir();
	char *dir = util_is_dir(pdir) ? problem_find(pdir, o->problem) : NULL;
	int rc = -1;
	if (util_is_dir(pdir) && !dir) {
		cmd_no_problem(err, "eval", pdir, o->problem);
		rc = CMD_BADINPUT;
	} else if (!util_is_file(o->solution)) {
		struct stat st;
		int e = stat(o->solution, &st) < 0 ? errno : EISDIR;
		char *safe = textsafe(o->solution, strlen(o->solution), 0);
		textsafe_fprintf(err, "kbtui eval: %s: %s\n", safe, strerror(e));
		free(safe);
		rc = CMD_BADINPUT;
	}
	free(dir);
	free(pdir);
	return rc;
}

int cmd_eval_prepare(int argc, char **argv, struct eval_cmd *ec, FILE *out, FILE *err)
{
	struct eval_opts *o = &ec->o;
	int ch, list = 0, describe = 0, json = 0;
	double v;

	memset(ec, 0, sizeof *ec);
	optind = 0;  /* main() may have run getopt already */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", cmd_eval_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_PROBLEM: o->problem = optarg; break;
		case OPT_PROBLEMS: o->problems_dir = optarg; break;
		case OPT_HARDWARE: o->hardware = optarg; break;
		case OPT_ARCH: o->arch = optarg; break;
		case OPT_LIST_HW: list = 1; break;
		case OPT_DECK: o->deck = optarg; break;
		case OPT_NO_OWN: o->no_own_checks = 1; break;
		case OPT_DESCRIBE: describe = 1; break;
		case OPT_JSON: json = 1; break;
		case OPT_KBH: o->kbh = optarg; break;
		case OPT_WORKDIR: o->workdir = optarg; break;
		case OPT_PYTHON: o->python = optarg; break;
		case OPT_TUI: ec->tui = 1; break;
		case OPT_SANDBOX:
			if (strcmp(optarg, "none") && strcmp(optarg, "bwrap"))
				return cmd_eval_usage_error(err, "--sandbox is none or bwrap, not '%s'", optarg);
			ec->sandbox = optarg;
			break;
		case OPT_TIMEOUT:
			if ((o->timeout_s = cmd_eval_number(optarg, 0)) < 0)
				return cmd_eval_usage_error(err, "--timeout wants a number of seconds, not '%s'", optarg);
			break;
		case OPT_SEEDS: case OPT_TRIALS:
			if ((v = cmd_eval_number(optarg, 1)) < 0)
				return cmd_eval_usage_error(err, "--seeds and --trials want a positive integer, not '%s'",
				                            optarg);
			*(ch == OPT_SEEDS ? &o->seeds : &o->trials) = (int)v;
			break;
		case OPT_HELP: fputs(cmd_eval_usage, out); return CMD_OK;
		case ':': return cmd_eval_usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(err, "eval", argv[optind - 1], cmd_eval_opts);
		}
	}
	if (list)
		return cmd_eval_list_hardware(o->problems_dir, out, err);
	if (describe)
		return cmd_eval_describe(o, json, out, err);
	if (json)
		return cmd_eval_usage_error(err, "%s", "--json goes with --describe");
	if (o->kbh && (o->deck || o->no_own_checks))
		return cmd_eval_usage_error(err, "%s", "--deck and --no-own-checks are the native loop's: --kbh runs the "
		                            "checkout's own definitions");
	if (optind != argc - 1)
		return cmd_eval_usage_error(err, "%s", optind >= argc ? "which SOLUTION file?" : "one SOLUTION file only");
	if (!o->problem)
		return cmd_eval_usage_error(err, "%s", "--problem NAME is required");
	o->solution = argv[optind];
	/* what was typed is checked before the sandbox, the GPU and nvcc are
	 * (the --tui screen shows eval's own words for it) */
	return ec->tui ? -1 : cmd_eval_args_exist(o, err);
}

static volatile sig_atomic_t cmd_eval_abort;

static void cmd_eval_on_signal(int sig)
{
	cmd_eval_abort = sig;
}

int cmd_eval_headless(struct eval_cmd *ec, FILE *out, FILE *err)
{
	struct eval_result r;
	struct cmd_eval_out ud = {out, err};
	struct evalbox box = {0};
	char *why = NULL;
	/* the solution is hostile (it may come from a transcript): every step
	 * runs in the sandbox, as the live agent's tools and R do */
	if (evalbox_choose(ec->sandbox, &box.kind, &why) < 0) {
		textsafe_fprintf(err, "kbtui eval: %s\n", why);
		free(why);
		return CMD_BADINPUT;
	}
	ec->o.on_line = cmd_eval_line;
	ec->o.ud = &ud;
	/* SIGINT and SIGTERM stop the loop (its step's group killed, the wait
	 * for the GPU lock ended) and result.json still says why */
	struct sigaction sa = {.sa_handler = cmd_eval_on_signal}, old_int, old_term;
	sigemptyset(&sa.sa_mask);
	cmd_eval_abort = 0;
	if (!ec->o.abort) {
		ec->o.abort = &cmd_eval_abort;
		sigaction(SIGINT, &sa, &old_int);
		sigaction(SIGTERM, &sa, &old_term);
	}
	int rc = evalbox_run(&ec->o, &box, &r);
	if (ec->o.abort == &cmd_eval_abort) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		ec->o.abort = NULL;
	}
	if (rc < 0)
		textsafe_fprintf(err, "kbtui eval: %s\n", r.failure ? r.failure : "cannot start");
	else
		cmd_eval_summary(&r, out);
	eval_result_free(&r);
	if (cmd_eval_abort)   /* as a shell reports a process the signal ended */
		return 128 + (int)cmd_eval_abort;
	return rc == 0 ? CMD_OK : CMD_BADINPUT;
}

int cmd_eval(int argc, char **argv, FILE *out, FILE *err)
{
	struct eval_cmd ec;
	int rc = cmd_eval_prepare(argc, argv, &ec, out, err);
	if (rc >= 0)
		return rc;
	if (ec.tui) {   /* the screen is ui/evaltui.c's: here there is none */
		fputs("kbtui eval: --tui needs a terminal (drop it to get the log on stdout)\n", err);
		return CMD_USAGE;
	}
	return cmd_eval_headless(&ec, out, err);
}
