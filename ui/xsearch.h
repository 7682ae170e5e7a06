/* xsearch.h: the browser's search across runs (?): a regular expression,
 * then the runs with hits (run, hit count, verdict, first matching line),
 * best first; Enter replays a run at its first hit with the search set
 * there. The annotation keys work on the list and in those replays, and a
 * goes to the next run of the list without a verdict. */
#ifndef KB_XSEARCH_H
#define KB_XSEARCH_H

struct dataset;
struct tag;

/* The screen (a view, ui/view.h; the browser's ? in screens.h): asks for
 * the pattern, searches the runs a few at a time between keys (a progress
 * line meanwhile), and closes when the user goes back (q, or Esc at the
 * prompt). ds and tag (the browser's annotation session; NULL: none) stay
 * borrowed. */
struct view;
struct view *xsearch_view_new(struct dataset *ds, struct tag *tag);

#endif
