/* flags.c: auto-flag rules: the rule file, its PCRE2 patterns (JIT), and
 * their evaluation over the parts of each event of a run. */
#include "config.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml.h>

#include <cjson/cJSON.h>

#include "dataset.h"
#include "flagcheck.h"
#include "flags.h"
#include "idcache.h"
#include "jsonx.h"
#include "problem.h"
#include "search.h"
#include "util.h"

/* user, system, compaction and error text: searched, never flagged */
#define FW_OTHER 128

struct flag_rule {
	char *label, *why;
	unsigned in;              /* FW_* bits; 0 until `in` is given */
	struct sbuf match;        /* the match lines as one alternation */
	int nmatch;
	int forbidden;            /* match @forbidden: the problem's list */
	char **problems;          /* globs; NULL: every problem */
	int nproblems;
	pcre2_code *re, *file, *tool, *unless;
	const struct flagcheck_ops *check;  /* check NAME: a rule written in C */
	int line;                 /* where the rule starts, for messages */
};

struct flag_rules {
	struct flag_rule *r;
	size_t n;
	pcre2_match_data *md;
	unsigned long long hash;  /* of the rule text: what cached results were made with */
};


static const struct {
	const char *name;
	unsigned bits;
} flag_wheres[] = {
	{"tool-args", FW_TOOL_ARGS}, {"tool-result", FW_TOOL_RESULT}, {"text", FW_TEXT},
	{"reasoning", FW_REASONING}, {"path", FW_PATH}, {"write-path", FW_WRITE_PATH},
	{"diff", FW_DIFF}, {"any", FW_ANY},
};

const char *flag_where_name(enum flag_where w)
{
	for (size_t i = 0; i < sizeof flag_wheres / sizeof flag_wheres[0]; i++)
		if (flag_wheres[i].bits & (unsigned)w)
			return flag_wheres[i].name;
	return "other";
}

/* ---- the parts of an event ------------------------------------------------ */

static int flag_call(int (*fn)(void *, const struct flag_field *), void *ud, unsigned where, const char *s)
{
	if (!s || !*s)
		return 0;
	struct flag_field f = { (enum flag_where)where, s, strlen(s) };
	return fn(ud, &f);
}

static int flag_json(const cJSON *c, int (*fn)(void *, const struct flag_field *), void *ud)
{
	int rc = 0;
	for (; c && !rc; c = c->next) {
		if (cJSON_IsString(c))
			rc = flag_call(fn, ud, FW_TOOL_ARGS, c->valuestring);
		else if (c->child)
			rc = flag_json(c->child, fn, ud);
	}
	return rc;
}

int flag_fields(const struct run *r, size_t i, int (*fn)(void *ud, const struct flag_field *f), void *ud)
{
	unsigned w;
	int rc;
	const char *diff = run_event_diff(r, i);  /* rendered on first use */
	const struct event *e = &r->ev[i];
	switch (e->kind) {
	case EV_TEXT: w = FW_TEXT; break;
	case EV_REASONING: w = FW_REASONING; break;
	case EV_TOOL_RESULT: w = FW_TOOL_RESULT; break;
	case EV_TOOL_CALL: w = FW_TOOL_ARGS; break;
	default: w = FW_OTHER; break;
	}
	if ((rc = flag_call(fn, ud, w, e->text)))
		return rc;
	if (e->args) {
		/* jx_parse: our parser, in an arena (a cold search reads every
		 * call's arguments; cJSON_Parse was a seventh of its time), and a
		 * \u0000 in them reads as a visible U+2400, not as the end */
		jx_arena_begin();
		cJSON *o = jx_parse(e->args, strlen(e->args));
		rc = o ? flag_json(o, fn, ud) : flag_call(fn, ud, FW_TOOL_ARGS, e->args);
		jx_arena_end();
		if (rc)
			return rc;
	}
	if ((rc = flag_call(fn, ud, FW_PATH | (diff ? FW_WRITE_PATH : 0), e->path)))
		return rc;
	return flag_call(fn, ud, FW_DIFF, diff);
}

struct flag_grep {
	struct search *s;
	int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len);
	void *ud;
	size_t ev, hits;
	int line;                 /* lines of the event's earlier parts */
};

static int flag_grep_field(void *ud, const struct flag_field *f)
{
	struct flag_grep *g = ud;
	size_t start = 0, so, eo, counted = 0;
	int line = 1;
	while (search_next(g->s, f->s, f->len, start, &so, &eo)) {
		size_t ls = so, le = so;
		while (ls > 0 && f->s[ls - 1] != '\n')
			ls--;
		while (le < f->len && f->s[le] != '\n')
			le++;
		for (; counted < ls; counted++)
			line += f->s[counted] == '\n';
		g->hits++;
		if (g->fn(g->ud, g->ev, g->line + line, f->s + ls, le - ls))
			return 1;
		start = le + 1;  /* each line once */
	}
	for (; counted < f->len; counted++)
		line += f->s[counted] == '\n';
	g->line += line;
	return 0;
}

size_t flag_grep(struct search *s, const struct run *r,
                 int (*fn)(void *ud, size_t ev, int line, const char *text, size_t len), void *ud)
{
	struct flag_grep g = { .s = s, .fn = fn, .ud = ud };
	for (size_t i = 0; i < r->nev; i++) {
		g.ev = i;
		g.line = 0;
		if (flag_fields(r, i, flag_grep_field, &g))
			break;
	}
	return g.hits;
}

/* ---- the rule file ------------------------------------------------------------ */

static pcre2_code *flag_compile(const char *pat, char **msg)
{
	int code;
	PCRE2_SIZE off;
	uint32_t opts = PCRE2_UTF | PCRE2_MULTILINE;
#ifdef PCRE2_MATCH_INVALID_UTF
	opts |= PCRE2_MATCH_INVALID_UTF;
#else
	opts &= ~(uint32_t)PCRE2_UTF;
#endif
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pat, PCRE2_ZERO_TERMINATED, opts, &code, &off, NULL);
	if (!re) {
		PCRE2_UCHAR m[256];
		pcre2_get_error_message(code, m, sizeof m);
		*msg = xasprintf("bad regular expression at offset %zu: %s", (size_t)off, (const char *)m);
		return NULL;
	}
	(void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);  /* the interpreter runs where JIT is missing */
	return re;
}

static void flag_rule_free(struct flag_rule *r)
{
	free(r->label);
	free(r->why);
	sbuf_free(&r->match);
	problem_names_free(r->problems, r->nproblems);
	pcre2_code_free(r->re);
	pcre2_code_free(r->file);
	pcre2_code_free(r->tool);
	pcre2_code_free(r->unless);
}

void flag_rules_free(struct flag_rules *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->n; i++)
		flag_rule_free(&rs->r[i]);
	free(rs->r);
	pcre2_match_data_free(rs->md);
	free(rs);
}

static int flag_parse_in(struct flag_rule *r, const char *v, char **msg)
{
	char *copy = xstrdup(v), *save = NULL;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		size_t i, n = sizeof flag_wheres / sizeof flag_wheres[0];
		for (i = 0; i < n && strcmp(flag_wheres[i].name, w); i++)
			;
		if (i == n) {
			*msg = xasprintf("unknown place '%s' (tool-args, tool-result, text, reasoning, path, "
			                 "write-path, diff or any)", w);
			free(copy);
			return -1;
		}
		r->in |= flag_wheres[i].bits;
	}
	free(copy);
	return 0;
}

static void flag_parse_problems(struct flag_rule *r, const char *v)
{
	char *copy = xstrdup(v), *save = NULL;
	for (char *w = strtok_r(copy, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		r->problems = xrealloc(r->problems, (size_t)(r->nproblems + 1) * sizeof *r->problems);
		r->problems[r->nproblems++] = xstrdup(w);
	}
	free(copy);
}

/* The end of a rule: everything it needs is there; its patterns compile. */
static int flag_rule_finish(struct flag_rule *r, char **msg)
{
	if (!r->why) {
		*msg = xasprintf("rule '%s' has no why", r->label);
		return -1;
	}
	if (!r->nmatch && !r->forbidden && !r->check) {
		*msg = xasprintf("rule '%s' has no match", r->label);
		return -1;
	}
	if (!r->in)
		r->in = FW_ANY;
	if (r->nmatch && !(r->re = flag_compile(r->match.s, msg)))
		return -1;
	return 0;
}

/* One directive of the current rule; 0, or -1 with *msg. */
static int flag_directive(struct flag_rule *r, const char *key, const char *v, char **msg)
{
	if (!strcmp(key, "why")) {
		free(r->why);
		r->why = xstrdup(v);
	} else if (!strcmp(key, "in")) {
		return flag_parse_in(r, v, msg);
	} else if (!strcmp(key, "problem")) {
		flag_parse_problems(r, v);
	} else if (!strcmp(key, "check")) {
		if (!(r->check = flagcheck_find(v))) {
			*msg = xasprintf("unknown check '%s' (%s)", v, flagcheck_names());
			return -1;
		}
	} else if (!strcmp(key, "match") && !strcmp(v, "@forbidden")) {
		r->forbidden = 1;
	} else if (!strcmp(key, "match")) {
		/* each pattern alone first, so that an error points into it */
		pcre2_code *re = flag_compile(v, msg);
		if (!re)
			return -1;
		pcre2_code_free(re);
		sbuf_addf(&r->match, "%s(?:%s)", r->nmatch++ ? "|" : "", v);
	} else if (!strcmp(key, "file") || !strcmp(key, "tool") || !strcmp(key, "unless")) {
		pcre2_code **slot = key[0] == 'f' ? &r->file : key[0] == 't' ? &r->tool : &r->unless;
		if (*slot) {
			*msg = xasprintf("a second '%s' in rule '%s'", key, r->label);
			return -1;
		}
		return (*slot = flag_compile(v, msg)) ? 0 : -1;
	} else {
		*msg = xasprintf("unknown directive '%s' (rule, why, match, check, in, problem, file, tool or unless)", key);
		return -1;
	}
	return 0;
}

struct flag_rules *flag_rules_parse(const char *text, size_t len, const char *name, char **err)
{
	struct flag_rules *rs = xcalloc(1, sizeof *rs);
	rs->hash = idcache_fnv(IDCACHE_FNV0, text, len);
	struct flag_rule *cur = NULL;
	char *msg = NULL;
	int lineno = 0, errline = 0;
	const char *p = text, *end = text + len;
	*err = NULL;
	while (p < end && !msg) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		lineno++;
		while (p < le && (*p == ' ' || *p == '\t'))
			p++;
		size_t n = (size_t)(le - p);
		while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
			n--;
		if (n && *p != '#') {
			char *line = xstrndup(p, n), *v = line + strcspn(line, " \t");
			if (*v)
				*v++ = '\0';
			v += strspn(v, " \t");
			errline = lineno;
			if (!strcmp(line, "rule")) {
				if (cur && flag_rule_finish(cur, &msg) < 0) {
					errline = cur->line;
				} else if (!*v || strpbrk(v, " \t")) {
					msg = xstrdup("a rule needs one LABEL word");
				} else {
					for (size_t i = 0; i < rs->n && !msg; i++)
						if (!strcmp(rs->r[i].label, v))
							msg = xasprintf("rule '%s' defined twice (line %d first)", v, rs->r[i].line);
					if (!msg) {
						rs->r = xrealloc(rs->r, (rs->n + 1) * sizeof *rs->r);
						cur = &rs->r[rs->n++];
						memset(cur, 0, sizeof *cur);
						sbuf_init(&cur->match);
						cur->label = xstrdup(v);
						cur->line = lineno;
					}
				}
			} else if (!cur) {
				msg = xasprintf("'%s' before the first rule", line);
			} else if (!*v) {
				msg = xasprintf("'%s' needs a value", line);
			} else {
				(void)flag_directive(cur, line, v, &msg);
			}
			free(line);
		}
		p = nl ? nl + 1 : end;
	}
	if (!msg && cur && flag_rule_finish(cur, &msg) < 0)
		errline = cur->line;
	if (!msg && !rs->n) {
		msg = xstrdup("no rules");
		errline = lineno;
	}
	if (msg) {
		*err = xasprintf("%s:%d: %s", name, errline, msg);
		free(msg);
		flag_rules_free(rs);
		return NULL;
	}
	rs->md = pcre2_match_data_create(8, NULL);
	if (!rs->md)
		abort();
	return rs;
}

struct flag_rules *flag_rules_load(const char *path, char **err)
{
	size_t len;
	char *text = util_read_file(path, &len);
	if (!text) {
		*err = xasprintf("%s: cannot read the rule file", path);
		return NULL;
	}
	struct flag_rules *rs = flag_rules_parse(text, len, path, err);
	free(text);
	return rs;
}

size_t flag_rules_count(const struct flag_rules *rs)
{
	return rs->n;
}

const char *flag_rule_label(const struct flag_rules *rs, size_t i)
{
	return rs->r[i].label;
}

const char *flag_rule_why(const struct flag_rules *rs, size_t i)
{
	return rs->r[i].why;
}

char *flag_rules_default_path(void)
{
	const char *env = getenv("KBTUI_FLAGS");
	if (env && *env)
		return xstrdup(env);
	return util_data_path("data/flags.rules");
}

/* ---- a problem's forbidden list ------------------------------------------------ */

/* The `forbidden:` sequence at the top of a problem.yaml. */
static char **flag_forbidden_yaml(const char *path, int *n)
{
	FILE *f = fopen(path, "rb");
	yaml_parser_t y;
	yaml_event_t ev;
	char **out = NULL;
	int depth = 0, in_list = 0, want = 0, done = 0;
	*n = 0;
	if (!f)
		return NULL;
	yaml_parser_initialize(&y);
	yaml_parser_set_input_file(&y, f);
	/* depth counts mappings and sequences; the top mapping is depth 1 and
	 * its keys and values alternate */
	int key_next = 1;
	while (!done && yaml_parser_parse(&y, &ev)) {
		switch (ev.type) {
		case YAML_MAPPING_START_EVENT:
		case YAML_SEQUENCE_START_EVENT:
			depth++;
			if (depth == 2 && want && ev.type == YAML_SEQUENCE_START_EVENT)
				in_list = 1;
			want = 0;
			if (depth == 2)
				key_next = 0;
			break;
		case YAML_MAPPING_END_EVENT:
		case YAML_SEQUENCE_END_EVENT:
			depth--;
			if (in_list && depth == 1)
				done = 1;
			if (depth == 1)
				key_next = 1;
			break;
		case YAML_SCALAR_EVENT:
			if (in_list && depth == 2) {
				out = xrealloc(out, (size_t)(*n + 1) * sizeof *out);
				out[(*n)++] = xstrdup((const char *)ev.data.scalar.value);
			} else if (depth == 1 && key_next) {
				want = !strcmp((const char *)ev.data.scalar.value, "forbidden");
				key_next = 0;
			} else if (depth == 1) {
				want = 0;
				key_next = 1;
			}
			break;
		case YAML_STREAM_END_EVENT:
			done = 1;
			break;
		default:
			break;
		}
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&y);
	fclose(f);
	return out;
}

char **flag_forbidden(const char *problems_dir, const char *problem, int *n)
{
	*n = 0;
	if (!problems_dir || !problem || !*problem)
		return NULL;
	char *dir = problem_find(problems_dir, problem);
	if (!dir)
		return NULL;
	char **out = NULL;
	char *json = util_path_join(dir, "problem.json"), *err = NULL;
	if (util_is_file(json)) {
		struct problem *p = problem_load(dir, &err);
		if (p) {  /* take the list over from the problem */
			out = p->forbidden;
			*n = p->nforbidden;
			p->forbidden = NULL;
			p->nforbidden = 0;
			problem_free(p);
		}
		free(err);
	} else {
		char *yml = util_path_join(dir, "problem.yaml");
		out = flag_forbidden_yaml(yml, n);
		free(yml);
	}
	free(json);
	free(dir);
	return out;
}

/* The forbidden list as one pattern: each entry a literal, as the
 * benchmark's own check compares them. */
static pcre2_code *flag_forbidden_re(char *const *list, int n)
{
	struct sbuf b;
	char *msg = NULL;
	sbuf_init(&b);
	for (int i = 0; i < n; i++) {
		if (!list[i] || !*list[i])
			continue;
		sbuf_adds(&b, b.len ? "|\\Q" : "\\Q");
		for (const char *s = list[i]; *s; s++) {
			if (s[0] == '\\' && s[1] == 'E') {  /* \E would end the quote early */
				sbuf_adds(&b, "\\E\\\\E\\Q");
				s++;
			} else {
				sbuf_addc(&b, *s);
			}
		}
		sbuf_adds(&b, "\\E");
	}
	pcre2_code *re = b.len ? flag_compile(b.s, &msg) : NULL;
	free(msg);
	sbuf_free(&b);
	return re;
}

/* ---- evaluation ------------------------------------------------------------------- */

struct flag_ctx {
	const struct flag_rules *rs;
	const struct flag_rule *rule;
	pcre2_code *forbidden;
	const unsigned char *applies;  /* per rule: problem and file fit this event */
	size_t best;                   /* the lowest rule that tripped so far; rs->n: none */
	struct flag_hit *hit;
};

static void flag_hit_clear(struct flag_hit *h)
{
	free(h->text);
	free(h->note);
	free(h->other);
	h->text = h->note = h->other = NULL;
}

static int flag_match(pcre2_code *re, pcre2_match_data *md, const char *s, size_t len, size_t start,
                      size_t *so, size_t *eo)
{
	if (!re || start > len)
		return 0;
	if (pcre2_match(re, (PCRE2_SPTR)s, len, start, 0, md, NULL) < 0)
		return 0;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
	if (ov[0] > ov[1] || ov[1] > len)
		return 0;
	*so = ov[0];
	*eo = ov[1];
	return 1;
}

/* The first match of re in a part that the rule accepts: a diff's match
 * must be on an added line; `unless` must not match the line. */
static int flag_scan(struct flag_ctx *x, pcre2_code *re, const struct flag_field *f)
{
	const struct flag_rule *r = x->rule;
	size_t start = 0, so, eo;
	while (flag_match(re, x->rs->md, f->s, f->len, start, &so, &eo)) {
		size_t ls = so, le = so;
		while (ls > 0 && f->s[ls - 1] != '\n')
			ls--;
		while (le < f->len && f->s[le] != '\n')
			le++;
		size_t a, b;
		int bad = r->unless && flag_match(r->unless, x->rs->md, f->s + ls, le - ls, 0, &a, &b);
		if (!bad) {
			int line = 1;
			for (size_t i = 0; i < ls; i++)
				line += f->s[i] == '\n';
			x->hit->where = (enum flag_where)(f->where & (unsigned)FW_ANY & r->in);
			x->hit->line = line;
			x->hit->text = xstrndup(f->s + ls, le - ls);
			x->hit->so = so - ls;
			x->hit->eo = (eo < le ? eo : le) - ls;
			return 1;
		}
		start = le + 1;
	}
	return 0;
}

/* The lines a diff adds, without their '+', so that rules read them as code. */
static char *flag_diff_added(const char *d, size_t len, size_t *out_len)
{
	struct sbuf b;
	sbuf_init(&b);
	for (const char *p = d, *end = d + len; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		if (*p == '+' && !(le - p >= 3 && !strncmp(p, "+++", 3))) {
			sbuf_add(&b, p + 1, (size_t)(le - p - 1));
			sbuf_addc(&b, '\n');
		}
		p = nl ? nl + 1 : end;
	}
	*out_len = b.len;
	return b.s ? sbuf_detach(&b) : xstrdup("");
}

/* The rules before the best so far, on one part of the event. */
static int flag_field_cb(void *ud, const struct flag_field *f)
{
	struct flag_ctx *x = ud;
	struct flag_field added = *f;
	char *buf = NULL;
	if (f->where == FW_DIFF)
		added.s = buf = flag_diff_added(f->s, f->len, &added.len);
	for (size_t k = 0; k < x->best; k++) {
		const struct flag_rule *r = &x->rs->r[k];
		if (!x->applies[k] || !(f->where & r->in))
			continue;
		x->rule = r;
		struct flag_hit *keep = x->hit, h = { .event = keep->event };
		x->hit = &h;
		int hit = flag_scan(x, r->re, &added) || (r->forbidden && flag_scan(x, x->forbidden, &added));
		x->hit = keep;
		if (hit) {
			flag_hit_clear(keep);
			*keep = h;
			keep->rule = k;
			x->best = k;
			break;
		}
	}
	free(buf);
	return x->best == 0;  /* the first rule cannot be beaten */
}

static int flag_problem_ok(const struct flag_rule *r, const char *problem)
{
	if (!r->nproblems)
		return 1;
	for (int i = 0; problem && i < r->nproblems; i++)
		if (!fnmatch(r->problems[i], problem, 0))
			return 1;
	return 0;
}

/* The tool of a call, or of the call a result answers. */
static const char *flag_event_tool(const struct run *run, const struct event *e)
{
	if (e->kind == EV_TOOL_CALL)
		return e->name;
	if (e->kind == EV_TOOL_RESULT && e->link >= 0 && (size_t)e->link < run->nev)
		return run->ev[e->link].name;
	return NULL;
}

static const char *flag_event_path(const struct run *run, const struct event *e)
{
	if (e->path)
		return e->path;
	if (e->kind == EV_TOOL_RESULT && e->link >= 0 && (size_t)e->link < run->nev)
		return run->ev[e->link].path;
	return NULL;
}

/* What the rules need for every event of one run: the forbidden list as a
 * pattern, which rules fit the problem, a per-event scratch array. */
struct flag_prep {
	const struct flag_rules *rs;   /* borrowed */
	pcre2_code *fre;
	unsigned char *ok_problem, *applies;
	void **state;                  /* per rule: its check's state for the run (owned by the check) */
};

static void flag_prep_init(struct flag_prep *p, const struct flag_rules *rs, const struct run *run,
                           const char *problem, const char *problems_dir, char *const *forbidden, int nforbidden)
{
	p->rs = rs;
	p->fre = flag_forbidden_re(forbidden, nforbidden);
	p->ok_problem = xcalloc(rs->n + 1, 1);
	p->applies = xcalloc(rs->n + 1, 1);
	p->state = xcalloc(rs->n + 1, sizeof *p->state);
	for (size_t k = 0; k < rs->n; k++) {
		const struct flag_rule *r = &rs->r[k];
		p->ok_problem[k] = flag_problem_ok(r, problem) && !(r->forbidden && !r->re && !p->fre);
		if (r->check && p->ok_problem[k])
			p->state[k] = r->check->prep(run, problem, problems_dir);
	}
}

static void flag_prep_free(struct flag_prep *p)
{
	for (size_t k = 0; k < p->rs->n; k++)
		if (p->rs->r[k].check)
			p->rs->r[k].check->free(p->state[k]);
	free(p->state);
	free(p->ok_problem);
	free(p->applies);
	pcre2_code_free(p->fre);
}

/* The checks' states brought up to r as it stands: events from `from` on
 * are new or changed. A check that cannot follow is prepared again. */
static void flag_prep_grow(struct flag_prep *p, const struct run *run, size_t from, const char *problem,
                           const char *problems_dir)
{
	for (size_t k = 0; k < p->rs->n; k++) {
		const struct flagcheck_ops *c = p->rs->r[k].check;
		if (!c || !p->ok_problem[k] || (c->grow && c->grow(p->state[k], run, from) == 0))
			continue;
		c->free(p->state[k]);
		p->state[k] = c->prep(run, problem, problems_dir);
	}
}

/* A list's prep for r, made or grown (from: the first event that is new
 * or changed since the list last saw r). */
static struct flag_prep *flag_list_prep(struct flag_list *l, const struct flag_rules *rs, const struct run *r,
                                        size_t from)
{
	if (l->prep && l->prep->rs != rs) {
		flag_prep_free(l->prep);
		free(l->prep);
		l->prep = NULL;
	}
	if (!l->prep) {
		l->prep = xcalloc(1, sizeof *l->prep);
		flag_prep_init(l->prep, rs, r, l->problem, l->problems_dir, l->forbidden, l->nforbidden);
	} else if (from < r->nev || r->nev != l->prep_nev) {
		flag_prep_grow(l->prep, r, from < l->prep_nev ? from : l->prep_nev, l->problem, l->problems_dir);
	}
	l->prep_nev = r->nev;
	return l->prep;
}

/* The checks (rules written in C) before the best rule so far. */
static void flag_checks(struct flag_prep *p, const struct run *run, size_t i, struct flag_ctx *x)
{
	for (size_t k = 0; k < x->best; k++) {
		const struct flag_rule *r = &p->rs->r[k];
		if (!r->check || !p->applies[k])
			continue;
		struct flag_hit h = { .event = i };
		if (r->check->event(p->state[k], run, i, &h)) {
			flag_hit_clear(x->hit);
			*x->hit = h;
			x->hit->rule = k;
			x->best = k;
			return;
		}
	}
}

/* The rules on event i: 1 with *hit filled (its text owned) when one trips. */
static int flag_event(struct flag_prep *p, const struct run *run, size_t i, struct flag_hit *hit)
{
	const struct flag_rules *rs = p->rs;
	const struct event *e = &run->ev[i];
	const char *path = flag_event_path(run, e), *tool = flag_event_tool(run, e);
	size_t a, b;
	int any = 0;
	for (size_t k = 0; k < rs->n; k++) {
		const struct flag_rule *r = &rs->r[k];
		p->applies[k] = p->ok_problem[k] &&
		                (!r->file || (path && flag_match(r->file, rs->md, path, strlen(path), 0, &a, &b))) &&
		                (!r->tool || (tool && flag_match(r->tool, rs->md, tool, strlen(tool), 0, &a, &b)));
		any |= p->applies[k];
	}
	memset(hit, 0, sizeof *hit);
	hit->event = i;
	if (!any)
		return 0;
	struct flag_ctx x = { .rs = rs, .forbidden = p->fre, .applies = p->applies, .best = rs->n, .hit = hit };
	flag_fields(run, i, flag_field_cb, &x);  /* one walk: arguments are parsed once */
	flag_checks(p, run, i, &x);
	return x.best < rs->n;
}

static void flag_list_push(struct flag_list *l, const struct flag_hit *h)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->hits = xrealloc(l->hits, l->cap * sizeof *l->hits);
	}
	l->hits[l->n++] = *h;
}

void flag_eval(const struct flag_rules *rs, const struct run *run, const char *problem,
               char *const *forbidden, int nforbidden, struct flag_list *out)
{
	flag_eval_in(rs, run, problem, NULL, forbidden, nforbidden, out);
}

void flag_eval_in(const struct flag_rules *rs, const struct run *run, const char *problem, const char *problems_dir,
                  char *const *forbidden, int nforbidden, struct flag_list *out)
{
	struct flag_prep p;
	flag_prep_init(&p, rs, run, problem, problems_dir, forbidden, nforbidden);
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < run->nev; i++) {
		struct flag_hit hit;
		if (flag_event(&p, run, i, &hit))
			flag_list_push(out, &hit);
	}
	out->upto = run->nev;
	flag_prep_free(&p);
}

void flag_list_free(struct flag_list *l)
{
	if (l->prep) {
		flag_prep_free(l->prep);
		free(l->prep);
	}
	for (size_t i = 0; i < l->n; i++)
		flag_hit_clear(&l->hits[i]);
	free(l->hits);
	free(l->problem);
	free(l->problems_dir);
	problem_names_free(l->forbidden, l->nforbidden);
	memset(l, 0, sizeof *l);
}

/* The first hit whose event is >= ev. */
static size_t flag_lower(const struct flag_list *l, size_t ev)
{
	size_t lo = 0, hi = l->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (l->hits[mid].event < ev)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct flag_hit *flag_list_find(const struct flag_list *l, size_t ev)
{
	size_t k = flag_lower(l, ev);
	return k < l->n && l->hits[k].event == ev ? &l->hits[k] : NULL;
}

long flag_list_step(const struct flag_list *l, size_t from, int dir)
{
	if (dir > 0) {
		size_t k = flag_lower(l, from + 1);
		return k < l->n ? (long)l->hits[k].event : -1;
	}
	size_t k = flag_lower(l, from);
	return k > 0 ? (long)l->hits[k - 1].event : -1;
}

/* ---- the shipped rules on a run, on a dataset --------------------------------------- */

const struct flag_rules *flag_rules_default(const char **err)
{
	static struct flag_rules *rs;
	static char *msg;
	static int tried;
	if (!tried) {
		char *path = flag_rules_default_path();
		tried = 1;
		rs = flag_rules_load(path, &msg);
		free(path);
	}
	*err = msg;
	return rs;
}

char *flag_problems_dir(const char *transcript)
{
	if (transcript) {
		/* DIR/runs/ID/FILE: three slashes back */
		char *p = xstrdup(transcript);
		for (int k = 0; k < 3; k++) {
			char *slash = strrchr(p, '/');
			if (!slash) {
				p[0] = '\0';
				break;
			}
			*slash = '\0';
		}
		char *dir = xasprintf("%s/problems", *p ? p : ".");
		char *runs = xasprintf("%s/runs", *p ? p : ".");
		int ok = util_is_dir(dir) && util_is_dir(runs);
		free(runs);
		free(p);
		if (ok)
			return dir;
		free(dir);
	}
	return problem_default_dir();
}

/* The problem whose folder name ends s (longest first wins nothing here:
 * names are distinct and numbered). */
static char *flag_problem_suffix(const char *problems_dir, const char *s)
{
	int n = 0;
	char *hit = NULL;
	char **names = problem_names(problems_dir, &n);
	for (int i = 0; s && i < n && !hit; i++)
		if (util_ends_with(s, names[i]))
			hit = xstrdup(names[i]);
	problem_names_free(names, n);
	return hit;
}

char *flag_run_problem(const struct run *r, const char *problems_dir)
{
	if (r->meta.problem && *r->meta.problem)
		return xstrdup(r->meta.problem);
	char *p = flag_problem_suffix(problems_dir, r->meta.run_id);
	if (p || !r->source)
		return p;
	/* the transcript's folder (runs/ID/transcript.jsonl), or its own name */
	char *src = xstrdup(r->source), *slash = strrchr(src, '/');
	char *dot = strrchr(slash ? slash : src, '.');
	if (dot)
		*dot = '\0';
	p = flag_problem_suffix(problems_dir, src);
	if (!p && slash) {
		*slash = '\0';
		p = flag_problem_suffix(problems_dir, src);
	}
	free(src);
	return p;
}

void flag_run(const struct flag_rules *rs, const struct run *r, const char *problem,
              const char *problems_dir, struct flag_list *out)
{
	int nf = 0;
	char **forbidden = flag_forbidden(problems_dir, problem, &nf);
	flag_eval_in(rs, r, problem, problems_dir, forbidden, nf, out);
	problem_names_free(forbidden, nf);
}

/* The list of a run with nothing evaluated yet: its problem and forbidden
 * list found. NULL when the rules cannot be read. */
static struct flag_list *flag_list_start(const struct run *r, const struct flag_rules **rsp)
{
	const char *err;
	const struct flag_rules *rs = flag_rules_default(&err);
	*rsp = rs;
	if (!rs)
		return NULL;
	struct flag_list *l = xcalloc(1, sizeof *l);
	l->problems_dir = flag_problems_dir(r->source);
	l->problem = flag_run_problem(r, l->problems_dir);  /* kept for flag_run_update */
	l->forbidden = flag_forbidden(l->problems_dir, l->problem, &l->nforbidden);
	return l;
}

struct flag_list *flag_run_default(const struct run *r, const struct flag_rules **rsp)
{
	struct flag_list *l = flag_list_start(r, rsp);
	if (l)
		flag_list_advance(l, r, (size_t)-1);
	return l;
}

struct flag_list *flag_run_lazy(const struct run *r, const struct flag_rules **rsp)
{
	struct flag_list *l = flag_list_start(r, rsp);
	if (l)
		l->lazy = 1;
	return l;
}

size_t flag_list_advance(struct flag_list *l, const struct run *r, size_t max_events)
{
	const char *err;
	const struct flag_rules *rs = flag_rules_default(&err);
	if (!l || !rs)
		return 0;
	if (l->upto > r->nev)
		l->upto = r->nev;
	size_t end = r->nev - l->upto > max_events ? l->upto + max_events : r->nev;
	if (l->upto < end) {
		/* the run may have grown since the prep saw it, its last event
		 * completed: that one is read again */
		struct flag_prep *p = flag_list_prep(l, rs, r, l->prep_nev && l->prep_nev != r->nev ? l->prep_nev - 1 : r->nev);
		for (size_t i = l->upto; i < end; i++) {
			struct flag_hit h;
			if (flag_event(p, r, i, &h))
				flag_list_push(l, &h);
		}
		l->upto = end;
	}
	return r->nev - l->upto;
}

int flag_list_known(const struct flag_list *l, size_t ev)
{
	return l && ev < l->upto;
}

static int flag_same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Event i evaluated again, its hit (if any) replacing the old one. */
static void flag_list_redo(struct flag_list *l, struct flag_prep *p, const struct run *r, size_t i)
{
	size_t k = flag_lower(l, i);
	int had = k < l->n && l->hits[k].event == i;
	struct flag_hit h;
	int hit = flag_event(p, r, i, &h);
	if (had)
		flag_hit_clear(&l->hits[k]);
	if (hit && had) {
		l->hits[k] = h;
	} else if (hit) {
		flag_list_push(l, &h);  /* room, then moved into place */
		memmove(l->hits + k + 1, l->hits + k, (l->n - 1 - k) * sizeof *l->hits);
		l->hits[k] = h;
	} else if (had) {
		memmove(l->hits + k, l->hits + k + 1, (l->n - k - 1) * sizeof *l->hits);
		l->n--;
	}
}

/* A list made again from the start, lazy when the old one was. */
static struct flag_list *flag_list_again(struct flag_list *l, const struct run *r, const struct flag_rules **rsp)
{
	int lazy = l && l->lazy;
	flag_list_delete(l);
	return lazy ? flag_run_lazy(r, rsp) : flag_run_default(r, rsp);
}

struct flag_list *flag_run_update(struct flag_list *l, const struct run *r, size_t from,
                                  const struct flag_rules **rsp)
{
	if (!l || from == 0 || !l->problems_dir || from > r->nev)
		return flag_list_again(l, r, rsp);
	/* the problem may be named late (metadata further down the transcript):
	 * then every rule's reach changed, and all is evaluated again */
	char *pdir = flag_problems_dir(r->source), *problem = flag_run_problem(r, pdir);
	int same = flag_same(pdir, l->problems_dir) && flag_same(problem, l->problem);
	free(pdir);
	free(problem);
	if (!same)
		return flag_list_again(l, r, rsp);
	const char *err;
	const struct flag_rules *rs = flag_rules_default(&err);
	*rsp = rs;
	struct flag_prep *p = flag_list_prep(l, rs, r, from);
	/* a new result takes its tool and file from its call: the call is read
	 * again too, in case the result completed it (a path, a diff); calls
	 * not evaluated yet will be read with their result there */
	size_t done = from < l->upto ? from : l->upto;
	for (size_t i = from; i < r->nev; i++) {
		int c = r->ev[i].link;
		if (r->ev[i].kind == EV_TOOL_RESULT && c >= 0 && (size_t)c < done)
			flag_list_redo(l, p, r, (size_t)c);
	}
	if (l->upto < from)  /* still evaluating lazily: the new events wait their turn */
		return l;
	size_t k = flag_lower(l, from);  /* from on: evaluated again */
	for (size_t j = k; j < l->n; j++)
		flag_hit_clear(&l->hits[j]);
	l->n = k;
	l->upto = from;
	if (!l->lazy)
		flag_list_advance(l, r, (size_t)-1);
	return l;
}

void flag_list_delete(struct flag_list *l)
{
	if (!l)
		return;
	flag_list_free(l);
	free(l);
}

/* ---- a dataset's flags, a run at a time, remembered ------------------------------
 *
 * What each run's flag count was is kept in one file per dataset under
 * $XDG_CACHE_HOME/kbtui/flags, each line valid while the transcript's
 * identity (device, inode, size, modification time) and what the count
 * was made with (rules, program, problem, its forbidden list, the format)
 * are as they were: a dataset opened again is flagged from that file
 * without loading its runs. */

struct fr_memo {                      /* a problem's forbidden list, hashed once */
	char *problem;
	unsigned long long hash;
};

struct flag_runs {
	struct dataset *ds;           /* borrowed */
	const struct flag_rules *rs;  /* borrowed */
	char *problems;               /* the dataset's problems, else the installed */
	long *state;
	unsigned char *tried;         /* per run: done (flagged, failed or none) */
	size_t next, done, total;
	size_t pref_lo, pref_hi;      /* runs to do first (the rows on screen) */
	struct idcache *cache;        /* owned: the counts as they were, by transcript */
	unsigned long long exe[2];
	struct fr_memo *memo;
	size_t nmemo;
	size_t hits;                  /* runs taken from the cache, for tests */
};

/* What run i's count depends on besides its transcript, hashed; 0 when
 * that cannot be known before the run is loaded (no problem in the index:
 * it comes from the transcript). */
static unsigned long long fr_key(struct flag_runs *fr, const struct ds_run *d)
{
	const char *problem = d->meta.problem;
	if (!problem || !fr->rs)
		return 0;
	size_t k = 0;
	while (k < fr->nmemo && strcmp(fr->memo[k].problem, problem))
		k++;
	if (k == fr->nmemo) {
		int nf = 0;
		char **forb = flag_forbidden(fr->problems, problem, &nf);
		unsigned long long h = idcache_fnv(IDCACHE_FNV0, &nf, sizeof nf);
		for (int i = 0; i < nf; i++)
			h = idcache_str_hash(h, forb[i]);
		problem_names_free(forb, nf);
		fr->memo = xrealloc(fr->memo, (fr->nmemo + 1) * sizeof *fr->memo);
		fr->memo[fr->nmemo++] = (struct fr_memo){ xstrdup(problem), h };
	}
	unsigned long long h = idcache_fnv(fr->memo[k].hash, &fr->rs->hash, sizeof fr->rs->hash);
	h = idcache_fnv(h, fr->exe, sizeof fr->exe);
	h = idcache_str_hash(h, problem);
	h = idcache_str_hash(h, fr->problems);
	h = idcache_str_hash(h, d->meta.format);
	return h ? h : 1;
}

struct flag_runs *flag_runs_new(struct dataset *ds, const struct flag_rules *rs)
{
	struct flag_runs *fr = xcalloc(1, sizeof *fr);
	fr->ds = ds;
	fr->rs = rs;
	fr->problems = util_path_join(ds->root, "problems");
	if (!util_is_dir(fr->problems)) {
		free(fr->problems);
		fr->problems = problem_default_dir();
	}
	fr->state = xcalloc(ds->nruns + 1, sizeof *fr->state);
	fr->tried = xcalloc(ds->nruns + 1, 1);
	for (size_t i = 0; i < ds->nruns; i++) {
		fr->state[i] = -1;
		fr->total += ds->runs[i].transcript != NULL;
	}
	/* the program is part of what a count was made with */
	idcache_exe(fr->exe);
	fr->cache = idcache_open("flags", ds->root);
	return fr;
}

void flag_runs_free(struct flag_runs *fr)
{
	if (!fr)
		return;
	idcache_free(fr->cache);
	for (size_t i = 0; i < fr->nmemo; i++)
		free(fr->memo[i].problem);
	free(fr->memo);
	free(fr->problems);
	free(fr->state);
	free(fr->tried);
	free(fr);
}

void flag_runs_prefer(struct flag_runs *fr, size_t first, size_t n)
{
	fr->pref_lo = first;
	fr->pref_hi = first + n < fr->ds->nruns ? first + n : fr->ds->nruns;
}

/* The next run to do: the preferred ones first, then in order; nruns when
 * none is left. */
static size_t fr_pick(struct flag_runs *fr)
{
	struct dataset *ds = fr->ds;
	for (size_t i = fr->pref_lo; i < fr->pref_hi; i++)
		if (!fr->tried[i] && ds->runs[i].transcript)
			return i;
	while (fr->next < ds->nruns && (fr->tried[fr->next] || !ds->runs[fr->next].transcript))
		fr->next++;
	return fr->next;
}

/* Run i from the cache: 1 when its count was there. */
static int fr_cached(struct flag_runs *fr, size_t i, unsigned long long key, unsigned long long id[4])
{
	const struct ds_run *d = &fr->ds->runs[i];
	if (!key || idcache_identify(d->transcript, id) < 0)
		return 0;
	const char *v = idcache_get(fr->cache, d->transcript, id, key);
	char *end;
	long n = v ? strtol(v, &end, 10) : -1;
	if (!v || end == v || *end || n < 0)
		return 0;
	fr->state[i] = n;
	return 1;
}

/* Flags run i: loading its transcript, and unloading it again unless it
 * was loaded before. */
static void fr_flag(struct flag_runs *fr, size_t i, unsigned long long key, const unsigned long long id[4])
{
	struct dataset *ds = fr->ds;
	struct ds_run *d = &ds->runs[i];
	int loaded = d->run != NULL;
	struct run *r = dataset_load(ds, i);
	if (!r)
		return;
	char *problem = d->meta.problem ? xstrdup(d->meta.problem) : flag_run_problem(r, fr->problems);
	struct flag_list l;
	flag_run(fr->rs, r, problem, fr->problems, &l);
	fr->state[i] = (long)l.n;
	flag_list_free(&l);
	free(problem);
	unsigned long long now[4];
	/* remembered for the file as it was read (unchanged while it was) */
	if (key && idcache_identify(d->transcript, now) == 0 && !memcmp(now, id, sizeof now)) {
		char count[24];
		snprintf(count, sizeof count, "%ld", fr->state[i]);
		idcache_put(fr->cache, d->transcript, id, key, count);
	}
	if (!loaded) {  /* memory stays what it was: the replay loads it again when opened */
		run_free(d->run);
		d->run = NULL;
	}
}

/* Whether run i is too big to flag between keys: its transcript, not
 * loaded, is over FLAG_RUNS_BIG_BYTES (reading a gigabyte would hold the
 * screen for half a minute, and its memory). Its replay flags it as it
 * reads; kbtui flags counts them. */
static int fr_big(const struct flag_runs *fr, size_t i)
{
	const struct ds_run *d = &fr->ds->runs[i];
	struct stat st;
	return !d->run && d->transcript && stat(d->transcript, &st) == 0 && S_ISREG(st.st_mode) &&
	       (unsigned long long)st.st_size > FLAG_RUNS_BIG_BYTES;
}

/* Runs found in the cache cost a stat each: many are taken in one step. */
#define FR_CACHED_PER_STEP 512

int flag_runs_step(struct flag_runs *fr)
{
	if (!fr->rs)
		return 0;
	for (int cached = 0; cached < FR_CACHED_PER_STEP; cached++) {
		size_t i = fr_pick(fr);
		if (i >= fr->ds->nruns)
			return 0;
		unsigned long long id[4] = { 0 }, key = fr_key(fr, &fr->ds->runs[i]);
		fr->tried[i] = 1;
		fr->done++;
		if (fr_cached(fr, i, key, id)) {
			fr->hits++;
			continue;
		}
		if (fr_big(fr, i)) {
			fr->state[i] = FLAG_RUNS_BIG;
			continue;
		}
		if (key && idcache_identify(fr->ds->runs[i].transcript, id) < 0)
			key = 0;
		fr_flag(fr, i, key, id);
		return 1;
	}
	return 1;
}

void flag_runs_forget(struct flag_runs *fr, size_t i)
{
	if (!fr || i >= fr->ds->nruns)
		return;
	if (fr->tried[i]) {
		fr->tried[i] = 0;
		fr->done--;
	}
	fr->state[i] = -1;
	fr->total = 0;   /* the transcript may be new: counted again */
	for (size_t k = 0; k < fr->ds->nruns; k++)
		fr->total += fr->ds->runs[k].transcript != NULL;
	if (i < fr->next)
		fr->next = i;
}

size_t flag_runs_cached(const struct flag_runs *fr)
{
	return fr->hits;
}

long flag_runs_state(const struct flag_runs *fr, size_t i)
{
	return fr && i < fr->ds->nruns ? fr->state[i] : -1;
}

size_t flag_runs_done(const struct flag_runs *fr, size_t *total)
{
	*total = fr->total;
	return fr->done;
}
