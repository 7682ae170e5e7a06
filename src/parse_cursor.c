/* parse_cursor.c: placeholder until the cursor parser lands; recognises nothing. */
#include "parser.h"

static int cursor_sniff(const char *line, size_t len, const cJSON *obj) { return 0; }
static int cursor_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	run_error(ctx->run, ctx->lineno, "cursor parser not written yet");
	return -1;
}
static void cursor_finish(struct parse_ctx *ctx) { ctx->run->incomplete = 1; }

const struct parser_ops parse_cursor_ops = {
	.name = "cursor",
	.description = "cursor (not yet supported)",
	.sniff = cursor_sniff,
	.line = cursor_line,
	.finish = cursor_finish,
};
