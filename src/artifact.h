/* artifact.h: a run's artifacts as line-addressable texts, each under the
 * name an annotation quote's `file` gives it, so that a quote of lines
 * [a, b] of an artifact is exactly the bytes of those lines of that file.
 *
 * The transcript is one of them: real annotations quote it by physical
 * line of the JSONL file (`file: transcript.jsonl`, `lines: [127]`), so it
 * is shown and quoted as the raw file, line for line. */
#ifndef KB_ARTIFACT_H
#define KB_ARTIFACT_H

#include <stddef.h>

struct run;

struct artifact {
	char *name;               /* "solution.py", "check.log", ... (owned) */
	char *path;               /* the file read (owned); NULL when made from the run */
	char *text;               /* its bytes, NUL-terminated (owned) */
	size_t len;
	size_t *line_off;         /* offset of each line's first byte (owned) */
	size_t nlines;            /* a last line without '\n' counts; "" has none */
	char *refused;            /* why the file was not read (owned), NULL when it was:
	                           * such an entry has no text and no lines */
};

struct artifacts {
	struct artifact *v;       /* owned, in the order the pane shows them */
	size_t n;
};

/* The artifacts of the run in run_dir (may be NULL): solution.py or
 * solution.cu, check.log, benchmark.log, stderr.log, result.json, the final
 * answer (final.txt, else the run's last assistant text, when run is given),
 * and the transcript (transcript path, may be NULL). Missing ones are
 * absent. A file must resolve, links followed, inside the dataset (the
 * directory above runs/ when run_dir is runs/<R>, else run_dir) and be a
 * regular file; one that does not is listed with the reason in `refused`
 * (a solution.py linked to /etc/shadow is shown as refused, never read).
 * Never NULL. */
struct artifacts *artifacts_load(const char *run_dir, const struct run *run, const char *transcript);
void artifacts_free(struct artifacts *as);
/* as brought up to date after the run grew (a big file read between keys,
 * watch, live), with the same arguments as artifacts_load: the small files
 * and the final answer read again, the transcript's new bytes appended and
 * their lines indexed (read again whole only when it is not the file it
 * was with more at its end). 1 when the artifacts are the same files in
 * the same order (a pane keeps its places in them), 0 when not. */
int artifacts_refresh(struct artifacts *as, const char *run_dir, const struct run *run, const char *transcript);

/* Line i (0-based) without its newline: pointer into a->text, *len bytes. */
const char *artifact_line(const struct artifact *a, size_t i, size_t *len);
/* The directory artifacts must resolve inside (owned, resolved), NULL when
 * run_dir does not exist. */
char *artifact_root(const char *run_dir);
/* Lines [start, end] (1-indexed, inclusive) verbatim, each with its
 * newline as the file has it (owned); NULL when out of range. */
char *artifact_quote_text(const struct artifact *a, int start, int end);

/* The artifact named name, NULL when absent or refused. */
const struct artifact *artifacts_find(const struct artifacts *as, const char *name);
/* The run directory's final copy of a file the agent wrote (tracked_path,
 * any directory: its base name, solution.py or solution.cu), NULL when the
 * run directory has none: what to show where the file's versions cannot
 * be followed to the end (ftrack_file_doubt). */
const struct artifact *artifacts_final(const struct artifacts *as, const char *tracked_path);

#endif
