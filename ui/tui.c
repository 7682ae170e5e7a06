/* tui.c: the curses session: start and stop (nested: the browser opens
 * replays inside its own session), and the signals that end it. The views
 * live in browse.c and replay.c. */
#include "config.h"

#include <curses.h>
#include <signal.h>
#include <string.h>

#include "browse.h"
#include "keys.h"
#include "mouse.h"
#include "replay.h"
#include "theme.h"
#include "tui.h"

static int tui_depth;
static volatile sig_atomic_t tui_signal;  /* SIGINT/SIGTERM/SIGHUP seen */

/* The loops see the flag when the interrupted read returns, and leave
 * through endwin, so the terminal is never left in curses mode. */
static void tui_on_signal(int sig)
{
	tui_signal = sig;
}

static void tui_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = tui_on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;  /* no SA_RESTART: the pending read must return */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

void tui_start(void)
{
	if (tui_depth++)
		return;
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	theme_init();
	mouse_init();
	tui_catch();
}

void tui_stop(void)
{
	if (--tui_depth == 0)
		endwin();
}

int tui_stopped(void)
{
	return tui_signal != 0;
}

/* Exit status: 0, or 128 + the signal that ended the session. */
static int tui_status(void)
{
	return tui_signal ? 128 + tui_signal : 0;
}

int tui_browse(struct dataset *ds, const struct tui_tagging *tg, long open)
{
	tui_start();
	browse_run(ds, tg, open);
	tui_stop();
	return tui_status();
}

int tui_replay(struct run *run, const char *title)
{
	tui_start();
	replay_run(run, title);
	tui_stop();
	return tui_status();
}

int tui_replay_feed(struct run *run, const char *title, struct replay_feed *feed)
{
	tui_start();
	replay_run_feed(run, title, feed);
	tui_stop();
	return tui_status();
}

void tui_print_keys(FILE *out, int roff)
{
	keys_print(out, roff);
}
