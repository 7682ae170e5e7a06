/* agree.c: Cohen's kappa over two annotators' verdicts. */
#include "agree.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

void agree_init(struct agree *g)
{
	memset(g, 0, sizeof *g);
}

void agree_free(struct agree *g)
{
	for (int i = 0; i < g->nlabels; i++)
		free(g->labels[i]);
	agree_init(g);
}

static int agree_label(struct agree *g, const char *s)
{
	for (int i = 0; i < g->nlabels; i++)
		if (!strcmp(g->labels[i], s))
			return i;
	if (g->nlabels == AGREE_MAX_LABELS)
		return -1;
	g->labels[g->nlabels] = xstrdup(s);
	return g->nlabels++;
}

int agree_add(struct agree *g, const char *a, const char *b)
{
	int i = agree_label(g, a ? a : "(none)");
	int j = agree_label(g, b ? b : "(none)");
	if (i < 0 || j < 0)
		return -1;
	g->table[i][j]++;
	g->n++;
	return 0;
}

double agree_observed(const struct agree *g)
{
	int same = 0;
	for (int i = 0; i < g->nlabels; i++)
		same += g->table[i][i];
	return g->n ? (double)same / g->n : 0;
}

double agree_kappa(const struct agree *g)
{
	double po = agree_observed(g), pe = 0;
	if (!g->n)
		return 0;
	for (int i = 0; i < g->nlabels; i++) {
		double ra = 0, cb = 0;
		for (int j = 0; j < g->nlabels; j++) {
			ra += g->table[i][j];
			cb += g->table[j][i];
		}
		pe += (ra / g->n) * (cb / g->n);
	}
	if (pe >= 1.0)
		return po >= 1.0 ? 1.0 : 0.0;
	return (po - pe) / (1.0 - pe);
}
