/* parse_claude.c: placeholder until the claude parser lands; recognises nothing. */
#include "parser.h"

static int claude_sniff(const char *line, size_t len, const cJSON *obj) { return 0; }
static int claude_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	run_error(ctx->run, ctx->lineno, "claude parser not written yet");
	return -1;
}
static void claude_finish(struct parse_ctx *ctx) { ctx->run->incomplete = 1; }

const struct parser_ops parse_claude_ops = {
	.name = "claude",
	.description = "claude (not yet supported)",
	.sniff = claude_sniff,
	.line = claude_line,
	.finish = claude_finish,
};

const struct parser_ops parse_claude_session_ops = {
	.name = "claude-session",
	.description = "claude-session (not yet supported)",
	.sniff = claude_sniff,
	.line = claude_line,
	.finish = claude_finish,
};
