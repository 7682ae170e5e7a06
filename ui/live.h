/* live.h: `kbtui live` on a screen: the agent works in a thread while the
 * replay shows its run growing (ui/replay.c's feed), with keys to pause it,
 * write to it and abort it. */
#ifndef KB_LIVE_H
#define KB_LIVE_H

/* `kbtui live`: argv[0] is the command name. The options are cmd_live's
 * (src/cmd_live.c); without a terminal or with --headless, its log. */
int live_main(int argc, char **argv);

#endif
