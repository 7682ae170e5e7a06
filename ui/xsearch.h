/* xsearch.h: the browser's search across runs (?): a regular expression,
 * then the runs with hits (run, hit count, first matching line), best first;
 * Enter replays a run at its first hit with the search set there. */
#ifndef KB_XSEARCH_H
#define KB_XSEARCH_H

struct dataset;

/* The screen's loop: asks for the pattern, searches the runs a few at a
 * time between keys (a progress line meanwhile), and returns when the user
 * goes back (q, or Esc at the prompt) or a signal came. */
void xsearch_run(struct dataset *ds);

#endif
