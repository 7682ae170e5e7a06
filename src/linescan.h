/* linescan.h: lines of a file counted and found without parsing them, at
 * the speed of memchr (the end of a big transcript shown before the rest is
 * read: ui/pager.c). */
#ifndef KB_LINESCAN_H
#define KB_LINESCAN_H

#include <stddef.h>

/* The newlines in bytes [from, to) of fd (read with pread; the offset of
 * fd is left alone) in *lines. 0, or -1 with errno on a read error or a
 * file shorter than to. */
int linescan_count(int fd, size_t from, size_t to, size_t *lines);

/* Where a line starts near pos: the first line start after pos (the byte
 * after a newline at or after pos) when one is before size, else the last
 * one before pos; never before floor (a line start the caller knows),
 * which is the answer when there is none between. 0, or -1 with errno. */
int linescan_start_near(int fd, size_t pos, size_t floor, size_t size, size_t *start);

#endif
