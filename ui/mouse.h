/* mouse.h: the mouse where the terminal reports it: the wheel and the left
 * button, as events the views turn into actions (scroll the list or pane
 * under the pointer, select what was clicked, focus a pane). --no-mouse
 * leaves clicks to the terminal, so its own text selection works. */
#ifndef KB_MOUSE_H
#define KB_MOUSE_H

enum mouse_kind { MOUSE_NONE, MOUSE_CLICK, MOUSE_WHEEL_UP, MOUSE_WHEEL_DOWN };

struct mouse_event {
	enum mouse_kind kind;
	int y, x;                 /* screen cell */
};

/* Rows one wheel step scrolls. */
#define MOUSE_WHEEL_ROWS 3

/* Before the screen starts: never ask the terminal for mouse reports. */
void mouse_disable(void);
/* After initscr: ask for button and wheel reports, unless disabled. */
void mouse_init(void);
/* After keys_read gave KEY_MOUSE: the event; MOUSE_NONE for one the views
 * ignore (a release, a motion, another button). */
struct mouse_event mouse_read(void);

#endif
