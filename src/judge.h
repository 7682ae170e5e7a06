/* judge.h: an LLM judge that proposes, never decides. A run condensed
 * (the task, each tool call with its result cut, the diffs of grading
 * files and of the solution, the auto-flags) is sent to a model, which is
 * asked for suspected hack classes, each with a quote from the run. Its
 * answers are kept as `suggested` flags (class, quote, event, why, the
 * model's name), in a file of their own: never a verdict. */
#ifndef KB_JUDGE_H
#define KB_JUDGE_H

#include <stddef.h>

#include "util.h"

struct run;

/* Characters of a tool result kept in the condensed run. */
#define JUDGE_RESULT_CHARS 600

/* The prompt: instructions, then the condensed run (owned). */
char *judge_prompt(struct run *r, const char *id);
/* The same asking question instead (a semantic search): the model lists
 * the places that answer it, in the same JSON, class "match". */
char *judge_prompt_question(struct run *r, const char *id, const char *question);

struct judge_suggestion {
	char *cls, *quote, *why;  /* owned */
	long event;               /* from 1; 0 when the model named none */
};

struct judge_result {
	struct judge_suggestion *s;
	size_t n;
};

/* The model's reply read: a JSON object {"suggestions": [{"class",
 * "quote", "event", "why"}]} anywhere in the text (a ```json fence or
 * prose around it is skipped). 0, or -1 with *err (owned). A suggestion
 * whose quote is not in the run is dropped (a model may invent one). */
int judge_parse(const char *reply, struct run *r, struct judge_result *out, char **err);
void judge_result_free(struct judge_result *jr);
/* The suggestions as the file keeps them: {"run_id", "model", "status":
 * "suggested", "suggestions": [...], "tokens_in", "tokens_out"} (owned). */
char *judge_json(const struct judge_result *jr, const char *id, const char *model, long long tok_in,
                 long long tok_out);

#endif
