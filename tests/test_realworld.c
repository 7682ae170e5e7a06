/* Real transcripts from public repositories (tests/realworld/MANIFEST.tsv):
 * each is sniffed as the format the manifest names, or, for tools kbtui does
 * not read, gets a message naming what it is or what it is closest to. For
 * every file it reports which record types became events and which were
 * dropped; a dropped type must be in its format's table of ignored records
 * (parser_ops.ignored), and every entry of those tables is in the man page.
 * Ends with the per-format table: files, events, dropped record types. */
#include "tap.h"
#include "parser.h"
#include "dataset.h"
#include "runstats.h"

#include <cjson/cJSON.h>

#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define diag(...) (printf("# "), printf(__VA_ARGS__), printf("\n"))
/* ok() that also gives the condition back */
#define okv(cond, ...) ({ int c_ = !!(cond); ok(c_, __VA_ARGS__); c_; })

struct fmt_row {
	char name[32];
	int files;
	size_t events;
	char dropped[1024];
};

static struct fmt_row rows[32];
static int nrows;

static struct fmt_row *row_for(const char *name)
{
	for (int i = 0; i < nrows; i++)
		if (!strcmp(rows[i].name, name))
			return &rows[i];
	snprintf(rows[nrows].name, sizeof rows[0].name, "%s", name);
	return &rows[nrows++];
}

static void add_dropped(struct fmt_row *row, const char *key)
{
	char pat[64];
	snprintf(pat, sizeof pat, " %s,", key);
	if (strstr(row->dropped, pat) || strlen(row->dropped) + strlen(pat) + 1 >= sizeof row->dropped)
		return;
	strcat(row->dropped, pat);
}

/* An unsupported file: no format, and one message that says why. */
static void check_unsupported(const char *file, const char *path)
{
	char *err = NULL;
	struct run *r = parser_load_final(path, NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	ok(r->meta.format == NULL && r->nerrors >= 1 &&
	   strstr(r->errors[0].msg, "unrecognised transcript format: ") &&
	   (strstr(r->errors[0].msg, "not supported") || strstr(r->errors[0].msg, "closest is")),
	   "%s: unsupported, and the message says what it is or its closest format", file);
	if (r->nerrors)
		diag("%s: %s", file, r->errors[0].msg);
	ok(r->malformed <= 1, "%s: its valid JSON lines are not counted as malformed (%d)", file, r->malformed);
	struct fmt_row *row = row_for("unsupported");
	row->files++;
	run_free(r);
}

static void check_file(const char *file, const char *format, const char *origin)
{
	char rel[512], *err = NULL;
	struct parser_tally t;
	const struct parser_ops *ops = parser_find(format);
	struct run *r;
	struct sbuf undoc;

	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	if (!strcmp(format, "unsupported")) {
		check_unsupported(file, tap_path(rel));
		return;
	}
	if (!okv(ops != NULL, "%s: the manifest names a known format (%s)", file, format))
		return;
	memset(&t, 0, sizeof t);
	r = parser_load_tally(tap_path(rel), NULL, &err, &t);
	if (!okv(r != NULL, "%s loads", file)) {
		diag("%s", err ? err : "");
		free(err);
		return;
	}
	is_str(r->meta.format, format, "%s (%s) sniffed as %s", file, origin, format);
	sbuf_init(&undoc);
	struct fmt_row *row = row_for(format);
	row->files++;
	row->events += r->nev;
	for (int i = 0; i < t.n; i++) {
		const struct parser_tally_key *k = &t.k[i];
		diag("%s: %-40s %4d lines, %s", file, k->key, k->lines,
		     k->used ? "events" : parser_ignored_why(ops, k->key) ? "ignored (documented)" : "DROPPED");
		if (k->used)
			continue;
		add_dropped(row, k->key);
		if (!parser_ignored_why(ops, k->key))
			sbuf_addf(&undoc, " %s", k->key);
	}
	ok(t.overflow == 0, "%s: every record key counted", file);
	ok(undoc.len == 0, "%s: no record type dropped without a word%s%s", file,
	   undoc.len ? ": undocumented:" : "", undoc.len ? undoc.s : "");
	for (int i = 0; i < r->nerrors; i++)
		diag("%s:%d: %s", file, r->errors[i].line, r->errors[i].msg);
	/* the tools' own recordings parse cleanly; fixtures edited by hand may not */
	if (!strncmp(origin, "recorded", 8))
		ok(r->malformed == 0, "%s: recorded by the tool, no malformed line", file);
	size_t unlinked = 0;
	for (size_t j = 0; j < r->nev; j++)
		unlinked += r->ev[j].kind == EV_TOOL_RESULT && r->ev[j].link < 0;
	if (!strcmp(origin, "recorded")) /* whole and untrimmed */
		ok(unlinked == 0, "%s: every tool result has its call (%zu without)", file, unlinked);
	for (size_t j = 0; j < r->nev; j++)
		if (r->ev[j].kind == EV_SYSTEM && (!r->ev[j].text || !*r->ev[j].text) &&
		    !okv(0, "%s:%d: no empty system row (%s)", file, r->ev[j].line,
		        r->ev[j].name ? r->ev[j].name : "?"))
			break;
	sbuf_free(&undoc);
	run_free(r);
}

/* ---- counted from the file itself, with cJSON, to hold the parser to ---- */

struct ids {
	char **v;
	size_t n;
};

static int ids_has(const struct ids *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i], id))
			return 1;
	return 0;
}

static void ids_add(struct ids *s, const char *id)
{
	if (!id || ids_has(s, id))
		return;
	s->v = realloc(s->v, (s->n + 1) * sizeof *s->v);
	s->v[s->n++] = strdup(id);
}

static void ids_free(struct ids *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
}

/* Each JSON line of a corpus file, parsed, to fn. */
static void each_record(const char *file, void (*fn)(const cJSON *, void *), void *arg)
{
	char rel[512];
	size_t n = 0;
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	char *buf = util_read_file(tap_path(rel), &n), *line = buf;
	while (line && *line) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		cJSON *j = cJSON_Parse(line);
		if (j)
			fn(j, arg);
		cJSON_Delete(j);
		line = nl ? nl + 1 : NULL;
	}
	free(buf);
}

/* The tool_use blocks of an assistant message into out; Task/Agent calls
 * also into tasks. */
static void tool_uses(const cJSON *msg, struct ids *out, struct ids *tasks)
{
	const cJSON *b;
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(cJSON_GetObjectItem(msg, "message"), "content"))
	{
		const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(b, "type"));
		const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(b, "id"));
		const char *name = cJSON_GetStringValue(cJSON_GetObjectItem(b, "name"));
		if (!type || strcmp(type, "tool_use") || !id)
			continue;
		ids_add(out, id);
		if (tasks && name && (!strcmp(name, "Task") || !strcmp(name, "Agent")))
			ids_add(tasks, id);
	}
}

struct sub_count {
	struct ids top, tasks;
	struct ids nested[8];      /* per Task call, in the order of tasks */
	int turns;
	double active_ms;
};

static void count_record(const cJSON *j, void *arg)
{
	struct sub_count *c = arg;
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	if (!type)
		return;
	if (!strcmp(type, "assistant"))
		tool_uses(j, &c->top, &c->tasks);
	const char *sub = cJSON_GetStringValue(cJSON_GetObjectItem(j, "subtype"));
	if (!strcmp(type, "system") && sub && !strcmp(sub, "turn_duration")) {
		c->turns++;
		c->active_ms += cJSON_GetNumberValue(cJSON_GetObjectItem(j, "durationMs"));
	}
	const cJSON *data = cJSON_GetObjectItem(j, "data");
	const char *dt = cJSON_GetStringValue(cJSON_GetObjectItem(data, "type"));
	if (strcmp(type, "progress") || !dt || strcmp(dt, "agent_progress"))
		return;
	const cJSON *inner = cJSON_GetObjectItem(data, "message");
	const char *it = cJSON_GetStringValue(cJSON_GetObjectItem(inner, "type"));
	const char *parent = cJSON_GetStringValue(cJSON_GetObjectItem(j, "parentToolUseID"));
	for (size_t k = 0; it && !strcmp(it, "assistant") && parent && k < c->tasks.n && k < 8; k++)
		if (!strcmp(c->tasks.v[k], parent))
			tool_uses(inner, &c->nested[k], NULL);
}

/* A real session with Task subagents (agent_progress records): the calls
 * nested under each Task call are the subagent's tool_use blocks, the
 * top-level calls the session's own, each counted here from the file. */
static void check_subagents(const char *file, size_t want_tasks)
{
	char rel[512], *err = NULL;
	struct sub_count c;
	memset(&c, 0, sizeof c);
	each_record(file, count_record, &c);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	is_int((int)c.tasks.n, (int)want_tasks, "%s: the file has %zu Task calls", file, want_tasks);
	size_t top = 0, nested_total = 0;
	for (size_t i = 0; i < r->nev; i++)
		top += r->ev[i].kind == EV_TOOL_CALL && !r->ev[i].parent;
	is_int((int)top, (int)c.top.n, "%s: %zu top-level tool calls, as the file's assistant records", file,
	       c.top.n);
	for (size_t k = 0; k < c.tasks.n && k < 8; k++) {
		size_t under = 0, right = 0;
		for (size_t i = 0; i < r->nev; i++) {
			const struct event *e = &r->ev[i];
			if (e->kind != EV_TOOL_CALL || !e->parent || strcmp(e->parent, c.tasks.v[k]))
				continue;
			under++;
			right += e->call_id && ids_has(&c.nested[k], e->call_id);
		}
		ok(c.nested[k].n > 0, "%s: Task %s ran tool calls in its subagent", file, c.tasks.v[k]);
		is_int((int)under, (int)c.nested[k].n, "%s: %zu calls nested under Task %s, as its agent_progress tool_use blocks",
		       file, c.nested[k].n, c.tasks.v[k]);
		is_int((int)right, (int)c.nested[k].n, "%s: and they are those calls, by id", file);
		nested_total += c.nested[k].n;
	}
	size_t calls = 0;
	for (size_t i = 0; i < r->nev; i++)
		calls += r->ev[i].kind == EV_TOOL_CALL;
	is_int((int)calls, (int)(c.top.n + nested_total), "%s: every call is top-level or under a Task (%zu)", file,
	       calls);
	/* turn_duration: a turn's model and tool time is no more than its active time */
	struct runstats *s = runstats_new(r);
	is_int(s->turns, c.turns, "%s: the time split saw the file's %d turn_duration records", file, c.turns);
	ok(c.turns > 0 && s->active > c.active_ms / 1000.0 - 1e-6 && s->active < c.active_ms / 1000.0 + 1e-6,
	   "%s: their active time %.3f s, as durationMs adds up to", file, s->active);
	size_t last = 0;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_SYSTEM && r->ev[i].name && !strcmp(r->ev[i].name, "turn_duration"))
			last = i;
	double busy = 0, after = 0, sum = 0;
	for (size_t i = 0; i < r->nev; i++) {
		if (s->ev[i].part != RS_MODEL && s->ev[i].part != RS_TOOL)
			continue;
		busy += s->ev[i].secs;
		if (i > last)
			after += s->ev[i].secs;
	}
	ok(busy - after <= s->active + 1e-6, "%s: model and tool time in the turns %.3f s <= active %.3f s", file,
	   busy - after, s->active);
	ok(busy > s->part[RS_MODEL] + s->part[RS_TOOL] - 1e-6 && busy < s->part[RS_MODEL] + s->part[RS_TOOL] + 1e-6,
	   "%s: the events' times add up to the split's model and tool parts", file);
	for (int p = 0; p < RS__PARTS; p++)
		sum += s->part[p];
	ok(sum > s->total - 1e-6 && sum < s->total + 1e-6, "%s: the parts still add up to the elapsed %.3f s", file,
	   s->total);
	runstats_free(s);
	run_free(r);
	ids_free(&c.top);
	ids_free(&c.tasks);
	for (int k = 0; k < 8; k++)
		ids_free(&c.nested[k]);
}

struct kimi_count {
	long long last_usage;
	int usage_lines;
	const char *last_role;
	char role[32];
};

static void kimi_record(const cJSON *j, void *arg)
{
	struct kimi_count *c = arg;
	const char *role = cJSON_GetStringValue(cJSON_GetObjectItem(j, "role"));
	if (!role)
		return;
	snprintf(c->role, sizeof c->role, "%s", role);
	if (!strcmp(role, "_usage")) {
		c->usage_lines++;
		c->last_usage = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "token_count"));
	}
}

/* A real Kimi CLI session file: it ends with a _usage record after the
 * final answer, and is complete; _usage.token_count is the context's size
 * so far, and the run's input tokens add up to its last value. */
static void check_kimi_usage(const char *file)
{
	char rel[512], *err = NULL;
	struct kimi_count c;
	memset(&c, 0, sizeof c);
	each_record(file, kimi_record, &c);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	is_str(c.role, "_usage", "%s: the file ends with a _usage record", file);
	is_int(r->incomplete, 0, "%s: and is complete, not INCOMPLETE", file);
	long long in = 0;
	int nusage = 0;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_USAGE) {
			in += r->ev[i].tok_in;
			nusage++;
		}
	is_int(nusage, c.usage_lines, "%s: one usage event per _usage record (%d)", file, c.usage_lines);
	ok(in == c.last_usage && in > 0, "%s: input tokens %lld, the last token_count %lld", file, in, c.last_usage);
	run_free(r);
}

struct api_count {
	int n;
	long long status[64], attempt[64], max[64];
};

static void api_record(const cJSON *j, void *arg)
{
	struct api_count *c = arg;
	const char *sub = cJSON_GetStringValue(cJSON_GetObjectItem(j, "subtype"));
	if (!sub || strcmp(sub, "api_error") || c->n >= 64)
		return;
	c->status[c->n] = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"), "status"));
	c->attempt[c->n] = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "retryAttempt"));
	c->max[c->n] = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(j, "maxRetries"));
	c->n++;
}

/* A real session's api_error records (HTTP headers and all): one readable
 * error row each, in order, "429 rate limited, retry 2/10". */
static void check_api_errors(const char *file)
{
	char rel[512], *err = NULL;
	struct api_count c;
	memset(&c, 0, sizeof c);
	each_record(file, api_record, &c);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	int k = 0, right = 0, raw = 0;
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		if (!e->name || strcmp(e->name, "api_error"))
			continue;
		char want[96];
		snprintf(want, sizeof want, "%lld %s, retry %lld/%lld", k < c.n ? c.status[k] : -1,
		         k < c.n && c.status[k] == 429 ? "rate limited" : "?", k < c.n ? c.attempt[k] : -1,
		         k < c.n ? c.max[k] : -1);
		right += e->kind == EV_ERROR && e->text && !strcmp(e->text, want);
		raw += e->text && strchr(e->text, '{') != NULL;
		if (!k)
			diag("%s: first api_error row: %s", file, e->text ? e->text : "");
		k++;
	}
	ok(c.n > 0 && k == c.n, "%s: one row per api_error record (%d of %d)", file, k, c.n);
	is_int(right, c.n, "%s: each reads \"<status> rate limited, retry <n>/<max>\" from its record", file);
	is_int(raw, 0, "%s: none shows the raw JSON", file);
	run_free(r);
}

struct msg_usage {
	struct ids ids;
	long long first[256], largest[256];
};

static void usage_of(struct msg_usage *m, const cJSON *msg)
{
	const char *id = cJSON_GetStringValue(cJSON_GetObjectItem(msg, "id"));
	const cJSON *u = cJSON_GetObjectItem(msg, "usage");
	if (!id || !u)
		return;
	size_t k;
	for (k = 0; k < m->ids.n && strcmp(m->ids.v[k], id); k++)
		;
	if (k >= 256)
		return;
	long long out = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(u, "output_tokens"));
	if (k == m->ids.n) {
		ids_add(&m->ids, id);
		m->first[k] = out;
	}
	if (out > m->largest[k])
		m->largest[k] = out;
}

static void usage_record(const cJSON *j, void *arg)
{
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	const cJSON *data = cJSON_GetObjectItem(j, "data");
	const char *dt = cJSON_GetStringValue(cJSON_GetObjectItem(data, "type"));
	if (type && !strcmp(type, "assistant"))
		usage_of(arg, cJSON_GetObjectItem(j, "message"));
	else if (type && !strcmp(type, "progress") && dt && !strcmp(dt, "agent_progress"))
		usage_of(arg, cJSON_GetObjectItem(cJSON_GetObjectItem(data, "message"), "message"));
}

/* A real 2.1.x session file writes a message's usage on each of its lines,
 * the first as the stream began: the run's output is each message's
 * largest figure, main and subagent messages once each, not the first,
 * and exact (2.1.56 is past the versions that undercount). */
static void check_final_tokens(const char *file)
{
	char rel[512], *err = NULL;
	struct msg_usage m;
	memset(&m, 0, sizeof m);
	each_record(file, usage_record, &m);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	long long want = 0, first = 0, out = 0;
	for (size_t k = 0; k < m.ids.n; k++) {
		want += m.largest[k];
		first += m.first[k];
	}
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_USAGE)
			out += r->ev[i].tok_out;
	ok(first < want, "%s: the messages' first lines say less (%lld) than their last (%lld)", file, first, want);
	ok(out == want, "%s: output tokens %lld, each of the %zu messages' largest figure (%lld)", file, out,
	   m.ids.n, want);
	is_int(r->tokens_approx, 0, "%s: and not marked approximate", file);
	ids_free(&m.ids);
	run_free(r);
}

/* A session file of a version that records output_tokens as the stream
 * began (about 2.0.76 to 2.1.37, the version read here with cJSON): the
 * total is still each message's largest figure, and marked approximate;
 * a file of a later version (approx 0) is not marked. */
struct approx_count {
	struct msg_usage m;
	char version[32];
};

static void approx_record(const cJSON *j, void *arg)
{
	struct approx_count *c = arg;
	const char *v = cJSON_GetStringValue(cJSON_GetObjectItem(j, "version"));
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	if (v && type && !strcmp(type, "assistant") && !c->version[0])
		snprintf(c->version, sizeof c->version, "%s", v);
	usage_record(j, &c->m);
}

static void check_approx_tokens(const char *file, int approx)
{
	char rel[512], *err = NULL;
	struct approx_count *c = calloc(1, sizeof *c);
	int a = 0, b = 0, d = 0;
	each_record(file, approx_record, c);
	long key = sscanf(c->version, "%d.%d.%d", &a, &b, &d) == 3 ? a * 1000000L + b * 1000L + d : -1;
	ok(key >= 0 && (key >= 2000076L && key <= 2001037L) == approx, "%s: written by Claude Code %s, %s 2.0.76 to 2.1.37",
	   file, c->version, approx ? "within" : "outside");
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (okv(r != NULL, "%s loads", file)) {
		long long want = 0, out = 0;
		for (size_t k = 0; k < c->m.ids.n; k++)
			want += c->m.largest[k];
		for (size_t i = 0; i < r->nev; i++)
			if (r->ev[i].kind == EV_USAGE)
				out += r->ev[i].tok_out;
		ok(c->m.ids.n > 0 && out == want, "%s: output tokens %lld, each of the %zu messages' largest figure (%lld)",
		   file, out, c->m.ids.n, want);
		is_int(r->tokens_approx, approx, "%s: the total is %smarked approximate", file, approx ? "" : "not ");
		run_free(r);
	}
	free(err);
	ids_free(&c->m.ids);
	free(c);
}

/* Whitespace-only text blocks (Claude Code writes "\n\n" before a thinking
 * block): no row. Every other assistant text block is one, counted with
 * cJSON from the file. */
struct blank_count {
	int blank, text;
};

static int all_space(const char *s)
{
	for (; *s; s++)
		if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
			return 0;
	return 1;
}

static void blank_record(const cJSON *j, void *arg)
{
	struct blank_count *c = arg;
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	const cJSON *b;
	if (!type || strcmp(type, "assistant") || cJSON_IsTrue(cJSON_GetObjectItem(j, "isApiErrorMessage")))
		return;
	cJSON_ArrayForEach(b, cJSON_GetObjectItem(cJSON_GetObjectItem(j, "message"), "content"))
	{
		const char *bt = cJSON_GetStringValue(cJSON_GetObjectItem(b, "type"));
		const char *text = cJSON_GetStringValue(cJSON_GetObjectItem(b, "text"));
		if (bt && !strcmp(bt, "text") && text)
			(all_space(text) ? &c->blank : &c->text)[0]++;
	}
}

static void check_blank_text(const char *file)
{
	char rel[512], *err = NULL;
	struct blank_count c = {0, 0};
	each_record(file, blank_record, &c);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	int rows = 0, blank_rows = 0;
	for (size_t i = 0; i < r->nev; i++) {
		if (r->ev[i].kind != EV_TEXT)
			continue;
		rows++;
		blank_rows += !r->ev[i].text || all_space(r->ev[i].text);
	}
	ok(c.blank > 0, "%s: %d whitespace-only text blocks in the file", file, c.blank);
	is_int(blank_rows, 0, "%s: none of them is a row", file);
	is_int(rows, c.text, "%s: each of the %d other text blocks is one", file, c.text);
	run_free(r);
}

struct stream_count {
	long long msg_out, last_result, results_sum;
	int results;
};

static void stream_record(const cJSON *j, void *arg)
{
	struct stream_count *c = arg;
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	if (!type)
		return;
	const cJSON *u = !strcmp(type, "assistant") ? cJSON_GetObjectItem(cJSON_GetObjectItem(j, "message"), "usage")
	                                            : cJSON_GetObjectItem(j, "usage");
	long long out = (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(u, "output_tokens"));
	if (!strcmp(type, "assistant"))
		c->msg_out += out;
	if (!strcmp(type, "result")) {
		c->results++;
		c->results_sum += out;
		c->last_result = out;
	}
}

/* A stream-json log of several turns has a result line per turn, each
 * with its own turn's usage: the last is not the session's total. */
static void check_stream_results(const char *file)
{
	char rel[512], *err = NULL;
	struct stream_count c;
	memset(&c, 0, sizeof c);
	each_record(file, stream_record, &c);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	long long out = 0;
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_USAGE)
			out += r->ev[i].tok_out;
	ok(c.results >= 2, "%s: %d result lines, one per turn", file, c.results);
	ok(out >= c.msg_out && out != c.last_result && out >= c.last_result,
	   "%s: output %lld: the messages' %lld at least, not the last result's %lld (results add up to %lld)",
	   file, out, c.msg_out, c.last_result, c.results_sum);
	run_free(r);
}

/* A Claude Code stream-json log (2.1.285, auto-compaction) with its
 * bookkeeping: rate_limit_event while allowed, system/status around the
 * compaction and system/thinking_tokens estimates make no row; the one
 * compact_boundary is one compaction row; the turns' result lines give the
 * output (their sum) and the thinking tokens (their output_tokens_details),
 * all counted here with cJSON. */
struct book_count {
	int rate_allowed, rate_refused, status, estimates, boundaries;
	long long results_out, results_think;
};

static void book_record(const cJSON *j, void *arg)
{
	struct book_count *c = arg;
	const char *type = cJSON_GetStringValue(cJSON_GetObjectItem(j, "type"));
	const char *sub = cJSON_GetStringValue(cJSON_GetObjectItem(j, "subtype"));
	if (!type)
		return;
	if (!strcmp(type, "rate_limit_event")) {
		const char *st = cJSON_GetStringValue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "rate_limit_info"), "status"));
		(st && !strncmp(st, "allowed", 7) ? &c->rate_allowed : &c->rate_refused)[0]++;
	} else if (!strcmp(type, "system") && sub) {
		c->status += !strcmp(sub, "status");
		c->estimates += !strcmp(sub, "thinking_tokens");
		c->boundaries += !strcmp(sub, "compact_boundary");
	} else if (!strcmp(type, "result")) {
		const cJSON *u = cJSON_GetObjectItem(j, "usage");
		c->results_out += (long long)cJSON_GetNumberValue(cJSON_GetObjectItem(u, "output_tokens"));
		c->results_think += (long long)cJSON_GetNumberValue(
			cJSON_GetObjectItem(cJSON_GetObjectItem(u, "output_tokens_details"), "thinking_tokens"));
	}
}

static void check_stream_bookkeeping(const char *file)
{
	char rel[512], *err = NULL;
	struct book_count c;
	memset(&c, 0, sizeof c);
	each_record(file, book_record, &c);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	int rate_rows = 0, status_rows = 0, estimate_rows = 0, compactions = 0;
	for (size_t i = 0; i < r->nev; i++) {
		const struct event *e = &r->ev[i];
		const char *name = e->name ? e->name : "";
		rate_rows += !strcmp(name, "rate_limit_event");
		status_rows += !strcmp(name, "status") || (e->text && strstr(e->text, "compacting"));
		estimate_rows += !strcmp(name, "thinking_tokens");
		compactions += e->kind == EV_COMPACTION;
	}
	long long out = 0, think = 0;
	run_tokens(r, NULL, &out, NULL, NULL, &think);
	ok(c.rate_allowed > 0 && rate_rows == c.rate_refused,
	   "%s: %d rate_limit_event records while allowed, no row (%d rows, %d refused)", file, c.rate_allowed,
	   rate_rows, c.rate_refused);
	ok(c.status >= 2 && status_rows == 0, "%s: %d system/status records (compacting), no row (%d)", file,
	   c.status, status_rows);
	ok(c.estimates > 0 && estimate_rows == 0, "%s: %d system/thinking_tokens estimates, no row (%d)", file,
	   c.estimates, estimate_rows);
	ok(c.boundaries == 1 && compactions == 1, "%s: the compact_boundary is the one compaction row (%d)", file,
	   compactions);
	ok(c.results_out > 0 && out == c.results_out, "%s: output tokens %lld, the turns' result lines' sum (%lld)",
	   file, out, c.results_out);
	ok(c.results_think > 0 && think == c.results_think,
	   "%s: thinking tokens %lld, the result lines' output_tokens_details.thinking_tokens (%lld)", file, think,
	   c.results_think);
	run_free(r);
}

struct compact_count {
	int n;
	long long saved;
};

static void compact_record(const cJSON *j, void *arg)
{
	struct compact_count *c = arg;
	const char *sub = cJSON_GetStringValue(cJSON_GetObjectItem(j, "subtype"));
	if (!sub || (strcmp(sub, "microcompact_boundary") && strcmp(sub, "compact_boundary")))
		return;
	c->n++;
	c->saved = (long long)cJSON_GetNumberValue(
		cJSON_GetObjectItem(cJSON_GetObjectItem(j, "microcompactMetadata"), "tokensSaved"));
}

/* A real microcompaction: one compaction row that says what it saved. */
static void check_compaction(const char *file)
{
	char rel[512], *err = NULL, want[64];
	struct compact_count c;
	memset(&c, 0, sizeof c);
	each_record(file, compact_record, &c);
	snprintf(rel, sizeof rel, "tests/realworld/%s", file);
	struct run *r = parser_load_final(tap_path(rel), NULL, &err);
	if (!okv(r != NULL, "%s loads", file)) {
		free(err);
		return;
	}
	int rows = 0, said = 0;
	snprintf(want, sizeof want, "%lld tokens saved", c.saved);
	for (size_t i = 0; i < r->nev; i++)
		if (r->ev[i].kind == EV_COMPACTION) {
			rows++;
			said += r->ev[i].text && strstr(r->ev[i].text, want) != NULL;
			diag("%s: compaction row: %s", file, r->ev[i].text ? r->ev[i].text : "");
		}
	ok(c.n > 0 && rows == c.n, "%s: one compaction row per boundary record (%d of %d)", file, rows, c.n);
	ok(c.saved > 0 && said == c.n, "%s: it says the %s", file, want);
	run_free(r);
}

/* Every ignored-record entry is in the man page, word for word. */
static void check_manpage(void)
{
	FILE *f = fopen(tap_path("man/kbtui.1"), "rb");
	struct sbuf man;
	char buf[4096];
	size_t n;
	int missing = 0, entries = 0;

	if (!okv(f != NULL, "man/kbtui.1 opens"))
		return;
	sbuf_init(&man);
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		sbuf_add(&man, buf, n);
	fclose(f);
	for (size_t i = 0; parser_all[i]; i++)
		for (const struct parser_ignored *g = parser_all[i]->ignored; g && g->type; g++) {
			char pat[160];
			entries++;
			/* the man page escapes hyphens as \- */
			size_t o = 0;
			for (const char *c = g->type; *c && o + 3 < sizeof pat; c++) {
				if (*c == '-')
					pat[o++] = '\\';
				pat[o++] = *c;
			}
			pat[o] = '\0';
			if (!strstr(man.s, pat)) {
				diag("man page lacks %s record %s", parser_all[i]->name, g->type);
				missing++;
			}
		}
	ok(entries > 0 && missing == 0, "the man page lists all %d ignored record types (%d missing)", entries,
	   missing);
	sbuf_free(&man);
}

/* `kbtui runs DIR` without runs.jsonl: HARNESS and MODEL come from the
 * parsed transcripts (dataset_fill_meta). */
static void check_unindexed(void)
{
	char dir[] = "/tmp/kbtui-realworld-XXXXXX", path[512], *err = NULL;
	const char *src = tap_path("tests/realworld/ccv-claude-1.0.98.jsonl");
	if (!mkdtemp(dir)) {
		ok(0, "a temporary dataset");
		return;
	}
	snprintf(path, sizeof path, "%s/runs", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/runs/r1", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof path, "%s/runs/r1/transcript.jsonl", dir);
	size_t n = 0;
	char *buf = util_read_file(src, &n);
	FILE *f = fopen(path, "wb");
	if (f && buf)
		fwrite(buf, 1, n, f);
	if (f)
		fclose(f);
	free(buf);
	struct dataset *ds = dataset_open(dir, &err);
	if (!okv(ds && ds->nruns == 1, "a directory of runs without runs.jsonl opens (%s)", err ? err : "")) {
		free(err);
		return;
	}
	ok(!ds->runs[0].meta.harness && !ds->runs[0].meta.model, "no index: harness and model unknown at first");
	dataset_fill_meta(ds);
	is_str(ds->runs[0].meta.harness, "claude", "HARNESS from the transcript's format");
	is_str(ds->runs[0].meta.model, "claude-sonnet-4-20250514", "MODEL from the transcript");
	ok(ds->runs[0].run == NULL, "the transcript is not kept in memory for it");
	dataset_free(ds);
	unlink(path);
	snprintf(path, sizeof path, "%s/runs/r1", dir);
	rmdir(path);
	snprintf(path, sizeof path, "%s/runs", dir);
	rmdir(path);
	rmdir(dir);
}

int main(void)
{
	FILE *f = fopen(tap_path("tests/realworld/MANIFEST.tsv"), "r");
	char line[2048];
	int files = 0;

	if (!okv(f != NULL, "tests/realworld/MANIFEST.tsv opens"))
		return tap_done();
	while (fgets(line, sizeof line, f)) {
		char *fields[7] = {0}, *p = line;
		int nf = 0;
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !strncmp(line, "file\t", 5) || !line[0])
			continue;
		while (nf < 7 && p) {
			fields[nf++] = p;
			p = strchr(p, '\t');
			if (p)
				*p++ = '\0';
		}
		if (!okv(nf == 7, "manifest line for %s has 7 fields", fields[0]))
			continue;
		ok(strstr(fields[6], "MIT") || strstr(fields[6], "Apache") || strstr(fields[6], "BSD") ||
		   strstr(fields[6], "CC-BY"), "%s: licence %s allows redistribution", fields[0], fields[6]);
		check_file(fields[0], fields[1], fields[2]);
		files++;
	}
	fclose(f);
	ok(files >= 25, "the corpus holds at least 25 files (%d)", files);
	ok(nrows >= 6, "across at least five formats and the unsupported ones (%d)", nrows);
	check_manpage();
	check_unindexed();
	check_subagents("kimi-repo-claude-2.1.56-task.jsonl", 1);
	check_subagents("kimi-repo-claude-2.1.63-tasks.jsonl", 3);
	check_kimi_usage("kimi-cli-context-sklearn-26323.jsonl");
	check_api_errors("kimi-repo-claude-2.1.71-api-error.jsonl");
	check_final_tokens("kimi-repo-claude-2.1.56-task.jsonl");
	check_final_tokens("kimi-repo-claude-2.1.63-tasks.jsonl");
	check_stream_results("takopi-claude_stream_json_session.jsonl");
	check_compaction("kimi-repo-claude-2.1.56-microcompact.jsonl");
	check_stream_results("untether-claude-2.1.285-autocompact.jsonl");
	check_stream_bookkeeping("untether-claude-2.1.285-autocompact.jsonl");
	check_blank_text("entire-claude-2.1.34-whitespace.jsonl");
	check_blank_text("entire-claude-2.1.37.jsonl");
	check_approx_tokens("entire-claude-2.1.34-whitespace.jsonl", 1);
	check_approx_tokens("entire-claude-2.1.37.jsonl", 1);
	check_approx_tokens("entire-claude-2.0.76.jsonl", 1);
	check_approx_tokens("entire-claude-2.1.38.jsonl", 0);
	diag("per-format table: format | files | events | record types that made no event in some file "
	     "(all documented)");
	for (int i = 0; i < nrows; i++)
		diag("%-16s | %3d | %6zu |%s", rows[i].name, rows[i].files, rows[i].events,
		     rows[i].dropped[0] ? rows[i].dropped : " -");
	return tap_done();
}
