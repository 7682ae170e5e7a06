/* modelname.h: what a run's model is called on screen: its leaderboard
 * label, else harness/model [effort]. The grid's rows and the run list
 * show it (grid_model, which hides it in blind mode); blind mode numbers
 * the names it gives (ui/tag.c). */
#ifndef KB_MODELNAME_H
#define KB_MODELNAME_H

struct run_meta;

/* Safe, owned; never the blind-mode label. */
char *modelname(const struct run_meta *m);

#endif
