/* cmd_screen.h: the options every command with a screen takes (--format,
 * --theme, --no-mouse), parsed and applied before the screen starts. */
#ifndef KB_CMD_SCREEN_H
#define KB_CMD_SCREEN_H

#include <stdio.h>

struct cmd_screen {
	const char *format;   /* -f, --format: NULL to sniff */
	const char *theme;    /* --theme: NULL for $KBTUI_THEME or default */
	int no_mouse;         /* --no-mouse */
};

/* The "  --opt  text" lines of these options, for a command's --help. */
#define CMD_SCREEN_HELP \
	"  -f, --format FMT  read transcripts as FMT instead of sniffing the content\n" \
	"  --theme NAME|PATH  the colour theme (kbtui-theme(5)); default $KBTUI_THEME,\n" \
	"                  else default\n" \
	"  --no-mouse      no mouse: clicks and the wheel go to the terminal\n"

/* Parses argv (argv[0] the command's name) for these options only; the
 * other arguments are left in argv[*first..argc). -1 when it parsed, else
 * the exit status of a usage error (said on err). */
int cmd_screen_parse(int argc, char **argv, const char *name, struct cmd_screen *s, int *first, FILE *err);
/* The theme and the mouse set (a bad theme file is reported here, not on
 * a half-drawn screen). -1 to go on, else the exit status. */
int cmd_screen_prepare(const struct cmd_screen *s, FILE *err);

#endif
