/* test_modelname.c: a model's name in fewer columns (ui/modelname.c,
 * modelname_fit): the middle of its path first, then the note but its
 * last word, then the middle of what is left, the harness kept; real
 * labels of the KernelBench-Hard runs. */
#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "modelname.h"
#include "tap.h"

static void fit_is(const char *name, int w, const char *want)
{
	char *s = modelname_fit(name, w, "…");
	is_str(s, want, "%s in %d columns", name, w);
	ok((int)draw_width(s) <= w || w <= 0, "... fits (%zu)", draw_width(s));
	free(s);
}

int main(void)
{
	const char *qwen = "opencode/openrouter-pinned/qwen/qwen3.6-plus";
	const char *opus = "claude/claude-opus-4-6 [2026-06-04 opus46 max]";
	fit_is(qwen, 60, qwen);
	fit_is(qwen, 0, qwen);
	fit_is(qwen, 34, "opencode/…/qwen3.6-plus");
	fit_is("opencode/openrouter-pinned/qwen/qwen3.6-27b", 22, "opencode/…/qwen3.6-27b");
	fit_is(qwen, 19, "opencode/…n3.6-plus");
	fit_is(opus, 46, opus);
	fit_is(opus, 40, "claude/claude-opus-4-6 […max]");
	fit_is(opus, 22, "claude/…pus-4-6 […max]");
	fit_is("codex/gpt-5.5 [xhigh]", 21, "codex/gpt-5.5 [xhigh]");
	fit_is("codex/gpt-5.5 [xhigh]", 18, "codex/…5.5 [xhigh]");
	/* the one-word note is the effort: kept whole while the path gives way */
	fit_is("opencode/zai/glm-5.1 [2026-05-08]", 31, "opencode/…/glm-5.1 [2026-05-08]");
	fit_is("opencode/zai/glm-5.1 [2026-05-08]", 30, "opencode/…glm-5.1 [2026-05-08]");
	/* a harness too long to keep: the head and the end */
	fit_is("minimax-claude/MiniMax-M3 [2026-06-01]", 22, "minimax-… [2026-06-01]");
	/* xhigh and high of one model stay apart at every width down to 12 */
	int apart = 1;
	for (int w = 12; w <= 40; w++) {
		char *a = modelname_fit("opencode/openrouter-pinned/qwen/qwen3.6-plus [xhigh]", w, "…");
		char *b = modelname_fit("opencode/openrouter-pinned/qwen/qwen3.6-plus [high]", w, "…");
		apart &= strcmp(a, b) != 0;
		free(a);
		free(b);
	}
	ok(apart, "[xhigh] and [high] of one model differ at every width from 12 to 40");
	return tap_done();
}
