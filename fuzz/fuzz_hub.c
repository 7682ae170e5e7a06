/* fuzz_hub.c: libFuzzer target for what the Hub sends: a tree listing page,
 * a Link header, a revision answer. The first byte picks the entry point so
 * that one corpus drives them all. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "hub.h"
#include "util.h"

static void fuzz_listing(const char *s, size_t n)
{
	struct hub_listing l;
	char *err = NULL;
	hub_listing_init(&l);
	hub_listing_parse(&l, s, n, &err);
	free(err);
	hub_listing_finish(&l);
	for (size_t i = 0; i < l.n; i++) {
		/* what was kept must be safe to write and sorted without repeats */
		if (hub_path_unsafe(l.files[i].path))
			abort();
		if (i && strcmp(l.files[i - 1].path, l.files[i].path) >= 0)
			abort();
	}
	hub_listing_free(&l);
}

static void fuzz_link(const char *s)
{
	char *err = NULL;
	free(hub_link_next(s));
	char *next = hub_next_url("https://huggingface.co", s, &err);
	/* a next page never leaves the endpoint's origin (the token follows it) */
	if (next && !hub_same_origin(next, "https://huggingface.co"))
		abort();
	free(next);
	free(err);
}

static void fuzz_sha(const char *s, size_t n)
{
	char *sha = hub_commit_sha(s, n);
	if (sha && !hub_is_commit(sha))
		abort();
	free(sha);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!size)
		return 0;
	int which = data[0] % 3;
	char *s = xstrndup((const char *)data + 1, size - 1); /* NUL-terminated copy */
	size_t n = size - 1;
	if (which == 0)
		fuzz_listing(s, n);
	else if (which == 1)
		fuzz_link(s);
	else
		fuzz_sha(s, n);
	free(s);
	return 0;
}
