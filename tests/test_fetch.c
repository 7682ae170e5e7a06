/* test_fetch.c: the Hub API layer of `kbtui fetch` without a network:
 * endpoint and URL building, repo/revision names, listing pages (good,
 * wrong types, hostile paths), Link pagination, revision answers, error
 * messages, and the default destination kbtui later opens.
 * tests/test_fetch.sh drives the transfers against tests/fakehub. */
#include "dataset.h"
#include "fetch.h"
#include "hub.h"
#include "tap.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SHA_A "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
#define SHA_A_UPPER "9F86D081884C7D659A2FEAA0C55AD015A3BF4F1B2B0B822CD15D6C15B0F00A08"
#define GIT_A "30d74d258442c7c65512eafab474568dd706c430"

static void test_endpoint(void)
{
	char *err = NULL, *e;

	e = hub_endpoint(NULL, &err);
	is_str(e, "https://huggingface.co", "no HF_ENDPOINT: the Hub");
	free(e);
	e = hub_endpoint("", &err);
	is_str(e, "https://huggingface.co", "empty HF_ENDPOINT: the Hub");
	free(e);
	e = hub_endpoint("http://127.0.0.1:8080//", &err);
	is_str(e, "http://127.0.0.1:8080", "trailing slashes are dropped");
	free(e);
	e = hub_endpoint("https://mirror.example/hf/", &err);
	is_str(e, "https://mirror.example/hf", "a mirror under a path keeps it");
	free(e);
	setenv("HF_ENDPOINT", "HTTPS://hf-mirror.com/", 1);
	e = hub_endpoint(getenv("HF_ENDPOINT"), &err);
	is_str(e, "HTTPS://hf-mirror.com", "HF_ENDPOINT from the environment");
	free(e);
	unsetenv("HF_ENDPOINT");

	static const char *const bad[] = {"ftp://x.org", "huggingface.co", "http://", "https:///x",
	                                  "https://user:pw@x.org", "http://x.org/a?b=1", "http://x.org/#f",
	                                  "http://x .org", "http://x.org/\x1b[31m"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		e = hub_endpoint(bad[i], &err);
		ok(!e && err && strstr(err, "HF_ENDPOINT"), "HF_ENDPOINT refused: %zu (%s)", i, err ? err : "no message");
		ok(!err || !strchr(err, '\x1b'), "the message shows no raw escape (%zu)", i);
		free(e);
		free(err);
		err = NULL;
	}
}

static void test_urls(void)
{
	const char *ep = "http://127.0.0.1:4567", *repo = "Infatoshi/kernelbench-hard-runs";
	char *u;

	u = hub_revision_url(ep, repo, "main");
	is_str(u, "http://127.0.0.1:4567/api/datasets/Infatoshi/kernelbench-hard-runs/revision/main", "revision URL");
	free(u);
	u = hub_tree_url(ep, repo, "main");
	is_str(u, "http://127.0.0.1:4567/api/datasets/Infatoshi/kernelbench-hard-runs/tree/main?recursive=true",
	       "tree URL, recursive");
	free(u);
	u = hub_tree_url(ep, repo, "refs/pr/1");
	is_str(u, "http://127.0.0.1:4567/api/datasets/Infatoshi/kernelbench-hard-runs/tree/refs%2Fpr%2F1?recursive=true",
	       "a revision with '/' is one escaped segment");
	free(u);
	u = hub_resolve_url(ep, repo, "main", "runs/r1/transcript.jsonl");
	is_str(u, "http://127.0.0.1:4567/datasets/Infatoshi/kernelbench-hard-runs/resolve/main/runs/r1/transcript.jsonl",
	       "resolve URL keeps the path's slashes");
	free(u);
	u = hub_resolve_url(ep, repo, "main", "problems/01 fp8/PROMPT \xc3\xa9#1?.txt");
	is_str(u,
	       "http://127.0.0.1:4567/datasets/Infatoshi/kernelbench-hard-runs/resolve/main/"
	       "problems/01%20fp8/PROMPT%20%C3%A9%231%3F.txt",
	       "spaces, UTF-8, '#' and '?' in a path are escaped");
	free(u);
	u = hub_escape("a-b_c.d~e/f%", 0);
	is_str(u, "a-b_c.d~e%2Ff%25", "unreserved characters stay, '/' and '%%' are escaped");
	free(u);
}

static void test_names(void)
{
	static const char *const good[] = {"Infatoshi/kernelbench-hard-runs", "gpt2", "a.b/c_d-e", "A1/B2"};
	static const char *const badr[] = {"", "a/b/c", "../x", "a/..", "a--b/c", "-a/b", "a/b.", "a b/c", "a/",
	                                   "/a", "a..b/c", "a/b\n"};
	char *err = NULL, long_repo[120];

	for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
		ok(hub_repo_check(good[i], &err) == 0, "repo id accepted: %s", good[i]);
		free(err);
	}
	for (size_t i = 0; i < sizeof badr / sizeof *badr; i++) {
		ok(hub_repo_check(badr[i], &err) == -1 && err, "repo id refused: %zu", i);
		ok(err && !strchr(err, '\n'), "its message has no raw newline (%zu)", i);
		free(err);
	}
	memset(long_repo, 'a', sizeof long_repo - 1);
	long_repo[sizeof long_repo - 1] = '\0';
	long_repo[10] = '/';
	ok(hub_repo_check(long_repo, &err) == -1, "a repo id over 96 characters is refused");
	free(err);

	ok(hub_revision_check("main", &err) == 0, "revision main");
	ok(hub_revision_check("refs/pr/1", &err) == 0, "revision refs/pr/1");
	ok(hub_revision_check("", &err) == -1, "empty revision refused");
	free(err);
	ok(hub_revision_check("a b", &err) == -1, "revision with a space refused");
	free(err);
	ok(hub_revision_check("x\x1b[2J", &err) == -1 && !strchr(err, '\x1b'), "revision with ESC refused, shown safely");
	free(err);
	ok(hub_is_commit(GIT_A) && !hub_is_commit("main") && !hub_is_commit(SHA_A) && !hub_is_commit(NULL),
	   "a commit is 40 hex digits");
}

static void test_paths(void)
{
	static const char *const safe[] = {"runs.jsonl", "runs/r1/transcript.jsonl", ".gitattributes",
	                                   "a/.hidden", "a..b/c", "x.part", "...", "a/b c/\xc3\xa9"};
	static const struct {
		const char *path, *why;
	} unsafe[] = {
		{"", "empty path"},
		{"/etc/passwd", "absolute path"},
		{"../evil", "'..' component"},
		{"runs/../../evil", "'..' component"},
		{"runs/..", "'..' component"},
		{"./runs", "'.' component"},
		{"runs//x", "empty path component"},
		{"runs/", "empty path component"},
		{"a\\..\\b", "backslash"},
		{"a\nb", "control character"},
		{"a\x1b[31m", "control character"},
		{"a\x7f", "control character"},
		{"runs/.transcript.jsonl.part", "partial download"},
		{".kbtui-fetch/manifest", "bookkeeping"},
		{".kbtui-fetch", "bookkeeping"},
	};
	char long_comp[300];

	for (size_t i = 0; i < sizeof safe / sizeof *safe; i++)
		ok(hub_path_unsafe(safe[i]) == NULL, "safe path %zu: %s", i, safe[i]);
	for (size_t i = 0; i < sizeof unsafe / sizeof *unsafe; i++) {
		const char *why = hub_path_unsafe(unsafe[i].path);
		ok(why && strstr(why, unsafe[i].why), "unsafe path %zu refused: %s", i, why ? why : "(accepted)");
	}
	ok(hub_path_unsafe(NULL) != NULL, "NULL path refused");
	memset(long_comp, 'x', sizeof long_comp - 1);
	long_comp[sizeof long_comp - 1] = '\0';
	ok(hub_path_unsafe(long_comp) && strstr(hub_path_unsafe(long_comp), "too long"), "a 299-byte name is refused");
}

static int parse(struct hub_listing *l, const char *json, char **err)
{
	return hub_listing_parse(l, json, strlen(json), err);
}

static void test_listing(void)
{
	struct hub_listing l;
	char *err = NULL;
	/* the shape of the real tree API */
	const char *page =
		"[{\"type\":\"directory\",\"oid\":\"4b825dc642cb6eb9a060e54bf8d69288fbee4904\",\"size\":0,\"path\":\"runs\"},"
		" {\"type\":\"file\",\"oid\":\"" GIT_A "\",\"size\":4,\"path\":\"runs.jsonl\"},"
		" {\"type\":\"file\",\"oid\":\"1111111111111111111111111111111111111111\",\"size\":1048576,"
		"  \"path\":\"runs/r1/transcript.jsonl\",\"lfs\":{\"oid\":\"" SHA_A_UPPER "\",\"size\":1048576,"
		"  \"pointerSize\":132},\"xetHash\":\"abc\"},"
		" {\"type\":\"file\",\"oid\":\"not-a-sha\",\"size\":7,\"path\":\"README.md\",\"lfs\":null}]";

	hub_listing_init(&l);
	is_int(parse(&l, page, &err), 0, "a page of the tree API parses");
	is_int(l.n, 3, "three files (the directory is skipped)");
	is_int(l.nrefused, 0, "nothing refused");
	hub_listing_finish(&l);
	is_str(l.files[0].path, "README.md", "files sorted by path");
	is_str(l.files[0].sha256, "", "no checksum when the oid is not a sha1 and no lfs");
	is_str(l.files[0].gitsha1, "", "... no git blob id either");
	is_str(l.files[1].path, "runs.jsonl", "second file");
	is_str(l.files[1].gitsha1, GIT_A, "outside LFS: the oid is the git blob id");
	is_str(l.files[1].sha256, "", "... and no sha256");
	is_int(l.files[1].size, 4, "its size");
	is_str(l.files[2].sha256, SHA_A, "lfs.oid is the sha256, lower-cased");
	is_str(l.files[2].gitsha1, "", "an LFS file's oid (its pointer's) is not used");
	is_int(l.files[2].size, 1048576, "LFS size");
	hub_listing_free(&l);

	/* not a listing at all */
	hub_listing_init(&l);
	ok(parse(&l, "not json", &err) == -1 && err && strstr(err, "not valid JSON"), "garbage: not valid JSON");
	free(err);
	ok(parse(&l, "{\"error\":\"Repository not found\"}", &err) == -1 && err && strstr(err, "not a JSON array") &&
	   strstr(err, "Repository not found"),
	   "an error object: not an array, the Hub's words kept");
	free(err);
	ok(parse(&l, "{\"error\":\"\\u001b]0;pwned\\u0007\"}", &err) == -1 && err && !strchr(err, '\x1b') &&
	   !strchr(err, '\a'),
	   "the Hub's words are shown without escapes");
	free(err);
	ok(parse(&l, "\"[]\"", &err) == -1, "a string is not a listing");
	free(err);
	is_int(parse(&l, "[]", &err), 0, "an empty page is fine");
	is_int(l.n, 0, "and adds nothing");
	hub_listing_free(&l);

	/* wrong types entry by entry: refused, the rest kept */
	const char *hostile =
		"[1, \"x\", null, [], {\"type\":\"file\"},"
		" {\"type\":\"file\",\"path\":5,\"size\":1},"
		" {\"type\":\"file\",\"path\":\"a\",\"size\":\"12\"},"
		" {\"type\":\"file\",\"path\":\"b\",\"size\":-1},"
		" {\"type\":\"file\",\"path\":\"c\",\"size\":1.5},"
		" {\"type\":\"file\",\"path\":\"d\",\"size\":1e300},"
		" {\"type\":\"file\",\"path\":\"e\",\"size\":3,\"lfs\":\"x\"},"
		" {\"type\":\"file\",\"path\":\"f\",\"size\":3,\"lfs\":{\"oid\":\"zz\"}},"
		" {\"type\":\"file\",\"path\":\"g\",\"size\":3,\"lfs\":{\"oid\":\"" SHA_A "\",\"size\":4}},"
		" {\"type\":\"file\",\"path\":\"g2\",\"size\":3,\"lfs\":{\"oid\":\"" SHA_A "00\",\"size\":3}},"
		" {\"type\":\"symlink\",\"path\":\"h\",\"size\":1},"
		" {\"type\":7,\"path\":\"h2\",\"size\":1},"
		" {\"type\":\"file\",\"path\":\"../i\",\"size\":1},"
		" {\"type\":\"file\",\"path\":\"/etc/passwd\",\"size\":1},"
		" {\"type\":\"file\",\"path\":\"x/\\u001b[31mred\",\"size\":1},"
		" {\"type\":\"directory\",\"path\":\"../dir-is-skipped\"},"
		" {\"type\":\"file\",\"path\":\"ok.txt\",\"size\":3,\"oid\":\"" GIT_A "zz\"},"
		" {\"type\":\"file\",\"path\":\"ok2.txt\",\"size\":0,\"oid\":{\"x\":1},\"lfs\":{}}]";
	hub_listing_init(&l);
	is_int(parse(&l, hostile, &err), 0, "a page of wrong entries still parses");
	hub_listing_finish(&l);
	is_int(l.n, 2, "only the two good entries are kept");
	ok(l.n == 2 && !strcmp(l.files[0].path, "g") && l.files[0].size == 4 && !strcmp(l.files[0].sha256, SHA_A),
	   "g: an LFS file's size is lfs.size, what resolve serves");
	ok(l.n == 2 && !strcmp(l.files[1].path, "ok.txt") && !l.files[1].sha256[0] && !l.files[1].gitsha1[0],
	   "ok.txt, with no checksum (its oid is not 40 hex digits)");
	is_int(l.nrefused, 19, "every other file entry refused");
	int found = 0;
	for (size_t i = 0; i < l.nrefused && i < HUB_MAX_REFUSED; i++) {
		const char *m = l.refused[i];
		found += strstr(m, "entry 1: not a JSON object") != NULL;
		found += strstr(m, "'a': \"size\" is not a byte count") != NULL;
		found += strstr(m, "'c': \"size\" is not a byte count") != NULL;
		found += strstr(m, "'f': \"lfs.oid\" is not a sha256") != NULL;
		found += strstr(m, "'g2': \"lfs.oid\" is not a sha256") != NULL;
		found += strstr(m, "'h': type is not") != NULL;
		found += strstr(m, "'../i': refused: '..' component in path") != NULL;
		found += strstr(m, "'/etc/passwd': refused: absolute path") != NULL;
		found += strstr(m, "^[[31mred") != NULL;
		ok(!strchr(m, '\x1b'), "refusal message %zu has no raw ESC", i);
	}
	is_int(found, 9, "the refusals say what was wrong");
	hub_listing_free(&l);

	/* {"lfs": {}} is an LFS entry without an oid: refused */
	hub_listing_init(&l);
	parse(&l, "[{\"type\":\"file\",\"path\":\"p\",\"size\":0,\"lfs\":{}}]", &err);
	is_int(l.n, 0, "lfs without oid refused");
	hub_listing_free(&l);

	/* pages add up; duplicates across pages are refused once */
	hub_listing_init(&l);
	parse(&l, "[{\"type\":\"file\",\"path\":\"b\",\"size\":1},{\"type\":\"file\",\"path\":\"a\",\"size\":2}]", &err);
	parse(&l, "[{\"type\":\"file\",\"path\":\"b\",\"size\":9},{\"type\":\"file\",\"path\":\"c\",\"size\":3}]", &err);
	hub_listing_finish(&l);
	is_int(l.n, 3, "two pages, one duplicate: three files");
	ok(l.n == 3 && !strcmp(l.files[0].path, "a") && !strcmp(l.files[1].path, "b") && !strcmp(l.files[2].path, "c"),
	   "sorted a, b, c");
	ok(l.nrefused == 1 && strstr(l.refused[0], "'b': listed twice"), "the duplicate is named");
	hub_listing_free(&l);

	/* many refusals: counted, messages capped */
	struct sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, "[");
	for (int i = 0; i < 120; i++)
		sbuf_addf(&b, "%s{\"type\":\"file\",\"path\":\"../x%d\",\"size\":1}", i ? "," : "", i);
	sbuf_adds(&b, "]");
	hub_listing_init(&l);
	parse(&l, b.s, &err);
	is_int(l.nrefused, 120, "120 refusals counted");
	ok(l.refused && l.refused[HUB_MAX_REFUSED - 1] != NULL, "the first %d kept as messages", HUB_MAX_REFUSED);
	hub_listing_free(&l);
	sbuf_free(&b);

	/* nesting far past any sane listing, and a huge path */
	sbuf_init(&b);
	for (int i = 0; i < 100000; i++)
		sbuf_addc(&b, '[');
	hub_listing_init(&l);
	ok(parse(&l, b.s, &err) == -1, "100000 nested arrays are refused, not a crash");
	free(err);
	sbuf_reset(&b);
	sbuf_adds(&b, "[{\"type\":\"file\",\"size\":1,\"path\":\"");
	for (int i = 0; i < 100000; i++)
		sbuf_addc(&b, 'a' + i % 26);
	sbuf_adds(&b, "\"}]");
	parse(&l, b.s, &err);
	ok(l.n == 0 && l.nrefused == 1 && strstr(l.refused[0], "path too long"), "a 100 KB path is refused");
	ok(strlen(l.refused[0]) < 1000, "and its message stays short");
	hub_listing_free(&l);
	sbuf_free(&b);

	/* a NUL inside a JSON string ends the path there: still checked */
	hub_listing_init(&l);
	parse(&l, "[{\"type\":\"file\",\"size\":1,\"path\":\"a\\u0000/../../etc/passwd\"},"
	          "{\"type\":\"file\",\"size\":1,\"path\":\"..\\u0000x\"}]", &err);
	int safe = 1;
	for (size_t i = 0; i < l.n; i++)
		safe &= hub_path_unsafe(l.files[i].path) == NULL;
	ok(safe && l.nrefused == 1, "every kept path is safe (%zu kept, %zu refused)", l.n, l.nrefused);
	hub_listing_free(&l);
}

static void test_links(void)
{
	const char *ep = "https://huggingface.co";
	char *u, *err = NULL;

	u = hub_link_next("<https://huggingface.co/api/datasets/a/b/tree/main?recursive=true&cursor=ZXk>; rel=\"next\"");
	is_str(u, "https://huggingface.co/api/datasets/a/b/tree/main?recursive=true&cursor=ZXk", "Link rel=\"next\"");
	free(u);
	u = hub_link_next("<https://x/p1>; rel=\"prev\", <https://x/p3>; rel=next; title=\"a,b\"");
	is_str(u, "https://x/p3", "the next of several links, rel unquoted");
	free(u);
	u = hub_link_next("<https://x/p3>; title=\"next\"; REL=\"last next\"");
	is_str(u, "https://x/p3", "rel is a list and case-insensitive; title is not rel");
	free(u);
	u = hub_link_next("<https://x/p1>; rel=\"prev\"");
	ok(u == NULL, "no next: NULL");
	free(u);
	u = hub_link_next("<https://x/p1; rel=\"next\"");
	ok(u == NULL, "unterminated <: NULL");
	u = hub_link_next("garbage, ; ;; rel=next");
	ok(u == NULL, "no link-value: NULL");
	ok(hub_link_next("") == NULL && hub_link_next(NULL) == NULL, "empty or absent header: NULL");
	u = hub_link_next("<https://x/q>; rel=\"ne\\\"xt\", <https://x/r>; rel=\"next\"");
	is_str(u, "https://x/r", "escaped quotes inside a value are skipped");
	free(u);

	u = hub_next_url(ep, "<https://huggingface.co/api/x?cursor=1>; rel=\"next\"", &err);
	is_str(u, "https://huggingface.co/api/x?cursor=1", "same origin: followed");
	free(u);
	u = hub_next_url(ep, "<https://HuggingFace.co:443/api/x>; rel=\"next\"", &err);
	is_str(u, "https://HuggingFace.co:443/api/x", "host case and the default port do not matter");
	free(u);
	u = hub_next_url("https://mirror.example/hf", "</api/x?cursor=2>; rel=\"next\"", &err);
	is_str(u, "https://mirror.example/api/x?cursor=2", "a host-relative link is made absolute");
	free(u);
	ok(hub_next_url(ep, NULL, &err) == NULL && err == NULL, "no Link header: no next page, no error");
	static const char *const away[] = {
		"<https://evil.example/api/x>; rel=\"next\"", "<http://huggingface.co/api/x>; rel=\"next\"",
		"<https://huggingface.co:8443/api/x>; rel=\"next\"", "<//evil.example/x>; rel=\"next\"",
		"<https://huggingface.co@evil.example/x>; rel=\"next\"", "<javascript:alert(1)>; rel=\"next\"",
		"<https://huggingface.co/a\x1b[2Jb>; rel=\"next\"", "<>; rel=\"next\"",
	};
	for (size_t i = 0; i < sizeof away / sizeof *away; i++) {
		u = hub_next_url(ep, away[i], &err);
		ok(!u && err, "a next link elsewhere or malformed is not followed (%zu: %s)", i, err ? err : "-");
		ok(!err || !strchr(err, '\x1b'), "its message has no raw ESC (%zu)", i);
		free(u);
		free(err);
		err = NULL;
	}
	ok(hub_same_origin("http://[::1]:80/a", "http://[::1]/b"), "IPv6 literal, default port");
	ok(!hub_same_origin("http://[::1]:81/a", "http://[::1]/b"), "IPv6 literal, other port");
	ok(!hub_same_origin("http://a:99999/", "http://a:99999/"), "a port out of range is no origin");
	u = hub_origin("https://cdn.example/repos/ab/cd?X-Amz-Signature=secret");
	is_str(u, "https://cdn.example", "the origin shown in messages has no signed query");
	free(u);
}

static void test_answers(void)
{
	const char *j = "{\"_id\":\"x\",\"id\":\"a/b\",\"sha\":\"" "ABCDEF0123456789ABCDEF0123456789ABCDEF01" "\"}";
	char *s = hub_commit_sha(j, strlen(j));
	is_str(s, "abcdef0123456789abcdef0123456789abcdef01", "revision answer: sha, lower case");
	free(s);
	ok(hub_commit_sha("{\"sha\":\"abc\"}", 13) == NULL, "short sha: NULL");
	ok(hub_commit_sha("{\"sha\":12}", 10) == NULL, "sha not a string: NULL");
	ok(hub_commit_sha("[]", 2) == NULL, "not an object: NULL");
	ok(hub_commit_sha("{", 1) == NULL, "not JSON: NULL");

	static const struct {
		int status;
		const char *code, *path;
		int token;
		const char *want;
	} e[] = {
		{404, "RepoNotFound", NULL, 0, "404 Not Found: repository o/r not found (a private one needs HF_TOKEN)"},
		{404, "RepoNotFound", NULL, 1, "404 Not Found: repository o/r not found"},
		{404, "RevisionNotFound", NULL, 0, "revision 'v1' not found in o/r"},
		{404, "EntryNotFound", "runs/x.jsonl", 0, "runs/x.jsonl is not in o/r at revision v1"},
		{404, NULL, NULL, 0, "no repository o/r or no revision 'v1' in it"},
		{401, NULL, NULL, 0, "401 Unauthorized: o/r needs a token (private or gated, or it does not exist); set HF_TOKEN"},
		{401, "RepoNotFound", NULL, 0, "set HF_TOKEN"},
		{401, NULL, NULL, 1, "401 Unauthorized: the Hub refused HF_TOKEN for o/r"},
		{403, NULL, NULL, 1, "403 Forbidden: HF_TOKEN gives no access to o/r"},
		{403, NULL, NULL, 0, "403 Forbidden: o/r refuses anonymous access; set HF_TOKEN"},
		{401, "GatedRepo", NULL, 0, "o/r is gated: accept its conditions on the Hub and set HF_TOKEN"},
		{429, NULL, NULL, 0, "429 Too Many Requests"},
		{503, NULL, "f.txt", 0, "f.txt: 503: the Hub had a server error"},
		{418, NULL, NULL, 0, "HTTP status 418"},
	};
	for (size_t i = 0; i < sizeof e / sizeof *e; i++) {
		char *m = hub_http_error(e[i].status, e[i].code, "o/r", "v1", e[i].path, e[i].token);
		has_str(m, e[i].want, "HTTP %d %s%s", e[i].status, e[i].code ? e[i].code : "", e[i].token ? " (token)" : "");
		free(m);
	}
	char *m = hub_http_error(404, "EntryNotFound", "o/r", "v1", "a\x1b[2Jb", 0);
	ok(!strchr(m, '\x1b') && strstr(m, "a^[[2Jb"), "a path in a message is shown safely");
	free(m);
}

static void test_default_dest(void)
{
	char tmpl[] = "/tmp/kbtui-fetch-XXXXXX", *d, *want;
	char *home = xstrdup(getenv("HOME")), *xdg = xstrdup(getenv("XDG_DATA_HOME")), *kd = xstrdup(getenv("KBTUI_DATA"));
	const char *dir = mkdtemp(tmpl);

	setenv("XDG_DATA_HOME", "/x/data", 1);
	d = fetch_default_dest(HUB_DEFAULT_REPO);
	is_str(d, "/x/data/kbtui/kernelbench-hard-runs", "XDG_DATA_HOME/kbtui/<repo name>");
	free(d);
	d = fetch_default_dest("someone/other-runs");
	is_str(d, "/x/data/kbtui/other-runs", "another repo, another directory");
	free(d);
	unsetenv("XDG_DATA_HOME");
	setenv("HOME", "/home/u", 1);
	d = fetch_default_dest(HUB_DEFAULT_REPO);
	is_str(d, "/home/u/.local/share/kbtui/kernelbench-hard-runs", "without XDG_DATA_HOME: ~/.local/share");
	free(d);
	unsetenv("HOME");
	ok(fetch_default_dest(HUB_DEFAULT_REPO) == NULL, "neither set: NULL (then --dest is needed)");

	/* what fetch writes by default is what `kbtui` with no argument opens */
	if (dir) {
		setenv("XDG_DATA_HOME", dir, 1);
		unsetenv("KBTUI_DATA");
		want = fetch_default_dest(HUB_DEFAULT_REPO);
		char *idx = util_path_join(want, "runs.jsonl"), *cmd = xasprintf("mkdir -p '%s'", want);
		if (system(cmd) == 0) {
			FILE *f = fopen(idx, "w");
			if (f)
				fclose(f);
		}
		d = dataset_default_dir(NULL);
		is_str(d, want, "dataset_default_dir opens the default fetch destination");
		unlink(idx);
		free(d);
		free(idx);
		free(want);
		free(cmd);
		cmd = xasprintf("rm -rf '%s'", dir);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", dir);
		free(cmd);
	}
	home ? setenv("HOME", home, 1) : unsetenv("HOME");
	xdg ? setenv("XDG_DATA_HOME", xdg, 1) : unsetenv("XDG_DATA_HOME");
	kd ? setenv("KBTUI_DATA", kd, 1) : unsetenv("KBTUI_DATA");
	free(home);
	free(xdg);
	free(kd);
}

int main(void)
{
	test_endpoint();
	test_urls();
	test_names();
	test_paths();
	test_listing();
	test_links();
	test_answers();
	test_default_dest();
	return tap_done();
}
