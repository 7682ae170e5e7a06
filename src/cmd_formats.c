/* cmd_formats.c: `kbtui formats`: the transcript formats this build reads. */
#include "cmd.h"
#include "textsafe.h"
#include "parser.h"

int cmd_formats(FILE *out)
{
	for (size_t i = 0; parser_all[i]; i++)
		textsafe_fprintf(out, "%-15s %s\n", parser_all[i]->name, parser_all[i]->description);
	return CMD_OK;
}

static int cmd_formats_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	if (argc > 1)
		return cmd_usage_error(ctx->err, "formats", "takes no argument, got '%s'", argv[1]);
	return cmd_formats(ctx->out);
}

const struct cmd_entry cmd_formats_entry = {
	.name = "formats",
	.usage = "",
	.summary = "the transcript formats this build reads",
	.help = "Each line: the name --format takes, and what writes that format.\n",
	.exec = cmd_formats_exec,
};
