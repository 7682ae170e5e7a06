/* write_claude.c: a transcript in Claude Code's stream-json (write_claude.h). */
#include "config.h"

#include <cjson/cJSON.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jsonx.h"
#include "llm.h"
#include "util.h"
#include "write_claude.h"

int write_claude_open(struct write_claude *w, const char *path, const char *secret, const char *model, char **err)
{
	memset(w, 0, sizeof *w);
	w->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		*err = xasprintf("cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	w->path = xstrdup(path);
	w->secret = secret;
	w->model = model ? model : "";
	snprintf(w->session, sizeof w->session, "live-%lx-%d", (unsigned long)time(NULL), (int)getpid());
	return 0;
}

/* A line's object: its type, the session and the time now (owned). */
static cJSON *write_claude_line(const struct write_claude *w, const char *type)
{
	cJSON *o = cJSON_CreateObject();
	char ts[96];
	struct timespec now;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	snprintf(ts, sizeof ts, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
	         tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(now.tv_nsec / 1000000));
	cJSON_AddStringToObject(o, "type", type);
	cJSON_AddStringToObject(o, "session_id", w->session);
	cJSON_AddStringToObject(o, "timestamp", ts);
	return o;
}

/* One whole line at once; a failed write cuts the file back to its last
 * whole line and is kept in w->err. Takes o. */
static void write_claude_put(struct write_claude *w, cJSON *o)
{
	char *s = cJSON_PrintUnformatted(o);
	size_t n;
	cJSON_Delete(o);
	s = llm_scrub(s, w->secret);
	n = strlen(s);
	s = xrealloc(s, n + 2);
	s[n++] = '\n';
	if (!w->err) {
		if (util_write_all(w->fd, s, n) < 0) {
			int e = errno, cut = ftruncate(w->fd, w->len) == 0;
			w->err = xasprintf("cannot write %s: %s%s", w->path, strerror(e),
			                   cut ? "" : " (and it could not be cut back to its last line)");
		} else {
			w->len += (off_t)n;
		}
	}
	free(s);
}

void write_claude_init(struct write_claude *w, const char *cwd, const char *const *tools, int ntools,
                       const char *provider, const char *problem)
{
	cJSON *o = write_claude_line(w, "system"), *t, *live;
	cJSON_AddStringToObject(o, "subtype", "init");
	cJSON_AddStringToObject(o, "model", w->model);
	cJSON_AddStringToObject(o, "cwd", cwd);
	t = cJSON_AddArrayToObject(o, "tools");
	for (int i = 0; i < ntools; i++)
		cJSON_AddItemToArray(t, cJSON_CreateString(tools[i]));
	cJSON_AddArrayToObject(o, "mcp_servers");
	live = cJSON_AddObjectToObject(o, "kbtui_live");
	cJSON_AddStringToObject(live, "provider", provider);
	if (problem)
		cJSON_AddStringToObject(live, "problem", problem);
	write_claude_put(w, o);
}

static cJSON *write_claude_message(cJSON *line, const char *role)
{
	cJSON *m = cJSON_AddObjectToObject(line, "message");
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddItemToObject(line, "parent_tool_use_id", cJSON_CreateNull());
	return m;
}

void write_claude_user(struct write_claude *w, const char *text)
{
	cJSON *o = write_claude_line(w, "user"), *content, *b;
	content = cJSON_AddArrayToObject(write_claude_message(o, "user"), "content");
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	cJSON_AddItemToArray(content, b);
	write_claude_put(w, o);
}

void write_claude_system(struct write_claude *w, const char *subtype, const char *text)
{
	cJSON *o = write_claude_line(w, "system");
	cJSON_AddStringToObject(o, "subtype", subtype);
	cJSON_AddStringToObject(o, "content", text);
	if (!strcmp(subtype, "api_error"))
		cJSON_AddStringToObject(o, "level", "error");
	write_claude_put(w, o);
}

/* One assistant line holding one block; lines of a reply share id and usage. */
static void write_claude_block(struct write_claude *w, const struct llm_reply *r, int turn, cJSON *block)
{
	cJSON *o = write_claude_line(w, "assistant"), *m = write_claude_message(o, "assistant"), *u;
	char id[64];
	snprintf(id, sizeof id, "msg_live_%d", turn);
	cJSON_AddStringToObject(m, "id", id);
	cJSON_AddStringToObject(m, "type", "message");
	cJSON_AddStringToObject(m, "model", w->model);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(m, "content"), block);
	if (r->stop_reason)
		cJSON_AddStringToObject(m, "stop_reason", r->stop_reason);
	u = cJSON_AddObjectToObject(m, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", (double)r->tok_in);
	cJSON_AddNumberToObject(u, "output_tokens", (double)r->tok_out);
	cJSON_AddNumberToObject(u, "cache_read_input_tokens", (double)r->tok_cache_read);
	cJSON_AddNumberToObject(u, "cache_creation_input_tokens", (double)r->tok_cache_write);
	write_claude_put(w, o);
}

void write_claude_reasoning(struct write_claude *w, const struct llm_reply *r, int turn)
{
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "thinking");
	cJSON_AddStringToObject(b, "thinking", r->reasoning.s ? r->reasoning.s : "");
	write_claude_block(w, r, turn, b);
}

void write_claude_text(struct write_claude *w, const struct llm_reply *r, int turn)
{
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", r->text.s ? r->text.s : "");
	write_claude_block(w, r, turn, b);
}

void write_claude_call(struct write_claude *w, const struct llm_reply *r, int turn, const struct llm_call *c)
{
	cJSON *input = c->args.s ? jx_parse(c->args.s, c->args.len) : cJSON_CreateObject();
	cJSON *b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "tool_use");
	cJSON_AddStringToObject(b, "id", c->id);
	cJSON_AddStringToObject(b, "name", c->name ? c->name : "");
	if (!input)  /* broken JSON from the model stays visible as a string */
		input = cJSON_CreateString(c->args.s);
	cJSON_AddItemToObject(b, "input", input);
	write_claude_block(w, r, turn, b);
}

void write_claude_result(struct write_claude *w, const char *call_id, const char *text, int is_error)
{
	cJSON *o = write_claude_line(w, "user"), *content, *b;
	content = cJSON_AddArrayToObject(write_claude_message(o, "user"), "content");
	b = cJSON_CreateObject();
	cJSON_AddStringToObject(b, "type", "tool_result");
	cJSON_AddStringToObject(b, "tool_use_id", call_id);
	cJSON_AddStringToObject(b, "content", text);
	cJSON_AddBoolToObject(b, "is_error", is_error);
	cJSON_AddItemToArray(content, b);
	write_claude_put(w, o);
}

void write_claude_final(struct write_claude *w, const struct write_claude_end *e)
{
	cJSON *o = write_claude_line(w, "result"), *u;
	cJSON_AddStringToObject(o, "subtype", e->subtype);
	cJSON_AddBoolToObject(o, "is_error", e->is_error);
	cJSON_AddStringToObject(o, "result", e->text);
	cJSON_AddNumberToObject(o, "num_turns", e->turns);
	cJSON_AddNumberToObject(o, "duration_ms", (double)(long long)(e->seconds * 1000));
	cJSON_AddNumberToObject(o, "total_cost_usd", 0);
	u = cJSON_AddObjectToObject(o, "usage");
	cJSON_AddNumberToObject(u, "input_tokens", (double)e->tok_in);
	cJSON_AddNumberToObject(u, "output_tokens", (double)e->tok_out);
	cJSON_AddNumberToObject(u, "cache_read_input_tokens", (double)e->tok_cache_read);
	cJSON_AddNumberToObject(u, "cache_creation_input_tokens", (double)e->tok_cache_write);
	write_claude_put(w, o);
}

int write_claude_close(struct write_claude *w)
{
	if (w->fd < 0)
		return w->err ? -1 : 0;
	if (!w->err && (fsync(w->fd) < 0 || close(w->fd) < 0))
		w->err = xasprintf("cannot write %s: %s", w->path, strerror(errno));
	else if (w->err)
		close(w->fd);
	w->fd = -1;
	return w->err ? -1 : 0;
}

void write_claude_free(struct write_claude *w)
{
	free(w->path);
	free(w->err);
	w->path = w->err = NULL;
}
