/* tag.h: the annotation session of the browser and the replays it opens:
 * one key writes a verdict (through src/annotate.h), A edits summary and
 * implication in $EDITOR (a refused text kept as a draft and offered
 * again), Y opens the YAML itself, Ctrl-R reads every file again, u undoes this session's changes one by one, a
 * finds the next run nobody annotated, x hides who wrote the kernel (blind
 * mode). The views call tag_act with the action and the run it is about and
 * show the message it returns. */
#ifndef KB_TAG_H
#define KB_TAG_H

#include <stddef.h>

#include "keys.h"

struct dataset;
struct run_meta;
struct sbuf;
struct tag;

/* A session over ds (borrowed): annotation files go to dir (NULL: the
 * dataset's annotations/), annotator (NULL: none) is recorded with each
 * change. When dir is not the dataset's own, the verdicts shown are read
 * from dir. The session is the one blind mode and the verdict keys act on
 * until tag_free. */
struct tag *tag_new(struct dataset *ds, const char *dir, const char *annotator, int blind);
void tag_free(struct tag *t);
/* Who answers the session's y/n questions (a verdict for a run without a
 * transcript): the view that shows them; none set, the answer is no. */
void tag_set_ask(struct tag *t, int (*ask)(void *ctx, const char *question), void *ctx);

/* Does a tagging action (verdict keys, A, u, x) on dataset run i (-1:
 * none selected). Returns 0 when a is not one of them; else 1, with *msg
 * the status message (safe, owned, NULL when none). The dataset's verdicts
 * are up to date when it returns. */
int tag_act(struct tag *t, enum action a, long i, char **msg);

struct annotate_change;
/* Another change to dataset run i's annotation (the artifact pane's
 * quotes), written as the verdict keys write (annotator, changed-on-disk
 * check) and undone by u; what names it in *msg (safe, owned). 1 written,
 * 0 not (*msg says why), -1 no session or no such run. */
int tag_apply(struct tag *t, long i, struct annotate_change *ch, const char *what, char **msg);

/* The first run of order[0..n) after position from (wrapping around, from
 * itself excluded) that has a transcript and no verdict; -1 when none. */
long tag_next_unannotated(const struct tag *t, const size_t *order, size_t n, size_t from);

/* Looks for annotation files changed on disk since the session read them
 * (size, mtime, inode): the directory, and run sel's file (-1: none), so
 * a file renamed in or written in place is noticed; each changed one's
 * verdict is read again. The number read again. Cheap: the views call it
 * on each key and when idle. */
int tag_poll(struct tag *t, long sel);
/* A count that changes whenever verdicts were read again (R, tag_poll, a
 * write): what a pane showing an annotation compares. */
unsigned tag_generation(const struct tag *t);
/* The annotation pane's selected quote: run i's YAML line (Y opens the
 * editor there). */
void tag_hint_line(struct tag *t, long i, int line);

/* Blind mode: on or off. */
int tag_blind(const struct tag *t);
/* The label a run's model goes by on screen in blind mode ("model 3", from
 * a fixed shuffle of the dataset's models); NULL when blind mode is off or
 * m is not a run of the session's dataset. Borrowed. */
const char *tag_blind_model(const struct run_meta *m);

/* Appends the verdict counts of the dataset ("clean 3  reward_hack 1 ...
 * unannotated 20") to b. */
void tag_counts(const struct tag *t, struct sbuf *b);
/* The verdict of run i for a header: "verdict reward_hack" or "unannotated"
 * (safe, owned). */
char *tag_verdict_label(const struct tag *t, size_t i);
/* Where dataset run i's annotation is read and written (owned; NULL when
 * the run has no id). */
char *tag_annotation_path(const struct tag *t, size_t i);
/* The compact key map for a status bar. */
const char *tag_keys_hint(void);

/* The browser's filter: a "verdict:NAME" filter (NAME "none" or "-":
 * unannotated; empty: any verdict) decides for the run: 1 match, 0 not;
 * -1 when the filter is not of that form. */
int tag_filter(const char *filter, const char *verdict);

#endif
