/* theme.c: roles to colours and attributes; monochrome under NO_COLOR. */
#include "config.h"

#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

#include "theme.h"

static const struct theme_style {
	const char *name;
	short fg, bg;
	attr_t attr;
	attr_t mono;
} theme_styles[RL__COUNT] = {
#define THEME_DEF(id, str, f, b, a, m) [RL_##id] = { .name = str, .fg = f, .bg = b, .attr = a, .mono = m },
	THEME_ROLES(THEME_DEF)
#undef THEME_DEF
};

static const char *const theme_bar_utf8[9] = {
	" ", "\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588",
};
static const char *const theme_bar_ascii[9] = { " ", ".", ".", "_", "_", "=", "=", "#", "#" };

static const struct theme_glyphs theme_glyphs_utf8 = {
	.ok = "\u2713", .fail = "\u2717", .unknown = "\u00b7", .sep = "\u2502", .sub = "\u21b3",
	.more = "\u2026", .none = "\u2205", .held = "\u25cc", .incomplete = "\u2026", .best = "\u2605",
	.play = "\u25b6", .pause = "\u2016", .bar = theme_bar_utf8,
};
static const struct theme_glyphs theme_glyphs_ascii = {
	.ok = "+", .fail = "x", .unknown = ".", .sep = "|", .sub = ">", .more = "~", .none = "0",
	.held = "h", .incomplete = "~", .best = "*", .play = ">", .pause = "=", .bar = theme_bar_ascii,
};

static int theme_has_colour;
static int theme_is_utf8;

void theme_init(void)
{
	const char *cs = nl_langinfo(CODESET);
	const char *nc = getenv("NO_COLOR");
	theme_is_utf8 = cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
	/* no-color.org: set and not empty means no colour */
	theme_has_colour = has_colors() && !(nc && *nc);
	if (!theme_has_colour)
		return;
	start_color();
	use_default_colors();
	for (int r = 0; r < RL__COUNT; r++)
		init_pair((short)(r + 1), theme_styles[r].fg, theme_styles[r].bg);
}

attr_t theme_attr(int role)
{
	if (role < 0 || role >= RL__COUNT)
		role = RL_NORMAL;
	if (!theme_has_colour)
		return theme_styles[role].mono;
	return COLOR_PAIR(role + 1) | theme_styles[role].attr;
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
