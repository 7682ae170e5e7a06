/* themefile.c: theme files (syntax in man/kbtui-theme.5) and the colour
 * arithmetic that keeps one theme readable on 8, 256 and true-colour
 * terminals. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "textsafe.h"
#include "themefile.h"
#include "util.h"

/* `inherit` chains deeper than this are taken for a loop. */
#define THEMEFILE_MAX_DEPTH 8

static const char *const themefile_basic[8] = {
	"black", "red", "green", "yellow", "blue", "magenta", "cyan", "white",
};

static const struct {
	const char *name;
	unsigned bit;
} themefile_attrs[] = {
	{ "bold", TFA_BOLD },         { "dim", TFA_DIM },           { "underline", TFA_UNDERLINE },
	{ "reverse", TFA_REVERSE },   { "italic", TFA_ITALIC },     { "standout", TFA_STANDOUT },
};

/* xterm's 16 basic colours: what "red" most likely looks like. */
static const unsigned themefile_xterm16[16] = {
	0x000000, 0xcd0000, 0x00cd00, 0xcdcd00, 0x0000ee, 0xcd00cd, 0x00cdcd, 0xe5e5e5,
	0x7f7f7f, 0xff0000, 0x00ff00, 0xffff00, 0x5c5cff, 0xff00ff, 0x00ffff, 0xffffff,
};

/* The six levels of each channel in the 256-colour cube. */
static const unsigned themefile_cube[6] = { 0x00, 0x5f, 0x87, 0xaf, 0xd7, 0xff };

/* ---- colour arithmetic ------------------------------------------------------ */

unsigned themefile_index_rgb(unsigned i)
{
	if (i < 16)
		return themefile_xterm16[i];
	if (i < 232) {
		i -= 16;
		return themefile_cube[i / 36] << 16 | themefile_cube[i / 6 % 6] << 8 | themefile_cube[i % 6];
	}
	if (i < 256) {
		unsigned g = 8 + 10 * (i - 232);
		return g << 16 | g << 8 | g;
	}
	return 0;
}

static long themefile_dist(unsigned a, unsigned b)
{
	long dr = (long)(a >> 16 & 0xff) - (long)(b >> 16 & 0xff);
	long dg = (long)(a >> 8 & 0xff) - (long)(b >> 8 & 0xff);
	long db = (long)(a & 0xff) - (long)(b & 0xff);
	return dr * dr + dg * dg + db * db;
}

/* The cube level nearest to a channel value. */
static unsigned themefile_cube_level(unsigned v)
{
	unsigned best = 0;
	for (unsigned k = 1; k < 6; k++)
		if ((v > themefile_cube[k] ? v - themefile_cube[k] : themefile_cube[k] - v) <
		    (v > themefile_cube[best] ? v - themefile_cube[best] : themefile_cube[best] - v))
			best = k;
	return best;
}

/* The cube's nearest colour, or the grey ramp's when that is closer (a grey
 * such as #808080 sits between cube levels and looks wrong tinted). */
unsigned themefile_rgb_to_256(unsigned rgb)
{
	unsigned r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
	unsigned cube = 16 + 36 * themefile_cube_level(r) + 6 * themefile_cube_level(g) + themefile_cube_level(b);
	unsigned avg = (r + g + b) / 3;
	unsigned grey = avg < 8 ? 232 : avg > 238 ? 255 : 232 + (avg - 8 + 5) / 10;
	if (grey > 255)
		grey = 255;
	return themefile_dist(themefile_index_rgb(grey), rgb) < themefile_dist(themefile_index_rgb(cube), rgb) ? grey
	                                                                                                         : cube;
}

/* Euclidean nearest among 8 or 16 colours turns every dark colour black,
 * which vanishes on a dark terminal: go by hue instead. Each channel is on
 * when it has at least 60% of the brightest one; very dark is black; on
 * 16 colours full intensity is the bright variant and greys have three
 * steps (bright black, white, bright white). */
unsigned themefile_rgb_to_basic(unsigned rgb, unsigned n)
{
	unsigned r = rgb >> 16 & 0xff, g = rgb >> 8 & 0xff, b = rgb & 0xff;
	unsigned max = r > g ? (r > b ? r : b) : (g > b ? g : b);
	if (max < 0x40)
		return 0;
	unsigned c = (r * 5 >= max * 3) | (g * 5 >= max * 3) << 1 | (b * 5 >= max * 3) << 2;
	if (n < 16)
		return c;
	if (c == 7)
		return max >= 0xf0 ? 15 : max >= 0xb0 ? 7 : 8;
	return max >= 0xf0 ? c + 8 : c;
}

/* A direct-colour terminal reads 0-7 as the basic colours and anything
 * else as an RGB value: keep a near-black RGB out of that range. */
static int themefile_direct(unsigned rgb)
{
	return rgb < 8 ? 8 : (int)rgb;
}

int themefile_map(const struct themefile_colour *c, long ncolours)
{
	unsigned v = c->value;
	switch (c->kind) {
	case TFC_DEFAULT: return -1;
	case TFC_BASIC:
		if (ncolours >= 1L << 24)
			return v < 8 ? (int)v : themefile_direct(themefile_xterm16[v]);
		return ncolours >= 16 ? (int)v : (int)(v & 7);  /* bright-red is red on 8 colours */
	case TFC_INDEX:
		if (ncolours >= 1L << 24)
			return v < 8 ? (int)v : themefile_direct(themefile_index_rgb(v));
		if (ncolours >= 256 || v < (unsigned)ncolours)
			return (int)v;
		return (int)themefile_rgb_to_basic(themefile_index_rgb(v), ncolours >= 16 ? 16 : 8);
	case TFC_RGB:
		if (ncolours >= 1L << 24)
			return themefile_direct(v);
		if (ncolours >= 256)
			return (int)themefile_rgb_to_256(v);
		return (int)themefile_rgb_to_basic(v, ncolours >= 16 ? 16 : 8);
	}
	return -1;
}

/* ---- words ------------------------------------------------------------------ */

static int themefile_hex(int ch)
{
	return isdigit(ch) ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
}

int themefile_parse_colour(const char *w, struct themefile_colour *c)
{
	if (!strcmp(w, "default")) {
		c->kind = TFC_DEFAULT;
		c->value = 0;
		return 1;
	}
	if (w[0] == '#') {
		unsigned v = 0;
		for (int i = 1; i <= 6; i++) {
			int h = themefile_hex((unsigned char)w[i]);
			if (h < 0)
				return 0;
			v = v << 4 | (unsigned)h;
		}
		if (w[7])
			return 0;
		c->kind = TFC_RGB;
		c->value = v;
		return 1;
	}
	if (isdigit((unsigned char)w[0])) {
		char *end;
		long v = strtol(w, &end, 10);
		if (*end || v < 0 || v > 255 || strlen(w) > 3)
			return 0;
		c->kind = TFC_INDEX;
		c->value = (unsigned)v;
		return 1;
	}
	int bright = util_starts_with(w, "bright-");
	const char *base = bright ? w + 7 : w;
	for (unsigned i = 0; i < 8; i++) {
		if (!strcmp(base, themefile_basic[i])) {
			c->kind = TFC_BASIC;
			c->value = i + (bright ? 8 : 0);
			return 1;
		}
	}
	return 0;
}

unsigned themefile_parse_attr(const char *w)
{
	for (size_t i = 0; i < sizeof themefile_attrs / sizeof themefile_attrs[0]; i++)
		if (!strcmp(w, themefile_attrs[i].name))
			return themefile_attrs[i].bit;
	return 0;
}

/* ---- finding files ---------------------------------------------------------- */

static int themefile_is_path(const char *s)
{
	return strchr(s, '/') || util_ends_with(s, ".theme");
}

/* A theme name is a plain file name: no directory, no hidden file. */
static int themefile_good_name(const char *s)
{
	return *s && *s != '.' && !strchr(s, '/');
}

char *themefile_find(const char *s, const char *const *dirs)
{
	if (!s || !*s)
		return NULL;
	if (themefile_is_path(s))
		return util_is_file(s) ? xstrdup(s) : NULL;
	if (!themefile_good_name(s))
		return NULL;
	for (size_t i = 0; dirs && dirs[i]; i++) {
		char *p = xasprintf("%s/%s.theme", dirs[i], s);
		if (util_is_file(p))
			return p;
		free(p);
	}
	return NULL;
}

static int themefile_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **themefile_names(const char *const *dirs)
{
	size_t n = 0, cap = 8;
	char **v = xmalloc(cap * sizeof *v);
	for (size_t i = 0; dirs && dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *de;
		if (!d)
			continue;
		while ((de = readdir(d))) {
			size_t len = strlen(de->d_name);
			if (len <= 6 || !util_ends_with(de->d_name, ".theme") || de->d_name[0] == '.')
				continue;
			char *name = xstrndup(de->d_name, len - 6);
			int dup = 0;
			for (size_t k = 0; k < n && !dup; k++)
				dup = !strcmp(v[k], name);
			if (dup) {
				free(name);
				continue;
			}
			if (n + 1 >= cap)
				v = xrealloc(v, (cap *= 2) * sizeof *v);
			v[n++] = name;
		}
		closedir(d);
	}
	qsort(v, n, sizeof *v, themefile_cmp_names);
	v[n] = NULL;
	return v;
}

void themefile_names_free(char **names)
{
	for (size_t i = 0; names && names[i]; i++)
		free(names[i]);
	free(names);
}

/* ---- parsing ---------------------------------------------------------------- */

struct themefile_ctx {
	const char *const *roles;
	size_t nroles;
	const char *const *dirs;
	char **err;
};

/* The offending word goes to stderr: shortened, escapes made visible. */
static void themefile_err(struct themefile_ctx *cx, const char *path, int line, const char *fmt, const char *arg)
{
	size_t n = strlen(arg);
	char *safe = textsafe(arg, n > 40 ? 40 : n, 0);
	char *word = n > 40 ? xasprintf("%s...", safe) : xstrdup(safe);
	char *what = xasprintf(fmt, word);
	free(safe);
	free(word);
	*cx->err = line > 0 ? xasprintf("%s:%d: %s", path, line, what) : xasprintf("%s: %s", path, what);
	free(what);
}

/* Splits a line into words at blanks, in place; a '#' starts a comment. */
static size_t themefile_words(char *s, char **w, size_t max)
{
	size_t n = 0;
	for (;;) {
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		/* a comment: the line starts with '#', or a '#' word stands alone */
		if (!*s || (*s == '#' && (n == 0 || !s[1] || s[1] == ' ' || s[1] == '\t' || s[1] == '\r')))
			break;
		if (n == max)
			return max + 1;
		w[n++] = s;
		while (*s && *s != ' ' && *s != '\t' && *s != '\r')
			s++;
		if (*s)
			*s++ = '\0';
	}
	return n;
}

static long themefile_role(const struct themefile_ctx *cx, const char *name)
{
	for (size_t i = 0; i < cx->nroles; i++)
		if (!strcmp(cx->roles[i], name))
			return (long)i;
	return -1;
}

static int themefile_read(struct themefile_ctx *cx, struct themefile *t, const char *path, int depth);

/* `inherit NAME`: a file beside this one first, then the search path. */
static int themefile_inherit(struct themefile_ctx *cx, struct themefile *t, const char *path, int line,
                             const char *name, int depth)
{
	char *p = NULL;
	if (depth >= THEMEFILE_MAX_DEPTH) {
		themefile_err(cx, path, line, "inherit %s: themes inherit each other in a loop", name);
		return -1;
	}
	if (!themefile_is_path(name) && themefile_good_name(name)) {
		const char *slash = strrchr(path, '/');
		char *dir = slash ? xstrndup(path, (size_t)(slash - path)) : xstrdup(".");
		const char *here[] = { dir, NULL };
		p = themefile_find(name, here);
		free(dir);
	}
	if (!p)
		p = themefile_find(name, cx->dirs);
	if (!p) {
		themefile_err(cx, path, line, "inherit: no theme '%s' found", name);
		return -1;
	}
	int rc = themefile_read(cx, t, p, depth + 1);
	free(p);
	return rc;
}

/* One role line: ROLE FG BG [ATTR...] [mono: ATTR...]. */
static int themefile_line_role(struct themefile_ctx *cx, struct themefile *t, const char *path, int line, char **w,
                               size_t n)
{
	long r = themefile_role(cx, w[0]);
	struct themefile_style s = { .set = 1 };
	int mono = 0, mono_given = 0;
	if (r < 0) {
		themefile_err(cx, path, line, "unknown role '%s' (kbtui-theme(5) lists them)", w[0]);
		return -1;
	}
	if (n < 3) {
		themefile_err(cx, path, line, "role %s needs a foreground and a background colour", w[0]);
		return -1;
	}
	if (!themefile_parse_colour(w[1], &s.fg)) {
		themefile_err(cx, path, line, "unknown colour '%s' (a name, bright-NAME, default, 0-255 or #rrggbb)", w[1]);
		return -1;
	}
	if (!themefile_parse_colour(w[2], &s.bg)) {
		themefile_err(cx, path, line, "unknown colour '%s' (a name, bright-NAME, default, 0-255 or #rrggbb)", w[2]);
		return -1;
	}
	for (size_t i = 3; i < n; i++) {
		if (!strcmp(w[i], "mono:")) {
			if (mono) {
				themefile_err(cx, path, line, "%s given twice", "mono:");
				return -1;
			}
			mono = mono_given = 1;
			continue;
		}
		unsigned bit = themefile_parse_attr(w[i]);
		if (!bit) {
			themefile_err(cx, path, line,
			              "unknown attribute '%s' (bold, dim, underline, reverse, italic, standout)", w[i]);
			return -1;
		}
		if (mono)
			s.mono |= bit;
		else
			s.attrs |= bit;
	}
	if (!mono_given)
		s.mono = s.attrs;
	t->style[r] = s;
	return 0;
}

static int themefile_line(struct themefile_ctx *cx, struct themefile *t, const char *path, int line, char *text,
                          int depth, int *roles_seen)
{
	char *w[32];
	size_t n = themefile_words(text, w, 32);
	if (n == 0)
		return 0;
	if (n > 32) {
		themefile_err(cx, path, line, "%s", "too many words");
		return -1;
	}
	if (!strcmp(w[0], "inherit")) {
		if (n != 2) {
			themefile_err(cx, path, line, "%s", "inherit takes one theme name");
			return -1;
		}
		if (*roles_seen) {
			/* later lines override earlier ones: inherit after a role would undo it */
			themefile_err(cx, path, line, "%s", "inherit must come before the roles");
			return -1;
		}
		return themefile_inherit(cx, t, path, line, w[1], depth);
	}
	*roles_seen = 1;
	return themefile_line_role(cx, t, path, line, w, n);
}

static int themefile_read(struct themefile_ctx *cx, struct themefile *t, const char *path, int depth)
{
	size_t len;
	char *text = util_read_file(path, &len);
	int line = 0, roles_seen = 0, rc = 0;
	if (!text) {
		themefile_err(cx, path, 0, "%s", "cannot read the file");
		return -1;
	}
	if (memchr(text, '\0', len)) {
		free(text);
		themefile_err(cx, path, 0, "%s", "not a text file (a NUL byte)");
		return -1;
	}
	for (char *p = text; *p && rc == 0;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		rc = themefile_line(cx, t, path, ++line, p, depth, &roles_seen);
		p = nl ? nl + 1 : p + strlen(p);
	}
	free(text);
	return rc;
}

struct themefile *themefile_load(const char *path, const char *const *roles, size_t nroles,
                                 const char *const *dirs, char **err)
{
	struct themefile_ctx cx = { .roles = roles, .nroles = nroles, .dirs = dirs, .err = err };
	struct themefile *t = xcalloc(1, sizeof *t);
	t->nroles = nroles;
	t->style = xcalloc(nroles ? nroles : 1, sizeof *t->style);
	t->path = xstrdup(path);
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t blen = strlen(base);
	t->name = util_ends_with(base, ".theme") ? xstrndup(base, blen - 6) : xstrdup(base);
	*err = NULL;
	if (themefile_read(&cx, t, path, 0) < 0) {
		themefile_free(t);
		return NULL;
	}
	return t;
}

void themefile_free(struct themefile *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->path);
	free(t->style);
	free(t);
}

size_t themefile_missing(const struct themefile *t)
{
	for (size_t i = 0; i < t->nroles; i++)
		if (!t->style[i].set)
			return i;
	return t->nroles;
}
