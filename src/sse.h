/* sse.h: an incremental Server-Sent-Events reader. Bytes arrive in pieces
 * of any size; complete events (the "event:" name and the "data:" lines
 * joined by '\n') go to a callback. LF, CR and CRLF end lines, ':' starts a
 * comment, unknown fields are ignored, as the WHATWG spec says. Lines and
 * event data are capped so hostile input cannot grow memory without bound. */
#ifndef KB_SSE_H
#define KB_SSE_H

#include <stddef.h>

#define SSE_MAX_LINE (8u << 20)   /* one line, bytes */
#define SSE_MAX_DATA (32u << 20)  /* one event's data, bytes */

/* event is "message" when the stream named none; data is NUL-terminated
 * (len excludes the NUL) and may hold NUL bytes. Return nonzero to stop:
 * sse_feed then returns that value. */
typedef int (*sse_event_fn)(void *ud, const char *event, const char *data, size_t len);

struct sse;

struct sse *sse_new(sse_event_fn fn, void *ud);
void sse_free(struct sse *s);
/* 0; the callback's nonzero value; or -1 when a line or event went past
 * its cap (sse_error says which); after -1 the reader stays failed. */
int sse_feed(struct sse *s, const char *buf, size_t len);
/* End of stream: an unterminated last line is taken as complete, but an
 * event without its blank line is discarded (the spec). Returns as sse_feed. */
int sse_finish(struct sse *s);
const char *sse_error(const struct sse *s);   /* NULL when none */
/* Events dispatched so far. */
size_t sse_count(const struct sse *s);

#endif
