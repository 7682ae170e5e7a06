/* agent.h: the live agent loop. A model (through llm.h) works on a problem
 * in a work directory with five tools -- bash, read_file, write_file,
 * edit_file, eval -- until it stops calling tools, a budget (wall clock,
 * turns, tokens) is spent, or the caller aborts.
 *
 * The run is recorded as it goes into <rundir>/transcript.jsonl, one line
 * per event, flushed, in the shape of Claude Code's stream-json output so
 * the claude parser replays it (format in kbtui(1), LIVE TRANSCRIPTS):
 *   {"type":"system","subtype":"init","session_id","model","cwd","tools":[..],"mcp_servers":[],"kbtui_live":{provider,problem}}
 *   {"type":"user","message":{"role":"user","content":[{"type":"text","text":PROMPT}]}}
 *   {"type":"assistant","message":{"id","model","content":[ONE block],"usage":{..}}}
 *       one line per block (thinking, text, tool_use{id,name,input}), all
 *       lines of a reply sharing its message id and usage
 *   {"type":"user","message":{"content":[{"type":"tool_result","tool_use_id","content","is_error"}]}}
 *   {"type":"system","subtype":"retry"|"api_error","content":WHY}
 *   {"type":"result","subtype":"success"|"error_max_turns"|"error_budget"|"error_aborted"|"error_during_execution",
 *    "is_error","result","num_turns","duration_ms","usage","total_cost_usd":0}
 * Every line has "session_id" and "timestamp". The API key never reaches
 * the file: the tools' environment drops it and every line is scrubbed. */
#ifndef KB_AGENT_H
#define KB_AGENT_H

#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include "llm.h"
#include "sandbox.h"

enum agent_end {
	AGENT_DONE,            /* the model stopped calling tools */
	AGENT_BUDGET_TIME,
	AGENT_BUDGET_TURNS,
	AGENT_BUDGET_TOKENS,
	AGENT_ABORTED,
	AGENT_ERROR,           /* the model could not be reached or answered wrong */
};

/* One recorded event, for a log line or a screen: kind is "init", "user",
 * "reasoning", "text", "tool_call", "tool_result", "usage", "retry",
 * "error" or "result"; name the tool (tool_call/result), text the body. */
typedef void (*agent_event_fn)(void *ud, const char *kind, const char *name,
                               const char *text, int is_error);

struct agent_opts {
	struct llm_opts llm;        /* provider, base_url, api_key, model, retries ...;
	                             * system and tools are the agent's */
	const char *workdir;        /* the tools act here and nowhere else */
	const char *rundir;         /* transcript.jsonl, result.json, eval logs */
	const char *prompt;
	const char *problem;        /* for eval; NULL: eval is unavailable */
	const char *problems_dir;   /* NULL: problem_default_dir() */
	double budget_s;            /* wall clock; <= 0: none */
	int max_turns;              /* <= 0: none */
	long long max_tokens;       /* input + output over the run; <= 0: none */
	double bash_timeout_s;      /* default per command; <= 0: 300 */
	size_t output_cap;          /* bytes of tool output kept; 0: 64 KiB */
	enum sandbox_kind sandbox;  /* where bash runs (the caller checked it works) */
	int stream_retries;         /* a dropped stream retries the turn this often; < 0: never, 0: 2 */
	int final_eval;             /* run the backend's eval at the end for result.json */
	volatile sig_atomic_t *abort;
	/* Before each turn after the first: a message the user wrote for the
	 * agent (malloc'd, the agent frees it) or NULL. A screen pauses the run
	 * "after the current turn" by not returning until the user resumes. */
	char *(*inbox)(void *ud);
	agent_event_fn on_event;
	/* At the start of each turn and once its tokens are counted: the turn
	 * number and the run's tokens so far (a status line). May be NULL. */
	void (*on_progress)(void *ud, int turn, long long tok_in, long long tok_out);
	void *ud;                   /* for inbox, on_event and on_progress; the
	                             * streamed deltas go to llm.on_delta(llm.ud) */
};

struct agent_result {
	enum agent_end end;
	int turns, tool_calls;
	long long tok_in, tok_out;
	double seconds;
	char *error;                /* owned; why it ended in AGENT_ERROR */
};

/* Runs the loop. 0 when the run was recorded (whatever its end), -1 when
 * the run directory could not be written (r->error says why). */
int agent_run(const struct agent_opts *o, struct agent_result *r);
void agent_result_free(struct agent_result *r);
const char *agent_end_name(enum agent_end e);

/* One tool call as the loop makes it: the result text (owned) and
 * *is_error. Uses o->workdir, bash_timeout_s, output_cap, problem. */
char *agent_tool(const struct agent_opts *o, const char *name, const char *args_json, int *is_error);

/* "45m", "90s", "2h", "1h30m", "600" (seconds); -1 when malformed. */
double agent_parse_duration(const char *s);

/* `kbtui live`: argv[0] is the command name; options as in kbtui(1).
 * Returns 0 when the model finished, 1 on a failed or cut-short run,
 * 2 on usage errors. Headless whatever the options say. */
int cmd_live(int argc, char **argv, FILE *out, FILE *err);

/* A parsed `kbtui live` command line and the run it set up, for the
 * headless log here and the screen (ui/live.c). */
struct live_cmd {
	struct agent_opts o;        /* ready but for on_event, ud, abort, inbox */
	int headless;               /* --headless */
	char *owned[5];             /* what o's strings point into */
	char *key;                  /* our copy of the API key (wiped when freed) */
};

/* Parses the options, checks the key and the sandbox, makes the run and
 * work directories. -1 when lc is ready (free it with cmd_live_free), else
 * the exit code: help was printed or err says what is wrong. */
int cmd_live_prepare(int argc, char **argv, struct live_cmd *lc, FILE *out, FILE *err);
void cmd_live_free(struct live_cmd *lc);
/* Runs lc with a log line per event on out; the exit code of cmd_live. */
int cmd_live_headless(struct live_cmd *lc, FILE *out, FILE *err);

#endif
