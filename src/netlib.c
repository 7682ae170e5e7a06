/* netlib.c: libcurl and libcrypto, loaded at first use. kbtui is not linked
 * against them: with the libraries they pull in (TLS, Kerberos, LDAP, SSH,
 * IDN: some 30) they cost every process milliseconds of dynamic loading,
 * while only fetch, live and the LLM calls ever make a request. This file
 * defines the few functions of theirs that kbtui calls, with their own
 * names and prototypes (from their headers), each forwarding to the real
 * one, resolved by dlopen of the soname configure found. The callers
 * (fetch.c, llm.c) are written against the ordinary APIs.
 *
 * When a library cannot be loaded, its entry points fail the way the
 * library itself reports failure (curl_global_init CURLE_FAILED_INIT,
 * curl_easy_init NULL, EVP_MD_CTX_new NULL) and say once on stderr why. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#define CURL_DISABLE_TYPECHECK 1   /* the macros would hide the functions */
#include <curl/curl.h>
#include <openssl/evp.h>

#include "textsafe.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#ifndef KB_CURL_SONAME
#define KB_CURL_SONAME "libcurl.so.4"
#endif
#ifndef KB_CRYPTO_SONAME
#define KB_CRYPTO_SONAME "libcrypto.so.3"
#endif

/* ---- libcurl ---------------------------------------------------------- */

static struct {
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	void (*easy_cleanup)(CURL *);
	CURLcode (*easy_perform)(CURL *);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	const char *(*easy_strerror)(CURLcode);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_cleanup)(CURLM *);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned, int, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
} cu;
static int cu_ok;
static pthread_once_t cu_once = PTHREAD_ONCE_INIT;

/* sym: SYM from handle H into *P; 0 (and a note) when it is missing */
static int
sym(void *h, const char *lib, const char *name, void *p)
{
	void *f = dlsym(h, name);
	if (!f) {
		textsafe_fprintf(stderr, "kbtui: %s has no %s\n", lib, name);
		return 0;
	}
	*(void **)p = f;
	return 1;
}

static void
cu_load(void)
{
	const char *lib = KB_CURL_SONAME;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		textsafe_fprintf(stderr, "kbtui: cannot load libcurl: %s\n", dlerror());
		return;
	}
	cu_ok = sym(h, lib, "curl_global_init", &cu.global_init) &&
	    sym(h, lib, "curl_global_cleanup", &cu.global_cleanup) &&
	    sym(h, lib, "curl_easy_init", &cu.easy_init) &&
	    sym(h, lib, "curl_easy_cleanup", &cu.easy_cleanup) &&
	    sym(h, lib, "curl_easy_perform", &cu.easy_perform) &&
	    sym(h, lib, "curl_easy_setopt", &cu.easy_setopt) &&
	    sym(h, lib, "curl_easy_getinfo", &cu.easy_getinfo) &&
	    sym(h, lib, "curl_easy_strerror", &cu.easy_strerror) &&
	    sym(h, lib, "curl_multi_init", &cu.multi_init) &&
	    sym(h, lib, "curl_multi_cleanup", &cu.multi_cleanup) &&
	    sym(h, lib, "curl_multi_add_handle", &cu.multi_add_handle) &&
	    sym(h, lib, "curl_multi_remove_handle", &cu.multi_remove_handle) &&
	    sym(h, lib, "curl_multi_perform", &cu.multi_perform) &&
	    sym(h, lib, "curl_multi_poll", &cu.multi_poll) &&
	    sym(h, lib, "curl_multi_info_read", &cu.multi_info_read) &&
	    sym(h, lib, "curl_slist_append", &cu.slist_append) &&
	    sym(h, lib, "curl_slist_free_all", &cu.slist_free_all);
}

static int
cu_ready(void)
{
	pthread_once(&cu_once, cu_load);
	return cu_ok;
}

CURLcode
curl_global_init(long flags)
{
	return cu_ready() ? cu.global_init(flags) : CURLE_FAILED_INIT;
}

void
curl_global_cleanup(void)
{
	if (cu_ready())
		cu.global_cleanup();
}

CURL *
curl_easy_init(void)
{
	return cu_ready() ? cu.easy_init() : NULL;
}

/* The functions below take a handle only the ones above can have made, so
 * the library is loaded when they are called; cu_ready() is a load of a
 * flag after the first time. */
void
curl_easy_cleanup(CURL *c)
{
	if (c && cu_ready())
		cu.easy_cleanup(c);
}

CURLcode
curl_easy_perform(CURL *c)
{
	return cu_ready() ? cu.easy_perform(c) : CURLE_FAILED_INIT;
}

/* The argument's type follows from the option's number (curl.h: longs
 * below CURLOPTTYPE_OBJECTPOINT, then data pointers, function pointers,
 * curl_off_t, blobs): read as that, passed on as that. */
CURLcode
curl_easy_setopt(CURL *c, CURLoption opt, ...)
{
	CURLcode rc;
	va_list ap;

	if (!cu_ready())
		return CURLE_FAILED_INIT;
	va_start(ap, opt);
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = cu.easy_setopt(c, opt, va_arg(ap, long));
	else if (opt < CURLOPTTYPE_FUNCTIONPOINT)
		rc = cu.easy_setopt(c, opt, va_arg(ap, void *));
	else if (opt < CURLOPTTYPE_OFF_T)
		rc = cu.easy_setopt(c, opt, va_arg(ap, void (*)(void)));
	else if (opt < CURLOPTTYPE_BLOB)
		rc = cu.easy_setopt(c, opt, va_arg(ap, curl_off_t));
	else
		rc = cu.easy_setopt(c, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

/* every CURLINFO takes a pointer to where the answer goes */
CURLcode
curl_easy_getinfo(CURL *c, CURLINFO info, ...)
{
	CURLcode rc;
	va_list ap;

	if (!cu_ready())
		return CURLE_FAILED_INIT;
	va_start(ap, info);
	rc = cu.easy_getinfo(c, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

const char *
curl_easy_strerror(CURLcode e)
{
	return cu_ready() ? cu.easy_strerror(e) : "libcurl could not be loaded";
}

CURLM *
curl_multi_init(void)
{
	return cu_ready() ? cu.multi_init() : NULL;
}

CURLMcode
curl_multi_cleanup(CURLM *m)
{
	return cu_ready() ? cu.multi_cleanup(m) : CURLM_BAD_HANDLE;
}

CURLMcode
curl_multi_add_handle(CURLM *m, CURL *c)
{
	return cu_ready() ? cu.multi_add_handle(m, c) : CURLM_BAD_HANDLE;
}

CURLMcode
curl_multi_remove_handle(CURLM *m, CURL *c)
{
	return cu_ready() ? cu.multi_remove_handle(m, c) : CURLM_BAD_HANDLE;
}

CURLMcode
curl_multi_perform(CURLM *m, int *running)
{
	return cu_ready() ? cu.multi_perform(m, running) : CURLM_BAD_HANDLE;
}

CURLMcode
curl_multi_poll(CURLM *m, struct curl_waitfd *fds, unsigned nfds, int ms, int *numfds)
{
	return cu_ready() ? cu.multi_poll(m, fds, nfds, ms, numfds) : CURLM_BAD_HANDLE;
}

CURLMsg *
curl_multi_info_read(CURLM *m, int *left)
{
	return cu_ready() ? cu.multi_info_read(m, left) : NULL;
}

/* a header list may be built before any handle: this loads the library */
struct curl_slist *
curl_slist_append(struct curl_slist *l, const char *s)
{
	return cu_ready() ? cu.slist_append(l, s) : NULL;
}

void
curl_slist_free_all(struct curl_slist *l)
{
	if (l && cu_ready())
		cu.slist_free_all(l);
}

/* ---- libcrypto: the digests of fetched files ------------------------------ */

static struct {
	EVP_MD_CTX *(*ctx_new)(void);
	void (*ctx_free)(EVP_MD_CTX *);
	int (*init_ex)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
	int (*update)(EVP_MD_CTX *, const void *, size_t);
	int (*final_ex)(EVP_MD_CTX *, unsigned char *, unsigned int *);
	const EVP_MD *(*sha256)(void);
	const EVP_MD *(*sha1)(void);
} cr;
static int cr_ok;
static pthread_once_t cr_once = PTHREAD_ONCE_INIT;

static void
cr_load(void)
{
	const char *lib = KB_CRYPTO_SONAME;
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		textsafe_fprintf(stderr, "kbtui: cannot load libcrypto: %s\n", dlerror());
		return;
	}
	cr_ok = sym(h, lib, "EVP_MD_CTX_new", &cr.ctx_new) &&
	    sym(h, lib, "EVP_MD_CTX_free", &cr.ctx_free) &&
	    sym(h, lib, "EVP_DigestInit_ex", &cr.init_ex) &&
	    sym(h, lib, "EVP_DigestUpdate", &cr.update) &&
	    sym(h, lib, "EVP_DigestFinal_ex", &cr.final_ex) &&
	    sym(h, lib, "EVP_sha256", &cr.sha256) &&
	    sym(h, lib, "EVP_sha1", &cr.sha1);
}

static int
cr_ready(void)
{
	pthread_once(&cr_once, cr_load);
	return cr_ok;
}

EVP_MD_CTX *
EVP_MD_CTX_new(void)
{
	return cr_ready() ? cr.ctx_new() : NULL;
}

void
EVP_MD_CTX_free(EVP_MD_CTX *c)
{
	if (c && cr_ready())
		cr.ctx_free(c);
}

int
EVP_DigestInit_ex(EVP_MD_CTX *c, const EVP_MD *md, ENGINE *e)
{
	return c && md && cr_ready() ? cr.init_ex(c, md, e) : 0;
}

int
EVP_DigestUpdate(EVP_MD_CTX *c, const void *p, size_t n)
{
	return c && cr_ready() ? cr.update(c, p, n) : 0;
}

int
EVP_DigestFinal_ex(EVP_MD_CTX *c, unsigned char *md, unsigned int *n)
{
	return c && cr_ready() ? cr.final_ex(c, md, n) : 0;
}

const EVP_MD *
EVP_sha256(void)
{
	return cr_ready() ? cr.sha256() : NULL;
}

const EVP_MD *
EVP_sha1(void)
{
	return cr_ready() ? cr.sha1() : NULL;
}
