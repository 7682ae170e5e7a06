/* parser.c: the format registry, the content sniffer, the incremental line
 * reader, and helpers shared by every format's parser. */
#include "parser.h"
#include "diff.h"
#include "jsonx.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define FORMAT(name) extern const struct parser_ops parse_##name##_ops;
#include "formats.def"
#undef FORMAT

const struct parser_ops *const parser_all[] = {
#define FORMAT(name) &parse_##name##_ops,
#include "formats.def"
#undef FORMAT
	NULL,
};

const struct parser_ops *parser_find(const char *name)
{
	for (size_t i = 0; parser_all[i]; i++)
		if (name && strcmp(parser_all[i]->name, name) == 0)
			return parser_all[i];
	return NULL;
}

/* ---- sniffing ---------------------------------------------------------- */

/* Lines looked at before the format is chosen: enough to tell formats that
 * share an init line (Claude Code, Cursor and Droid all start with
 * system/init) apart by what follows. */
#define SNIFF_LINES 8

struct sniff {
	int score[32];
	int nlines;
};

/* Scores line for each format; whether it is JSON. */
static int sniff_line(struct sniff *sn, const char *line, size_t len)
{
	jx_arena_begin();
	cJSON *obj = jx_parse(line, len);
	int json = obj != NULL;
	for (size_t i = 0; parser_all[i]; i++) {
		const struct parser_ops *ops = parser_all[i];
		if (!obj && !ops->plain_text)
			continue;
		sn->score[i] += ops->sniff(line, len, obj);
	}
	jx_arena_end();
	sn->nlines++;
	return json;
}

static const struct parser_ops *sniff_best(const struct sniff *sn)
{
	int best = -1, bscore = 0;
	for (int i = 0; parser_all[i]; i++)
		if (sn->score[i] > bscore) {
			bscore = sn->score[i];
			best = i;
		}
	return best >= 0 ? parser_all[best] : NULL;
}

const struct parser_ops *parser_sniff(const char *buf, size_t len)
{
	struct sniff sn = {0};
	const char *p = buf, *end = buf + len;
	while (p < end && sn.nlines < SNIFF_LINES) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (n && p[n - 1] == '\r')
			n--;
		if (n)
			sniff_line(&sn, p, n);
		p = nl ? nl + 1 : end;
	}
	return sniff_best(&sn);
}

/* ---- reader ------------------------------------------------------------ */

struct held_line {
	char *s;
	size_t n;
	int lineno;
	int json;      /* it parsed (sniff_line said): a line of no format, not a malformed one */
};

struct reader {
	struct parse_ctx ctx;
	const struct parser_ops *ops;  /* NULL until sniffed */
	struct sbuf pending;           /* bytes of an unfinished line */
	size_t offset;                 /* bytes consumed as whole lines */
	struct sniff sn;
	struct held_line held[SNIFF_LINES];
	int nheld;
	int unknown_reported;
	int tail_taken;                /* finish parsed a line that had no newline yet */
	struct parser_tally *tally;    /* borrowed, may be NULL */
};

struct reader *reader_new(struct run *run, const struct parser_ops *forced)
{
	struct reader *rd = xcalloc(1, sizeof *rd);
	rd->ctx.run = run;
	rd->ctx.files = run_files(run);
	sbuf_init(&rd->pending);
	if (forced) {
		rd->ops = forced;
		rd->ctx.state = forced->state_new ? forced->state_new() : NULL;
	}
	return rd;
}

void reader_free(struct reader *rd)
{
	if (!rd)
		return;
	if (rd->ops && rd->ops->state_free)
		rd->ops->state_free(rd->ctx.state);
	for (int i = 0; i < rd->nheld; i++)
		free(rd->held[i].s);
	sbuf_free(&rd->pending);
	free(rd);
}

const struct parser_ops *reader_format(const struct reader *rd)
{
	return rd->ops;
}

size_t reader_offset(const struct reader *rd)
{
	return rd->offset;
}

void reader_tally(struct reader *rd, struct parser_tally *t)
{
	rd->tally = t;
}

/* ---- record keys ------------------------------------------------------- */

const char *parser_record_key(const struct parser_ops *ops, const cJSON *obj, char *buf, size_t n)
{
	const char *t, *sub;
	if (!obj)
		return NULL;
	if (ops && ops->record_key)
		return ops->record_key(obj, buf, n);
	t = jx_str(obj, "type");
	if (!t)
		t = jx_str(obj, "role");
	if (!t)
		return NULL;
	sub = jx_str(obj, "subtype");
	snprintf(buf, n, "%s%s%s", t, sub ? "/" : "", sub ? sub : "");
	return buf;
}

const char *parser_ignored_why(const struct parser_ops *ops, const char *key)
{
	for (const struct parser_ignored *g = ops ? ops->ignored : NULL; g && g->type; g++) {
		size_t n = strlen(g->type);
		/* a trailing star: every key under that prefix */
		if (!strcmp(g->type, key) || (n && g->type[n - 1] == '*' && !strncmp(g->type, key, n - 1)))
			return g->why;
	}
	return NULL;
}

static void tally_count(struct parser_tally *t, const char *key, int used)
{
	int i;
	for (i = 0; i < t->n; i++)
		if (!strcmp(t->k[i].key, key))
			break;
	if (i == t->n) {
		if (t->n == PARSER_MAX_KEYS) {
			t->overflow++;
			return;
		}
		snprintf(t->k[t->n++].key, sizeof t->k[0].key, "%s", key);
	}
	t->k[i].lines++;
	t->k[i].used += used ? 1 : 0;
}

static void reader_dispatch(struct reader *rd, const char *line, size_t len, int lineno)
{
	jx_arena_begin(); /* the line's cJSON tree goes when the line is done */
	cJSON *obj = jx_parse(line, len);
	rd->ctx.lineno = lineno;
	rd->ctx.files = run_files(rd->ctx.run); /* the run owns it; run_clear drops it */
	size_t before = rd->ctx.run->nev;
	rd->ctx.folded = 0;
	if (!obj && !rd->ops->plain_text)
		run_error(rd->ctx.run, lineno, "not valid JSON");
	else
		rd->ops->line(&rd->ctx, line, len, obj);
	if (rd->tally) {
		char kb[48];
		const char *key = parser_record_key(rd->ops, obj, kb, sizeof kb);
		tally_count(rd->tally, key ? key : obj ? "(no type)" : "(text)",
		            rd->ctx.run->nev > before || rd->ctx.folded);
	}
	jx_arena_end();
}

static void reader_choose(struct reader *rd, const struct parser_ops *ops)
{
	rd->ops = ops;
	rd->ctx.state = ops->state_new ? ops->state_new() : NULL;
	free(rd->ctx.run->meta.format);
	rd->ctx.run->meta.format = xstrdup(ops->name);
	for (int i = 0; i < rd->nheld; i++) {
		reader_dispatch(rd, rd->held[i].s, rd->held[i].n, rd->held[i].lineno);
		free(rd->held[i].s);
	}
	rd->nheld = 0;
}

static int parser_whole_json(const char *s, size_t n);

/* Transcripts of tools kbtui does not read, recognised by their first
 * line so that the message says so plainly. */
static const char *parser_unsupported(const cJSON *obj)
{
	if (jx_str(obj, "protocol_version") && !strcmp(jx_str(obj, "type") ? jx_str(obj, "type") : "", "metadata"))
		return "a Kimi Code CLI wire log (\"metadata\" with protocol_version): not supported; "
		       "kbtui reads Kimi CLI --print stream-json and its context files";
	if (jx_get(obj, "role") && cJSON_IsObject(jx_get(obj, "message")) && !jx_get(obj, "type"))
		return "a Cursor chat store export ({role, message} lines): not supported; "
		       "kbtui reads cursor-agent --print --output-format stream-json";
	return NULL;
}

/* Names the format whose record types the held lines share most, and the
 * types that fit none, for a file no sniffer took. */
static char *parser_unknown_why(struct reader *rd)
{
	int hits[32] = {0}, best = -1, json = 0;
	struct sbuf miss;
	const char *unsup = NULL;

	sbuf_init(&miss);
	for (int i = 0; i < rd->nheld; i++) {
		jx_arena_begin();
		cJSON *obj = jx_parse(rd->held[i].s, rd->held[i].n);
		const char *t = obj ? jx_str(obj, "type") : NULL;
		int known = 0;
		if (!t && obj)
			t = jx_str(obj, "role");
		json += obj != NULL;
		if (i == 0 && obj)
			unsup = parser_unsupported(obj);
		for (int j = 0; t && parser_all[j]; j++)
			for (const char *const *k = parser_all[j]->types; k && *k; k++)
				if (!strcmp(*k, t)) {
					hits[j]++;
					known = 1;
					break;
				}
		if (t && !known && !strstr(miss.s ? miss.s : "", t) && miss.len < 120)
			sbuf_addf(&miss, "%s%s", miss.len ? ", " : "", t);
		jx_arena_end();
	}
	if (unsup) {
		sbuf_free(&miss);
		return xasprintf("unrecognised transcript format: %s", unsup);
	}
	for (int j = 0; parser_all[j]; j++)
		if (hits[j] && (best < 0 || hits[j] > hits[best]))
			best = j;
	char *s;
	if (!json)
		s = xstrdup("unrecognised transcript format: no line is JSON and no plain-text format fits (try --format)");
	else if (best < 0)
		s = xasprintf("unrecognised transcript format: no format knows these record types (%s)",
		              miss.len ? miss.s : "no \"type\" field");
	else
		s = xasprintf("unrecognised transcript format: closest is %s (%d of %d lines), but %s did not fit",
		              parser_all[best]->name, hits[best], rd->nheld, miss.len ? miss.s : "the records' fields");
	sbuf_free(&miss);
	return s;
}

/* One whole line. own, when not NULL, is the buffer that holds it: a line
 * held for sniffing takes that buffer rather than a copy (a huge first
 * line then exists once). */
static void reader_line(struct reader *rd, const char *line, size_t len, int lineno, struct sbuf *own)
{
	if (len && line[len - 1] == '\r')
		len--;
	if (!len)
		return;
	if (rd->ops) {
		reader_dispatch(rd, line, len, lineno);
		return;
	}
	rd->held[rd->nheld].json = sniff_line(&rd->sn, line, len);
	if (own && own->s == line) {
		own->s[len] = '\0';
		rd->held[rd->nheld].s = sbuf_detach(own);
	} else {
		rd->held[rd->nheld].s = xstrndup(line, len);
	}
	rd->held[rd->nheld].n = len;
	rd->held[rd->nheld].lineno = lineno;
	rd->nheld++;
	if (rd->nheld == SNIFF_LINES) {
		const struct parser_ops *best = sniff_best(&rd->sn);
		if (best)
			reader_choose(rd, best);
		else {
			/* nothing recognises these lines: say once what they are
			 * closest to, and keep looking (a format may start later) */
			if (!rd->unknown_reported++) {
				char *why = parser_unknown_why(rd);
				run_error(rd->ctx.run, rd->held[0].lineno, "%s", why);
				free(why);
			}
			for (int i = 0; i < rd->nheld; i++) {
				if (!rd->held[i].json && i)
					rd->ctx.run->malformed++; /* only lines that are not JSON are malformed */
				free(rd->held[i].s);
			}
			rd->nheld = 0;
			memset(&rd->sn, 0, sizeof rd->sn);
		}
	}
}

/* The pending line was used: empty it, and give back the memory of a huge
 * one (a reader following a file lives long). */
static void reader_pending_done(struct reader *rd)
{
	if (rd->pending.cap > (1u << 20)) {
		sbuf_free(&rd->pending);
		sbuf_init(&rd->pending);
	} else {
		sbuf_reset(&rd->pending);
	}
}

void reader_feed(struct reader *rd, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;
	if (len && rd->tail_taken) {
		/* the newline of a line that finish already took: not a new line */
		if (*p == '\n') {
			p++;
			rd->offset++;
		}
		rd->tail_taken = 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl) {
			sbuf_add(&rd->pending, p, (size_t)(end - p));
			return;
		}
		rd->ctx.lineno++;
		if (rd->pending.len) {
			sbuf_add(&rd->pending, p, (size_t)(nl - p));
			rd->offset += rd->pending.len + 1;
			reader_line(rd, rd->pending.s, rd->pending.len, rd->ctx.lineno, &rd->pending);
			reader_pending_done(rd);
		} else {
			reader_line(rd, p, (size_t)(nl - p), rd->ctx.lineno, NULL);
			rd->offset += (size_t)(nl - p) + 1;
		}
		p = nl + 1;
	}
}

void reader_finish(struct reader *rd)
{
	struct run *run = rd->ctx.run;
	int tail_waits = 0;

	if (rd->pending.len) {
		/* an unterminated last line counts if it is already whole JSON */
		cJSON *obj = jx_parse(rd->pending.s, rd->pending.len);
		int whole = obj != NULL && !(rd->ops && rd->ops->plain_text);
		cJSON_Delete(obj);
		if (whole) {
			int lineno = ++rd->ctx.lineno;
			rd->offset += rd->pending.len;
			reader_line(rd, rd->pending.s, rd->pending.len, lineno, &rd->pending);
			reader_pending_done(rd);
			rd->tail_taken = 1;
		} else {
			tail_waits = 1;
		}
	}
	if (!rd->ops && rd->nheld) {
		const struct parser_ops *best = sniff_best(&rd->sn);
		if (best)
			reader_choose(rd, best);
	}
	/* decided afresh by the parser on every finish; a transcript no parser
	 * recognised (an empty file: the agent exited at once) is incomplete */
	run->incomplete = rd->ops == NULL;
	if (rd->ops) {
		int lineno = rd->ctx.lineno;
		rd->ctx.lineno = lineno + 1;
		rd->ops->finish(&rd->ctx);
		rd->ctx.lineno = lineno;
	}
	if (tail_waits)
		run->incomplete = 1;
	run_link(run);
}

static int parser_whole_json(const char *s, size_t n)
{
	cJSON *o = jx_parse(s, n);
	cJSON_Delete(o);
	return o != NULL;
}

static struct run *parser_load(const char *path, const struct parser_ops *forced, char **err, int final,
                               struct parser_tally *t);

struct run *parser_load_file(const char *path, const struct parser_ops *forced, char **err)
{
	return parser_load(path, forced, err, 0, NULL);
}

struct run *parser_load_final(const char *path, const struct parser_ops *forced, char **err)
{
	return parser_load(path, forced, err, 1, NULL);
}

struct run *parser_load_tally(const char *path, const struct parser_ops *forced, char **err,
                              struct parser_tally *t)
{
	return parser_load(path, forced, err, 1, t);
}

/* ---- a transcript read a slice at a time ---------------------------------------- */

struct parser_loader {
	int fd;
	char *path;
	struct run *run;             /* owned until taken */
	struct reader *rd;           /* owned */
	int final;                   /* a finished file: its last line ends at EOF */
	char last;                   /* the last byte read */
	size_t done, total;          /* bytes read, the size at open */
	size_t limit;                /* the most bytes to read (SIZE_MAX: all) */
	int over;                    /* EOF seen and the run made final */
	char *buf;                   /* PARSER_SLICE bytes */
};

#define PARSER_SLICE (1 << 20)

static struct parser_loader *parser_loader_make(const char *path, const struct parser_ops *forced, char **err,
                                                int final, struct parser_tally *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (err)
			*err = xasprintf("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	struct parser_loader *l = xcalloc(1, sizeof *l);
	l->fd = fd;
	l->path = xstrdup(path);
	l->run = run_new();
	l->run->source = xstrdup(path);
	l->rd = reader_new(l->run, forced);
	reader_tally(l->rd, t);
	l->final = final;
	l->last = '\n';
	l->total = S_ISREG(st.st_mode) ? (size_t)st.st_size : 0;
	l->buf = xmalloc(PARSER_SLICE);
	l->limit = SIZE_MAX;
	return l;
}

struct parser_loader *parser_loader_open(const char *path, const struct parser_ops *forced, char **err)
{
	return parser_loader_make(path, forced, err, 1, NULL);
}

struct parser_loader *parser_loader_open_at(const char *path, const struct parser_ops *ops, size_t offset,
                                            int lines, char **err)
{
	struct parser_loader *l = parser_loader_make(path, ops, err, 1, NULL);
	if (!l)
		return NULL;
	if (lseek(l->fd, (off_t)offset, SEEK_SET) < 0) {
		if (err)
			*err = xasprintf("%s: %s", path, strerror(errno));
		parser_loader_free(l);
		return NULL;
	}
	l->done = offset;
	l->rd->offset = offset;
	l->rd->ctx.lineno = lines;
	return l;
}

const struct parser_ops *parser_loader_format(const struct parser_loader *l)
{
	return reader_format(l->rd);
}

void parser_loader_where(const struct parser_loader *l, size_t *offset, int *lines)
{
	/* a last line taken without its newline (reader_finish): the newline
	 * that follows is that line's */
	*offset = l->rd->offset + (size_t)l->rd->tail_taken;
	*lines = l->rd->ctx.lineno;
}

int parser_loader_fd(const struct parser_loader *l)
{
	return l->fd;
}

/* EOF: the last line and the format settled as a whole load settles them. */
static void parser_loader_end(struct parser_loader *l)
{
	struct reader *rd = l->rd;
	struct run *run = l->run;
	/* a finished file: its last line ends here even without a newline
	 * (a plain-text tail would otherwise wait for more, and a line cut off
	 * mid-JSON would vanish instead of being reported with its number) */
	if (!l->final)
		;
	else if (l->last != '\n' && rd->pending.len && rd->pending.s[0] == '{' && !(rd->ops && rd->ops->plain_text) &&
	    !parser_whole_json(rd->pending.s, rd->pending.len)) {
		run_error(run, ++rd->ctx.lineno, "cut off: the last line ends without a newline, its JSON unfinished");
		reader_pending_done(rd);
	} else if (l->last != '\n' && rd->pending.len) {
		reader_feed(rd, "\n", 1);
	}
	reader_finish(rd);
	if (l->final && !rd->ops && rd->nheld && !rd->unknown_reported++) {
		/* a short file no format took: say what it is closest to */
		char *why = parser_unknown_why(rd);
		run_error(run, rd->held[0].lineno, "%s", why);
		free(why);
	}
	if (rd->ops && !run->meta.format)
		run->meta.format = xstrdup(rd->ops->name);
	l->over = 1;
}

/* Feeds about budget bytes more to the reader (settled: told after each
 * read, may be NULL) without finishing: 1 more to read, 0 the end
 * reached (the run made final), -1 a read error. */
static int parser_loader_read(struct parser_loader *l, size_t budget, char **err, parser_settled_fn settled,
                              void *arg)
{
	if (l->over)
		return 0;
	size_t start = l->done;
	for (;;) {
		size_t want = budget < PARSER_SLICE ? (budget > 4096 ? budget : 4096) : PARSER_SLICE;
		if (l->limit - l->done < want)
			want = l->limit - l->done;
		ssize_t n = want ? read(l->fd, l->buf, want) : 0;
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;  /* a pipe with nothing more for now (parser_loader_nonblock) */
		if (n < 0) {
			if (err)
				*err = xasprintf("%s: read error: %s", l->path, strerror(errno));
			return -1;
		}
		if (n == 0) {
			parser_loader_end(l);
			return 0;
		}
		reader_feed(l->rd, l->buf, (size_t)n);
		l->last = l->buf[n - 1];
		l->done += (size_t)n;
		if (settled)
			settled(arg, l->run, reader_settled(l->rd));
		if (l->done - start >= budget)
			return 1;
	}
}

int parser_loader_step(struct parser_loader *l, size_t budget, char **err)
{
	int rc = parser_loader_read(l, budget, err, NULL, NULL);
	/* what is read so far, linked and shown: the rest on the next step;
	 * before the first lines chose a format there is nothing to show, and
	 * a finish then would choose one from fewer lines than a whole load
	 * sees (a big file that is no transcript is read in steps too) */
	if (rc > 0 && reader_format(l->rd)) {
		reader_finish(l->rd);
		if (!l->run->meta.format)
			l->run->meta.format = xstrdup(reader_format(l->rd)->name);
	}
	return rc;
}

struct run *parser_load_stream(const char *path, const struct parser_ops *forced, char **err, size_t slice,
                               size_t *bytes, parser_settled_fn settled, void *arg)
{
	struct parser_loader *l = parser_loader_make(path, forced, err, 1, NULL);
	if (!l)
		return NULL;
	l->limit = bytes ? *bytes : SIZE_MAX;
	int rc;
	while ((rc = parser_loader_read(l, slice ? slice : PARSER_SLICE, err, settled, arg)) > 0)
		;
	struct run *run = rc == 0 ? parser_loader_take(l) : NULL;
	if (bytes)
		*bytes = l->done;
	parser_loader_free(l);
	if (run && settled)
		settled(arg, run, run->nev);
	return run;
}

size_t reader_settled(const struct reader *rd)
{
	size_t n = rd->ctx.run->nev, open;
	if (!n)
		return 0;
	open = n - 1; /* a merged stream may still append to the last event */
	if (rd->ops && rd->ops->open_from) {
		size_t from = rd->ops->open_from(&rd->ctx);
		if (from < open)
			open = from;
	}
	return open;
}

void parser_loader_nonblock(struct parser_loader *l)
{
	struct stat st;
	if (fstat(l->fd, &st) == 0 && !S_ISREG(st.st_mode))
		fcntl(l->fd, F_SETFL, fcntl(l->fd, F_GETFL) | O_NONBLOCK);
}

struct run *parser_loader_run(const struct parser_loader *l)
{
	return l->run;
}

struct run *parser_loader_take(struct parser_loader *l)
{
	struct run *r = l->run;
	l->run = NULL;
	return r;
}

void parser_loader_progress(const struct parser_loader *l, size_t *done, size_t *total)
{
	*done = l->done;
	*total = l->total == 0 ? 0 : l->total > l->done ? l->total : l->done;
}

int parser_loader_over(const struct parser_loader *l)
{
	return l->over;
}

void parser_loader_free(struct parser_loader *l)
{
	if (!l)
		return;
	close(l->fd);
	reader_free(l->rd);
	run_free(l->run);
	free(l->buf);
	free(l->path);
	free(l);
}

static struct run *parser_load(const char *path, const struct parser_ops *forced, char **err, int final,
                               struct parser_tally *t)
{
	struct parser_loader *l = parser_loader_make(path, forced, err, final, t);
	if (!l)
		return NULL;
	int rc;
	while ((rc = parser_loader_step(l, (size_t)-1, err)) > 0)
		;
	struct run *run = rc < 0 ? NULL : parser_loader_take(l);
	parser_loader_free(l);
	return run;
}

/* ---- helpers for parsers ----------------------------------------------- */

static const char *arg_str(const cJSON *args, const char *const *keys)
{
	for (size_t i = 0; keys[i]; i++) {
		const char *s = jx_str(args, keys[i]);
		if (s)
			return s;
	}
	return NULL;
}

static const char *const path_keys[] = {"file_path", "filePath", "path", "notebook_path", "file", NULL};
static const char *const content_keys[] = {"content", "contents", "file_text", "text", "fileText",
                                           "streamContent", NULL};
static const char *const old_keys[] = {"old_string", "oldString", "old_str", "old", NULL};
static const char *const new_keys[] = {"new_string", "newString", "new_str", "new", NULL};

static int name_is(const char *name, const char *const *names)
{
	for (size_t i = 0; names[i]; i++)
		if (strcasecmp(name, names[i]) == 0)
			return 1;
	return 0;
}

static const char *const write_tools[] = {"Write", "write_file", "WriteFile", "create_file", "Create", NULL};
static const char *const edit_tools[] = {"Edit", "edit_file", "StrReplaceFile", "str_replace", "replace", NULL};
static const char *const multiedit_tools[] = {"MultiEdit", "multi_edit", NULL};

/* Paths relative to the session's working directory are keyed absolute, so
 * that "solution.py" and "/cwd/solution.py" are one file. */
static char *parser_norm_path(struct parse_ctx *ctx, const char *path)
{
	const char *cwd = ctx->run->meta.cwd;
	if (path[0] != '/' && cwd && *cwd)
		return util_path_join(cwd, path);
	return xstrdup(path);
}

static int json_bool_any(const cJSON *o, const char *a, const char *b)
{
	return jx_bool(o, a, 0) || jx_bool(o, b, 0);
}

/* Finds an apply_patch envelope in any string argument. */
static const char *find_patch(const cJSON *args)
{
	const cJSON *it;
	if (cJSON_IsString(args))
		return strstr(args->valuestring, "*** Begin Patch") ? args->valuestring : NULL;
	if (!cJSON_IsObject(args))
		return NULL;
	cJSON_ArrayForEach(it, args) {
		if (cJSON_IsString(it) && strstr(it->valuestring, "*** Begin Patch"))
			return it->valuestring;
		if (cJSON_IsArray(it)) {
			const cJSON *x;
			cJSON_ArrayForEach(x, it)
				if (cJSON_IsString(x) && strstr(x->valuestring, "*** Begin Patch"))
					return x->valuestring;
		}
	}
	return NULL;
}

/* Records the file changes of call e in the run's file versions; the diff
 * itself is rendered later, on first use (run_event_diff). */
static void parser_file_effects(struct parse_ctx *ctx, struct event *e, const cJSON *args)
{
	const char *name = e->name ? e->name : "";
	const char *path = arg_str(args, path_keys);
	const char *patch = find_patch(args);
	struct ftrack *ft = ctx->files;
	char *np = NULL;

	if (patch) {
		char *first = NULL;
		free(ftrack_patch(ft, patch, &first));
		if (first && !e->path)
			e->path = first;
		else
			free(first);
		return;
	}
	if (!path)
		return;
	np = parser_norm_path(ctx, path);
	e->path = xstrdup(path);
	if (name_is(name, write_tools)) {
		/* no content (a cut or odd call): nothing known was written */
		const char *content = arg_str(args, content_keys);
		if (content)
			free(ftrack_write(ft, np, content));
	} else if (name_is(name, edit_tools) && !arg_str(args, old_keys) && !arg_str(args, new_keys) &&
	           !jx_get(args, "edit")) {
		/* an edit carrying the whole new file (Cursor's streamContent) */
		const char *content = arg_str(args, content_keys);
		if (content)
			free(ftrack_write(ft, np, content));
	} else if (name_is(name, edit_tools)) {
		const cJSON *edit = jx_get(args, "edit");
		if (edit) { /* kimi StrReplaceFile: {path, edit: {old,new} | [...]} */
			const cJSON *it;
			ftrack_mark(ft);
			if (cJSON_IsObject(edit)) {
				free(ftrack_edit(ft, np, arg_str(edit, old_keys), arg_str(edit, new_keys),
				                 jx_bool(edit, "replace_all", 0)));
			} else {
				cJSON_ArrayForEach(it, edit)
					free(ftrack_edit(ft, np, arg_str(it, old_keys), arg_str(it, new_keys),
					                 jx_bool(it, "replace_all", 0)));
			}
		} else {
			free(ftrack_edit(ft, np, arg_str(args, old_keys), arg_str(args, new_keys),
			                 json_bool_any(args, "replace_all", "replaceAll")));
		}
	} else if (name_is(name, multiedit_tools)) {
		struct ftext *before = ftrack_group_open(ft, np);
		const cJSON *it;
		cJSON_ArrayForEach(it, jx_get(args, "edits"))
			free(ftrack_edit(ft, np, arg_str(it, old_keys), arg_str(it, new_keys),
			                 json_bool_any(it, "replace_all", "replaceAll")));
		ftrack_group_close(ft, np, before);
	}
	free(np);
}

struct event *parser_tool_call(struct parse_ctx *ctx, const char *name,
                               const char *call_id, const char *args_json)
{
	return parser_tool_call_ex(ctx, name, call_id, args_json, 1);
}

struct event *parser_tool_call_ex(struct parse_ctx *ctx, const char *name, const char *call_id,
                                  const char *args_json, int effects)
{
	struct event *e = run_add(ctx->run, EV_TOOL_CALL, ctx->lineno);
	cJSON *args = NULL;

	e->name = xstrdup(name ? name : "");
	e->call_id = xstrdup(call_id);
	if (args_json) {
		args = jx_parse(args_json, strlen(args_json));
		if (args) {
			e->args = xstrdup(args_json);
		} else {
			/* raw text arguments (codex custom tools): keep as a JSON string */
			cJSON *s = cJSON_CreateString(args_json);
			e->args = jx_print(s);
			args = s;
		}
	}
	if (effects) {
		ftrack_begin(ctx->files, (size_t)(e - ctx->run->ev));
		parser_file_effects(ctx, e, args);
		ftrack_end(ctx->files);
	}
	cJSON_Delete(args);
	return e;
}

struct event *parser_tool_call_obj(struct parse_ctx *ctx, const char *name, const char *call_id,
                                   const cJSON *args, int effects)
{
	struct event *e = run_add(ctx->run, EV_TOOL_CALL, ctx->lineno);
	e->name = xstrdup(name ? name : "");
	e->call_id = xstrdup(call_id);
	if (args)
		e->args = jx_print(args);
	if (effects) {
		ftrack_begin(ctx->files, (size_t)(e - ctx->run->ev));
		parser_file_effects(ctx, e, args);
		ftrack_end(ctx->files);
	}
	return e;
}

struct event *parser_tool_result(struct parse_ctx *ctx, const char *call_id,
                                 const char *content, int is_error)
{
	struct event *e = run_add(ctx->run, EV_TOOL_RESULT, ctx->lineno);
	e->call_id = xstrdup(call_id);
	e->text = content ? jx_strdup(content) : xstrdup("");
	e->is_error = is_error ? 1 : 0;
	return e;
}

void parser_append(struct event *e, struct sbuf *view, const char *text)
{
	if (!view->s || view->s != e->text) {
		/* first append to this event: take the measure of its text */
		if (!e->text)
			e->text = xstrdup("");
		view->s = e->text;
		view->len = strlen(e->text);
		view->cap = view->len + 1;
	}
	sbuf_adds(view, text);
	e->text = view->s;
}

struct event *parser_text(struct parse_ctx *ctx, enum ev_kind k, const char *text)
{
	struct event *e;
	if (!text)
		return NULL;
	e = run_add(ctx->run, k, ctx->lineno);
	e->text = jx_strdup(text);
	return e;
}
