/* cmd_live_tui.c: `kbtui live`'s entry in the command table, the front
 * end's side: a model works on a problem through an LLM API,
 * recorded as a replayable run; on the replay screen (ui/live.c) or
 * headless (src/cmd_live.c). */
#include "cmd.h"
#include "live.h"

static int cmd_live_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	(void)ctx;  /* the run prints to stdout and stderr itself */
	return live_main(argc, argv);
}

const struct cmd_entry cmd_live_entry = {
	.name = "live",
	.usage = "--problem NAME --model MODEL [--provider openai|anthropic] [--base-url URL]\n"
	         "     [--budget 45m] [--max-turns N] [--headless] [--sandbox none|bwrap] [--out DIR]",
	.summary = "a model works on a problem through an LLM API, recorded as a run",
	.help = "Tools bash, read_file, write_file, edit_file and eval; the run\n"
	        "(transcript.jsonl, result.json) is written as it goes. Keys from\n"
	        "OPENAI_API_KEY / ANTHROPIC_API_KEY, base URLs from *_BASE_URL.\n"
	        "  --problem NAME  the problem (04_kahan_softmax, 04 or kahan_softmax)\n"
	        "  --problems DIR  where the problems are (default: the installed ones)\n"
	        "  --model MODEL   the model name the API knows\n"
	        "  --provider P    openai (Chat Completions, also OpenRouter, vLLM,\n"
	        "                  llama.cpp ...) or anthropic (Messages API)\n"
	        "  --base-url URL  the API's base URL (else *_BASE_URL, else the vendor's)\n"
	        "  --budget TIME   wall-clock budget, e.g. 45m, 90s, 2h\n"
	        "  --max-turns N   model turns at most\n"
	        "  --max-tokens N  input + output tokens at most over the run\n"
	        "  --thinking N    thinking token budget (anthropic)\n"
	        "  --effort LEVEL  reasoning effort (low, medium, high ...): openai's\n"
	        "                  reasoning_effort; anthropic: a thinking budget\n"
	        "                  when --thinking gives none\n"	        "  --out DIR       the run directory (transcript.jsonl, result.json ...)\n"
	        "  --no-eval       no eval tool, no final eval\n"
	        "  --deck NAME     the deck the eval tool and the final eval run as\n"
	        "                  (kbtui eval --deck; default: the GPU's current deck)\n"
	        "  --headless      a compact log line per event instead of a screen\n"
	        "  --sandbox none|bwrap  where the bash tool runs; bwrap (the default when\n"
	        "                  it works here): only the work directory writable, no\n"
	        "                  network\n",
	.exec = cmd_live_exec,
};
