/* cmd_live.c: `kbtui live`, a model working on a problem as it happens:
 * the options and the run's setup (shared with the screen in ui/live.c),
 * and the headless mode, one compact log line per event on out. */
#include "agent.h"
#include "cmd.h"
#include "deck.h"
#include "problem.h"
#include "textsafe.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

/* the library's own --help (tests call it); the command's is ui/cmd_live_tui.c's */
static const char cmd_live_usage[] =
	"Usage: kbtui live --problem NAME --model MODEL [OPTIONS]\n"
	"Let a model work on a problem through the OpenAI-compatible or the Anthropic\n"
	"API, with tools bash, read_file, write_file, edit_file and eval, recording\n"
	"the run (transcript.jsonl, result.json) as it goes.\n"
	"Options: --provider openai|anthropic, --base-url URL, --budget 45m,\n"
	"--max-turns N, --max-tokens N, --thinking TOKENS, --effort LEVEL, --problems DIR,\n"
	"--out DIR, --no-eval, --sandbox none|bwrap, --headless, --deck NAME. Keys from OPENAI_API_KEY /\n"
	"ANTHROPIC_API_KEY. The bash and eval tools run in a bubblewrap sandbox (only the\n"
	"work directory writable, no network, no capabilities, a fresh /dev with the GPU\n"
	"nodes, an environment allowlist) when bwrap works here; see kbtui(1), SANDBOX.\n";

enum {
	OPT_PROBLEM = 256, OPT_MODEL, OPT_PROVIDER, OPT_BASE_URL, OPT_BUDGET, OPT_MAX_TURNS,
	OPT_MAX_TOKENS, OPT_THINKING, OPT_PROBLEMS, OPT_OUT, OPT_NO_EVAL, OPT_HEADLESS, OPT_HELP,
	OPT_SANDBOX, OPT_EFFORT, OPT_DECK,
};

static const struct option cmd_live_opts[] = {
	{"problem", required_argument, NULL, OPT_PROBLEM},
	{"model", required_argument, NULL, OPT_MODEL},
	{"provider", required_argument, NULL, OPT_PROVIDER},
	{"base-url", required_argument, NULL, OPT_BASE_URL},
	{"budget", required_argument, NULL, OPT_BUDGET},
	{"max-turns", required_argument, NULL, OPT_MAX_TURNS},
	{"max-tokens", required_argument, NULL, OPT_MAX_TOKENS},
	{"thinking", required_argument, NULL, OPT_THINKING},
	{"effort", required_argument, NULL, OPT_EFFORT},
	{"problems", required_argument, NULL, OPT_PROBLEMS},
	{"out", required_argument, NULL, OPT_OUT},
	{"no-eval", no_argument, NULL, OPT_NO_EVAL},
	{"headless", no_argument, NULL, OPT_HEADLESS},
	{"sandbox", required_argument, NULL, OPT_SANDBOX},
	{"deck", required_argument, NULL, OPT_DECK},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static volatile sig_atomic_t cmd_live_abort;

static void cmd_live_on_signal(int sig)
{
	(void)sig;
	cmd_live_abort = 1;
}

static int cmd_live_usage_error(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int cmd_live_usage_error(FILE *err, const char *fmt, ...)
{
	va_list ap;
	char msg[1024];  /* (what is quoted was typed, or named a file: made safe) */
	fputs("kbtui live: ", err);
	va_start(ap, fmt);
	textsafe_vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	textsafe_fputs(err, msg, TS_KEEP_NL | TS_KEEP_TAB);
	fputs("\nTry 'kbtui live --help'.\n", err);
	return CMD_USAGE;
}

static long long cmd_live_count(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	return end == s || *end || v <= 0 ? -1 : v;
}

struct cmd_live_log {
	FILE *out;
	double t0;
};


/* What came from the model or the server, safe for a terminal (textsafe.h:
 * control characters, escapes, bidi overrides and bad UTF-8 made visible,
 * newlines as spaces) and cut after max characters, never inside one.
 * Owned. */
static char *cmd_live_safe(const char *text, size_t max)
{
	char *safe = textsafe(text ? text : "", text ? strlen(text) : 0, 0);
	size_t n = 0;
	for (unsigned char *p = (unsigned char *)safe; *p; p++)
		if ((*p & 0xC0) != 0x80 && n++ == max) {
			strcpy((char *)p, "...");
			break;
		}
	return safe;
}

/* One line per event: elapsed time, kind, tool, the text's first 160
 * characters, all of it made safe for a terminal. */
static void cmd_live_event(void *ud, const char *kind, const char *name, const char *text, int is_error)
{
	struct cmd_live_log *l = ud;
	char *body = cmd_live_safe(text, 160);
	fprintf(l->out, "[%7.1fs] %-11s", util_now() - l->t0, kind);
	if (name) {
		char *n = cmd_live_safe(name, 80);
		fprintf(l->out, " %s", n);
		free(n);
	}
	if (is_error && strcmp(kind, "error"))
		fputs(" (error)", l->out);
	fprintf(l->out, " %s\n", body);
	fflush(l->out);
	free(body);
}

/* Copies the problem's plain files into the fresh work directory. */
static int cmd_live_copy(const char *from, const char *to, char **err)
{
	DIR *d = opendir(from);
	struct dirent *de;
	if (!d) {
		*err = xasprintf("%s: %s", from, strerror(errno));
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		char *src = util_path_join(from, de->d_name), *dst, *data;
		size_t len;
		FILE *f;
		if (de->d_name[0] == '.' || !util_is_file(src) || !(data = util_read_file(src, &len))) {
			free(src);
			continue;
		}
		dst = util_path_join(to, de->d_name);
		f = fopen(dst, "wb");
		if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
			*err = xasprintf("cannot write %s: %s", dst, strerror(errno));
			free(src);
			free(dst);
			free(data);
			closedir(d);
			return -1;
		}
		free(src);
		free(dst);
		free(data);
	}
	closedir(d);
	return 0;
}

static char *cmd_live_default_out(const char *problem)
{
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", &tm);
	return xasprintf("kbtui-live-%s-%s", problem, stamp);
}

/* Whether the problem is there; -1 when it is, else the exit status. */
static int cmd_live_problem_known(const char *problems, const char *problem, FILE *err)
{
	char *dir = problems ? xstrdup(problems) : problem_default_dir();
	char *pdir = problem_find(dir, problem);
	if (!pdir)
		cmd_no_problem(err, "live", dir, problem);
	free(dir);
	free(pdir);
	return pdir ? -1 : CMD_BADINPUT;
}

/* Finds the problem, makes the run and work directories, reads the prompt. */
static int cmd_live_setup(struct agent_opts *o, const char *problems, const char *problem,
                          const char *out_dir, char **owned, FILE *err)
{
	char *dir = problems ? xstrdup(problems) : problem_default_dir();
	char *pdir = problem_find(dir, problem), *msg = NULL, *prompt_path;
	if (!pdir) {
		cmd_no_problem(err, "live", dir, problem);
		free(dir);
		return -1;
	}
	owned[0] = dir;
	owned[1] = pdir;
	owned[2] = out_dir ? xstrdup(out_dir) : cmd_live_default_out(strrchr(pdir, '/') ? strrchr(pdir, '/') + 1 : pdir);
	owned[3] = util_path_join(owned[2], "work");
	if ((mkdir(owned[2], 0777) < 0 && errno != EEXIST) || (mkdir(owned[3], 0777) < 0 && errno != EEXIST)) {
		textsafe_fprintf(err, "kbtui live: cannot create %s: %s\n", owned[3], strerror(errno));
		return -1;
	}
	if (cmd_live_copy(pdir, owned[3], &msg) < 0) {
		textsafe_fprintf(err, "kbtui live: %s\n", msg);
		free(msg);
		return -1;
	}
	prompt_path = util_path_join(pdir, "PROMPT.txt");
	owned[4] = util_read_file(prompt_path, NULL);
	if (!owned[4]) {
		textsafe_fprintf(err, "kbtui live: cannot read %s: %s\n", prompt_path, strerror(errno));
		free(prompt_path);
		return -1;
	}
	free(prompt_path);
	o->problems_dir = dir;
	o->problem = strrchr(pdir, '/') ? strrchr(pdir, '/') + 1 : pdir;
	o->rundir = owned[2];
	o->workdir = owned[3];
	o->prompt = owned[4];
	return 0;
}

/* --deck: the eval tool and the final eval run as that deck; they read it
 * from $KBTUI_DECK, as R and the sweep's cells do. */
static int cmd_live_deck(const char *problems_dir, const char *name, FILE *err)
{
	char *why = NULL;
	struct deck *d = deck_load(problems_dir, name, &why);
	if (!d) {
		textsafe_fprintf(err, "kbtui live: %s\n", why);
		free(why);
		return -1;
	}
	deck_free(d);
	setenv("KBTUI_DECK", name, 1);
	return 0;
}

/* The sandbox the bash tool gets: asked for (must work) or the best there is. */
static int cmd_live_sandbox(struct agent_opts *o, const char *asked, FILE *err)
{
	char *why = NULL;
	if (asked && sandbox_parse(asked, &o->sandbox) < 0)
		return cmd_live_usage_error(err, "--sandbox is none or bwrap, not '%s'", asked);
	if (asked && o->sandbox == SANDBOX_NONE)
		return -1;
	if (sandbox_bwrap_works(&why)) {
		o->sandbox = SANDBOX_BWRAP;
		return -1;
	}
	if (asked) {
		textsafe_fprintf(err, "kbtui live: --sandbox bwrap: %s\n", why);
		free(why);
		return CMD_BADINPUT;
	}
	textsafe_fprintf(err, "kbtui live: warning: commands run without a sandbox: %s\n", why);
	free(why);
	o->sandbox = SANDBOX_NONE;
	return -1;
}

int cmd_live_prepare(int argc, char **argv, struct live_cmd *lc, FILE *out, FILE *err)
{
	struct agent_opts *o = &lc->o;
	const char *problem = NULL, *problems = NULL, *out_dir = NULL, *provider = "openai", *sandbox = NULL, *deck = NULL;
	int ch, rc;
	long long v;

	memset(lc, 0, sizeof *lc);
	o->final_eval = 1;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", cmd_live_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_PROBLEM: problem = optarg; break;
		case OPT_MODEL: o->llm.model = optarg; break;
		case OPT_PROVIDER: provider = optarg; break;
		case OPT_BASE_URL: o->llm.base_url = optarg; break;
		case OPT_BUDGET:
			if ((o->budget_s = agent_parse_duration(optarg)) <= 0)
				return cmd_live_usage_error(err, "--budget wants a duration like 45m, 90s or 2h, not '%s'", optarg);
			break;
		case OPT_MAX_TURNS: case OPT_MAX_TOKENS: case OPT_THINKING:
			if ((v = cmd_live_count(optarg)) < 0 || (ch != OPT_MAX_TOKENS && v > 1000000))
				return cmd_live_usage_error(err, "%s wants a positive integer, not '%s'",
				                            argv[optind - 1], optarg);
			if (ch == OPT_MAX_TURNS)
				o->max_turns = (int)v;
			else if (ch == OPT_MAX_TOKENS)
				o->max_tokens = v;
			else
				o->llm.thinking_budget = (int)v;
			break;
		case OPT_EFFORT:
			if (!*optarg || strspn(optarg, "abcdefghijklmnopqrstuvwxyz") != strlen(optarg))
				return cmd_live_usage_error(err, "--effort is a word like low, medium or high, not '%s'", optarg);
			o->llm.effort = optarg;
			break;
		case OPT_PROBLEMS: problems = optarg; break;
		case OPT_OUT: out_dir = optarg; break;
		case OPT_NO_EVAL: o->final_eval = 0; break;
		case OPT_HEADLESS: lc->headless = 1; break;
		case OPT_SANDBOX: sandbox = optarg; break;
		case OPT_DECK: deck = optarg; break;
		case OPT_HELP: fputs(cmd_live_usage, out); return CMD_OK;
		case ':': return cmd_live_usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(err, "live", argv[optind - 1], cmd_live_opts);
		}
	}
	if (optind != argc)
		return cmd_live_usage_error(err, "unexpected argument '%s'", argv[optind]);
	if (!problem || !o->llm.model)
		return cmd_live_usage_error(err, "%s", "--problem NAME and --model MODEL are required");
	if (llm_provider_parse(provider, &o->llm.provider) < 0)
		return cmd_live_usage_error(err, "--provider is openai or anthropic, not '%s'", provider);
	if (!o->llm.base_url)
		o->llm.base_url = llm_env_base_url(o->llm.provider);
	/* what the user typed is checked before what the environment holds */
	if ((rc = cmd_live_problem_known(problems, problem, err)) >= 0)
		return rc;
	if (!llm_env_key(o->llm.provider)) {
		textsafe_fprintf(err, "kbtui live: no API key: set %s\n",
		        o->llm.provider == LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY");
		return CMD_BADINPUT;
	}
	if (strlen(llm_env_key(o->llm.provider)) < LLM_KEY_MIN) {
		textsafe_fprintf(err, "kbtui live: %s is %zu characters long; an API key has at least %d "
		        "(a shorter one cannot be told apart from the text it would be scrubbed out of)\n",
		        o->llm.provider == LLM_ANTHROPIC ? "ANTHROPIC_API_KEY" : "OPENAI_API_KEY",
		        strlen(llm_env_key(o->llm.provider)), LLM_KEY_MIN);
		return CMD_BADINPUT;
	}
	if ((rc = cmd_live_sandbox(o, sandbox, err)) >= 0)
		return rc;
	/* the key is about to live in this process's memory: no core dump of
	 * it (no core file, and not dumpable, so no ptrace or /proc/PID/mem by
	 * other users either) */
	struct rlimit nocore = {0, 0};
	setrlimit(RLIMIT_CORE, &nocore);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* our copy of the key; the environment loses both so no child sees them */
	lc->key = xstrdup(llm_env_key(o->llm.provider));
	o->llm.api_key = lc->key;
	unsetenv("OPENAI_API_KEY");
	unsetenv("ANTHROPIC_API_KEY");
	if (cmd_live_setup(o, problems, problem, out_dir, lc->owned, err) < 0 ||
	    (deck && cmd_live_deck(o->problems_dir, deck, err) < 0)) {
		cmd_live_free(lc);
		return CMD_BADINPUT;
	}
	return -1;
}

void cmd_live_free(struct live_cmd *lc)
{
	for (int i = 0; i < 5; i++) {
		free(lc->owned[i]);
		lc->owned[i] = NULL;
	}
	if (lc->key) {
		memset(lc->key, 0, strlen(lc->key));
		free(lc->key);
		lc->key = NULL;
	}
}

int cmd_live_headless(struct live_cmd *lc, FILE *out, FILE *err)
{
	struct agent_opts *o = &lc->o;
	struct cmd_live_log log = {out, util_now()};
	struct agent_result r;
	struct sigaction sa = {0}, old_int, old_term;
	int rc;

	o->on_event = cmd_live_event;
	o->ud = &log;
	o->abort = &cmd_live_abort;
	cmd_live_abort = 0;
	sa.sa_handler = cmd_live_on_signal;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	rc = agent_run(o, &r);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (rc < 0 || r.end == AGENT_ERROR) {
		/* the server's words: made safe */
		char *why = cmd_live_safe(r.error ? r.error : "the model failed", 2000);
		textsafe_fprintf(err, "kbtui live: %s\n", why);
		free(why);
	}
	if (rc < 0) {
		textsafe_fprintf(err, "kbtui live: the run in %s is incomplete: a write failed\n", o->rundir);
		agent_result_free(&r);
		return CMD_BADINPUT;
	}
	fprintf(out, "kbtui live: %s after %d turns, %d tool calls, %lld tokens in, %lld out, %.0f s; run in %s\n",
	        agent_end_name(r.end), r.turns, r.tool_calls, r.tok_in, r.tok_out, r.seconds, o->rundir);
	rc = r.end == AGENT_DONE ? CMD_OK : CMD_BADINPUT;
	agent_result_free(&r);
	return rc;
}

int cmd_live(int argc, char **argv, FILE *out, FILE *err)
{
	struct live_cmd lc;
	int rc = cmd_live_prepare(argc, argv, &lc, out, err);
	if (rc >= 0)
		return rc;
	rc = cmd_live_headless(&lc, out, err);
	cmd_live_free(&lc);
	return rc;
}
