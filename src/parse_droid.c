/* parse_droid.c: placeholder until the droid parser lands; recognises nothing. */
#include "parser.h"

static int droid_sniff(const char *line, size_t len, const cJSON *obj) { return 0; }
static int droid_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	run_error(ctx->run, ctx->lineno, "droid parser not written yet");
	return -1;
}
static void droid_finish(struct parse_ctx *ctx) { ctx->run->incomplete = 1; }

const struct parser_ops parse_droid_ops = {
	.name = "droid",
	.description = "droid (not yet supported)",
	.sniff = droid_sniff,
	.line = droid_line,
	.finish = droid_finish,
};
