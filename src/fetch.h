/* fetch.h: `kbtui fetch`: downloads a dataset from the Hugging Face Hub
 * with libcurl, several files at once (multi interface).
 *
 * Each file goes to <dest>/<dir>/.<name>.part and is renamed to its name
 * only after its size and checksum (sha256 for LFS files, git's blob id
 * otherwise) verify, so a partial file is never seen under its final name.
 * An interrupted .part resumes with a Range request. A file already equal
 * to the Hub's copy is left alone; one changed here since kbtui fetched it
 * (an annotation being edited) is kept and reported, never overwritten.
 * <dest>/.kbtui-fetch/ holds a lock and the manifest of what was written. */
#ifndef KB_FETCH_H
#define KB_FETCH_H

#include <stdio.h>

#define FETCH_DEFAULT_JOBS 4
#define FETCH_MAX_JOBS 64

struct fetch_opts {
	const char *endpoint;     /* as hub_endpoint() returns it */
	const char *repo;         /* "owner/name", checked */
	const char *revision;     /* branch, tag or commit, checked */
	const char *dest;         /* directory, created when absent */
	const char *token;        /* HF_TOKEN or NULL; sent, never shown or stored */
	int jobs;                 /* transfers at once, 1..FETCH_MAX_JOBS */
	int progress;             /* draw a progress line on err (a terminal) */
	int quiet;                /* no summary on out */
};

struct fetch_stats {
	size_t files;             /* files the listing names */
	size_t fetched;           /* downloaded (or completed from a .part) and verified */
	size_t uptodate;          /* already equal to the Hub's copy */
	size_t kept;              /* changed here, left alone */
	size_t failed;            /* could not be fetched */
	size_t refused;           /* listing entries refused (unsafe path, bad fields) */
	long long bytes;          /* bytes received this run */
};

/* Lists the dataset and downloads what is missing or out of date. Messages
 * go to err, the summary to out. Returns 0 when every listed file is here
 * and verified, 1 otherwise. curl_global_init must have been called. */
int fetch_run(const struct fetch_opts *o, struct fetch_stats *st, FILE *out, FILE *err);

/* Where a dataset is fetched to by default: $XDG_DATA_HOME/kbtui/<name>
 * (~/.local/share when unset), <name> being the repo's name: for the
 * default repo, the directory `kbtui` with no argument opens. NULL when
 * neither XDG_DATA_HOME nor HOME is set. Owned by caller. */
char *fetch_default_dest(const char *repo);

/* kbtui fetch [--repo R] [--revision REV] [--dest DIR] [--jobs N] [--quiet]
 * argv[0] is "fetch". Exit status: 0 ok, 1 failure, 2 usage. */
int cmd_fetch(int argc, char **argv, FILE *out, FILE *err);

#endif
