/* screens.h: the screens the browser opens with a key, one line each: the
 * action (declared with its key and help in keys.h) and the screen's
 * constructor, struct view *NAME(struct dataset *ds, struct tag *tag)
 * (ds and the annotation session tag borrowed; NULL: nothing to show, the
 * browser stays). A screen is a file implementing view_ops (ui/view.h);
 * when it closes, the browser reads the verdicts again. */
#ifndef KB_SCREENS_H
#define KB_SCREENS_H

#define BROWSE_SCREENS(X) \
	X(ACT_XSEARCH, xsearch_view_new)

struct dataset;
struct tag;
struct view;
#define SCREENS_DECLARE(act, open) struct view *open(struct dataset *ds, struct tag *tag);
BROWSE_SCREENS(SCREENS_DECLARE)
#undef SCREENS_DECLARE

#endif
