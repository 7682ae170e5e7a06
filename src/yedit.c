/* yedit.c: a top-level value of a YAML mapping replaced, a key added or a
 * list item appended in the text itself, at libyaml's marks; nothing else
 * of the text is touched. */
#include "yedit.h"
#include "annot.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

/* One top-level entry: where its key and value are in the text. */
struct yent {
	char *key;            /* owned; NULL when the key is not a scalar */
	size_t kstart;        /* byte offset of the key */
	int kcol;
	int vtype;            /* YAML_SCALAR_EVENT, YAML_SEQUENCE_START_EVENT, ... */
	int vstyle;           /* scalar or collection style */
	size_t vstart, vend;  /* the value's bytes; a block scalar's end is its last content line's */
	int vcol;
	int vempty;           /* nothing after the colon */
};

struct yidx {
	struct yent *e;       /* owned */
	size_t n;
	int flow_root;
	int root_col;
	size_t *off;          /* libyaml counts characters: index -> byte offset (owned) */
	size_t noff;
};

static void yidx_free(struct yidx *ix)
{
	for (size_t i = 0; i < ix->n; i++)
		free(ix->e[i].key);
	free(ix->e);
	free(ix->off);
	memset(ix, 0, sizeof *ix);
}

/* The byte offset of each character libyaml counts (UTF-8 input). */
static void yidx_offsets(struct yidx *ix, const char *s, size_t len)
{
	size_t b0 = len >= 3 && !memcmp(s, "\xef\xbb\xbf", 3) ? 3 : 0;  /* the reader drops a BOM uncounted */
	ix->off = xmalloc((len + 2) * sizeof *ix->off);
	ix->noff = 0;
	for (size_t b = b0; b < len; b++)
		if (((unsigned char)s[b] & 0xC0) != 0x80)
			ix->off[ix->noff++] = b;
	ix->off[ix->noff++] = len;
}

static size_t yidx_byte(const struct yidx *ix, size_t index)
{
	return index < ix->noff ? ix->off[index] : ix->off[ix->noff - 1];
}

/* The end of the last line in [a, b) with anything but blanks on it (its
 * newline excluded): where a block scalar's content stops, before the
 * blank lines libyaml counts into it. */
static size_t yedit_content_end(const char *s, size_t a, size_t b)
{
	size_t end = a;
	int seen = 0;
	for (size_t p = a; p < b; p++) {
		if (s[p] == '\n') {
			if (seen)
				end = p;
			seen = 0;
		} else if (s[p] != ' ' && s[p] != '\t' && s[p] != '\r') {
			seen = 1;
		}
	}
	if (seen)
		end = b;
	while (end > a && s[end - 1] == '\r')
		end--;
	return end;
}

static int yedit_is_block(int style)
{
	return style == YAML_LITERAL_SCALAR_STYLE || style == YAML_FOLDED_SCALAR_STYLE;
}

static char *yedit_problem(const yaml_parser_t *p)
{
	if (p->context)
		return xasprintf("%zu:%zu: %s %s that started at line %zu", p->problem_mark.line + 1,
		                 p->problem_mark.column + 1, p->problem ? p->problem : "parse error", p->context,
		                 p->context_mark.line + 1);
	return xasprintf("%zu:%zu: %s", p->problem_mark.line + 1, p->problem_mark.column + 1,
	                 p->problem ? p->problem : "parse error");
}

/* The end of the node whose first event is ev (consumed, as are the rest
 * of its events): the end of its last scalar or flow collection. */
static int yedit_node_end(yaml_parser_t *p, const struct yidx *ix, const char *s, yaml_event_t *ev,
                          size_t *end, char **err)
{
	int depth = 0;
	int flow[128];
	for (;;) {
		switch (ev->type) {
		case YAML_SCALAR_EVENT: {
			size_t a = yidx_byte(ix, ev->start_mark.index), b = yidx_byte(ix, ev->end_mark.index);
			*end = yedit_is_block(ev->data.scalar.style) ? yedit_content_end(s, a, b) : b;
			break;
		}
		case YAML_ALIAS_EVENT:
			*end = yidx_byte(ix, ev->end_mark.index);
			break;
		case YAML_SEQUENCE_START_EVENT:
		case YAML_MAPPING_START_EVENT:
			if (depth >= 127) {
				*err = xstrdup("nesting too deep to edit");
				yaml_event_delete(ev);
				return -1;
			}
			flow[depth++] = ev->type == YAML_SEQUENCE_START_EVENT
			                        ? ev->data.sequence_start.style == YAML_FLOW_SEQUENCE_STYLE
			                        : ev->data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
			break;
		case YAML_SEQUENCE_END_EVENT:
		case YAML_MAPPING_END_EVENT:
			if (depth > 0 && flow[--depth])
				*end = yidx_byte(ix, ev->end_mark.index);
			break;
		default:
			break;
		}
		yaml_event_delete(ev);
		if (depth == 0)
			return 0;
		if (!yaml_parser_parse(p, ev)) {
			*err = yedit_problem(p);
			return -1;
		}
	}
}

/* Where each top-level entry of the document in s is. */
static int yidx_build(struct yidx *ix, const char *s, size_t len, char **err)
{
	yaml_parser_t p;
	yaml_event_t ev;
	int rc = -1, stage = 0;
	size_t cap = 0;

	memset(ix, 0, sizeof *ix);
	yidx_offsets(ix, s, len);
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)s, len);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			*err = yedit_problem(&p);
			break;
		}
		if (stage == 0) {  /* stream start, document start, the root */
			if (ev.type == YAML_STREAM_START_EVENT || ev.type == YAML_DOCUMENT_START_EVENT) {
				yaml_event_delete(&ev);
				continue;
			}
			if (ev.type != YAML_MAPPING_START_EVENT) {
				*err = xstrdup("the document is not a mapping of keys to values");
				yaml_event_delete(&ev);
				break;
			}
			ix->flow_root = ev.data.mapping_start.style == YAML_FLOW_MAPPING_STYLE;
			ix->root_col = (int)ev.start_mark.column;
			yaml_event_delete(&ev);
			stage = 1;
			continue;
		}
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			rc = 0;
			break;
		}
		if (ix->n == cap)
			ix->e = xrealloc(ix->e, (cap = cap ? cap * 2 : 16) * sizeof *ix->e);
		struct yent *e = &ix->e[ix->n++];
		memset(e, 0, sizeof *e);
		e->kstart = yidx_byte(ix, ev.start_mark.index);
		e->kcol = (int)ev.start_mark.column;
		if (ev.type == YAML_SCALAR_EVENT)
			e->key = xstrndup((const char *)ev.data.scalar.value, ev.data.scalar.length);
		size_t kend;
		if (yedit_node_end(&p, ix, s, &ev, &kend, err) < 0)
			break;
		if (!yaml_parser_parse(&p, &ev)) {
			*err = yedit_problem(&p);
			break;
		}
		e->vtype = ev.type;
		e->vstart = yidx_byte(ix, ev.start_mark.index);
		e->vcol = (int)ev.start_mark.column;
		e->vstyle = ev.type == YAML_SCALAR_EVENT           ? (int)ev.data.scalar.style
		            : ev.type == YAML_SEQUENCE_START_EVENT ? (int)ev.data.sequence_start.style
		            : ev.type == YAML_MAPPING_START_EVENT  ? (int)ev.data.mapping_start.style
		                                                   : 0;
		e->vempty = ev.type == YAML_SCALAR_EVENT && ev.start_mark.index == ev.end_mark.index;
		e->vend = e->vstart;
		if (yedit_node_end(&p, ix, s, &ev, &e->vend, err) < 0)
			break;
	}
	yaml_parser_delete(&p);
	if (rc < 0)
		yidx_free(ix);
	return rc;
}

char *yedit_syntax_error(const char *text, size_t len)
{
	yaml_parser_t p;
	yaml_event_t ev;
	char *err = NULL;
	yaml_parser_initialize(&p);
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	for (;;) {
		if (!yaml_parser_parse(&p, &ev)) {
			err = yedit_problem(&p);
			break;
		}
		int end = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
		if (end)
			break;
	}
	yaml_parser_delete(&p);
	return err;
}

/* ---- rendering ------------------------------------------------------------ */

/* Length of a character libyaml reads as a line break or refuses in a
 * block scalar (NEL, LS, PS, BOM) at s, else 0. */
static int yedit_special(const unsigned char *s)
{
	if (s[0] == 0xC2 && s[1] == 0x85)
		return 2;
	if (s[0] == 0xE2 && s[1] == 0x80 && (s[2] == 0xA8 || s[2] == 0xA9))
		return 3;
	if (s[0] == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
		return 3;
	return 0;
}

/* 1 when v has a character only a double-quoted scalar can hold. */
static int yedit_needs_escapes(const char *v, int allow_nl)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if ((*p < 0x20 && *p != '\t' && !(allow_nl && *p == '\n')) || *p == 0x7F || *p == '\r')
			return 1;
		if (yedit_special(p))
			return 1;
	}
	return 0;
}

/* Whether v can be a literal (or, single-line, folded) block scalar that
 * reads back as v: something on a line, no leading blank on the first
 * line, at most one final newline. */
static int yedit_block_ok(const char *v)
{
	size_t n = strlen(v);
	const char *first = v;
	if (!n || yedit_needs_escapes(v, 1))
		return 0;
	while (*first == '\n')
		first++;
	if (!*first || *first == ' ' || *first == '\t')
		return 0;
	if (n >= 2 && v[n - 1] == '\n' && v[n - 2] == '\n')
		return 0;
	return 1;
}

static void yedit_double(struct sbuf *b, const char *v)
{
	sbuf_addc(b, '"');
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		int sp = yedit_special(p);
		if (sp) {
			sbuf_adds(b, p[0] == 0xC2 ? "\\N" : p[0] == 0xEF ? "\\uFEFF" : p[2] == 0xA8 ? "\\L" : "\\P");
			p += sp - 1;
		} else if (*p == '"' || *p == '\\') {
			sbuf_addc(b, '\\');
			sbuf_addc(b, (char)*p);
		} else if (*p == '\n') {
			sbuf_adds(b, "\\n");
		} else if (*p == '\t') {
			sbuf_adds(b, "\\t");
		} else if (*p == '\r') {
			sbuf_adds(b, "\\r");
		} else if (*p < 0x20 || *p == 0x7F) {
			sbuf_addf(b, "\\x%02X", *p);
		} else {
			sbuf_addc(b, (char)*p);
		}
	}
	sbuf_addc(b, '"');
}

static void yedit_block(struct sbuf *b, const char *v, int style, int indent)
{
	size_t n = strlen(v);
	int nl = n && v[n - 1] == '\n';
	sbuf_addc(b, style == YAML_FOLDED_SCALAR_STYLE ? '>' : '|');
	if (!nl)
		sbuf_addc(b, '-');
	for (const char *p = v; p < v + n - nl;) {
		const char *e = memchr(p, '\n', (size_t)(v + n - nl - p));
		size_t len = e ? (size_t)(e - p) : (size_t)(v + n - nl - p);
		sbuf_addc(b, '\n');
		if (len)
			sbuf_addf(b, "%*s%.*s", indent, "", (int)len, p);
		p += len + 1;
		if (!e)
			break;
	}
}

int yedit_scalar(const char *v, int style, int indent, char **out)
{
	struct sbuf b;
	sbuf_init(&b);
	if (style == YAML_FOLDED_SCALAR_STYLE && strchr(v, '\n') && strchr(v, '\n')[1])
		style = YAML_LITERAL_SCALAR_STYLE;  /* folding would join its lines */
	if (yedit_is_block(style) && !yedit_block_ok(v))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	if (style == YAML_PLAIN_SCALAR_STYLE && (!annot_plain_ok(v) || strchr(v, '\t') || yedit_needs_escapes(v, 0)))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	if (style == YAML_SINGLE_QUOTED_SCALAR_STYLE && (strchr(v, '\n') || yedit_needs_escapes(v, 0)))
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
	switch (style) {
	case YAML_PLAIN_SCALAR_STYLE:
		sbuf_adds(&b, v);
		break;
	case YAML_SINGLE_QUOTED_SCALAR_STYLE:
		sbuf_addc(&b, '\'');
		for (const char *p = v; *p; p++) {
			if (*p == '\'')
				sbuf_addc(&b, '\'');
			sbuf_addc(&b, *p);
		}
		sbuf_addc(&b, '\'');
		break;
	case YAML_LITERAL_SCALAR_STYLE:
	case YAML_FOLDED_SCALAR_STYLE:
		yedit_block(&b, v, style, indent);
		break;
	default:
		style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		yedit_double(&b, v);
		break;
	}
	*out = sbuf_detach(&b);
	return style;
}

/* ---- splicing ------------------------------------------------------------ */

static void yedit_splice(struct yedit_text *t, size_t a, size_t b, const char *with)
{
	size_t wl = strlen(with), nl = t->len - (b - a) + wl;
	char *s = xmalloc(nl + 1);
	memcpy(s, t->s, a);
	memcpy(s + a, with, wl);
	memcpy(s + a + wl, t->s + b, t->len - b);
	s[nl] = '\0';
	free(t->s);
	t->s = s;
	t->len = nl;
}

static const struct yent *yidx_find(const struct yidx *ix, const char *key)
{
	for (size_t i = 0; i < ix->n; i++)
		if (ix->e[i].key && !strcmp(ix->e[i].key, key))
			return &ix->e[i];
	return NULL;
}

static int yedit_rank(const char *const *order, const char *key)
{
	for (int i = 0; order && key && order[i]; i++)
		if (!strcmp(order[i], key))
			return i;
	return 1000;
}

/* Where a new key goes, as annot_put places it in the tree: after the last
 * entry the order puts before it (unknown keys after the last entry),
 * else before the first. *need_nl: 1 when the text ends there without a
 * final newline, which the new line needs first. */
static size_t yedit_insert_at(const struct yedit_text *t, const struct yidx *ix, const char *key,
                              const char *const *order, int *need_nl)
{
	int want = yedit_rank(order, key);
	long after = want < 1000 ? -1 : (long)ix->n - 1;
	*need_nl = 0;
	for (size_t i = 0; want < 1000 && i < ix->n; i++)
		if (yedit_rank(order, ix->e[i].key) < want)
			after = (long)i;
	if (after < 0) {
		size_t p = ix->n ? ix->e[0].kstart : t->len;
		while (p > 0 && t->s[p - 1] != '\n')
			p--;
		return p;
	}
	const char *nl = memchr(t->s + ix->e[after].vend, '\n', t->len - ix->e[after].vend);
	if (nl)
		return (size_t)(nl - t->s) + 1;
	*need_nl = 1;
	return t->len;
}

/* The content indentation of the block scalar whose header is at start. */
static int yedit_block_indent(const struct yedit_text *t, size_t start, int dflt)
{
	const char *p = memchr(t->s + start, '\n', t->len - start);
	while (p && p + 1 < t->s + t->len) {
		const char *q = p + 1;
		int n = 0;
		while (q[n] == ' ')
			n++;
		if (q[n] != '\n' && q[n] != '\r' && q[n])
			return n;
		p = memchr(q, '\n', (size_t)(t->s + t->len - q));
	}
	return dflt;
}

/* 1 when a block scalar's header at start clips its final newline (no
 * '-' or '+'). */
static int yedit_block_clips(const struct yedit_text *t, size_t start)
{
	for (size_t p = start + 1; p < t->len && t->s[p] != '\n' && t->s[p] != ' ' && t->s[p] != '#'; p++)
		if (t->s[p] == '-' || t->s[p] == '+')
			return 0;
	return 1;
}

int yedit_set(struct yedit_text *t, const char *key, const char *value, const char *const *order,
              char **used, char **err)
{
	struct yidx ix;
	char *text = NULL, *v = NULL;
	int style;

	*used = NULL;
	*err = NULL;
	if (yidx_build(&ix, t->s, t->len, err) < 0)
		return -1;
	const struct yent *e = yidx_find(&ix, key);
	if (!value) {
		style = yedit_scalar("null", YAML_PLAIN_SCALAR_STYLE, 0, &text);
	} else if (e) {
		int want = e->vtype == YAML_SCALAR_EVENT && !e->vempty ? e->vstyle
		           : strchr(value, '\n')                       ? YAML_LITERAL_SCALAR_STYLE
		                                                       : YAML_PLAIN_SCALAR_STYLE;
		int indent = e->kcol + 2;
		size_t n = strlen(value);
		if (ix.flow_root && yedit_is_block(want))
			want = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
		if (e->vtype == YAML_SCALAR_EVENT && yedit_is_block(e->vstyle)) {
			indent = yedit_block_indent(t, e->vstart, indent);
			/* keep the header: a clipped block ends with one newline */
			if (yedit_block_clips(t, e->vstart) && n && value[n - 1] != '\n')
				value = v = xasprintf("%s\n", value);
		}
		style = yedit_scalar(value, want, indent, &text);
	} else {
		style = yedit_scalar(value, strchr(value, '\n') ? YAML_LITERAL_SCALAR_STYLE : YAML_PLAIN_SCALAR_STYLE,
		                     ix.root_col + 2, &text);
	}
	if (e) {
		char *with = e->vempty ? xasprintf(" %s", text) : xstrdup(text);
		yedit_splice(t, e->vstart, e->vend, with);
		free(with);
	} else if (ix.flow_root) {
		*err = xasprintf("`%s` would be added to a mapping written in flow style ({...}): add it by hand", key);
		style = -1;
	} else {
		int need_nl;
		size_t at = yedit_insert_at(t, &ix, key, order, &need_nl);
		char *line = xasprintf("%s%*s%s: %s\n", need_nl ? "\n" : "", ix.root_col, "", key, text);
		yedit_splice(t, at, at, line);
		free(line);
	}
	if (style >= 0)
		*used = xstrdup(value ? value : NULL);
	free(v);
	free(text);
	yidx_free(&ix);
	return style;
}

/* item's lines under a "- " at column col (owned). */
static char *yedit_item_lines(const char *item, int col)
{
	struct sbuf b;
	int first = 1;
	sbuf_init(&b);
	for (const char *p = item; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (first)
			sbuf_addf(&b, "%*s- %.*s\n", col, "", (int)n, p);
		else if (n)
			sbuf_addf(&b, "%*s%.*s\n", col + 2, "", (int)n, p);
		else
			sbuf_addc(&b, '\n');
		first = 0;
		p += n + (nl ? 1 : 0);
	}
	return sbuf_detach(&b);
}

/* Whether e's value is nothing, null or an empty flow list: a list to
 * start. */
static int yedit_no_list(const struct yedit_text *t, const struct yent *e)
{
	char *v;
	int none;
	if (e->vempty)
		return 1;
	if (e->vtype != YAML_SCALAR_EVENT && e->vtype != YAML_SEQUENCE_START_EVENT)
		return 0;
	v = xstrndup(t->s + e->vstart, e->vend - e->vstart);
	none = (e->vtype == YAML_SCALAR_EVENT && e->vstyle == YAML_PLAIN_SCALAR_STYLE &&
	        (!strcmp(v, "null") || !strcmp(v, "~"))) ||
	       (e->vtype == YAML_SEQUENCE_START_EVENT && e->vstyle == YAML_FLOW_SEQUENCE_STYLE &&
	        v[0] == '[' && v[strspn(v + 1, " \t") + 1] == ']');
	free(v);
	return none;
}

int yedit_append_item(struct yedit_text *t, const char *key, const char *item, const char *const *order,
                      char **err)
{
	struct yidx ix;
	char *lines;
	int rc = 0;

	*err = NULL;
	if (yidx_build(&ix, t->s, t->len, err) < 0)
		return -1;
	const struct yent *e = yidx_find(&ix, key);
	if (ix.flow_root) {
		*err = xasprintf("the file is one mapping in flow style ({...}): add to `%s` by hand", key);
		rc = -1;
	} else if (e && e->vtype == YAML_SEQUENCE_START_EVENT && e->vstyle != YAML_FLOW_SEQUENCE_STYLE) {
		int need_nl = 0;
		const char *nl = memchr(t->s + e->vend, '\n', t->len - e->vend);
		size_t at = nl ? (size_t)(nl - t->s) + 1 : t->len;
		need_nl = !nl;
		lines = yedit_item_lines(item, e->vcol);
		char *with = xasprintf("%s%s", need_nl ? "\n" : "", lines);
		yedit_splice(t, at, at, with);
		free(with);
		free(lines);
	} else if (e && yedit_no_list(t, e)) {
		size_t a = e->vstart;
		while (a > 0 && (t->s[a - 1] == ' ' || t->s[a - 1] == '\t'))
			a--;
		lines = yedit_item_lines(item, e->kcol + 2);
		lines[strlen(lines) - 1] = '\0';  /* the value's own line end stays */
		char *with = xasprintf("\n%s", lines);
		yedit_splice(t, a, e->vend, with);
		free(with);
		free(lines);
	} else if (e) {
		*err = xasprintf("`%s` is not a list of items in block style: add to it by hand", key);
		rc = -1;
	} else {
		int need_nl;
		size_t at = yedit_insert_at(t, &ix, key, order, &need_nl);
		lines = yedit_item_lines(item, ix.root_col + 2);
		char *with = xasprintf("%s%*s%s:\n%s", need_nl ? "\n" : "", ix.root_col, "", key, lines);
		yedit_splice(t, at, at, with);
		free(with);
		free(lines);
	}
	yidx_free(&ix);
	return rc;
}
