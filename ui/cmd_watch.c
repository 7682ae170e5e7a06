/* cmd_watch.c: `kbtui watch`: the replay of a transcript a harness is still
 * writing, following its tail. */
#include "cmd.h"
#include "cmd_screen.h"
#include "tui_entry.h"
#include "util.h"
#include "watch.h"
#include "textsafe.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* path: a transcript file (it may not exist yet) or a run directory;
 * format: a --format name, NULL to sniff. Returns the exit status. */
static int cmd_watch_main(const char *path, const char *format)
{
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr, "kbtui: watch needs a terminal; use 'kbtui dump' in scripts\n");
		return CMD_USAGE;
	}
	struct watch_session *s = watch_session_new(path, format, NULL);
	if (!s) {
		textsafe_fprintf(stderr, "kbtui: %s: no such file, and no directory to wait in\n", path);
		return CMD_BADINPUT;
	}
	int rc = tui_view(watch_session_view(s));
	watch_session_free(s);
	return rc;
}

static int cmd_watch_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	struct cmd_screen s;
	int first, rc;
	if ((rc = cmd_screen_parse(argc, argv, "watch", &s, &first, ctx->err)) >= 0)
		return rc;
	if (argc - first != 1)
		return cmd_usage_error(ctx->err, "watch", "%s", "watch needs exactly one FILE or RUN_DIR (or RUN, a run id)");
	if ((rc = cmd_screen_prepare(&s, ctx->err)) >= 0)
		return rc;
	/* a run id or a prefix of one, when it names one: its transcript;
	 * else a path, which may not exist yet (it is waited for) */
	const char *arg = argv[first];
	struct cmd_run cr;
	if (util_is_file(arg) || util_is_dir(arg) || cmd_run_resolve(arg, NULL, ctx->argv0, &cr, NULL) < 0)
		return cmd_watch_main(arg, s.format);
	if (cr.transcript) {
		rc = cmd_watch_main(cr.transcript, s.format);
	} else {
		textsafe_fprintf(ctx->err, "kbtui: %s: this run has no transcript in the dataset\n", cr.name);
		rc = CMD_BADINPUT;
	}
	cmd_run_free(&cr);
	return rc;
}

const struct cmd_entry cmd_watch_entry = {
	.name = "watch",
	.usage = "[--format FMT] FILE|RUN_DIR|RUN",
	.summary = "replay a transcript a harness is still writing, following its tail",
	.help = "FILE may not exist yet (its directory must): it is waited for; a file\n"
	        "truncated or replaced is read again. RUN_DIR: its transcript; RUN: a run\n"
	        "id or a unique prefix of one.\n"
	        CMD_SCREEN_HELP,
	.exec = cmd_watch_exec,
};
