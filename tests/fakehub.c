/* fakehub.c: a fake Hugging Face Hub for the tests of `kbtui fetch`.
 * Serves one directory as a dataset repo on 127.0.0.1, at a port it picks
 * and prints as "port=N", through the routes kbtui uses:
 *
 *   GET /api/datasets/<repo>/revision/<rev>       {"id", "sha"}
 *   GET /api/datasets/<repo>/tree/<rev>?recursive=true[&cursor=N]
 *       entries {type, path, size, oid, lfs: {oid, size, pointerSize}},
 *       --page-size per page, the next behind a Link header
 *   GET /datasets/<repo>/resolve/<rev>/<path>      the bytes, Range: bytes=N-
 *
 * Fault modes: --drop-after BYTES (the first response for each file closes
 * after that many body bytes), --require-token TOKEN (401 without it),
 * --slow MS (pause before each --chunk of body), --bad-sha PATH (lies about
 * that file's checksum), --redirect (resolve answers 302 to /cdn/...),
 * --no-range (ignores Range), --inject-path PATH (lists a file that must
 * never be fetched), --busy N (the first N requests get 503). --log FILE gets one line per request: method, target,
 * range start, auth. One process per connection; the server and its
 * children exit after --timeout seconds (120) whatever happens. */
#include "util.h"

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include <arpa/inet.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct entry {
	char *path;               /* relative to the served directory */
	int is_dir;
	long long size;
	char sha256[65], gitsha1[41], lfsoid[41];
};

static struct {
	const char *root, *repo, *rev, *commit, *token, *bad_sha, *inject, *log;
	long long drop_after, lfs_min;
	int page, slow_ms, chunk, redirect, no_range, timeout, port, busy;
	int *served;              /* shared: requests answered so far */
	struct entry *e;
	size_t n, cap;
	unsigned char *dropped;   /* shared with the children: file already dropped once */
} hub = {
	.repo = "Infatoshi/kernelbench-hard-runs",
	.rev = "main",
	.commit = "0123456789abcdef0123456789abcdef01234567",
	.drop_after = -1,
	.page = 1000,
	.chunk = 16384,
	.timeout = 120,
};

/* ---- the served tree ------------------------------------------------------ */

static void hexs(const unsigned char *d, unsigned n, char *out)
{
	for (unsigned i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", d[i]);
}

static void digest(const char *data, size_t len, char sha256[65], char gitsha1[41])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned n;
	char hdr[40];
	int hl = snprintf(hdr, sizeof hdr, "blob %zu", len) + 1;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	EVP_DigestInit_ex(c, EVP_sha256(), NULL);
	EVP_DigestUpdate(c, data, len);
	EVP_DigestFinal_ex(c, md, &n);
	hexs(md, n, sha256);
	EVP_DigestInit_ex(c, EVP_sha1(), NULL);
	EVP_DigestUpdate(c, hdr, (size_t)hl);
	EVP_DigestUpdate(c, data, len);
	EVP_DigestFinal_ex(c, md, &n);
	hexs(md, n, gitsha1);
	EVP_MD_CTX_free(c);
}

static struct entry *add_entry(const char *rel, int is_dir)
{
	if (hub.n == hub.cap)
		hub.e = xrealloc(hub.e, (hub.cap = hub.cap ? hub.cap * 2 : 256) * sizeof *hub.e);
	struct entry *e = &hub.e[hub.n++];
	memset(e, 0, sizeof *e);
	e->path = xstrdup(rel);
	e->is_dir = is_dir;
	return e;
}

static void hash_entry(struct entry *e, const char *data, size_t len)
{
	char ptr[256], s[65];
	e->size = (long long)len;
	digest(data, len, e->sha256, e->gitsha1);
	/* an LFS file's own oid is the git blob id of its pointer file */
	snprintf(ptr, sizeof ptr, "version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %zu\n", e->sha256,
	         len);
	digest(ptr, strlen(ptr), s, e->lfsoid);
}

static void scan(const char *rel)
{
	char *dir = *rel ? util_path_join(hub.root, rel) : xstrdup(hub.root);
	DIR *d = opendir(dir);
	struct dirent *de;
	if (!d) {
		perror(dir);
		exit(2);
	}
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		char *r = *rel ? xasprintf("%s/%s", rel, de->d_name) : xstrdup(de->d_name);
		char *full = util_path_join(hub.root, r);
		struct stat st;
		if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
			add_entry(r, 1);
			scan(r);
		} else if (S_ISREG(st.st_mode)) {
			size_t len;
			char *data = util_read_file(full, &len);
			if (data)
				hash_entry(add_entry(r, 0), data, len);
			free(data);
		}
		free(full);
		free(r);
	}
	closedir(d);
	free(dir);
}

static int cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path, ((const struct entry *)b)->path);
}

static struct entry *find_file(const char *path)
{
	for (size_t i = 0; i < hub.n; i++)
		if (!hub.e[i].is_dir && !strcmp(hub.e[i].path, path))
			return &hub.e[i];
	return NULL;
}

/* ---- HTTP ------------------------------------------------------------------- */

struct req {
	char method[8];
	char target[8192];
	long long range;          /* -1 when none */
	char auth[512];
};

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static void reply(int fd, int status, const char *reason, const char *extra_headers, const char *ctype,
                  const char *body, size_t len, int head)
{
	char *h = xasprintf("HTTP/1.1 %d %s\r\nContent-Length: %zu\r\nContent-Type: %s\r\nConnection: close\r\n%s\r\n",
	                    status, reason, len, ctype, extra_headers ? extra_headers : "");
	send_all(fd, h, strlen(h));
	free(h);
	if (!head && len)
		send_all(fd, body, len);
}

static void reply_error(int fd, int status, const char *reason, const char *code, const char *msg, int head)
{
	char *hdr = code ? xasprintf("X-Error-Code: %s\r\nX-Error-Message: %s\r\n", code, msg)
	                 : xasprintf("X-Error-Message: %s\r\n", msg);
	char *body = xasprintf("{\"error\":\"%s\"}", msg);
	reply(fd, status, reason, hdr, "application/json", body, strlen(body), head);
	free(hdr);
	free(body);
}

static void log_request(const struct req *r, const char *auth)
{
	if (!hub.log)
		return;
	char range[32] = "-";
	if (r->range >= 0)
		snprintf(range, sizeof range, "%lld", r->range);
	char *line = xasprintf("%s %s range=%s auth=%s\n", r->method, r->target, range, auth);
	int fd = open(hub.log, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd >= 0) {
		if (write(fd, line, strlen(line)) < 0)
			perror(hub.log);
		close(fd);
	}
	free(line);
}

static int read_request(int fd, struct req *r)
{
	char buf[16384];
	size_t n = 0;
	memset(r, 0, sizeof *r);
	r->range = -1;
	while (n < sizeof buf - 1) {
		ssize_t k = recv(fd, buf + n, sizeof buf - 1 - n, 0);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		n += (size_t)k;
		buf[n] = '\0';
		if (strstr(buf, "\r\n\r\n"))
			break;
	}
	if (sscanf(buf, "%7s %8191s", r->method, r->target) != 2)
		return -1;
	for (char *l = strstr(buf, "\r\n"); l && l[2]; l = strstr(l + 2, "\r\n")) {
		char *h = l + 2;
		if (!strncasecmp(h, "Range: bytes=", 13))
			r->range = strtoll(h + 13, NULL, 10);
		else if (!strncasecmp(h, "Authorization: ", 15))
			sscanf(h + 15, "%511[^\r]", r->auth);
	}
	return 0;
}

static char *pct_decode(const char *s, size_t n)
{
	char *o = xmalloc(n + 1), *w = o;
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && isxdigit((unsigned char)s[i + 1]) && isxdigit((unsigned char)s[i + 2])) {
			char h[3] = {s[i + 1], s[i + 2], 0};
			*w++ = (char)strtol(h, NULL, 16);
			i += 2;
		} else {
			*w++ = s[i];
		}
	}
	*w = '\0';
	return o;
}

/* ---- routes ------------------------------------------------------------------ */

static int rev_ok(const char *rev)
{
	return !strcmp(rev, hub.rev) || !strcmp(rev, hub.commit);
}

static void route_revision(int fd, const char *rev, int head)
{
	if (!rev_ok(rev)) {
		reply_error(fd, 404, "Not Found", "RevisionNotFound", "Invalid rev id", head);
		return;
	}
	char *body = xasprintf("{\"id\":\"%s\",\"sha\":\"%s\",\"private\":false,\"siblings\":[]}", hub.repo, hub.commit);
	reply(fd, 200, "OK", NULL, "application/json", body, strlen(body), head);
	free(body);
}

static void add_file_entry(cJSON *arr, const char *path, long long size, const char *sha256, const char *gitsha1,
                           const char *lfsoid)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "type", "file");
	cJSON_AddStringToObject(o, "oid", size >= hub.lfs_min ? lfsoid : gitsha1);
	cJSON_AddNumberToObject(o, "size", (double)size);
	cJSON_AddStringToObject(o, "path", path);
	if (size >= hub.lfs_min) {
		cJSON *l = cJSON_AddObjectToObject(o, "lfs");
		cJSON_AddStringToObject(l, "oid", sha256);
		cJSON_AddNumberToObject(l, "size", (double)size);
		cJSON_AddNumberToObject(l, "pointerSize", 132);
	}
	cJSON_AddItemToArray(arr, o);
}

static void route_tree(int fd, const char *rawrev, const char *rev, const char *query, int head)
{
	long start = 0;
	const char *c = query ? strstr(query, "cursor=") : NULL;
	if (!rev_ok(rev)) {
		reply_error(fd, 404, "Not Found", "RevisionNotFound", "Invalid rev id", head);
		return;
	}
	if (c)
		start = strtol(c + 7, NULL, 10);
	size_t total = hub.n + (hub.inject ? 1 : 0);
	cJSON *arr = cJSON_CreateArray();
	for (size_t i = (size_t)start; i < total && i < (size_t)start + (size_t)hub.page; i++) {
		if (i == hub.n) {
			char s256[65], s1[41];
			digest("evil\n", 5, s256, s1);
			add_file_entry(arr, hub.inject, 5, s256, s1, s1);
			continue;
		}
		struct entry *e = &hub.e[i];
		if (e->is_dir) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "type", "directory");
			cJSON_AddStringToObject(o, "oid", "4b825dc642cb6eb9a060e54bf8d69288fbee4904");
			cJSON_AddNumberToObject(o, "size", 0);
			cJSON_AddStringToObject(o, "path", e->path);
			cJSON_AddItemToArray(arr, o);
			continue;
		}
		char s256[65], s1[41];
		strcpy(s256, e->sha256);
		strcpy(s1, e->gitsha1);
		if (hub.bad_sha && !strcmp(hub.bad_sha, e->path)) {
			s256[63] = s256[63] == '0' ? '1' : '0';
			s1[39] = s1[39] == '0' ? '1' : '0';
		}
		add_file_entry(arr, e->path, e->size, s256, s1, e->lfsoid);
	}
	char *body = cJSON_PrintUnformatted(arr);
	cJSON_Delete(arr);
	char *link = NULL;
	if ((size_t)start + (size_t)hub.page < total)
		link = xasprintf("Link: <http://127.0.0.1:%d/api/datasets/%s/tree/%s?recursive=true&cursor=%ld>; "
		                 "rel=\"next\"\r\n",
		                 hub.port, hub.repo, rawrev, start + hub.page);
	reply(fd, 200, "OK", link, "application/json", body, strlen(body), head);
	free(link);
	free(body);
}

static int first_time(struct entry *e)
{
	size_t i = (size_t)(e - hub.e);
	return __atomic_exchange_n(&hub.dropped[i], 1, __ATOMIC_SEQ_CST) == 0;
}

static void serve_file(int fd, struct entry *e, long long range, int head)
{
	char *full = util_path_join(hub.root, e->path), *hdr;
	size_t len;
	char *data = util_read_file(full, &len);
	long long from = 0;
	int status = 200;
	free(full);
	if (!data) {
		reply_error(fd, 500, "Internal Server Error", NULL, "cannot read", head);
		return;
	}
	if (range >= 0 && !hub.no_range) {
		if (range >= (long long)len && len > 0) {
			hdr = xasprintf("Content-Range: bytes */%zu\r\n", len);
			reply(fd, 416, "Range Not Satisfiable", hdr, "text/plain", "", 0, head);
			free(hdr);
			free(data);
			return;
		}
		from = range;
		status = 206;
	}
	hdr = status == 206 ? xasprintf("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes %lld-%zu/%zu\r\n", from,
	                                len ? len - 1 : 0, len)
	                    : xstrdup("HTTP/1.1 200 OK\r\n");
	char *all = xasprintf("%sContent-Length: %lld\r\nContent-Type: application/octet-stream\r\nAccept-Ranges: "
	                      "bytes\r\nX-Repo-Commit: %s\r\nConnection: close\r\n\r\n",
	                      hdr, (long long)len - from, hub.commit);
	send_all(fd, all, strlen(all));
	free(all);
	free(hdr);
	if (!head) {
		long long left = (long long)len - from, sent = 0;
		long long cut = (hub.drop_after >= 0 && left > hub.drop_after && first_time(e)) ? hub.drop_after : -1;
		while (sent < left) {
			long long k = left - sent < hub.chunk ? left - sent : hub.chunk;
			if (cut >= 0 && sent + k > cut)
				k = cut - sent;
			if (hub.slow_ms) {
				struct timespec ts = {hub.slow_ms / 1000, (hub.slow_ms % 1000) * 1000000L};
				nanosleep(&ts, NULL);
			}
			if (k > 0 && send_all(fd, data + from + sent, (size_t)k))
				break;
			sent += k;
			if (cut >= 0 && sent >= cut)
				break;     /* drop the connection mid-file */
		}
	}
	free(data);
}

static void handle(int fd)
{
	struct req r;
	const char *auth = "none";
	if (read_request(fd, &r))
		return;
	int head = !strcmp(r.method, "HEAD");
	if (r.auth[0])
		auth = hub.token && !strncmp(r.auth, "Bearer ", 7) && !strcmp(r.auth + 7, hub.token) ? "ok" : "bad";
	log_request(&r, auth);
	if (__atomic_fetch_add(hub.served, 1, __ATOMIC_SEQ_CST) < hub.busy) {
		reply_error(fd, 503, "Service Unavailable", NULL, "busy", head);
		return;
	}
	if (strcmp(r.method, "GET") && !head) {
		reply_error(fd, 405, "Method Not Allowed", NULL, "GET only", 0);
		return;
	}
	char *q = strchr(r.target, '?');
	const char *query = q ? q + 1 : NULL;
	if (q)
		*q = '\0';
	const char *p = r.target;

	if (!strncmp(p, "/cdn/", 5)) {
		const char *rest = p + 5, *slash = strchr(rest, '/');
		char *path = slash ? pct_decode(slash + 1, strlen(slash + 1)) : xstrdup("");
		struct entry *e = find_file(path);
		if (e)
			serve_file(fd, e, r.range, head);
		else
			reply_error(fd, 404, "Not Found", NULL, "no such object", head);
		free(path);
		return;
	}
	int api = !strncmp(p, "/api/datasets/", 14), res = !strncmp(p, "/datasets/", 10);
	if (!api && !res) {
		reply_error(fd, 404, "Not Found", NULL, "no such route", head);
		return;
	}
	if (hub.token && strcmp(auth, "ok")) {
		if (!strcmp(auth, "bad"))
			reply_error(fd, 401, "Unauthorized", NULL, "Invalid credentials in Authorization header", head);
		else
			reply_error(fd, 401, "Unauthorized", "RepoNotFound", "Repository not found", head);
		return;
	}
	const char *after = p + (api ? 14 : 10);
	size_t rl = strlen(hub.repo);
	if (strncmp(after, hub.repo, rl) || after[rl] != '/') {
		reply_error(fd, 404, "Not Found", "RepoNotFound", "Repository not found", head);
		return;
	}
	after += rl + 1;
	const char *verb = api ? (!strncmp(after, "revision/", 9) ? "revision/" : !strncmp(after, "tree/", 5) ? "tree/" : NULL)
	                       : (!strncmp(after, "resolve/", 8) ? "resolve/" : NULL);
	if (!verb) {
		reply_error(fd, 404, "Not Found", NULL, "no such route", head);
		return;
	}
	const char *rawrev = after + strlen(verb);
	size_t revlen = strcspn(rawrev, "/");
	char *rawcopy = xstrndup(rawrev, revlen);
	char *rev = pct_decode(rawrev, revlen);
	if (!strcmp(verb, "revision/")) {
		route_revision(fd, rev, head);
	} else if (!strcmp(verb, "tree/")) {
		route_tree(fd, rawcopy, rev, query, head);
	} else if (!rev_ok(rev)) {
		reply_error(fd, 404, "Not Found", "RevisionNotFound", "Invalid rev id", head);
	} else {
		const char *rp = rawrev + revlen;
		char *path = *rp == '/' ? pct_decode(rp + 1, strlen(rp + 1)) : xstrdup("");
		struct entry *e = find_file(path);
		if (!e) {
			reply_error(fd, 404, "Not Found", "EntryNotFound", "Entry not found", head);
		} else if (hub.redirect) {
			char *loc = xasprintf("Location: /cdn/%s/%s\r\n", hub.commit, rp + 1);
			reply(fd, 302, "Found", loc, "text/plain", "", 0, head);
			free(loc);
		} else {
			serve_file(fd, e, r.range, head);
		}
		free(path);
	}
	free(rev);
	free(rawcopy);
}

/* ---- main ------------------------------------------------------------------------ */

static void usage(void)
{
	fputs("usage: fakehub [--repo R] [--revision REV] [--commit SHA] [--page-size N] [--lfs-min BYTES]\n"
	      "               [--drop-after BYTES] [--require-token T] [--slow MS] [--chunk BYTES]\n"
	      "               [--bad-sha PATH] [--redirect] [--no-range] [--inject-path PATH]\n"
	      "               [--busy N] [--log FILE] [--timeout SEC] DIR\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	enum { O_REPO = 256, O_REV, O_COMMIT, O_PAGE, O_LFS, O_DROP, O_TOKEN, O_SLOW, O_CHUNK, O_BAD, O_REDIR,
	       O_NORANGE, O_INJECT, O_LOG, O_TIMEOUT, O_BUSY };
	static const struct option opts[] = {
		{"repo", 1, NULL, O_REPO}, {"revision", 1, NULL, O_REV}, {"commit", 1, NULL, O_COMMIT},
		{"page-size", 1, NULL, O_PAGE}, {"lfs-min", 1, NULL, O_LFS}, {"drop-after", 1, NULL, O_DROP},
		{"require-token", 1, NULL, O_TOKEN}, {"slow", 1, NULL, O_SLOW}, {"chunk", 1, NULL, O_CHUNK},
		{"bad-sha", 1, NULL, O_BAD}, {"redirect", 0, NULL, O_REDIR}, {"no-range", 0, NULL, O_NORANGE},
		{"inject-path", 1, NULL, O_INJECT}, {"log", 1, NULL, O_LOG}, {"timeout", 1, NULL, O_TIMEOUT},
		{"busy", 1, NULL, O_BUSY},
		{NULL, 0, NULL, 0},
	};
	int ch;
	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case O_REPO: hub.repo = optarg; break;
		case O_REV: hub.rev = optarg; break;
		case O_COMMIT: hub.commit = optarg; break;
		case O_PAGE: hub.page = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
		case O_LFS: hub.lfs_min = atoll(optarg); break;
		case O_DROP: hub.drop_after = atoll(optarg); break;
		case O_TOKEN: hub.token = optarg; break;
		case O_SLOW: hub.slow_ms = atoi(optarg); break;
		case O_CHUNK: hub.chunk = atoi(optarg) > 0 ? atoi(optarg) : 1; break;
		case O_BAD: hub.bad_sha = optarg; break;
		case O_REDIR: hub.redirect = 1; break;
		case O_NORANGE: hub.no_range = 1; break;
		case O_INJECT: hub.inject = optarg; break;
		case O_LOG: hub.log = optarg; break;
		case O_BUSY: hub.busy = atoi(optarg); break;
		case O_TIMEOUT: hub.timeout = atoi(optarg) > 0 ? atoi(optarg) : 120; break;
		default: usage();
		}
	}
	if (optind != argc - 1)
		usage();
	hub.root = argv[optind];
	/* never linger: the whole server dies after the timeout */
	alarm((unsigned)hub.timeout);
	scan("");
	if (hub.n > 1)
		qsort(hub.e, hub.n, sizeof *hub.e, cmp_entry);
	/* one page shared with the children: a request counter, then one
	 * byte per file */
	char *shared = mmap(NULL, sizeof(int) * 2 + hub.n + 1, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	hub.served = (int *)(void *)shared;
	hub.dropped = (unsigned char *)shared + sizeof(int) * 2;

	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = 0};
	socklen_t al = sizeof a;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 64) ||
	    getsockname(s, (struct sockaddr *)&a, &al)) {
		perror("fakehub: socket");
		return 2;
	}
	hub.port = ntohs(a.sin_port);
	printf("port=%d\n", hub.port);
	fflush(stdout);
	signal(SIGCHLD, SIG_IGN);     /* children reap themselves */
	signal(SIGPIPE, SIG_IGN);
	pid_t parent = getpid();
	for (;;) {
		int c = accept(s, NULL, NULL);
		if (c < 0) {
			if (errno == EINTR)
				continue;
			perror("fakehub: accept");
			return 2;
		}
		pid_t pid = fork();
		if (pid == 0) {
			close(s);
			prctl(PR_SET_PDEATHSIG, SIGKILL);   /* die with the server */
			if (getppid() != parent)
				_exit(0);
			alarm((unsigned)hub.timeout);
			struct timeval tv = {10, 0};
			setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
			handle(c);
			shutdown(c, SHUT_RDWR);
			close(c);
			_exit(0);
		}
		close(c);
	}
}
