/* parse_codex.c: placeholder until the codex parser lands; recognises nothing. */
#include "parser.h"

static int codex_sniff(const char *line, size_t len, const cJSON *obj) { return 0; }
static int codex_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	run_error(ctx->run, ctx->lineno, "codex parser not written yet");
	return -1;
}
static void codex_finish(struct parse_ctx *ctx) { ctx->run->incomplete = 1; }

const struct parser_ops parse_codex_ops = {
	.name = "codex",
	.description = "codex (not yet supported)",
	.sniff = codex_sniff,
	.line = codex_line,
	.finish = codex_finish,
};
