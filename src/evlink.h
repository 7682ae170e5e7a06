/* evlink.h: a reference to one event of a run, to cite or share: RUN@N
 * (what `kbtui RUN@N` opens, N from 1) and the OSC 52 sequence that puts
 * it on the terminal's clipboard (xterm, tmux with set-clipboard, kitty,
 * iTerm2, WezTerm; a terminal without it ignores the sequence). */
#ifndef KB_EVLINK_H
#define KB_EVLINK_H

#include <stddef.h>

/* "RUN_ID@N" for event ev (from 0); owned. NULL run_id: "@N". */
char *evlink_ref(const char *run_id, size_t ev);
/* ESC ] 52 ; c ; BASE64(text) BEL, owned: written to the terminal as is
 * (text is base64-encoded, so nothing in it reaches the terminal raw). */
char *evlink_osc52(const char *text);
/* Standard base64 (RFC 4648, padded) of n bytes; owned. */
char *evlink_base64(const void *p, size_t n);

#endif
