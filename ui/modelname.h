/* modelname.h: what a run's model is called on screen: its leaderboard
 * label, else harness/model [effort]. The grid's rows and the run list
 * show it (grid_model, which hides it in blind mode); blind mode numbers
 * the names it gives (ui/tag.c). */
#ifndef KB_MODELNAME_H
#define KB_MODELNAME_H

struct run_meta;

/* Safe, owned; never the blind-mode label. */
char *modelname(const struct run_meta *m);
/* A name (safe) in at most w columns, shortened where it says least: first
 * the middle of its path (opencode/…/qwen3.6-plus), then a bracketed
 * note but its last word, the effort (claude/claude-opus-4-6 […max]),
 * then the middle of what is left, keeping the harness
 * (opencode/…n3.6-plus). more is the ellipsis glyph. w <= 0: as it is.
 * Owned. */
char *modelname_fit(const char *name, int w, const char *more);

#endif
