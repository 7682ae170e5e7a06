/* fakellm.h: the script of tests/fakellm, one reply a request, and how to
 * build it from a real recorded transcript (fakellm_replay.c). */
#ifndef KB_FAKELLM_H
#define KB_FAKELLM_H

#include <cjson/cJSON.h>

/* A script is a JSON array of replies, each an object:
 *   {"reasoning": "...", "text": "...",
 *    "calls": [{"name": "bash", "args": "{\"command\":\"ls\"}"}, ...],
 *    "prompt_tokens": N, "completion_tokens": N, "cache_read_tokens": N,
 *    "chunk": 4, "args_chunk": 48, "delay_ms": 0}
 * ("tool" and "args" name a single call, the older form.) */

struct replay_stats {
	int replies, calls, skipped;
	char *skipped_names;      /* owned: "TodoWrite x6, Glob x1", "" when none */
};

/* The replies of the recorded run at path, its tool calls mapped to the
 * live agent's tools (bash, read_file, write_file, edit_file): a new JSON
 * array, or NULL with *err (owned). Fills *st. */
cJSON *replay_script(const char *path, struct replay_stats *st, char **err);

#endif
