/* annot.h: annotation files (annotations/<run_id>.yaml) in the dataset's
 * schema, read and written with libyaml so that a document loaded and saved
 * unchanged comes back the same: same keys in the same order, same values,
 * scalar styles kept, keys we do not know kept. Writes are atomic and
 * guarded by a lock. */
#ifndef KB_ANNOT_H
#define KB_ANNOT_H

#include <stddef.h>

/* The schema's verdicts. Real files also use others (contamination,
 * harness_limited, fail): kept and shown, flagged as warnings. */
extern const char *const annot_verdicts[];
/* 1 when v is one of the schema's five. */
int annot_verdict_known(const char *v);
/* The schema's verdict closest to v (borrowed): the same word with '-' or
 * ' ' for '_' or in another case first, else the one the fewest edits
 * away; NULL when none is within half of v's length (no good guess). */
const char *annot_verdict_closest(const char *v);

enum ynode_kind { YN_SCALAR, YN_MAP, YN_SEQ };

/* A YAML node. Maps hold keys and values alternately in items. */
struct ynode {
	enum ynode_kind kind;
	char *value;              /* scalar text (owned), may contain NULs: see len */
	size_t len;
	char *shown;              /* value with each NUL as the two characters \0, for
	                           * readers of C strings (owned); NULL when it has none */
	int style;                /* yaml_scalar_style_t / yaml_*_style_t as read */
	char *tag;                /* explicit tag (owned) or NULL */
	int plain_implicit, quoted_implicit;
	struct ynode **items;     /* owned children */
	size_t n, cap;
	int line;                 /* 1-based line where it starts */
};

struct annot {
	struct ynode *root;       /* a mapping (owned) */
	char *path;               /* file it came from / goes to (owned) */
};

/* Loads one file. NULL on failure with *err (owned) naming the file and
 * *line the line (0 when unknown). */
struct annot *annot_load(const char *path, int *line, char **err);
/* The same from len bytes already read; path names them in messages. */
struct annot *annot_load_mem(const char *path, const char *bytes, size_t len, int *line, char **err);
/* A new annotation for a run, keys in the schema's order. */
struct annot *annot_new(const char *path);
void annot_free(struct annot *a);

/* Top-level scalar value (borrowed), NULL when absent or not a scalar. A
 * value holding a NUL ("clean\0 but...") comes back with it as \0, so that
 * the rest is not hidden and it equals no verdict. */
const char *annot_get(const struct annot *a, const char *key);
/* Sets a top-level scalar (added after the schema key it follows when new).
 * value NULL writes YAML null. */
void annot_set(struct annot *a, const char *key, const char *value);
/* The same with the scalar style (yaml_scalar_style_t) the text was given. */
void annot_set_styled(struct annot *a, const char *key, const char *value, int style);
/* 1 when v may be written as a plain scalar and reads back as the same string. */
int annot_plain_ok(const char *v);
void annot_set_number(struct annot *a, const char *key, double v, int is_null);
/* Appends a quote {file, lines: [s, e], label, text}. */
void annot_add_quote(struct annot *a, const char *file, int start, int end,
                     const char *label, const char *text);

/* Serialises to YAML text (owned), with a blank line between top-level
 * sections for the humans who also edit these files. */
char *annot_emit(const struct annot *a, char **err);
/* Atomic save: temporary file in the same directory, fsync, rename, under
 * the annotations directory's lock. If the file changed on disk since it
 * was loaded (expected_mtime_ns != 0 and differs) the save is refused so
 * another annotator's work is not overwritten. 0 ok, -1 with *err. */
int annot_save(const struct annot *a, const char *path, long long expected_mtime_ns, char **err);
long long annot_mtime_ns(const char *path);   /* 0 when absent */
/* What a view saw of an annotation file: a change of any of these means
 * someone wrote it since (an editor that renames keeps no inode). */
struct annot_version {
	int exists;
	long long size, mtime_ns;
	unsigned long long ino, dev;
};
void annot_version_get(const char *path, struct annot_version *v);
int annot_version_same(const struct annot_version *a, const struct annot_version *b);
/* The one lock file of an annotations directory, beside the files. */
#define ANNOT_LOCK_NAME ".kbtui.lock"
/* A temporary file of ours this old, found with the lock held, is a killed
 * writer's and is removed on the next write of that annotation. */
#define ANNOT_TEMP_STALE_S (10 * 60)
/* The lock every writer of an annotation takes: flock on ANNOT_LOCK_NAME in
 * path's directory (opened without following links, refused when it is not
 * a regular file), waiting up to two seconds for another annotator's save.
 * The fd, or -1 with *err (owned). */
int annot_lock(const char *path, char **err);
/* With the lock held: path replaced by len bytes (removed when bytes is
 * NULL) through a temporary file ".<name>.XXXXXX", fsync and rename, the
 * directory synced: a crash leaves the old file or the new one. Stale
 * temporary files of path's (see ANNOT_TEMP_STALE_S) are removed first.
 * 0, or -1 with *err. */
int annot_replace(const char *path, const char *bytes, size_t len, char **err);

/* Schema check. Appends one message per line to *msgs (owned, may be NULL
 * when none); returns the number of errors (warnings do not count). */
int annot_check(const struct annot *a, char **msgs);

/* Deep equality of two node trees (values, keys, order; not styles). */
int ynode_equal(const struct ynode *a, const struct ynode *b);

#endif
