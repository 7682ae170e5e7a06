/* mouse.c: curses mouse reports turned into the few events kbtui uses. */
#include "config.h"

#include <curses.h>

#include "mouse.h"

static int mouse_off;

void mouse_disable(void)
{
	mouse_off = 1;
}

void mouse_init(void)
{
	if (mouse_off)
		return;
	/* presses only: asking for BUTTON1_CLICKED too made ncurses keep
	 * releases (to compose clicks from), and a release read with its
	 * press in one go could be the one event getmouse returned, so that
	 * a click did nothing (seen twice in CI: test_theme's click on a pane,
	 * then j moved the list). Every terminal reports the press. */
	mmask_t want = BUTTON1_PRESSED | BUTTON4_PRESSED;
#if NCURSES_MOUSE_VERSION > 1
	want |= BUTTON5_PRESSED;
#endif
	/* no click detection delay: a press acts at once */
	mouseinterval(0);
	mousemask(want, NULL);
}

struct mouse_event mouse_read(void)
{
	struct mouse_event m = { .kind = MOUSE_NONE };
	MEVENT me;
	if (getmouse(&me) != OK)
		return m;
	m.y = me.y;
	m.x = me.x;
	if (me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))
		m.kind = MOUSE_CLICK;
	else if (me.bstate & BUTTON4_PRESSED)
		m.kind = MOUSE_WHEEL_UP;
#if NCURSES_MOUSE_VERSION > 1
	else if (me.bstate & BUTTON5_PRESSED)
		m.kind = MOUSE_WHEEL_DOWN;
#endif
	return m;
}
