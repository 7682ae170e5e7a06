/* hub.h: the Hugging Face Hub's HTTP API as `kbtui fetch` uses it, with no
 * networking here (fetch.c does the transfers):
 *
 *   GET {endpoint}/api/datasets/{repo}/revision/{rev}   -> {"sha": commit}
 *   GET {endpoint}/api/datasets/{repo}/tree/{rev}?recursive=true
 *       -> [{type, path, size, oid, lfs: {oid (sha256), size}}, ...]
 *          more pages behind a `Link: <url>; rel="next"` header
 *   GET {endpoint}/datasets/{repo}/resolve/{rev}/{path} -> the bytes
 *       (often a redirect to a CDN)
 *
 * Everything the Hub sends is untrusted: wrong types, hostile paths and
 * links are refused with a message, never followed. */
#ifndef KB_HUB_H
#define KB_HUB_H

#include <stddef.h>

#define HUB_DEFAULT_ENDPOINT "https://huggingface.co"
#define HUB_DEFAULT_REPO "Infatoshi/kernelbench-hard-runs"
#define HUB_DEFAULT_REVISION "main"
#define HUB_MAX_FILES 1000000        /* entries accepted from one listing */
#define HUB_MAX_SIZE (1LL << 50)     /* bytes accepted for one file */
#define HUB_MAX_REFUSED 50           /* messages kept about refused entries */

/* One file of a listing. */
struct hub_file {
	char *path;           /* relative, checked by hub_path_unsafe (owned) */
	long long size;
	char sha256[65];      /* lfs.oid, lower-case hex; "" when not given */
	char gitsha1[41];     /* oid of a file not in LFS: git's blob id; "" when not given */
};

/* The files of a dataset, gathered page by page. */
struct hub_listing {
	struct hub_file *files;
	size_t n, cap;
	char **refused;       /* why entries were refused, the first
	                         HUB_MAX_REFUSED of them (owned) */
	size_t nrefused;      /* entries refused, all of them */
	size_t seen;          /* entries read so far, for messages */
};

/* The endpoint: env (HF_ENDPOINT's value, may be NULL or empty for the
 * default) without trailing slashes. NULL and *err (owned) unless it is an
 * http:// or https:// URL with a host and nothing after the path. */
char *hub_endpoint(const char *env, char **err);

/* 0 when repo is a Hub repo id ("owner/name"), else -1 and *err (owned). */
int hub_repo_check(const char *repo, char **err);
/* 0 when rev can be a branch, tag or commit name, else -1 and *err. */
int hub_revision_check(const char *rev, char **err);
/* 1 when s is a full commit id (40 hex digits). */
int hub_is_commit(const char *s);

/* Percent-encodes everything but unreserved characters (and '/' when
 * keep_slash). Owned by caller. */
char *hub_escape(const char *s, int keep_slash);

/* The API and resolve URLs (owned by caller). */
char *hub_revision_url(const char *endpoint, const char *repo, const char *rev);
char *hub_tree_url(const char *endpoint, const char *repo, const char *rev);
char *hub_resolve_url(const char *endpoint, const char *repo, const char *rev, const char *path);

/* NULL when path is a safe relative path to write under a destination
 * directory, else why not (a static string). */
const char *hub_path_unsafe(const char *path);

void hub_listing_init(struct hub_listing *l);
void hub_listing_free(struct hub_listing *l);
/* Adds the files of one page of the tree API. Directories are skipped;
 * an entry with a wrong type, an unsafe path or a malformed checksum is
 * refused (l->refused says why) and the others kept. Returns -1 and *err
 * (owned) when the page as a whole is not a JSON array. */
int hub_listing_parse(struct hub_listing *l, const char *json, size_t len, char **err);
/* Sorts the files by path and refuses the second of two with one path. */
void hub_listing_finish(struct hub_listing *l);

/* The URL of a Link header's rel="next" (owned), NULL when none. */
char *hub_link_next(const char *link);
/* The next page to request: the Link header's rel="next" made absolute
 * against the endpoint. NULL when there is none, or when it points away
 * from the endpoint's scheme, host and port (then *err, owned, says so:
 * the token must not follow it). */
char *hub_next_url(const char *endpoint, const char *link, char **err);
/* 1 when both URLs have the same scheme, host and port. */
int hub_same_origin(const char *a, const char *b);
/* "scheme://host[:port]" of a URL (owned), for messages: never the path or
 * query, which for a CDN carry signatures. "?" when unparsable. */
char *hub_origin(const char *url);

/* The commit id ("sha") of a revision API answer, lower case (owned);
 * NULL when absent or not 40 hex digits. */
char *hub_commit_sha(const char *json, size_t len);

/* What an HTTP error status means, in words naming the repo, revision
 * and, for a file, its path (NULL for API calls). code: the Hub's
 * X-Error-Code header (RepoNotFound, RevisionNotFound, EntryNotFound,
 * GatedRepo) or NULL. Owned by caller. */
char *hub_http_error(int status, const char *code, const char *repo, const char *rev,
                     const char *path, int have_token);

#endif
