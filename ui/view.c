/* view.c: what every view shares: its message, pushing a view over it, and
 * which actions the loop takes for it (ui/tui.c runs the stack). */
#include "config.h"

#include <stdlib.h>

#include "draw.h"
#include "util.h"
#include "view.h"

void view_say(struct view *v, const char *msg)
{
	free(v->msg);
	v->msg = msg ? xstrdup(msg) : NULL;
	v->dirty |= D_STATUS;
}

unsigned view_push(struct view *v, struct view *child)
{
	v->push = child;
	return VIEW_PUSH;
}

/* The annotation session's actions (ui/tag.c's tag_act takes them). */
static int view_tag_action(enum action a)
{
	switch (a) {
	case ACT_VERDICT_CLEAN:
	case ACT_VERDICT_LEAK:
	case ACT_VERDICT_HACK:
	case ACT_VERDICT_INTERESTING:
	case ACT_VERDICT_BUG:
	case ACT_EDIT_NOTE:
	case ACT_EDIT_YAML:
	case ACT_RELOAD:
	case ACT_UNDO:
	case ACT_BLIND:
	case ACT_NEXT_UNANNOTATED:
		return 1;
	default:
		return 0;
	}
}

int view_shared(const struct view *v, enum action a)
{
	unsigned c = v->ops->common;
	switch (a) {
	case ACT_HELP: return (c & VIEW_HAS_HELP) != 0;
	case ACT_THEME: return (c & VIEW_HAS_THEME) != 0;
	case ACT_REDRAW: return (c & VIEW_HAS_REDRAW) != 0;
	case ACT_QUIT: return (c & VIEW_HAS_QUIT) != 0;
	default: return (c & VIEW_HAS_TAG) && view_tag_action(a);
	}
}
