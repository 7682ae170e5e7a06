/* tui_entry.c: what main.c and `kbtui watch` open: the browser over a
 * dataset, the replay of one run, any view; each a session around one loop
 * (ui/tui.c) whose first view is the screen asked for. */
#include "config.h"

#include "browse.h"
#include "replay.h"
#include "run.h"
#include "tui.h"
#include "tui_entry.h"
#include "view.h"

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

int tui_view(struct view *v)
{
	tui_start();
	tui_run(v);
	tui_stop();
	return tui_exit_status();
}
