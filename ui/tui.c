/* tui.c: the ncurses front end: a run browser over a dataset and a
 * two-pane replay of one run (event list | selected event in full).
 *
 * Everything that came from a transcript or the dataset index passes
 * through textsafe() before it is drawn, and is cut by display width.
 * One loop per view: keys change state and set dirty flags; the screen is
 * redrawn once per key from those flags. */
#include "config.h"

#include <curses.h>
#include <langinfo.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include <cjson/cJSON.h>

#include "dataset.h"
#include "run.h"
#include "textsafe.h"
#include "tui.h"
#include "util.h"

/* ---- actions: declared once ---------------------------------------------- */

enum { V_BROWSE = 1, V_REPLAY = 2, V_ALL = 3 };

/* name, key, second key (0: none), key label, views, help. The key map, the
 * ? screen and tui_print_keys (for the man page) all read this table. */
#define TUI_ACTIONS(X) \
	X(DOWN,       'j',       KEY_DOWN,  "j, Down",     V_ALL,    "Next run or event; in the detail pane, scroll down") \
	X(UP,         'k',       KEY_UP,    "k, Up",       V_ALL,    "Previous run or event; in the detail pane, scroll up") \
	X(PAGE_DOWN,  KEY_NPAGE, ' ',       "PgDn, Space", V_ALL,    "One screen down") \
	X(PAGE_UP,    KEY_PPAGE, 'b',       "PgUp, b",     V_ALL,    "One screen up") \
	X(FIRST,      'g',       KEY_HOME,  "g, Home",     V_ALL,    "First run or event; in the detail pane, its top") \
	X(LAST,       'G',       KEY_END,   "G, End",      V_ALL,    "Last run or event; in the detail pane, its end") \
	X(OPEN,       '\n',      KEY_ENTER, "Enter",       V_BROWSE, "Replay the selected run") \
	X(SORT,       's',       0,         "s",           V_BROWSE, "Sort by problem, model or peak_fraction, in turn") \
	X(FILTER,     '/',       0,         "/",           V_BROWSE, "Show only runs whose run id, model, problem or verdict contain a text (empty: all)") \
	X(NEXT_TOOL,  'n',       0,         "n",           V_REPLAY, "Next tool call") \
	X(PREV_TOOL,  'N',       0,         "N",           V_REPLAY, "Previous tool call") \
	X(NEXT_ERROR, 'e',       0,         "e",           V_REPLAY, "Next error: a failed tool result or an error event") \
	X(PREV_ERROR, 'E',       0,         "E",           V_REPLAY, "Previous error") \
	X(FOCUS,      '\t',      0,         "Tab",         V_REPLAY, "Switch focus between the event list and the detail pane") \
	X(ZOOM,       'z',       0,         "z",           V_REPLAY, "Zoom the focused pane to the whole screen, or back") \
	X(REDRAW,     'L' & 0x1f, 0,        "Ctrl-L",      V_ALL,    "Redraw the screen") \
	X(HELP,       '?',       0,         "?",           V_ALL,    "Show the keys") \
	X(QUIT,       'q',       0,         "q",           V_ALL,    "Back to the run browser, or quit")

enum action {
	ACT_NONE,
#define TUI_ENUM(name, key, key2, label, views, help) ACT_##name,
	TUI_ACTIONS(TUI_ENUM)
#undef TUI_ENUM
	ACT__COUNT
};

static const struct action_def {
	int key, key2;
	const char *label;
	unsigned views;
	const char *help;
} actions[ACT__COUNT] = {
#define TUI_DEF(name, k, k2, lab, v, h) [ACT_##name] = { .key = k, .key2 = k2, .label = lab, .views = v, .help = h },
	TUI_ACTIONS(TUI_DEF)
#undef TUI_DEF
};

static enum action action_of(int code, unsigned view)
{
	if (code <= 0)
		return ACT_NONE;
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++)
		if ((actions[a].views & view) && (actions[a].key == code || actions[a].key2 == code))
			return (enum action)a;
	return ACT_NONE;
}

/* roff escapes for a key label: '-' and '\' are special to troff */
static void keys_roff(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
}

void tui_print_keys(FILE *out, int roff)
{
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++) {
		if (!roff) {
			fprintf(out, "%-14s %s\n", actions[a].label, actions[a].help);
			continue;
		}
		fputs(".TP\n.B ", out);
		keys_roff(out, actions[a].label);
		fprintf(out, "\n%s.\n", actions[a].help);
	}
}

/* ---- colours by role ------------------------------------------------------ */

enum role {
	RL_NORMAL, RL_HEADER, RL_REF, RL_TITLE, RL_STATUS, RL_MSG, RL_SELECT, RL_SELECT_DIM,
	RL_FOCUS, RL_PANE, RL_DIM, RL_OK, RL_FAIL, RL_WARN, RL_KEY,
	RL_SYSTEM, RL_USER, RL_REASONING, RL_TEXT, RL_TOOL, RL_RESULT, RL_USAGE, RL_COMPACT, RL_ERROR,
	RL_DIFF_ADD, RL_DIFF_DEL, RL_DIFF_HUNK, RL_DIFF_META,
	RL__COUNT
};

/* fg/bg/attr when the terminal has colour; mono otherwise (NO_COLOR). */
static const struct role_style {
	short fg, bg;
	attr_t attr;
	attr_t mono;
} role_styles[RL__COUNT] = {
	[RL_NORMAL]      = { -1, -1, 0, 0 },
	[RL_HEADER]      = { COLOR_WHITE, COLOR_BLUE, A_BOLD, A_REVERSE | A_BOLD },
	[RL_REF]         = { COLOR_CYAN, -1, 0, 0 },
	[RL_TITLE]       = { -1, -1, A_BOLD | A_UNDERLINE, A_BOLD | A_UNDERLINE },
	[RL_STATUS]      = { COLOR_BLACK, COLOR_WHITE, 0, A_REVERSE },
	[RL_MSG]         = { COLOR_WHITE, COLOR_RED, A_BOLD, A_REVERSE | A_BOLD },
	[RL_SELECT]      = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
	[RL_SELECT_DIM]  = { -1, -1, A_REVERSE | A_DIM, A_UNDERLINE },
	[RL_FOCUS]       = { COLOR_BLACK, COLOR_YELLOW, A_BOLD, A_REVERSE | A_BOLD },
	[RL_PANE]        = { -1, -1, A_BOLD, A_BOLD },
	[RL_DIM]         = { -1, -1, A_DIM, A_DIM },
	[RL_OK]          = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[RL_FAIL]        = { COLOR_RED, -1, A_BOLD, 0 },
	[RL_WARN]        = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[RL_KEY]         = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	[RL_SYSTEM]      = { COLOR_BLUE, -1, 0, A_DIM },
	[RL_USER]        = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
	[RL_REASONING]   = { COLOR_MAGENTA, -1, 0, A_DIM },
	[RL_TEXT]        = { -1, -1, A_BOLD, A_BOLD },
	[RL_TOOL]        = { COLOR_CYAN, -1, A_BOLD, A_BOLD },
	[RL_RESULT]      = { COLOR_CYAN, -1, 0, 0 },
	[RL_USAGE]       = { -1, -1, A_DIM, A_DIM },
	[RL_COMPACT]     = { COLOR_YELLOW, -1, 0, A_UNDERLINE },
	[RL_ERROR]       = { COLOR_RED, -1, A_BOLD, A_BOLD | A_UNDERLINE },
	[RL_DIFF_ADD]    = { COLOR_GREEN, -1, 0, 0 },
	[RL_DIFF_DEL]    = { COLOR_RED, -1, 0, 0 },
	[RL_DIFF_HUNK]   = { COLOR_CYAN, -1, 0, A_BOLD },
	[RL_DIFF_META]   = { -1, -1, A_BOLD, A_BOLD },
};

static int tui_colour;  /* 0: monochrome */
static int tui_utf8;    /* the locale draws UTF-8 */

static void colours_init(void)
{
	const char *nc = getenv("NO_COLOR");
	tui_colour = has_colors() && !(nc && *nc);
	if (!tui_colour)
		return;
	start_color();
	use_default_colors();
	for (int r = 0; r < RL__COUNT; r++)
		init_pair((short)(r + 1), role_styles[r].fg, role_styles[r].bg);
}

static attr_t role_attr(int role)
{
	if (!tui_colour)
		return role_styles[role].mono;
	return COLOR_PAIR(role + 1) | role_styles[role].attr;
}

/* Glyphs where the locale can draw them, ASCII otherwise. */
static const struct glyphs {
	const char *ok, *fail, *unknown, *sep, *sub, *more;
} glyphs_utf8 = { "\u2713", "\u2717", "\u00b7", "\u2502", "\u21b3", "\u2026" },
  glyphs_ascii = { "+", "x", ".", "|", ">", "~" };

static const struct glyphs *glyph(void)
{
	return tui_utf8 ? &glyphs_utf8 : &glyphs_ascii;
}

/* ---- text helpers ---------------------------------------------------------- */

/* Bytes of the UTF-8 character at s (1 for a stray byte). */
static size_t u8len(const char *s, size_t n)
{
	unsigned char c = (unsigned char)s[0];
	size_t len = c < 0x80 ? 1 : (c & 0xE0) == 0xC0 ? 2 : (c & 0xF0) == 0xE0 ? 3 :
	             (c & 0xF8) == 0xF0 ? 4 : 1;
	return len > n ? n : len;
}

/* Safe one-line copy of untrusted s; NULL gives "". Owned by caller. */
static char *safe1(const char *s)
{
	return s ? textsafe(s, strlen(s), 0) : xstrdup("");
}

/* Safe copy of the first non-blank line of s, at most about cap bytes. */
static char *safe_first_line(const char *s, size_t cap)
{
	if (!s)
		return xstrdup("");
	while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
		s++;
	size_t n = strcspn(s, "\n");
	if (n > cap) {
		n = cap;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	return textsafe(s, n, 0);
}

static size_t swidth(const char *s)
{
	return textsafe_width(s, strlen(s));
}

/* Human count: 950, 12.3k, 4.5M. */
static void fmt_count(char *buf, size_t n, long long v)
{
	if (v < 1000)
		snprintf(buf, n, "%lld", v);
	else if (v < 1000000)
		snprintf(buf, n, "%.1fk", (double)v / 1e3);
	else
		snprintf(buf, n, "%.1fM", (double)v / 1e6);
}

/* ASCII case-insensitive substring test. */
static int contains_ci(const char *hay, const char *needle)
{
	if (!hay)
		return 0;
	size_t n = strlen(needle);
	for (; *hay; hay++) {
		size_t i = 0;
		while (i < n && hay[i]) {
			char a = hay[i], b = needle[i];
			if (a >= 'A' && a <= 'Z')
				a = (char)(a - 'A' + 'a');
			if (b >= 'A' && b <= 'Z')
				b = (char)(b - 'A' + 'a');
			if (a != b)
				break;
			i++;
		}
		if (i == n)
			return 1;
	}
	return n == 0;
}

/* ---- the screen ------------------------------------------------------------ */

static int tui_depth;   /* tui_browse opens replays inside its own session */
static volatile sig_atomic_t tui_signal;  /* SIGINT/SIGTERM/SIGHUP seen */

/* The loops see the flag when the interrupted read returns, and leave
 * through endwin, so the terminal is never left in curses mode. */
static void on_signal(int sig)
{
	tui_signal = sig;
}

static void signals_catch(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;  /* no SA_RESTART: the pending read must return */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static void screen_start(void)
{
	if (tui_depth++)
		return;
	const char *cs = nl_langinfo(CODESET);
	tui_utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	initscr();
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colours_init();
	signals_catch();
}

/* Exit status: 0, or 128 + the signal that ended the session. */
static int screen_status(void)
{
	return tui_signal ? 128 + tui_signal : 0;
}

static void screen_stop(void)
{
	if (--tui_depth == 0)
		endwin();
}

/* Draws safe text at (y, x) in at most w columns; returns the columns used. */
static int put(int y, int x, int w, const char *s, int role)
{
	size_t i = 0, n = strlen(s);
	int used = 0;
	if (w <= 0)
		return 0;
	while (i < n) {
		size_t cl = u8len(s + i, n - i);
		int cw = (int)textsafe_width(s + i, cl);
		if (used + cw > w)
			break;
		used += cw;
		i += cl;
	}
	attrset(role_attr(role));
	mvaddnstr(y, x, s, (int)i);
	attrset(A_NORMAL);
	return used;
}

/* Like put, ending with an ellipsis when s does not fit. */
static int put_fit(int y, int x, int w, const char *s, int role)
{
	if (w <= 1 || (int)swidth(s) <= w)
		return put(y, x, w, s, role);
	int used = put(y, x, w - 1, s, role);
	return used + put(y, x + used, 1, glyph()->more, role);
}

/* Like put, for untrusted text. */
static int put_untrusted(int y, int x, int w, const char *s, int role)
{
	char *t = safe1(s);
	int used = put(y, x, w, t, role);
	free(t);
	return used;
}

static void fill(int y, int x, int w, int role)
{
	if (w > 0)
		mvhline(y, x, ' ' | role_attr(role), w);
}

/* A whole row in one role: text on the left, right-aligned text. */
static void bar(int y, int role, const char *left, const char *right)
{
	fill(y, 0, COLS, role);
	int used = put(y, 0, COLS, left, role);
	if (right) {
		int rw = (int)swidth(right);
		if (rw < COLS - used - 2)
			put(y, COLS - rw, rw, right, role);
	}
}

/* ---- wrapped, attributed lines (the detail pane, the help screen) ---------- */

struct tline {
	char *s;      /* safe text, one screen row */
	int role;
};

struct tlines {
	struct tline *v;
	size_t n, cap;
};

static void tlines_clear(struct tlines *L)
{
	for (size_t i = 0; i < L->n; i++)
		free(L->v[i].s);
	L->n = 0;
}

static void tlines_free(struct tlines *L)
{
	tlines_clear(L);
	free(L->v);
	L->v = NULL;
	L->cap = 0;
}

static void tlines_push(struct tlines *L, const char *s, size_t n, int role)
{
	if (L->n == L->cap) {
		L->cap = L->cap ? L->cap * 2 : 64;
		L->v = xrealloc(L->v, L->cap * sizeof *L->v);
	}
	L->v[L->n].s = xstrndup(s, n);
	L->v[L->n].role = role;
	L->n++;
}

/* Breaks one safe line (no newline, no tab) into rows of width columns,
 * at a space when there is one in the row's second half. */
static void tlines_wrap(struct tlines *L, const char *s, size_t n, int role, int width)
{
	if (width < 1)
		width = 1;
	do {
		size_t i = 0, brk = 0;
		int w = 0;
		while (i < n) {
			size_t cl = u8len(s + i, n - i);
			int cw = (int)textsafe_width(s + i, cl);
			if (w + cw > width)
				break;
			w += cw;
			i += cl;
			if (s[i - 1] == ' ' && w > width / 2)
				brk = i;
		}
		size_t take = i;
		if (i < n && brk)
			take = brk;
		if (take == 0)  /* one character wider than the pane */
			take = u8len(s, n);
		tlines_push(L, s, take, role);
		s += take;
		n -= take;
	} while (n > 0);
}

static int diff_role(const char *s)
{
	if (!strncmp(s, "+++", 3) || !strncmp(s, "---", 3))
		return RL_DIFF_META;
	if (s[0] == '+')
		return RL_DIFF_ADD;
	if (s[0] == '-')
		return RL_DIFF_DEL;
	if (!strncmp(s, "@@", 2))
		return RL_DIFF_HUNK;
	return RL_NORMAL;
}

enum { TL_DIFF = 1 };

/* Adds untrusted multi-line text, indented, tabs expanded, wrapped. With
 * TL_DIFF each line's role comes from its +/-/@@ prefix. */
static void tlines_text(struct tlines *L, const char *raw, int role, int width, int indent, int flags)
{
	char *t = textsafe(raw ? raw : "", raw ? strlen(raw) : 0, TS_KEEP_NL | TS_KEEP_TAB);
	struct sbuf line;
	char *p = t;
	sbuf_init(&line);
	for (;;) {
		size_t n = strcspn(p, "\n");
		sbuf_reset(&line);
		for (int k = 0; k < indent; k++)
			sbuf_addc(&line, ' ');
		size_t col = 0;  /* column within the source line, for tab stops */
		for (size_t i = 0; i < n; i++) {
			if (p[i] == '\t') {
				do {
					sbuf_addc(&line, ' ');
				} while (++col % 8);
			} else {
				sbuf_addc(&line, p[i]);
				if (((unsigned char)p[i] & 0xC0) != 0x80)
					col++;
			}
		}
		int r = (flags & TL_DIFF) ? diff_role(line.s + indent) : role;
		tlines_wrap(L, line.s, line.len, r, width);
		if (!p[n])
			break;
		p += n + 1;
	}
	sbuf_free(&line);
	free(t);
}

/* A trusted one-row line (headings we compose), cut to width. */
static void tlines_head(struct tlines *L, int role, int width, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void tlines_head(struct tlines *L, int role, int width, const char *fmt, ...)
{
	va_list ap;
	char buf[512];
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	tlines_wrap(L, buf, strlen(buf), role, width);
}

/* Draws rows [top, top+h) of L into the rectangle; returns nothing. */
static void tlines_draw(const struct tlines *L, size_t top, int y, int x, int w, int h)
{
	for (int r = 0; r < h; r++) {
		fill(y + r, x, w, RL_NORMAL);
		size_t i = top + (size_t)r;
		if (i < L->n)
			put(y + r, x, w, L->v[i].s, L->v[i].role);
	}
}

/* The ? screen for one view, generated from the action table. */
static void help_lines(struct tlines *L, unsigned view, int width)
{
	tlines_clear(L);
	tlines_head(L, RL_PANE, width, " Keys (any key closes this screen)");
	tlines_push(L, "", 0, RL_NORMAL);
	for (int a = ACT_NONE + 1; a < ACT__COUNT; a++) {
		if (!(actions[a].views & view))
			continue;
		char buf[256];
		snprintf(buf, sizeof buf, "  %-13s %s", actions[a].label, actions[a].help);
		tlines_wrap(L, buf, strlen(buf), RL_NORMAL, width);
	}
}

/* ---- keys -------------------------------------------------------------------- */

struct key {
	int code;     /* ASCII or KEY_*; -1 for other characters */
	wint_t ch;    /* the character, for text entry */
	int fn;       /* a function key */
};

static int key_read(struct key *k)
{
	wint_t ch = 0;
	int rc = get_wch(&ch);
	k->ch = ch;
	k->fn = rc == KEY_CODE_YES;
	if (rc == ERR) {
		k->code = -1;
		return ERR;
	}
	if (k->fn)
		k->code = (int)ch;
	else if (ch == '\r')
		k->code = '\n';
	else
		k->code = ch < 0x80 ? (int)ch : -1;
	return OK;
}

enum {
	D_HEADER = 1, D_LIST = 2, D_DETAIL = 4, D_STATUS = 8,
	D_ALL = 15,
};

/* ---- the replay ------------------------------------------------------------ */

/* How each kind of event looks in the list. */
static const struct kind_style {
	const char *label;
	int role;
} kind_styles[EV__COUNT] = {
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

struct replay {
	struct run *run;           /* borrowed */
	const char *title;         /* borrowed */
	size_t sel, top;           /* selected event; first event shown */
	int focus;                 /* 0: event list, 1: detail pane */
	int zoom, help;
	struct tlines detail;      /* the selected event, wrapped */
	size_t detail_ev;          /* which event detail holds (SIZE_MAX: none) */
	int detail_w;
	size_t dtop;               /* first detail row shown */
	long long *cum_in, *cum_out, *cum_cache; /* token sums up to each event */
	size_t *cum_tools;         /* tool calls up to each event */
	char *msg;                 /* one-key message in the status bar (owned) */
	unsigned dirty;
	int body_y, body_h, list_x, list_w, det_x, det_w;
};

static int ev_is_error(const struct event *e)
{
	return e->kind == EV_ERROR || (e->kind == EV_TOOL_RESULT && e->is_error);
}

static void replay_init(struct replay *rp, struct run *run, const char *title)
{
	size_t n = run->nev;
	memset(rp, 0, sizeof *rp);
	rp->run = run;
	rp->title = title;
	rp->detail_ev = (size_t)-1;
	rp->cum_in = xcalloc(n + 1, sizeof *rp->cum_in);
	rp->cum_out = xcalloc(n + 1, sizeof *rp->cum_out);
	rp->cum_cache = xcalloc(n + 1, sizeof *rp->cum_cache);
	rp->cum_tools = xcalloc(n + 1, sizeof *rp->cum_tools);
	long long in = 0, out = 0, cache = 0;
	size_t tools = 0;
	for (size_t i = 0; i < n; i++) {
		const struct event *e = &run->ev[i];
		if (e->kind == EV_USAGE) {
			in += e->tok_in;
			out += e->tok_out;
			cache += e->tok_cache_read + e->tok_cache_write;
		}
		tools += e->kind == EV_TOOL_CALL;
		rp->cum_in[i] = in;
		rp->cum_out[i] = out;
		rp->cum_cache[i] = cache;
		rp->cum_tools[i] = tools;
	}
	rp->dirty = D_ALL;
}

static void replay_free(struct replay *rp)
{
	tlines_free(&rp->detail);
	free(rp->cum_in);
	free(rp->cum_out);
	free(rp->cum_cache);
	free(rp->cum_tools);
	free(rp->msg);
}

static void replay_msg(struct replay *rp, const char *msg)
{
	free(rp->msg);
	rp->msg = xstrdup(msg);
	rp->dirty |= D_STATUS;
}

static void replay_layout(struct replay *rp)
{
	rp->body_y = 2;
	rp->body_h = LINES - 3;
	if (rp->body_h < 1)
		rp->body_h = 1;
	int lw = COLS * 2 / 5;
	if (lw > 72)
		lw = 72;
	if (lw < 24)
		lw = COLS < 48 ? COLS / 2 : 24;
	rp->list_x = 0;
	rp->list_w = lw;
	rp->det_x = lw + 1;
	rp->det_w = COLS - lw - 1;
	if (rp->zoom && rp->focus == 0) {
		rp->list_w = COLS;
		rp->det_w = 0;
	} else if (rp->zoom) {
		rp->list_w = 0;
		rp->det_x = 0;
		rp->det_w = COLS;
	}
}

/* cJSON_Print with two-space indents: its tabs are all layout (JSON strings
 * escape theirs), and tab stops of 8 waste a narrow pane. Owned. */
static char *json_pretty(const cJSON *c)
{
	char *js = cJSON_Print(c);
	struct sbuf b;
	int bol = 1;
	sbuf_init(&b);
	for (const char *p = js ? js : ""; *p; p++) {
		if (*p == '\t')
			sbuf_adds(&b, bol ? "  " : " ");
		else
			sbuf_addc(&b, *p);
		bol = *p == '\n' || (bol && *p == '\t');
	}
	free(js);
	return sbuf_detach(&b);
}

/* Pretty-ish tool arguments: "key: value" per member of a JSON object,
 * multi-line strings indented below their key; anything else as JSON. */
static void detail_args(struct tlines *L, const struct event *e, int width)
{
	cJSON *o = e->args ? cJSON_Parse(e->args) : NULL;
	if (!o || !cJSON_IsObject(o)) {
		char *s = o ? cJSON_Print(o) : NULL;
		tlines_text(L, s ? s : e->args, RL_NORMAL, width, 2, 0);
		free(s);
		cJSON_Delete(o);
		return;
	}
	for (const cJSON *c = o->child; c; c = c->next) {
		char *key = safe1(c->string);
		if (cJSON_IsString(c) && c->valuestring) {
			const char *v = c->valuestring;
			int lines = 1;
			for (const char *q = v; *q; q++)
				lines += *q == '\n';
			/* a file body the diff below already shows */
			if (e->diff && lines > 1 && (!strcmp(c->string, "content") || !strcmp(c->string, "old_string") ||
			                              !strcmp(c->string, "new_string") || !strcmp(c->string, "patch"))) {
				tlines_head(L, RL_DIM, width, "  %s: (%d lines; see the diff)", key, lines);
			} else if (lines > 1) {
				tlines_head(L, RL_KEY, width, "  %s:", key);
				tlines_text(L, v, RL_NORMAL, width, 4, 0);
			} else {
				char *sv = safe1(v);
				char *row = xasprintf("  %s: %s", key, sv);
				tlines_wrap(L, row, strlen(row), RL_NORMAL, width);
				free(row);
				free(sv);
			}
		} else if (cJSON_IsArray(c) || cJSON_IsObject(c)) {
			char *js = json_pretty(c);
			tlines_head(L, RL_KEY, width, "  %s:", key);
			tlines_text(L, js, RL_NORMAL, width, 4, 0);
			free(js);
		} else {
			char *js = cJSON_PrintUnformatted(c);
			char *sv = safe1(js);
			char *row = xasprintf("  %s: %s", key, sv);
			tlines_wrap(L, row, strlen(row), RL_NORMAL, width);
			free(row);
			free(sv);
			free(js);
		}
		free(key);
	}
	cJSON_Delete(o);
}

static void detail_call(struct replay *rp, const struct event *e, int width)
{
	struct tlines *L = &rp->detail;
	char *name = safe1(e->name), *id = safe1(e->call_id);
	tlines_head(L, RL_TOOL, width, "%s", name);
	if (e->call_id)
		tlines_head(L, RL_DIM, width, "call id %s", id);
	free(name);
	free(id);
	if (e->path) {
		char *p = safe1(e->path);
		tlines_head(L, RL_NORMAL, width, "path: %s", p);
		free(p);
	}
	if (e->args) {
		tlines_head(L, RL_PANE, width, "arguments");
		detail_args(L, e, width);
	}
	tlines_push(L, "", 0, RL_NORMAL);
	if (e->link >= 0 && (size_t)e->link < rp->run->nev) {
		const struct event *r = &rp->run->ev[e->link];
		tlines_head(L, r->is_error ? RL_ERROR : RL_PANE, width, "result (event %d)%s", e->link + 1,
		            r->is_error ? ": error" : "");
		tlines_text(L, r->text, r->is_error ? RL_ERROR : RL_NORMAL, width, 2, 0);
	} else {
		tlines_head(L, RL_DIM, width, "no result");
	}
	if (e->diff) {
		tlines_push(L, "", 0, RL_NORMAL);
		tlines_head(L, RL_PANE, width, "diff");
		tlines_text(L, e->diff, RL_NORMAL, width, 0, TL_DIFF);
	}
}

static void detail_build(struct replay *rp, int width)
{
	struct tlines *L = &rp->detail;
	tlines_clear(L);
	rp->detail_ev = rp->sel;
	rp->detail_w = width;
	rp->dtop = 0;
	if (rp->run->nev == 0) {
		tlines_head(L, RL_DIM, width, "(no events in this transcript)");
		return;
	}
	const struct event *e = &rp->run->ev[rp->sel];
	tlines_head(L, kind_styles[e->kind].role, width, "%s  line %d%s%s%s", ev_kind_name(e->kind), e->line,
	            e->sidechain ? "  subagent" : "", e->redacted ? "  redacted" : "",
	            ev_is_error(e) ? "  error" : "");
	tlines_push(L, "", 0, RL_NORMAL);
	switch (e->kind) {
	case EV_TOOL_CALL:
		detail_call(rp, e, width);
		break;
	case EV_TOOL_RESULT:
		if (e->link >= 0 && (size_t)e->link < rp->run->nev) {
			const struct event *c = &rp->run->ev[e->link];
			char *n = safe1(c->name), *a = safe_first_line(c->path ? c->path : c->args, 200);
			tlines_head(L, RL_TOOL, width, "result of event %d: %s %s", e->link + 1, n, a);
			free(n);
			free(a);
			tlines_push(L, "", 0, RL_NORMAL);
		}
		tlines_text(L, e->text, e->is_error ? RL_ERROR : RL_NORMAL, width, 0, 0);
		break;
	case EV_USAGE:
		tlines_head(L, RL_NORMAL, width, "input        %lld", e->tok_in);
		tlines_head(L, RL_NORMAL, width, "output       %lld", e->tok_out);
		tlines_head(L, RL_NORMAL, width, "cache read   %lld", e->tok_cache_read);
		tlines_head(L, RL_NORMAL, width, "cache write  %lld", e->tok_cache_write);
		tlines_head(L, RL_NORMAL, width, "reasoning    %lld", e->tok_reasoning);
		break;
	default:
		if (e->name) {
			char *n = safe1(e->name);
			tlines_head(L, RL_DIM, width, "%s", n);
			free(n);
		}
		tlines_text(L, e->text, kind_styles[e->kind].role == RL_ERROR ? RL_ERROR : RL_NORMAL, width, 0, 0);
	}
}

/* What a call's list row shows: its path, else the first string argument
 * (a command, a pattern, a query), else the arguments as they are. Owned. */
static char *call_summary(const struct run *run, const struct event *e, size_t cap)
{
	const char *cwd = run->meta.cwd;
	size_t n = cwd ? strlen(cwd) : 0;
	/* inside the run's working directory the relative path says it all */
	if (e->path && n && !strncmp(e->path, cwd, n) && e->path[n] == '/' && e->path[n + 1])
		return safe_first_line(e->path + n + 1, cap);
	if (e->path)
		return safe_first_line(e->path, cap);
	cJSON *o = e->args ? cJSON_Parse(e->args) : NULL;
	char *s = NULL;
	for (const cJSON *c = cJSON_IsObject(o) ? o->child : NULL; c && !s; c = c->next)
		if (cJSON_IsString(c) && c->valuestring && *c->valuestring)
			s = safe_first_line(c->valuestring, cap);
	cJSON_Delete(o);
	return s ? s : safe_first_line(e->args, cap);
}

/* One event as a list row: index, kind, tool name, first line of text. */
static void replay_row(const struct replay *rp, size_t i, int y, int x, int w)
{
	const struct event *e = &rp->run->ev[i];
	int sel = i == rp->sel;
	int rowrole = sel ? (rp->focus == 0 ? RL_SELECT : RL_SELECT_DIM) : RL_NORMAL;
	int used = 0;
	char buf[64];
	/* selection paints the whole row in one role, so it reads as a bar */
#define ROLE(r) (sel ? rowrole : (r))
	fill(y, x, w, rowrole);
	int digits = snprintf(buf, sizeof buf, "%zu", rp->run->nev);
	snprintf(buf, sizeof buf, "%*zu ", digits, i + 1);
	used += put(y, x + used, w - used, buf, ROLE(RL_DIM));
	used += put(y, x + used, w - used, e->sidechain ? glyph()->sub : " ", ROLE(RL_DIM));
	snprintf(buf, sizeof buf, "%-7s ", kind_styles[e->kind].label);
	used += put(y, x + used, w - used, buf, ROLE(ev_is_error(e) ? RL_ERROR : kind_styles[e->kind].role));
	const char *name = NULL, *body = e->text;
	if (e->kind == EV_TOOL_CALL) {
		name = e->name;
	} else if (e->kind == EV_TOOL_RESULT && e->link >= 0 && (size_t)e->link < rp->run->nev) {
		name = rp->run->ev[e->link].name;
	}
	if (name) {
		used += put_untrusted(y, x + used, w - used, name, ROLE(RL_TOOL));
		used += put(y, x + used, w - used, " ", ROLE(RL_NORMAL));
	}
	if (e->kind == EV_USAGE) {
		char a[24], b[24];
		fmt_count(a, sizeof a, e->tok_in);
		fmt_count(b, sizeof b, e->tok_out);
		snprintf(buf, sizeof buf, "in %s out %s", a, b);
		put(y, x + used, w - used, buf, ROLE(RL_USAGE));
	} else {
		size_t cap = 4 * (size_t)(w > 0 ? w : 1) + 16;
		char *t = e->kind == EV_TOOL_CALL ? call_summary(rp->run, e, cap) : safe_first_line(body, cap);
		if (*t || e->kind == EV_TOOL_CALL || e->kind == EV_TOOL_RESULT)
			put(y, x + used, w - used, t, ROLE(ev_is_error(e) ? RL_ERROR : RL_NORMAL));
		else  /* say so, rather than show a blank row */
			put(y, x + used, w - used, e->redacted ? "(redacted)" : "(empty)", ROLE(RL_DIM));
		free(t);
	}
#undef ROLE
}

static void replay_draw_header(struct replay *rp)
{
	const struct run_meta *m = &rp->run->meta;
	char *t = safe1(rp->title);
	char *right = NULL;
	char *model = safe1(m->label ? m->label : m->model), *prob = safe1(m->problem), *fmt = safe1(m->format);
	right = xasprintf("%s  %s  %s ", model, prob, fmt);
	char *left = xasprintf(" kbtui replay  %s", t);
	bar(0, RL_HEADER, left, right);
	free(left);
	free(right);
	free(model);
	free(prob);
	free(fmt);
	free(t);
}

static void replay_draw_list(struct replay *rp)
{
	int w = rp->list_w;
	if (w <= 0)
		return;
	fill(1, rp->list_x, w, rp->focus == 0 ? RL_FOCUS : RL_PANE);
	put(1, rp->list_x, w, " events", rp->focus == 0 ? RL_FOCUS : RL_PANE);
	for (int r = 0; r < rp->body_h; r++) {
		size_t i = rp->top + (size_t)r;
		int y = rp->body_y + r;
		if (i < rp->run->nev)
			replay_row(rp, i, y, rp->list_x, w);
		else
			fill(y, rp->list_x, w, RL_NORMAL);
	}
	if (rp->det_w > 0)
		for (int y = 1; y < rp->body_y + rp->body_h; y++)
			put(y, rp->list_x + w, 1, glyph()->sep, RL_DIM);
}

static void replay_draw_detail(struct replay *rp)
{
	int w = rp->det_w;
	if (w <= 0)
		return;
	if (rp->detail_ev != rp->sel || rp->detail_w != w - 1)
		detail_build(rp, w - 1);
	int role = rp->focus == 1 ? RL_FOCUS : RL_PANE;
	char head[128];
	if (rp->run->nev) {
		const struct event *e = &rp->run->ev[rp->sel];
		snprintf(head, sizeof head, " event %zu  %s", rp->sel + 1, ev_kind_name(e->kind));
	} else {
		snprintf(head, sizeof head, " event");
	}
	char pos[64];
	size_t last = rp->dtop + (size_t)rp->body_h;
	if (last > rp->detail.n)
		last = rp->detail.n;
	snprintf(pos, sizeof pos, "%zu-%zu/%zu ", rp->detail.n ? rp->dtop + 1 : 0, last, rp->detail.n);
	fill(1, rp->det_x, w, role);
	int used = put(1, rp->det_x, w, head, role);
	int pw = (int)strlen(pos);
	if (pw < w - used - 1)
		put(1, rp->det_x + w - pw, pw, pos, role);
	tlines_draw(&rp->detail, rp->dtop, rp->body_y, rp->det_x + 1, w - 1, rp->body_h);
	for (int r = 0; r < rp->body_h; r++)
		fill(rp->body_y + r, rp->det_x, 1, RL_NORMAL);
}

static void replay_draw_status(struct replay *rp)
{
	const struct run *run = rp->run;
	size_t n = run->nev, i = n ? rp->sel : 0;
	char in[24], out[24], cache[24];
	fmt_count(in, sizeof in, n ? rp->cum_in[i] : 0);
	fmt_count(out, sizeof out, n ? rp->cum_out[i] : 0);
	fmt_count(cache, sizeof cache, n ? rp->cum_cache[i] : 0);
	struct sbuf b;
	sbuf_init(&b);
	sbuf_addf(&b, " event %zu/%zu  tokens in %s out %s", n ? i + 1 : 0, n, in, out);
	if (n && rp->cum_cache[i])
		sbuf_addf(&b, " cache %s", cache);
	sbuf_addf(&b, "  tool calls %zu", n ? rp->cum_tools[i] : 0);
	if (run->incomplete)
		sbuf_adds(&b, "  INCOMPLETE");
	if (run->malformed)
		sbuf_addf(&b, "  %d malformed", run->malformed);
	if (rp->msg) {
		sbuf_adds(&b, "  ");
		bar(LINES - 1, RL_STATUS, b.s, NULL);
		put(LINES - 1, (int)swidth(b.s), COLS - (int)swidth(b.s), rp->msg, RL_MSG);
	} else {
		bar(LINES - 1, RL_STATUS, b.s, "Tab focus  n tool  e error  ? help  q back ");
	}
	sbuf_free(&b);
}

static void replay_draw(struct replay *rp)
{
	if (rp->dirty & D_ALL)
		replay_layout(rp);
	if (LINES < 4 || COLS < 20) {
		erase();
		mvaddstr(0, 0, "terminal too small");
	} else if (rp->help) {
		struct tlines L = { 0 };
		help_lines(&L, V_REPLAY, COLS - 2);
		erase();
		replay_draw_header(rp);
		fill(1, 0, COLS, RL_NORMAL);
		tlines_draw(&L, 0, 1, 1, COLS - 2, LINES - 2);
		replay_draw_status(rp);
		tlines_free(&L);
	} else {
		if (rp->dirty & D_HEADER)
			replay_draw_header(rp);
		if (rp->dirty & D_LIST)
			replay_draw_list(rp);
		if (rp->dirty & (D_DETAIL | D_LIST))
			replay_draw_detail(rp);
		if (rp->dirty & D_STATUS)
			replay_draw_status(rp);
	}
	rp->dirty = 0;
	refresh();
}

static void replay_goto(struct replay *rp, size_t i)
{
	size_t n = rp->run->nev;
	if (!n)
		return;
	if (i >= n)
		i = n - 1;
	rp->sel = i;
	size_t h = (size_t)rp->body_h;
	/* a step scrolls by one row; a jump shows what follows the target */
	if (i + 1 == rp->top || i == rp->top + h)
		rp->top = i < rp->top ? i : i - h + 1;
	else if (i < rp->top || i >= rp->top + h)
		rp->top = i > h / 3 ? i - h / 3 : 0;
	if (rp->top + h > n && n > h)
		rp->top = n - h;
	rp->dirty |= D_LIST | D_DETAIL | D_STATUS;
}

/* Moves to the next (dir 1) or previous (dir -1) event that matches. */
static void replay_seek(struct replay *rp, int dir, int (*match)(const struct event *), const char *none)
{
	size_t n = rp->run->nev;
	for (size_t i = rp->sel; n && (dir > 0 ? i + 1 < n : i > 0);) {
		i = dir > 0 ? i + 1 : i - 1;
		if (match(&rp->run->ev[i])) {
			replay_goto(rp, i);
			return;
		}
	}
	replay_msg(rp, none);
}

static int ev_is_call(const struct event *e)
{
	return e->kind == EV_TOOL_CALL;
}

static void replay_scroll(struct replay *rp, long delta)
{
	long max = (long)rp->detail.n - rp->body_h;
	long t = (long)rp->dtop + delta;
	if (t > max)
		t = max;
	if (t < 0)
		t = 0;
	rp->dtop = (size_t)t;
	rp->dirty |= D_DETAIL;
}

/* Moves the selection, or scrolls the detail pane when it has the focus. */
static void replay_move(struct replay *rp, long delta)
{
	if (rp->focus == 1) {
		replay_scroll(rp, delta);
		return;
	}
	long i = (long)rp->sel + delta;
	replay_goto(rp, i < 0 ? 0 : (size_t)i);
}

static void replay_do(struct replay *rp, enum action a)
{
	long page = rp->body_h > 1 ? rp->body_h - 1 : 1;
	switch (a) {
	case ACT_DOWN: replay_move(rp, 1); break;
	case ACT_UP: replay_move(rp, -1); break;
	case ACT_PAGE_DOWN: replay_move(rp, page); break;
	case ACT_PAGE_UP: replay_move(rp, -page); break;
	case ACT_FIRST: replay_move(rp, -(long)(rp->focus ? rp->detail.n : rp->run->nev) - 1); break;
	case ACT_LAST: replay_move(rp, (long)(rp->focus ? rp->detail.n : rp->run->nev) + 1); break;
	case ACT_NEXT_TOOL: replay_seek(rp, 1, ev_is_call, "no tool call after this one"); break;
	case ACT_PREV_TOOL: replay_seek(rp, -1, ev_is_call, "no tool call before this one"); break;
	case ACT_NEXT_ERROR: replay_seek(rp, 1, ev_is_error, "no error after this one"); break;
	case ACT_PREV_ERROR: replay_seek(rp, -1, ev_is_error, "no error before this one"); break;
	case ACT_FOCUS:
		rp->focus = !rp->focus;
		rp->dirty |= rp->zoom ? D_ALL : D_LIST | D_DETAIL;
		break;
	case ACT_ZOOM:
		rp->zoom = !rp->zoom;
		rp->dirty = D_ALL;
		erase();
		break;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		rp->dirty = D_ALL;
		break;
	case ACT_HELP:
		rp->help = 1;
		rp->dirty = D_ALL;
		break;
	default:
		break;
	}
}

/* The replay's loop; returns when the user goes back. */
static void replay_loop(struct run *run, const char *title)
{
	struct replay rp;
	struct key k;
	replay_init(&rp, run, title);
	erase();
	while (!tui_signal) {
		if (rp.dirty)
			replay_draw(&rp);
		if (key_read(&k) == ERR)
			continue;
		if (rp.msg) {
			free(rp.msg);
			rp.msg = NULL;
			rp.dirty |= D_STATUS;
		}
		if (k.code == KEY_RESIZE) {
			erase();
			rp.dirty = D_ALL;
			continue;
		}
		if (rp.help) {
			rp.help = 0;
			erase();
			rp.dirty = D_ALL;
			continue;
		}
		enum action a = action_of(k.code, V_REPLAY);
		if (a == ACT_QUIT)
			break;
		replay_do(&rp, a);
	}
	replay_free(&rp);
}

int tui_replay(struct run *run, const char *title)
{
	screen_start();
	replay_loop(run, title);
	screen_stop();
	return screen_status();
}

/* ---- the run browser -------------------------------------------------------- */

/* A column of the run list: its title, width bounds, and cell text. */
struct bcol {
	const char *title;
	int min, max;
	/* Safe cell text (owned) and its role. */
	char *(*cell)(const struct dataset *ds, size_t i, int *role);
};

static char *cell_model(const struct dataset *ds, size_t i, int *role)
{
	const struct run_meta *m = &ds->runs[i].meta;
	*role = RL_NORMAL;
	if (m->label)
		return safe1(m->label);
	if (m->harness && m->model) {
		char *s = xasprintf("%s/%s", m->harness, m->model);
		char *t = safe1(s);
		free(s);
		return t;
	}
	return safe1(m->model ? m->model : m->harness);
}

static char *cell_problem(const struct dataset *ds, size_t i, int *role)
{
	*role = RL_NORMAL;
	return safe1(ds->runs[i].meta.problem);
}

static char *cell_ok(const struct dataset *ds, size_t i, int *role)
{
	const struct run_meta *m = &ds->runs[i].meta;
	if (!m->has_result) {
		*role = RL_DIM;
		return xstrdup(glyph()->unknown);
	}
	*role = m->correct ? RL_OK : RL_FAIL;
	return xstrdup(m->correct ? glyph()->ok : glyph()->fail);
}

static char *cell_peak(const struct dataset *ds, size_t i, int *role)
{
	double p = ds->runs[i].meta.peak_fraction;
	*role = p < 0 ? RL_DIM : RL_NORMAL;
	return p < 0 ? xstrdup("     -") : xasprintf("%6.4f", p);
}

static char *cell_verdict(const struct dataset *ds, size_t i, int *role)
{
	const char *v = ds->runs[i].verdict;
	*role = !v ? RL_DIM : !strcmp(v, "clean") ? RL_OK : RL_WARN;
	return safe1(v ? v : "-");
}

static char *cell_format(const struct dataset *ds, size_t i, int *role)
{
	const struct ds_run *r = &ds->runs[i];
	if (!r->transcript) {
		*role = RL_DIM;
		return xstrdup(r->held_out ? "held out" : "none");
	}
	*role = RL_NORMAL;
	return safe1(r->meta.format ? r->meta.format : "?");
}

static char *cell_run_id(const struct dataset *ds, size_t i, int *role)
{
	*role = RL_DIM;
	return safe1(ds->runs[i].meta.run_id);
}

static const struct bcol bcols[] = {
	{ "MODEL", 10, 34, cell_model },
	{ "PROBLEM", 8, 28, cell_problem },
	{ "OK", 2, 2, cell_ok },
	{ "  PEAK", 6, 6, cell_peak },
	{ "VERDICT", 7, 16, cell_verdict },
	{ "FORMAT", 6, 10, cell_format },
	{ "RUN_ID", 6, 0, cell_run_id },  /* takes the rest */
};
#define NBCOLS (sizeof bcols / sizeof bcols[0])

enum { SORT_PROBLEM, SORT_MODEL, SORT_PEAK, SORT__COUNT };
static const char *const sort_names[SORT__COUNT] = { "problem", "model", "peak_fraction" };

struct browse {
	struct dataset *ds;        /* borrowed */
	size_t *order, n;          /* the runs shown, in order */
	size_t sel, top;
	int sort;
	char filter[256];          /* raw text the user typed */
	char saved[256];           /* filter before / was pressed, for Esc */
	int editing;               /* the / prompt is open */
	int help;
	int width[NBCOLS];
	char *msg;                 /* safe status message (owned) */
	unsigned dirty;
	int list_y, list_h;
};

static const struct dataset *sort_ds;  /* qsort has no context argument */
static int sort_key;

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_runs(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct run_meta *x = &sort_ds->runs[a].meta, *y = &sort_ds->runs[b].meta;
	int c = 0;
	if (sort_key == SORT_PEAK) {
		/* best first; unknown last */
		c = (x->peak_fraction < y->peak_fraction) - (x->peak_fraction > y->peak_fraction);
	} else if (sort_key == SORT_MODEL) {
		c = cmp_str(x->label ? x->label : x->model, y->label ? y->label : y->model);
		if (!c)
			c = cmp_str(x->problem, y->problem);
	} else {
		c = cmp_str(x->problem, y->problem);
		if (!c)
			c = cmp_str(x->label ? x->label : x->model, y->label ? y->label : y->model);
	}
	if (!c)
		c = cmp_str(x->run_id, y->run_id);
	return c ? c : (a > b) - (a < b);
}

static int browse_match(const struct browse *b, size_t i)
{
	const struct ds_run *r = &b->ds->runs[i];
	const char *f = b->filter;
	return !*f || contains_ci(r->meta.run_id, f) || contains_ci(r->meta.model, f) ||
	       contains_ci(r->meta.label, f) || contains_ci(r->meta.harness, f) ||
	       contains_ci(r->meta.problem, f) || contains_ci(r->verdict, f);
}

/* Rebuilds the visible list from filter and sort, keeping the selected
 * run selected when it is still shown. */
static void browse_refresh(struct browse *b)
{
	size_t keep = b->n ? b->order[b->sel] : (size_t)-1;
	b->n = 0;
	for (size_t i = 0; i < b->ds->nruns; i++)
		if (browse_match(b, i))
			b->order[b->n++] = i;
	sort_ds = b->ds;
	sort_key = b->sort;
	qsort(b->order, b->n, sizeof *b->order, cmp_runs);
	b->sel = 0;
	for (size_t k = 0; k < b->n; k++)
		if (b->order[k] == keep)
			b->sel = k;
	b->top = 0;
	if (b->list_h > 0 && b->sel >= (size_t)b->list_h)
		b->top = b->sel - (size_t)b->list_h / 2;
	b->dirty = D_ALL;
}

static void browse_widths(struct browse *b)
{
	for (size_t c = 0; c < NBCOLS; c++) {
		int w = (int)strlen(bcols[c].title);
		for (size_t i = 0; i < b->ds->nruns && bcols[c].max; i++) {
			int role;
			char *s = bcols[c].cell(b->ds, i, &role);
			int sw = (int)swidth(s);
			free(s);
			if (sw > w)
				w = sw;
		}
		if (w < bcols[c].min)
			w = bcols[c].min;
		if (bcols[c].max && w > bcols[c].max)
			w = bcols[c].max;
		b->width[c] = w;
	}
}

static const struct ds_problem *find_problem(const struct dataset *ds, const char *name)
{
	for (size_t i = 0; name && i < ds->nproblems; i++)
		if (ds->problems[i].name && !strcmp(ds->problems[i].name, name))
			return &ds->problems[i];
	return NULL;
}

static void fmt_ms(char *buf, size_t n, const char *what, double ms)
{
	if (ms < 0)
		snprintf(buf, n, "%s -", what);
	else
		snprintf(buf, n, "%s %.4g ms", what, ms);
}

static void browse_draw_header(struct browse *b)
{
	const struct dataset *ds = b->ds;
	size_t ok = 0, held = 0;
	for (size_t i = 0; i < ds->nruns; i++) {
		ok += ds->runs[i].meta.has_result && ds->runs[i].meta.correct;
		held += ds->runs[i].held_out && !ds->runs[i].transcript;
	}
	char *root = safe1(ds->root);
	struct sbuf l, r;
	sbuf_init(&l);
	sbuf_init(&r);
	sbuf_addf(&l, " kbtui  %s  %zu runs  %zu correct", root, ds->nruns, ok);
	if (held)
		sbuf_addf(&l, "  %zu held out", held);
	if (ds->nerrors)
		sbuf_addf(&l, "  %d index problems", ds->nerrors);
	if (b->n != ds->nruns)
		sbuf_addf(&r, "showing %zu of %zu  ", b->n, ds->nruns);
	if (b->filter[0]) {
		char *f = safe1(b->filter);
		sbuf_addf(&r, "filter: %s  ", f);
		free(f);
	}
	sbuf_addf(&r, "sort: %s ", sort_names[b->sort]);
	bar(0, RL_HEADER, l.s, r.s);
	sbuf_free(&l);
	sbuf_free(&r);
	free(root);

	/* the selected run's problem: what its times compare with */
	const struct ds_problem *p = b->n ? find_problem(ds, ds->runs[b->order[b->sel]].meta.problem) : NULL;
	fill(1, 0, COLS, RL_REF);
	if (p) {
		char e[48], c[48], s[48];
		fmt_ms(e, sizeof e, "eager", p->eager.ms);
		fmt_ms(c, sizeof c, "compiled", p->compiled.ms);
		fmt_ms(s, sizeof s, "SOTA", p->sota.ms);
		char *name = safe1(p->name), *hw = ds->hardware ? safe1(ds->hardware) : NULL;
		char *line = xasprintf(" %s: %s  %s  %s%s%s", name, e, c, s, hw ? "  on " : "", hw ? hw : "");
		put(1, 0, COLS, line, RL_REF);
		free(line);
		free(name);
		free(hw);
	} else if (b->n) {
		char *name = safe1(ds->runs[b->order[b->sel]].meta.problem);
		char *line = xasprintf(" %s: no baselines", name);
		put(1, 0, COLS, line, RL_DIM);
		free(line);
		free(name);
	}
	/* column titles */
	fill(2, 0, COLS, RL_TITLE);
	int x = 1;
	for (size_t c = 0; c < NBCOLS && x < COLS; c++) {
		int w = bcols[c].max ? b->width[c] : COLS - x;
		put(2, x, w < COLS - x ? w : COLS - x, bcols[c].title, RL_TITLE);
		x += w + 2;
	}
}

static void browse_draw_list(struct browse *b)
{
	for (int r = 0; r < b->list_h; r++) {
		size_t k = b->top + (size_t)r;
		int y = b->list_y + r;
		fill(y, 0, COLS, k == b->sel && k < b->n ? RL_SELECT : RL_NORMAL);
		if (k >= b->n) {
			if (b->n == 0 && r == 0)
				put(y, 1, COLS - 1, b->ds->nruns ? "no run matches the filter" : "no runs in this dataset", RL_DIM);
			continue;
		}
		int x = 1;
		for (size_t c = 0; c < NBCOLS && x < COLS; c++) {
			int role, w = bcols[c].max ? b->width[c] : COLS - x;
			char *s = bcols[c].cell(b->ds, b->order[k], &role);
			put_fit(y, x, w < COLS - x ? w : COLS - x, s, k == b->sel ? RL_SELECT : role);
			free(s);
			x += w + 2;
		}
	}
}

static void browse_draw_status(struct browse *b)
{
	int y = LINES - 1;
	if (b->editing) {
		char *f = safe1(b->filter);
		char *line = xasprintf("/%s", f);
		bar(y, RL_STATUS, line, "Enter keep  Esc cancel ");
		move(y, (int)swidth(line) < COLS ? (int)swidth(line) : COLS - 1);
		free(line);
		free(f);
	} else if (b->msg) {
		bar(y, RL_MSG, b->msg, NULL);
	} else {
		char pos[64];
		snprintf(pos, sizeof pos, " run %zu/%zu", b->n ? b->sel + 1 : 0, b->n);
		bar(y, RL_STATUS, pos, "Enter replay  / filter  s sort  ? help  q quit ");
	}
}

static void browse_draw(struct browse *b)
{
	b->list_y = 3;
	b->list_h = LINES - 4;
	if (LINES < 5 || COLS < 20) {
		erase();
		mvaddstr(0, 0, "terminal too small");
	} else if (b->help) {
		struct tlines L = { 0 };
		help_lines(&L, V_BROWSE, COLS - 2);
		erase();
		browse_draw_header(b);
		tlines_draw(&L, 0, 1, 1, COLS - 2, LINES - 2);
		browse_draw_status(b);
		tlines_free(&L);
	} else {
		if (b->dirty & D_HEADER)
			browse_draw_header(b);
		if (b->dirty & D_LIST)
			browse_draw_list(b);
		if (b->dirty & D_STATUS)
			browse_draw_status(b);
	}
	curs_set(b->editing ? 1 : 0);
	b->dirty = 0;
	refresh();
}

static void browse_goto(struct browse *b, long k)
{
	if (!b->n)
		return;
	if (k < 0)
		k = 0;
	if ((size_t)k >= b->n)
		k = (long)b->n - 1;
	b->sel = (size_t)k;
	size_t h = b->list_h > 0 ? (size_t)b->list_h : 1;
	if (b->sel < b->top)
		b->top = b->sel;
	else if (b->sel >= b->top + h)
		b->top = b->sel - h + 1;
	/* the reference line follows the selection */
	b->dirty |= D_HEADER | D_LIST | D_STATUS;
}

static void browse_open(struct browse *b)
{
	if (!b->n)
		return;
	size_t i = b->order[b->sel];
	struct run *run = dataset_load(b->ds, i);
	if (!run) {
		char *e = safe1(b->ds->runs[i].load_error ? b->ds->runs[i].load_error : "cannot load this run");
		free(b->msg);
		b->msg = xasprintf(" %s", e);
		free(e);
		b->dirty |= D_STATUS;
		return;
	}
	replay_loop(run, b->ds->runs[i].meta.run_id ? b->ds->runs[i].meta.run_id : b->ds->runs[i].transcript);
	erase();
	b->dirty = D_ALL;
}

/* A key while the / prompt is open: edits the filter, applied as typed. */
static void browse_edit(struct browse *b, const struct key *k)
{
	size_t len = strlen(b->filter);
	if (!k->fn && (k->ch == '\n' || k->ch == '\r')) {
		b->editing = 0;
	} else if (!k->fn && k->ch == 27) {
		b->editing = 0;
		memcpy(b->filter, b->saved, sizeof b->filter);
	} else if ((k->fn && k->ch == KEY_BACKSPACE) || (!k->fn && (k->ch == 127 || k->ch == 8))) {
		while (len > 0 && ((unsigned char)b->filter[len - 1] & 0xC0) == 0x80)
			len--;
		if (len > 0)
			len--;
		b->filter[len] = 0;
	} else if (!k->fn && k->ch >= 0x20 && k->ch != 0x7F) {
		char mb[MB_LEN_MAX];
		mbstate_t st;
		memset(&st, 0, sizeof st);
		size_t m = wcrtomb(mb, (wchar_t)k->ch, &st);
		if (m != (size_t)-1 && len + m < sizeof b->filter) {
			memcpy(b->filter + len, mb, m);
			b->filter[len + m] = 0;
		}
	} else {
		return;
	}
	browse_refresh(b);
}

static void browse_do(struct browse *b, enum action a)
{
	long page = b->list_h > 1 ? b->list_h - 1 : 1;
	switch (a) {
	case ACT_DOWN: browse_goto(b, (long)b->sel + 1); break;
	case ACT_UP: browse_goto(b, (long)b->sel - 1); break;
	case ACT_PAGE_DOWN: browse_goto(b, (long)b->sel + page); break;
	case ACT_PAGE_UP: browse_goto(b, (long)b->sel - page); break;
	case ACT_FIRST: browse_goto(b, 0); break;
	case ACT_LAST: browse_goto(b, (long)b->n - 1); break;
	case ACT_OPEN: browse_open(b); break;
	case ACT_SORT:
		b->sort = (b->sort + 1) % SORT__COUNT;
		browse_refresh(b);
		break;
	case ACT_FILTER:
		memcpy(b->saved, b->filter, sizeof b->saved);
		b->editing = 1;
		b->dirty |= D_STATUS;
		break;
	case ACT_REDRAW:
		clearok(curscr, TRUE);
		b->dirty = D_ALL;
		break;
	case ACT_HELP:
		b->help = 1;
		b->dirty = D_ALL;
		break;
	default:
		break;
	}
}

int tui_browse(struct dataset *ds)
{
	struct browse b;
	struct key k;
	memset(&b, 0, sizeof b);
	b.ds = ds;
	b.order = xcalloc(ds->nruns + 1, sizeof *b.order);
	screen_start();
	browse_widths(&b);
	b.list_h = LINES - 4;
	browse_refresh(&b);
	while (!tui_signal) {
		if (b.dirty)
			browse_draw(&b);
		if (key_read(&k) == ERR)
			continue;
		if (b.msg) {
			free(b.msg);
			b.msg = NULL;
			b.dirty |= D_STATUS;
		}
		if (k.code == KEY_RESIZE) {
			erase();
			b.dirty = D_ALL;
			continue;
		}
		if (b.help) {
			b.help = 0;
			erase();
			b.dirty = D_ALL;
			continue;
		}
		if (b.editing) {
			browse_edit(&b, &k);
			b.dirty |= D_STATUS;
			continue;
		}
		enum action a = action_of(k.code, V_BROWSE);
		if (a == ACT_QUIT)
			break;
		browse_do(&b, a);
	}
	screen_stop();
	free(b.order);
	free(b.msg);
	return screen_status();
}
