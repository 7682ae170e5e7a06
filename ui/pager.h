/* pager.h: the replay of a big finished transcript read between keys. */
#ifndef KB_PAGER_H
#define KB_PAGER_H

#include <stddef.h>

struct parser_loader;
struct pager;
struct replay_feed;

/* The first slices of ld read: until it has an event, event ev (0-based)
 * and its format, or the end. parser_loader_step's result: 1 more to
 * read, 0 read whole, -1 a read error (*err owned). */
int pager_first(struct parser_loader *ld, size_t ev, char **err);
/* The feed that reads the rest of ld (borrowed) between keys, for a
 * replay view; owned, free with pager_free once the view closed. */
struct pager *pager_new(struct parser_loader *ld);
struct replay_feed *pager_feed(struct pager *p);
/* done(arg, ld) once ld is read whole (the browser hands the run to its
 * dataset then: parser_loader_take); the replay goes on showing it. */
void pager_on_done(struct pager *p, void (*done)(void *arg, struct parser_loader *ld), void *arg);
void pager_free(struct pager *p);
/* The replay of what ld reads (borrowed; the first slices already read),
 * event ev selected first; reads the rest in slices between keys. The
 * exit status of the screen. */
int pager_replay(struct parser_loader *ld, const char *title, size_t ev);

#endif
