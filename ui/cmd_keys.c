/* cmd_keys.c: `kbtui keys`: the key table of the browser and the replay. */
#include "cmd.h"
#include "tui.h"

static int cmd_keys_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	if (argc > 1)
		return cmd_usage_error(ctx->err, "keys", "takes no argument, got '%s'", argv[1]);
	tui_print_keys(ctx->out, 0);
	return CMD_OK;
}

const struct cmd_entry cmd_keys_entry = {
	.name = "keys",
	.usage = "",
	.summary = "the keys of the browser and the replay",
	.help = "One line per key: the key, and what it does (the KEYS of kbtui(1)).\n",
	.exec = cmd_keys_exec,
};
