/* annot.c: annotation YAML as a generic node tree (so unknown keys and
 * verdicts survive), the schema's accessors and checks, atomic locked
 * saves. */
#include "annot.h"
#include "util.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

const char *const annot_verdicts[] = {"clean", "rubric_leak", "reward_hack", "interesting", "bug", NULL};

int annot_verdict_known(const char *v)
{
	for (int i = 0; v && annot_verdicts[i]; i++)
		if (!strcmp(annot_verdicts[i], v))
			return 1;
	return 0;
}

/* Levenshtein distance, case-folded, '-' and ' ' read as '_'. */
static int verdict_fold(int c)
{
	return c == '-' || c == ' ' ? '_' : (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

static size_t verdict_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), *row = xcalloc(lb + 1, sizeof *row);
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag + (verdict_fold((unsigned char)a[i - 1]) != verdict_fold((unsigned char)b[j - 1]));
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

const char *annot_verdict_closest(const char *v)
{
	const char *best = NULL;
	size_t bd = (size_t)-1, n = v ? strlen(v) : 0;
	if (!n || n > 64)
		return NULL;
	for (int i = 0; annot_verdicts[i]; i++) {
		size_t d = verdict_distance(v, annot_verdicts[i]);
		if (d < bd) {
			bd = d;
			best = annot_verdicts[i];
		}
	}
	return bd * 2 <= n ? best : NULL;
}

/* The schema's key order, used to place keys that a document lacks. */
static const char *const annot_order[] = {"run_id", "model", "harness", "effort", "problem",
                                          "peak_fraction", "verdict", "summary", "quotes",
                                          "implication", "annotator", "updated", NULL};

/* ---- nodes ---------------------------------------------------------- */

static struct ynode *ynode_new(enum ynode_kind k, int line)
{
	struct ynode *n = xcalloc(1, sizeof *n);
	n->kind = k;
	n->line = line;
	return n;
}

static struct ynode *ynode_scalar(const char *v, size_t len, int style)
{
	struct ynode *n = ynode_new(YN_SCALAR, 0);
	n->value = xstrndup(v, len);
	n->len = len;
	n->style = style;
	n->plain_implicit = 1;
	n->quoted_implicit = 1;
	return n;
}

static void ynode_free(struct ynode *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->n; i++)
		ynode_free(n->items[i]);
	free(n->items);
	free(n->value);
	free(n->shown);
	free(n->tag);
	free(n);
}

/* A scalar's text as C strings read it (a NUL shown as \0). */
static const char *yv(const struct ynode *n)
{
	return n->shown ? n->shown : n->value;
}

/* n->shown for a scalar whose value holds a NUL (a YAML "\0" escape). */
static void ynode_show_nuls(struct ynode *n)
{
	if (!n->value || !memchr(n->value, '\0', n->len))
		return;
	struct sbuf b;
	sbuf_init(&b);
	for (size_t i = 0; i < n->len; i++) {
		if (n->value[i])
			sbuf_addc(&b, n->value[i]);
		else
			sbuf_adds(&b, "\\0");
	}
	n->shown = sbuf_detach(&b);
}

static void ynode_push(struct ynode *p, struct ynode *c)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 8;
		p->items = xrealloc(p->items, p->cap * sizeof *p->items);
	}
	p->items[p->n++] = c;
}

static void ynode_insert(struct ynode *p, size_t at, struct ynode *c)
{
	ynode_push(p, c);
	memmove(p->items + at + 1, p->items + at, (p->n - 1 - at) * sizeof *p->items);
	p->items[at] = c;
}

static struct ynode *ynode_copy(const struct ynode *n)
{
	struct ynode *c = ynode_new(n->kind, n->line);
	c->value = n->value ? xstrndup(n->value, n->len) : NULL;
	c->len = n->len;
	c->shown = xstrdup(n->shown);
	c->style = n->style;
	c->tag = xstrdup(n->tag);
	c->plain_implicit = n->plain_implicit;
	c->quoted_implicit = n->quoted_implicit;
	for (size_t i = 0; i < n->n; i++)
		ynode_push(c, ynode_copy(n->items[i]));
	return c;
}

int ynode_equal(const struct ynode *a, const struct ynode *b)
{
	if (!a || !b)
		return a == b;
	if (a->kind != b->kind || a->n != b->n)
		return 0;
	if (a->kind == YN_SCALAR &&
	    (a->len != b->len || memcmp(a->value, b->value, a->len) != 0 ||
	     (a->style == YAML_PLAIN_SCALAR_STYLE) != (b->style == YAML_PLAIN_SCALAR_STYLE)))
		return 0; /* plain vs quoted matters: `null` is not "null" */
	for (size_t i = 0; i < a->n; i++)
		if (!ynode_equal(a->items[i], b->items[i]))
			return 0;
	return 1;
}

/* ---- loading ---------------------------------------------------------- */

struct anchor {
	char *name;
	const struct ynode *node;
};

struct loader {
	yaml_parser_t parser;
	struct anchor *anchors;
	size_t nanchors;
	int depth;
	size_t nodes;        /* nodes built so far, aliases counted expanded */
	size_t alias_bytes;  /* scalar bytes copied by aliases */
};

#define ANNOT_MAX_DEPTH 64
/* An alias is a copy, so `&a1 [*a0, *a0, ...]` nested eight deep is 10^8
 * nodes from 600 bytes. A real annotation has a few hundred nodes; past
 * these the file is refused before anything is copied. */
#define ANNOT_MAX_NODES 200000
#define ANNOT_MAX_ALIAS_BYTES (4u << 20)

/* Adds the nodes and scalar bytes in n; counting stops past the limits
 * (so its cost is bounded by what the limits let through). Returns n's
 * height: copies nest too (`&a2 [*a1]`, `&a3 [*a2]`...), and every walk of
 * the tree recurses. */
static int ynode_size(const struct ynode *n, size_t *nodes, size_t *bytes)
{
	int h = 0;
	if (*nodes > ANNOT_MAX_NODES || *bytes > ANNOT_MAX_ALIAS_BYTES)
		return 0;
	++*nodes;
	*bytes += n->len;
	for (size_t i = 0; i < n->n; i++) {
		int c = ynode_size(n->items[i], nodes, bytes);
		if (c > h)
			h = c;
	}
	return h + 1;
}

static struct ynode *load_node(struct loader *L, yaml_event_t *ev, char **err, int *line);

static void remember(struct loader *L, const yaml_char_t *anchor, const struct ynode *n)
{
	if (!anchor)
		return;
	L->anchors = xrealloc(L->anchors, (L->nanchors + 1) * sizeof *L->anchors);
	L->anchors[L->nanchors].name = xstrdup((const char *)anchor);
	L->anchors[L->nanchors].node = n;
	L->nanchors++;
}

static int next_event(struct loader *L, yaml_event_t *ev, char **err, int *line)
{
	if (yaml_parser_parse(&L->parser, ev))
		return 0;
	*err = xasprintf("invalid YAML: %s%s%s", L->parser.problem ? L->parser.problem : "parse error",
	                 L->parser.context ? " " : "", L->parser.context ? L->parser.context : "");
	*line = (int)L->parser.problem_mark.line + 1;
	return -1;
}

/* Children until the matching end event. */
static struct ynode *load_collection(struct loader *L, struct ynode *n, yaml_event_type_t end,
                                     char **err, int *line)
{
	yaml_event_t ev;
	if (++L->depth > ANNOT_MAX_DEPTH) {
		*err = xstrdup("nesting too deep");
		*line = n->line;
		ynode_free(n);
		return NULL;
	}
	for (;;) {
		if (next_event(L, &ev, err, line) < 0) {
			ynode_free(n);
			return NULL;
		}
		if (ev.type == end) {
			yaml_event_delete(&ev);
			break;
		}
		struct ynode *c = load_node(L, &ev, err, line);
		if (!c) {
			ynode_free(n);
			return NULL;
		}
		ynode_push(n, c);
	}
	L->depth--;
	return n;
}

/* Builds the node that starts with ev (consumed). */
static struct ynode *load_node(struct loader *L, yaml_event_t *ev, char **err, int *line)
{
	struct ynode *n = NULL;
	int at = (int)ev->start_mark.line + 1;

	if (ev->type != YAML_ALIAS_EVENT && ++L->nodes > ANNOT_MAX_NODES) {
		*err = xasprintf("more than %d YAML nodes", ANNOT_MAX_NODES);
		*line = at;
		yaml_event_delete(ev);
		return NULL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		n = ynode_new(YN_SCALAR, at);
		n->value = xstrndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
		n->len = ev->data.scalar.length;
		ynode_show_nuls(n);
		n->style = ev->data.scalar.style;
		n->tag = xstrdup((const char *)ev->data.scalar.tag);
		n->plain_implicit = ev->data.scalar.plain_implicit;
		n->quoted_implicit = ev->data.scalar.quoted_implicit;
		remember(L, ev->data.scalar.anchor, n);
		yaml_event_delete(ev);
		return n;
	case YAML_MAPPING_START_EVENT:
	case YAML_SEQUENCE_START_EVENT: {
		int map = ev->type == YAML_MAPPING_START_EVENT;
		n = ynode_new(map ? YN_MAP : YN_SEQ, at);
		n->style = map ? (int)ev->data.mapping_start.style : (int)ev->data.sequence_start.style;
		const yaml_char_t *tag = map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag;
		const yaml_char_t *anchor = map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor;
		n->tag = xstrdup((const char *)tag);
		n->plain_implicit = 1;
		remember(L, anchor, n);
		yaml_event_delete(ev);
		return load_collection(L, n, map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT, err, line);
	}
	case YAML_ALIAS_EVENT:
		for (size_t i = 0; i < L->nanchors; i++)
			if (!strcmp(L->anchors[i].name, (const char *)ev->data.alias.anchor)) {
				/* an alias becomes a copy: the schema has no use for sharing */
				size_t nodes = L->nodes, bytes = L->alias_bytes;
				int h = ynode_size(L->anchors[i].node, &nodes, &bytes);
				if (L->depth + h > ANNOT_MAX_DEPTH) {
					*err = xasprintf("alias *%s nests too deep", ev->data.alias.anchor);
					*line = at;
					yaml_event_delete(ev);
					return NULL;
				}
				if (nodes > ANNOT_MAX_NODES || bytes > ANNOT_MAX_ALIAS_BYTES) {
					*err = xasprintf("alias *%s expands past %d nodes or %u bytes (an alias bomb?)",
					                 ev->data.alias.anchor, ANNOT_MAX_NODES,
					                 ANNOT_MAX_ALIAS_BYTES);
					*line = at;
					yaml_event_delete(ev);
					return NULL;
				}
				L->nodes = nodes;
				L->alias_bytes = bytes;
				n = ynode_copy(L->anchors[i].node);
				break;
			}
		if (!n && !*err) {
			*err = xasprintf("alias *%s names no anchor", ev->data.alias.anchor);
			*line = at;
		}
		yaml_event_delete(ev);
		return n;
	default:
		*err = xstrdup("unexpected YAML event");
		*line = at;
		yaml_event_delete(ev);
		return NULL;
	}
}

struct annot *annot_load(const char *path, int *line, char **err)
{
	size_t n = 0;
	char *bytes = util_read_file(path, &n);
	struct annot *a;

	*line = 0;
	*err = NULL;
	if (!bytes) {
		*err = xasprintf("%s: %s", path, strerror(errno));
		return NULL;
	}
	a = annot_load_mem(path, bytes, n, line, err);
	free(bytes);
	return a;
}

struct annot *annot_load_mem(const char *path, const char *bytes, size_t len, int *line, char **err)
{
	struct loader L;
	yaml_event_t ev;
	struct ynode *root = NULL;
	char *e = NULL;
	int ln = 0;

	*line = 0;
	*err = NULL;
	memset(&L, 0, sizeof L);
	yaml_parser_initialize(&L.parser);
	yaml_parser_set_input_string(&L.parser, (const unsigned char *)bytes, len);
	/* stream start, document start, then the root node */
	while (!e) {
		if (next_event(&L, &ev, &e, &ln) < 0)
			break;
		if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT) {
			yaml_event_delete(&ev);
			continue;
		}
		if (ev.type == YAML_STREAM_END_EVENT) {
			yaml_event_delete(&ev);
			break;
		}
		root = load_node(&L, &ev, &e, &ln);
		break;
	}
	if (root && !e) {
		/* one document per run, as the schema says: check nothing follows */
		if (next_event(&L, &ev, &e, &ln) == 0) {
			if (ev.type == YAML_DOCUMENT_END_EVENT) {
				yaml_event_delete(&ev);
				if (next_event(&L, &ev, &e, &ln) == 0) {
					if (ev.type == YAML_DOCUMENT_START_EVENT) {
						e = xstrdup("more than one YAML document");
						ln = (int)ev.start_mark.line + 1;
					}
					yaml_event_delete(&ev);
				}
			} else {
				yaml_event_delete(&ev);
			}
		}
	}
	for (size_t i = 0; i < L.nanchors; i++)
		free(L.anchors[i].name);
	free(L.anchors);
	yaml_parser_delete(&L.parser);
	if (!e && (!root || root->kind != YN_MAP)) {
		e = xstrdup("the document is not a mapping of keys to values");
		ln = root ? root->line : 1;
	}
	if (e) {
		*err = xasprintf("%s:%d: %s", path, ln, e);
		*line = ln;
		free(e);
		ynode_free(root);
		return NULL;
	}
	struct annot *a = xcalloc(1, sizeof *a);
	a->root = root;
	a->path = xstrdup(path);
	return a;
}

struct annot *annot_new(const char *path)
{
	struct annot *a = xcalloc(1, sizeof *a);
	a->root = ynode_new(YN_MAP, 1);
	a->root->style = YAML_BLOCK_MAPPING_STYLE;
	a->path = xstrdup(path);
	return a;
}

void annot_free(struct annot *a)
{
	if (!a)
		return;
	ynode_free(a->root);
	free(a->path);
	free(a);
}

/* ---- access ------------------------------------------------------------ */

static long annot_find(const struct annot *a, const char *key)
{
	const struct ynode *m = a->root;
	for (size_t i = 0; i + 1 < m->n; i += 2)
		if (m->items[i]->kind == YN_SCALAR && !strcmp(yv(m->items[i]), key))
			return (long)i;
	return -1;
}

static int annot_is_null(const struct ynode *v)
{
	return v->kind == YN_SCALAR && v->style == YAML_PLAIN_SCALAR_STYLE &&
	       (!strcmp(v->value, "null") || !strcmp(v->value, "~") || !*v->value);
}

const char *annot_get(const struct annot *a, const char *key)
{
	long i = annot_find(a, key);
	const struct ynode *v;
	if (i < 0)
		return NULL;
	v = a->root->items[i + 1];
	if (v->kind != YN_SCALAR || annot_is_null(v))
		return NULL;
	return v->shown ? v->shown : v->value;
}

static int order_of(const char *key)
{
	for (int i = 0; annot_order[i]; i++)
		if (!strcmp(annot_order[i], key))
			return i;
	return 1000;
}

/* Replaces the value of key, or inserts key where the schema puts it. */
static void annot_put(struct annot *a, const char *key, struct ynode *v)
{
	long i = annot_find(a, key);
	struct ynode *m = a->root;
	if (i >= 0) {
		ynode_free(m->items[i + 1]);
		m->items[i + 1] = v;
		return;
	}
	size_t at = m->n; /* after the last key that the schema orders before it */
	int want = order_of(key);
	if (want < 1000) {
		at = 0;
		for (size_t k = 0; k + 1 < m->n; k += 2)
			if (m->items[k]->kind == YN_SCALAR && order_of(yv(m->items[k])) < want)
				at = k + 2;
	}
	ynode_insert(m, at, v);
	ynode_insert(m, at, ynode_scalar(key, strlen(key), YAML_PLAIN_SCALAR_STYLE));
}

/* Plain when it reads back as the same string, else quoted or literal. */
static int annot_style_for(const char *v)
{
	if (strchr(v, '\n'))
		return YAML_LITERAL_SCALAR_STYLE;
	if (!*v || strspn(v, "0123456789.-+eE") == strlen(v) || !strcmp(v, "null") ||
	    !strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "~") || strpbrk(v, ":#'\"{}[],&*!|>%@`") ||
	    v[0] == ' ' || v[0] == '-' || v[0] == '?' || v[strlen(v) - 1] == ' ')
		return YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	return YAML_PLAIN_SCALAR_STYLE;
}

void annot_set(struct annot *a, const char *key, const char *value)
{
	annot_set_styled(a, key, value, value ? annot_style_for(value) : YAML_PLAIN_SCALAR_STYLE);
}

void annot_set_styled(struct annot *a, const char *key, const char *value, int style)
{
	struct ynode *v;
	if (!value)
		v = ynode_scalar("null", 4, YAML_PLAIN_SCALAR_STYLE);
	else
		v = ynode_scalar(value, strlen(value), style);
	annot_put(a, key, v);
}

int annot_plain_ok(const char *v)
{
	return annot_style_for(v) == YAML_PLAIN_SCALAR_STYLE;
}

void annot_set_number(struct annot *a, const char *key, double x, int is_null)
{
	char buf[64];
	if (is_null)
		snprintf(buf, sizeof buf, "null");
	else
		snprintf(buf, sizeof buf, "%.10g", x);
	annot_put(a, key, ynode_scalar(buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE));
}

static void map_add(struct ynode *m, const char *k, struct ynode *v)
{
	ynode_push(m, ynode_scalar(k, strlen(k), YAML_PLAIN_SCALAR_STYLE));
	ynode_push(m, v);
}

void annot_add_quote(struct annot *a, const char *file, int start, int end,
                     const char *label, const char *text)
{
	long i = annot_find(a, "quotes");
	struct ynode *seq, *q, *lines;
	char buf[32];

	if (i < 0 || a->root->items[i + 1]->kind != YN_SEQ) {
		seq = ynode_new(YN_SEQ, 0);
		seq->style = YAML_BLOCK_SEQUENCE_STYLE;
		annot_put(a, "quotes", seq);
	} else {
		seq = a->root->items[i + 1];
	}
	q = ynode_new(YN_MAP, 0);
	q->style = YAML_BLOCK_MAPPING_STYLE;
	map_add(q, "file", ynode_scalar(file, strlen(file), annot_style_for(file)));
	lines = ynode_new(YN_SEQ, 0);
	lines->style = YAML_FLOW_SEQUENCE_STYLE;
	snprintf(buf, sizeof buf, "%d", start);
	ynode_push(lines, ynode_scalar(buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE));
	if (end != start) {
		snprintf(buf, sizeof buf, "%d", end);
		ynode_push(lines, ynode_scalar(buf, strlen(buf), YAML_PLAIN_SCALAR_STYLE));
	}
	map_add(q, "lines", lines);
	map_add(q, "label", ynode_scalar(label, strlen(label), YAML_DOUBLE_QUOTED_SCALAR_STYLE));
	/* verbatim text: a literal block keeps every byte of every line, but
	 * only when it has no trailing spaces or tabs that block scalars lose */
	int style = YAML_LITERAL_SCALAR_STYLE;
	if (strstr(text, " \n") || strstr(text, "\t\n") || (*text == ' ') || strchr(text, '\r'))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	map_add(q, "text", ynode_scalar(text, strlen(text), style));
	ynode_push(seq, q);
}

/* ---- emitting ------------------------------------------------------------ */

static int emit_out(void *data, unsigned char *buf, size_t n)
{
	sbuf_add(data, (const char *)buf, n);
	return 1;
}

static int emit_node(yaml_emitter_t *em, const struct ynode *n)
{
	yaml_event_t ev;
	const yaml_char_t *tag = (const yaml_char_t *)n->tag;

	if (n->kind == YN_SCALAR) {
		if (!yaml_scalar_event_initialize(&ev, NULL, (yaml_char_t *)tag,
		                                  (yaml_char_t *)n->value, (int)n->len,
		                                  tag ? 0 : n->plain_implicit, tag ? 0 : n->quoted_implicit,
		                                  (yaml_scalar_style_t)n->style))
			return 0;
		return yaml_emitter_emit(em, &ev);
	}
	if (n->kind == YN_MAP)
		yaml_mapping_start_event_initialize(&ev, NULL, (yaml_char_t *)tag, tag ? 0 : 1,
		                                    (yaml_mapping_style_t)n->style);
	else
		yaml_sequence_start_event_initialize(&ev, NULL, (yaml_char_t *)tag, tag ? 0 : 1,
		                                     (yaml_sequence_style_t)n->style);
	if (!yaml_emitter_emit(em, &ev))
		return 0;
	for (size_t i = 0; i < n->n; i++)
		if (!emit_node(em, n->items[i]))
			return 0;
	if (n->kind == YN_MAP)
		yaml_mapping_end_event_initialize(&ev);
	else
		yaml_sequence_end_event_initialize(&ev);
	return yaml_emitter_emit(em, &ev);
}

/* 1 when a line (without its newline) ends with a block scalar header that
 * keeps trailing newlines ("|+", ">+", "|2+", "|+2"): a blank line after
 * that scalar would become part of its value. */
static int annot_keep_header(const char *line, size_t n)
{
	size_t i = n;
	int plus = 0;
	while (i && (line[i - 1] == '+' || (line[i - 1] >= '1' && line[i - 1] <= '9')))
		plus |= line[--i] == '+';
	return plus && i && (line[i - 1] == '|' || line[i - 1] == '>');
}

/* A blank line before each top-level key that follows a multi-line entry
 * or starts the verdict, as the dataset's files are laid out; never after
 * an entry with a keep-chomping block scalar, which would absorb it. */
static char *annot_space(const char *s)
{
	struct sbuf b;
	const char *p = s;
	int prev_lines = 0, first = 1, keep = 0;
	sbuf_init(&b);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) + 1 : strlen(p);
		int top = *p != ' ' && *p != '-' && *p != '#' && *p != '\n' && !util_starts_with(p, "...");
		if (top) {
			if (!first && !keep && (prev_lines > 1 || util_starts_with(p, "verdict:")))
				sbuf_addc(&b, '\n');
			first = 0;
			prev_lines = 0;
			keep = 0;
		}
		keep |= annot_keep_header(p, nl ? n - 1 : n);
		prev_lines++;
		sbuf_add(&b, p, n);
		p += n;
	}
	return sbuf_detach(&b);
}

char *annot_emit(const struct annot *a, char **err)
{
	yaml_emitter_t em;
	yaml_event_t ev;
	struct sbuf b;
	int okk;

	sbuf_init(&b);
	yaml_emitter_initialize(&em);
	yaml_emitter_set_output(&em, emit_out, &b);
	yaml_emitter_set_unicode(&em, 1);
	yaml_emitter_set_width(&em, -1);  /* no re-wrapping of long values */
	yaml_emitter_set_indent(&em, 2);
	okk = yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) && yaml_emitter_emit(&em, &ev);
	okk = okk && yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) &&
	      yaml_emitter_emit(&em, &ev);
	okk = okk && emit_node(&em, a->root);
	okk = okk && yaml_document_end_event_initialize(&ev, 1) && yaml_emitter_emit(&em, &ev);
	okk = okk && yaml_stream_end_event_initialize(&ev) && yaml_emitter_emit(&em, &ev);
	if (!okk) {
		if (err)
			*err = xasprintf("cannot write YAML: %s", em.problem ? em.problem : "emitter error");
		yaml_emitter_delete(&em);
		sbuf_free(&b);
		return NULL;
	}
	yaml_emitter_delete(&em);
	char *spaced = annot_space(b.s);
	sbuf_free(&b);
	return spaced;
}

/* ---- saving ------------------------------------------------------------ */

void annot_version_get(const char *path, struct annot_version *v)
{
	struct stat st;
	memset(v, 0, sizeof *v);
	if (stat(path, &st) != 0)
		return;
	v->exists = 1;
	v->size = (long long)st.st_size;
	v->mtime_ns = (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
	v->ino = (unsigned long long)st.st_ino;
	v->dev = (unsigned long long)st.st_dev;
}

int annot_version_same(const struct annot_version *a, const struct annot_version *b)
{
	if (a->exists != b->exists)
		return 0;
	return !a->exists || (a->size == b->size && a->mtime_ns == b->mtime_ns && a->ino == b->ino &&
	                      a->dev == b->dev);
}

long long annot_mtime_ns(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static int write_all(int fd, const char *s, size_t n)
{
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += w;
		n -= (size_t)w;
	}
	return 0;
}

/* The directory part of path (owned), "." when it has none. */
static char *annot_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? xstrndup(path, (size_t)(slash - path + (slash == path))) : xstrdup(".");
}

/* One lock file for the whole annotations directory, not one beside every
 * annotation: it is created once and never removed (removing a lock file
 * races whoever opens it next), and O_NOFOLLOW with the checks below keep a
 * planted link or device from making us create or open anything else. */
int annot_lock(const char *path, char **err)
{
	char *dir = annot_dir(path);
	char *lp = xasprintf("%s/" ANNOT_LOCK_NAME, dir);
	struct stat st;
	int fd = open(lp, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	free(dir);
	if (fd < 0) {
		*err = xasprintf("%s: cannot lock it (%s: %s); nothing written", path, lp,
		                 errno == ELOOP ? "a symbolic link, not our lock file" : strerror(errno));
		free(lp);
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
		*err = xasprintf("%s: cannot lock it (%s is not a plain file of its own); nothing written",
		                 path, lp);
		close(fd);
		free(lp);
		return -1;
	}
	for (int tries = 0; flock(fd, LOCK_EX | LOCK_NB) != 0; tries++) {
		if (tries >= 40) {
			*err = xasprintf("%s: locked by another annotator's save; try again", path);
			close(fd);
			free(lp);
			return -1;
		}
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	free(lp);
	return fd;
}

/* Whether name is one of our temporary files for base: "." base "." and
 * the six characters mkstemp puts there. */
static int annot_is_temp_of(const char *name, const char *base)
{
	size_t bl = strlen(base);
	if (name[0] != '.' || strncmp(name + 1, base, bl) != 0 || name[bl + 1] != '.')
		return 0;
	const char *x = name + bl + 2;
	if (strlen(x) != 6)
		return 0;
	for (int i = 0; i < 6; i++)
		if (!((x[i] >= 'a' && x[i] <= 'z') || (x[i] >= 'A' && x[i] <= 'Z') || (x[i] >= '0' && x[i] <= '9')))
			return 0;
	return 1;
}

/* With the lock held no writer of ours is between mkstemp and rename, so a
 * temporary file of base's is what a killed writer left; the age check
 * spares one that an older kbtui (another lock) may be writing now. Only
 * regular files of our exact pattern go; links and the rest stay. The
 * empty "<base>.lock" that kbtui used to leave beside each file goes too. */
static void annot_clean_temps(const char *dir, const char *base)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);
	char *legacy = xasprintf("%s.lock", base);
	if (!d) {
		free(legacy);
		return;
	}
	while ((de = readdir(d))) {
		struct stat st;
		if (!strcmp(de->d_name, legacy)) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
			    st.st_size == 0)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (!annot_is_temp_of(de->d_name, base))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
		    now - st.st_mtime < ANNOT_TEMP_STALE_S)
			continue;
		unlinkat(dirfd(d), de->d_name, 0);
	}
	closedir(d);
	free(legacy);
}

int annot_replace(const char *path, const char *bytes, size_t len, char **err)
{
	char *slash = strrchr(path, '/'), *tmp = NULL;
	char *dir = annot_dir(path);
	int fd, rc = -1;

	if (!bytes) {
		if (unlink(path) < 0)
			*err = xasprintf("%s: cannot remove it: %s", path, strerror(errno));
		else
			rc = 0;
		goto out;
	}
	annot_clean_temps(dir, slash ? slash + 1 : path);
	tmp = xasprintf("%s/.%s.XXXXXX", dir, slash ? slash + 1 : path);
	if ((fd = mkstemp(tmp)) < 0) {
		*err = xasprintf("%s: cannot create a temporary file in %s: %s; nothing written", path, dir,
		                 strerror(errno));
		goto out;
	}
	if (write_all(fd, bytes, len) < 0 || fsync(fd) < 0) {
		*err = xasprintf("%s: write failed: %s (the previous file is intact)", path, strerror(errno));
		close(fd);
		unlink(tmp);
		goto out;
	}
	fchmod(fd, 0644);
	close(fd);
	if (rename(tmp, path) < 0) {
		*err = xasprintf("%s: rename failed: %s (the previous file is intact)", path, strerror(errno));
		unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	if (rc == 0) { /* the rename or unlink itself must survive a crash */
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);
			close(dfd);
		}
	}
	free(tmp);
	free(dir);
	return rc;
}

int annot_save(const struct annot *a, const char *path, long long expected_mtime_ns, char **err)
{
	char *text;
	int lock, rc = -1;

	*err = NULL;
	if (!(text = annot_emit(a, err)))
		return -1;
	if ((lock = annot_lock(path, err)) < 0) {
		free(text);
		return -1;
	}
	if (expected_mtime_ns && annot_mtime_ns(path) != expected_mtime_ns)
		*err = xasprintf("%s: changed on disk since it was loaded (another annotator?); "
		                 "not overwritten: reload it first", path);
	else
		rc = annot_replace(path, text, strlen(text), err);
	close(lock);
	free(text);
	return rc;
}

/* ---- schema check ---------------------------------------------------------- */

static void msg(struct sbuf *b, const char *path, int line, const char *kind, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

static void msg(struct sbuf *b, const char *path, int line, const char *kind, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *text = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	text[0] = '\0';
	va_start(ap, fmt);
	if (n > 0)
		vsnprintf(text, (size_t)n + 1, fmt, ap);
	va_end(ap);
	/* a whole message, however long the value it quotes: a cut could
	 * split a character */
	sbuf_addf(b, "%s:%d: %s: %s\n", path, line, kind, text);
	free(text);
}

static int count_words(const char *s)
{
	int n = 0, in = 0;
	for (; *s; s++) {
		int sp = *s == ' ' || *s == '\n' || *s == '\t';
		if (!sp && !in)
			n++;
		in = !sp;
	}
	return n;
}

static const struct ynode *map_get(const struct ynode *m, const char *key)
{
	for (size_t i = 0; m && m->kind == YN_MAP && i + 1 < m->n; i += 2)
		if (m->items[i]->kind == YN_SCALAR && !strcmp(yv(m->items[i]), key))
			return m->items[i + 1];
	return NULL;
}

static int check_quote(const struct annot *a, const struct ynode *q, struct sbuf *b)
{
	static const char *const files[] = {"solution.py", "transcript.jsonl", "check.log", "stderr.log", NULL};
	const struct ynode *f = map_get(q, "file"), *l = map_get(q, "lines");
	int errors = 0, known = 0;

	if (q->kind != YN_MAP) {
		msg(b, a->path, q->line, "error", "a quote must be a mapping with file, lines, label, text");
		return 1;
	}
	if (!f || f->kind != YN_SCALAR) {
		msg(b, a->path, q->line, "error", "quote without `file`");
		errors++;
	} else {
		for (int i = 0; files[i]; i++)
			known |= !strcmp(files[i], yv(f));
		if (!known)
			msg(b, a->path, f->line, "warning", "quote file `%s` is not one the schema names", yv(f));
	}
	if (!l || l->kind != YN_SEQ || l->n < 1 || l->n > 2) {
		msg(b, a->path, q->line, "error", "quote `lines` must be [start, end] or [line]");
		errors++;
	} else {
		long s = strtol(l->items[0]->value ? l->items[0]->value : "0", NULL, 10);
		long e = l->n == 2 && l->items[1]->value ? strtol(l->items[1]->value, NULL, 10) : s;
		if (s < 1 || e < s) {
			msg(b, a->path, l->line, "error", "quote lines [%ld, %ld] are not 1-indexed, inclusive, start <= end", s, e);
			errors++;
		}
	}
	if (!map_get(q, "label"))
		msg(b, a->path, q->line, "warning", "quote without `label`");
	if (!map_get(q, "text")) {
		msg(b, a->path, q->line, "error", "quote without verbatim `text`");
		errors++;
	}
	return errors;
}

int annot_check(const struct annot *a, char **msgs)
{
	struct sbuf b;
	int errors = 0, known = 0;
	const char *verdict = annot_get(a, "verdict");
	const char *summary = annot_get(a, "summary");
	const char *impl = annot_get(a, "implication");
	const struct ynode *quotes = map_get(a->root, "quotes");
	long vi = annot_find(a, "verdict");
	int vline = vi >= 0 ? a->root->items[vi]->line : 1;

	sbuf_init(&b);
	if (!annot_get(a, "run_id")) {
		msg(&b, a->path, 1, "error", "missing `run_id`");
		errors++;
	}
	if (!verdict) {
		msg(&b, a->path, vline, "error", "missing `verdict` (one of clean, rubric_leak, reward_hack, interesting, bug)");
		errors++;
	} else {
		for (int i = 0; annot_verdicts[i]; i++)
			known |= !strcmp(annot_verdicts[i], verdict);
		if (!known)
			msg(&b, a->path, vline, "warning",
			    "verdict `%s` is beyond the schema's five (clean, rubric_leak, reward_hack, interesting, bug)",
			    verdict);
	}
	if (verdict && strcmp(verdict, "clean") != 0 && (!impl || !*impl)) {
		msg(&b, a->path, vline, "error", "`implication` is required for verdict `%s`", verdict);
		errors++;
	}
	if (summary) {
		int w = count_words(summary);
		if (w > 60)
			msg(&b, a->path, a->root->items[annot_find(a, "summary")]->line, "warning",
			    "summary has %d words; the schema asks for one paragraph, ideally under 60", w);
		if (strstr(summary, "\n\n"))
			msg(&b, a->path, a->root->items[annot_find(a, "summary")]->line, "warning",
			    "summary has more than one paragraph");
	}
	if (quotes) {
		if (quotes->kind != YN_SEQ) {
			msg(&b, a->path, quotes->line, "error", "`quotes` must be a list");
			errors++;
		} else {
			for (size_t i = 0; i < quotes->n; i++)
				errors += check_quote(a, quotes->items[i], &b);
		}
	}
	if (msgs)
		*msgs = b.len ? sbuf_detach(&b) : NULL;
	sbuf_free(&b);
	return errors;
}
