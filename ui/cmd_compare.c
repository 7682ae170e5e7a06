/* cmd_compare.c: `kbtui compare`: two runs side by side, aligned on their
 * milestones. */
#include "cmd.h"
#include "cmd_screen.h"
#include "compare.h"

#include <stdlib.h>

static int cmd_compare_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	struct cmd_screen s;
	int first, rc;
	if ((rc = cmd_screen_parse(argc, argv, "compare", &s, &first, ctx->err)) >= 0)
		return rc;
	int nargs = argc - first;
	if (nargs < 2 || nargs > 3)
		return cmd_usage_error(ctx->err, "compare", "%s", "compare needs RUN_A and RUN_B, and a DIR at most");
	if ((rc = cmd_screen_prepare(&s, ctx->err)) >= 0)
		return rc;
	/* run ids are looked up in DIR, else in the dataset the working
	 * directory is in (compare_cmd's own default is the global one) */
	char *args[3] = { argv[first], argv[first + 1], nargs == 3 ? argv[first + 2] : NULL };
	char *def = nargs == 3 ? NULL : cmd_default_dataset(ctx->argv0, NULL);
	if (def)
		args[2] = def;
	rc = compare_cmd(3, args, s.format, ctx->argv0);
	free(def);
	return rc;
}

const struct cmd_entry cmd_compare_entry = {
	.name = "compare",
	.usage = "[--format FMT] RUN_A RUN_B [DIR]",
	.summary = "two runs side by side, aligned on their milestones",
	.help = "The milestones: first compile, first PASS, best peak_fraction, end. A RUN\n"
	        "is a run id or a unique prefix of one in DIR (default: the dataset the\n"
	        "working directory is in, else the default one), a run directory or a\n"
	        "transcript.\n"
	        CMD_SCREEN_HELP,
	.exec = cmd_compare_exec,
};
