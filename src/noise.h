/* noise.h: the events a reader of a run can do without: token usage
 * records, system events, and tool calls that change nothing (reads,
 * greps, listings: a read-only tool, or a shell command made only of
 * read-only programs (git only with status, log, diff, show ...), with no output redirection and no file diff), with
 * their results. The replay's s hides them, so the rules lean to showing:
 * a hack must not hide behind s (LD_PRELOAD=, sed -i or its w command,
 * sort -o, nvidia-smi -lgc, env prog ... are shown). */
#ifndef KB_NOISE_H
#define KB_NOISE_H

#include <stddef.h>

struct run;

/* Whether a shell command only reads: every command of its pipelines and
 * lists (|, &&, ||, ;) is a read-only program (cat, ls, grep, sed -n ...),
 * and it writes no file (no > but to /dev/null or 2>&1, no tee, no here
 * document, no command substitution). NULL: no. */
int noise_command_reads(const char *cmd);
/* Whether event i of r is noise. */
int noise_event(struct run *r, size_t i);
/* hide[i] set to noise_event for i in [from, r->nev) (hide holds r->nev);
 * returns how many of them are noise. */
size_t noise_mark(struct run *r, size_t from, unsigned char *hide);

/* The events of r that are not noise, in order: a new array (free it) of
 * *nshown indexes; *nhidden gets the noise count. */
size_t *noise_shown(struct run *r, size_t *nshown, size_t *nhidden);

#endif
