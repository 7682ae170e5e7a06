/* parse_codex_exec.c: placeholder until the codex-exec parser lands; recognises nothing. */
#include "parser.h"

static int codex_exec_sniff(const char *line, size_t len, const cJSON *obj) { return 0; }
static int codex_exec_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	run_error(ctx->run, ctx->lineno, "codex-exec parser not written yet");
	return -1;
}
static void codex_exec_finish(struct parse_ctx *ctx) { ctx->run->incomplete = 1; }

const struct parser_ops parse_codex_exec_ops = {
	.plain_text = 1,
	.name = "codex-exec",
	.description = "codex-exec (not yet supported)",
	.sniff = codex_exec_sniff,
	.line = codex_exec_line,
	.finish = codex_exec_finish,
};
