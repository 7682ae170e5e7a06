/* htmlexport.h: a run as one self-contained HTML page (kbtui export
 * --format html RUN), and a dataset's index page linking its runs' pages.
 * No script, no style sheet or font fetched, every byte of the run's text
 * made safe as for a terminal (control characters and escapes shown) and
 * then HTML-escaped. Each event has an anchor #eN (N from 1, as the replay
 * and kbtui RUN@N count). */
#ifndef KB_HTMLEXPORT_H
#define KB_HTMLEXPORT_H

#include <stdio.h>

#include "util.h"

struct dataset;
struct run;

/* The page of run r: id names it, annotation (may be NULL) is the path of
 * its annotation file. out, when not NULL, gets the page as it is made, b
 * holding about a megabyte at a time (a big run's page is never held
 * whole, nor its events' diffs once written); what is left in b is the
 * caller's to write. */
void htmlexport_run(struct sbuf *b, struct run *r, const char *id, const char *annotation, FILE *out);
/* The index of ds: one row per run, linking RUN_ID.html beside it. */
void htmlexport_index(struct sbuf *b, struct dataset *ds);
/* Appends s (n bytes) made safe and HTML-escaped. */
void htmlexport_text(struct sbuf *b, const char *s, size_t n);

#endif
