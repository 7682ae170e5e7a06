/* compilerlog.h: picks compiler and runtime diagnostics (nvcc, ptxas,
 * Triton, torch.utils.cpp_extension, C++, Python tracebacks) out of tool
 * output. What to pick is data, not code: PCRE2 rules read from a file
 * (data/compiler_patterns.txt), one per line:
 *
 *     TOOL  LEVEL  REGEX
 *
 * TOOL is a short name shown beside the line; LEVEL is error, warning, note
 * or ignore; REGEX, the rest of the line, is matched against each line of
 * the output. The first rule that matches a line decides; an ignore rule
 * keeps a line (say, a numbered source listing) from the rules below it. */
#ifndef KB_COMPILERLOG_H
#define KB_COMPILERLOG_H

#include <stddef.h>

#include "run.h"

enum compilerlog_level { CL_NOTE, CL_WARNING, CL_ERROR, CL_IGNORE, CL__LEVELS };

struct compilerlog;

/* One diagnostic line of one event. */
struct compilerlog_hit {
	size_t ev;                  /* event index */
	int line;                   /* 1-based line within the event's text */
	int rule;                   /* index of the rule that matched */
	enum compilerlog_level level;
	const char *tool;           /* the rule's tool name (owned by the rules) */
	char *text;                 /* the line as it was, untrusted (owned) */
};

/* The diagnostics of a run (or of any text fed to it), in order. */
struct compilerlog_report {
	struct compilerlog_hit *hits;
	size_t n, cap;
	size_t count[CL__LEVELS];   /* hits per level */
};

struct compilerlog *compilerlog_new(void);
void compilerlog_free(struct compilerlog *cl);

/* Adds one rule line ("TOOL LEVEL REGEX"); blank and '#' lines are skipped.
 * Returns 0, or -1 with *err (owned) saying what is wrong with it. */
int compilerlog_add(struct compilerlog *cl, const char *spec, char **err);
/* Adds every rule of a file. Returns the number of rules read, or -1 with
 * *err (owned) as "path:line: message" (or "path: strerror"). */
int compilerlog_load(struct compilerlog *cl, const char *path, char **err);
/* Where the rules file is (util_data_find: $KBTUI_DATADIR, the source
 * tree of an uninstalled build, the installed data directory). NULL when
 * none exists; owned by the caller. */
char *compilerlog_default_path(void);
size_t compilerlog_nrules(const struct compilerlog *cl);

/* The rule that decides a line (without its newline): its index, or -1
 * when none matches. *level and *tool (may be NULL) describe the rule. */
int compilerlog_match(struct compilerlog *cl, const char *line, size_t len, enum compilerlog_level *level,
                      const char **tool);

/* Appends the diagnostics of one text (ignore-level lines left out). */
void compilerlog_scan_text(struct compilerlog *cl, const char *text, size_t ev, struct compilerlog_report *rep);
/* Diagnostics of a run: its tool results and error events. */
void compilerlog_scan_run(struct compilerlog *cl, const struct run *r, struct compilerlog_report *rep);
void compilerlog_report_free(struct compilerlog_report *rep);

const char *compilerlog_level_name(enum compilerlog_level level);

#endif
