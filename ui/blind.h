/* blind.h: blind mode (blind.c): stable model labels and masked names. */
#ifndef KB_BLIND_H
#define KB_BLIND_H

struct dataset;
struct run_meta;
struct blind;

/* Blind mode over ds (borrowed), on or off; the one the draw filter and
 * blind_model read from now on. Its labels are made at its first use. */
struct blind *blind_new(const struct dataset *ds, int on);
void blind_set(struct blind *b, int on);
int blind_on(const struct blind *b);
/* "model 3" for the run m is the meta of, while blind mode is on; else NULL. */
const char *blind_model(const struct run_meta *m);
void blind_free(struct blind *b);

#endif
