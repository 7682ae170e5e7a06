/* modelname.c: a run's model as the screen names it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "draw.h"
#include "modelname.h"
#include "run.h"
#include "textsafe.h"
#include "util.h"

char *modelname(const struct run_meta *m)
{
	if (m->label)
		return draw_safe(m->label);
	char *s;
	if (m->harness && m->model)
		s = m->effort ? xasprintf("%s/%s [%s]", m->harness, m->model, m->effort)
		              : xasprintf("%s/%s", m->harness, m->model);
	else
		s = xstrdup(m->model ? m->model : m->harness ? m->harness : "?");
	char *t = draw_safe(s);
	free(s);
	return t;
}

/* The bytes of s from where its last cols columns begin. */
static const char *modelname_tail(const char *s, int cols)
{
	size_t n = strlen(s), i = 0;
	int total = (int)draw_width(s), seen = 0;
	while (i < n && total - seen > cols) {
		size_t cl = draw_u8len(s + i, n - i);
		seen += (int)textsafe_width(s + i, cl);
		i += cl;
	}
	return s + i;
}

/* The first cols columns of s (owned). */
static char *modelname_head(const char *s, int cols)
{
	size_t n = strlen(s), i = 0;
	int seen = 0;
	while (i < n) {
		size_t cl = draw_u8len(s + i, n - i);
		int cw = (int)textsafe_width(s + i, cl);
		if (seen + cw > cols)
			break;
		seen += cw;
		i += cl;
	}
	return xstrndup(s, i);
}

/* "[2026-06-04 opus46 max]" as "[…max]": the note's last word, the
 * effort, is what tells two runs of one model apart. s without brackets
 * of several words is kept. Owned. */
static char *modelname_note(const char *note, const char *more)
{
	size_t n = strlen(note);
	const char *sp = n > 2 ? memrchr(note, ' ', n - 1) : NULL;
	if (note[0] != '[' || note[n - 1] != ']' || !sp)
		return xstrdup(note);
	return xasprintf("[%s%s", more, sp + 1);
}

char *modelname_fit(const char *name, int w, const char *more)
{
	if (w <= 0 || (int)draw_width(name) <= w)
		return xstrdup(name);
	/* harness/middle/.../last [note] */
	const char *br = strstr(name, " [");
	char *path = br ? xstrndup(name, (size_t)(br - name)) : xstrdup(name);
	char *note = br ? xstrdup(br + 1) : xstrdup("");
	const char *first = strchr(path, '/'), *last = strrchr(path, '/');
	char *s;
	/* 1. the middle of the path: opencode/…/qwen3.6-plus */
	if (first && last > first) {
		char *p = xasprintf("%.*s/%s%s", (int)(first - path), path, more, last);
		free(path);
		path = p;
	}
	s = xasprintf("%s%s%s", path, *note ? " " : "", note);
	/* 2. the note but its last word: claude/claude-opus-4-6 […max] */
	if ((int)draw_width(s) > w && *note) {
		char *n2 = modelname_note(note, more);
		free(s);
		s = xasprintf("%s %s", path, n2);
		free(n2);
	}
	/* 3. the harness, then the end: opencode/…n3.6-plus */
	if ((int)draw_width(s) > w) {
		const char *slash = strchr(s, '/');
		int hw = slash ? (int)textsafe_width(s, (size_t)(slash - s) + 1) : 0, mw = (int)draw_width(more);
		char *cut;
		if (slash && hw <= (w - mw) / 2)
			cut = xasprintf("%.*s%s%s", (int)(slash - s) + 1, s, more, modelname_tail(slash + 1, w - hw - mw));
		else {
			char *h = modelname_head(s, (w - mw) * 2 / 5);
			cut = xasprintf("%s%s%s", h, more, modelname_tail(s, w - mw - (int)draw_width(h)));
			free(h);
		}
		free(s);
		s = cut;
	}
	free(path);
	free(note);
	return s;
}
