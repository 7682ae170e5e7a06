/* run.h: the one in-memory model of an agent run, whatever harness wrote it.
 * A run owns its metadata strings and its ordered events; events own their
 * strings. Parsers append events; nothing else mutates them after load. */
#ifndef KB_RUN_H
#define KB_RUN_H

#include <stddef.h>

struct ftrack;
struct run_linker;
struct provenance;

enum ev_kind {
	EV_SYSTEM,
	EV_USER,
	EV_REASONING,
	EV_TEXT,
	EV_TOOL_CALL,
	EV_TOOL_RESULT,
	EV_USAGE,
	EV_COMPACTION,
	EV_ERROR,
	EV__COUNT
};

const char *ev_kind_name(enum ev_kind k);        /* "tool_call", ... */

struct event {
	enum ev_kind kind;
	unsigned sidechain : 1;   /* from a subagent / sidechain */
	unsigned is_error : 1;    /* tool_result that failed, error events */
	unsigned redacted : 1;    /* reasoning present but hidden/encrypted/summary-only */
	double ts;                /* seconds since the epoch; 0 when the source has none */
	int line;                 /* 1-based source line that produced it */
	int link;                 /* call <-> result index, -1 when none */
	char *text;               /* owned: body, result content, system text */
	char *name;               /* owned: tool name (tool_call), subtype (system) */
	char *call_id;            /* owned: tool_call/tool_result pairing key */
	char *args;               /* owned: tool arguments as JSON text; for a turn_duration
	                           * system row, its durationMs (a JSON number) */
	char *path;               /* owned: file the call reads/writes, when known */
	char *diff;               /* owned: unified diff of a write/edit/patch, filled on
	                           * first use: read it through run_event_diff */
	char *parent;             /* owned: parent tool call id of a subagent event */
	char *summary;            /* owned: the one line a list shows for this event, set by a
	                           * parser where the usual rule (path, first string argument,
	                           * first line of text) would mislead; NULL otherwise */
	long long tok_in, tok_out, tok_cache_read, tok_cache_write, tok_reasoning;
};

struct run_meta {
	char *run_id, *harness, *model, *effort, *problem, *format;
	char *session_id, *cwd, *label;
	/* outcome (from result.json or runs.jsonl); has_result says whether known */
	int has_result, correct, has_solution, session_complete;
	double peak_fraction;     /* < 0 when none */
	double elapsed_seconds;   /* < 0 when unknown */
};

#define RUN_MAX_ERRORS 16

struct run_error {
	int line;
	char msg[160];
};

struct run {
	struct run_meta meta;
	struct event *ev;
	size_t nev, cap;
	int incomplete;           /* the format's completion marker is missing */
	int complete_seen;        /* set by a parser when it sees the marker */
	int malformed;            /* malformed lines seen */
	int tokens_approx;        /* token totals known to undercount (a parser says why) */
	struct run_error errors[RUN_MAX_ERRORS]; /* first few, with line numbers */
	int nerrors;
	char *source;             /* owned: transcript path, for messages */
	struct ftrack *files;     /* owned: file versions written (run_files), or NULL */
	struct run_linker *linker; /* owned: run_link's pairing state, or NULL */
	struct provenance *prov;  /* owned: the outcome as each dataset file says it
	                           * (dataset_load sets it), NULL otherwise */
};

struct run *run_new(void);
void run_free(struct run *r);
void run_meta_free(struct run_meta *m);
/* Empties a run for reading it again from the start (a followed file was
 * truncated or replaced): events, metadata and errors go; source stays. */
void run_clear(struct run *r);
/* The strings an event owns (the event itself is the run's). */
void run_event_free(struct event *e);
/* Frees the strings of a settled event that no later step of a streamed
 * read looks at (text, args, summary, diff: run_link reads the call id, a
 * parser the name of an open event, and those stay): a command that has
 * used an event lets its text go (reader_settled). */
void run_event_drop_text(struct event *e);
void run_meta_init(struct run_meta *m);
/* from's outcome (result, solution, completion, peak_fraction, elapsed
 * time) onto to. */
void run_meta_outcome(struct run_meta *to, const struct run_meta *from);
/* The names to lacks (run id, harness, model, effort, problem, format,
 * session, cwd, label) copied from from, and from's outcome: a part of a
 * run read apart (the end of a big file) described as the whole. */
void run_meta_fill(struct run_meta *to, const struct run_meta *from);

/* Appends a zeroed event of kind k (link = -1) and returns it. The pointer
 * is valid until the next run_add. */
struct event *run_add(struct run *r, enum ev_kind k, int line);
void run_error(struct run *r, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Pairs tool_result events with their tool_call by call_id (the oldest
 * unanswered call with that id before the result); results without id pair
 * in order with calls without id. Incremental: the events paired by an
 * earlier call are taken as they were (events are only appended; fewer
 * events than before pairs from the start), so a growing run pays for its
 * new events only. Linear in events. */
void run_link(struct run *r);
/* run_link from the first event, for a caller that changed events' kinds
 * or call ids in place. */
void run_link_again(struct run *r);
/* Hash-table slots looked at by pairing since the run was last paired from
 * the start: the work done, which tests hold to a linear bound. */
size_t run_link_probes(const struct run *r);
void run_linker_free(struct run_linker *lk);

/* The unified diff of event i's file change (write, edit, patch), NULL
 * when it changed no file. Rendered from the run's file versions on first
 * use and kept in e->diff (a cache: the run is logically unchanged). */
const char *run_event_diff(const struct run *r, size_t i);
/* The run's file versions, created on first use (see ftrack.h for what a
 * caller can ask of them: files written, content at a step). */
struct ftrack *run_files(struct run *r);
/* Whether file f of run_files as it stands after event ev cannot be
 * followed (an enum ftrack_doubt; 0: it can), *since (may be NULL) the
 * event from which on. An edit or patch that did not apply is no doubt
 * when its result says it failed: the file stayed as it was. */
int run_file_doubt(const struct run *r, size_t f, size_t ev, long *since);

/* Counts for summaries. */
size_t run_count(const struct run *r, enum ev_kind k);
/* Whether event i begins a model turn: reasoning, text or a tool call of the
 * main agent after anything else (a user message, tool results, the start).
 * Usage records and subagents' events neither begin nor break a turn. */
int run_turn_starts(const struct run *r, size_t i);
size_t run_turns(const struct run *r);
void run_tokens(const struct run *r, long long *in, long long *out,
                long long *cache_read, long long *cache_write, long long *reasoning);

#endif
