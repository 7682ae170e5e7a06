/* theme.h: colours by role. Code names what a thing is (a tool name, a diff
 * line, an error); the theme says how it looks: a colour pair and attributes
 * on a colour terminal, attributes alone in monochrome (NO_COLOR, or a
 * terminal without colour). Glyphs fall back to ASCII outside UTF-8. */
#ifndef KB_THEME_H
#define KB_THEME_H

#include <curses.h>

/* name, fg, bg, attributes in colour, attributes in monochrome. The names
 * are what a theme file will call the roles. */
#define THEME_ROLES(X) \
	X(NORMAL,     "normal",     -1,            -1,           0,                    0) \
	X(HEADER,     "header",     COLOR_WHITE,   COLOR_BLUE,   A_BOLD,               A_REVERSE | A_BOLD) \
	X(REF,        "reference",  COLOR_CYAN,    -1,           0,                    0) \
	X(TITLE,      "title",      -1,            -1,           A_BOLD | A_UNDERLINE, A_BOLD | A_UNDERLINE) \
	X(STATUS,     "status",     COLOR_BLACK,   COLOR_WHITE,  0,                    A_REVERSE) \
	X(MSG,        "message",    COLOR_WHITE,   COLOR_RED,    A_BOLD,               A_REVERSE | A_BOLD) \
	X(SELECT,     "select",     COLOR_BLACK,   COLOR_CYAN,   0,                    A_REVERSE) \
	X(SELECT_DIM, "select-dim", -1,            -1,           A_REVERSE | A_DIM,    A_UNDERLINE) \
	X(FOCUS,      "focus",      COLOR_BLACK,   COLOR_YELLOW, A_BOLD,               A_REVERSE | A_BOLD) \
	X(PANE,       "pane",       -1,            -1,           A_BOLD,               A_BOLD) \
	X(DIM,        "dim",        -1,            -1,           A_DIM,                A_DIM) \
	X(OK,         "ok",         COLOR_GREEN,   -1,           A_BOLD,               A_BOLD) \
	X(FAIL,       "fail",       COLOR_RED,     -1,           A_BOLD,               0) \
	X(WARN,       "warn",       COLOR_YELLOW,  -1,           A_BOLD,               A_BOLD) \
	X(KEY,        "key",        COLOR_YELLOW,  -1,           A_BOLD,               A_BOLD) \
	X(BANNER,     "banner",     COLOR_BLACK,   COLOR_YELLOW, A_BOLD,               A_REVERSE | A_BOLD) \
	X(MATCH,      "match",      COLOR_BLACK,   COLOR_YELLOW, 0,                    A_REVERSE | A_UNDERLINE) \
	X(SYSTEM,     "system",     COLOR_BLUE,    -1,           0,                    A_DIM) \
	X(USER,       "user",       COLOR_GREEN,   -1,           A_BOLD,               A_BOLD) \
	X(REASONING,  "reasoning",  COLOR_MAGENTA, -1,           0,                    A_DIM) \
	X(TEXT,       "text",       -1,            -1,           A_BOLD,               A_BOLD) \
	X(TOOL,       "tool",       COLOR_CYAN,    -1,           A_BOLD,               A_BOLD) \
	X(RESULT,     "result",     COLOR_CYAN,    -1,           0,                    0) \
	X(USAGE,      "usage",      -1,            -1,           A_DIM,                A_DIM) \
	X(COMPACT,    "compaction", COLOR_YELLOW,  -1,           0,                    A_UNDERLINE) \
	X(ERROR,      "error",      COLOR_RED,     -1,           A_BOLD,               A_BOLD | A_UNDERLINE) \
	X(DIFF_ADD,   "diff-add",   COLOR_GREEN,   -1,           0,                    0) \
	X(DIFF_DEL,   "diff-del",   COLOR_RED,     -1,           0,                    0) \
	X(DIFF_HUNK,  "diff-hunk",  COLOR_CYAN,    -1,           0,                    A_BOLD) \
	X(DIFF_META,  "diff-meta",  -1,            -1,           A_BOLD,               A_BOLD) \
	X(CC_ERROR,   "cc-error",   COLOR_RED,     -1,           A_BOLD,               A_BOLD | A_UNDERLINE) \
	X(CC_WARNING, "cc-warning", COLOR_YELLOW,  -1,           A_BOLD,               A_BOLD) \
	X(CC_NOTE,    "cc-note",    COLOR_CYAN,    -1,           0,                    0) \
	X(PLOT,       "plot",       COLOR_GREEN,   -1,           A_BOLD,               A_BOLD) \
	X(PLOT_LATER, "plot-later", -1,            -1,           A_DIM,                A_DIM) \
	X(HEAT0,      "heat-0",     COLOR_WHITE,   COLOR_RED,    0,                    0) \
	X(HEAT1,      "heat-1",     COLOR_BLACK,   COLOR_YELLOW, 0,                    A_UNDERLINE) \
	X(HEAT2,      "heat-2",     COLOR_BLACK,   COLOR_GREEN,  0,                    A_REVERSE) \
	X(HEAT3,      "heat-3",     COLOR_BLACK,   COLOR_CYAN,   A_BOLD,               A_REVERSE | A_BOLD)

enum role {
#define THEME_ENUM(name, str, fg, bg, attr, mono) RL_##name,
	THEME_ROLES(THEME_ENUM)
#undef THEME_ENUM
	RL__COUNT
};

/* Glyphs where the locale can draw them, ASCII otherwise. */
struct theme_glyphs {
	const char *ok, *fail, *unknown, *sep, *sub, *more;
	const char *none, *held, *incomplete, *best, *play, *pause;
	const char *differ;        /* the dataset's files disagree on an outcome */
	const char *const *bar;    /* 9 heights, empty to full, for plots */
};

/* Chooses the theme before the screen starts: NAME (a file NAME.theme in
 * the search path: $XDG_CONFIG_HOME/kbtui/themes, $KBTUI_DATADIR/themes,
 * the source tree's of an uninstalled build, the installed themes) or a PATH; NULL:
 * $KBTUI_THEME, else "default" (the built-in colours when it is not
 * installed). 0, or -1 with *err (owned) naming file and line. */
int theme_select(const char *name_or_path, char **err);
/* Reads the locale and NO_COLOR, and sets up colour pairs for the chosen
 * theme; call after initscr. */
void theme_init(void);
/* Switches to the next installed theme (by name, in order, wrapping) and
 * sets up its colours; returns a message for the status bar (owned). The
 * caller redraws the whole screen. */
char *theme_cycle(void);
/* The name of the theme in use. */
const char *theme_name(void);
/* Attributes (colour pair included) to draw a role with. */
attr_t theme_attr(int role);
const struct theme_glyphs *theme_glyph(void);
/* The heat role for a peak_fraction (the leaderboard grid, the plot). */
int theme_heat(double peak_fraction);

#endif
