/* linescan.c: newlines counted and found in a file, nothing parsed. A
 * pread into one buffer rather than a mapping: no page tables to make and
 * tear down for a gigabyte read once, and a file of any kind. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "linescan.h"
#include "util.h"

#define LINESCAN_BUF (1 << 20)

/* Newlines in p[0..n): memchr jumps from one to the next (a transcript's
 * lines are hundreds of bytes, so the calls are few and each runs at the
 * vector width). */
static size_t linescan_newlines(const char *p, size_t n)
{
	size_t c = 0;
	const char *end = p + n;
	while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
		c++;
		p++;
	}
	return c;
}

int linescan_count(int fd, size_t from, size_t to, size_t *lines)
{
	*lines = 0;
	if (to <= from)
		return 0;
	char *buf = xmalloc(LINESCAN_BUF);
	int rc = 0;
	for (size_t off = from; off < to && rc == 0;) {
		size_t n = to - off < LINESCAN_BUF ? to - off : LINESCAN_BUF;
		rc = util_pread_all(fd, buf, n, off);
		if (rc == 0)
			*lines += linescan_newlines(buf, n);
		off += n;
	}
	free(buf);
	return rc;
}

/* The first newline at or after pos and before size: its offset in *nl,
 * 1; 0 when there is none; -1 a read error. */
static int linescan_next_nl(int fd, char *buf, size_t pos, size_t size, size_t *nl)
{
	for (size_t off = pos; off < size;) {
		size_t n = size - off < LINESCAN_BUF ? size - off : LINESCAN_BUF;
		if (util_pread_all(fd, buf, n, off) < 0)
			return -1;
		const char *hit = memchr(buf, '\n', n);
		if (hit) {
			*nl = off + (size_t)(hit - buf);
			return 1;
		}
		off += n;
	}
	return 0;
}

/* The last newline before pos and at or after floor, as linescan_next_nl
 * says. */
static int linescan_prev_nl(int fd, char *buf, size_t pos, size_t floor, size_t *nl)
{
	for (size_t end = pos; end > floor;) {
		size_t n = end - floor < LINESCAN_BUF ? end - floor : LINESCAN_BUF;
		if (util_pread_all(fd, buf, n, end - n) < 0)
			return -1;
		const char *hit = memrchr(buf, '\n', n);
		if (hit) {
			*nl = end - n + (size_t)(hit - buf);
			return 1;
		}
		end -= n;
	}
	return 0;
}

int linescan_start_near(int fd, size_t pos, size_t floor, size_t size, size_t *start)
{
	if (pos < floor)
		pos = floor;
	*start = floor;
	if (pos >= size)
		return 0;
	char *buf = xmalloc(LINESCAN_BUF);
	size_t nl;
	int rc = linescan_next_nl(fd, buf, pos, size, &nl);
	if (rc > 0 && nl + 1 < size) {
		*start = nl + 1;
	} else if (rc >= 0) {  /* the last line holds pos: where it begins */
		rc = linescan_prev_nl(fd, buf, pos, floor, &nl);
		if (rc > 0)
			*start = nl + 1;
	}
	free(buf);
	return rc < 0 ? -1 : 0;
}
