/* theme.c: roles to colours and attributes: a theme file (kbtui-theme(5))
 * applied to curses, each colour brought down to what the terminal has;
 * monochrome under NO_COLOR or without colours. */
#include "config.h"

#include <langinfo.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "textsafe.h"
#include "theme.h"
#include "themefile.h"
#include "util.h"

/* The built-in look: what a theme file does not give, and everything when
 * no theme file is installed. */
static const struct theme_builtin {
	short fg, bg;
	attr_t attr;
	attr_t mono;
} theme_builtins[RL__COUNT] = {
#define THEME_DEF(id, str, f, b, a, m) [RL_##id] = { .fg = f, .bg = b, .attr = a, .mono = m },
	THEME_ROLES(THEME_DEF)
#undef THEME_DEF
};

static const char *const theme_role_names[RL__COUNT] = {
#define THEME_NAME(id, str, f, b, a, m) [RL_##id] = str,
	THEME_ROLES(THEME_NAME)
#undef THEME_NAME
};

/* The theme in use: theme colours, not yet terminal colours. */
static struct theme_style {
	struct themefile_colour fg, bg;
	attr_t attr, mono;
} theme_styles[RL__COUNT];

static char *theme_cur_name;      /* owned */
static int theme_chosen;          /* theme_select ran */
static attr_t theme_attrs[RL__COUNT]; /* what theme_attr returns, set by theme_apply */
static const char *const theme_bar_utf8[9] = {
	" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
};
static const char *const theme_bar_ascii[9] = { " ", ".", ".", "_", "_", "=", "=", "#", "#" };

static const struct theme_glyphs theme_glyphs_utf8 = {
	.ok = "\u2713", .fail = "\u2717", .unknown = "\u00b7", .sep = "\u2502", .sub = "\u21b3",
	.more = "\u2026", .none = "\u2205", .held = "\u25cc", .incomplete = "\u2026", .best = "\u2605",
	.play = "\u25b6", .pause = "\u2016", .differ = "\u2260", .bar = theme_bar_utf8,
};
static const struct theme_glyphs theme_glyphs_ascii = {
	.ok = "+", .fail = "x", .unknown = ".", .sep = "|", .sub = ">", .more = "~", .none = "0",
	.held = "h", .incomplete = "~", .best = "*", .play = ">", .pause = "=", .differ = "!=",
	.bar = theme_bar_ascii,
};

static int theme_has_colour;
static int theme_is_utf8;
static int theme_started;         /* theme_init ran: curses is up */

static attr_t theme_curses_attrs(unsigned a)
{
	attr_t r = 0;
	r |= a & TFA_BOLD ? A_BOLD : 0;
	r |= a & TFA_DIM ? A_DIM : 0;
	r |= a & TFA_UNDERLINE ? A_UNDERLINE : 0;
	r |= a & TFA_REVERSE ? A_REVERSE : 0;
	r |= a & TFA_ITALIC ? A_ITALIC : 0;
	r |= a & TFA_STANDOUT ? A_STANDOUT : 0;
	return r;
}

static struct themefile_colour theme_builtin_colour(short c)
{
	struct themefile_colour tc = { .kind = c < 0 ? TFC_DEFAULT : TFC_BASIC, .value = c < 0 ? 0 : (unsigned)c };
	return tc;
}

static void theme_use_builtin(int r)
{
	theme_styles[r].fg = theme_builtin_colour(theme_builtins[r].fg);
	theme_styles[r].bg = theme_builtin_colour(theme_builtins[r].bg);
	theme_styles[r].attr = theme_builtins[r].attr;
	theme_styles[r].mono = theme_builtins[r].mono;
}

static void theme_set_name(const char *name)
{
	free(theme_cur_name);
	theme_cur_name = xstrdup(name);
}

/* Where theme names are looked up, in order (NULL-terminated; free with
 * theme_dirs_free). */
static char **theme_dirs(void)
{
	char **d = xcalloc(5, sizeof *d);
	size_t n = 0;
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	if (xdg && *xdg == '/')
		d[n++] = xasprintf("%s/kbtui/themes", xdg);
	else if (home && *home)
		d[n++] = xasprintf("%s/.config/kbtui/themes", home);
	char *own = util_data_find("themes");  /* source, build or installed */
	if (own)
		d[n++] = own;
	return d;
}

static void theme_dirs_free(char **d)
{
	for (size_t i = 0; d[i]; i++)
		free(d[i]);
	free(d);
}

/* Makes a parsed theme the one in use; roles it leaves out keep the
 * built-in look. */
static void theme_take(const struct themefile *t)
{
	for (int r = 0; r < RL__COUNT; r++) {
		const struct themefile_style *s = &t->style[r];
		if (!s->set) {
			theme_use_builtin(r);
			continue;
		}
		theme_styles[r].fg = s->fg;
		theme_styles[r].bg = s->bg;
		theme_styles[r].attr = theme_curses_attrs(s->attrs);
		theme_styles[r].mono = theme_curses_attrs(s->mono);
	}
	theme_set_name(t->name);
}

/* Reads and takes a theme; -1 with *err when it cannot. */
static int theme_load(const char *what, char **err)
{
	char **dirs = theme_dirs();
	char *path = themefile_find(what, (const char *const *)dirs);
	int rc = -1;
	if (!path) {
		*err = xasprintf("theme '%s' not found (a name is looked up as NAME.theme in %s, %s, ...)", what,
		                 dirs[0], dirs[1] ? dirs[1] : "");
	} else {
		struct themefile *t = themefile_load(path, theme_role_names, RL__COUNT, (const char *const *)dirs, err);
		if (t) {
			theme_take(t);
			themefile_free(t);
			rc = 0;
		}
	}
	free(path);
	theme_dirs_free(dirs);
	return rc;
}

int theme_select(const char *what, char **err)
{
	*err = NULL;
	theme_chosen = 1;
	if (!what || !*what) {
		const char *env = getenv("KBTUI_THEME");
		if (env && *env)
			return theme_load(env, err);
		if (theme_load("default", err) == 0)
			return 0;
		/* no theme installed: the colours compiled in are the default */
		free(*err);
		*err = NULL;
		for (int r = 0; r < RL__COUNT; r++)
			theme_use_builtin(r);
		theme_set_name("default");
		return 0;
	}
	return theme_load(what, err);
}

const char *theme_name(void)
{
	return theme_cur_name ? theme_cur_name : "default";
}

/* A pair for each role; a colour number beyond a short needs ncurses'
 * extended pairs (direct colour terminals). */
static void theme_pair(int pair, int fg, int bg)
{
	if (pair >= COLOR_PAIRS)
		return;
#if defined(NCURSES_EXT_COLORS) && NCURSES_EXT_COLORS >= 20170401
	init_extended_pair(pair, fg, bg);
#else
	init_pair((short)pair, (short)(fg > SHRT_MAX ? 7 : fg), (short)(bg > SHRT_MAX ? 0 : bg));
#endif
}

/* Sets up pairs and the attribute table for the theme in use. */
static void theme_apply(void)
{
	static int have_default;
	static int once;
	if (!theme_has_colour) {
		for (int r = 0; r < RL__COUNT; r++)
			theme_attrs[r] = theme_styles[r].mono;
		return;
	}
	if (!once) {
		once = 1;
		start_color();
		have_default = use_default_colors() == OK;
	}
	for (int r = 0; r < RL__COUNT; r++) {
		const struct theme_style *s = &theme_styles[r];
		int fg = themefile_map(&s->fg, COLORS), bg = themefile_map(&s->bg, COLORS);
		theme_attrs[r] = s->attr;
		if (fg < 0 && bg < 0)
			continue;  /* the terminal's own colours: no pair, no colour codes */
		if (!have_default) {
			fg = fg < 0 ? COLOR_WHITE : fg;
			bg = bg < 0 ? COLOR_BLACK : bg;
		}
		theme_pair(r + 1, fg, bg);
		if (r + 1 < COLOR_PAIRS)
			theme_attrs[r] |= COLOR_PAIR(r + 1);
	}
}

void theme_init(void)
{
	const char *cs = nl_langinfo(CODESET);
	const char *nc = getenv("NO_COLOR");
	theme_is_utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	if (!theme_chosen) {
		/* a front end that did not choose (live): the default, quietly */
		char *err = NULL;
		if (theme_select(NULL, &err) < 0) {
			free(err);
			theme_select("default", &err);
			free(err);
		}
	}
	/* no-color.org: set and not empty means no colour */
	theme_has_colour = has_colors() && !(nc && *nc);
	theme_started = 1;
	theme_apply();
}

char *theme_cycle(void)
{
	char **dirs = theme_dirs();
	char **names = themefile_names((const char *const *)dirs);
	char *msg = NULL, *err = NULL;
	size_t n = 0, next = 0;
	while (names[n])
		n++;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], theme_name()))
			next = i + 1;
	if (!n) {
		msg = xstrdup("no themes installed");
	} else if (theme_load(names[next % n], &err) < 0) {
		char *e = textsafe(err, strlen(err), 0);  /* a file name and a line of it, made visible */
		msg = xasprintf("theme %s: %s", names[next % n], e);
		free(e);
		free(err);
	} else {
		if (theme_started)
			theme_apply();
		msg = xasprintf("theme: %s", theme_name());
	}
	themefile_names_free(names);
	theme_dirs_free(dirs);
	return msg;
}

attr_t theme_attr(int role)
{
	if (role < 0 || role >= RL__COUNT)
		role = RL_NORMAL;
	return theme_attrs[role];
}

const struct theme_glyphs *theme_glyph(void)
{
	return theme_is_utf8 ? &theme_glyphs_utf8 : &theme_glyphs_ascii;
}

/* Buckets a reader can tell apart at a glance; the number is printed too. */
int theme_heat(double p)
{
	if (p < 0.1)
		return RL_HEAT0;
	if (p < 0.25)
		return RL_HEAT1;
	if (p < 0.5)
		return RL_HEAT2;
	return RL_HEAT3;
}
