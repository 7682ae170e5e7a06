/* tui_entry.c: what main.c opens: the browser over a dataset, the replay
 * of one run, a replay over a feed; each a session around one loop
 * (ui/tui.c) whose first view is the screen asked for. */
#include "config.h"

#include "browse.h"
#include "replay.h"
#include "run.h"
#include "tui.h"

int tui_browse(struct dataset *ds, const struct tui_tagging *tg, long open)
{
	tui_start();
	browse_run(ds, tg, open);
	tui_stop();
	return tui_exit_status();
}

int tui_replay(struct run *run, const char *title)
{
	return tui_replay_at(run, title, 0);
}

int tui_replay_at(struct run *run, const char *title, size_t ev)
{
	struct replay_opts o = { .ev = run->nev && ev >= run->nev ? run->nev - 1 : ev };
	tui_start();
	replay_open(run, title, &o);
	tui_stop();
	return tui_exit_status();
}

int tui_replay_feed(struct run *run, const char *title, struct replay_feed *feed)
{
	tui_start();
	replay_run_feed(run, title, feed);
	tui_stop();
	return tui_exit_status();
}
