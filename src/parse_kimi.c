/* parse_kimi.c: placeholder until the kimi parser lands; recognises nothing. */
#include "parser.h"

static int kimi_sniff(const char *line, size_t len, const cJSON *obj) { return 0; }
static int kimi_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	run_error(ctx->run, ctx->lineno, "kimi parser not written yet");
	return -1;
}
static void kimi_finish(struct parse_ctx *ctx) { ctx->run->incomplete = 1; }

const struct parser_ops parse_kimi_ops = {
	.name = "kimi",
	.description = "kimi (not yet supported)",
	.sniff = kimi_sniff,
	.line = kimi_line,
	.finish = kimi_finish,
};
