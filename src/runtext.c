/* runtext.c: a run's searchable text in one buffer, matched in one pass,
 * and its cache file. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "cachedir.h"
#include "crc32c.h"
#include "flags.h"
#include "idcache.h"
#include "relit.h"
#include "runtext.h"
#include "search.h"
#include "util.h"

struct rt_field {
	size_t ev;
	int line;                 /* lines of the event's earlier parts */
	size_t off, len;          /* in the buffer; a '\n' follows each */
};

struct runtext {
	char *mem;                /* owned: the entry read (rt_buffer) buf points into, or NULL */
	size_t nmem;              /* its allocated size */
	char *buf;                /* the parts, each followed by '\n': owned unless mem */
	size_t nbuf;
	struct rt_field *f;       /* owned */
	size_t nf;
	/* A big entry is searched from its file (rt_grep_big): buf and f are
	 * NULL, fd (owned) is the entry and the text begins at text_at; -1
	 * for a text held in memory. */
	int fd;
	uint64_t text_at;
};

static struct runtext *rt_new(void)
{
	struct runtext *t = xcalloc(1, sizeof *t);
	t->fd = -1;
	return t;
}

/* An entry of at least this many bytes is searched from its file, a
 * batch of parts at a time, rather than read whole: a search's memory
 * does not follow the size of the transcript (issue #28). A batch holds
 * up to RT_BATCH_PARTS parts and about RT_BATCH_BYTES of their text (one
 * part, however long, at least). runtext_stream_limits changes them for
 * tests. */
static size_t rt_stream_min = 64u << 20;
static size_t rt_batch_parts = 65536;
static size_t rt_batch_bytes = 8u << 20;

void runtext_stream_limits(size_t min_bytes, size_t parts, size_t bytes)
{
	rt_stream_min = min_bytes;
	rt_batch_parts = parts ? parts : 1;
	rt_batch_bytes = bytes;
}

int runtext_streamed(const struct runtext *t)
{
	return t && t->fd >= 0;
}

/* An entry's bytes are read into a buffer that the next entry reuses: a
 * search reads thousands of entries in turn, and a mapping of each (with
 * its page tables made and torn down) cost more than the copy (a third of
 * a warm search over 14k runs). One spare buffer a thread. */
static _Thread_local char *rt_spare;
static _Thread_local size_t rt_spare_cap;

static char *rt_buffer(size_t n, size_t *cap)
{
	char *b = rt_spare;
	if (b && rt_spare_cap >= n) {
		*cap = rt_spare_cap;
		rt_spare = NULL;
		return b;
	}
	*cap = n;
	return xmalloc(n);
}

/* A buffer kept for the next entry holds no more than this: a big run's
 * entry is not held for the rest of a browser's session. */
#define RT_SPARE_MAX (16u << 20)

/* Keeps b as the spare when it is larger than the one kept (the larger
 * serves more entries) and not over RT_SPARE_MAX; frees the other. */
static void rt_buffer_done(char *b, size_t cap)
{
	if (!b)
		return;
	if (cap <= RT_SPARE_MAX && (cap > rt_spare_cap || !rt_spare)) {
		free(rt_spare);
		rt_spare = b;
		rt_spare_cap = cap;
	} else {
		free(b);
	}
}

/* ---- building ------------------------------------------------------------- */

struct rt_build {
	struct sbuf b;
	struct rt_field *f;
	size_t nf, cap, ev;
	int line;
};

static int rt_build_field(void *ud, const struct flag_field *ff)
{
	struct rt_build *x = ud;
	if (x->nf == x->cap) {
		x->cap = x->cap ? 2 * x->cap : 256;
		x->f = xrealloc(x->f, x->cap * sizeof *x->f);
	}
	x->f[x->nf++] = (struct rt_field){ x->ev, x->line, x->b.len, ff->len };
	sbuf_add(&x->b, ff->s, ff->len);
	sbuf_addc(&x->b, '\n');
	/* flag_grep numbers on: a part of n newlines takes n + 1 lines */
	x->line += 1;
	for (const char *p = ff->s, *end = ff->s + ff->len; (p = memchr(p, '\n', (size_t)(end - p))); p++)
		x->line++;
	return 0;
}

struct runtext *runtext_new(const struct run *r)
{
	return runtext_events(r, 0, r->nev);
}

struct runtext *runtext_events(const struct run *r, size_t from, size_t to)
{
	struct rt_build x = { .f = NULL };
	sbuf_init(&x.b);
	for (size_t i = from; i < to && i < r->nev; i++) {
		x.ev = i;
		x.line = 0;
		flag_fields(r, i, rt_build_field, &x);
	}
	struct runtext *t = rt_new();
	t->nbuf = x.b.len;
	t->buf = sbuf_detach(&x.b);
	t->f = x.f;
	t->nf = x.nf;
	return t;
}

void runtext_free(struct runtext *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	if (t->mem)
		rt_buffer_done(t->mem, t->nmem);
	else
		free(t->buf);
	free(t->f);
	free(t);
}

size_t runtext_bytes(const struct runtext *t)
{
	return t->nbuf;
}

/* ---- matching ------------------------------------------------------------- */

/* Whether a match inside one part is also found when the regular
 * expression runs over all parts at once, '\n' between them. The buffer
 * only adds text after a part's end ('\n', then more parts), and a
 * backtracking match that exists at a position is still found there with
 * more text after it, except through what looks at or commits beyond the
 * part: lookaround, atomic groups and possessive quantifiers, \A \z \Z \G
 * \K, backtracking verbs, recursion and callouts, conditionals. Patterns
 * with any of those are matched part by part. */
static int runtext_whole_ok(const char *p)
{
	int cls = 0;
	for (; *p; p++) {
		if (*p == '\\') {
			if (!p[1])
				return 0;
			if (!cls && strchr("AzZGKg", p[1]))
				return 0;
			p++;
			continue;
		}
		if (cls) {
			cls = *p != ']';
			continue;
		}
		if (*p == '[') {
			cls = 1;
			if (p[1] == '^')
				p++;
			if (p[1] == ']')
				p++;  /* a leading ] is a member */
			continue;
		}
		if ((*p == '*' || *p == '+' || *p == '?' || *p == '}') && p[1] == '+')
			return 0;  /* possessive */
		if (*p == '(' && p[1] == '*')
			return 0;  /* (*VERB) and start-of-pattern settings */
		if (*p == '(' && p[1] == '?') {
			const char *q = p + 2;
			if (*q == ':' || *q == '|' || *q == '\'' || (*q == 'P' && q[1] == '<') ||
			    (*q == '<' && ((q[1] >= 'A' && q[1] <= 'Z') || (q[1] >= 'a' && q[1] <= 'z') || q[1] == '_')))
				continue;  /* non-capturing, branch reset, named groups */
			while (*q && strchr("imnsxJU-^", *q))
				q++;
			if (q > p + 2 && (*q == ')' || *q == ':'))
				continue;  /* option settings */
			return 0;      /* lookaround, atomic, recursion, conditionals, callouts */
		}
	}
	return !cls;
}

struct rt_grep {
	struct search *s;
	int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len);
	void *ud;
	size_t hits;
	const struct relit *line_lit;   /* borrowed: a line without it has no match; NULL: none */
	struct relit_memo memo;         /* where line_lit's literals were found in the part */
};

/* The '\n' in s[0, n): sixteen bytes a step with SSE2 (a byte counter per
 * lane, summed before it can wrap). A match deep in a long output counts
 * the lines before it. */
static size_t rt_newlines(const char *s, size_t n)
{
	size_t c = 0, i = 0;
#ifdef __SSE2__
	const __m128i nl = _mm_set1_epi8('\n'), zero = _mm_setzero_si128();
	while (n - i >= 16) {
		__m128i acc = zero;
		for (int k = 0; k < 255 && n - i >= 16; k++, i += 16)
			acc = _mm_sub_epi8(acc, _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(s + i)), nl));
		__m128i sum = _mm_sad_epu8(acc, zero);
		c += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
	}
#endif
	for (; i < n; i++)
		c += s[i] == '\n';
	return c;
}

/* One part, as flag_grep_field does it: each line that holds the start of a
 * match, once. 1 when fn said stop. */
static int runtext_part(struct rt_grep *g, const struct runtext *t, const struct rt_field *f)
{
	const char *s = t->buf + f->off;
	size_t start = 0, so, eo, counted = 0;
	int line = 1;
	for (;;) {
		if (g->line_lit) {   /* the expression starts on the first line that holds the literal */
			size_t q = relit_find_memo(g->line_lit, &g->memo, s, f->len, start);
			if (q >= f->len)
				break;
			const char *a = q > start ? memrchr(s + start, '\n', q - start) : NULL;
			if (a)
				start = (size_t)(a - s) + 1;
		}
		if (!search_next(g->s, s, f->len, start, &so, &eo))
			break;
		const char *a = so ? memrchr(s, '\n', so) : NULL;
		const char *b = memchr(s + so, '\n', f->len - so);
		size_t ls = a ? (size_t)(a - s) + 1 : 0, le = b ? (size_t)(b - s) : f->len;
		line += (int)rt_newlines(s + counted, ls - counted);
		counted = ls;
		g->hits++;
		if (g->fn(g->ud, f->ev, f->line + line, s + ls, le - ls))
			return 1;
		start = le + 1;
	}
	return 0;
}

/* The part a match in the buffer at byte q starts in, or the one before
 * the '\n' it starts at: the first part that ends at or after q. */
static size_t runtext_part_at(const struct runtext *t, size_t q)
{
	size_t lo = 0, hi = t->nf;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->f[mid].off + t->f[mid].len < q)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static size_t rt_grep_big(struct search *s, const struct runtext *t,
                          int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len), void *ud);

size_t runtext_grep(struct search *s, const struct runtext *t,
                    int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len), void *ud)
{
	if (t->fd >= 0)
		return rt_grep_big(s, t, fn, ud);
	const struct relit *l = search_literal(s);
	struct rt_grep g = { s, fn, ud, 0, l && l->one_line ? l : NULL, { NULL, 0, {0}, {0} } };
	if (l) {
		/* A part is searched alone, so one without the literal has no
		 * match: the scan for it (memmem, or a two-case scan) leads from
		 * part to part, and PCRE2 confirms. */
		struct relit_memo memo = { NULL, 0, {0}, {0} };
		size_t at = 0;
		while (at < t->nbuf) {
			size_t q = relit_find_memo(l, &memo, t->buf, t->nbuf, at);
			size_t i = q < t->nbuf ? runtext_part_at(t, q) : t->nf;
			if (i >= t->nf || runtext_part(&g, t, &t->f[i]))
				break;
			at = i + 1 < t->nf ? t->f[i + 1].off : t->nbuf;
		}
		return g.hits;
	}
	if (!runtext_whole_ok(search_pattern(s))) {
		for (size_t i = 0; i < t->nf; i++)
			if (runtext_part(&g, t, &t->f[i]))
				break;
		return g.hits;
	}
	/* One pass over everything finds the first part with a match (a
	 * match that runs into the next part may start a part early: that
	 * part is searched alone, and finds nothing). That part is searched
	 * alone, as flag_grep would, and the pass goes on from the next. */
	size_t at = 0, so, eo;
	while (at < t->nbuf && search_next(s, t->buf, t->nbuf, at, &so, &eo)) {
		size_t i = runtext_part_at(t, so);
		if (i >= t->nf)
			break;
		if (runtext_part(&g, t, &t->f[i]))
			break;
		at = i + 1 < t->nf ? t->f[i + 1].off : t->nbuf;
	}
	return g.hits;
}

/* ---- a big entry, searched from its file ------------------------------------ */

/* The counts at an entry's end fit the room between its head and its
 * tail: nbuf bytes of text, then nf parts of 32 bytes. */
static int rt_counts_ok(uint64_t nf, uint64_t nbuf, uint64_t room)
{
	return nbuf <= room && nf <= (room - nbuf) / 32 && nf * 32 == room - nbuf;
}

/* A part (ev, line, off, len) in order after `end` and inside the text. */
static int rt_part_ok(const uint64_t v[4], uint64_t end, uint64_t nbuf)
{
	return v[2] >= end && v[3] < nbuf && v[2] < nbuf - v[3] && v[1] <= INT32_MAX;
}

/* fn, and whether it said stop: a batch's grep returns only its count. */
struct rt_stop {
	int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len);
	void *ud;
	int stopped;
};

static int rt_stop_fn(void *ud, size_t ev, int line, const char *text, size_t len)
{
	struct rt_stop *st = ud;
	return st->stopped = st->fn(st->ud, ev, line, text, len);
}

/* Parts i.. of t read into f[], as many as a batch takes: *n of them, and
 * their text t->buf[*from, *to). Each part checked as runtext_load checks
 * it (in order after *end, inside the text). 0, or -1 when the file is
 * not what its checksum said (changed in place since). */
static int rt_big_parts(const struct runtext *t, size_t i, char *raw, struct rt_field *f, size_t *n,
                        uint64_t *end, uint64_t *from, uint64_t *to)
{
	size_t k = t->nf - i < rt_batch_parts ? t->nf - i : rt_batch_parts;
	if (util_pread_all(t->fd, raw, k * 32, t->text_at + t->nbuf + i * 32) < 0)
		return -1;
	size_t j = 0;
	for (; j < k; j++) {
		uint64_t v[4];
		memcpy(v, raw + j * 32, 32);
		if (!rt_part_ok(v, *end, t->nbuf))
			return -1;
		if (j && v[2] + v[3] + 1 - f[0].off > rt_batch_bytes)
			break;  /* the batch's text is full */
		f[j] = (struct rt_field){ (size_t)v[0], (int)v[1], (size_t)v[2], (size_t)v[3] };
		*end = v[2] + v[3] + 1;
	}
	*n = j;
	*from = f[0].off;
	*to = *end;
	return 0;
}

static size_t rt_grep_big(struct search *s, const struct runtext *t,
                          int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len), void *ud)
{
	struct rt_stop st = { fn, ud, 0 };
	size_t hits = 0, cap = 0, n;
	uint64_t end = 0, from, to;
	char *raw = xmalloc(rt_batch_parts * 32), *text = NULL;
	struct rt_field *f = xmalloc(rt_batch_parts * sizeof *f);
	for (size_t i = 0; i < t->nf && !st.stopped; i += n) {
		if (rt_big_parts(t, i, raw, f, &n, &end, &from, &to) < 0)
			break;
		if (to - from > cap)
			text = xrealloc(text, cap = (size_t)(to - from));
		if (util_pread_all(t->fd, text, (size_t)(to - from), t->text_at + from) < 0)
			break;
		int ok = 1;
		for (size_t j = 0; j < n && ok; j++) {
			f[j].off -= (size_t)from;
			ok = text[f[j].off + f[j].len] == '\n';
		}
		if (!ok)
			break;
		struct runtext view = { .buf = text, .nbuf = (size_t)(to - from), .f = f, .nf = n, .fd = -1 };
		hits += runtext_grep(s, &view, rt_stop_fn, &st);
	}
	free(raw);
	free(text);
	free(f);
	return hits;
}

/* ---- the cache file ------------------------------------------------------- */

/* An entry: the magic, the key, the format, the parts and the text, then
 * the CRC-32C of all that as 8 bytes: a damaged entry is rebuilt. */
#define RT_MAGIC "KBRTXT4"
/* Version 3 puts the text before the parts and their counts after it,
 * so that an entry can be written as its run is read (runtext_writer):
 * magic, key, format, text, parts (32 bytes each), nf, nbuf, CRC.
 * Version 4: the text of calls' arguments read by jx_parse (a \u0000
 * in them is U+2400, no longer the end of the string). */
#define RT_TAIL 24                /* nf, nbuf, CRC */

/* What a cache entry stands for: the fields of struct runtext_key. */
enum { RT_EXE_SIZE, RT_EXE_MTIME, RT_DEV, RT_INO, RT_SIZE, RT_MTIME };

static int rt_identify(const char *transcript, struct runtext_key *k)
{
	unsigned long long id[4], exe[2];
	memset(k, 0, sizeof *k);
	idcache_exe(exe);
	if (idcache_identify(transcript, id) < 0 || (!exe[0] && !exe[1]))
		return -1;
	k->v[RT_EXE_SIZE] = exe[0];
	k->v[RT_EXE_MTIME] = exe[1];
	k->v[RT_DEV] = id[0];
	k->v[RT_INO] = id[1];
	k->v[RT_SIZE] = id[2];
	k->v[RT_MTIME] = id[3];
	k->ok = 1;
	return 0;
}

/* The entry's file for the transcript of key read as format: named by
 * device and inode, so that every hard link to one file (a dataset made
 * of links to another) shares one entry. */
static char *rt_entry(const struct runtext_key *key, const char *format)
{
	char *dir = idcache_dir("text");
	if (!dir)
		return NULL;
	uint64_t h = idcache_fnv(IDCACHE_FNV0, &key->v[RT_DEV], 16);
	h = idcache_str_hash(h, format ? format : "");
	char *path = xasprintf("%s/%016llx", dir, (unsigned long long)h);
	free(dir);
	return path;
}

/* The entry file's identity (device, inode, size, mtime): one rewritten
 * is a new inode, so an entry checked once need not be checked again. */
static void rt_stat_id(const struct stat *st, unsigned long long id[4])
{
	id[0] = (unsigned long long)st->st_dev;
	id[1] = (unsigned long long)st->st_ino;
	id[2] = (unsigned long long)st->st_size;
	id[3] = (unsigned long long)st->st_mtim.tv_sec * 1000000000ull + (unsigned long long)st->st_mtim.tv_nsec;
}

/* The entry open at fd (st its stat) read whole; *cap: the buffer's size. */
static char *rt_read(int fd, const struct stat *st, size_t *n, size_t *cap, unsigned long long id[4])
{
	char *b = NULL;
	if (S_ISREG(st->st_mode) && st->st_size >= 16) {
		size_t want = (size_t)st->st_size;
		b = rt_buffer(want, cap);
		if (util_pread_all(fd, b, want, 0) < 0) {  /* cut short under us: rebuilt */
			rt_buffer_done(b, *cap);
			b = NULL;
		} else {
			cachedir_used(fd, st);
			rt_stat_id(st, id);
			*n = want;
		}
	}
	return b;
}

/* A reader over an entry's bytes that fails, rather than reads past the
 * end, on a short or damaged file. */
struct rt_in {
	const char *p, *end;
	int bad;
};

static uint64_t rt_u64(struct rt_in *in)
{
	uint64_t v = 0;
	if (in->end - in->p < 8) {
		in->bad = 1;
		return 0;
	}
	memcpy(&v, in->p, 8);
	in->p += 8;
	return v;
}

static const char *rt_bytes(struct rt_in *in, uint64_t n)
{
	const char *s = in->p;
	if ((uint64_t)(in->end - in->p) < n) {
		in->bad = 1;
		return NULL;
	}
	in->p += n;
	return s;
}

static int rt_same_str(struct rt_in *in, const char *s)
{
	uint64_t n = rt_u64(in);
	const char *b = rt_bytes(in, n);
	return !in->bad && n == strlen(s) && memcmp(b, s, n) == 0;
}

/* Entries whose checksum held in this process, by the entry file's
 * identity (device, inode, size, mtime: one rewritten is a new inode): a
 * dataset of hard links reads one entry for many runs, checked once. */
#define RT_CHECKED 4096           /* (a 256 table was re-checking entries that collided) */
static unsigned long long rt_checked[RT_CHECKED][4];

/* Whether the entry's last 8 bytes are the CRC of the rest. */
static unsigned long long *rt_checked_slot(const unsigned long long id[4])
{
	return rt_checked[idcache_fnv(IDCACHE_FNV0, id, 4 * sizeof *id) % RT_CHECKED];
}

static int rt_sum_ok(const char *b, size_t n, const unsigned long long id[4])
{
	uint64_t want;
	unsigned long long *slot = rt_checked_slot(id);
	if (n < 8)
		return 0;
	if (!memcmp(slot, id, 4 * sizeof *id))
		return 1;
	memcpy(&want, b + n - 8, 8);
	if (want != crc32c(0, b, n - 8))
		return 0;
	memcpy(slot, id, 4 * sizeof *id);
	return 1;
}

/* A big entry's checksum, read through in blocks rather than whole. */
static int rt_big_sum_ok(int fd, size_t n, const unsigned long long id[4])
{
	unsigned long long *slot = rt_checked_slot(id);
	uint64_t want;
	if (!memcmp(slot, id, 4 * sizeof *id))
		return 1;
	if (util_pread_all(fd, (char *)&want, 8, n - 8) < 0)
		return 0;
	size_t blk = 4u << 20;
	char *b = xmalloc(blk);
	uint32_t crc = 0;
	int ok = 1;
	for (size_t at = 0; at < n - 8 && ok; at += blk) {
		size_t k = n - 8 - at < blk ? n - 8 - at : blk;
		ok = util_pread_all(fd, b, k, at) == 0;
		crc = crc32c(crc, b, k);
	}
	free(b);
	if (!ok || want != crc)
		return 0;
	memcpy(slot, id, 4 * sizeof *id);
	return 1;
}

/* The big entry open at fd (owned; st its stat), checked and kept open
 * for rt_grep_big; NULL (fd closed) when it is not valid: rebuilt. */
static struct runtext *rt_load_big(int fd, const struct stat *st, const struct runtext_key *key, const char *format)
{
	size_t n = (size_t)st->st_size;
	unsigned long long id[4];
	rt_stat_id(st, id);
	const char *fmt = format ? format : "";
	size_t flen = strlen(fmt);
	char head[64], tail[RT_TAIL];
	char *fb = xmalloc(flen + 1);
	uint64_t v, nf, nbuf;
	int ok = n >= 64 + flen + RT_TAIL && rt_big_sum_ok(fd, n, id) && util_pread_all(fd, head, sizeof head, 0) == 0 &&
	         !memcmp(head, RT_MAGIC, 8) && util_pread_all(fd, tail, sizeof tail, n - RT_TAIL) == 0;
	for (int i = 0; ok && i < 6; i++) {
		memcpy(&v, head + 8 + 8 * i, 8);
		ok = v == key->v[i];
	}
	if (ok) {
		memcpy(&v, head + 56, 8);
		ok = v == flen && util_pread_all(fd, fb, flen, 64) == 0 && !memcmp(fb, fmt, flen);
	}
	free(fb);
	memcpy(&nf, tail, 8);
	memcpy(&nbuf, tail + 8, 8);
	if (!ok || !rt_counts_ok(nf, nbuf, n - RT_TAIL - (64 + flen))) {
		close(fd);
		return NULL;
	}
	cachedir_used(fd, st);
	struct runtext *t = rt_new();
	t->fd = fd;
	t->text_at = 64 + flen;
	t->nbuf = (size_t)nbuf;
	t->nf = (size_t)nf;
	return t;
}

int runtext_have(const char *transcript, const char *format)
{
	struct runtext_key key;
	char head[8 + 6 * 8];
	char *path = rt_identify(transcript, &key) == 0 ? rt_entry(&key, format) : NULL;
	int fd = path ? cachedir_open(path) : -1, same = 0;
	if (fd >= 0 && pread(fd, head, sizeof head, 0) == (ssize_t)sizeof head)
		same = !memcmp(head, RT_MAGIC, 8) && !memcmp(head + 8, key.v, sizeof key.v);
	if (fd >= 0)
		close(fd);
	free(path);
	return same;
}

struct runtext *runtext_load(const char *transcript, const char *format, struct runtext_key *key)
{
	int known = rt_identify(transcript, key) == 0;
	char *path = known ? rt_entry(key, format) : NULL;
	size_t n = 0, cap = 0;
	unsigned long long eid[4];
	int fd = path ? cachedir_open(path) : -1;  /* (never through a link) */
	struct stat st;
	char *b = NULL;
	struct runtext *t = NULL;
	int same = 1;
	free(path);
	if (!path)
		key->ok = 0;  /* no cache: nothing to save either */
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0) {
		close(fd);
		return NULL;
	}
	if (S_ISREG(st.st_mode) && (size_t)st.st_size >= rt_stream_min)
		return rt_load_big(fd, &st, key, format);  /* (fd is its) */
	b = rt_read(fd, &st, &n, &cap, eid);
	close(fd);
	if (!b)
		return NULL;
	struct rt_in in = { b, b + n - 8, n < 8 + RT_TAIL || !rt_sum_ok(b, n, eid) };
	const char *magic = rt_bytes(&in, 8);
	for (int i = 0; i < 6; i++)
		same &= rt_u64(&in) == key->v[i];
	if (in.bad || memcmp(magic, RT_MAGIC, 8) != 0 || !same || !rt_same_str(&in, format ? format : ""))
		goto out;
	/* the counts at the end: the text from here, then the parts */
	const char *text = in.p;
	if ((size_t)(b + n - text) < RT_TAIL)
		goto out;
	uint64_t nf, nbuf, room = (uint64_t)(b + n - RT_TAIL - text);
	memcpy(&nf, b + n - RT_TAIL, 8);
	memcpy(&nbuf, b + n - RT_TAIL + 8, 8);
	if (!rt_counts_ok(nf, nbuf, room))
		goto out;
	in.p = text + nbuf;
	t = rt_new();
	t->f = xmalloc((nf ? nf : 1) * sizeof *t->f);
	t->nf = (size_t)nf;
	uint64_t end = 0;
	for (size_t i = 0; i < t->nf; i++) {
		uint64_t v[4];   /* ev, line, off, len */
		for (int k = 0; k < 4; k++)
			v[k] = rt_u64(&in);
		/* parts in order, inside the text, each followed by its '\n' */
		if (in.bad || !rt_part_ok(v, end, nbuf))
			goto bad;
		t->f[i] = (struct rt_field){ (size_t)v[0], (int)v[1], (size_t)v[2], (size_t)v[3] };
		end = v[2] + v[3] + 1;
	}
	if (end > nbuf)
		goto bad;
	for (size_t i = 0; i < t->nf; i++)
		if (text[t->f[i].off + t->f[i].len] != '\n')
			goto bad;
	/* the text is used where it was read: the entry's buffer is the text's */
	t->mem = b;
	t->nmem = cap;
	t->buf = (char *)text;
	t->nbuf = (size_t)nbuf;
	b = NULL;
	goto out;
bad:
	runtext_free(t);
	t = NULL;
out:
	rt_buffer_done(b, cap);
	return t;
}

static void rt_put_u64(struct sbuf *b, uint64_t v)
{
	sbuf_add(b, (const char *)&v, 8);
}

static void rt_put_str(struct sbuf *b, const char *s)
{
	rt_put_u64(b, strlen(s));
	sbuf_adds(b, s);
}

/* What an entry begins with: the magic, the key, the format. */
static void rt_put_head(struct sbuf *b, const struct runtext_key *key, const char *format)
{
	sbuf_add(b, RT_MAGIC, 8);
	for (int i = 0; i < 6; i++)
		rt_put_u64(b, key->v[i]);
	rt_put_str(b, format ? format : "");
}

/* Parts (offsets in the whole text). */
static void rt_put_fields(struct sbuf *b, const struct rt_field *f, size_t nf)
{
	for (size_t i = 0; i < nf; i++) {
		rt_put_u64(b, f[i].ev);
		rt_put_u64(b, (uint64_t)f[i].line);
		rt_put_u64(b, f[i].off);
		rt_put_u64(b, f[i].len);
	}
}

/* The parts, then nf and nbuf (the CRC follows). */
static void rt_put_parts(struct sbuf *b, const struct rt_field *f, size_t nf, size_t nbuf)
{
	rt_put_fields(b, f, nf);
	rt_put_u64(b, nf);
	rt_put_u64(b, nbuf);
}

/* The transcript must be the file that was read, unchanged since: else
 * the entry would stand for what it no longer is. */
static int rt_still(const char *transcript, const struct runtext_key *key)
{
	struct runtext_key now;
	return key->ok && rt_identify(transcript, &now) == 0 && memcmp(now.v, key->v, sizeof now.v) == 0;
}

int runtext_save(const struct runtext *t, const char *transcript, const char *format,
                 const struct runtext_key *key)
{
	if (!rt_still(transcript, key))
		return -1;
	char *path = rt_entry(key, format);
	if (!path)
		return -1;
	struct sbuf b;
	sbuf_init(&b);
	rt_put_head(&b, key, format);
	sbuf_add(&b, t->buf, t->nbuf);
	rt_put_parts(&b, t->f, t->nf, t->nbuf);
	rt_put_u64(&b, crc32c(0, b.s, b.len));
	/* a cache needs no fsync: a torn entry fails its checksum and is rebuilt */
	int rc = cachedir_put(path, b.s, b.len);
	sbuf_free(&b);
	free(path);
	return rc;
}

/* ---- an entry written as the run is read ------------------------------------ */

struct runtext_writer {
	struct cachedir_stream *out;
	struct sbuf pending;      /* not yet written: small entries go out in one write */
	uint32_t crc;             /* of all written so far */
	struct rt_field *f;       /* every part, offsets in the whole text (owned) */
	size_t nf, cap;
	size_t nbuf;
	struct runtext_key key;
	char *transcript;         /* owned */
};

#define RT_W_FLUSH (1u << 20)

static void rt_w_put(struct runtext_writer *w, const void *p, size_t n)
{
	w->crc = crc32c(w->crc, p, n);
	if (n >= RT_W_FLUSH / 4) {  /* a slice's text: written as it is, not copied */
		if (w->pending.len)
			cachedir_stream_write(w->out, w->pending.s, w->pending.len);
		sbuf_reset(&w->pending);
		cachedir_stream_write(w->out, p, n);
		return;
	}
	sbuf_add(&w->pending, p, n);
	if (w->pending.len >= RT_W_FLUSH) {
		cachedir_stream_write(w->out, w->pending.s, w->pending.len);
		sbuf_reset(&w->pending);
	}
}

struct runtext_writer *runtext_writer_new(const char *transcript, const char *format,
                                          const struct runtext_key *key)
{
	char *path = key->ok ? rt_entry(key, format) : NULL;
	struct cachedir_stream *out = path ? cachedir_stream_open(path) : NULL;
	free(path);
	if (!out)
		return NULL;
	struct runtext_writer *w = xcalloc(1, sizeof *w);
	w->out = out;
	sbuf_init(&w->pending);
	w->key = *key;
	w->transcript = xstrdup(transcript);
	struct sbuf b;
	sbuf_init(&b);
	rt_put_head(&b, key, format);
	rt_w_put(w, b.s, b.len);
	sbuf_free(&b);
	return w;
}

void runtext_writer_add(struct runtext_writer *w, const struct runtext *t)
{
	if (!w)
		return;
	rt_w_put(w, t->buf, t->nbuf);
	w->f = xgrow(w->f, &w->cap, w->nf + t->nf, sizeof *w->f);
	for (size_t i = 0; i < t->nf; i++) {
		w->f[w->nf] = t->f[i];
		w->f[w->nf++].off += w->nbuf;
	}
	w->nbuf += t->nbuf;
}

int runtext_writer_end(struct runtext_writer *w, int keep)
{
	if (!w)
		return -1;
	keep = keep && rt_still(w->transcript, &w->key);
	if (keep) {
		/* the parts a block at a time: a copy of them all would double
		 * what a big transcript's parts take (32 bytes each) */
		struct sbuf b;
		sbuf_init(&b);
		for (size_t i = 0; i < w->nf; i += 4096) {
			sbuf_reset(&b);
			rt_put_fields(&b, w->f + i, w->nf - i < 4096 ? w->nf - i : 4096);
			rt_w_put(w, b.s, b.len);
		}
		sbuf_reset(&b);
		rt_put_u64(&b, w->nf);
		rt_put_u64(&b, w->nbuf);
		rt_w_put(w, b.s, b.len);
		uint64_t crc = w->crc;
		sbuf_add(&w->pending, (const char *)&crc, 8);
		cachedir_stream_write(w->out, w->pending.s, w->pending.len);
		sbuf_free(&b);
	}
	sbuf_free(&w->pending);
	int rc = cachedir_stream_end(w->out, keep);
	free(w->f);
	free(w->transcript);
	free(w);
	return rc;
}
