/* noise.c: which events are noise (usage, system, read-only tool calls). */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "noise.h"
#include "run.h"
#include "runstats.h"
#include "util.h"

/* Tools that read and never write, as the harnesses name them. */
static const char *const noise_read_tools[] = {
	"Read", "read", "read_file", "Glob", "glob", "Grep", "grep", "LS", "ls", "list", "list_dir",
	"list_directory", "view", "file_search", "codebase_search", "search", "find", "search_files", NULL,
};

static int noise_in(const char *const *list, const char *s, size_t n)
{
	for (int i = 0; list[i]; i++)
		if (strlen(list[i]) == n && !strncmp(list[i], s, n))
			return 1;
	return 0;
}

/* Variables that may precede a read-only program: others (LD_PRELOAD,
 * GIT_EXTERNAL_DIFF, CUDA_INJECTION64_PATH ...) make it run code. */
static const char *const noise_safe_vars[] = {
	"CUDA_VISIBLE_DEVICES", "CUDA_HOME", "LANG", "LC_ALL", "TERM", "COLUMNS", "NO_COLOR", NULL,
};

#define NOISE_MAXW 64

/* The words of [s, e) in the command as written (quotes taken off), at
 * most NOISE_MAXW; *n gets their count. Owned by the caller (free each). */
static char **noise_words(const char *s, const char *e, size_t *n)
{
	char **w = xcalloc(NOISE_MAXW, sizeof *w);
	*n = 0;
	while (s < e && *n < NOISE_MAXW) {
		while (s < e && isspace((unsigned char)*s))
			s++;
		if (s == e)
			break;
		struct sbuf b;
		sbuf_init(&b);
		char q = 0;
		for (; s < e && (q || !isspace((unsigned char)*s)); s++) {
			if (q && *s == q)
				q = 0;
			else if (!q && (*s == '\'' || *s == '"'))
				q = *s;
			else
				sbuf_addc(&b, *s);
		}
		w[(*n)++] = sbuf_detach(&b);
	}
	return w;
}

/* ---- programs, and the options each is known to take ------------------------
 *
 * A shell command is noise only when every program in it is one of these
 * and every option is one listed for it: an option we do not know is
 * shown, whatever it does. Long options are resolved as getopt_long does
 * (an exact name, else the one option the word is a prefix of, so `--i`
 * is sed's --in-place); the options that write, run a program or change
 * the machine are listed too, marked bad, so that a prefix of one of
 * them never resolves to a harmless neighbour. */

struct noise_lopt {
	const char *name;
	int arg;                  /* 0 none, 1 required, 2 optional (--x=v only) */
	char same;                /* the short option it is, 0 none */
	int bad;                  /* writes a file, runs a program or changes the GPU */
};

#define NOISE_MAXOPT 64

/* A command's words sorted out: options (by short letter, else long name)
 * with their arguments, and the other words. Borrowed from the words. */
struct noise_args {
	char opt[NOISE_MAXOPT];   /* short letter, or 0 for a long option without one */
	const char *lname[NOISE_MAXOPT];
	const char *oarg[NOISE_MAXOPT];
	size_t nopt;
	const char *pos[NOISE_MAXW];
	size_t npos;
	char **w;                 /* every word, the program first */
	size_t n;
};

struct noise_prog {
	const char *name;
	const char *shorts;            /* getopt's form: "nA:" (':' takes an argument) */
	const char *bad;               /* short letters that write or run */
	const struct noise_lopt *longs;
	unsigned flags;
	/* what the arguments do beyond the options (sed's script, git's
	 * subcommand ...): 1 reads only */
	int (*check)(const struct noise_args *a);
};

#define NP_NUM 1        /* -NUM is a count (head -20, git log -3) */
#define NP_WORDS 2      /* every word is an argument (echo, true) */
#define NP_OWN 4        /* check reads the words itself (find, git, nvidia-smi) */

static const struct noise_lopt noise_l_none[] = { { NULL, 0, 0, 0 } };

static const struct noise_lopt noise_l_cat[] = {
	{ "show-all", 0, 'A', 0 }, { "number-nonblank", 0, 'b', 0 }, { "show-ends", 0, 'E', 0 },
	{ "number", 0, 'n', 0 }, { "squeeze-blank", 0, 's', 0 }, { "show-tabs", 0, 'T', 0 },
	{ "show-nonprinting", 0, 'v', 0 }, { "help", 0, 0, 0 }, { "version", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_headtail[] = {
	{ "bytes", 1, 'c', 0 }, { "lines", 1, 'n', 0 }, { "quiet", 0, 'q', 0 }, { "silent", 0, 'q', 0 },
	{ "verbose", 0, 'v', 0 }, { "zero-terminated", 0, 'z', 0 }, { "follow", 2, 'f', 0 },
	{ "retry", 0, 0, 0 }, { "pid", 1, 0, 0 }, { "sleep-interval", 1, 's', 0 }, { "help", 0, 0, 0 },
	{ "version", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_ls[] = {
	{ "all", 0, 'a', 0 }, { "almost-all", 0, 'A', 0 }, { "human-readable", 0, 'h', 0 },
	{ "recursive", 0, 'R', 0 }, { "reverse", 0, 'r', 0 }, { "color", 2, 0, 0 }, { "classify", 2, 'F', 0 },
	{ "directory", 0, 'd', 0 }, { "inode", 0, 'i', 0 }, { "size", 0, 's', 0 }, { "sort", 1, 0, 0 },
	{ "time-style", 1, 0, 0 }, { "full-time", 0, 0, 0 }, { "group-directories-first", 0, 0, 0 },
	{ "numeric-uid-gid", 0, 'n', 0 }, { "dereference", 0, 'L', 0 }, { "ignore", 1, 'I', 0 },
	{ "width", 1, 'w', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_grep[] = {
	{ "regexp", 1, 'e', 0 }, { "file", 1, 'f', 0 }, { "ignore-case", 0, 'i', 0 },
	{ "no-ignore-case", 0, 0, 0 }, { "word-regexp", 0, 'w', 0 }, { "line-regexp", 0, 'x', 0 },
	{ "invert-match", 0, 'v', 0 }, { "count", 0, 'c', 0 }, { "color", 2, 0, 0 }, { "colour", 2, 0, 0 },
	{ "files-without-match", 0, 'L', 0 }, { "files-with-matches", 0, 'l', 0 },
	{ "max-count", 1, 'm', 0 }, { "only-matching", 0, 'o', 0 }, { "quiet", 0, 'q', 0 },
	{ "silent", 0, 'q', 0 }, { "no-messages", 0, 's', 0 }, { "byte-offset", 0, 'b', 0 },
	{ "with-filename", 0, 'H', 0 }, { "no-filename", 0, 'h', 0 }, { "label", 1, 0, 0 },
	{ "line-number", 0, 'n', 0 }, { "initial-tab", 0, 'T', 0 }, { "null", 0, 'Z', 0 },
	{ "null-data", 0, 'z', 0 }, { "after-context", 1, 'A', 0 }, { "before-context", 1, 'B', 0 },
	{ "context", 1, 'C', 0 }, { "text", 0, 'a', 0 }, { "binary-files", 1, 0, 0 },
	{ "devices", 1, 'D', 0 }, { "directories", 1, 'd', 0 }, { "exclude", 1, 0, 0 },
	{ "exclude-from", 1, 0, 0 }, { "exclude-dir", 1, 0, 0 }, { "include", 1, 0, 0 },
	{ "recursive", 0, 'r', 0 }, { "dereference-recursive", 0, 'R', 0 },
	{ "extended-regexp", 0, 'E', 0 }, { "fixed-strings", 0, 'F', 0 }, { "basic-regexp", 0, 'G', 0 },
	{ "perl-regexp", 0, 'P', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

/* ripgrep: --pre runs a program on every file; -z runs decompressors */
static const struct noise_lopt noise_l_rg[] = {
	{ "pre", 1, 0, 1 }, { "pre-glob", 1, 0, 1 }, { "search-zip", 0, 'z', 1 },
	{ "regexp", 1, 'e', 0 }, { "file", 1, 'f', 0 }, { "files", 0, 0, 0 }, { "type", 1, 't', 0 },
	{ "type-not", 1, 'T', 0 }, { "glob", 1, 'g', 0 }, { "iglob", 1, 0, 0 }, { "ignore-case", 0, 'i', 0 },
	{ "smart-case", 0, 'S', 0 }, { "case-sensitive", 0, 's', 0 }, { "word-regexp", 0, 'w', 0 },
	{ "line-regexp", 0, 'x', 0 }, { "invert-match", 0, 'v', 0 }, { "count", 0, 'c', 0 },
	{ "files-with-matches", 0, 'l', 0 }, { "files-without-match", 0, 0, 0 }, { "fixed-strings", 0, 'F', 0 },
	{ "line-number", 0, 'n', 0 }, { "no-line-number", 0, 'N', 0 }, { "no-heading", 0, 0, 0 },
	{ "heading", 0, 0, 0 }, { "with-filename", 0, 'H', 0 }, { "no-filename", 0, 'I', 0 },
	{ "hidden", 0, 0, 0 }, { "no-ignore", 0, 0, 0 }, { "follow", 0, 'L', 0 }, { "max-count", 1, 'm', 0 },
	{ "max-depth", 1, 'd', 0 }, { "after-context", 1, 'A', 0 }, { "before-context", 1, 'B', 0 },
	{ "context", 1, 'C', 0 }, { "only-matching", 0, 'o', 0 }, { "color", 1, 0, 0 }, { "column", 0, 0, 0 },
	{ "json", 0, 0, 0 }, { "vimgrep", 0, 0, 0 }, { "multiline", 0, 'U', 0 }, { "sort", 1, 0, 0 },
	{ "pretty", 0, 'p', 0 }, { "unrestricted", 0, 'u', 0 }, { "type-list", 0, 0, 0 }, { "trim", 0, 0, 0 },
	{ "help", 0, 'h', 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_wc[] = {
	{ "bytes", 0, 'c', 0 }, { "chars", 0, 'm', 0 }, { "lines", 0, 'l', 0 }, { "words", 0, 'w', 0 },
	{ "max-line-length", 0, 'L', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

/* sed: -i writes the file, -f reads a script we cannot see, -s is harmless */
static const struct noise_lopt noise_l_sed[] = {
	{ "in-place", 2, 'i', 1 }, { "file", 1, 'f', 1 }, { "expression", 1, 'e', 0 },
	{ "quiet", 0, 'n', 0 }, { "silent", 0, 'n', 0 }, { "regexp-extended", 0, 'E', 0 },
	{ "separate", 0, 's', 0 }, { "null-data", 0, 'z', 0 }, { "zero-terminated", 0, 'z', 0 },
	{ "line-length", 1, 'l', 0 }, { "unbuffered", 0, 'u', 0 }, { "posix", 0, 0, 0 },
	{ "sandbox", 0, 0, 0 }, { "debug", 0, 0, 0 }, { "follow-symlinks", 0, 0, 0 }, { "binary", 0, 'b', 0 },
	{ "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

/* sort: -o writes, --compress-program runs a program */
static const struct noise_lopt noise_l_sort[] = {
	{ "output", 1, 'o', 1 }, { "compress-program", 1, 0, 1 }, { "numeric-sort", 0, 'n', 0 },
	{ "reverse", 0, 'r', 0 }, { "unique", 0, 'u', 0 }, { "key", 1, 'k', 0 },
	{ "field-separator", 1, 't', 0 }, { "general-numeric-sort", 0, 'g', 0 },
	{ "human-numeric-sort", 0, 'h', 0 }, { "version-sort", 0, 'V', 0 }, { "ignore-case", 0, 'f', 0 },
	{ "stable", 0, 's', 0 }, { "ignore-leading-blanks", 0, 'b', 0 }, { "zero-terminated", 0, 'z', 0 },
	{ "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_uniq[] = {
	{ "count", 0, 'c', 0 }, { "repeated", 0, 'd', 0 }, { "unique", 0, 'u', 0 },
	{ "ignore-case", 0, 'i', 0 }, { "skip-fields", 1, 'f', 0 }, { "skip-chars", 1, 's', 0 },
	{ "check-chars", 1, 'w', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_cut[] = {
	{ "bytes", 1, 'b', 0 }, { "characters", 1, 'c', 0 }, { "delimiter", 1, 'd', 0 },
	{ "fields", 1, 'f', 0 }, { "only-delimited", 0, 's', 0 }, { "output-delimiter", 1, 0, 0 },
	{ "complement", 0, 0, 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

/* date: -s / --set changes the clock */
static const struct noise_lopt noise_l_date[] = {
	{ "set", 1, 's', 1 }, { "date", 1, 'd', 0 }, { "utc", 0, 'u', 0 }, { "universal", 0, 'u', 0 },
	{ "iso-8601", 2, 'I', 0 }, { "rfc-email", 0, 'R', 0 }, { "rfc-3339", 1, 0, 0 },
	{ "reference", 1, 'r', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_diff[] = {
	{ "unified", 2, 'U', 0 }, { "context", 2, 'C', 0 }, { "recursive", 0, 'r', 0 }, { "brief", 0, 'q', 0 },
	{ "ignore-all-space", 0, 'w', 0 }, { "ignore-space-change", 0, 'b', 0 },
	{ "ignore-blank-lines", 0, 'B', 0 }, { "ignore-case", 0, 'i', 0 }, { "new-file", 0, 'N', 0 },
	{ "side-by-side", 0, 'y', 0 }, { "color", 2, 0, 0 }, { "text", 0, 'a', 0 },
	{ "report-identical-files", 0, 's', 0 }, { "exclude", 1, 'x', 0 }, { "help", 0, 0, 0 },
	{ NULL, 0, 0, 0 },
};

/* tree: -o writes its listing to a file */
static const struct noise_lopt noise_l_tree[] = {
	{ "help", 0, 0, 0 }, { "noreport", 0, 0, 0 }, { "dirsfirst", 0, 0, 0 }, { "charset", 1, 0, 0 },
	{ NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_du[] = {
	{ "human-readable", 0, 'h', 0 }, { "summarize", 0, 's', 0 }, { "max-depth", 1, 'd', 0 },
	{ "all", 0, 'a', 0 }, { "total", 0, 'c', 0 }, { "apparent-size", 0, 0, 0 }, { "help", 0, 0, 0 },
	{ NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_sum[] = {
	{ "check", 0, 'c', 0 }, { "binary", 0, 'b', 0 }, { "text", 0, 't', 0 }, { "quiet", 0, 0, 0 },
	{ "status", 0, 0, 0 }, { "tag", 0, 0, 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_stat[] = {
	{ "format", 1, 'c', 0 }, { "printf", 1, 0, 0 }, { "dereference", 0, 'L', 0 },
	{ "terse", 0, 't', 0 }, { "file-system", 0, 'f', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_path[] = {
	{ "canonicalize-existing", 0, 'e', 0 }, { "canonicalize-missing", 0, 'm', 0 },
	{ "relative-to", 1, 0, 0 }, { "quiet", 0, 'q', 0 }, { "no-symlinks", 0, 's', 0 },
	{ "multiple", 0, 'a', 0 }, { "suffix", 1, 's', 0 }, { "zero", 0, 'z', 0 }, { "help", 0, 0, 0 },
	{ NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_nl[] = {
	{ "body-numbering", 1, 'b', 0 }, { "number-width", 1, 'w', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_file[] = {
	{ "brief", 0, 'b', 0 }, { "mime", 0, 'i', 0 }, { "mime-type", 0, 0, 0 },
	{ "dereference", 0, 'L', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_uname[] = {
	{ "all", 0, 'a', 0 }, { "kernel-name", 0, 's', 0 }, { "kernel-release", 0, 'r', 0 },
	{ "machine", 0, 'm', 0 }, { "nodename", 0, 'n', 0 }, { "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_od[] = {
	{ "address-radix", 1, 'A', 0 }, { "skip-bytes", 1, 'j', 0 }, { "read-bytes", 1, 'N', 0 },
	{ "format", 1, 't', 0 }, { "output-duplicates", 0, 'v', 0 }, { "width", 2, 'w', 0 },
	{ "help", 0, 0, 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_hexdump[] = {
	{ "canonical", 0, 'C', 0 }, { "length", 1, 'n', 0 }, { "skip", 1, 's', 0 },
	{ "no-squeezing", 0, 'v', 0 }, { "help", 0, 'h', 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_column[] = {
	{ "table", 0, 't', 0 }, { "separator", 1, 's', 0 }, { "output-separator", 1, 'o', 0 },
	{ "help", 0, 'h', 0 }, { NULL, 0, 0, 0 },
};

static const struct noise_lopt noise_l_which[] = {
	{ "all", 0, 'a', 0 }, { NULL, 0, 0, 0 },
};

static int noise_sed_check(const struct noise_args *a);
static int noise_uniq_check(const struct noise_args *a);
static int noise_find_check(const struct noise_args *a);
static int noise_git_check(const struct noise_args *a);
static int noise_smi_check(const struct noise_args *a);

/* The programs s may hide, each with its options. Not here on purpose:
 * env, xargs, timeout, nice (they run a program), xxd (its second argument
 * is an output file), less and more (-o writes a log, ! runs a shell),
 * tee, awk, python (they write or run anything). */
static const struct noise_prog noise_progs[] = {
	{ "cat", "AbeEnstTuv", "", noise_l_cat, 0, NULL },
	{ "head", "c:n:qvz", "", noise_l_headtail, NP_NUM, NULL },
	{ "tail", "c:n:qvzfFs:", "", noise_l_headtail, NP_NUM, NULL },
	{ "ls", "aAlhRrtSdiFs1LnI:w:GgopQUvXx", "", noise_l_ls, 0, NULL },
	{ "grep", "e:f:iywxvcLlm:oqsbHhnTZzA:B:C:aD:d:rREFGPU", "", noise_l_grep, NP_NUM, NULL },
	{ "egrep", "e:f:iywxvcLlm:oqsbHhnTZzA:B:C:aD:d:rRU", "", noise_l_grep, NP_NUM, NULL },
	{ "fgrep", "e:f:iywxvcLlm:oqsbHhnTZzA:B:C:aD:d:rRU", "", noise_l_grep, NP_NUM, NULL },
	{ "rg", "e:f:t:T:g:iSswxvclFnNHILm:d:A:B:C:oUpuhz0.", "z", noise_l_rg, 0, NULL },
	{ "wc", "cmlwL", "", noise_l_wc, 0, NULL },
	{ "sed", "nEre:s:zl:ub", "if", noise_l_sed, 0, noise_sed_check },
	{ "sort", "nrumk:t:ghVfsbzo:", "o", noise_l_sort, 0, NULL },
	{ "uniq", "cduif:s:w:", "", noise_l_uniq, 0, noise_uniq_check },
	{ "cut", "b:c:d:f:sn", "", noise_l_cut, 0, NULL },
	{ "date", "d:uI::Rr:s:", "s", noise_l_date, 0, NULL },
	{ "diff", "U:C:rqwbBiNyasux:u", "", noise_l_diff, NP_NUM, NULL },
	{ "tree", "adfilL:I:P:sDhCnJo:", "o", noise_l_tree, 0, NULL },
	{ "du", "hsd:acbkm", "", noise_l_du, 0, NULL },
	{ "df", "hTiPk", "", noise_l_none, 0, NULL },
	{ "md5sum", "cbtw", "", noise_l_sum, 0, NULL },
	{ "sha256sum", "cbtw", "", noise_l_sum, 0, NULL },
	{ "stat", "c:Ltf", "", noise_l_stat, 0, NULL },
	{ "realpath", "emqsz", "", noise_l_path, 0, NULL },
	{ "basename", "as:z", "", noise_l_path, 0, NULL },
	{ "dirname", "z", "", noise_l_path, 0, NULL },
	{ "nl", "b:w:ba", "", noise_l_nl, 0, NULL },
	{ "file", "biL", "", noise_l_file, 0, NULL },
	{ "uname", "asrmnvpio", "", noise_l_uname, 0, NULL },
	{ "od", "A:j:N:t:vw::abcdfilox", "", noise_l_od, 0, NULL },
	{ "hexdump", "Cn:s:vh", "", noise_l_hexdump, 0, NULL },
	{ "column", "ts:o:h", "", noise_l_column, 0, NULL },
	{ "which", "a", "", noise_l_which, 0, NULL },
	{ "type", "aftpP", "", noise_l_none, 0, NULL },
	{ "pwd", "LP", "", noise_l_none, 0, NULL },
	{ "cd", "LPe", "", noise_l_none, 0, NULL },
	{ "whoami", "", "", noise_l_none, 0, NULL },
	/* their words are text: echo -e, printf -v VAR write no file */
	{ "echo", "", "", noise_l_none, NP_WORDS, NULL },
	{ "printf", "", "", noise_l_none, NP_WORDS, NULL },
	{ "true", "", "", noise_l_none, NP_WORDS, NULL },
	{ "find", "", "", noise_l_none, NP_OWN, noise_find_check },
	{ "git", "", "", noise_l_none, NP_OWN, noise_git_check },
	{ "nvidia-smi", "", "", noise_l_none, NP_OWN, noise_smi_check },
};

static const struct noise_prog *noise_prog_find(const char *name)
{
	for (size_t i = 0; i < sizeof noise_progs / sizeof noise_progs[0]; i++)
		if (!strcmp(noise_progs[i].name, name))
			return &noise_progs[i];
	return NULL;
}

/* A long option as getopt_long finds it: the exact name, else the one
 * option the word begins (several: ambiguous, NULL), NULL when none. */
static const struct noise_lopt *noise_long(const struct noise_lopt *l, const char *w, size_t n)
{
	const struct noise_lopt *hit = NULL;
	int count = 0;
	for (; l->name; l++) {
		if (strlen(l->name) == n && !strncmp(l->name, w, n))
			return l;
		if (strlen(l->name) > n && !strncmp(l->name, w, n)) {
			/* prefixes of two names for the same option are no ambiguity */
			if (!hit || !(hit->same && hit->same == l->same && hit->arg == l->arg))
				count++;
			hit = l;
		}
	}
	return count == 1 ? hit : NULL;
}

static int noise_is_num(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return 0;
	return 1;
}

static int noise_opt_add(struct noise_args *a, char c, const char *lname, const char *arg)
{
	if (a->nopt == NOISE_MAXOPT)
		return 0;
	a->opt[a->nopt] = c;
	a->lname[a->nopt] = lname;
	a->oarg[a->nopt++] = arg;
	return 1;
}

/* One long option word at w[*i] ("--name" or "--name=v"): 1 when known
 * and harmless. */
static int noise_parse_long(const struct noise_prog *p, char **w, size_t n, size_t *i, struct noise_args *a)
{
	const char *name = w[*i] + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	const struct noise_lopt *o = noise_long(p->longs, name, len);
	if (!o || o->bad || (eq && !o->arg))
		return 0;
	const char *arg = eq ? eq + 1 : NULL;
	if (!eq && o->arg == 1) {
		if (*i + 1 >= n)
			return 0;
		arg = w[++*i];
	}
	return noise_opt_add(a, o->same, o->name, arg);
}

/* One short cluster at w[*i] ("-ni", "-n5", "-e script"). */
static int noise_parse_short(const struct noise_prog *p, char **w, size_t n, size_t *i, struct noise_args *a)
{
	const char *s = w[*i] + 1;
	if ((p->flags & NP_NUM) && noise_is_num(s))
		return noise_opt_add(a, '#', NULL, s);
	for (; *s; s++) {
		const char *d = strchr(p->shorts, *s);
		if (!d || *s == ':' || strchr(p->bad, *s))
			return 0;
		if (d[1] != ':')
			if (!noise_opt_add(a, *s, NULL, NULL))
				return 0;
		if (d[1] == ':') {  /* the rest is its argument, else the next word */
			const char *arg = s[1] ? s + 1 : NULL;
			if (!arg && d[2] != ':') {
				if (*i + 1 >= n)
					return 0;
				arg = w[++*i];
			}
			return noise_opt_add(a, *s, NULL, arg);
		}
	}
	return 1;
}

/* The words after the program sorted into options and the rest (options
 * may come after files, as GNU programs permute them); 1 when every
 * option is known and harmless. */
static int noise_parse(const struct noise_prog *p, char **w, size_t n, struct noise_args *a)
{
	memset(a, 0, sizeof *a);
	int ended = p->flags & NP_WORDS;
	for (size_t i = 1; i < n; i++) {
		int ok = 1;
		if (ended || w[i][0] != '-' || !w[i][1])
			a->pos[a->npos++] = w[i];
		else if (!strcmp(w[i], "--"))
			ended = 1;
		else if (w[i][1] == '-')
			ok = noise_parse_long(p, w, n, &i, a);
		else
			ok = noise_parse_short(p, w, n, &i, a);
		if (!ok)
			return 0;
	}
	return 1;
}

/* ---- what the arguments do -------------------------------------------------- */

/* Past a sed regex or s part delimited by d from s; NULL when unended. */
static const char *noise_sed_part(const char *s, char d)
{
	for (; *s && *s != d; s++)
		if (*s == '\\' && s[1])
			s++;
	return *s ? s + 1 : NULL;
}

/* A sed script that only prints: commands parsed (addresses, s and y
 * with their parts skipped) and none of w, W, e, nor s///w or s///e; a
 * command we do not know makes it a write. */
static int noise_sed_script(const char *s)
{
	while (s && *s) {
		if (strchr(" \t\n;,!{}$~+0123456789", *s)) {
			s++;
			continue;
		}
		if (*s == '/' || *s == '\\') {  /* an address */
			char d = *s == '/' ? '/' : s[1];
			s = d ? noise_sed_part(s + (*s == '/' ? 1 : 2), d) : NULL;
			while (s && (*s == 'I' || *s == 'M'))
				s++;
			continue;
		}
		char c = *s++;
		if (c == 's' || c == 'y') {
			char d = *s;
			if (!d || d == '\n' || d == '\\')
				return 0;
			s = noise_sed_part(s + 1, d);
			s = s ? noise_sed_part(s, d) : NULL;
			for (; c == 's' && s && *s && strchr("gpiImM0123456789ew", *s); s++)
				if (*s == 'e' || *s == 'w')
					return 0;
		} else if (strchr("aicbtT:#rR", c)) {  /* text, label or a file read to the line's end */
			s += strcspn(s, c == 'b' || c == 't' || c == 'T' ? ";\n" : "\n");
		} else if (!strchr("pPdDnNgGhHxlqQzF=v", c)) {
			return 0;  /* w, W, e or one we do not know */
		}
	}
	return s != NULL;
}

/* sed's scripts (-e, --expression, else the first word) only print. */
static int noise_sed_check(const struct noise_args *a)
{
	int given = 0;
	for (size_t k = 0; k < a->nopt; k++)
		if (a->opt[k] == 'e') {
			given = 1;
			if (!a->oarg[k] || !noise_sed_script(a->oarg[k]))
				return 0;
		}
	if (given)
		return 1;
	return a->npos > 0 && noise_sed_script(a->pos[0]);
}

/* uniq IN OUT writes OUT. */
static int noise_uniq_check(const struct noise_args *a)
{
	return a->npos <= 1;
}

/* find's expression: tests and -print forms; -delete, -exec, -ok, -fprint,
 * -fls write or run, and a primary we do not know is shown. */
static int noise_find_check(const struct noise_args *a)
{
	static const char *const with_arg[] = { "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename",
		"-type", "-xtype", "-maxdepth", "-mindepth", "-newer", "-mtime", "-mmin", "-atime", "-amin", "-ctime",
		"-cmin", "-size", "-regex", "-iregex", "-perm", "-user", "-group", "-printf", "-regextype", "-links",
		"-samefile", "-inum", "-uid", "-gid", "-lname", "-ilname", NULL };
	static const char *const alone[] = { "-print", "-print0", "-ls", "-o", "-or", "-a", "-and", "-not", "!",
		"(", ")", "\\(", "\\)", "-empty", "-prune", "-follow", "-xdev", "-mount", "-depth", "-true", "-false",
		"-readable", "-writable", "-executable", "-nouser", "-nogroup", "-quit", "-L", "-H", "-P", ",", NULL };
	char **w = a->w;
	size_t n = a->n;
	for (size_t i = 1; i < n; i++) {
		if (w[i][0] != '-' && w[i][0] != '!' && w[i][0] != '(' && w[i][0] != ')' && strcmp(w[i], "\\(") &&
		    strcmp(w[i], "\\)") && strcmp(w[i], ","))
			continue;  /* a starting point */
		if (noise_in(alone, w[i], strlen(w[i])))
			continue;
		if (noise_in(with_arg, w[i], strlen(w[i])) && i + 1 < n) {
			i++;
			continue;
		}
		return 0;
	}
	return 1;
}

/* git that only looks: a looking subcommand with options from this list;
 * -c, --exec-path, --git-dir, --output, --ext-diff, an option we do not
 * know are shown. */
static int noise_git_check(const struct noise_args *a)
{
	static const char *const looks[] = { "status", "log", "diff", "show", "ls-files", "rev-parse", "blame",
		"branch", NULL };
	static const char *const opts[] = { "--stat", "--shortstat", "--numstat", "--oneline", "--name-only",
		"--name-status", "--short", "-s", "--porcelain", "-p", "--patch", "--cached", "--staged",
		"--no-color", "--color", "--graph", "--all", "--decorate", "--abbrev-commit", "--word-diff",
		"--no-ext-diff", "--no-textconv", "--summary", "--reverse", "--first-parent", "--no-merges",
		"--show-toplevel", "--abbrev-ref", "--verify", "--untracked-files", "-u", "-b", "--branch", "-a",
		"--list", "-v", "-l", "-w", "--ignore-all-space", "--others", "--exclude-standard", "-o", "--format",
		"--pretty", "-n", "--max-count", "--since", "--until", "--author", "--grep", "-U", "--unified",
		"--stat-width", "--follow", "--ignored", "--", "HEAD", NULL };
	char **w = a->w;
	size_t n = a->n, i = 1;
	while (i < n && (!strcmp(w[i], "--no-pager") || !strcmp(w[i], "-P") || !strcmp(w[i], "--no-optional-locks") ||
			 (!strcmp(w[i], "-C") && i + 1 < n)))
		i += strcmp(w[i], "-C") ? 1 : 2;
	if (i >= n || !noise_in(looks, w[i], strlen(w[i])))
		return 0;
	int branch = !strcmp(w[i], "branch");
	for (i++; i < n; i++) {
		if (branch && w[i][0] != '-')
			return 0;  /* git branch NAME makes a branch */
		const char *o = w[i];
		if (o[0] != '-')
			continue;  /* a revision or a path */
		size_t len = strcspn(o, "=");
		if (o[1] != '-' && isdigit((unsigned char)o[1]) && noise_is_num(o + 1))
			continue;  /* log -3 */
		if (o[1] != '-' && (o[1] == 'n' || o[1] == 'U') && noise_is_num(o + 2))
			continue;  /* -n5, -U0 */
		if (!noise_in(opts, o, len))
			return 0;
		if (branch && strcmp(o, "--list") && strcmp(o, "-v") && strcmp(o, "-a") && strcmp(o, "-l") &&
		    strcmp(o, "--all"))
			return 0;  /* git branch NAME and its -d, -m ... change the repository */
		if ((!strcmp(o, "-n") || !strcmp(o, "--max-count") || !strcmp(o, "--format") || !strcmp(o, "--author") ||
		     !strcmp(o, "--grep") || !strcmp(o, "--since") || !strcmp(o, "--until") || !strcmp(o, "-U")) &&
		    i + 1 < n)
			i++;
	}
	return 1;
}

/* nvidia-smi that only queries: -pm, -lgc, -pl ... change the GPU. */
static int noise_smi_check(const struct noise_args *a)
{
	static const char *const ok[] = { "-q", "--query", "-L", "--list-gpus", "-x", "--xml-format", "topo",
		"-m", "--matrix", "-l", "--loop", NULL };
	static const char *const pre[] = { "--query-gpu=", "--query-compute-apps=", "--format=", "--id=",
		"--display=", "--loop=", NULL };
	char **w = a->w;
	size_t n = a->n;
	for (size_t i = 1; i < n; i++) {
		int good = noise_in(ok, w[i], strlen(w[i]));
		for (int k = 0; !good && pre[k]; k++)
			good = !strncmp(w[i], pre[k], strlen(pre[k]));
		if (!good && (!strcmp(w[i], "-i") || !strcmp(w[i], "-d") || !strcmp(w[i], "--id") ||
			      !strcmp(w[i], "--display")) && i + 1 < n) {
			good = 1;
			i++;
		}
		if (!good)
			return 0;
	}
	return 1;
}

/* A program word we trust to be the program of that name: a bare name
 * (found on PATH), or one in /bin or /usr/bin; ./cat, bin/cat or a quoted
 * path could be anything the agent wrote. */
static const struct noise_prog *noise_program(const char *w)
{
	const char *name = w;
	if (!strncmp(w, "/usr/bin/", 9))
		name = w + 9;
	else if (!strncmp(w, "/bin/", 5))
		name = w + 5;
	if (strchr(name, '/'))
		return NULL;
	return noise_prog_find(name);
}

/* One simple command [s, e) of the masked command (quotes' contents made
 * x), the same bytes as written at orig: its program (after safe VAR=value
 * words) reads, with every option known and harmless. */
static int noise_simple_reads(const char *s, const char *e, const char *orig)
{
	size_t n;
	char **w = noise_words(orig, orig + (e - s), &n);
	size_t i = 0;
	int reads = n < NOISE_MAXW;
	for (; i < n && strchr(w[i], '=') && w[i][0] != '='; i++) {
		size_t k = (size_t)(strchr(w[i], '=') - w[i]);
		if (!noise_in(noise_safe_vars, w[i], k))
			reads = 0;  /* LD_PRELOAD=x.so cat f runs x.so */
	}
	if (reads && i < n) {
		const struct noise_prog *p = noise_program(w[i]);
		struct noise_args a;
		memset(&a, 0, sizeof a);
		reads = p && ((p->flags & NP_OWN) || noise_parse(p, w + i, n - i, &a));
		a.w = w + i;
		a.n = n - i;
		reads = reads && (!p->check || p->check(&a));
	}
	for (size_t k = 0; k < n; k++)
		free(w[k]);
	free(w);
	return reads;
}

/* A redirection that writes a file: >, >>, >|, &>, <> or >&FILE to
 * anything but /dev/null or another descriptor (2>&1, >&2, >&-). */
static int noise_writes(const char *c)
{
	for (const char *p = strchr(c, '>'); p; p = strchr(p + 1, '>')) {
		const char *q = p + 1;
		if (*q == '>')
			q++;
		if (*q == '&') {
			const char *d = q + 1;
			while (isdigit((unsigned char)*d))
				d++;
			if (*d == '-')
				d++;
			if (d > q + 1 && (!*d || strchr(" \t\n;|&)", *d)))
				continue;  /* 2>&1: a descriptor, no file */
			q++;
		}
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "/dev/null", 9) || (q[9] && !strchr(" \t\n;|&)", q[9])))
			return 1;
	}
	return strstr(c, "<<") || strstr(c, "$(") || strstr(c, "<(") || strchr(c, '`') || strstr(c, "tee ");
}

/* "bash -lc 'cmd'" -> cmd (owned), else a copy. */
static char *noise_unwrap(const char *cmd)
{
	static const char *const shells[] = { "bash -lc ", "bash -c ", "sh -c ", "sh -lc ", "zsh -lc ", "zsh -c ", NULL };
	while (isspace((unsigned char)*cmd))
		cmd++;
	for (int i = 0; shells[i]; i++) {
		size_t n = strlen(shells[i]);
		if (!strncmp(cmd, shells[i], n)) {
			const char *s = cmd + n;
			size_t len = strlen(s);
			while (len && isspace((unsigned char)s[len - 1]))
				len--;
			if (len >= 2 && (s[0] == '\'' || s[0] == '"') && s[len - 1] == s[0])
				return xstrndup(s + 1, len - 2);
			return xstrndup(s, len);
		}
	}
	return xstrdup(cmd);
}

/* cmd with what its quotes hold made 'x' (a '|' or '>' in a grep pattern
 * is no pipe or redirection); NULL when a double quote runs a command
 * ($(...) or `...`). Owned. */
static char *noise_unquote(const char *cmd)
{
	char *c = xstrdup(cmd);
	char q = 0;
	for (char *p = c; *p; p++) {
		if (q && *p == q) {
			q = 0;
		} else if (q) {
			if (q == '"' && (*p == '`' || (*p == '$' && p[1] == '('))) {
				free(c);
				return NULL;
			}
			if (q == '"' && *p == '\\' && p[1])
				*p++ = 'x';
			*p = 'x';
		} else if (*p == '\\' && p[1]) {
			*p++ = 'x';
			*p = 'x';
		} else if (*p == '\'' || *p == '"') {
			q = *p;
		}
	}
	return c;
}

int noise_command_reads(const char *cmd)
{
	if (!cmd)
		return 0;
	char *u = noise_unwrap(cmd);
	char *c = noise_unquote(u);  /* the same length as u */
	int reads = c && !noise_writes(c);
	for (char *p = c; reads && (p = strstr(p, ">&"));) {  /* 2>&1 joins no commands */
		p[0] = p[1] = ' ';
		for (p += 2; *p >= '0' && *p <= '9'; p++)
			*p = ' ';
	}
	const char *s = c;
	while (reads && *s) {
		const char *e = s + strcspn(s, "|&;\n");
		reads = noise_simple_reads(s, e, u + (s - c));
		s = e;
		while (*s == '|' || *s == '&' || *s == ';' || *s == '\n')
			s++;
	}
	free(c);
	free(u);
	return reads;
}

/* Whether a tool call only reads. */
static int noise_call_reads(struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	if (run_event_diff(r, i))
		return 0;
	if (e->name && noise_in(noise_read_tools, e->name, strlen(e->name)))
		return 1;
	char *cmd = runstats_command(e);
	int reads = noise_command_reads(cmd);
	free(cmd);
	return reads;
}

int noise_event(struct run *r, size_t i)
{
	const struct event *e = &r->ev[i];
	switch (e->kind) {
	case EV_USAGE:
	case EV_SYSTEM:
		return 1;
	case EV_TOOL_CALL:
		return noise_call_reads(r, i);
	case EV_TOOL_RESULT:
		return e->link >= 0 && (size_t)e->link < r->nev && r->ev[e->link].kind == EV_TOOL_CALL &&
		       noise_call_reads(r, (size_t)e->link);
	default:
		return 0;
	}
}

size_t noise_mark(struct run *r, size_t from, unsigned char *hide)
{
	size_t n = 0;
	for (size_t i = from; i < r->nev; i++)
		n += (hide[i] = (unsigned char)noise_event(r, i));
	return n;
}

/* Event i's mark set again, the count kept. */
static void noise_remark(struct noise_marks *m, struct run *r, size_t i)
{
	unsigned char h = (unsigned char)noise_event(r, i);
	m->nhidden += (size_t)h - m->hide[i];
	m->hide[i] = h;
}

void noise_marks_update(struct noise_marks *m, struct run *r, size_t from)
{
	if (from > m->n)
		from = m->n;
	if (r->nev < m->n) {   /* fewer events than were marked: read again from the start */
		from = 0;
	}
	for (size_t i = from; i < m->n; i++)
		m->nhidden -= m->hide[i];
	m->hide = xgrow(m->hide, &m->cap, r->nev + 1, 1);
	memset(m->hide + from, 0, r->nev + 1 - from);
	m->n = r->nev;
	for (size_t i = from; i < r->nev; i++) {
		noise_remark(m, r, i);
		const struct event *e = &r->ev[i];
		if (e->kind == EV_TOOL_RESULT && e->link >= 0 && (size_t)e->link < from)
			noise_remark(m, r, (size_t)e->link);   /* its call, completed by it */
	}
	free(m->shown);
	m->shown = xmalloc((r->nev - m->nhidden + 1) * sizeof *m->shown);
	m->nshown = 0;
	for (size_t i = 0; i < r->nev; i++)
		if (!m->hide[i])
			m->shown[m->nshown++] = i;
}

void noise_marks_free(struct noise_marks *m)
{
	free(m->hide);
	free(m->shown);
	memset(m, 0, sizeof *m);
}

size_t *noise_shown(struct run *r, size_t *nshown, size_t *nhidden)
{
	unsigned char *hide = xcalloc(r->nev + 1, 1);
	size_t nh = noise_mark(r, 0, hide), k = 0;
	size_t *shown = xmalloc((r->nev - nh + 1) * sizeof *shown);
	for (size_t i = 0; i < r->nev; i++)
		if (!hide[i])
			shown[k++] = i;
	free(hide);
	*nshown = k;
	*nhidden = nh;
	return shown;
}
