/* parse_codex_exec.c: the human-readable output of `codex exec` (what it
 * writes on stderr, usually captured with 2>&1), not JSON. A header block
 *     OpenAI Codex v0.101.0 (research preview)
 *     --------
 *     workdir: /w    model: gpt-5    reasoning effort: high   session id: ...
 *     --------
 * then sections, each introduced by a line of its own: `user`, `thinking`,
 * `codex`, `exec` (then "CMD in CWD succeeded in 12ms:" / "exited 1 in 5ms:"
 * and the output), `file update` (the changes of an apply_patch) and
 * "apply_patch(auto_approved=true) exited 0 in 8ms:", `file update:` (the
 * turn's cumulative diff), `tokens used` and its number. Versions before
 * ~0.40 put "[2025-08-06T12:00:00] " before each section line, wrote
 * "User instructions:", "exec CMD in CWD", "CMD succeeded in 12ms:",
 * "apply_patch auto_approved=true:" and "tokens used: N" after each turn.
 *
 * Decisions:
 *  - Once section lines carry timestamps, only timestamped lines start
 *    sections; without timestamps a body line that is exactly a section
 *    word ("codex") cannot be told from one: it starts a section.
 *  - `thinking` sections are reasoning summaries: redacted=1, as for codex.
 *  - exec calls are tool calls named "exec" with {"command", "workdir"}
 *    and synthesized ids exec-N; a result takes the pending call whose
 *    command it names, else the oldest. apply_patch blocks become an
 *    apply_patch envelope so that diffs follow the file across patches.
 *  - `file update:` turn diffs are dropped: they repeat the patches.
 *  - `tokens used` is one usage event whose total goes into tok_in (the
 *    output gives one blended number, not input and output).
 *  - Completion marker: the last section is a token count (the final
 *    "tokens used" line; in old versions the count after the last turn).
 *    Lines after the final count (the last message echoed on stdout) are
 *    dropped. A patch block cut by the end of the input waits for more.
 *  - Colour escapes (--color always) are removed before anything else. */
#include "parser.h"
#include "jsonx.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CX_PENDING 32

enum cx_sec {
	CX_NONE,     /* between sections: stray lines become an "output" event */
	CX_HEADER,   /* from the banner to the second "--------" */
	CX_TEXT,     /* lines append to the event st->ev */
	CX_EXEC_CMD, /* after a bare "exec": the command line comes next */
	CX_PATCH,    /* the changes of one apply_patch */
	CX_SKIP,     /* a turn diff */
	CX_TOKENS,   /* after a bare "tokens used": the number comes next */
	CX_FINAL,    /* after the final count: stdout's echo of the last message */
};

struct cx_pending {
	char *key;   /* command or invocation text the result line repeats */
	char *id;
};

struct cx_state {
	enum cx_sec sec;
	int ts_mode;          /* section lines carry "[timestamp] " */
	int dashes;           /* "--------" lines of the header seen */
	long ev;              /* event that body lines append to, -1 none */
	struct sbuf body;     /* its text so far (copied into it at pauses) */
	long usage_ev;        /* the count a bare "tokens used" waits to fill */
	int last_line;        /* for the blank lines the reader skips */
	int tokens_last;      /* the last section was a token count */
	int bad;              /* the current line is malformed */
	int nids;             /* synthesized call ids so far */
	struct cx_pending pend[CX_PENDING];
	int npend;
	struct sbuf patch;    /* body of the open patch block */
	int patch_line;
	double patch_ts;
};

/* What one line is, once its timestamp and colours are off. */
struct cx_line {
	char *s;              /* owned: the line without colour escapes */
	const char *body;     /* s after the "[timestamp] " prefix */
	int stamped;
	double ts;
	int gap;              /* blank lines skipped just before it */
};

/* ---- small text helpers ------------------------------------------------- */

/* Copy without ANSI SGR escapes (ESC [ digits ; ... m). */
static char *cx_uncolour(const char *line, size_t len)
{
	char *s = xmalloc(len + 1), *o = s;
	for (size_t i = 0; i < len; i++) {
		if (line[i] == '\x1b' && i + 1 < len && line[i + 1] == '[') {
			size_t j = i + 2;
			while (j < len && (isdigit((unsigned char)line[j]) || line[j] == ';'))
				j++;
			if (j < len && line[j] == 'm') {
				i = j;
				continue;
			}
		}
		*o++ = line[i];
	}
	*o = '\0';
	return s;
}

/* "[2025-08-06T12:00:00] rest": sets *ts and *rest. */
static int cx_stamp(const char *s, double *ts, const char **rest)
{
	const char *close;
	char buf[48];
	cJSON *v;
	if (s[0] != '[' || !isdigit((unsigned char)s[1]) || !(close = strchr(s, ']')) ||
	    close - s > 40 || close - s < 11 || s[11] != 'T' || close[1] != ' ')
		return 0;
	memcpy(buf, s + 1, (size_t)(close - s - 1));
	buf[close - s - 1] = '\0';
	v = cJSON_CreateString(buf);
	*ts = jx_time(v);
	cJSON_Delete(v);
	*rest = close + 2;
	return *ts != 0;
}

static int cx_banner(const char *b)
{
	return util_starts_with(b, "OpenAI Codex v") && isdigit((unsigned char)b[14]);
}

/* A tracing log line of codex itself: "2026-02-14T07:29:50.612578Z ERROR x". */
static int cx_log_line(const char *b)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd";
	size_t i;
	for (i = 0; shape[i]; i++)
		if (shape[i] == 'd' ? !isdigit((unsigned char)b[i]) : b[i] != shape[i])
			return 0;
	if (b[i] == '.')
		for (i++; isdigit((unsigned char)b[i]); i++)
			;
	return b[i] == 'Z' && b[i + 1] == ' ' && isupper((unsigned char)b[i + 2]);
}

/* "12,345" -> 12345; -1 when the text is not a grouped number. */
static long long cx_number(const char *s)
{
	long long v = 0;
	int digits = 0;
	for (; *s; s++) {
		if (isdigit((unsigned char)*s)) {
			if (v > 100000000000000LL)
				return -1;
			v = v * 10 + (*s - '0');
			digits++;
		} else if (*s != ',' || !digits) {
			return -1;
		}
	}
	return digits ? v : -1;
}

/* When s[..end) ends with `word` after a space or at the line start, the
 * length of what precedes it; -1 otherwise. */
static long cx_before(const char *s, const char *end, const char *word)
{
	size_t w = strlen(word);
	if ((size_t)(end - s) < w || strncmp(end - w, word, w) != 0)
		return -1;
	if (end - w == s)
		return 0;
	return end[-(long)w - 1] == ' ' ? (long)(end - w - 1 - s) : -1;
}

/* A line ending a call: "HEAD succeeded in 12ms:" / "HEAD exited 1 in
 * 5ms:" (or "success"/"failed" for MCP calls: ok and fail words given).
 * Sets *head to HEAD's length and *code to the exit code. */
static int cx_end(const char *s, const char *ok, const char *fail, size_t *head, int *code)
{
	size_t n = strlen(s);
	const char *in = NULL, *p;
	long h;

	if (n < 6 || s[n - 1] != ':')
		return 0;
	for (p = s; (p = strstr(p, " in ")) != NULL; p++)
		in = p;
	if (!in || !isdigit((unsigned char)in[4]) || (size_t)(s + n - in) > 28)
		return 0;
	if ((h = cx_before(s, in, ok)) >= 0) {
		*code = 0;
	} else if (strcmp(fail, "exited") == 0) {
		p = in;
		while (p > s && (isdigit((unsigned char)p[-1]) || p[-1] == '-'))
			p--;
		if (p == in || p == s || p[-1] != ' ' || (h = cx_before(s, p - 1, fail)) < 0)
			return 0;
		*code = atoi(p);
	} else if ((h = cx_before(s, in, fail)) >= 0) {
		*code = 1;
	} else {
		return 0;
	}
	*head = (size_t)h;
	return 1;
}

/* ---- state ---------------------------------------------------------------- */

static void *cx_state_new(void)
{
	struct cx_state *st = xcalloc(1, sizeof *st);
	st->ev = -1;
	st->usage_ev = -1;
	sbuf_init(&st->patch);
	sbuf_init(&st->body);
	return st;
}

static void cx_state_free(void *p)
{
	struct cx_state *st = p;
	if (!st)
		return;
	for (int i = 0; i < st->npend; i++) {
		free(st->pend[i].key);
		free(st->pend[i].id);
	}
	sbuf_free(&st->patch);
	sbuf_free(&st->body);
	free(st);
}

static char *cx_new_id(struct cx_state *st, const char *kind)
{
	return xasprintf("%s-%d", kind, ++st->nids);
}

static void cx_push(struct cx_state *st, const char *key, const char *id)
{
	if (st->npend == CX_PENDING) { /* the oldest never got its result */
		free(st->pend[0].key);
		free(st->pend[0].id);
		memmove(st->pend, st->pend + 1, (CX_PENDING - 1) * sizeof *st->pend);
		st->npend--;
	}
	st->pend[st->npend].key = xstrdup(key);
	st->pend[st->npend].id = xstrdup(id);
	st->npend++;
}

/* Takes the pending call whose key is `key` (len n), else the oldest whose
 * key does not name apply_patch (patches pair only with patches). Returns
 * its id (owned), NULL when none. */
static char *cx_take(struct cx_state *st, const char *key, size_t n, int patch)
{
	int found = -1;
	char *id;
	for (int i = 0; i < st->npend && found < 0; i++)
		if (n && strlen(st->pend[i].key) == n && !strncmp(st->pend[i].key, key, n))
			found = i;
	for (int i = 0; i < st->npend && found < 0; i++)
		if (!strcmp(st->pend[i].key, "apply_patch") == !!patch)
			found = i;
	if (found < 0)
		return NULL;
	id = st->pend[found].id;
	free(st->pend[found].key);
	memmove(st->pend + found, st->pend + found + 1, (size_t)(st->npend - found - 1) * sizeof *st->pend);
	st->npend--;
	return id;
}

static int cx_has_pending(const struct cx_state *st, int patch)
{
	for (int i = 0; i < st->npend; i++)
		if (!strcmp(st->pend[i].key, "apply_patch") == !!patch)
			return 1;
	return 0;
}

/* ---- events ----------------------------------------------------------------- */

/* The open event's text lives in st->body and is copied into the event
 * when its section ends or the input pauses: writing each line into the
 * event itself would copy the whole text again for every line. */
static void cx_sync(struct parse_ctx *ctx, struct cx_state *st)
{
	struct event *e;
	if (st->ev < 0 || (size_t)st->ev >= ctx->run->nev)
		return;
	e = &ctx->run->ev[st->ev];
	free(e->text);
	e->text = xstrndup(st->body.s ? st->body.s : "", st->body.len);
}

static void cx_detach(struct parse_ctx *ctx, struct cx_state *st)
{
	cx_sync(ctx, st);
	st->ev = -1;
}

/* Body lines now go to the last event, whose text so far is `text`. */
static void cx_attach(struct parse_ctx *ctx, struct cx_state *st, const char *text)
{
	cx_detach(ctx, st);
	st->ev = (long)ctx->run->nev - 1;
	sbuf_reset(&st->body);
	sbuf_adds(&st->body, text);
	st->sec = CX_TEXT;
}

static struct event *cx_open(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l,
                             enum ev_kind k, const char *text, const char *name)
{
	struct event *e = parser_text(ctx, k, text ? text : "");
	if (name)
		e->name = xstrdup(name);
	e->ts = l->ts;
	e->is_error = k == EV_ERROR;
	cx_attach(ctx, st, text ? text : "");
	return e;
}

/* Adds a body line to the open event, with the blank lines before it
 * unless it is the first. */
static void cx_append(struct cx_state *st, const struct cx_line *l)
{
	if (st->ev < 0)
		return;
	if (st->body.len)
		for (int i = 0; i <= l->gap; i++)
			sbuf_addc(&st->body, '\n');
	sbuf_adds(&st->body, l->body);
}

static void cx_meta(char **slot, const char *v)
{
	if (!*slot && v && *v)
		*slot = xstrdup(v);
}

/* ---- apply_patch blocks ------------------------------------------------------ */

/* A change header of a patch block: "A /p", "M /p", "D /p", "R /p -> /q".
 * Inside an added file's content only an absolute path counts, since the
 * content lines are printed bare. */
static int cx_patch_header(const char *s, int mode)
{
	if (!strchr("AMDR", s[0]) || !s[0] || s[1] != ' ' || !s[2] || s[2] == ' ')
		return 0;
	if (mode != 'A')
		return 1;
	return s[2] == '/' || (isalpha((unsigned char)s[2]) && s[3] == ':' && (s[4] == '\\' || s[4] == '/'));
}

/* The printed changes as an apply_patch envelope: added files' lines get
 * "+", updates keep their hunks, deletions drop the printed content. */
static char *cx_patch_envelope(const char *block)
{
	struct sbuf b;
	int mode = 0, pre_hunk = 0;
	const char *p = block;
	sbuf_init(&b);
	sbuf_adds(&b, "*** Begin Patch\n");
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *l = xstrndup(p, n);
		if (cx_patch_header(l, mode)) {
			mode = l[0] == 'R' ? 'M' : l[0];
			pre_hunk = mode == 'M';
			if (l[0] == 'A')
				sbuf_addf(&b, "*** Add File: %s\n", l + 2);
			else if (l[0] == 'D')
				sbuf_addf(&b, "*** Delete File: %s\n", l + 2);
			else if (l[0] == 'M' || !strstr(l, " -> "))
				sbuf_addf(&b, "*** Update File: %s\n", l + 2);
			else {
				char *arrow = strstr(l, " -> ");
				*arrow = '\0';
				sbuf_addf(&b, "*** Update File: %s\n*** Move to: %s\n", l + 2, arrow + 4);
			}
		} else if (mode == 'A') {
			sbuf_addf(&b, "+%s\n", l);
		} else if (mode == 'M') {
			if (util_starts_with(l, "@@"))
				pre_hunk = 0;
			if (!(pre_hunk && (util_starts_with(l, "--- ") || util_starts_with(l, "+++ ") ||
			                   util_starts_with(l, "diff --git") || util_starts_with(l, "index "))))
				sbuf_addf(&b, "%s\n", *l ? l : " ");
		}
		free(l);
		p = nl ? nl + 1 : p + n;
	}
	sbuf_adds(&b, "*** End Patch\n");
	return sbuf_detach(&b);
}

/* Ends an open patch block: its tool call, at the line the block began. */
static void cx_patch_close(struct parse_ctx *ctx, struct cx_state *st)
{
	char *env, *id;
	struct event *e;
	if (st->sec != CX_PATCH)
		return;
	env = cx_patch_envelope(st->patch.s ? st->patch.s : "");
	id = cx_new_id(st, "patch");
	e = parser_tool_call(ctx, "apply_patch", id, env);
	e->line = st->patch_line;
	e->ts = st->patch_ts;
	cx_push(st, "apply_patch", id);
	free(id);
	free(env);
	sbuf_reset(&st->patch);
	st->sec = CX_NONE;
}

static void cx_patch_line(struct cx_state *st, const struct cx_line *l)
{
	if (st->patch.len)
		for (int i = 0; i < l->gap; i++)
			sbuf_addc(&st->patch, '\n');
	sbuf_adds(&st->patch, l->s);
	sbuf_addc(&st->patch, '\n');
}

/* ---- tool calls and results --------------------------------------------------- */

static void cx_result(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l,
                      const char *key, size_t n, int code, int patch)
{
	char *id = cx_take(st, key, n, patch);
	struct event *e = parser_tool_result(ctx, id, "", code != 0);
	e->ts = l->ts;
	cx_attach(ctx, st, "");
	free(id);
}

/* "CMD in CWD" (maybe followed by the end of the call, or glued to the
 * next "exec" when calls ran at once): a tool call named exec. */
static void cx_exec_begin(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l, const char *text)
{
	const char *cwd = ctx->run->meta.cwd;
	size_t head, n;
	int code, ended = cx_end(text, "succeeded", "exited", &head, &code), glued = 0;
	char *cmdline = xstrndup(text, ended ? head : strlen(text));
	char *in = NULL, *p, *id, *args;
	cJSON *o;
	struct event *e;

	n = strlen(cmdline);
	if (!ended && cwd && n > 4 && !strcmp(cmdline + n - 4, "exec")) {
		char *tail = xasprintf(" in %sexec", cwd);
		size_t tn = strlen(tail);
		if (n >= tn && !strcmp(cmdline + n - tn, tail)) {
			cmdline[n - 4] = '\0';
			glued = 1;
		}
		free(tail);
	}
	for (p = cmdline; (p = strstr(p, " in ")) != NULL; p++)
		in = p;
	o = cJSON_CreateObject();
	if (in)
		*in = '\0';
	cJSON_AddStringToObject(o, "command", cmdline);
	if (in)
		cJSON_AddStringToObject(o, "workdir", in + 4);
	args = jx_print(o);
	id = cx_new_id(st, "exec");
	e = parser_tool_call(ctx, "exec", id, args);
	e->ts = l->ts;
	cx_push(st, cmdline, id);
	cx_detach(ctx, st);
	st->sec = glued ? CX_EXEC_CMD : CX_NONE;
	if (ended)
		cx_result(ctx, st, l, cmdline, strlen(cmdline), code, 0);
	cJSON_Delete(o);
	free(args);
	free(id);
	free(cmdline);
}

/* "server.tool({...})": the invocation an MCP call line shows. */
static int cx_mcp_shape(const char *inv)
{
	const char *paren = strchr(inv, '(');
	size_t n = strlen(inv);
	return paren && paren != inv && inv[n - 1] == ')' && !memchr(inv, ' ', (size_t)(paren - inv));
}

static void cx_mcp_begin(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l, const char *inv)
{
	const char *paren = strchr(inv, '(');
	size_t n = strlen(inv);
	char *name = xstrndup(inv, (size_t)(paren - inv));
	char *args = xstrndup(paren + 1, n - (size_t)(paren - inv) - 2);
	char *id = cx_new_id(st, "mcp");
	struct event *e = parser_tool_call(ctx, name, id, *args ? args : NULL);
	e->ts = l->ts;
	cx_push(st, inv, id);
	free(name);
	free(args);
	free(id);
}

static void cx_web(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l, const char *what)
{
	cJSON *o = cJSON_CreateObject();
	char *args, *id = cx_new_id(st, "web");
	struct event *e;
	cJSON_AddStringToObject(o, "query", what);
	args = jx_print(o);
	e = parser_tool_call(ctx, "web_search", id, args);
	e->ts = l->ts;
	st->sec = CX_NONE;
	cJSON_Delete(o);
	free(args);
	free(id);
}

/* ---- header ----------------------------------------------------------------- */

/* A "key: value" line of the header; fills the run's metadata. */
static int cx_header_key(struct parse_ctx *ctx, const char *s)
{
	static const char *const keys[] = {"workdir", "model", "provider", "approval", "sandbox",
	                                   "reasoning effort", "reasoning summaries", "session id", NULL};
	struct run_meta *m = &ctx->run->meta;
	for (size_t i = 0; keys[i]; i++) {
		size_t n = strlen(keys[i]);
		if (strncmp(s, keys[i], n) || s[n] != ':' || s[n + 1] != ' ')
			continue;
		const char *v = s + n + 2;
		if (i == 0)
			cx_meta(&m->cwd, v);
		else if (i == 1)
			cx_meta(&m->model, v);
		else if (i == 5)
			cx_meta(&m->effort, v);
		else if (i == 7)
			cx_meta(&m->session_id, v);
		return 1;
	}
	return 0;
}

/* Lines of the header block; 0 when the line is something else. */
static int cx_header(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l)
{
	if (!strcmp(l->s, "--------")) {
		if (++st->dashes >= 2) {
			cx_detach(ctx, st);
			st->sec = CX_NONE;
		}
		return 1;
	}
	if (!cx_header_key(ctx, l->s))
		return 0;
	cx_append(st, l);
	return 1;
}

/* ---- sections ------------------------------------------------------------------ */

/* What a line turned out to be, for the completion marker. */
enum cx_kind { CX_BODY, CX_SECTION, CX_COUNT, CX_NOISE };

/* Closes what was open before a new section starts. */
static void cx_close(struct parse_ctx *ctx, struct cx_state *st)
{
	cx_patch_close(ctx, st);
	cx_detach(ctx, st);
	st->sec = CX_NONE;
}

static int cx_is(const char *b, const char *w)
{
	return strcmp(b, w) == 0;
}

/* Consecutive lines of one kind (mcp notices, codex's own logs) share an event. */
static enum cx_kind cx_merged(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l,
                              const char *name)
{
	struct event *e = st->sec == CX_TEXT && st->ev >= 0 ? &ctx->run->ev[st->ev] : NULL;
	if (e && e->kind == EV_SYSTEM && e->name && !strcmp(e->name, name)) {
		cx_append(st, l);
	} else {
		cx_close(ctx, st);
		cx_open(ctx, st, l, EV_SYSTEM, l->body, name);
	}
	return CX_NOISE;
}

static void cx_tokens(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l, long long n)
{
	struct event *e = run_add(ctx->run, EV_USAGE, ctx->lineno);
	e->ts = l->ts;
	e->tok_in = n > 0 ? n : 0;
	st->usage_ev = (long)ctx->run->nev - 1;
}

/* Section lines that hold their content on the same line. */
static enum cx_kind cx_inline_section(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l)
{
	const char *b = l->body;
	long long n;

	if (util_starts_with(b, "mcp: ") || util_starts_with(b, "mcp startup: "))
		return cx_merged(ctx, st, l, "mcp");
	if (util_starts_with(b, "tokens used: ") && (n = cx_number(b + 13)) >= 0) {
		cx_close(ctx, st);
		cx_tokens(ctx, st, l, n);
		return CX_COUNT;
	}
	if (util_starts_with(b, "ERROR:")) {
		cx_close(ctx, st);
		cx_open(ctx, st, l, EV_ERROR, b[6] == ' ' ? b + 7 : b + 6, "ERROR");
	} else if (cx_is(b, "task interrupted") || util_starts_with(b, "task aborted")) {
		cx_close(ctx, st);
		cx_open(ctx, st, l, EV_ERROR, b, "aborted");
	} else if (util_starts_with(b, "warning: ") || util_starts_with(b, "deprecated: ")) {
		cx_close(ctx, st);
		cx_open(ctx, st, l, EV_SYSTEM, strchr(b, ' ') + 1, b[0] == 'w' ? "warning" : "deprecated");
	} else if (cx_is(b, "context compacted")) {
		cx_close(ctx, st);
		cx_open(ctx, st, l, EV_COMPACTION, b, NULL);
		st->sec = CX_NONE;
	} else if (util_starts_with(b, "\xF0\x9F\x8C\x90 ")) { /* the globe of web searches */
		cx_close(ctx, st);
		if (util_starts_with(b + 5, "Searched: "))
			cx_web(ctx, st, l, b + 15);
		else if (util_starts_with(b + 5, "Searched"))
			cx_web(ctx, st, l, "");
	} else if (util_starts_with(b, "codex session ")) {
		cx_close(ctx, st);
		cx_meta(&ctx->run->meta.session_id, b + 14);
	} else if (l->stamped && util_starts_with(b, "model: ")) {
		cx_close(ctx, st);
		cx_meta(&ctx->run->meta.model, b + 7);
	} else if (l->stamped && util_starts_with(b, "exec ")) {
		cx_close(ctx, st);
		cx_exec_begin(ctx, st, l, b + 5);
	} else if (util_starts_with(b, "tool ") && cx_mcp_shape(b + 5)) {
		cx_close(ctx, st);
		cx_mcp_begin(ctx, st, l, b + 5);
	} else {
		return CX_BODY;
	}
	return CX_SECTION;
}

/* Section lines alone on their line; their content follows. */
static enum cx_kind cx_word_section(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l)
{
	const char *b = l->body;
	static const struct {
		const char *word;
		enum ev_kind kind;
		const char *name;
	} texts[] = {
		{"user", EV_USER, NULL},         {"User instructions:", EV_USER, NULL},
		{"thinking", EV_REASONING, NULL}, {"codex", EV_TEXT, NULL},
		{"Plan update", EV_SYSTEM, "plan"},
	};

	for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
		if (!cx_is(b, texts[i].word))
			continue;
		cx_close(ctx, st);
		/* exec shows reasoning summaries, never the model's thinking */
		cx_open(ctx, st, l, texts[i].kind, "", texts[i].name)->redacted = texts[i].kind == EV_REASONING;
		return CX_SECTION;
	}
	if (cx_is(b, "exec")) {
		cx_close(ctx, st);
		st->sec = CX_EXEC_CMD;
	} else if (cx_is(b, "file update") || util_starts_with(b, "apply_patch auto_approved=")) {
		cx_close(ctx, st);
		st->sec = CX_PATCH;
		st->patch_line = ctx->lineno;
		st->patch_ts = l->ts;
	} else if (cx_is(b, "file update:") || cx_is(b, "turn diff:")) {
		cx_close(ctx, st);
		st->sec = CX_SKIP;
	} else if (cx_is(b, "tokens used")) {
		cx_close(ctx, st);
		cx_tokens(ctx, st, l, 0);
		st->sec = CX_TOKENS;
		return CX_COUNT;
	} else {
		return CX_BODY;
	}
	return CX_SECTION;
}

/* "... succeeded in 12ms:", "apply_patch(...) exited 0 in 8ms:", "server.tool(...)
 * success in 5ms:": the result of a pending call. */
static enum cx_kind cx_end_section(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l)
{
	const char *b = l->body;
	size_t head;
	int code;

	if (util_starts_with(b, "apply_patch(")) {
		if (!cx_end(b, "succeeded", "exited", &head, &code))
			return CX_BODY;
		cx_close(ctx, st);
		if (!cx_has_pending(st, 1)) {
			run_error(ctx->run, ctx->lineno, "apply_patch result without its \"file update\" block");
			st->bad = 1;
		}
		cx_result(ctx, st, l, "apply_patch", 11, code, 1);
		return CX_SECTION;
	}
	if (!cx_has_pending(st, 0) || (!cx_end(b, "succeeded", "exited", &head, &code) &&
	                               !cx_end(b, "success", "failed", &head, &code)))
		return CX_BODY;
	cx_close(ctx, st);
	cx_result(ctx, st, l, b, head, code, 0);
	return CX_SECTION;
}

/* A line inside the open section (or a stray one). */
static void cx_body(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l)
{
	switch (st->sec) {
	case CX_PATCH:
		cx_patch_line(st, l);
		break;
	case CX_TEXT:
		cx_append(st, l);
		break;
	case CX_SKIP:
	case CX_FINAL:
		break;
	default:
		cx_open(ctx, st, l, EV_SYSTEM, l->s, "output");
		break;
	}
}

/* Lines that a state expects before anything else; 1 when consumed. */
static int cx_expected(struct parse_ctx *ctx, struct cx_state *st, const struct cx_line *l)
{
	long long n;

	if (st->sec == CX_HEADER && cx_header(ctx, st, l))
		return 1;
	if (st->sec == CX_TOKENS) {
		st->sec = CX_NONE;
		if ((n = cx_number(l->s)) >= 0 && st->usage_ev >= 0) {
			ctx->run->ev[st->usage_ev].tok_in = n;
			st->sec = CX_FINAL; /* what follows echoes the last message */
			return 1;
		}
		run_error(ctx->run, ctx->lineno, "\"tokens used\" not followed by its count");
		st->bad = 1;
	}
	if (st->sec == CX_EXEC_CMD && strstr(l->body, " in ")) {
		cx_exec_begin(ctx, st, l, l->body);
		st->tokens_last = 0;
		return 1;
	}
	return 0;
}

static void cx_dispatch(struct parse_ctx *ctx, struct cx_state *st, struct cx_line *l)
{
	enum cx_kind k = CX_BODY;

	if (cx_banner(l->body)) {
		cx_close(ctx, st);
		cx_open(ctx, st, l, EV_SYSTEM, l->body, "session");
		st->sec = CX_HEADER;
		st->dashes = 0;
		st->tokens_last = 0;
		return;
	}
	if (st->sec == CX_FINAL)
		return;
	if (cx_log_line(l->s)) {
		cx_merged(ctx, st, l, "log");
		return;
	}
	if (cx_expected(ctx, st, l))
		return;
	if (!st->ts_mode || l->stamped) {
		k = cx_word_section(ctx, st, l);
		if (k == CX_BODY)
			k = cx_end_section(ctx, st, l);
		if (k == CX_BODY)
			k = cx_inline_section(ctx, st, l);
	}
	if (k == CX_BODY) {
		l->body = l->s; /* a body line keeps all it shows */
		cx_body(ctx, st, l);
	} else if (k != CX_NOISE) {
		st->tokens_last = k == CX_COUNT;
	}
}

/* A stamped line that only old versions write: the banner or a section. */
static int cx_stamped_section(const char *b)
{
	static const char *const words[] = {"thinking", "codex", "exec ", "User instructions:",
	                                    "tokens used", "apply_patch", NULL};
	if (cx_banner(b))
		return 1;
	for (size_t i = 0; words[i]; i++)
		if (util_starts_with(b, words[i]))
			return 1;
	return 0;
}

static int cx_parse_line(struct parse_ctx *ctx, const char *line, size_t len, const cJSON *obj)
{
	struct cx_state *st = ctx->state;
	struct cx_line l = {0};

	(void)obj; /* a line of output may happen to be valid JSON */
	l.s = cx_uncolour(line, len);
	l.body = l.s;
	l.gap = st->last_line ? ctx->lineno - st->last_line - 1 : 0;
	st->last_line = ctx->lineno;
	l.stamped = cx_stamp(l.s, &l.ts, &l.body);
	if (l.stamped && !st->ts_mode && cx_stamped_section(l.body))
		st->ts_mode = 1;
	if (!l.stamped)
		l.ts = 0;
	st->bad = 0;
	cx_dispatch(ctx, st, &l);
	free(l.s);
	return st->bad ? -1 : 0;
}

/* Only lines that nothing but codex exec writes: its banner, or an old
 * version's timestamped section line. */
static int cx_sniff(const char *line, size_t len, const cJSON *obj)
{
	char *s;
	const char *b;
	double ts;
	int score = 0;

	if (obj)
		return 0;
	s = cx_uncolour(line, len);
	if (cx_banner(s))
		score = 90;
	else if (cx_stamp(s, &ts, &b) && cx_stamped_section(b))
		score = cx_banner(b) ? 90 : 40;
	free(s);
	return score;
}

static void cx_finish(struct parse_ctx *ctx)
{
	struct cx_state *st = ctx->state;
	cx_sync(ctx, st); /* the open section stays open for more lines */
	ctx->run->complete_seen = st->tokens_last;
	ctx->run->incomplete = !st->tokens_last;
}

/* The open section's event takes the body lines that follow (cx_sync
 * rewrites its text, cx_merged reads its name), however many events came
 * after it; its usage event's count is set later, which is not a string. */
static size_t cx_open_from(const struct parse_ctx *ctx)
{
	const struct cx_state *st = ctx->state;
	return st->ev >= 0 ? (size_t)st->ev : ctx->run->nev;
}

static const char *const codex_exec_names[] = {"transcript.txt", "stdout.txt", NULL};

const struct parser_ops parse_codex_exec_ops = {
	.plain_text = 1,
	.name = "codex-exec",
	.description = "codex exec human-readable output (OpenAI Codex v... header, thinking/codex/exec sections)",
	.sniff = cx_sniff,
	.state_new = cx_state_new,
	.state_free = cx_state_free,
	.line = cx_parse_line,
	.finish = cx_finish,
	.open_from = cx_open_from,
	.transcript_names = codex_exec_names,
	.tokens = "the \"tokens used\" lines codex exec prints",
	.harness = "codex",
};
