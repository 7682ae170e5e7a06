/* tap.h: a tiny TAP producer for the C tests; tests/run.sh counts the lines.
 * Include once per test program. */
#ifndef KB_TAP_H
#define KB_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#include <stdarg.h>
static void tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass)
		printf("#   failed at %s:%d\n", file, line);
	fflush(stdout);
}

#define is_int(got, want, ...) do { long long g_ = (got), w_ = (want); \
	ok(g_ == w_, __VA_ARGS__); if (g_ != w_) printf("#   got %lld, want %lld\n", g_, w_); } while (0)

#define is_str(got, want, ...) do { const char *g_ = (got), *w_ = (want); \
	int e_ = (g_ && w_) ? strcmp(g_, w_) == 0 : g_ == w_; ok(e_, __VA_ARGS__); \
	if (!e_) printf("#   got  \"%.400s\"\n#   want \"%.400s\"\n", g_ ? g_ : "(null)", w_ ? w_ : "(null)"); } while (0)

#define has_str(hay, needle, ...) do { const char *h_ = (hay), *n_ = (needle); \
	int e_ = h_ && strstr(h_, n_) != NULL; ok(e_, __VA_ARGS__); \
	if (!e_) printf("#   \"%s\" not found in \"%.300s\"\n", n_, h_ ? h_ : "(null)"); } while (0)

static __attribute__((unused)) void tap_skip(const char *why)
{
	printf("# SKIP %s\n", why);
}

static int tap_done(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

/* Directory of the source tree (for fixtures) and of ../shared. */
static const char *tap_srcdir(void)
{
	const char *s = getenv("KB_SRCDIR");
	return s ? s : ".";
}

static char tap_pathbuf[4][4096];
static int tap_pathi;
static __attribute__((unused)) const char *tap_path(const char *rel)
{
	char *b = tap_pathbuf[tap_pathi++ % 4];
	snprintf(b, sizeof tap_pathbuf[0], "%s/%s", tap_srcdir(), rel);
	return b;
}

/* ../shared/kbh beside the checkout, NULL when absent (tests then skip). */
static __attribute__((unused)) const char *tap_shared_kbh(void)
{
	static char b[4096];
	const char *e = getenv("KB_SHARED");
	FILE *f;
	if (e)
		snprintf(b, sizeof b, "%s/kbh", e);
	else
		snprintf(b, sizeof b, "%s/../shared/kbh", tap_srcdir());
	char probe[4200];
	snprintf(probe, sizeof probe, "%s/runs.jsonl", b);
	if (!(f = fopen(probe, "r")))
		return NULL;
	fclose(f);
	return b;
}

#endif
