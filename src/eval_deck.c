/* eval_deck.c: which deck the native loop runs a problem as, and the
 * roofline table it is judged on. */
#include "deck.h"
#include "eval.h"
#include "eval_int.h"
#include "hardware.h"
#include "problem.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

/* The deck that holds the problem when the GPU's current deck does not
 * (04 left the current decks on 2026-06-01). */
#define EVAL_DECK_FALLBACK "kbh-2026-04"

const struct hardware_profile *eval_roof(const struct eval_ctx *x)
{
	return x->table ? x->table : x->prof;
}

static int eval_deck_missing(struct eval_ctx *x, const char *name)
{
	struct sbuf b;
	sbuf_init(&b);
	for (int i = 0; i < x->deck->np; i++)
		sbuf_addf(&b, "%s%s", i ? " " : "", x->deck->p[i].name);
	eval_fail(x, EVAL_SETUP, -1, "%s is not in deck %s (its problems: %s)", x->pb->name, name, b.s ? b.s : "");
	sbuf_free(&b);
	return -1;
}

static int eval_deck_load(struct eval_ctx *x, const char *name)
{
	char *err = NULL;
	deck_free(x->deck);
	x->dprob = NULL;
	if (!(x->deck = deck_load(x->pdir, name, &err))) {
		eval_fail(x, EVAL_SETUP, -1, "%s", err);
		free(err);
		return -1;
	}
	x->dprob = deck_problem(x->deck, x->pb->name);
	return 0;
}

/* own: the deck's definitions on the device's own table (a default deck
 * whose table is another GPU's: judged there, a faster device would read
 * as INVALID). */
static int eval_deck_table(struct eval_ctx *x, int own)
{
	if (!(x->table = own ? x->prof : hardware_find(x->hw, x->deck->table)))
		return eval_fail(x, EVAL_SETUP, -1, "deck %s scores on table %s, which hardware.json lacks", x->deck->name,
		                 x->deck->table);
	free(x->r->deck);
	free(x->r->table);
	x->r->deck = xstrdup(x->deck->name);
	x->r->table = xstrdup(x->table->table);
	x->r->own_checks = !x->o->no_own_checks;
	eval_say(x, "deck %s: scored on %s (%s, %s)", x->deck->name, x->table->key, x->table->table,
	         x->table->date ? x->table->date : "undated");
	if (own)
		eval_say(x, "note: the deck's table is %s's; %s is judged on its own", x->deck->table, x->prof->key);
	else if (x->prof && x->prof != x->table)
		eval_say(x, "note: the device is %s; the deck's peaks are %s's", x->prof->key, x->table->key);
	return 0;
}

int eval_deck_choose(struct eval_ctx *x, int final)
{
	const char *env = getenv("KBTUI_DECK");
	const char *name = x->o->deck ? x->o->deck : env && *env ? env : NULL;
	char *dflt = NULL;
	int rc, own = 0;
	if (x->deck_chosen)
		return 0;
	if (!name) {
		if (!x->prof) {
			if (final) {
				x->deck_chosen = 1;
				eval_say(x, "no deck: the GPU is unknown (see --deck and --hardware)");
			}
			return 0;
		}
		x->deck_chosen = 1;
		if (!(dflt = deck_default_for(x->pdir, x->prof->key, &own))) {
			eval_say(x, "no deck is current for %s: its own profile's peaks (see --deck)", x->prof->key);
			return 0;
		}
		name = dflt;
	}
	x->deck_chosen = 1;
	rc = eval_deck_load(x, name);
	if (rc == 0 && !x->dprob && dflt) {
		/* the GPU's current deck dropped the problem: the one that has it */
		eval_say(x, "%s is not in %s: running it as %s defines it", x->pb->name, name, EVAL_DECK_FALLBACK);
		rc = eval_deck_load(x, EVAL_DECK_FALLBACK);
		own = 1;
	}
	if (rc == 0 && !x->dprob)
		rc = eval_deck_missing(x, x->deck->name);
	if (rc == 0)
		rc = eval_deck_table(x, own);
	free(dflt);
	return rc;
}
