/* evstyle.c: labels and roles of event kinds. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "draw.h"
#include "evstyle.h"
#include "jsonx.h"
#include "theme.h"

static const struct evstyle {
	const char *label;
	int role;
} evstyles[EV__COUNT] = {
	[EV_SYSTEM]      = { "system", RL_SYSTEM },
	[EV_USER]        = { "user", RL_USER },
	[EV_REASONING]   = { "think", RL_REASONING },
	[EV_TEXT]        = { "text", RL_TEXT },
	[EV_TOOL_CALL]   = { "call", RL_TOOL },
	[EV_TOOL_RESULT] = { "result", RL_RESULT },
	[EV_USAGE]       = { "usage", RL_USAGE },
	[EV_COMPACTION]  = { "compact", RL_COMPACT },
	[EV_ERROR]       = { "error", RL_ERROR },
};

const char *evstyle_label(enum ev_kind k)
{
	return (unsigned)k < EV__COUNT ? evstyles[k].label : "?";
}

int evstyle_role(enum ev_kind k)
{
	return (unsigned)k < EV__COUNT ? evstyles[k].role : RL_NORMAL;
}

int evstyle_is_error(const struct event *e)
{
	return e->kind == EV_ERROR || (e->kind == EV_TOOL_RESULT && e->is_error);
}

/* What a call's row shows: its path, else the first string argument (a
 * command, a pattern, a query), else the arguments as they are. Owned. */
char *evstyle_call_summary(const struct run *run, const struct event *e, size_t cap)
{
	const char *cwd = run->meta.cwd;
	size_t n = cwd ? strlen(cwd) : 0;
	/* the parser's own line where the usual rule would mislead (a shell
	 * call's command rather than its first argument) */
	if (e->summary && *e->summary)
		return draw_first_line(e->summary, cap);
	/* inside the run's working directory the relative path says it all */
	if (e->path && n && !strncmp(e->path, cwd, n) && e->path[n] == '/' && e->path[n + 1])
		return draw_first_line(e->path + n + 1, cap);
	if (e->path)
		return draw_first_line(e->path, cap);
	cJSON *o = e->args ? jx_parse(e->args, strlen(e->args)) : NULL;
	char *s = NULL;
	for (const cJSON *c = cJSON_IsObject(o) ? o->child : NULL; c && !s; c = c->next)
		if (cJSON_IsString(c) && c->valuestring && *c->valuestring)
			s = draw_first_line(c->valuestring, cap);
	cJSON_Delete(o);
	return s ? s : draw_first_line(e->args, cap);
}
