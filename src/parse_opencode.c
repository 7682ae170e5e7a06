/* parse_opencode.c: placeholder until the opencode parser lands; recognises nothing. */
#include "parser.h"

static int opencode_sniff(const char *line, size_t len, const cJSON *obj) { return 0; }
static int opencode_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	run_error(ctx->run, ctx->lineno, "opencode parser not written yet");
	return -1;
}
static void opencode_finish(struct parse_ctx *ctx) { ctx->run->incomplete = 1; }

const struct parser_ops parse_opencode_ops = {
	.name = "opencode",
	.description = "opencode (not yet supported)",
	.sniff = opencode_sniff,
	.line = opencode_line,
	.finish = opencode_finish,
};
