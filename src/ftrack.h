/* ftrack.h: the content of each file as a reader of the run has seen it,
 * version by version, so that writes, edits and patches can be shown as
 * unified diffs against what came before, and a file can be shown as it
 * stood at any step. Owned by the run (run_files), one per run.
 *
 * Versions are shared, immutable texts: an event's diff keeps references
 * to the versions before and after it and is rendered on first use
 * (ftrack_diff), so loading a run diffs nothing. */
#ifndef KB_FTRACK_H
#define KB_FTRACK_H

#include <stddef.h>

struct ftrack;
struct ftext; /* a shared version of a file's text */

struct ftrack *ftrack_new(void);
void ftrack_free(struct ftrack *t);

/* Current content of path, NULL when never seen. Borrowed. */
const char *ftrack_get(const struct ftrack *t, const char *path);

/* Effects between ftrack_begin and ftrack_end belong to event ev: the
 * versions they make are that event's, and the diff of each is recorded
 * for it. ftrack_mark records an (empty so far) diff even when nothing
 * follows, so that the event has a diff "" rather than none. */
void ftrack_begin(struct ftrack *t, size_t ev);
void ftrack_mark(struct ftrack *t);
void ftrack_end(struct ftrack *t);
/* Whether event ev has a diff, and that diff as newly allocated text
 * (NULL when none): its parts rendered by diff_unified, concatenated. */
int ftrack_has_diff(const struct ftrack *t, size_t ev);
char *ftrack_diff(const struct ftrack *t, size_t ev);

/* A streamed reader that has shown every event before `before` and will
 * not look back (dump, search, flags of a big transcript): the diffs of
 * those events, and every version no later diff or edit can reach, are
 * freed, so that what stays is each file's current text and not its
 * history (issue #28). Questions about those events (ftrack_diff,
 * ftrack_file_at, the versions) are no longer answered as before. */
void ftrack_forget(struct ftrack *t, size_t before);

/* The changes. Inside a begin/end they record; outside, each returns the
 * newly allocated unified diff at once (caller frees), "" when no change.
 * When an edit's old text is not in the tracked content (file never seen,
 * or the agent's edit failed) the diff shows old text against new text
 * alone, so a reader still sees what was attempted. */
char *ftrack_write(struct ftrack *t, const char *path, const char *content);
char *ftrack_edit(struct ftrack *t, const char *path, const char *old_s,
                  const char *new_s, int replace_all);
/* Codex apply_patch envelope ("*** Begin Patch" ... "*** End Patch").
 * Returns one diff for all files in the patch; *first_path (owned by the
 * caller, may be NULL) names the first file touched. */
char *ftrack_patch(struct ftrack *t, const char *patch, char **first_path);
/* Several edits shown as one change of path (Claude's MultiEdit): when the
 * file is known, the diff is the whole file before against after; when it
 * is not, each edit's own diff. Call ftrack_edit between open and close. */
struct ftext *ftrack_group_open(struct ftrack *t, const char *path);
void ftrack_group_close(struct ftrack *t, const char *path, struct ftext *before);

/* The files written, in order of first write, a file named solution.*
 * first. Paths are as the parser keyed them (cwd-joined). */
size_t ftrack_nfiles(const struct ftrack *t);
const char *ftrack_file_path(const struct ftrack *t, size_t f);
/* Content of file f as it stood after event ev (NULL before it existed or
 * after it was deleted); *changed_at (may be NULL) gets the event that
 * made that version, -1 when none. Borrowed, valid while t lives. */
const char *ftrack_file_at(const struct ftrack *t, size_t f, size_t ev, long *changed_at);
/* The versions of file f, oldest first: how many, and version k's text
 * (NULL: the file was deleted there) with the event that made it in *ev
 * (may be NULL; -1 when none). Borrowed, valid while t lives. */
size_t ftrack_file_nversions(const struct ftrack *t, size_t f);
const char *ftrack_file_version(const struct ftrack *t, size_t f, size_t k, long *ev);

/* Where a file's content can no longer be followed: a write or edit the
 * renderer cut ("... (N more chars)"), an edit or patch whose old text is
 * not in what is known of the file. A whole write makes it known again. */
enum ftrack_doubt { FTRACK_SURE, FTRACK_CUT, FTRACK_EDIT_MISSED, FTRACK_PATCH_MISSED };
/* Whether event ev's change failed in the run itself (its result is an
 * error), so that its not applying is what happened, not a doubt. */
typedef int (*ftrack_failed_fn)(const void *arg, size_t ev);
/* Whether file f as it stands after event ev is in doubt, and why (the
 * first reason since it was last known); *since (may be NULL) gets the
 * event from which on, -1 when sure. failed may be NULL: no change failed. */
enum ftrack_doubt ftrack_file_doubt(const struct ftrack *t, size_t f, size_t ev, ftrack_failed_fn failed,
                                    const void *arg, long *since);
/* "patch did not apply", "write was cut", ... ("" for FTRACK_SURE). */
const char *ftrack_doubt_text(enum ftrack_doubt why);
/* Whether s holds the renderer's cut marker "... (N more chars)". */
int ftrack_is_cut(const char *s);

/* Whether path names a solution file (its last part begins "solution."). */
int ftrack_is_solution(const char *path);

#endif
