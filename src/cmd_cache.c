/* cmd_cache.c: `kbtui cache --stats|--clear`: what the cache holds against
 * its bound, and emptying it. */
#include "cachedir.h"
#include "cmd.h"
#include "textsafe.h"
#include "util.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static void cache_bytes(char *buf, size_t n, uint64_t b)
{
	if (b < 1024)
		snprintf(buf, n, "%llu B", (unsigned long long)b);
	else if (b < 1024ull * 1024)
		snprintf(buf, n, "%.1f KB", b / 1024.0);
	else if (b < 1024ull * 1024 * 1024)
		snprintf(buf, n, "%.1f MB", b / 1048576.0);
	else if (b < 1024ull * 1024 * 1024 * 1024)
		snprintf(buf, n, "%.2f GB", b / 1073741824.0);
	else
		snprintf(buf, n, "%.2f TB", b / 1099511627776.0);   /* (a cap set past any disk: 16 EB at most) */
}

/* No cache to show: off, or refused (cachedir said why on stderr). */
static int cache_none(const struct cmd_ctx *ctx)
{
	if (getenv("KBTUI_NO_CACHE")) {
		fputs("the cache is off (KBTUI_NO_CACHE is set)\n", ctx->out);
		return CMD_OK;
	}
	if (!cachedir_refused())
		fputs("kbtui cache: no cache directory: neither $XDG_CACHE_HOME nor $HOME is an absolute path\n", ctx->err);
	return CMD_BADINPUT;
}

static int cache_stats(const struct cmd_ctx *ctx)
{
	struct cachedir_count c[32];
	cachedir_check();
	if (cachedir_refused())
		return CMD_BADINPUT;   /* (said on stderr) */
	int n = cachedir_stats(c, 32);
	char *root = n < 0 ? NULL : cachedir_root();
	char b1[32], b2[32];
	if (!root)
		return cache_none(ctx);
	uint64_t total = 0;
	size_t files = 0;
	textsafe_fprintf(ctx->out, "%s\n", root);
	for (int i = 0; i < n; i++) {
		cache_bytes(b1, sizeof b1, c[i].bytes);
		textsafe_fprintf(ctx->out, "  %-10s %7zu entries  %10s\n", c[i].kind, c[i].files, b1);
		total += c[i].bytes;
		files += c[i].files;
	}
	cache_bytes(b1, sizeof b1, total);
	cache_bytes(b2, sizeof b2, cachedir_cap());
	fprintf(ctx->out, "  %-10s %7zu entries  %10s of %s (%s)\n", "total", files, b1, b2,
	        cachedir_cap_set() ? "KBTUI_CACHE_MAX" : "the default cap");
	free(root);
	return CMD_OK;
}

static int cache_clear(const struct cmd_ctx *ctx)
{
	uint64_t bytes = 0;
	cachedir_check();
	if (cachedir_refused())
		return CMD_BADINPUT;   /* (said on stderr): nothing in it is touched */
	long n = cachedir_clear(&bytes);
	char b[32];
	if (n < 0)
		return cache_none(ctx);
	cache_bytes(b, sizeof b, bytes);
	fprintf(ctx->out, "removed %ld entries (%s)\n", n, b);
	return CMD_OK;
}

static int cmd_cache_exec(int argc, char **argv, const struct cmd_ctx *ctx)
{
	static const struct option opts[] = {
		{"stats", no_argument, NULL, 's'},
		{"clear", no_argument, NULL, 'c'},
		{NULL, 0, NULL, 0},
	};
	int what = 0, ch;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		if (ch != 's' && ch != 'c')
			return cmd_usage_error(ctx->err, "cache", "unknown option '%s'", argv[optind - 1]);
		if (what && what != ch)
			return cmd_usage_error(ctx->err, "cache", "takes --stats or --clear, not both%s", "");
		what = ch;
	}
	if (optind < argc)
		return cmd_usage_error(ctx->err, "cache", "takes no argument, got '%s'", argv[optind]);
	return what == 'c' ? cache_clear(ctx) : cache_stats(ctx);
}

const struct cmd_entry cmd_cache_entry = {
	.name = "cache",
	.usage = "[--stats]\n--clear",
	.summary = "what kbtui's cache holds against its bound, or empty it",
	.help = "  --stats         each kind of entry (text, flags, verdicts, counts): how\n"
	        "                  many and their size, then the total against the cap\n"
	        "                  (the default)\n"
	        "  --clear         remove every entry\n"
	        "The cache is $XDG_CACHE_HOME/kbtui (default ~/.cache/kbtui), capped at\n"
	        "$KBTUI_CACHE_MAX (512M, 5MB, 1.5G, 2GiB; default 1G): past it the entries\n"
	        "used longest ago go. It is not used, and stderr says why, when it is not a\n"
	        "directory of yours that only you can write.\n",
	.exec = cmd_cache_exec,
};
