/* evstyle.h: how each kind of event looks: its short label in the list and
 * its role (colour). */
#ifndef KB_EVSTYLE_H
#define KB_EVSTYLE_H

#include <stddef.h>

#include "run.h"

const char *evstyle_label(enum ev_kind k);
int evstyle_role(enum ev_kind k);
/* A failed tool result or an error event. */
int evstyle_is_error(const struct event *e);

/* What a tool call is about, in one line: its path (relative to the run's
 * working directory), else its first string argument (a command, a
 * pattern), else its arguments. Safe, at most about cap bytes; owned. */
char *evstyle_call_summary(const struct run *run, const struct event *e, size_t cap);

#endif
