/* ftrack.h: the content of each file as a reader of the run has seen it so
 * far, so that writes, edits and patches can be shown as unified diffs
 * against what came before. Owned by the parse context, one per run. */
#ifndef KB_FTRACK_H
#define KB_FTRACK_H

struct ftrack;

struct ftrack *ftrack_new(void);
void ftrack_free(struct ftrack *t);

/* Current content of path, NULL when never seen. Borrowed. */
const char *ftrack_get(const struct ftrack *t, const char *path);

/* Each returns a newly allocated unified diff (caller frees), "" when no
 * change. When an edit's old text is not in the tracked content (file
 * never seen, or the agent's edit failed) the diff shows old text against
 * new text alone, so a reader still sees what was attempted. */
char *ftrack_write(struct ftrack *t, const char *path, const char *content);
char *ftrack_edit(struct ftrack *t, const char *path, const char *old_s,
                  const char *new_s, int replace_all);
/* Codex apply_patch envelope ("*** Begin Patch" ... "*** End Patch").
 * Returns one diff for all files in the patch; *first_path (owned by the
 * caller, may be NULL) names the first file touched. */
char *ftrack_patch(struct ftrack *t, const char *patch, char **first_path);

#endif
