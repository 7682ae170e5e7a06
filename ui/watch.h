/* watch.h: `kbtui watch FILE`: the replay of a transcript that a harness is
 * still writing, following its tail as it grows. */
#ifndef KB_WATCH_H
#define KB_WATCH_H

/* The replay of a transcript a harness is still writing, as a view (the
 * browser's Enter on a sweep's running cell; `kbtui watch`: cmd_watch.c):
 * the session owns the run and its follower and outlives the view (free it once the view closed). NULL when path can
 * be no transcript (no file, no directory to wait in). */
struct view;
struct watch_session;
struct watch_session *watch_session_new(const char *path, const char *format, const char *title);
struct view *watch_session_view(struct watch_session *s);
void watch_session_free(struct watch_session *s);

#endif
