/* artifact.c: a run's files (and its final answer) split into lines that
 * quotes can address. */
#include "config.h"
#include "artifact.h"
#include "run.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The files the pane shows, in order; the first solution found wins. */
static const char *const artifact_files[] = {"check.log", "benchmark.log", "stderr.log", "result.json", NULL};

/* Indexes the lines that start at byte i or after, the ones before kept
 * (i is 0 or a line's start; the capacity is the next power of two). */
static void artifact_index_from(struct artifact *a, size_t i)
{
	size_t cap = 64;
	while (cap < a->nlines)
		cap *= 2;
	a->line_off = xrealloc(a->line_off, cap * sizeof *a->line_off);
	while (i < a->len) {
		const char *nl = memchr(a->text + i, '\n', a->len - i);
		if (a->nlines == cap)
			a->line_off = xrealloc(a->line_off, (cap *= 2) * sizeof *a->line_off);
		a->line_off[a->nlines++] = i;
		i = nl ? (size_t)(nl - a->text) + 1 : a->len;
	}
}

static void artifact_index(struct artifact *a)
{
	a->line_off = NULL;
	a->nlines = 0;
	artifact_index_from(a, 0);
}

static void artifacts_push(struct artifacts *as, const char *name, const char *path, char *text, size_t len)
{
	struct artifact *a;
	as->v = xrealloc(as->v, (as->n + 1) * sizeof *as->v);
	a = &as->v[as->n++];
	a->name = xstrdup(name);
	a->path = xstrdup(path);
	a->text = text;
	a->len = len;
	a->refused = NULL;
	artifact_index(a);
}

/* All of fd's bytes (owned, NUL-terminated), NULL on a read error. */
static char *artifact_read_fd(int fd, size_t *len)
{
	struct sbuf b;
	char chunk[65536];
	ssize_t n;
	sbuf_init(&b);
	while ((n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sbuf_free(&b);
			return NULL;
		}
		sbuf_add(&b, chunk, (size_t)n);
	}
	*len = b.len;
	return sbuf_detach(&b);
}

static void artifacts_refuse(struct artifacts *as, const char *name, const char *path, const char *why)
{
	artifacts_push(as, name, path, xstrdup(""), 0);
	as->v[as->n - 1].refused = xstrdup(why);
}

char *artifact_root(const char *run_dir)
{
	char real[PATH_MAX];
	if (!run_dir || !realpath(run_dir, real))
		return NULL;
	/* a dataset keeps runs as <root>/runs/<R>: links between its runs are fine */
	char *slash = strrchr(real, '/');
	if (slash && slash > real) {
		*slash = '\0';
		char *up = strrchr(real, '/');
		if (up && !strcmp(up + 1, "runs")) {
			*up = '\0';
			return xstrdup(*real ? real : "/");
		}
		*slash = '/';
	}
	return xstrdup(real);
}

static int artifact_inside(const char *root, const char *real)
{
	size_t n = strlen(root);
	if (n == 1 && root[0] == '/')
		return 1;
	return strncmp(real, root, n) == 0 && (real[n] == '/' || real[n] == '\0');
}

/* path opened for reading when it resolves inside root (NULL: anywhere)
 * to a regular file: the resolved file, opened without following links,
 * so that what was checked is what is read. -1 with *why NULL when path
 * does not exist, with *why (static) saying why it is refused otherwise. */
static int artifact_open_checked(const char *root, const char *path, const char **why)
{
	char real[PATH_MAX];
	struct stat st;
	int fd;

	*why = NULL;
	if (!path || lstat(path, &st) != 0)
		return -1;  /* absent: not an artifact of this run */
	if (!realpath(path, real)) {
		*why = S_ISLNK(st.st_mode) ? "a link that leads nowhere" : strerror(errno);
		return -1;
	}
	if (root && !artifact_inside(root, real)) {
		*why = "a link that resolves outside the dataset; not read";
		return -1;
	}
	if ((fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		*why = "not a regular file (a device, FIFO or directory); not read";
		return -1;
	}
	return fd;
}

/* Adds path under name when it resolves inside root to a regular file; a
 * file that exists but does not is added as refused, with the reason. */
static int artifacts_add_file(struct artifacts *as, const char *root, const char *path, const char *name)
{
	const char *why;
	size_t len = 0;
	int fd = artifact_open_checked(root, path, &why);
	if (fd < 0) {
		if (why)
			artifacts_refuse(as, name, path, why);
		return why != NULL;
	}
	char *text = artifact_read_fd(fd, &len);
	close(fd);
	if (!text) {
		artifacts_refuse(as, name, path, "could not be read");
		return 1;
	}
	artifacts_push(as, name, path, text, len);
	return 1;
}

static int artifacts_add(struct artifacts *as, const char *root, const char *dir, const char *name)
{
	char *p = util_path_join(dir, name);
	int r = artifacts_add_file(as, root, p, name);
	free(p);
	return r;
}

/* The run's final answer: the last assistant text of the main thread. */
static const char *run_final_text(const struct run *r)
{
	for (size_t i = r->nev; i-- > 0;)
		if (r->ev[i].kind == EV_TEXT && !r->ev[i].sidechain && r->ev[i].text && *r->ev[i].text)
			return r->ev[i].text;
	return NULL;
}

struct artifacts *artifacts_load(const char *run_dir, const struct run *run, const char *transcript)
{
	struct artifacts *as = xcalloc(1, sizeof *as);
	const char *final;
	char *root = artifact_root(run_dir);

	if (run_dir && root) {
		if (!artifacts_add(as, root, run_dir, "solution.py"))
			artifacts_add(as, root, run_dir, "solution.cu");
		for (int i = 0; artifact_files[i]; i++)
			artifacts_add(as, root, run_dir, artifact_files[i]);
	}
	/* the dataset keeps the final answer as final.txt; a run without one
	 * gets it from the transcript, under the same name */
	if (!(run_dir && root && artifacts_add(as, root, run_dir, "final.txt")) && run &&
	    (final = run_final_text(run)))
		artifacts_push(as, "final.txt", NULL, xstrdup(final), strlen(final));
	if (transcript) {
		/* the transcript was opened by name (the dataset checked its own);
		 * beside a run directory it is held to the same root */
		const char *slash = strrchr(transcript, '/');
		artifacts_add_file(as, root, transcript, slash ? slash + 1 : transcript);
	}
	free(root);
	return as;
}

static void artifact_free_fields(struct artifact *a)
{
	free(a->name);
	free(a->path);
	free(a->text);
	free(a->line_off);
	free(a->refused);
}

void artifacts_free(struct artifacts *as)
{
	if (!as)
		return;
	for (size_t i = 0; i < as->n; i++)
		artifact_free_fields(&as->v[i]);
	free(as->v);
	free(as);
}

/* The bytes fd has after a's (a file that only grew, as a transcript being
 * written does) appended and their lines indexed; 0, or -1 when the file
 * is shorter or its last bytes known are not a's any more (then it is
 * read again whole). */
static int artifact_extend(struct artifact *a, int fd)
{
	struct stat st;
	char tail[4096];
	size_t k = a->len < sizeof tail ? a->len : sizeof tail;
	if (fstat(fd, &st) != 0 || (size_t)st.st_size < a->len)
		return -1;
	if (k && (pread(fd, tail, k, (off_t)(a->len - k)) != (ssize_t)k || memcmp(tail, a->text + a->len - k, k)))
		return -1;
	size_t more = (size_t)st.st_size - a->len;
	if (!more)
		return 0;
	a->text = xrealloc(a->text, a->len + more + 1);
	size_t got = 0;
	while (got < more) {
		ssize_t n = pread(fd, a->text + a->len + got, more - got, (off_t)(a->len + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;  /* (cut short: what was read is kept) */
		got += (size_t)n;
	}
	/* the last line known may have been a part line: indexed again */
	size_t from = a->nlines ? a->line_off[a->nlines - 1] : 0;
	if (a->nlines && a->len && a->text[a->len - 1] == '\n')
		from = a->len;
	else if (a->nlines)
		a->nlines--;
	a->len += got;
	a->text[a->len] = '\0';
	artifact_index_from(a, from);
	return 0;
}

int artifacts_refresh(struct artifacts *as, const char *run_dir, const struct run *run, const char *transcript)
{
	struct artifacts *fresh = artifacts_load(run_dir, run, NULL);
	char *root = artifact_root(run_dir);
	size_t t = as->n;
	for (size_t i = 0; transcript && i < as->n; i++)
		if (as->v[i].path && !strcmp(as->v[i].path, transcript) && !as->v[i].refused)
			t = i;
	const char *why;
	int fd = t < as->n ? artifact_open_checked(root, transcript, &why) : -1;
	if (fd >= 0 && artifact_extend(&as->v[t], fd) == 0) {
		fresh->v = xrealloc(fresh->v, (fresh->n + 1) * sizeof *fresh->v);
		fresh->v[fresh->n++] = as->v[t];   /* moved: its text is not copied */
		memset(&as->v[t], 0, sizeof as->v[t]);
	} else if (transcript) {
		const char *slash = strrchr(transcript, '/');
		artifacts_add_file(fresh, root, transcript, slash ? slash + 1 : transcript);
	}
	if (fd >= 0)
		close(fd);
	free(root);
	int same = fresh->n == as->n;
	for (size_t i = 0; same && i < as->n; i++)
		same = i == t || !strcmp(as->v[i].name, fresh->v[i].name);
	for (size_t i = 0; i < as->n; i++)
		artifact_free_fields(&as->v[i]);
	free(as->v);
	*as = *fresh;
	free(fresh);
	return same;
}

const char *artifact_line(const struct artifact *a, size_t i, size_t *len)
{
	size_t s, e;
	if (i >= a->nlines) {
		*len = 0;
		return "";
	}
	s = a->line_off[i];
	e = i + 1 < a->nlines ? a->line_off[i + 1] : a->len;
	if (e > s && a->text[e - 1] == '\n')
		e--;
	*len = e - s;
	return a->text + s;
}

char *artifact_quote_text(const struct artifact *a, int start, int end)
{
	size_t s, e;
	if (start < 1 || end < start || (size_t)end > a->nlines)
		return NULL;
	s = a->line_off[start - 1];
	e = (size_t)end < a->nlines ? a->line_off[end] : a->len;
	return xstrndup(a->text + s, e - s);
}

const struct artifact *artifacts_find(const struct artifacts *as, const char *name)
{
	for (size_t i = 0; i < as->n; i++)
		if (!strcmp(as->v[i].name, name) && !as->v[i].refused)
			return &as->v[i];
	return NULL;
}

const struct artifact *artifacts_final(const struct artifacts *as, const char *tracked_path)
{
	const char *base = tracked_path ? strrchr(tracked_path, '/') : NULL;
	base = base ? base + 1 : tracked_path;
	/* only the solution: the other artifacts are the harness's, not copies */
	if (!base || !util_starts_with(base, "solution."))
		return NULL;
	return artifacts_find(as, base);
}
