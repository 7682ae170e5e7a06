/* livestream.h: what a live run's agent has streamed and not recorded yet:
 * the reasoning, text and tool calls of the turn in flight. It is no event:
 * a live run's events come only from its transcript, through the same
 * follower (follow.c) as a watched file's, so an event's index never
 * changes once it is there. The screen shows this state after the events.
 * No lock of its own: the caller holds one (the agent thread writes it). */
#ifndef KB_LIVESTREAM_H
#define KB_LIVESTREAM_H

#include <stddef.h>

#include "llm.h"
#include "util.h"

struct event;

struct livestream_call {
	char *name;                 /* owned; NULL until the stream names it */
	struct sbuf args;           /* the arguments as streamed so far */
};

struct livestream {
	struct sbuf reasoning, text;
	struct livestream_call *calls; /* owned, ncalls of them, in the provider's order */
	int ncalls;
	unsigned gen;               /* bumped at every change */
};

void livestream_init(struct livestream *ls);
void livestream_free(struct livestream *ls);
/* Everything streamed dropped (a stream that starts over). */
void livestream_reset(struct livestream *ls);
/* A piece of the stream (llm.h's on_delta); call: the provider's index of a tool call. */
void livestream_delta(struct livestream *ls, enum llm_delta kind, int call, const char *s, size_t n);
/* The agent recorded an event of this kind ("reasoning", "text",
 * "tool_call", "retry", "error", "result"): the streamed copy of it goes. */
void livestream_recorded(struct livestream *ls, const char *kind);
/* The turn in flight as events to show after the run's (an array of n,
 * owned by the caller: livestream_events_free), secret scrubbed from their
 * text; timestamp ts. Returns n. */
size_t livestream_events(const struct livestream *ls, const char *secret, double ts, struct event **out);
void livestream_events_free(struct event *ev, size_t n);

#endif
