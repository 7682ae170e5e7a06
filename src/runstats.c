/* runstats.c: a run's time split (model, tools by kind, other) and how
 * visible its reasoning is. See runstats.h for the rules. */
#include "config.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonx.h"
#include "runstats.h"
#include "parser.h"
#include "util.h"

/* ---- what a tool call runs ---------------------------------------------------- */

static int rs_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
	       c == '+';
}

/* w as a word of a shell command: after a separator or a path's '/', before
 * a separator. */
static int rs_word(const char *cmd, const char *w)
{
	size_t n = strlen(w);
	for (const char *p = cmd; (p = strstr(p, w)); p++) {
		int before = p == cmd || (!rs_alnum(p[-1]) && p[-1] != '.');
		if (before && !rs_alnum(p[n]) && p[n] != '.')
			return 1;
	}
	return 0;
}

int runstats_runs_python(const char *cmd)
{
	if (!cmd)
		return 0;
	for (const char *p = cmd; (p = strstr(p, "python")); p++) {
		if (p != cmd && (rs_alnum(p[-1]) || p[-1] == '.'))
			continue;
		const char *q = p + 6;
		while ((*q >= '0' && *q <= '9') || *q == '.')
			q++;
		if (!rs_alnum(*q))
			return 1;
	}
	return rs_word(cmd, "pytest") || rs_word(cmd, "torchrun") || strstr(cmd, "uv run") != NULL;
}

enum runstats_tool runstats_classify(const char *cmd)
{
	static const char *const compilers[] = { "nvcc", "g++", "gcc", "c++", "clang", "clang++", "make", "cmake",
		                                 "ninja", NULL };
	if (!cmd)
		return RS_OTHER;
	int py = runstats_runs_python(cmd);
	if (py && strstr(cmd, "check.py"))
		return RS_CHECK;
	if (py && (strstr(cmd, "benchmark.py") || strstr(cmd, "bench")))
		return RS_BENCH;
	if (rs_word(cmd, "ncu") || rs_word(cmd, "nsys"))
		return RS_BENCH;
	for (int i = 0; compilers[i]; i++)
		if (rs_word(cmd, compilers[i]))
			return RS_COMPILE;
	if (py && (strstr(cmd, "load_inline") || strstr(cmd, "cpp_extension") || strstr(cmd, "triton.jit") ||
	           strstr(cmd, "setup.py")))
		return RS_COMPILE;
	return RS_OTHER;
}

/* A JSON string, or an array of strings joined with spaces. */
static char *rs_json_command(const cJSON *v)
{
	if (cJSON_IsString(v))
		return xstrdup(v->valuestring);
	if (!cJSON_IsArray(v))
		return NULL;
	struct sbuf b;
	sbuf_init(&b);
	const cJSON *it;
	cJSON_ArrayForEach(it, v)
	{
		if (!cJSON_IsString(it))
			continue;
		if (b.len)
			sbuf_addc(&b, ' ');
		sbuf_adds(&b, it->valuestring);
	}
	return b.len ? sbuf_detach(&b) : (sbuf_free(&b), NULL);
}

char *runstats_command(const struct event *call)
{
	static const char *const keys[] = { "command", "cmd", "commands", NULL };
	if (!call || call->kind != EV_TOOL_CALL || !call->args)
		return NULL;
	cJSON *o = jx_parse(call->args, strlen(call->args));
	char *cmd = NULL;
	if (cJSON_IsObject(o))
		for (int i = 0; keys[i] && !cmd; i++)
			cmd = rs_json_command(cJSON_GetObjectItemCaseSensitive(o, keys[i]));
	cJSON_Delete(o);
	return cmd;
}

enum runstats_tool runstats_call_class(const struct event *call)
{
	if (!call || call->kind != EV_TOOL_CALL)
		return RS_OTHER;
	if (call->name && !strcmp(call->name, "eval"))  /* kbtui live's scoring tool */
		return RS_CHECK;
	char *cmd = runstats_command(call);
	enum runstats_tool t = runstats_classify(cmd);
	free(cmd);
	return t;
}

const char *runstats_tool_name(enum runstats_tool t)
{
	static const char *const names[RS__TOOLS] = { "compile", "check", "bench", "other" };
	return t >= 0 && t < RS__TOOLS ? names[t] : "?";
}

const char *runstats_reasoning_name(enum runstats_reasoning r)
{
	switch (r) {
	case RS_R_NONE: return "none";
	case RS_R_VISIBLE: return "visible";
	case RS_R_PARTIAL: return "partly redacted";
	case RS_R_SUMMARY: return "summary only";
	case RS_R_REDACTED: return "redacted";
	case RS_R_ENCRYPTED: return "encrypted";
	case RS_R_UNRECORDED: return "not recorded";
	}
	return "?";
}

/* ---- the time split ------------------------------------------------------------ */

static enum runstats_part rs_part(enum ev_kind k)
{
	switch (k) {
	case EV_TOOL_RESULT: return RS_TOOL;
	case EV_REASONING:
	case EV_TEXT:
	case EV_TOOL_CALL:
	case EV_USAGE:
	case EV_ERROR: return RS_MODEL;
	default: return RS_WAIT;
	}
}

/* Events [s->nev, upto): each one's gap and part (the walk's state, the
 * last stamp, is kept in s). */
static void rs_time(struct runstats *s, const struct run *r, size_t upto)
{
	for (size_t i = s->nev; i < upto; i++) {
		const struct event *e = &r->ev[i];
		struct runstats_ev *x = &s->ev[i];
		x->part = RS_NONE;
		x->tool = RS_OTHER;
		x->secs = 0;
		if (e->ts <= 0)
			continue;
		if (!s->stamped++) {
			s->first = s->prev = e->ts;
			continue;
		}
		double gap = e->ts > s->prev ? e->ts - s->prev : 0;
		if (e->ts > s->prev)
			s->prev = e->ts;
		x->part = (signed char)rs_part(e->kind);
		x->secs = gap;
		s->part[x->part] += gap;
		if (x->part == RS_TOOL) {
			const struct event *call = e->link >= 0 && (size_t)e->link < r->nev ? &r->ev[e->link] : NULL;
			x->tool = (signed char)runstats_call_class(call);
			s->tool[x->tool] += gap;
		}
	}
	s->timed = s->stamped > 1;
	s->total = s->prev - s->first;
}

/* A turn's active seconds from its turn_duration row (Claude Code session
 * files: durationMs in args), or -1 when e is not one. */
static double rs_turn_active(const struct event *e)
{
	if (e->kind != EV_SYSTEM || !e->name || strcmp(e->name, "turn_duration") || !e->args)
		return -1;
	char *end;
	double ms = strtod(e->args, &end);
	return end != e->args && ms > 0 ? ms / 1000.0 : -1;
}

/* Where a turn says how long it was active (turn_duration), the gaps of
 * its model and tool events add up to no more than that: the rest of the
 * clock was not the agent's (a permission prompt answered, the person
 * away), so they are scaled down to the active time and the excess is
 * wait. Turns without the row keep the gaps as they are. */
static void rs_turns(struct runstats *s, const struct run *r, size_t upto)
{
	size_t start = s->turn_start;
	for (size_t i = s->nev; i < upto; i++) {
		double active = rs_turn_active(&r->ev[i]), busy = 0;
		if (active < 0)
			continue;
		s->turns++;
		s->active += active;
		for (size_t j = start; j < i; j++)
			if (s->ev[j].part == RS_MODEL || s->ev[j].part == RS_TOOL)
				busy += s->ev[j].secs;
		if (busy > active) {
			double keep = active / busy;
			for (size_t j = start; j < i; j++) {
				struct runstats_ev *x = &s->ev[j];
				if (x->part != RS_MODEL && x->part != RS_TOOL)
					continue;
				double d = x->secs * (1 - keep);
				x->secs -= d;
				s->part[x->part] -= d;
				if (x->part == RS_TOOL)
					s->tool[x->tool] -= d;
				s->part[RS_WAIT] += d;
			}
		}
		start = i + 1;
	}
	s->turn_start = start;
}

/* ---- reasoning ------------------------------------------------------------------- */

static size_t rs_chars(const char *t)
{
	size_t n = 0;
	for (; t && *t; t++)
		n += ((unsigned char)*t & 0xC0) != 0x80;
	return n;
}

static void rs_reasoning(struct runstats *s, const struct run *r, size_t upto)
{
	const struct parser_ops *ops = parser_find(r->meta.format);
	s->thinking = ops && ops->thinking;
	for (size_t i = s->nev; i < upto; i++) {
		const struct event *e = &r->ev[i];
		if (e->kind == EV_USAGE)
			s->tok_reasoning += e->tok_reasoning;
		if (e->kind != EV_REASONING)
			continue;
		s->nreasoning++;
		size_t c = rs_chars(e->text);
		if (e->redacted) {
			s->nhidden++;
			s->chars_summary += c;
		} else {
			s->chars_shown += c;
		}
	}
	if (!s->nreasoning)
		s->reasoning = s->tok_reasoning > 0 ? RS_R_UNRECORDED : RS_R_NONE;
	else if (!s->nhidden)
		s->reasoning = RS_R_VISIBLE;
	else if (s->nhidden < s->nreasoning)
		s->reasoning = RS_R_PARTIAL;
	else if (s->chars_summary > 0)
		s->reasoning = RS_R_SUMMARY;
	else  /* Claude's redacted_thinking; the others' encrypted_content */
		s->reasoning = s->thinking ? RS_R_REDACTED : RS_R_ENCRYPTED;
}

struct runstats *runstats_new(const struct run *r)
{
	return runstats_new_upto(r, r->nev);
}

struct runstats *runstats_new_upto(const struct run *r, size_t upto)
{
	struct runstats *s = xcalloc(1, sizeof *s);
	runstats_update(s, r, upto);
	return s;
}

void runstats_update(struct runstats *s, const struct run *r, size_t upto)
{
	if (upto > r->nev)
		upto = r->nev;
	if (upto <= s->nev && s->ev)
		return;
	s->ev = xgrow(s->ev, &s->cap, upto + 1, sizeof *s->ev);
	/* each walk takes the events from s->nev on, so it moves last */
	rs_time(s, r, upto);
	rs_turns(s, r, upto);
	rs_reasoning(s, r, upto);
	s->nev = upto;
}

void runstats_free(struct runstats *s)
{
	if (!s)
		return;
	free(s->ev);
	free(s);
}

/* ---- text ------------------------------------------------------------------------ */

void runstats_duration(char *buf, size_t n, double secs)
{
	if (secs < 0)
		secs = 0;
	long t = (long)(secs + 0.5);
	if (t < 100)
		snprintf(buf, n, "%lds", t);
	else if (t < 3600)
		snprintf(buf, n, "%ldm", (t + 30) / 60);
	else
		snprintf(buf, n, "%ldh%02ldm", t / 3600, t % 3600 / 60);
}

char *runstats_split_text(const struct runstats *s)
{
	char a[32], b[32], c[32];
	if (!s->timed)
		return NULL;
	struct sbuf o;
	sbuf_init(&o);
	runstats_duration(a, sizeof a, s->part[RS_MODEL]);
	runstats_duration(b, sizeof b, s->part[RS_TOOL]);
	sbuf_addf(&o, "model %s tool %s", a, b);
	int any = 0;
	for (int t = 0; t < RS__TOOLS; t++) {
		if (s->tool[t] <= 0 || (t == RS_OTHER && !any))
			continue;
		runstats_duration(c, sizeof c, s->tool[t]);
		sbuf_addf(&o, "%s %s %s", any ? "" : ":", runstats_tool_name((enum runstats_tool)t), c);
		any = 1;
	}
	if (s->part[RS_WAIT] >= 1) {
		runstats_duration(c, sizeof c, s->part[RS_WAIT]);
		sbuf_addf(&o, " wait %s", c);
	}
	return sbuf_detach(&o);
}

char *runstats_event_text(const struct runstats *s, size_t i)
{
	char d[32];
	if (i >= s->nev || s->ev[i].part == RS_NONE)
		return NULL;
	const struct runstats_ev *x = &s->ev[i];
	runstats_duration(d, sizeof d, x->secs);
	if (x->part == RS_TOOL)
		return xasprintf("tool %s %s", d, runstats_tool_name((enum runstats_tool)x->tool));
	return xasprintf("%s %s", x->part == RS_MODEL ? "model" : "wait", d);
}

char *runstats_reasoning_text(const struct runstats *s)
{
	char tok[32], shown[32];
	const char *word = s->thinking ? "thinking" : "reasoning";
	util_fmt_count(tok, sizeof tok, s->tok_reasoning);
	util_fmt_count(shown, sizeof shown, (long long)s->chars_shown);
	if (s->reasoning == RS_R_NONE && s->tok_reasoning > 0)
		/* the transcript disagrees with itself: say both, not "none" */
		return xasprintf("reasoning: no block in the transcript, but its usage counts %s %s tokens "
		                 "(the harness did not record them)", tok, word);
	if (s->reasoning == RS_R_NONE)
		return xstrdup("reasoning: none recorded");
	struct sbuf o;
	sbuf_init(&o);
	sbuf_addf(&o, "reasoning %s:", runstats_reasoning_name(s->reasoning));
	if (s->tok_reasoning > 0)
		sbuf_addf(&o, " %s %s tokens,", tok, word);
	else
		sbuf_addf(&o, " %zu block%s (no token count),", s->nreasoning, s->nreasoning == 1 ? "" : "s");
	sbuf_addf(&o, " %s chars shown", shown);
	if (s->reasoning == RS_R_SUMMARY || (s->reasoning == RS_R_PARTIAL && s->chars_summary)) {
		util_fmt_count(shown, sizeof shown, (long long)s->chars_summary);
		sbuf_addf(&o, " + %s of summaries", shown);
	}
	if (s->reasoning == RS_R_PARTIAL)
		sbuf_addf(&o, ", %zu of %zu hidden", s->nhidden, s->nreasoning);
	return sbuf_detach(&o);
}

char *runstats_summary(const struct runstats *s, size_t max)
{
	char *split = runstats_split_text(s), *why = runstats_reasoning_text(s), *out = NULL;
	if (split && strlen(split) + 2 + strlen(why) <= max)
		out = xasprintf("%s  %s", split, why);
	else if (strlen(why) <= max)
		out = xstrdup(why);
	else if (split && strlen(split) <= max)
		out = xstrdup(split);
	free(split);
	free(why);
	return out;
}
