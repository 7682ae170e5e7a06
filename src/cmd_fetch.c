/* cmd_fetch.c: `kbtui fetch`, the command line over fetch_run: options,
 * the Hub's environment variables, exit status. */
#include "fetch.h"
#include "hub.h"
#include "textsafe.h"
#include "util.h"

#include <curl/curl.h>

#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd.h"

extern const struct cmd_entry cmd_fetch_entry;

enum { OPT_REPO = 256, OPT_REVISION, OPT_DEST, OPT_JOBS, OPT_QUIET, OPT_HELP };

static const struct option fetch_opts[] = {
	{"repo", required_argument, NULL, OPT_REPO},
	{"revision", required_argument, NULL, OPT_REVISION},
	{"dest", required_argument, NULL, OPT_DEST},
	{"jobs", required_argument, NULL, OPT_JOBS},
	{"quiet", no_argument, NULL, OPT_QUIET},
	{"help", no_argument, NULL, OPT_HELP},
	{NULL, 0, NULL, 0},
};

static int fetch_usage_error(FILE *err, const char *fmt, const char *arg)
{
	char *a = textsafe(arg, strlen(arg), 0);
	fputs("kbtui fetch: ", err);
	textsafe_fprintf(err, fmt, a);
	fputs("\nTry 'kbtui fetch --help'.\n", err);
	free(a);
	return 2;
}

/* The Hub's own switch for "no network": 1, ON, YES, TRUE. */
static int offline(void)
{
	const char *v = getenv("HF_HUB_OFFLINE");
	return v && (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcasecmp(v, "true"));
}

/* HF_TOKEN, or NULL when unset or empty; *bad when it could not be sent as
 * a header (the message must not show it). */
static const char *token_from_env(int *bad)
{
	const char *t = getenv("HF_TOKEN");
	*bad = 0;
	if (!t || !*t)
		return NULL;
	for (const char *c = t; *c; c++)
		if ((unsigned char)*c <= ' ' || *c == 0x7f)
			*bad = 1;
	return t;
}

int cmd_fetch(int argc, char **argv, FILE *out, FILE *err)
{
	struct fetch_opts o = {.repo = HUB_DEFAULT_REPO, .revision = HUB_DEFAULT_REVISION, .jobs = FETCH_DEFAULT_JOBS};
	struct fetch_stats st;
	char *endpoint, *dest = NULL, *msg = NULL, *end;
	int ch, bad, rc;
	long n;

	optind = 0;      /* glibc: start over, whoever used getopt before */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+:", fetch_opts, NULL)) != -1) {
		switch (ch) {
		case OPT_REPO: o.repo = optarg; break;
		case OPT_REVISION: o.revision = optarg; break;
		case OPT_DEST: o.dest = optarg; break;
		case OPT_QUIET: o.quiet = 1; break;
		case OPT_JOBS:
			n = strtol(optarg, &end, 10);
			if (end == optarg || *end || n < 1 || n > FETCH_MAX_JOBS)
				return fetch_usage_error(err, "--jobs takes a number from 1 to 64, not '%s'", optarg);
			o.jobs = (int)n;
			break;
		case OPT_HELP: cmd_help(&cmd_fetch_entry, out); return 0;
		case ':': return fetch_usage_error(err, "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(err, "fetch", argv[optind - 1], fetch_opts);
		}
	}
	if (optind < argc)
		return fetch_usage_error(err, "takes no argument, got '%s'", argv[optind]);
	if (hub_repo_check(o.repo, &msg) || hub_revision_check(o.revision, &msg)) {
		rc = fetch_usage_error(err, "%s", msg);
		free(msg);
		return rc;
	}
	if (o.dest && !*o.dest)
		return fetch_usage_error(err, "%s", "--dest needs a directory");
	if (offline()) {
		fputs("kbtui fetch: HF_HUB_OFFLINE is set: not connecting to the Hub\n", err);
		return 1;
	}
	if (!(endpoint = hub_endpoint(getenv("HF_ENDPOINT"), &msg))) {
		textsafe_fprintf(err, "kbtui fetch: %s\n", msg);
		free(msg);
		return 1;
	}
	o.endpoint = endpoint;
	o.token = token_from_env(&bad);
	if (bad) {
		fputs("kbtui fetch: HF_TOKEN contains a space or control character; not sending it\n", err);
		free(endpoint);
		return 1;
	}
	if (!o.dest && !(o.dest = dest = fetch_default_dest(o.repo))) {
		fputs("kbtui fetch: neither XDG_DATA_HOME nor HOME is set: give --dest DIR\n", err);
		free(endpoint);
		return 1;
	}
	o.progress = !o.quiet && isatty(fileno(err));

	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		fputs("kbtui fetch: libcurl failed to start\n", err);
		rc = 1;
	} else {
		rc = fetch_run(&o, &st, out, err);
		curl_global_cleanup();
	}
	free(dest);
	free(endpoint);
	return rc;
}

static int cmd_fetch_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	return cmd_fetch(argc, argv, ctx->out, ctx->err);
}

const struct cmd_entry cmd_fetch_entry = {
	.name = "fetch",
	.usage = "[--repo OWNER/NAME] [--revision REV] [--dest DIR] [--jobs N] [--quiet]",
	.summary = "download the dataset from the Hugging Face Hub, verified, resumable",
	.help = "Into DIR (default $XDG_DATA_HOME/kbtui/NAME, which kbtui with no PATH\n"
	        "opens). Files are verified (size, sha256), partial downloads resume,\n"
	        "files already up to date are skipped, files changed here are kept.\n"
	        "  --repo REPO     the Hub dataset, OWNER/NAME (default " HUB_DEFAULT_REPO ")\n"
	        "  --revision REV  branch, tag or commit (default " HUB_DEFAULT_REVISION ")\n"
	        "  --dest DIR      where the files go\n"
	        "  --jobs N        files downloaded at once, 1 to 64 (default 4)\n"
	        "  --quiet         no progress line, no summary\n"
	        "Environment: HF_ENDPOINT (another endpoint or mirror), HF_TOKEN (gated or\n"
	        "private repositories), HF_HUB_OFFLINE (refuse to fetch).\n",
	.exec = cmd_fetch_exec,
};
