/* keys.c: the action table, key lookup, and its help and man page forms. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "keys.h"
#include "theme.h"
#include "tlines.h"
#include "util.h"

static const struct keys_def {
	int key, key2;
	const char *label;
	unsigned views;
	const char *help;
} keys_defs[ACT__COUNT] = {
#define KEYS_DEF(name, k, k2, lab, v, h) [ACT_##name] = { .key = k, .key2 = k2, .label = lab, .views = v, .help = h },
	TUI_ACTIONS(KEYS_DEF)
#undef KEYS_DEF
};

int keys_read(struct key *k)
{
	wint_t ch = 0;
	int rc = get_wch(&ch);
	k->ch = ch;
	k->fn = rc == KEY_CODE_YES;
	if (rc == ERR) {
		k->code = -1;
		return ERR;
	}
	if (k->fn)
		k->code = (int)ch;
	else if (ch == '\r')
		k->code = '\n';
	else
		k->code = ch < 0x80 ? (int)ch : -1;
	return OK;
}

enum action keys_action(int code, unsigned view)
{
	if (code <= 0)
		return ACT_NONE;
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++) {
		const struct keys_def *d = &keys_defs[a];
		if (!(d->views & view))
			continue;
		if (d->key == code || d->key2 == code || (d->key == KEYS_DIGIT && code >= '0' && code <= '9'))
			return (enum action)a;
	}
	return ACT_NONE;
}

/* roff escapes for a key label: '-' and '\' are special to troff */
static void keys_roff(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void keys_print(FILE *out, int roff)
{
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++) {
		const struct keys_def *d = &keys_defs[a];
		if (!roff) {
			fprintf(out, "%-14s %s\n", d->label, d->help);
			continue;
		}
		fputs(".TP\n.B ", out);
		keys_roff(out, d->label);
		fprintf(out, "\n%s.\n", d->help);
	}
}

void keys_help(struct tlines *L, unsigned view, int width)
{
	tlines_clear(L);
	tlines_head(L, RL_PANE, width, " Keys (j, k, PgDn, PgUp scroll; any other key closes this screen)");
	tlines_push(L, "", 0, RL_NORMAL);
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++) {
		const struct keys_def *d = &keys_defs[a];
		if (!(d->views & view))
			continue;
		/* continuation lines hang under the help text, past the keys */
		char *line = xasprintf("  %-13s %s", d->label, d->help);
		tlines_wrap_hang(L, line, strlen(line), RL_NORMAL, width, 16);
		free(line);
	}
}
