/* agree.h: inter-annotator agreement: confusion table over verdicts and
 * Cohen's kappa, for `kbtui annotations agree`. */
#ifndef KB_AGREE_H
#define KB_AGREE_H

#include <stddef.h>

#define AGREE_MAX_LABELS 32

struct agree {
	char *labels[AGREE_MAX_LABELS];   /* owned; order of first appearance */
	int nlabels;
	int table[AGREE_MAX_LABELS][AGREE_MAX_LABELS]; /* [label A][label B] */
	int n;                            /* pairs counted */
};

void agree_init(struct agree *g);
void agree_free(struct agree *g);
/* Counts one run's pair of verdicts. Returns -1 past AGREE_MAX_LABELS. */
int agree_add(struct agree *g, const char *a, const char *b);
/* Observed agreement and Cohen's kappa; kappa is 1 when chance agreement
 * is already 1 and they agree (one label only). */
double agree_observed(const struct agree *g);
double agree_kappa(const struct agree *g);

#endif
