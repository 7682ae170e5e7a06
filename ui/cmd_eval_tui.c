/* cmd_eval_tui.c: `kbtui eval`'s entry in the command table, the front
 * end's side: a solution scored on the GPU, headless
 * (src/cmd_eval.c) or on the replay screen (--tui, ui/evaltui.c). */
#include "cmd.h"
#include "evaltui.h"

static int cmd_eval_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	(void)ctx;  /* the eval loop prints to stdout and stderr itself */
	return evaltui_main(argc, argv);
}

const struct cmd_entry cmd_eval_entry = {
	.name = "eval",
	.usage = "--problem NAME [--deck NAME] [--hardware KEY] [--arch SM] [--sandbox none|bwrap] [--tui] [OPTIONS] SOLUTION.cu\n"
	         "--kbh DIR --problem NAME [--python PATH] [OPTIONS] solution.py\n"
	         "--list-hardware\n"
	         "--describe --problem NAME [--deck NAME] [--json]",
	.summary = "score a solution on the GPU: forbidden patterns, nvcc, check, benchmark",
	.help = "Writes result.json, check.log and benchmark.log (peak_fraction, verdict).\n"
	        "  --problem NAME  the problem (04_kahan_softmax, 04 or kahan_softmax)\n"
	        "  --problems DIR  where the problems are (default: the installed ones)\n"
	        "  --hardware KEY  hardware profile for peak_fraction (default: the GPU's)\n"
	        "  --arch SM       nvcc target, e.g. sm_90a or sm_120a (default: the GPU's)\n"
	        "  --list-hardware list the hardware profiles and exit\n"
	        "  --deck NAME     the published definitions to run as (problems/decks:\n"
	        "                  kbh-2026-04, kbcom-2026-08-rtxpro6000, -h100, -b200;\n"
	        "                  default: $KBTUI_DECK, else the GPU's current deck)\n"
	        "  --no-own-checks leave our adversarial input out of the verdict: the\n"
	        "                  deck's checks alone, as the publisher judges\n"
	        "  --describe      print the problem as the deck defines it, cited\n"
	        "  --json          with --describe: as JSON\n"
	        "  --kbh DIR       run the check.py and benchmark.py of this\n"
	        "                  KernelBench-Hard checkout on solution.py instead\n"
	        "  --workdir DIR   where the build and results go (./kbtui-eval-NAME)\n"
	        "  --timeout SECONDS  time limit of each step (default 300)\n"
	        "  --seeds N       correctness seeds per shape (default: the problem's)\n"
	        "  --trials N      timed calls per shape (default: the problem's)\n"
	        "  --python PATH   with --kbh: the python for check.py and benchmark.py\n"
	        "  --sandbox none|bwrap  where the loop's steps run: bwrap (the default;\n"
	        "                  $KBTUI_SANDBOX overrides): GPU device nodes only, no\n"
	        "                  network, no capabilities, the work directory the only\n"
	        "                  writable path; none only when asked for\n"
	        "  --tui           the loop on the replay screen, its steps as tool calls\n"
	        "                  filling the compiler and timing panes (q asks, then\n"
	        "                  stops it). In a replay, R re-evaluates the solution at\n"
	        "                  the selected event: $KBTUI_KBH names the\n"
	        "                  KernelBench-Hard checkout for dataset runs\n"
	        "                  ($KBTUI_PYTHON its python)\n",
	.exec = cmd_eval_exec,
};
