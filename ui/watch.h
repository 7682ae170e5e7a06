/* watch.h: `kbtui watch FILE`: the replay of a transcript that a harness is
 * still writing, following its tail as it grows. */
#ifndef KB_WATCH_H
#define KB_WATCH_H

/* path: a transcript file (it may not exist yet) or a run directory;
 * format: a --format name, NULL to sniff. Returns the exit status. */
int watch_main(const char *path, const char *format);

#endif
