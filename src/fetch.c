/* fetch.c: the transfers of `kbtui fetch`: the listing through the Hub API
 * (one request at a time, it is paginated), then the files through their
 * resolve URLs, --jobs at once in one libcurl multi loop. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "fetch.h"
#include "hub.h"
#include "safefile.h"
#include "textsafe.h"
#include "util.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef PACKAGE_VERSION
#define PACKAGE_VERSION "0"
#endif

#define API_MAX_BODY (64L << 20)    /* one listing page or revision answer */
#define MAX_PAGES 100000
#define MAX_TRIES 5                 /* attempts in a row that bring no byte */
#define MAX_REQUESTS 200            /* requests for one file in all */
#define META_DIR ".kbtui-fetch"

/* ---- small helpers -------------------------------------------------------- */


static char *shown(const char *s)
{
	return textsafe(s, strlen(s), 0);
}

/* mkdir -p; 0 or -1 with errno. */
static int mkdirs(const char *path)
{
	char *p = xstrdup(path);
	int rc = 0;
	for (char *s = p + 1;; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, 0755) != 0 && errno != EEXIST) {
				rc = -1;
				break;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (rc == 0 && !util_is_dir(p)) {
		errno = ENOTDIR;
		rc = -1;
	}
	int e = errno;
	free(p);
	errno = e;
	return rc;
}

static int is_disk_full(int e)
{
	return e == ENOSPC || e == EDQUOT || e == EFBIG;
}

static void hex(const unsigned char *d, unsigned n, char *out)
{
	static const char h[] = "0123456789abcdef";
	for (unsigned i = 0; i < n; i++) {
		out[2 * i] = h[d[i] >> 4];
		out[2 * i + 1] = h[d[i] & 15];
	}
	out[2 * n] = '\0';
}

/* sha256 and git's blob sha1 of the same bytes, fed as they arrive. */
struct digest {
	EVP_MD_CTX *sha256, *sha1;
};

static void digest_reset(struct digest *d, long long size)
{
	char blob[40];
	int n = snprintf(blob, sizeof blob, "blob %lld", size);
	if (!d->sha256) {
		d->sha256 = EVP_MD_CTX_new();
		d->sha1 = EVP_MD_CTX_new();
		if (!d->sha256 || !d->sha1)
			abort();
	}
	EVP_DigestInit_ex(d->sha256, EVP_sha256(), NULL);
	EVP_DigestInit_ex(d->sha1, EVP_sha1(), NULL);
	EVP_DigestUpdate(d->sha1, blob, (size_t)n + 1);   /* with its NUL */
}

static void digest_add(struct digest *d, const void *p, size_t n)
{
	EVP_DigestUpdate(d->sha256, p, n);
	EVP_DigestUpdate(d->sha1, p, n);
}

static void digest_end(struct digest *d, char sha256[65], char sha1[41])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n;
	EVP_DigestFinal_ex(d->sha256, md, &n);
	hex(md, n, sha256);
	EVP_DigestFinal_ex(d->sha1, md, &n);
	hex(md, n, sha1);
}

static void digest_free(struct digest *d)
{
	EVP_MD_CTX_free(d->sha256);
	EVP_MD_CTX_free(d->sha1);
	d->sha256 = d->sha1 = NULL;
}

/* Feeds the first `limit` bytes of path to d; returns the bytes read, -1
 * when it cannot be opened or read. */
static long long digest_file(struct digest *d, const char *path, long long limit)
{
	char buf[65536];
	long long got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	while (got < limit) {
		size_t want = limit - got < (long long)sizeof buf ? (size_t)(limit - got) : sizeof buf;
		ssize_t r = read(fd, buf, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		digest_add(d, buf, (size_t)r);
		got += r;
	}
	close(fd);
	return got;
}

/* ---- the manifest: what kbtui fetch last wrote ---------------------------- */

struct mentry {
	char *path;
	char sha256[65];
	long long size;
};

struct manifest {
	struct mentry *e;
	size_t n, cap;
};

static int cmp_mentry(const void *a, const void *b)
{
	return strcmp(((const struct mentry *)a)->path, ((const struct mentry *)b)->path);
}

/* Lines "sha256 size path"; anything else is ignored (the file is advice:
 * at worst a changed file is kept instead of updated). */
static void manifest_load(struct manifest *m, const char *path)
{
	size_t len;
	char *text = util_read_file(path, &len), *line, *save = NULL;
	memset(m, 0, sizeof *m);
	if (!text)
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp1 = strchr(line, ' '), *sp2, *end;
		if (line[0] == '#' || !sp1 || sp1 - line != 64)
			continue;
		long long size = strtoll(sp1 + 1, &end, 10);
		sp2 = end;
		if (*sp2 != ' ' || size < 0 || end == sp1 + 1 || hub_path_unsafe(sp2 + 1))
			continue;
		int ok = 1;
		for (int i = 0; i < 64; i++)
			ok &= (line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f');
		if (!ok)
			continue;
		if (m->n == m->cap)
			m->e = xrealloc(m->e, (m->cap = m->cap ? m->cap * 2 : 256) * sizeof *m->e);
		struct mentry *e = &m->e[m->n++];
		memcpy(e->sha256, line, 64);
		e->sha256[64] = '\0';
		e->size = size;
		e->path = xstrdup(sp2 + 1);
	}
	free(text);
	if (m->n > 1)
		qsort(m->e, m->n, sizeof *m->e, cmp_mentry);
}

static const struct mentry *manifest_find(const struct manifest *m, const char *path)
{
	struct mentry key = {.path = (char *)path};
	return m->n ? bsearch(&key, m->e, m->n, sizeof *m->e, cmp_mentry) : NULL;
}

static void manifest_free(struct manifest *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->e[i].path);
	free(m->e);
	memset(m, 0, sizeof *m);
}

/* ---- one file ------------------------------------------------------------- */

enum job_state {
	J_WAIT,       /* to download (again) */
	J_RUN,        /* a request is under way */
	J_DONE,       /* verified under its final name */
	J_SKIP,       /* up to date, or kept */
	J_FAILED,
};

struct fetcher;

struct job {
	struct fetcher *f;
	const struct hub_file *hf;
	enum job_state state;
	char *final, *part;       /* owned */
	char sha256[65];          /* of the bytes now under the final name */
	int fd;
	long long have;           /* bytes in the .part, all fed to dg */
	long long from;           /* where the request under way started */
	struct digest dg;
	int tries;                /* attempts in a row without a byte */
	int requests;
	int resumed;              /* some bytes came from an earlier request */
	int restarted;            /* already started over once */
	double not_before;
	CURL *h;
	int status;               /* HTTP status of the response being read */
	int body;                 /* the write callback saw this response */
	long long range_start;    /* from Content-Range, -1 when none */
	char error_code[64];      /* X-Error-Code */
	int werrno;               /* why writing the .part failed */
	const char *abort_why;    /* why the write callback stopped the transfer */
	char errbuf[CURL_ERROR_SIZE];
};

struct fetcher {
	const struct fetch_opts *o;
	struct fetch_stats *st;
	FILE *out, *err;
	char *rev;                /* the commit when the Hub named one (owned) */
	struct curl_slist *headers;
	const char *protocols;
	struct hub_listing list;
	struct manifest man;
	struct job *jobs;
	size_t njobs;
	CURLM *multi;
	int active;
	int stop;                 /* disk full, no network, no access: start nothing more */
	size_t stopped;           /* files not tried because of that */
	int progress, drawn;
	double t0, last_draw;
	long long total_bytes, done_bytes;
	size_t files_done;
};

/* ---- messages and progress ------------------------------------------------ */

static void clear_progress(struct fetcher *f)
{
	if (f->drawn) {
		fputs("\r\033[K", f->err);
		f->drawn = 0;
	}
}

static char *fetch_vformat(const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	char *m = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	m[0] = '\0';
	if (n > 0)
		vsnprintf(m, (size_t)n + 1, fmt, ap);
	return m;
}

static void say(struct fetcher *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct fetcher *f, const char *fmt, ...)
{
	va_list ap;
	clear_progress(f);
	fputs("kbtui fetch: ", f->err);
	va_start(ap, fmt);
	char *m = fetch_vformat(fmt, ap);
	va_end(ap);
	textsafe_fputs(f->err, m, TS_KEEP_TAB);  /* file names and the Hub's words */
	free(m);
	fputc('\n', f->err);
	fflush(f->err);
}

static void human(long long b, char *out, size_t n)
{
	if (b < 1024)
		snprintf(out, n, "%lld B", b);
	else if (b < 1024 * 1024)
		snprintf(out, n, "%.1f KiB", b / 1024.0);
	else if (b < 1024LL * 1024 * 1024)
		snprintf(out, n, "%.1f MiB", b / 1048576.0);
	else
		snprintf(out, n, "%.2f GiB", b / 1073741824.0);
}

static void draw_progress(struct fetcher *f, int force)
{
	double t = util_now(), el = t - f->t0;
	char done[32], total[32], rate[32], eta[32] = "";
	if (!f->progress || (!force && t - f->last_draw < 0.2))
		return;
	f->last_draw = t;
	long long d = f->done_bytes, tot = f->total_bytes > d ? f->total_bytes : d;
	human(d, done, sizeof done);
	human(tot, total, sizeof total);
	if (el > 0.5 && d > 0) {
		double r = d / el;
		human((long long)r, rate, sizeof rate);
		strcat(rate, "/s");
		long long left = (long long)((tot - d) / r);
		snprintf(eta, sizeof eta, "  ETA %lld:%02lld", left / 60, left % 60);
	} else {
		strcpy(rate, "-");
	}
	fprintf(f->err, "\rkbtui fetch: %zu/%zu files  %s / %s  %s%s\033[K", f->files_done, f->list.n, done, total,
	        rate, eta);
	fflush(f->err);
	f->drawn = 1;
}

/* ---- HTTP: shared settings, headers --------------------------------------- */

struct resp {
	int status;
	struct sbuf body;
	long long limit;
	char *link;
	char error_code[64];
};

/* Keeps the headers we use of the last response (a redirect's are dropped
 * when the next status line comes). */
static void header_line(const char *line, size_t n, int *status_seen, char *code, size_t codesz, char **link,
                        long long *range_start)
{
	while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
		n--;
	if (n >= 5 && !strncmp(line, "HTTP/", 5)) {
		*status_seen = 1;
		code[0] = '\0';
		if (link) {
			free(*link);
			*link = NULL;
		}
		if (range_start)
			*range_start = -1;
		return;
	}
	const char *colon = memchr(line, ':', n);
	if (!colon)
		return;
	size_t nl = (size_t)(colon - line);
	const char *v = colon + 1;
	while (v < line + n && (*v == ' ' || *v == '\t'))
		v++;
	size_t vl = (size_t)(line + n - v);
	if (nl == 12 && !strncasecmp(line, "x-error-code", 12)) {
		size_t k = vl < codesz - 1 ? vl : codesz - 1;
		memcpy(code, v, k);
		code[k] = '\0';
	} else if (link && nl == 4 && !strncasecmp(line, "link", 4)) {
		free(*link);
		*link = xstrndup(v, vl);
	} else if (range_start && nl == 13 && !strncasecmp(line, "content-range", 13)) {
		/* "bytes START-END/TOTAL" */
		if (vl > 6 && !strncasecmp(v, "bytes ", 6)) {
			char tmp[64];
			size_t k = vl - 6 < sizeof tmp - 1 ? vl - 6 : sizeof tmp - 1;
			memcpy(tmp, v + 6, k);
			tmp[k] = '\0';
			char *end;
			long long s = strtoll(tmp, &end, 10);
			if (end != tmp && *end == '-' && s >= 0)
				*range_start = s;
		}
	}
}

static size_t resp_header(char *data, size_t sz, size_t nm, void *ud)
{
	struct resp *r = ud;
	int seen = 0;
	header_line(data, sz * nm, &seen, r->error_code, sizeof r->error_code, &r->link, NULL);
	return sz * nm;
}

static size_t resp_body(char *data, size_t sz, size_t nm, void *ud)
{
	struct resp *r = ud;
	if ((long long)(r->body.len + sz * nm) > r->limit)
		return 0;
	sbuf_add(&r->body, data, sz * nm);
	return sz * nm;
}

static void easy_common(struct fetcher *f, CURL *h, const char *url, char *errbuf)
{
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
	/* https only, unless the endpoint itself is plain http (a local mirror) */
#if LIBCURL_VERSION_NUM >= 0x075500     /* 7.85 names protocols */
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, f->protocols);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, f->protocols);
#else
	long protos = CURLPROTO_HTTPS | (strcmp(f->protocols, "https") ? CURLPROTO_HTTP : 0);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS, protos);
	curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS, protos);
#endif
	curl_easy_setopt(h, CURLOPT_USERAGENT, "kbtui/" PACKAGE_VERSION);
	/* libcurl sends a custom Authorization header to the first host only,
	 * never to the CDN a resolve URL redirects to */
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, f->headers);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
	curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	errbuf[0] = '\0';
}

/* What a transport failure means, naming the host (never a signed URL). */
static char *net_error(CURLcode rc, const char *url, const char *errbuf)
{
	char *o = hub_origin(url), *m;
	switch (rc) {
	case CURLE_COULDNT_RESOLVE_HOST:
		m = xasprintf("cannot reach %s: host name not found (no network?)", o);
		break;
	case CURLE_COULDNT_CONNECT:
		m = xasprintf("cannot connect to %s: connection refused or no network", o);
		break;
	case CURLE_OPERATION_TIMEDOUT:
		m = xasprintf("%s: timed out", o);
		break;
	case CURLE_UNSUPPORTED_PROTOCOL:
		m = xasprintf("%s: redirected to a URL kbtui does not follow (HTTPS only, or HTTP from an http "
		              "endpoint)", o);
		break;
	case CURLE_TOO_MANY_REDIRECTS:
		m = xasprintf("%s: too many redirects", o);
		break;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
		m = xasprintf("%s: TLS failed: %s", o, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		break;
	default:
		m = xasprintf("%s: %s", o, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	}
	free(o);
	char *s = shown(m);
	free(m);
	return s;
}

/* Failures worth another try: the connection, not the request. */
static int transient(CURLcode rc)
{
	switch (rc) {
	case CURLE_PARTIAL_FILE:
	case CURLE_RECV_ERROR:
	case CURLE_SEND_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
	case CURLE_SSL_CONNECT_ERROR:
		return 1;
	default:
		return 0;
	}
}

/* One API request into memory. 0 when it got an answer (any status), -1
 * with *msg (owned) on a transport failure. */
static int api_get_once(struct fetcher *f, const char *url, struct resp *r, char **msg, CURLcode *code)
{
	char errbuf[CURL_ERROR_SIZE];
	CURL *h = curl_easy_init();
	long st = 0;

	memset(r, 0, sizeof *r);
	sbuf_init(&r->body);
	r->limit = API_MAX_BODY;
	if (!h)
		abort();
	easy_common(f, h, url, errbuf);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, resp_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, r);
	curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, resp_header);
	curl_easy_setopt(h, CURLOPT_HEADERDATA, r);
	CURLcode rc = curl_easy_perform(h);
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &st);
	r->status = (int)st;
	if (rc == CURLE_WRITE_ERROR) {
		*msg = xasprintf("the Hub's answer is larger than %ld MiB", API_MAX_BODY >> 20);
	} else if (rc != CURLE_OK) {
		*msg = net_error(rc, url, errbuf);
	}
	curl_easy_cleanup(h);
	*code = rc;
	return rc == CURLE_OK ? 0 : -1;
}

static void resp_free(struct resp *r)
{
	sbuf_free(&r->body);
	free(r->link);
}

/* api_get_once, tried again (up to 4 times in 4 s) when the connection
 * failed or the Hub was busy (429, 5xx). */
static int api_get(struct fetcher *f, const char *url, struct resp *r, char **msg)
{
	for (int attempt = 0;; attempt++) {
		CURLcode code;
		int rc = api_get_once(f, url, r, msg, &code);
		int again = rc ? transient(code) : (r->status == 429 || r->status >= 500);
		if (!again || attempt == 3)
			return rc;
		free(*msg);
		*msg = NULL;
		resp_free(r);
		struct timespec ts = {0, 500000000L};
		for (int i = 0; i < (1 << attempt); i++)
			nanosleep(&ts, NULL);
	}
}

/* ---- listing ---------------------------------------------------------------- */

/* The commit the revision names, so that every file comes from one
 * snapshot even if the branch moves meanwhile. 0, or -1 after a message. */
static int resolve_revision(struct fetcher *f)
{
	const struct fetch_opts *o = f->o;
	struct resp r;
	char *msg = NULL, *url;

	if (hub_is_commit(o->revision)) {
		f->rev = xstrdup(o->revision);
		return 0;
	}
	url = hub_revision_url(o->endpoint, o->repo, o->revision);
	int rc = api_get(f, url, &r, &msg);
	free(url);
	if (rc) {
		say(f, "%s", msg);
		free(msg);
		resp_free(&r);
		return -1;
	}
	if (r.status == 200) {
		f->rev = hub_commit_sha(r.body.s ? r.body.s : "", r.body.len);
	} else if (!(r.status == 404 && !r.error_code[0])) {
		/* a bare 404 may be a mirror without this route: the listing decides */
		msg = hub_http_error(r.status, r.error_code, o->repo, o->revision, NULL, o->token != NULL);
		say(f, "%s", msg);
		free(msg);
		resp_free(&r);
		return -1;
	}
	if (!f->rev)
		f->rev = xstrdup(o->revision);
	resp_free(&r);
	return 0;
}

static int list_files(struct fetcher *f)
{
	const struct fetch_opts *o = f->o;
	char *url = hub_tree_url(o->endpoint, o->repo, f->rev), *msg = NULL;
	int pages = 0, rc = 0;

	while (url && rc == 0) {
		struct resp r;
		if (++pages > MAX_PAGES) {
			say(f, "the file listing has more than %d pages; giving up", MAX_PAGES);
			rc = -1;
			break;
		}
		if (api_get(f, url, &r, &msg)) {
			say(f, "%s", msg);
			rc = -1;
		} else if (r.status != 200) {
			msg = hub_http_error(r.status, r.error_code, o->repo, o->revision, NULL, o->token != NULL);
			say(f, "%s", msg);
			rc = -1;
		} else if (hub_listing_parse(&f->list, r.body.s ? r.body.s : "", r.body.len, &msg)) {
			say(f, "%s", msg);
			rc = -1;
		} else {
			char *next = hub_next_url(o->endpoint, r.link, &msg);
			if (msg) {
				say(f, "%s", msg);
				rc = -1;
			} else if (next && !strcmp(next, url)) {
				say(f, "%s", "the file listing's next page is the same page; giving up");
				rc = -1;
			}
			free(url);
			url = next;
		}
		free(msg);
		msg = NULL;
		resp_free(&r);
	}
	free(url);
	hub_listing_finish(&f->list);
	return rc;
}

/* ---- planning: what is already here ---------------------------------------- */

/* 1 when the local digest matches what the listing says of the file. */
static int matches(const struct hub_file *hf, long long size, const char *sha256, const char *sha1)
{
	if (size != hf->size)
		return 0;
	if (hf->sha256[0])
		return !strcmp(hf->sha256, sha256);
	if (hf->gitsha1[0])
		return !strcmp(hf->gitsha1, sha1);
	return 1;    /* the listing gives no checksum: the size is all we can check */
}

static void job_fail(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void job_fail(struct job *j, const char *fmt, ...)
{
	va_list ap;
	char *m;
	va_start(ap, fmt);
	if (vasprintf(&m, fmt, ap) < 0)
		abort();
	va_end(ap);
	say(j->f, "%s", m);
	free(m);
	j->state = J_FAILED;
	j->f->st->failed++;
	j->f->files_done++;
}

static char *io_error(const char *path, int e)
{
	char *p = shown(path), *m;
	if (is_disk_full(e))
		m = xasprintf("disk full writing %s: free some space and run kbtui fetch again (it resumes)", p);
	else
		m = xasprintf("cannot write %s: %s", p, strerror(e));
	free(p);
	return m;
}

/* Verifies a complete .part and gives it its final name. */
static void job_finish(struct job *j)
{
	char s256[65], s1[41];
	struct fetcher *f = j->f;
	const struct hub_file *hf = j->hf;

	digest_end(&j->dg, s256, s1);
	if (!matches(hf, j->have, s256, s1)) {
		char *p = shown(hf->path);
		unlink(j->part);
		if (j->resumed && !j->restarted) {
			/* the .part may hold the start of an older version: once more, whole */
			say(f, "%s: checksum mismatch after resuming; downloading it again whole", p);
			j->restarted = 1;
			j->have = 0;
			j->resumed = 0;
			digest_reset(&j->dg, hf->size);
			f->total_bytes += hf->size;
			j->state = J_WAIT;
			free(p);
			return;
		}
		if (hf->sha256[0])
			job_fail(j, "%s: checksum mismatch: sha256 %s, the Hub lists %s; the download was removed", p,
			         s256, hf->sha256);
		else if (hf->gitsha1[0])
			job_fail(j, "%s: checksum mismatch: git blob id %s, the Hub lists %s; the download was removed", p,
			         s1, hf->gitsha1);
		else
			job_fail(j, "%s: %lld bytes, the Hub lists %lld; the download was removed", p, j->have, hf->size);
		free(p);
		return;
	}
	if (rename(j->part, j->final) != 0) {
		char *m = io_error(j->final, errno);
		job_fail(j, "%s", m);
		free(m);
		return;
	}
	memcpy(j->sha256, s256, sizeof s256);
	j->state = J_DONE;
	f->st->fetched++;
	f->files_done++;
}

/* Decides what to do with one listed file given what is on disk. */
static void job_plan(struct job *j)
{
	struct fetcher *f = j->f;
	const struct hub_file *hf = j->hf;
	struct stat st;

	if (stat(j->final, &st) == 0) {
		char s256[65], s1[41];
		struct digest d = {0};
		if (!S_ISREG(st.st_mode)) {
			char *p = shown(hf->path);
			job_fail(j, "%s: exists here and is not a regular file", p);
			free(p);
			return;
		}
		digest_reset(&d, st.st_size);
		long long got = digest_file(&d, j->final, st.st_size);
		digest_end(&d, s256, s1);
		digest_free(&d);
		if (got == st.st_size && matches(hf, got, s256, s1)) {
			unlink(j->part);      /* a stale one from an interrupted update */
			memcpy(j->sha256, s256, sizeof s256);
			j->state = J_SKIP;
			f->st->uptodate++;
			f->files_done++;
			return;
		}
		const struct mentry *m = manifest_find(&f->man, hf->path);
		if (!m || got != st.st_size || m->size != got || strcmp(m->sha256, s256)) {
			/* not what kbtui fetch wrote: someone's work, keep it */
			char *p = shown(hf->path);
			say(f, "kept %s: it differs from the Hub's copy and is not what kbtui fetch wrote (changed here?); "
			       "remove it to fetch the Hub's", p);
			free(p);
			j->state = J_SKIP;
			f->st->kept++;
			f->files_done++;
			return;
		}
	}
	/* a .part left by an interrupted run: resume after what it holds */
	digest_reset(&j->dg, hf->size);
	j->have = 0;
	if (stat(j->part, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		if (st.st_size <= hf->size && digest_file(&j->dg, j->part, st.st_size) == st.st_size) {
			j->have = st.st_size;
			j->resumed = 1;
		} else {
			unlink(j->part);
			digest_reset(&j->dg, hf->size);
		}
	}
	f->total_bytes += hf->size - j->have;
	if (j->have == hf->size && hf->size > 0) {
		job_finish(j);
		return;
	}
	j->state = J_WAIT;
}

/* ---- transfers ---------------------------------------------------------------- */

static size_t job_header(char *data, size_t sz, size_t nm, void *ud)
{
	struct job *j = ud;
	int seen = 0;
	header_line(data, sz * nm, &seen, j->error_code, sizeof j->error_code, NULL, &j->range_start);
	return sz * nm;
}

/* The first bytes of a response: is it the part we asked for? */
static int job_body_start(struct job *j)
{
	long st = 0;
	curl_easy_getinfo(j->h, CURLINFO_RESPONSE_CODE, &st);
	j->status = (int)st;
	j->body = 1;
	if (st == 206 && j->range_start != j->from) {
		j->abort_why = "the server answered another byte range than asked";
		return -1;
	}
	if (st == 200 && j->from > 0) {
		/* the server ignored the Range: take the whole file */
		if (ftruncate(j->fd, 0) != 0 && errno != EINVAL) {
			j->werrno = errno;
			return -1;
		}
		j->f->total_bytes += j->from;
		j->have = j->from = 0;
		digest_reset(&j->dg, j->hf->size);
	}
	return 0;
}

static size_t job_write(char *data, size_t sz, size_t nm, void *ud)
{
	struct job *j = ud;
	size_t n = sz * nm, off = 0;

	if (!j->body && job_body_start(j))
		return 0;
	if (j->status != 200 && j->status != 206)
		return n;     /* an error page: the status says it all */
	if (j->have + (long long)n > j->hf->size) {
		j->abort_why = "the server sent more bytes than the listing's size";
		return 0;
	}
	while (off < n) {
		ssize_t w = write(j->fd, data + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			j->werrno = w < 0 ? errno : EIO;
			return 0;
		}
		off += (size_t)w;
	}
	digest_add(&j->dg, data, n);
	j->have += (long long)n;
	j->f->done_bytes += (long long)n;
	j->f->st->bytes += (long long)n;
	return n;
}

static int job_start(struct job *j)
{
	struct fetcher *f = j->f;
	char *dir = xstrdup(j->final), *slash = strrchr(dir, '/');
	if (slash)
		*slash = '\0';
	if (mkdirs(dir) != 0) {
		char *m = io_error(dir, errno);
		if (is_disk_full(errno))
			f->stop = 1;
		free(dir);
		job_fail(j, "%s", m);
		free(m);
		return -1;
	}
	free(dir);
	/* O_NONBLOCK: a FIFO someone left under that name fails instead of hanging */
	j->fd = open(j->part, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NONBLOCK | (j->have ? 0 : O_TRUNC), 0644);
	if (j->fd < 0) {
		char *m = io_error(j->part, errno);
		if (is_disk_full(errno))
			f->stop = 1;
		job_fail(j, "%s", m);
		free(m);
		return -1;
	}
	char *url = hub_resolve_url(f->o->endpoint, f->o->repo, f->rev, j->hf->path);
	j->h = curl_easy_init();
	if (!j->h)
		abort();
	easy_common(f, j->h, url, j->errbuf);
	free(url);
	curl_easy_setopt(j->h, CURLOPT_WRITEFUNCTION, job_write);
	curl_easy_setopt(j->h, CURLOPT_WRITEDATA, j);
	curl_easy_setopt(j->h, CURLOPT_HEADERFUNCTION, job_header);
	curl_easy_setopt(j->h, CURLOPT_HEADERDATA, j);
	curl_easy_setopt(j->h, CURLOPT_PRIVATE, j);
	j->from = j->have;
	if (j->have > 0) {
		char range[32];
		snprintf(range, sizeof range, "%lld-", j->have);
		curl_easy_setopt(j->h, CURLOPT_RANGE, range);   /* copied by libcurl */
		j->resumed = 1;
	}
	j->status = 0;
	j->body = 0;
	j->range_start = -1;
	j->error_code[0] = '\0';
	j->werrno = 0;
	j->abort_why = NULL;
	j->requests++;
	j->state = J_RUN;
	curl_multi_add_handle(f->multi, j->h);
	f->active++;
	return 0;
}

/* Tries again later: at once after a request that brought bytes, after a
 * growing pause otherwise. Returns -1 when out of tries. */
static int job_retry(struct job *j, int progressed)
{
	j->tries = progressed ? 0 : j->tries + 1;
	if (j->tries >= MAX_TRIES || j->requests >= MAX_REQUESTS)
		return -1;
	j->not_before = util_now() + (j->tries ? 0.5 * (1 << (j->tries - 1)) : 0);
	j->state = J_WAIT;
	return 0;
}

static void job_done(struct job *j, CURLcode rc)
{
	struct fetcher *f = j->f;
	long st = 0;
	char *url = NULL, *p;
	int progressed = j->have > j->from;

	curl_easy_getinfo(j->h, CURLINFO_RESPONSE_CODE, &st);
	curl_easy_getinfo(j->h, CURLINFO_EFFECTIVE_URL, &url);
	char *where = xstrdup(url ? url : "?");
	curl_multi_remove_handle(f->multi, j->h);
	curl_easy_cleanup(j->h);
	j->h = NULL;
	f->active--;
	if (close(j->fd) != 0 && !j->werrno && rc == CURLE_OK)
		j->werrno = errno;
	j->fd = -1;
	p = shown(j->hf->path);

	if (j->werrno) {
		char *m = io_error(j->part, j->werrno);
		if (is_disk_full(j->werrno))
			f->stop = 1;
		job_fail(j, "%s", m);     /* the .part stays: the next run resumes it */
		free(m);
	} else if (j->abort_why || (rc == CURLE_OK && st == 416)) {
		/* the .part and the server disagree: start over once */
		const char *why = j->abort_why ? j->abort_why : "the server has fewer bytes than the .part";
		unlink(j->part);
		if (!j->restarted) {
			j->restarted = 1;
			j->have = 0;
			j->resumed = 0;
			digest_reset(&j->dg, j->hf->size);
			j->state = J_WAIT;
		} else {
			job_fail(j, "%s: %s", p, why);
		}
	} else if (rc == CURLE_OK && (st == 200 || st == 206)) {
		if (j->have == j->hf->size)
			job_finish(j);
		else if (job_retry(j, progressed))
			job_fail(j, "%s: the server keeps closing the connection early (%lld of %lld bytes)", p, j->have,
			         j->hf->size);
	} else if (rc == CURLE_OK) {
		if ((st == 429 || st >= 500) && job_retry(j, 0) == 0) {
			/* retried */
		} else {
			char *m = hub_http_error((int)st, j->error_code, f->o->repo, f->o->revision, j->hf->path,
			                         f->o->token != NULL);
			job_fail(j, "%s", m);
			free(m);
			if (st == 401 || st == 403)
				f->stop = 1;      /* every other file would say the same */
		}
	} else if (transient(rc) && job_retry(j, progressed) == 0) {
		/* retried */
	} else {
		char *m = net_error(rc, where, j->errbuf);
		job_fail(j, "%s: %s", p, m);
		free(m);
		if (transient(rc))
			f->stop = 1;          /* the network is gone: do not try every file */
	}
	if (j->state == J_FAILED && j->have == 0)
		unlink(j->part);      /* nothing in it worth resuming */
	free(p);
	free(where);
}

/* When the earliest waiting job may start, -1 when none waits. */
static double next_start(const struct fetcher *f)
{
	double t = -1;
	for (size_t i = 0; i < f->njobs; i++)
		if (f->jobs[i].state == J_WAIT && (t < 0 || f->jobs[i].not_before < t))
			t = f->jobs[i].not_before;
	return t;
}

/* The loop: starts what may start, lets libcurl move bytes, handles what
 * finished, draws progress; until nothing is running or waiting. */
static void run_transfers(struct fetcher *f)
{
	for (;;) {
		double t = util_now();
		for (size_t i = 0; i < f->njobs && f->active < f->o->jobs; i++) {
			struct job *j = &f->jobs[i];
			if (j->state != J_WAIT || (!f->stop && j->not_before > t))
				continue;
			if (f->stop) {
				j->state = J_FAILED;
				f->st->failed++;
				f->files_done++;
				f->stopped++;
			} else {
				job_start(j);
			}
		}
		int running = 0, left;
		CURLMsg *m;
		curl_multi_perform(f->multi, &running);
		while ((m = curl_multi_info_read(f->multi, &left))) {
			struct job *j = NULL;
			if (m->msg != CURLMSG_DONE)
				continue;
			curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&j);
			job_done(j, m->data.result);
		}
		draw_progress(f, 0);
		double next = next_start(f), wait = 0.1;
		if (next >= 0 && f->active < f->o->jobs) {
			wait = f->stop ? 0 : next - util_now();
			if (wait <= 0)
				continue;         /* a slot is free and a file is ready */
			if (wait > 0.1)
				wait = 0.1;
		}
		if (f->active) {
			curl_multi_poll(f->multi, NULL, 0, (int)(wait * 1000) + 1, NULL);
		} else if (next >= 0) {
			struct timespec ts = {0, (long)(wait * 1e9)};
			nanosleep(&ts, NULL);
		} else {
			break;
		}
	}
}

/* ---- bookkeeping -------------------------------------------------------------- */

/* Records what kbtui fetch wrote, atomically; entries of files not
 * verified this run keep their old line. */
static void manifest_save(struct fetcher *f, const char *dir)
{
	char *path = util_path_join(dir, "manifest");
	struct sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, "# kbtui fetch: sha256 size path of each file as written (%s at %s)\n", f->o->repo, f->rev);
	for (size_t i = 0; i < f->njobs; i++) {
		const struct job *j = &f->jobs[i];
		const struct mentry *m = manifest_find(&f->man, j->hf->path);
		if (j->sha256[0])
			sbuf_addf(&b, "%s %lld %s\n", j->sha256, j->hf->size, j->hf->path);
		else if (m)
			sbuf_addf(&b, "%s %lld %s\n", m->sha256, m->size, m->path);
	}
	if (safefile_write(path, b.s, b.len, 0644, 1) < 0)
		say(f, "cannot write %s: %s", path, strerror(errno));
	sbuf_free(&b);
	free(path);
}

/* Only one kbtui fetch writes a destination at a time. Returns the lock's
 * descriptor, -1 after a message. */
static int take_lock(struct fetcher *f, const char *dir)
{
	char *path = util_path_join(dir, "lock");
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		char *m = io_error(path, errno);
		say(f, "%s", m);
		free(m);
	} else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		char *d = shown(f->o->dest);
		say(f, "another kbtui fetch is writing %s", d);
		free(d);
		close(fd);
		fd = -1;
	}
	free(path);
	return fd;
}

static void summary(struct fetcher *f)
{
	const struct fetch_stats *s = f->st;
	char *d = shown(f->o->dest), *r = shown(f->o->revision), bytes[32];
	char commit[16] = "";
	if (hub_is_commit(f->rev) && strcmp(f->rev, f->o->revision))
		snprintf(commit, sizeof commit, " (%.7s)", f->rev);
	human(s->bytes, bytes, sizeof bytes);
	fprintf(f->out, "%s at %s%s: ", f->o->repo, r, commit);
	if (!s->fetched && !s->kept && !s->failed && !s->refused)
		fprintf(f->out, "all %zu files up to date in %s\n", s->files, d);
	else {
		fprintf(f->out, "fetched %zu files (%s) into %s, %zu up to date", s->fetched, bytes, d, s->uptodate);
		if (s->kept)
			fprintf(f->out, ", %zu kept with local changes", s->kept);
		if (s->failed)
			fprintf(f->out, ", %zu failed", s->failed);
		if (s->refused)
			fprintf(f->out, ", %zu refused", s->refused);
		fputc('\n', f->out);
	}
	fflush(f->out);
	free(d);
	free(r);
}

/* ---- the whole run ------------------------------------------------------------- */

static int fetch_files(struct fetcher *f)
{
	const struct fetch_opts *o = f->o;
	char *meta = util_path_join(o->dest, META_DIR), *mpath;
	int lock;

	if (mkdirs(meta) != 0) {
		char *m = io_error(meta, errno);
		say(f, "%s", m);
		free(m);
		free(meta);
		return -1;
	}
	if ((lock = take_lock(f, meta)) < 0) {
		free(meta);
		return -1;
	}
	mpath = util_path_join(meta, "manifest");
	manifest_load(&f->man, mpath);
	free(mpath);

	f->njobs = f->list.n;
	f->jobs = xcalloc(f->njobs + 1, sizeof *f->jobs);
	for (size_t i = 0; i < f->njobs; i++) {
		struct job *j = &f->jobs[i];
		const char *path = f->list.files[i].path, *slash = strrchr(path, '/');
		j->f = f;
		j->hf = &f->list.files[i];
		j->fd = -1;
		j->final = util_path_join(o->dest, path);
		if (slash)
			j->part = xasprintf("%s/%.*s/.%s.part", o->dest, (int)(slash - path), path, slash + 1);
		else
			j->part = xasprintf("%s/.%s.part", o->dest, path);
	}
	for (size_t i = 0; i < f->njobs; i++)
		job_plan(&f->jobs[i]);

	f->multi = curl_multi_init();
	if (!f->multi)
		abort();
	f->t0 = util_now();
	run_transfers(f);
	curl_multi_cleanup(f->multi);
	clear_progress(f);
	if (f->stopped)
		say(f, "stopped: %zu more files not fetched; run kbtui fetch again to resume", f->stopped);

	manifest_save(f, meta);
	free(meta);
	close(lock);
	return 0;
}

int fetch_run(const struct fetch_opts *o, struct fetch_stats *st, FILE *out, FILE *err)
{
	struct fetcher f;
	int rc = 1;

	memset(&f, 0, sizeof f);
	memset(st, 0, sizeof *st);
	f.o = o;
	f.st = st;
	f.out = out;
	f.err = err;
	f.progress = o->progress;
	f.protocols = strncasecmp(o->endpoint, "https://", 8) ? "http,https" : "https";
	hub_listing_init(&f.list);
	if (o->token) {
		char *h = xasprintf("Authorization: Bearer %s", o->token);
		f.headers = curl_slist_append(NULL, h);
		/* the header's copy is libcurl's; ours leaves no trace behind */
		memset(h, 0, strlen(h));
		free(h);
		if (!f.headers)
			abort();
	}

	if (resolve_revision(&f) == 0 && list_files(&f) == 0) {
		st->files = f.list.n;
		st->refused = f.list.nrefused;
		for (size_t i = 0; i < f.list.nrefused && i < HUB_MAX_REFUSED; i++)
			say(&f, "listing: %s", f.list.refused[i]);
		if (f.list.nrefused > HUB_MAX_REFUSED)
			say(&f, "listing: %zu more entries refused", f.list.nrefused - HUB_MAX_REFUSED);
		if (fetch_files(&f) == 0) {
			if (!o->quiet)
				summary(&f);
			rc = st->failed || st->refused || st->fetched + st->uptodate + st->kept != st->files;
		}
	}

	for (size_t i = 0; i < f.njobs; i++) {
		free(f.jobs[i].final);
		free(f.jobs[i].part);
		digest_free(&f.jobs[i].dg);
	}
	free(f.jobs);
	manifest_free(&f.man);
	hub_listing_free(&f.list);
	curl_slist_free_all(f.headers);
	free(f.rev);
	return rc;
}

char *fetch_default_dest(const char *repo)
{
	const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
	const char *name = strrchr(repo, '/');
	name = name ? name + 1 : repo;
	/* the same rule as dataset_default_dir, so that `kbtui` finds it */
	if (xdg && *xdg)
		return xasprintf("%s/kbtui/%s", xdg, name);
	if (home && *home)
		return xasprintf("%s/.local/share/kbtui/%s", home, name);
	return NULL;
}
