/* Theme files: every shipped theme gives every role (the roles are read
 * from ui/theme.h's THEME_ROLES, so a new role without a line in each
 * theme fails here), errors name file and line, inherit, the search path,
 * and the nearest-colour arithmetic for 256 and 8 colours. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "themefile.h"
#include "util.h"

#define MAX_ROLES 128

static char *roles[MAX_ROLES];
static size_t nroles;
static char tmpdir[] = "/tmp/kbtui-themefile-XXXXXX";

/* The role names of THEME_ROLES: X(ID, "name", ...) lines of ui/theme.h. */
static void read_roles(void)
{
	char *text = util_read_file(tap_path("ui/theme.h"), NULL);
	if (!text)
		return;
	for (char *p = text; (p = strstr(p, "\tX(")) && nroles < MAX_ROLES; p++) {
		char *q = strchr(p, '"'), *e = q ? strchr(q + 1, '"') : NULL;
		char *nl = strchr(p, '\n');
		if (!q || !e || (nl && q > nl))
			continue;
		roles[nroles++] = xstrndup(q + 1, (size_t)(e - q - 1));
	}
	free(text);
}

static long role_index(const char *name)
{
	for (size_t i = 0; i < nroles; i++)
		if (!strcmp(roles[i], name))
			return (long)i;
	return -1;
}

static char *write_theme(const char *name, const char *text)
{
	char *p = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(p, "w");
	fputs(text, f);
	fclose(f);
	return p;
}

/* Loads text as a theme file; NULL with *err on error. */
static struct themefile *load_text(const char *name, const char *text, char **err)
{
	char *p = write_theme(name, text);
	const char *dirs[] = { tmpdir, NULL };
	struct themefile *t = themefile_load(p, (const char *const *)roles, nroles, dirs, err);
	free(p);
	return t;
}

/* The error a theme text gives ("" when it loads). */
static char *error_of(const char *text)
{
	char *err = NULL;
	struct themefile *t = load_text("bad.theme", text, &err);
	themefile_free(t);
	return err ? err : xstrdup("");
}

static void test_shipped(void)
{
	const char *names[] = { "default", "light", "high-contrast", "mono" };
	const char *dirs[] = { tap_path("themes"), NULL };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char *err = NULL;
		char *path = themefile_find(names[i], dirs);
		ok(path != NULL, "themes/%s.theme is found by name", names[i]);
		if (!path)
			continue;
		struct themefile *t = themefile_load(path, (const char *const *)roles, nroles, dirs, &err);
		ok(t != NULL, "%s loads%s%s", names[i], err ? ": " : "", err ? err : "");
		if (t) {
			size_t miss = themefile_missing(t);
			ok(miss == nroles, "%s gives or inherits every one of the %zu roles%s%s", names[i], nroles,
			   miss < nroles ? "; missing " : "", miss < nroles ? roles[miss] : "");
			is_str(t->name, names[i], "%s: the theme's name is its file name", names[i]);
		}
		themefile_free(t);
		free(path);
		free(err);
	}
	/* the mono theme has no colour in it; default has the familiar header */
	char *err = NULL;
	char *path = themefile_find("mono", dirs);
	struct themefile *t = path ? themefile_load(path, (const char *const *)roles, nroles, dirs, &err) : NULL;
	int colours = 0;
	for (size_t i = 0; t && i < nroles; i++)
		colours += t->style[i].fg.kind != TFC_DEFAULT || t->style[i].bg.kind != TFC_DEFAULT;
	ok(t && colours == 0, "mono names no colour (%d roles do)", colours);
	long h = role_index("header");
	ok(t && h >= 0 && t->style[h].attrs == (TFA_REVERSE | TFA_BOLD), "mono: header is reverse bold");
	themefile_free(t);
	free(path);
	path = themefile_find("default", dirs);
	t = path ? themefile_load(path, (const char *const *)roles, nroles, dirs, &err) : NULL;
	ok(t && h >= 0 && t->style[h].fg.kind == TFC_BASIC && t->style[h].fg.value == 7 &&
	   t->style[h].bg.value == 4 && t->style[h].attrs == TFA_BOLD && t->style[h].mono == (TFA_REVERSE | TFA_BOLD),
	   "default: header is bold white on blue, reverse bold in monochrome");
	themefile_free(t);
	free(path);
	/* every role is documented in the man page */
	char *man = util_read_file(tap_path("man/kbtui-theme.5"), NULL);
	if (man) {  /* roff writes '-' as "\-" */
		char *w = man;
		for (const char *r = man; *r; r++)
			if (!(r[0] == '\\' && r[1] == '-'))
				*w++ = *r;
		*w = '\0';
	}
	size_t undocumented = 0;
	const char *which = "";
	for (size_t i = 0; man && i < nroles; i++) {
		char *item = xasprintf("\n.B %s\n", roles[i]);
		if (!strstr(man, item)) {
			undocumented++;
			which = roles[i];
		}
		free(item);
	}
	ok(man && undocumented == 0, "kbtui-theme(5) has an item for every role (%zu missing: %s)", undocumented, which);
	free(man);
}

static void test_syntax(void)
{
	char *err = NULL;
	struct themefile *t = load_text("ok.theme",
	                                "# a comment\n"
	                                "\n"
	                                "   # an indented comment\n"
	                                "header  #ff8700  234  bold underline  mono: reverse   # trailing comment\n"
	                                "normal  bright-red default\n"
	                                "\tdim\tdefault\tblack\titalic standout dim\n",
	                                &err);
	ok(t != NULL, "a theme with comments, blank lines and tabs loads%s%s", err ? ": " : "", err ? err : "");
	long h = role_index("header"), n = role_index("normal"), d = role_index("dim");
	if (t && h >= 0 && n >= 0 && d >= 0) {
		ok(t->style[h].fg.kind == TFC_RGB && t->style[h].fg.value == 0xff8700, "#ff8700 is an RGB colour");
		ok(t->style[h].bg.kind == TFC_INDEX && t->style[h].bg.value == 234, "234 is a palette index");
		is_int(t->style[h].attrs, TFA_BOLD | TFA_UNDERLINE, "attributes before mono: are the colour ones");
		is_int(t->style[h].mono, TFA_REVERSE, "attributes after mono: are the monochrome ones");
		ok(t->style[n].fg.kind == TFC_BASIC && t->style[n].fg.value == 9, "bright-red is basic colour 9");
		ok(t->style[n].bg.kind == TFC_DEFAULT, "default is the terminal's colour");
		is_int(t->style[d].attrs, TFA_ITALIC | TFA_STANDOUT | TFA_DIM, "italic standout dim");
		is_int(t->style[d].mono, TFA_ITALIC | TFA_STANDOUT | TFA_DIM, "without mono:, monochrome uses the same");
		ok(!t->style[role_index("tool")].set, "a role the file does not name is unset");
		is_int(themefile_missing(t), role_index("reference"), "themefile_missing names the first unset role");
	}
	themefile_free(t);
	free(err);
}

static void test_errors(void)
{
	char *e;
	char *bad = xasprintf("%s/bad.theme", tmpdir);
	char *want;
	e = error_of("# fine\nnormal default default\nheadr white blue bold\n");
	want = xasprintf("%s:3: unknown role 'headr'", bad);
	has_str(e, want, "unknown role: file, line 3 and the word");
	free(want);
	free(e);
	e = error_of("\n\n\n\nnormal default purple\n");
	want = xasprintf("%s:5: unknown colour 'purple'", bad);
	has_str(e, want, "unknown colour: line 5");
	free(want);
	free(e);
	e = error_of("normal #12345g default\n");
	has_str(e, ":1: unknown colour '#12345g'", "bad hex colour");
	free(e);
	e = error_of("normal 256 default\n");
	has_str(e, ":1: unknown colour '256'", "a palette index above 255");
	free(e);
	e = error_of("normal default default\ntool cyan default bold blink\n");
	want = xasprintf("%s:2: unknown attribute 'blink'", bad);
	has_str(e, want, "unknown attribute: line 2");
	free(want);
	free(e);
	e = error_of("normal default\n");
	has_str(e, ":1: role normal needs a foreground and a background colour", "a missing background");
	free(e);
	e = error_of("inherit nosuchtheme\n");
	has_str(e, ":1: inherit: no theme 'nosuchtheme' found", "inherit of a theme that is not there");
	free(e);
	e = error_of("normal default default\ninherit default\n");
	has_str(e, ":2: inherit must come before the roles", "inherit after a role");
	free(e);
	e = error_of("normal default default mono: bold mono: dim\n");
	has_str(e, ":1: mono: given twice", "mono: twice");
	free(e);
	e = error_of("inherit bad\n");
	has_str(e, "themes inherit each other in a loop", "a theme that inherits itself");
	free(e);
	e = error_of("normal default default\nhea\033]0;pwned\007der white blue\n");
	has_str(e, ":2: unknown role 'hea^[]0;pwned^Gder'", "an escape in a bad word is shown, not sent");
	free(e);
	char big[5000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	char *line = xasprintf("normal %s default\n", big);
	e = error_of(line);
	ok(strlen(e) < 300 && strstr(e, ":1: unknown colour 'xxxx") && strstr(e, "x...'"),
	   "a 5000-byte word is cut short in the message");
	free(e);
	free(line);
	struct sbuf many;
	sbuf_init(&many);
	sbuf_adds(&many, "normal default default");
	for (int i = 0; i < 30; i++)
		sbuf_adds(&many, " bold");
	e = error_of(many.s);
	has_str(e, ":1: too many words", "a line of more than 32 words");
	sbuf_free(&many);
	free(e);
	char *p = write_theme("nul.theme", "normal default default\n");
	FILE *f = fopen(p, "a");
	fputs("header", f);
	fputc(0, f);
	fputs(" red blue\n", f);
	fclose(f);
	char *err = NULL;
	const char *dirs[] = { tmpdir, NULL };
	struct themefile *t = themefile_load(p, (const char *const *)roles, nroles, dirs, &err);
	ok(!t && err && strstr(err, "not a text file"), "a file with a NUL byte is refused");
	free(err);
	free(p);
	err = NULL;
	t = themefile_load("/nonexistent/x.theme", (const char *const *)roles, nroles, dirs, &err);
	ok(!t, "a missing file does not load");
	has_str(err, "/nonexistent/x.theme: cannot read the file", "and says so with its name");
	free(err);
	free(bad);
}

static void test_inherit(void)
{
	char *err = NULL;
	char *base = write_theme("base.theme", "normal white black\nheader red blue bold\n");
	free(base);
	struct themefile *t = load_text("child.theme", "# only the header differs\ninherit base\nheader green default\n",
	                                &err);
	ok(t != NULL, "a theme inheriting a theme beside it loads%s%s", err ? ": " : "", err ? err : "");
	long h = role_index("header"), n = role_index("normal");
	if (t && h >= 0 && n >= 0) {
		ok(t->style[n].set && t->style[n].fg.value == 7 && t->style[n].bg.value == 0, "normal comes from base");
		ok(t->style[h].fg.value == 2 && t->style[h].bg.kind == TFC_DEFAULT && t->style[h].attrs == 0,
		   "header is the child's whole line, not merged");
		is_str(t->name, "child", "the name is the child's");
	}
	themefile_free(t);
	/* inherit a shipped theme through the search path, not beside the file */
	const char *dirs[] = { tmpdir, tap_path("themes"), NULL };
	char *p = write_theme("mine.theme", "inherit light\nerror bright-red default bold\n");
	t = themefile_load(p, (const char *const *)roles, nroles, dirs, &err);
	ok(t && themefile_missing(t) == nroles, "inherit light from the search path gives every role");
	themefile_free(t);
	free(p);
	/* themefile_find: a name, a path, not found */
	char *f = themefile_find("child", dirs);
	ok(f && util_ends_with(f, "/child.theme"), "a name is NAME.theme in the first directory that has it");
	free(f);
	f = themefile_find("light", dirs);
	ok(f && strstr(f, "themes/light.theme"), "a name not in the first directory is looked up in the next");
	free(f);
	ok(themefile_find("../child", dirs) == NULL, "a name with a directory is a path, not looked up");
	ok(themefile_find("nosuch", dirs) == NULL, "an unknown name is not found");
	char **names = themefile_names(dirs);
	int seen_light = 0, seen_child = 0, sorted = 1;
	size_t k = 0;
	for (; names[k]; k++) {
		seen_light += !strcmp(names[k], "light");
		seen_child += !strcmp(names[k], "child");
		if (k && strcmp(names[k - 1], names[k]) >= 0)
			sorted = 0;
	}
	ok(seen_light == 1 && seen_child == 1 && sorted, "themefile_names: both directories, sorted, no duplicates");
	themefile_names_free(names);
}

static void test_colours(void)
{
	struct themefile_colour c;
	is_int(themefile_rgb_to_256(0xff0000), 196, "#ff0000 is 196 in 256 colours");
	is_int(themefile_rgb_to_256(0x00ff00), 46, "#00ff00 is 46");
	is_int(themefile_rgb_to_256(0x005f87), 24, "#005f87 is cube colour 24 exactly");
	is_int(themefile_rgb_to_256(0x808080), 244, "#808080 is on the grey ramp (244), not the cube");
	is_int(themefile_rgb_to_256(0x303030), 236, "#303030 is grey 236");
	is_int(themefile_rgb_to_256(0x000000), 16, "#000000 is cube black 16");
	is_int(themefile_rgb_to_256(0xffffff), 231, "#ffffff is cube white 231");
	is_int(themefile_rgb_to_basic(0xff0000, 8), 1, "#ff0000 is red in 8 colours");
	is_int(themefile_rgb_to_basic(0x005f00, 8), 2, "#005f00 is green in 8 colours");
	is_int(themefile_rgb_to_basic(0xff0000, 16), 9, "#ff0000 is bright red in 16");
	is_int(themefile_rgb_to_basic(0x5f87ff, 16), 12, "#5f87ff is bright blue in 16");
	is_int(themefile_rgb_to_basic(0x303030, 8), 0, "#303030 is black in 8 colours");
	is_int(themefile_rgb_to_basic(0x808080, 16), 8, "#808080 is bright black (grey) in 16");
	is_int(themefile_rgb_to_basic(0x875f00, 8), 3, "#875f00 (brown) is yellow in 8");
	is_int(themefile_index_rgb(196), 0xff0000, "index 196 is #ff0000");
	is_int(themefile_index_rgb(244), 0x808080, "index 244 is #808080");
	is_int(themefile_index_rgb(9), 0xff0000, "index 9 is xterm's bright red");
	/* themefile_map: one colour on each depth */
	themefile_parse_colour("#ff0000", &c);
	is_int(themefile_map(&c, 256), 196, "map #ff0000 on 256 colours");
	is_int(themefile_map(&c, 8), 1, "map #ff0000 on 8 colours");
	is_int(themefile_map(&c, 1L << 24), 0xff0000, "map #ff0000 on direct colour");
	themefile_parse_colour("#000000", &c);
	is_int(themefile_map(&c, 1L << 24), 8, "direct colour: near-black is kept out of the 8 basic numbers");
	themefile_parse_colour("244", &c);
	is_int(themefile_map(&c, 256), 244, "index 244 stays on 256 colours");
	is_int(themefile_map(&c, 8), 7, "index 244 is white on 8 colours");
	themefile_parse_colour("bright-cyan", &c);
	is_int(themefile_map(&c, 16), 14, "bright-cyan on 16 colours");
	is_int(themefile_map(&c, 8), 6, "bright-cyan is cyan on 8 colours");
	is_int(themefile_map(&c, 256), 14, "bright-cyan is 14 on 256 colours");
	themefile_parse_colour("default", &c);
	is_int(themefile_map(&c, 256), -1, "default is -1 (the terminal's)");
	ok(themefile_parse_colour("#ABCDEF", &c) && c.value == 0xabcdef, "hex digits in either case");
	ok(!themefile_parse_colour("bright-default", &c) && !themefile_parse_colour("#fff", &c) &&
	   !themefile_parse_colour("-1", &c) && !themefile_parse_colour("", &c),
	   "bright-default, #fff, -1 and nothing are not colours");
	is_int(themefile_parse_attr("underline"), TFA_UNDERLINE, "underline");
	is_int(themefile_parse_attr("blink"), 0, "blink is not an attribute");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	read_roles();
	ok(nroles >= 30 && role_index("normal") == 0 && role_index("diff-add") > 0,
	   "ui/theme.h's THEME_ROLES read (%zu roles)", nroles);
	test_shipped();
	test_syntax();
	test_errors();
	test_inherit();
	test_colours();
	char *cmd = xasprintf("rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		printf("# could not remove %s\n", tmpdir);
	free(cmd);
	for (size_t i = 0; i < nroles; i++)
		free(roles[i]);
	return tap_done();
}
