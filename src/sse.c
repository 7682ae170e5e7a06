/* sse.c: the Server-Sent-Events line machine (see sse.h). */
#include "sse.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct sse {
	sse_event_fn fn;
	void *ud;
	struct sbuf line;      /* the line being read */
	struct sbuf event;     /* the current event name */
	struct sbuf data;      /* the current data lines, '\n'-joined */
	int has_data;          /* a data field was seen in this event */
	int cr;                /* the last byte was CR: a following LF is not a new line */
	int bom_checked;
	const char *err;
	size_t count;
};

struct sse *sse_new(sse_event_fn fn, void *ud)
{
	struct sse *s = xcalloc(1, sizeof *s);
	s->fn = fn;
	s->ud = ud;
	sbuf_init(&s->line);
	sbuf_init(&s->event);
	sbuf_init(&s->data);
	return s;
}

void sse_free(struct sse *s)
{
	if (!s)
		return;
	sbuf_free(&s->line);
	sbuf_free(&s->event);
	sbuf_free(&s->data);
	free(s);
}

const char *sse_error(const struct sse *s)
{
	return s->err;
}

size_t sse_count(const struct sse *s)
{
	return s->count;
}

static void sse_reset_event(struct sse *s)
{
	sbuf_reset(&s->event);
	sbuf_reset(&s->data);
	s->has_data = 0;
}

/* A blank line: hand over the event when it carried data. */
static int sse_dispatch(struct sse *s)
{
	int rc = 0;
	if (s->has_data) {
		const char *name = s->event.len ? s->event.s : "message";
		s->count++;
		rc = s->fn(s->ud, name, s->data.s ? s->data.s : "", s->data.len);
	}
	sse_reset_event(s);
	return rc;
}

static int sse_field(struct sse *s, const char *name, size_t nlen, const char *val, size_t vlen)
{
	if (nlen == 5 && !memcmp(name, "event", 5)) {
		sbuf_reset(&s->event);
		sbuf_add(&s->event, val, vlen);
	} else if (nlen == 4 && !memcmp(name, "data", 4)) {
		if (s->data.len + vlen + 1 > SSE_MAX_DATA) {
			s->err = "event data too long";
			return -1;
		}
		if (s->has_data)
			sbuf_addc(&s->data, '\n');
		sbuf_add(&s->data, val, vlen);
		s->has_data = 1;
	}
	/* id, retry and unknown fields do not matter to a one-shot stream */
	return 0;
}

static int sse_line(struct sse *s)
{
	const char *l = s->line.s ? s->line.s : "";
	size_t n = s->line.len;
	const char *colon;
	int rc;

	if (n == 0)
		rc = sse_dispatch(s);
	else if (l[0] == ':')
		rc = 0;
	else if ((colon = memchr(l, ':', n)) != NULL) {
		size_t nlen = (size_t)(colon - l), vlen = n - nlen - 1;
		const char *v = colon + 1;
		if (vlen && *v == ' ')
			v++, vlen--;
		rc = sse_field(s, l, nlen, v, vlen);
	} else
		rc = sse_field(s, l, n, "", 0);
	sbuf_reset(&s->line);
	return rc;
}

int sse_feed(struct sse *s, const char *buf, size_t len)
{
	size_t i = 0;
	if (s->err)
		return -1;
	if (!s->bom_checked && len) {
		/* a UTF-8 byte order mark may open the stream; it may arrive split */
		static const char bom[] = "\xEF\xBB\xBF";
		size_t have = s->line.len;
		while (i < len && have + i < 3 && (buf[i] == bom[have + i]))
			i++;
		if (have + i < 3 && i == len) {
			sbuf_add(&s->line, buf, len);
			return 0;
		}
		s->bom_checked = 1;
		if (have + i == 3) {
			sbuf_reset(&s->line);
		} else {
			/* not a BOM after all: what was held back is line content */
			i = 0;
		}
	}
	while (i < len) {
		const char *p = buf + i;
		size_t rest = len - i, k = 0;
		int rc;
		if (s->cr && *p == '\n') {
			s->cr = 0;
			i++;
			continue;
		}
		s->cr = 0;
		while (k < rest && p[k] != '\n' && p[k] != '\r')
			k++;
		if (s->line.len + k > SSE_MAX_LINE) {
			s->err = "line too long";
			return -1;
		}
		sbuf_add(&s->line, p, k);
		i += k;
		if (k == rest)
			break;
		s->cr = p[k] == '\r';
		i++;
		rc = sse_line(s);
		if (rc)
			return rc;
	}
	return 0;
}

int sse_finish(struct sse *s)
{
	int rc = 0;
	if (s->err)
		return -1;
	s->bom_checked = 1;
	if (s->line.len)
		rc = sse_line(s);
	/* an event still open had no blank line: dropped */
	sse_reset_event(s);
	s->cr = 0;
	return rc;
}
