/* eval_main.c: `kbtui eval` as a program of its own, for tests/gpu/run.sh
 * on a machine where kbtui itself does not have the command wired (or
 * cannot be linked for lack of ncurses): run.sh builds it from libkbcore.
 * Usage as kbtui's: kbeval-main eval [OPTIONS] SOLUTION. */
#include <stdio.h>
#include <string.h>

#include "eval.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "eval"))
		return cmd_eval(argc - 1, argv + 1, stdout, stderr);
	return cmd_eval(argc, argv, stdout, stderr);
}
