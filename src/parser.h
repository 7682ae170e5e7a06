/* parser.h: one parser per harness format, chosen by a sniffer that looks
 * at content (never at file names), fed incrementally line by line.
 *
 * Adding a format is adding a file parse_<name>.c that defines a
 * `const struct parser_ops parse_<name>_ops` (with its ignored-record
 * table, record types, harness and token rule) and one line in
 * formats.def; nothing else in the tree names formats. */
#ifndef KB_PARSER_H
#define KB_PARSER_H

#include <stddef.h>
#include <cjson/cJSON.h>
#include "run.h"
#include "ftrack.h"
#include "util.h"

struct parse_ctx {
	struct run *run;          /* borrowed: where events go */
	struct ftrack *files;     /* borrowed: the run's file versions (run_files) */
	void *state;              /* owned via ops->state_new/state_free */
	int lineno;               /* 1-based line being fed */
	int folded;               /* set by a parser: this line changed an event it
	                           * made before (usage merged, a summary filled in)
	                           * rather than adding one; reset for each line */
};

/* A record type a format reads without making an event of it, and why:
 * the one table of ignored records, shown by the man page and checked by
 * tests/test_realworld against real transcripts. */
struct parser_ignored {
	const char *type;         /* record key as the format's record_key gives it */
	const char *why;          /* one line: what the record is, why no event */
};

/* Lines read per record key (tests and `kbtui dump --records`): whether a
 * record type became events, or was dropped. */
#define PARSER_MAX_KEYS 96
struct parser_tally {
	struct parser_tally_key {
		char key[48];
		int lines;            /* lines with this key */
		int used;             /* of them, lines that made or changed events */
	} k[PARSER_MAX_KEYS];
	int n;
	int overflow;             /* keys beyond PARSER_MAX_KEYS (counted nowhere) */
};

struct parser_ops {
	const char *name;         /* the --format name: "claude", "codex", ... */
	const char *description;  /* one line for --help and the man page */
	/* Confidence 0..100 that this line belongs to this format. obj is the
	 * parsed line, NULL when the line is not JSON (plain-text formats). */
	int (*sniff)(const char *line, size_t len, const cJSON *obj);
	void *(*state_new)(void);
	void (*state_free)(void *state);
	/* One complete line (no newline). obj as for sniff. Returns 0, or -1
	 * for a malformed line after calling run_error(ctx->run, ctx->lineno, ...). */
	int (*line)(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj);
	/* End of input so far: flush pending state; set run->incomplete when
	 * the completion marker was never seen. May be called more than once
	 * on a growing file; must be idempotent. */
	void (*finish)(struct parse_ctx *ctx);
	int plain_text;           /* 1: lines need not be JSON (codex-exec) */
	/* The record key of a line ("system/turn_duration"), written into buf;
	 * NULL for the default: "type", or "role", then "/subtype" when present. */
	const char *(*record_key)(const cJSON *obj, char *buf, size_t n);
	const struct parser_ignored *ignored; /* { NULL } terminated; may be NULL */
	/* Top-level "type" (or "role") values the format knows: what an
	 * unrecognised file is compared with to name the closest format. */
	const char *const *types;
	/* Hidden reasoning is Claude-style thinking that was redacted (1), or
	 * encrypted reasoning content (0): how runstats names it. */
	int thinking;
	/* File names a run directory holds this format's transcript under
	 * (dataset_find_transcript), NULL-terminated; may be NULL. */
	const char *const *transcript_names;
	/* The harness a run in this format was made with, for listings that
	 * have no index to say it ("claude", "codex", ...). */
	const char *harness;
	/* How the run's token totals are made from the file, for the man page
	 * and `kbtui formats` (one sentence). */
	const char *tokens;
	/* The first event a later line or finish may still read or change
	 * (other than its link and token counts, which run_link and usage
	 * merging set at any distance): an event the parser keeps open across
	 * lines. NULL: none but the last event, which formats that merge
	 * streamed pieces append to. See reader_settled. */
	size_t (*open_from)(const struct parse_ctx *ctx);
};

/* All formats, NULL-terminated. */
extern const struct parser_ops *const parser_all[];
const struct parser_ops *parser_find(const char *name);

/* Why a record key of a format makes no event: its entry's text, NULL when
 * the table has none (the record was dropped without a word). */
const char *parser_ignored_why(const struct parser_ops *ops, const char *key);
/* The record key of a parsed line under ops (buf holds at least 48 bytes). */
const char *parser_record_key(const struct parser_ops *ops, const cJSON *obj, char *buf, size_t n);

/* Best format for the first lines of a transcript; NULL when unsure. */
const struct parser_ops *parser_sniff(const char *buf, size_t len);

/* Incremental reader: feed bytes as they arrive; a last line without a
 * newline waits for more. The format is sniffed from the first lines
 * unless forced. */
struct reader;
struct reader *reader_new(struct run *run, const struct parser_ops *forced);
void reader_free(struct reader *rd);
void reader_feed(struct reader *rd, const char *buf, size_t len);
/* No more bytes for now: parse a final unterminated line if it is whole
 * JSON, run the parser's finish and link results to calls. For a growing
 * file, call reader_feed again later and reader_finish again. */
void reader_finish(struct reader *rd);
const struct parser_ops *reader_format(const struct reader *rd);
/* How many leading events are settled: no later line, nor finish, reads
 * or changes them, except for a call's link and a usage event's token
 * counts (run_link pairs a result with a call at any distance; Claude
 * Code's repeated lines of one message raise its usage at any distance).
 * The rule: every event but the last (merged streams append to it) and
 * none from the parser's open_from on. After reader_finish: all. */
size_t reader_settled(const struct reader *rd);
/* Byte offset consumed so far (for following a growing file). */
size_t reader_offset(const struct reader *rd);
/* Counts lines per record key into t (borrowed; zeroed by the caller) from
 * now on. */
void reader_tally(struct reader *rd, struct parser_tally *t);

/* Load a whole transcript file into a new run (NULL + *err on I/O failure;
 * *err owned by caller). */
struct run *parser_load_file(const char *path, const struct parser_ops *forced, char **err);
/* The same for a file that is finished: a last line without its newline
 * is parsed (plain text), or reported as cut off (JSON), where
 * parser_load_file leaves it waiting as a file still being written does. */
struct run *parser_load_final(const char *path, const struct parser_ops *forced, char **err);
/* parser_load_final, counting lines per record key into t (may be NULL). */
struct run *parser_load_tally(const char *path, const struct parser_ops *forced, char **err,
                              struct parser_tally *t);

/* A streamed load of a finished file, as parser_load_final but reading
 * slice bytes at a time (0: 1 MiB) and calling settled(arg, run, n)
 * after each slice with n = reader_settled, then once with n = run->nev
 * after the finish (its errors, format and links final by then). The
 * callback may free the strings of events before n (and may keep them:
 * a parser reads none of them again). *bytes: in, the most bytes to read
 * (SIZE_MAX: all); out, the bytes read, so that a second pass reads the
 * same file as the first even while it grows. */
typedef void (*parser_settled_fn)(void *arg, struct run *run, size_t settled);
struct run *parser_load_stream(const char *path, const struct parser_ops *forced, char **err,
                               size_t slice, size_t *bytes, parser_settled_fn settled, void *arg);

/* A finished transcript read a slice at a time, for the replay of a big
 * file: its first screen comes from the first bytes, the rest is read
 * between keys. Once done, the run is what parser_load_final makes. */
struct parser_loader;
/* NULL + *err (owned) when the file cannot be opened. */
struct parser_loader *parser_loader_open(const char *path, const struct parser_ops *forced, char **err);
/* Reads about budget bytes more (4 kB at least): 1 more to read,
 * 0 done (the run final), -1 a read error (*err owned). The run is linked
 * after each step, so it can be shown as it stands. */
int parser_loader_step(struct parser_loader *l, size_t budget, char **err);
/* A pipe or a terminal read from then on without waiting: a step reads
 * what is there and returns 1 (the keys stay answered while a slow pipe
 * fills). A regular file is left as it is. */
void parser_loader_nonblock(struct parser_loader *l);
/* The run as read so far (borrowed; NULL once taken). */
struct run *parser_loader_run(const struct parser_loader *l);
/* The run, owned by the caller from now on. */
struct run *parser_loader_take(struct parser_loader *l);
/* Bytes read, and the file's size (at open, or read since when larger;
 * 0 for a pipe, whose size is not known). */
void parser_loader_progress(const struct parser_loader *l, size_t *done, size_t *total);
/* Whether the file was read to its end and the run made final. */
int parser_loader_over(const struct parser_loader *l);
void parser_loader_free(struct parser_loader *l);
/* A loader of the same file from a line start on (the end of a big file
 * shown before the rest is read: ui/pager.c): offset, the byte the line
 * begins at; lines, the lines before it, so that events carry the file's
 * line numbers. ops: the format the head of the file chose. NULL + *err
 * (owned) when the file cannot be opened. */
struct parser_loader *parser_loader_open_at(const char *path, const struct parser_ops *ops, size_t offset,
                                            int lines, char **err);
/* The format chosen (NULL until the first lines chose one). */
const struct parser_ops *parser_loader_format(const struct parser_loader *l);
/* Where the whole lines read so far end: the byte after the last one's
 * newline, and how many there are. */
void parser_loader_where(const struct parser_loader *l, size_t *offset, int *lines);
/* The loader's file, open for reading (borrowed). */
int parser_loader_fd(const struct parser_loader *l);

/* Helpers for parsers. */
/* Adds a tool_call; fills path and records the file change (its diff is
 * rendered on first use, run_event_diff) for known file-writing tools by
 * looking at the arguments (claude Write/Edit/MultiEdit, opencode
 * write/edit, codex apply_patch, kimi WriteFile/StrReplaceFile ...).
 * args_json is the arguments as JSON text (owned by caller). */
struct event *parser_tool_call(struct parse_ctx *ctx, const char *name,
                               const char *call_id, const char *args_json);
/* The same, when the format already says whether the call took effect:
 * effects = 0 records the call without touching the file tracker. */
struct event *parser_tool_call_ex(struct parse_ctx *ctx, const char *name, const char *call_id,
                                  const char *args_json, int effects);
/* The same with the arguments as a parsed tree (borrowed): no printing
 * and parsing again of what the line already held; e->args is the tree's
 * compact JSON text, as parser_tool_call would have stored it. */
struct event *parser_tool_call_obj(struct parse_ctx *ctx, const char *name, const char *call_id,
                                   const cJSON *args, int effects);
struct event *parser_tool_result(struct parse_ctx *ctx, const char *call_id,
                                 const char *content, int is_error);
/* Appends text to e->text, amortised linear in the bytes appended (a
 * stream of thousands of deltas merged into one event must not copy the
 * event's text each time). view, kept in the parser's state, remembers
 * e->text's length and capacity between calls; it owns nothing (e does).
 * Reset view->s to NULL when a new event starts. */
void parser_append(struct event *e, struct sbuf *view, const char *text);
/* Adds a text-like event (system/user/reasoning/text/compaction/error) when
 * text is non-NULL; returns it (NULL when text is NULL). */
struct event *parser_text(struct parse_ctx *ctx, enum ev_kind k, const char *text);

#endif
