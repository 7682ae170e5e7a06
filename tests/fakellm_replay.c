/* fakellm_replay.c: a fakellm script from a real recorded transcript, read
 * with the core parser (any format it knows). Each assistant turn of the
 * recorded run becomes one reply: its reasoning, its text and its tool
 * calls mapped to the live agent's tools. A turn is what the model said
 * between two rounds of tool results, so parallel calls stay together. */
#include "fakellm.h"
#include "ftrack.h"
#include "jsonx.h"
#include "parser.h"
#include "run.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

struct replay {
	struct run *run;
	cJSON *script;            /* the replies so far */
	struct sbuf reasoning, text;
	cJSON *calls;             /* the turn's mapped calls */
	long long tok_in, tok_out, tok_cache;
	int after_result;         /* tool results came since the turn's last words */
	struct replay_stats *st;
	cJSON *skipped;           /* name -> count, in order of first skip */
};

/* A path of the recorded machine as a path in the work directory: the part
 * under the problem's folder, else under the run's cwd, else the basename. */
static char *replay_path(const char *p, const char *cwd)
{
	const char *q;
	size_t n;
	if (!p || p[0] != '/')
		return xstrdup(p ? p : "");
	if ((q = strstr(p, "/problems/")) != NULL) {
		q += strlen("/problems/");
		q += strcspn(q, "/");
		while (*q == '/')
			q++;
		return xstrdup(*q ? q : ".");
	}
	n = cwd ? strlen(cwd) : 0;
	if (n > 1 && !strncmp(p, cwd, n) && (p[n] == '/' || !p[n])) {
		q = p + n;
		while (*q == '/')
			q++;
		return xstrdup(*q ? q : ".");
	}
	q = strrchr(p, '/');
	return xstrdup(q[1] ? q + 1 : ".");
}

/* A shell command with the recorded problem folder (an absolute path that
 * goes through .../problems/NAME) written as ".", so that `cd DIR && ...`
 * and `ls DIR/` mean the work directory here. */
static char *replay_command(const char *cmd)
{
	static const char stop[] = " \t\n'\"=(;:&|<>`";
	struct sbuf b;
	const char *p = cmd, *q;
	sbuf_init(&b);
	while ((q = strstr(p, "/problems/")) != NULL) {
		const char *s = q, *e;
		while (s > p && !strchr(stop, s[-1]))
			s--;
		e = q + strlen("/problems/");
		e += strcspn(e, "/ \t\n'\"`;:&|)<>");
		if (*s != '/' || e == q + strlen("/problems/")) {
			sbuf_add(&b, p, (size_t)(q - p) + 1);
			p = q + 1;
			continue;
		}
		sbuf_add(&b, p, (size_t)(s - p));
		sbuf_addc(&b, '.');
		p = e;
	}
	sbuf_adds(&b, p);
	return sbuf_detach(&b);
}

static void replay_call(struct replay *rp, const char *name, cJSON *args)
{
	cJSON *c = cJSON_CreateObject();
	char *s = cJSON_PrintUnformatted(args);
	cJSON_Delete(args);
	cJSON_AddStringToObject(c, "name", name);
	cJSON_AddStringToObject(c, "args", s);
	free(s);
	cJSON_AddItemToArray(rp->calls, c);
	rp->st->calls++;
}

static void replay_skip(struct replay *rp, const char *name)
{
	cJSON *v = cJSON_GetObjectItemCaseSensitive(rp->skipped, name);
	if (v)
		cJSON_SetNumberValue(v, v->valuedouble + 1);
	else
		cJSON_AddNumberToObject(rp->skipped, name, 1);
	rp->st->skipped++;
}

/* bash{command, timeout}: timeout_ms in milliseconds becomes seconds; a
 * recorded working directory other than the problem's goes in front. */
static void replay_bash(struct replay *rp, const char *cmd, double timeout_ms, const char *workdir)
{
	cJSON *a = cJSON_CreateObject();
	char *c = replay_command(cmd), *wd = workdir ? replay_path(workdir, rp->run->meta.cwd) : NULL;
	if (wd && strcmp(wd, ".")) {
		char *s = xasprintf("cd '%s' && %s", wd, c);
		free(c);
		c = s;
	}
	cJSON_AddStringToObject(a, "command", c);
	if (timeout_ms > 0)
		cJSON_AddNumberToObject(a, "timeout", timeout_ms / 1000);
	free(c);
	free(wd);
	replay_call(rp, "bash", a);
}

static void replay_file(struct replay *rp, const char *tool, const char *path, const char *content)
{
	cJSON *a = cJSON_CreateObject();
	char *p = replay_path(path, rp->run->meta.cwd);
	cJSON_AddStringToObject(a, "path", p);
	if (content)
		cJSON_AddStringToObject(a, "content", content);
	free(p);
	replay_call(rp, tool, a);
}

static void replay_edit(struct replay *rp, const char *path, const char *old_s, const char *new_s)
{
	cJSON *a = cJSON_CreateObject();
	char *p = replay_path(path, rp->run->meta.cwd);
	cJSON_AddStringToObject(a, "path", p);
	cJSON_AddStringToObject(a, "old_string", old_s);
	cJSON_AddStringToObject(a, "new_string", new_s);
	free(p);
	replay_call(rp, "edit_file", a);
}

/* Several edits of one file (MultiEdit, kimi's StrReplaceFile): one
 * edit_file each, in order. An object is a list of one. */
static int replay_edits(struct replay *rp, const char *path, const cJSON *list, const char *ko, const char *kn)
{
	const cJSON *it;
	int n = 0;
	if (cJSON_IsObject(list)) {
		if (!jx_str(list, ko) || !jx_str(list, kn))
			return 0;
		replay_edit(rp, path, jx_str(list, ko), jx_str(list, kn));
		return 1;
	}
	cJSON_ArrayForEach(it, list) {
		if (jx_str(it, ko) && jx_str(it, kn)) {
			replay_edit(rp, path, jx_str(it, ko), jx_str(it, kn));
			n++;
		}
	}
	return n;
}

/* A shell argv (codex `shell`) as one command line: bash -lc SCRIPT (or -c)
 * is its script; anything else is joined with single quotes where needed. */
static char *replay_argv(const cJSON *argv)
{
	const cJSON *it;
	struct sbuf b;
	const char *flag = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 1));
	const char *script = cJSON_GetStringValue(cJSON_GetArrayItem(argv, 2));
	if (cJSON_GetArraySize(argv) == 3 && flag && script && (!strcmp(flag, "-lc") || !strcmp(flag, "-c")))
		return xstrdup(script);
	sbuf_init(&b);
	cJSON_ArrayForEach(it, argv) {
		const char *s = cJSON_GetStringValue(it);
		if (!s)
			continue;
		if (b.len)
			sbuf_addc(&b, ' ');
		if (s[strcspn(s, " \t\n'\"$`\\;&|<>()*?")]) {
			sbuf_addc(&b, '\'');
			for (; *s; s++)
				*s == '\'' ? sbuf_adds(&b, "'\\''") : sbuf_addc(&b, *s);
			sbuf_addc(&b, '\'');
		} else {
			sbuf_adds(&b, s);
		}
	}
	return b.s ? sbuf_detach(&b) : xstrdup("");
}

/* Codex apply_patch: a write_file of each file the patch changed, with its
 * content after the patch as the run's file tracking has it. */
static int replay_patch(struct replay *rp, size_t ev)
{
	struct ftrack *t = run_files(rp->run);
	int n = 0;
	for (size_t f = 0; t && f < ftrack_nfiles(t); f++) {
		long at = -1;
		const char *content = ftrack_file_at(t, f, ev, &at);
		if (at == (long)ev && content) {
			replay_file(rp, "write_file", ftrack_file_path(t, f), content);
			n++;
		}
	}
	return n;
}

/* The file a recorded file tool names: Claude's file_path, OpenCode's
 * filePath, Kimi's path. */
static const char *replay_path_arg(const cJSON *a)
{
	return jx_str(a, "file_path") ? jx_str(a, "file_path") :
	       jx_str(a, "filePath") ? jx_str(a, "filePath") : jx_str(a, "path");
}

/* Maps one recorded call; 0 when it became calls, -1 when skipped. */
static int replay_map(struct replay *rp, size_t ev)
{
	const struct event *e = &rp->run->ev[ev];
	const char *n = e->name ? e->name : "";
	cJSON *a = e->args ? cJSON_Parse(e->args) : NULL;
	int ok = 1;

#define IS(s) (!strcmp(n, s))
	if (!cJSON_IsObject(a) && !IS("apply_patch"))
		ok = 0;
	else if ((IS("Bash") || IS("bash") || IS("Shell")) && jx_str(a, "command"))
		replay_bash(rp, jx_str(a, "command"), IS("Shell") ? jx_num(a, "timeout", 0) * 1000 :
		            jx_num(a, "timeout", 0), jx_str(a, "workdir"));
	else if (IS("exec_command") && jx_str(a, "cmd"))
		replay_bash(rp, jx_str(a, "cmd"), 0, jx_str(a, "workdir"));
	else if (IS("shell") && cJSON_IsArray(jx_get(a, "command"))) {
		char *c = replay_argv(jx_get(a, "command"));
		replay_bash(rp, c, jx_num(a, "timeout_ms", jx_num(a, "timeout", 0)), jx_str(a, "workdir"));
		free(c);
	} else if ((IS("Read") || IS("read") || IS("ReadFile")) && replay_path_arg(a))
		replay_file(rp, "read_file", replay_path_arg(a), NULL);
	else if ((IS("Write") || IS("write") || IS("WriteFile")) && replay_path_arg(a) && jx_str(a, "content") &&
	         !(jx_str(a, "mode") && !strcmp(jx_str(a, "mode"), "append")))
		replay_file(rp, "write_file", replay_path_arg(a), jx_str(a, "content"));
	else if (IS("Edit") && jx_str(a, "file_path") && jx_str(a, "old_string") && jx_str(a, "new_string"))
		replay_edit(rp, jx_str(a, "file_path"), jx_str(a, "old_string"), jx_str(a, "new_string"));
	else if (IS("edit") && jx_str(a, "filePath") && jx_str(a, "oldString") && jx_str(a, "newString"))
		replay_edit(rp, jx_str(a, "filePath"), jx_str(a, "oldString"), jx_str(a, "newString"));
	else if ((IS("MultiEdit") || IS("StrReplaceFile")) && (jx_str(a, "file_path") || jx_str(a, "path"))) {
		const char *path = jx_str(a, "file_path") ? jx_str(a, "file_path") : jx_str(a, "path");
		ok = IS("MultiEdit") ? replay_edits(rp, path, jx_get(a, "edits"), "old_string", "new_string") > 0
		                     : replay_edits(rp, path, jx_get(a, "edit"), "old", "new") > 0;
	} else if (IS("apply_patch"))
		ok = replay_patch(rp, ev) > 0;
	else
		ok = 0;
#undef IS
	cJSON_Delete(a);
	if (!ok)
		replay_skip(rp, n);
	return ok ? 0 : -1;
}

static void replay_join(struct sbuf *b, const char *s)
{
	if (!s || !*s)
		return;
	if (b->len)
		sbuf_adds(b, "\n\n");
	sbuf_adds(b, s);
}

/* Ends the turn being built. A turn whose calls were all skipped is not a
 * reply of its own (the agent would take it for the final answer): its
 * words go with the next turn's. */
static void replay_flush(struct replay *rp, int last)
{
	cJSON *r;
	rp->after_result = 0;
	if (!cJSON_GetArraySize(rp->calls) && (!last || (!rp->reasoning.len && !rp->text.len)))
		return;
	r = cJSON_CreateObject();
	if (rp->reasoning.len)
		cJSON_AddStringToObject(r, "reasoning", rp->reasoning.s);
	if (rp->text.len)
		cJSON_AddStringToObject(r, "text", rp->text.s);
	cJSON_AddItemToObject(r, "calls", rp->calls);
	cJSON_AddNumberToObject(r, "prompt_tokens", (double)(rp->tok_in > 0 ? rp->tok_in : 100));
	cJSON_AddNumberToObject(r, "completion_tokens", (double)(rp->tok_out > 0 ? rp->tok_out : 10));
	cJSON_AddNumberToObject(r, "cache_read_tokens", (double)rp->tok_cache);
	cJSON_AddItemToArray(rp->script, r);
	rp->st->replies++;
	rp->calls = cJSON_CreateArray();
	sbuf_reset(&rp->reasoning);
	sbuf_reset(&rp->text);
	rp->tok_in = rp->tok_out = rp->tok_cache = 0;
}

static void replay_event(struct replay *rp, size_t i)
{
	const struct event *e = &rp->run->ev[i];
	if (e->sidechain)
		return;   /* a subagent's turns are not the model's own */
	switch (e->kind) {
	case EV_REASONING:
	case EV_TEXT:
	case EV_TOOL_CALL:
		if (rp->after_result)
			replay_flush(rp, 0);
		if (e->kind == EV_REASONING)
			replay_join(&rp->reasoning, e->text);
		else if (e->kind == EV_TEXT)
			replay_join(&rp->text, e->text);
		else
			replay_map(rp, i);
		break;
	case EV_TOOL_RESULT:
	case EV_USER:
	case EV_COMPACTION:
		rp->after_result = 1;
		break;
	case EV_USAGE:
		/* a turn's prompt is its input plus what the cache held */
		rp->tok_in += e->tok_in + e->tok_cache_read + e->tok_cache_write;
		rp->tok_out += e->tok_out;
		rp->tok_cache += e->tok_cache_read;
		break;
	default:
		break;
	}
}

cJSON *replay_script(const char *path, struct replay_stats *st, char **err)
{
	struct replay rp = {.st = st};
	struct sbuf names;
	const cJSON *it;

	memset(st, 0, sizeof *st);
	if (!(rp.run = parser_load_file(path, NULL, err)))
		return NULL;
	if (!rp.run->nev) {
		*err = xasprintf("%s: no events (format not recognised?)", path);
		run_free(rp.run);
		return NULL;
	}
	rp.script = cJSON_CreateArray();
	rp.calls = cJSON_CreateArray();
	rp.skipped = cJSON_CreateObject();
	sbuf_init(&rp.reasoning);
	sbuf_init(&rp.text);
	for (size_t i = 0; i < rp.run->nev; i++)
		replay_event(&rp, i);
	replay_flush(&rp, 1);
	sbuf_init(&names);
	cJSON_ArrayForEach(it, rp.skipped)
		sbuf_addf(&names, "%s%s x%d", names.len ? ", " : "", it->string, it->valueint);
	st->skipped_names = names.s ? sbuf_detach(&names) : xstrdup("");
	cJSON_Delete(rp.calls);
	cJSON_Delete(rp.skipped);
	sbuf_free(&rp.reasoning);
	sbuf_free(&rp.text);
	run_free(rp.run);
	return rp.script;
}
