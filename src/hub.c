/* hub.c: URLs, listings and error meanings of the Hugging Face Hub API.
 * Pure functions over strings so that the tests (and a fuzzer) can drive
 * them without a network. */
#include "hub.h"
#include "jsonx.h"
#include "textsafe.h"
#include "util.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- names -------------------------------------------------------------- */

static int has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

/* A copy of untrusted text fit to print inside a message (owned). */
static char *shown(const char *s)
{
	return textsafe(s, strlen(s), 0);
}

static int is_hex(const char *s, size_t n)
{
	size_t i;
	for (i = 0; i < n && s[i]; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return i == n && s[n] == '\0';
}

static void lower_copy(char *dst, const char *src, size_t n)
{
	for (size_t i = 0; i < n; i++)
		dst[i] = (char)tolower((unsigned char)src[i]);
	dst[n] = '\0';
}

int hub_is_commit(const char *s)
{
	return s && is_hex(s, 40);
}

char *hub_endpoint(const char *env, char **err)
{
	const char *e = env && *env ? env : HUB_DEFAULT_ENDPOINT;
	size_t n = strlen(e);
	const char *host;

	*err = NULL;
	while (n && e[n - 1] == '/')
		n--;
	if (has_ctl(e) || strpbrk(e, " \t?#")) {
		*err = xstrdup("HF_ENDPOINT must be a plain URL (no spaces, control characters, query or fragment)");
		return NULL;
	}
	if (!strncasecmp(e, "https://", 8))
		host = e + 8;
	else if (!strncasecmp(e, "http://", 7))
		host = e + 7;
	else {
		char *s = shown(e);
		*err = xasprintf("HF_ENDPOINT '%s' is not an http:// or https:// URL", s);
		free(s);
		return NULL;
	}
	size_t hl = strcspn(host, "/");
	if (hl == 0 || (size_t)(host - e) + hl > n) {
		*err = xasprintf("HF_ENDPOINT '%s' has no host", e);
		return NULL;
	}
	if (memchr(host, '@', hl)) {
		*err = xstrdup("HF_ENDPOINT must not carry credentials (use HF_TOKEN)");
		return NULL;
	}
	return xstrndup(e, n);
}

/* One part of a repo id: what the Hub's own validation accepts. */
static int repo_part_ok(const char *s, size_t n)
{
	if (n == 0 || n > 96)
		return 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!isalnum(c) && c != '-' && c != '_' && c != '.')
			return 0;
		if (i + 1 < n && (c == '-' || c == '.') && s[i + 1] == c)
			return 0;     /* "--" and ".." are reserved */
	}
	return s[0] != '-' && s[0] != '.' && s[n - 1] != '-' && s[n - 1] != '.';
}

int hub_repo_check(const char *repo, char **err)
{
	const char *slash = repo ? strchr(repo, '/') : NULL;
	int ok;

	*err = NULL;
	if (!repo || !*repo) {
		*err = xstrdup("the repository id is empty");
		return -1;
	}
	if (slash)
		ok = repo_part_ok(repo, (size_t)(slash - repo)) &&
		     repo_part_ok(slash + 1, strlen(slash + 1));
	else
		ok = repo_part_ok(repo, strlen(repo));
	if (!ok || strlen(repo) > 96) {
		char *s = shown(repo);
		*err = xasprintf("'%s' is not a Hub repository id (owner/name: letters, digits, '-', '_', '.')", s);
		free(s);
		return -1;
	}
	return 0;
}

int hub_revision_check(const char *rev, char **err)
{
	*err = NULL;
	if (!rev || !*rev) {
		*err = xstrdup("the revision is empty");
		return -1;
	}
	if (strlen(rev) > 255 || has_ctl(rev) || strchr(rev, ' ')) {
		char *s = shown(rev);
		*err = xasprintf("'%.*s' is not a revision name (branch, tag or commit)", (int)textsafe_cut(s, strlen(s), 80), s);
		free(s);
		return -1;
	}
	return 0;
}

/* ---- URLs --------------------------------------------------------------- */

char *hub_escape(const char *s, int keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";
	struct sbuf b;
	sbuf_init(&b);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
			sbuf_addc(&b, (char)c);
		} else {
			sbuf_addc(&b, '%');
			sbuf_addc(&b, hex[c >> 4]);
			sbuf_addc(&b, hex[c & 15]);
		}
	}
	return sbuf_detach(&b);
}

char *hub_revision_url(const char *endpoint, const char *repo, const char *rev)
{
	char *r = hub_escape(rev, 0);
	char *u = xasprintf("%s/api/datasets/%s/revision/%s", endpoint, repo, r);
	free(r);
	return u;
}

char *hub_tree_url(const char *endpoint, const char *repo, const char *rev)
{
	char *r = hub_escape(rev, 0);
	char *u = xasprintf("%s/api/datasets/%s/tree/%s?recursive=true", endpoint, repo, r);
	free(r);
	return u;
}

char *hub_resolve_url(const char *endpoint, const char *repo, const char *rev, const char *path)
{
	char *r = hub_escape(rev, 0), *p = hub_escape(path, 1);
	char *u = xasprintf("%s/datasets/%s/resolve/%s/%s", endpoint, repo, r, p);
	free(r);
	free(p);
	return u;
}

/* Splits "scheme://host[:port]/..." into its origin; 0 ok, -1 when it is
 * not an http(s) URL or carries credentials. */
static int url_origin(const char *url, int *https, const char **host, size_t *hostlen, long *port,
                      size_t *originlen)
{
	const char *a;
	if (!strncasecmp(url, "https://", 8)) {
		*https = 1;
		a = url + 8;
	} else if (!strncasecmp(url, "http://", 7)) {
		*https = 0;
		a = url + 7;
	} else {
		return -1;
	}
	size_t alen = strcspn(a, "/?#");
	if (alen == 0 || memchr(a, '@', alen))
		return -1;
	*originlen = (size_t)(a - url) + alen;
	*host = a;
	*hostlen = alen;
	*port = *https ? 443 : 80;
	/* the port is after the last ':' unless that is inside [ipv6] */
	const char *colon = NULL;
	for (size_t i = 0; i < alen; i++) {
		if (a[i] == ']')
			colon = NULL;
		else if (a[i] == ':')
			colon = a + i;
	}
	if (colon && !(a[0] == '[' && memchr(colon, ']', (size_t)(a + alen - colon)))) {
		const char *d = colon + 1;
		size_t dl = (size_t)(a + alen - d);
		if (dl == 0 || dl > 5)
			return -1;
		long p = 0;
		for (size_t i = 0; i < dl; i++) {
			if (!isdigit((unsigned char)d[i]))
				return -1;
			p = p * 10 + (d[i] - '0');
		}
		if (p < 1 || p > 65535)
			return -1;
		*port = p;
		*hostlen = (size_t)(colon - a);
	}
	return *hostlen ? 0 : -1;
}

int hub_same_origin(const char *a, const char *b)
{
	int sa, sb;
	const char *ha, *hb;
	size_t la, lb, oa, ob;
	long pa, pb;
	if (!a || !b || url_origin(a, &sa, &ha, &la, &pa, &oa) || url_origin(b, &sb, &hb, &lb, &pb, &ob))
		return 0;
	return sa == sb && pa == pb && la == lb && !strncasecmp(ha, hb, la);
}

char *hub_origin(const char *url)
{
	int s;
	const char *h;
	size_t hl, ol;
	long p;
	if (!url || url_origin(url, &s, &h, &hl, &p, &ol) || has_ctl(url))
		return xstrdup("?");
	return xstrndup(url, ol);
}

/* ---- paths -------------------------------------------------------------- */

const char *hub_path_unsafe(const char *path)
{
	if (!path || !*path)
		return "empty path";
	if (strlen(path) > 4096)
		return "path too long";
	if (path[0] == '/')
		return "absolute path";
	if (has_ctl(path))
		return "control character in path";
	if (strchr(path, '\\'))
		return "backslash in path";
	for (const char *c = path;;) {
		size_t n = strcspn(c, "/");
		if (n == 0)
			return "empty path component";
		if (n == 1 && c[0] == '.')
			return "'.' component in path";
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return "'..' component in path";
		if (n > 255)
			return "path component too long";
		if (c[n] == '\0') {
			/* the last component: kbtui's own names are not the Hub's */
			if (c[0] == '.' && n > 6 && !memcmp(c + n - 5, ".part", 5))
				return "name of a partial download";
			break;
		}
		c += n + 1;
	}
	if (!strncmp(path, ".kbtui-fetch", 12) && (path[12] == '\0' || path[12] == '/'))
		return "kbtui's own bookkeeping directory";
	return NULL;
}

/* ---- listings ----------------------------------------------------------- */

void hub_listing_init(struct hub_listing *l)
{
	memset(l, 0, sizeof *l);
}

void hub_listing_free(struct hub_listing *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->files[i].path);
	free(l->files);
	for (size_t i = 0; i < l->nrefused && i < HUB_MAX_REFUSED; i++)
		free(l->refused[i]);
	free(l->refused);
	hub_listing_init(l);
}

static void refuse(struct hub_listing *l, const char *path, const char *fmt, const char *why)
{
	if (l->nrefused < HUB_MAX_REFUSED) {
		if (!l->refused)
			l->refused = xcalloc(HUB_MAX_REFUSED, sizeof *l->refused);
		char *what = path ? shown(path) : xasprintf("entry %zu", l->seen);
		char *msg = xasprintf(fmt, why);
		l->refused[l->nrefused] = path ? xasprintf("'%.*s': %s", (int)textsafe_cut(what, strlen(what), 300), what, msg) : xasprintf("%s: %s", what, msg);
		free(what);
		free(msg);
	}
	l->nrefused++;
}

/* A JSON number that is a whole byte count, or -1. */
static long long json_size(const cJSON *v)
{
	if (!cJSON_IsNumber(v))
		return -1;
	double d = v->valuedouble;
	if (!isfinite(d) || d < 0 || d > (double)HUB_MAX_SIZE || d != floor(d))
		return -1;
	return (long long)d;
}

/* One entry of the tree API: adds it, skips it or refuses it. */
static void listing_entry(struct hub_listing *l, const cJSON *e)
{
	const char *type = jx_str(e, "type"), *path = jx_str(e, "path"), *why;
	const cJSON *lfs;
	struct hub_file f;

	l->seen++;
	if (!cJSON_IsObject(e)) {
		refuse(l, NULL, "%s", "not a JSON object");
		return;
	}
	if (type && !strcmp(type, "directory"))
		return;
	if (!type || strcmp(type, "file")) {
		refuse(l, path, "%s", "type is not \"file\" or \"directory\"");
		return;
	}
	if (!path) {
		refuse(l, NULL, "%s", "no \"path\" string");
		return;
	}
	if ((why = hub_path_unsafe(path))) {
		refuse(l, path, "refused: %s", why);
		return;
	}
	memset(&f, 0, sizeof f);
	f.size = json_size(jx_get(e, "size"));
	lfs = jx_get(e, "lfs");
	if (lfs && !cJSON_IsNull(lfs)) {
		const char *oid = jx_str(lfs, "oid");
		long long ls = json_size(jx_get(lfs, "size"));
		if (!cJSON_IsObject(lfs) || !oid || !is_hex(oid, 64)) {
			refuse(l, path, "%s", "\"lfs.oid\" is not a sha256");
			return;
		}
		/* resolve serves the LFS object: its size is the one to check */
		if (ls >= 0)
			f.size = ls;
		lower_copy(f.sha256, oid, 64);
	} else {
		/* outside LFS the oid is git's blob id: sha1 of "blob <size>\0" + bytes */
		const char *oid = jx_str(e, "oid");
		if (oid && is_hex(oid, 40))
			lower_copy(f.gitsha1, oid, 40);
	}
	if (f.size < 0) {
		refuse(l, path, "%s", "\"size\" is not a byte count");
		return;
	}
	if (l->n >= HUB_MAX_FILES) {
		refuse(l, path, "%s", "too many files in the listing");
		return;
	}
	if (l->n == l->cap)
		l->files = xrealloc(l->files, (l->cap = l->cap ? l->cap * 2 : 256) * sizeof *l->files);
	f.path = xstrdup(path);
	l->files[l->n++] = f;
}

int hub_listing_parse(struct hub_listing *l, const char *json, size_t len, char **err)
{
	cJSON *root = jx_parse(json, len);
	const cJSON *e;

	*err = NULL;
	if (!root) {
		*err = xstrdup("the file listing is not valid JSON");
		return -1;
	}
	if (!cJSON_IsArray(root)) {
		const char *msg = jx_str(root, "error");
		char *s = msg ? shown(msg) : NULL;
		*err = s ? xasprintf("the file listing is not a JSON array (the Hub said: %.*s)", (int)textsafe_cut(s, strlen(s), 200), s)
		         : xstrdup("the file listing is not a JSON array");
		free(s);
		cJSON_Delete(root);
		return -1;
	}
	cJSON_ArrayForEach(e, root)
		listing_entry(l, e);
	cJSON_Delete(root);
	return 0;
}

static int cmp_file(const void *a, const void *b)
{
	return strcmp(((const struct hub_file *)a)->path, ((const struct hub_file *)b)->path);
}

void hub_listing_finish(struct hub_listing *l)
{
	size_t w = 0;
	if (l->n > 1)
		qsort(l->files, l->n, sizeof *l->files, cmp_file);
	for (size_t i = 0; i < l->n; i++) {
		if (w > 0 && !strcmp(l->files[w - 1].path, l->files[i].path)) {
			refuse(l, l->files[i].path, "%s", "listed twice");
			free(l->files[i].path);
			continue;
		}
		l->files[w++] = l->files[i];
	}
	l->n = w;
}

/* ---- pagination --------------------------------------------------------- */

/* 1 when the space-separated list v[0..n) holds the token "next". */
static int rel_has_next(const char *v, size_t n)
{
	size_t i = 0;
	while (i < n) {
		while (i < n && v[i] == ' ')
			i++;
		size_t s = i;
		while (i < n && v[i] != ' ')
			i++;
		if (i - s == 4 && !strncasecmp(v + s, "next", 4))
			return 1;
	}
	return 0;
}

char *hub_link_next(const char *link)
{
	const char *p = link;
	if (!p)
		return NULL;
	while (*p) {
		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p != '<') {
			/* not a link-value: skip to the next comma */
			while (*p && *p != ',')
				p++;
			continue;
		}
		const char *u = ++p, *gt = strchr(p, '>');
		if (!gt)
			return NULL;
		p = gt + 1;
		int next = 0;
		while (*p && *p != ',') {
			if (*p == ';' || *p == ' ' || *p == '\t') {
				p++;
				continue;
			}
			const char *ns = p;
			while (*p && *p != '=' && *p != ';' && *p != ',' && *p != ' ')
				p++;
			size_t nl = (size_t)(p - ns);
			while (*p == ' ')
				p++;
			const char *vs = p, *ve = p;
			if (*p == '=') {
				p++;
				while (*p == ' ')
					p++;
				if (*p == '"') {
					vs = ++p;
					while (*p && *p != '"')
						p += (*p == '\\' && p[1]) ? 2 : 1;
					ve = p;
					if (*p == '"')
						p++;
				} else {
					vs = p;
					while (*p && *p != ';' && *p != ',' && *p != ' ')
						p++;
					ve = p;
				}
			}
			if (nl == 3 && !strncasecmp(ns, "rel", 3) && rel_has_next(vs, (size_t)(ve - vs)))
				next = 1;
		}
		if (next)
			return xstrndup(u, (size_t)(gt - u));
	}
	return NULL;
}

char *hub_next_url(const char *endpoint, const char *link, char **err)
{
	char *next = hub_link_next(link), *u = NULL;

	*err = NULL;
	if (!next)
		return NULL;
	if (!*next || has_ctl(next) || strpbrk(next, " \"<>")) {
		*err = xstrdup("the listing's next-page link is malformed");
	} else if (next[0] == '/' && next[1] != '/') {
		char *o = hub_origin(endpoint);
		u = xasprintf("%s%s", o, next);
		free(o);
	} else if (hub_same_origin(endpoint, next)) {
		u = next;
		next = NULL;
	} else {
		char *o = hub_origin(endpoint);
		*err = xasprintf("the listing's next-page link leads away from %s; not followed", o);
		free(o);
	}
	free(next);
	return u;
}

/* ---- answers ------------------------------------------------------------ */

char *hub_commit_sha(const char *json, size_t len)
{
	cJSON *root = jx_parse(json, len);
	const char *sha = jx_str(root, "sha");
	char *r = NULL;
	if (sha && is_hex(sha, 40)) {
		r = xmalloc(41);
		lower_copy(r, sha, 40);
	}
	cJSON_Delete(root);
	return r;
}

char *hub_http_error(int status, const char *code, const char *repo, const char *rev,
                     const char *path, int have_token)
{
	char *p = path ? shown(path) : NULL, *m;
	const char *c = code ? code : "";

	if (status == 404 && !strcmp(c, "RevisionNotFound"))
		m = xasprintf("404 Not Found: revision '%s' not found in %s", rev, repo);
	else if (status == 404 && !strcmp(c, "EntryNotFound") && p)
		m = xasprintf("404 Not Found: %s is not in %s at revision %s", p, repo, rev);
	else if (status == 404 && !strcmp(c, "RepoNotFound"))
		m = xasprintf("404 Not Found: repository %s not found%s", repo,
		              have_token ? "" : " (a private one needs HF_TOKEN)");
	else if (status == 404)
		m = p ? xasprintf("404 Not Found: %s in %s at revision %s", p, repo, rev)
		      : xasprintf("404 Not Found: no repository %s or no revision '%s' in it", repo, rev);
	else if ((status == 401 || status == 403) && !strcmp(c, "GatedRepo"))
		m = xasprintf("%d: %s is gated: %s", status, repo,
		              have_token ? "this token has not been granted access; accept its conditions on the Hub"
		                         : "accept its conditions on the Hub and set HF_TOKEN");
	else if (status == 401)
		m = have_token ? xasprintf("401 Unauthorized: the Hub refused HF_TOKEN for %s (invalid or expired token, "
		                           "or no access)", repo)
		               : xasprintf("401 Unauthorized: %s needs a token (private or gated, or it does not exist); "
		                           "set HF_TOKEN", repo);
	else if (status == 403)
		m = have_token ? xasprintf("403 Forbidden: HF_TOKEN gives no access to %s (gated repository not yet "
		                           "granted, or a token without read permission)", repo)
		               : xasprintf("403 Forbidden: %s refuses anonymous access; set HF_TOKEN", repo);
	else if (status == 429)
		m = xstrdup("429 Too Many Requests: the Hub is rate-limiting; try again later");
	else if (status >= 500 && status <= 599)
		m = xasprintf("%d: the Hub had a server error; try again later", status);
	else
		m = xasprintf("HTTP status %d from the Hub", status);
	if (p && !strstr(m, p)) {
		char *t = xasprintf("%s: %s", p, m);
		free(m);
		m = t;
	}
	free(p);
	return m;
}
