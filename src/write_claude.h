/* write_claude.h: a transcript written as Claude Code's stream-json, the
 * format src/parse_claude.c reads: `kbtui live` records its runs so, and
 * every reader of the dataset (replay, watch, search, flags) takes them as
 * it takes Claude Code's. Each line is written whole, at once and
 * unbuffered, so that a watcher sees it and a crash loses at most the line
 * in flight; a failed write (a full disk) cuts the file back to its last
 * whole line, so that it stays valid JSONL, and is kept in err: nothing
 * more is written. The secret (an API key) is scrubbed from every line. */
#ifndef KB_WRITE_CLAUDE_H
#define KB_WRITE_CLAUDE_H

#include <sys/types.h>

struct llm_call;
struct llm_reply;

struct write_claude {
	int fd;
	char *path;                 /* owned */
	off_t len;                  /* where its last whole line ends */
	char *err;                  /* the first failed write, NULL: none (owned) */
	char session[40];           /* every line's session_id */
	const char *secret;         /* scrubbed from every line (borrowed; NULL: none) */
	const char *model;          /* the assistant lines' (borrowed) */
};

/* Creates (or empties) path; 0, or -1 with *err (owned). */
int write_claude_open(struct write_claude *w, const char *path, const char *secret, const char *model, char **err);
/* The init line: the work directory, the tools' names, and what kbtui
 * adds under "kbtui_live" (provider; problem, NULL: none). */
void write_claude_init(struct write_claude *w, const char *cwd, const char *const *tools, int ntools,
                       const char *provider, const char *problem);
void write_claude_user(struct write_claude *w, const char *text);
/* A system line of this subtype ("retry", "api_error": level error). */
void write_claude_system(struct write_claude *w, const char *subtype, const char *text);
/* The blocks of a model's reply, one assistant line each, sharing turn's
 * message id and the reply's usage: its reasoning, its text, a tool call. */
void write_claude_reasoning(struct write_claude *w, const struct llm_reply *r, int turn);
void write_claude_text(struct write_claude *w, const struct llm_reply *r, int turn);
void write_claude_call(struct write_claude *w, const struct llm_reply *r, int turn, const struct llm_call *c);
/* A tool's result, as a user line. */
void write_claude_result(struct write_claude *w, const char *call_id, const char *text, int is_error);
/* The last line: the end (subtype, is_error, the final text), the turns,
 * the wall time and the run's token sums. */
struct write_claude_end {
	const char *subtype;        /* "success", "error_aborted", ... */
	int is_error, turns;
	const char *text;
	double seconds;
	long long tok_in, tok_out, tok_cache_read, tok_cache_write;
};
void write_claude_final(struct write_claude *w, const struct write_claude_end *e);
/* Flushes to disk and closes; the first error of the file's (err), or 0. */
int write_claude_close(struct write_claude *w);
void write_claude_free(struct write_claude *w);

#endif
