/* follow.c: a growing transcript file followed into a run.
 *
 * Polling, not inotify: the replay already wakes every interval to poll its
 * feed (it waits in curses' getch, which cannot also wait on another file
 * descriptor), and a poll that finds nothing new is one stat(2), so ten a
 * second cost next to nothing. stat also sees what inotify is awkward
 * about: a file renamed over (new inode), a file that is gone and comes
 * back, files on network file systems. */
#include "config.h"
#include "follow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Lines the reader sniffs before it settles on a format (SNIFF_LINES in
 * parser.c). Until a followed file has that many, the format was chosen on
 * fewer lines than a whole-file load would see, so new bytes mean reading
 * the (still short) file again rather than going on with that choice. */
#define FOLLOW_SNIFF_LINES 8
/* Bytes just before the offset kept to notice a file rewritten in place
 * that is already longer than what was read (truncate, then write). */
#define FOLLOW_TAIL 64
#define FOLLOW_CHUNK (64 * 1024)

struct follow {
	char *path;
	struct run *run;                /* borrowed */
	const struct parser_ops *forced;
	struct reader *rd;              /* owned */
	size_t pos;                     /* bytes fed to the reader */
	dev_t dev;
	ino_t ino;
	int seen;                       /* the file was there at some poll */
	int present;                    /* ... at the last poll */
	int gone;                       /* it went away after being seen */
	unsigned char tail[FOLLOW_TAIL];
	size_t ntail;                   /* the last bytes fed, up to FOLLOW_TAIL */
	int lines;                      /* non-empty lines fed, counted up to FOLLOW_SNIFF_LINES */
	int in_line;                    /* the line being fed has content */
	unsigned restarts;
	enum follow_why why;
	size_t size;                    /* the file's size at the last poll */
};

struct follow *follow_new(const char *path, struct run *run, const struct parser_ops *forced)
{
	struct follow *f = xcalloc(1, sizeof *f);
	f->path = xstrdup(path);
	f->run = run;
	f->forced = forced;
	f->rd = reader_new(run, forced);
	return f;
}

void follow_free(struct follow *f)
{
	if (!f)
		return;
	reader_free(f->rd);
	free(f->path);
	free(f);
}

int follow_present(const struct follow *f)
{
	return f->present;
}

unsigned follow_restarts(const struct follow *f)
{
	return f->restarts;
}

enum follow_why follow_last_why(const struct follow *f)
{
	return f->why;
}

size_t follow_offset(const struct follow *f)
{
	return f->pos;
}

const char *follow_why_name(enum follow_why why)
{
	switch (why) {
	case FOLLOW_TRUNCATED: return "truncated";
	case FOLLOW_REWRITTEN: return "rewritten";
	case FOLLOW_REPLACED: return "replaced";
	default: return "none";
	}
}

/* An empty run and a fresh reader, to read the file from its first byte. */
static void follow_reset(struct follow *f)
{
	run_clear(f->run);
	reader_free(f->rd);
	f->rd = reader_new(f->run, f->forced);
	f->pos = 0;
	f->ntail = 0;
	f->lines = 0;
	f->in_line = 0;
}

/* Whether the bytes before the offset are still the ones that were read. */
static int follow_tail_same(const struct follow *f, int fd)
{
	unsigned char buf[FOLLOW_TAIL];
	if (!f->ntail)
		return 1;
	ssize_t n = pread(fd, buf, f->ntail, (off_t)(f->pos - f->ntail));
	return n == (ssize_t)f->ntail && memcmp(buf, f->tail, f->ntail) == 0;
}

static void follow_note(struct follow *f, const char *buf, size_t n)
{
	if (n >= FOLLOW_TAIL) {
		memcpy(f->tail, buf + n - FOLLOW_TAIL, FOLLOW_TAIL);
		f->ntail = FOLLOW_TAIL;
	} else {
		size_t keep = f->ntail + n > FOLLOW_TAIL ? FOLLOW_TAIL - n : f->ntail;
		memmove(f->tail, f->tail + f->ntail - keep, keep);
		memcpy(f->tail + keep, buf, n);
		f->ntail = keep + n;
	}
	for (size_t i = 0; i < n && f->lines < FOLLOW_SNIFF_LINES; i++) {
		if (buf[i] == '\n') {
			f->lines += f->in_line;
			f->in_line = 0;
		} else if (buf[i] != '\r') {
			f->in_line = 1;
		}
	}
}

/* Feeds the bytes from the offset up to size; 1 when there were any. */
static int follow_read(struct follow *f, int fd, size_t size, size_t budget)
{
	char *buf;
	int any = 0;
	size_t start = f->pos;
	if (size <= f->pos)
		return 0;
	buf = xmalloc(FOLLOW_CHUNK);
	/* the rest after the budget waits for the next poll, once the lines
	 * that choose the format are in (a whole load chooses on as many) */
	while (f->pos < size && (f->pos - start < budget || f->lines < FOLLOW_SNIFF_LINES)) {
		size_t want = size - f->pos < FOLLOW_CHUNK ? size - f->pos : FOLLOW_CHUNK;
		ssize_t n = pread(fd, buf, want, (off_t)f->pos);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		reader_feed(f->rd, buf, (size_t)n);
		follow_note(f, buf, (size_t)n);
		f->pos += (size_t)n;
		any = 1;
	}
	free(buf);
	if (any) {
		reader_finish(f->rd);
		if (reader_format(f->rd) && !f->run->meta.format)
			f->run->meta.format = xstrdup(reader_format(f->rd)->name);
	}
	return any;
}

/* Why the file must be read again from the start, FOLLOW_NONE when what was
 * read still stands. */
static enum follow_why follow_check(const struct follow *f, const struct stat *st, int fd)
{
	if (!f->seen)
		return FOLLOW_NONE;
	if (f->gone || st->st_dev != f->dev || st->st_ino != f->ino)
		return FOLLOW_REPLACED;
	if ((size_t)st->st_size < f->pos)
		return FOLLOW_TRUNCATED;
	if (!follow_tail_same(f, fd))
		return FOLLOW_REWRITTEN;
	return FOLLOW_NONE;
}

int follow_poll(struct follow *f)
{
	return follow_poll_budget(f, (size_t)-1);
}

size_t follow_pending(const struct follow *f)
{
	return f->size > f->pos ? f->size - f->pos : 0;
}

int follow_poll_budget(struct follow *f, size_t budget)
{
	struct stat st;
	int fd, changed = 0;
	if (stat(f->path, &st) < 0 || !S_ISREG(st.st_mode)) {
		f->gone |= f->present;
		f->present = 0;
		return 0;
	}
	/* the common case, nothing new: one stat and back */
	if (f->seen && !f->gone && st.st_dev == f->dev && st.st_ino == f->ino && (size_t)st.st_size == f->pos)
		return f->size = (size_t)st.st_size, f->present = 1, 0;
	if ((fd = open(f->path, O_RDONLY | O_CLOEXEC)) < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		return 0;  /* there but unreadable now: try again at the next poll */
	}
	enum follow_why why = follow_check(f, &st, fd);
	f->seen = f->present = 1;
	f->gone = 0;
	f->dev = st.st_dev;
	f->ino = st.st_ino;
	if (why != FOLLOW_NONE) {
		follow_reset(f);
		f->restarts++;
		f->why = why;
		changed = 1;
	} else if (!f->forced && f->lines < FOLLOW_SNIFF_LINES && f->pos > 0 && (size_t)st.st_size > f->pos) {
		follow_reset(f);  /* the format was guessed from too few lines */
	}
	f->size = (size_t)st.st_size;
	changed |= follow_read(f, fd, (size_t)st.st_size, budget ? budget : 1);
	close(fd);
	return changed;
}
