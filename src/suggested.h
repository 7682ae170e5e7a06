/* suggested.h: the judge's suggestions file (suggested.json beside a
 * run's transcript, written by kbtui judge): read for the replay and
 * `flags`, and an annotator's decision on one suggestion written back.
 * `kbtui judge --accept/--reject` and the replay's keys both decide
 * through suggested_decide: a suggestion stays, only its status changes;
 * nothing here writes a verdict. */
#ifndef KB_SUGGESTED_H
#define KB_SUGGESTED_H

#include <stddef.h>

struct suggested_item {
	char *cls, *quote, *why;  /* owned; "" when the file had none (untrusted text) */
	char *status;             /* owned: "suggested", "accepted" or "rejected" (as the file says) */
	long event;               /* from 1; 0 when the model named none */
};

struct suggested {
	char *model;              /* owned, "?" when the file names none */
	struct suggested_item *it;/* owned array */
	size_t n;
};

/* suggested.json in the directory of transcript (owned). */
char *suggested_path(const char *transcript);
/* Reads path: 0 with *out filled (free it), 1 when there is no such file
 * (*out empty), -1 with *err (owned) naming the file when it is unreadable
 * or not the judge's JSON. */
int suggested_load(const char *path, struct suggested *out, char **err);
void suggested_free(struct suggested *s);
/* The index (from 0) of the suggestion at event ev (from 1) to decide: the
 * first still undecided there, else the first there; -1 when none. */
long suggested_at(const struct suggested *s, long ev);
/* Suggestion which (from 1) of path accepted (accept 1) or rejected (0),
 * with who decided (NULL or "": not said), written atomically. 0 with
 * *cls (owned: its class, untrusted) and *was (owned: its status before),
 * or -1 with *err (owned) naming the file. */
int suggested_decide(const char *path, size_t which, int accept, const char *who, char **cls, char **was,
                     char **err);

#endif
