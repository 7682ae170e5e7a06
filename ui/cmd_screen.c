/* cmd_screen.c: the options of the commands with a screen (watch, compare
 * and the browser), in one place. */
#include "cmd_screen.h"
#include "cmd.h"
#include "textsafe.h"
#include "mouse.h"
#include "parser.h"
#include "theme.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

int cmd_screen_parse(int argc, char **argv, const char *name, struct cmd_screen *s, int *first, FILE *err)
{
	enum { O_THEME = 256, O_NO_MOUSE };
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"theme", required_argument, NULL, O_THEME},
		{"no-mouse", no_argument, NULL, O_NO_MOUSE},
		{NULL, 0, NULL, 0},
	};
	int ch;
	memset(s, 0, sizeof *s);
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":f:", opts, NULL)) != -1) {
		switch (ch) {
		case 'f': s->format = optarg; break;
		case O_THEME: s->theme = optarg; break;
		case O_NO_MOUSE: s->no_mouse = 1; break;
		case ':': return cmd_usage_error(err, name, "option '%s' needs an argument", argv[optind - 1]);
		default: return cmd_unknown_option(err, name, argv[optind - 1], opts);
		}
	}
	if (s->format && !parser_find(s->format)) {
		char *f = cmd_format_unknown(s->format);
		int rc = cmd_usage_error(err, name, f, s->format);
		free(f);
		return rc;
	}
	*first = optind;
	return -1;
}

int cmd_screen_prepare(const struct cmd_screen *s, FILE *err)
{
	char *e = NULL;
	if (s->no_mouse)
		mouse_disable();
	if (theme_select(s->theme, &e) < 0) {
		textsafe_fprintf(err, "kbtui: %s\n", e);
		free(e);
		return CMD_BADINPUT;
	}
	return -1;
}
