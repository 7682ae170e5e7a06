/* themefile.h: colour theme files (kbtui-theme(5)): one role per line with
 * a foreground, a background and attributes, '#' comments, `inherit NAME`
 * to start from another theme. The core knows the syntax and the colour
 * arithmetic (nearest colour in 256 or 8/16 colours); ui/theme.c knows
 * curses and the list of roles, and passes the role names in. */
#ifndef KB_THEMEFILE_H
#define KB_THEMEFILE_H

#include <stddef.h>

/* How a colour was written: the terminal's default, one of the 16 basic
 * colours (0-7, bright 8-15), a 256-colour palette index, or #rrggbb. */
enum themefile_ckind { TFC_DEFAULT, TFC_BASIC, TFC_INDEX, TFC_RGB };

struct themefile_colour {
	enum themefile_ckind kind;
	unsigned value;               /* basic 0-15, index 0-255, rgb 0xRRGGBB */
};

/* Attribute bits, independent of curses (ui/theme.c maps them to A_*). */
enum {
	TFA_BOLD = 1 << 0,
	TFA_DIM = 1 << 1,
	TFA_UNDERLINE = 1 << 2,
	TFA_REVERSE = 1 << 3,
	TFA_ITALIC = 1 << 4,
	TFA_STANDOUT = 1 << 5,
};

struct themefile_style {
	int set;                      /* the theme (or one it inherits) gives this role */
	struct themefile_colour fg, bg;
	unsigned attrs;               /* on a colour terminal */
	unsigned mono;                /* in monochrome (NO_COLOR, no colours) */
};

struct themefile {
	char *name;                   /* file name without directory and .theme (owned) */
	char *path;                   /* the file read (owned) */
	size_t nroles;
	struct themefile_style *style; /* nroles entries, in the caller's role order (owned) */
};

/* Reads a theme file. roles[0..nroles) are the role names a line may name
 * (borrowed, kept only for the call). `inherit NAME` is looked up as a file
 * beside this one, then with themefile_find in dirs (NULL-terminated, may
 * be NULL). NULL on error, with *err (owned) saying "FILE:LINE: what". */
struct themefile *themefile_load(const char *path, const char *const *roles, size_t nroles,
                                 const char *const *dirs, char **err);
void themefile_free(struct themefile *t);
/* The index of the first role the theme leaves unset, nroles when none. */
size_t themefile_missing(const struct themefile *t);

/* A theme given as NAME or PATH: a PATH (it has a '/' or ends in .theme) is
 * taken as it is; a NAME is NAME.theme in the first of dirs that has it.
 * NULL when not found; owned. */
char *themefile_find(const char *name_or_path, const char *const *dirs);
/* The theme names in dirs (every *.theme, first directory wins), sorted,
 * NULL-terminated; owned with themefile_names_free. */
char **themefile_names(const char *const *dirs);
void themefile_names_free(char **names);

/* Parses one colour word; 0 when it is not one. */
int themefile_parse_colour(const char *word, struct themefile_colour *c);
/* The attribute bit of a word, 0 when it is not one. */
unsigned themefile_parse_attr(const char *word);

/* Colour arithmetic. The RGB of a palette index (xterm's 16 basic colours,
 * the 6x6x6 cube, the grey ramp). */
unsigned themefile_index_rgb(unsigned index);
/* The nearest of the 240 cube and grey colours (16-255) to an RGB. */
unsigned themefile_rgb_to_256(unsigned rgb);
/* The nearest of the first n (8 or 16) basic colours to an RGB. */
unsigned themefile_rgb_to_basic(unsigned rgb, unsigned n);
/* A theme colour as a colour number a terminal of ncolours has (8, 16,
 * 256, or 1 << 24 for direct colour, where the number is the RGB); -1 for
 * the terminal's default. */
int themefile_map(const struct themefile_colour *c, long ncolours);

#endif
