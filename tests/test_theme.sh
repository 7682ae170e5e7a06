#!/bin/sh
# Themes, colour depth, NO_COLOR, the mouse and a too-small terminal, as a
# person sees them: kbtui runs in a tmux pane, the screen comes back with
# its escape sequences (capture-pane -e) and is checked for the colours a
# theme asks for on each kind of terminal (helpers in tests/tmux.sh).
. "$KB_SRCDIR/tests/tmux.sh"

# ---- a small dataset and themes of our own ------------------------------------
ds="$tmp/ds"
mkdir -p "$ds/runs/alpha" "$tmp/config/kbtui/themes"
{
	printf '{"type":"thought","data":"Read the reference first.'
	i=2; while [ $i -le 80 ]; do printf '\\nnote line %d' $i; i=$((i+1)); done
	printf '"}\n'
	printf '%s\n' '{"type":"text","data":"Plan: tile the GEMM."}' \
		'{"type":"thought","data":"Check the shapes."}' \
		'{"type":"text","data":"Writing solution.py now."}' \
		'{"type":"error","data":"rate limited by the provider"}' \
		'{"type":"text","data":"Done: solution.py holds a tiled kernel."}' \
		'{"type":"end","sessionId":"sess-a","stopReason":"EndTurn"}'
} > "$ds/runs/alpha/transcript.jsonl"
for r in "0 alpha 01_fp8_gemm 0.25" "1 beta 02_kda_cutlass 0.1" "2 gamma 03_paged_attention 0.75" "3 delta 05_topk_bitonic 0.5"; do
	set -- $r
	printf '{"run_id":"run%s_%s","harness":"grok","model":"%s-model","problem":"%s","correct":true,"peak_fraction":%s,"format":"grok","transcript":"runs/alpha/transcript.jsonl"}\n' \
		"$1" "$2" "$2" "$3" "$4"
done > "$ds/runs.jsonl"
# a theme of the user's: found by name in $XDG_CONFIG_HOME/kbtui/themes,
# inheriting a shipped one through the search path
cat > "$tmp/config/kbtui/themes/zz-mine.theme" <<'EOF'
# red on dark green headers, the rest as default
inherit default
header  #ff0000  #005f00  bold   mono: reverse
EOF
# a theme with a mistake on line 3
printf '# fine\nnormal default default\nheader white purple bold\n' > "$tmp/bad.theme"

env="XDG_CONFIG_HOME=$tmp/config KB_SRCDIR=$KB_SRCDIR"
# the colour escapes of a whole screen, one per line, sorted
sgrs() { grep -oE "$esc\\[[0-9;]*m" "$1" | sort -u; }
ecap() { tm capture-pane -e -p -t "$1" > "$2" 2> /dev/null; }
# mouse reports as an xterm sends them (SGR, 1006): press and release
click() { tm send-keys -t "$1" -l "$(printf '\033[<0;%d;%dM\033[<0;%d;%dm' "$2" "$3" "$2" "$3")"; }
wheel() { b=64; [ "$2" = down ] && b=65; tm send-keys -t "$1" -l "$(printf '\033[<%d;%d;%dM' $b "$3" "$4")"; }
bg_sgr() { grep -qE "$esc\\[([0-9]+;)*$2(;[0-9]+)*m" "$1"; }

# ---- one screen in different themes ---------------------------------------------
start d $env TERM=xterm-256color "$kb" --theme default "$ds"
wait_for d "run 1/4" > /dev/null
ecap d "$tmp/default"
start l $env TERM=xterm-256color "$kb" --theme light "$ds"
wait_for l "run 1/4" > /dev/null
ecap l "$tmp/light"
t "default: header bold white on blue (37, 44)" 'head -1 "$tmp/default" | grep -qE "${esc}\\[37m${esc}\\[44m"'
t "light: header white on colour 24 (#005f87 in 256 colours)" 'head -1 "$tmp/light" | grep -qF "${esc}[38;5;231m${esc}[48;5;24m"'
for f in default light; do
	sed "s/$esc\\[[0-9;]*m//g" "$tmp/$f" > "$tmp/$f.text"
	sgrs "$tmp/$f" > "$tmp/$f.sgr"
done
t "light and default draw the same text" 'cmp -s "$tmp/default.text" "$tmp/light.text" && grep -q "run 1/4" "$tmp/light.text"'
t "... with different colour escapes" '! cmp -s "$tmp/default.sgr" "$tmp/light.sgr"'

start m $env TERM=xterm-256color "$kb" --theme mono "$ds"
wait_for m "run 1/4" > /dev/null
ecap m "$tmp/mono"
t "mono: no colour escape on a 256-colour terminal" '! grep -qE "$colour_sgr|[34]8;5;" "$tmp/mono"'
t "mono: the header and the selection are in reverse video" 'head -1 "$tmp/mono" | grep -qE "${esc}\\[1;7m" && sed -n 4p "$tmp/mono" | grep -qE "${esc}\\[([0-9]+;)*7m"'

start n $env NO_COLOR=1 TERM=xterm-256color "$kb" --theme light "$ds"
wait_for n "run 1/4" > /dev/null
ecap n "$tmp/nocolor"
t "NO_COLOR=1 beats --theme light: no colour escape" '! grep -qE "$colour_sgr|[34]8;5;" "$tmp/nocolor"'
t "NO_COLOR: light's monochrome attributes (header reverse bold)" 'head -1 "$tmp/nocolor" | grep -qE "${esc}\\[1;7m"'
start e $env KBTUI_THEME=mono TERM=xterm-256color "$kb" "$ds"
wait_for e "run 1/4" > /dev/null
ecap e "$tmp/env"
t "KBTUI_THEME=mono chooses the theme without --theme" '! grep -qE "$colour_sgr|[34]8;5;" "$tmp/env" && head -1 "$tmp/env" | grep -qE "${esc}\\[1;7m"'

# ---- colour depth: one theme on 256, 8 and direct-colour terminals -----------------
start u $env TERM=xterm-256color "$kb" --theme zz-mine "$ds"
wait_for u "run 1/4" > /dev/null
ecap u "$tmp/u256"
t "a theme in \$XDG_CONFIG_HOME/kbtui/themes is found by name" 'head -1 "$tmp/u256" | grep -q "kbtui"'
t "256 colours: #ff0000 on #005f00 is 38;5;196 on 48;5;22" 'head -1 "$tmp/u256" | grep -qF "${esc}[38;5;196m${esc}[48;5;22m"'
t "the roles it does not give come from default (status black on white)" 'tail -1 "$tmp/u256" | grep -qE "${esc}\\[30m${esc}\\[47m"'
start u8 $env TERM=xterm "$kb" --theme zz-mine "$ds"
wait_for u8 "run 1/4" > /dev/null
ecap u8 "$tmp/u8"
t "8 colours (TERM=xterm): the same header is red on green (31, 42)" 'head -1 "$tmp/u8" | grep -qE "${esc}\\[31m${esc}\\[42m"'
t "8 colours: no 256-colour escape anywhere" '! grep -qE "[34]8;5;" "$tmp/u8"'
start us $env TERM=screen "$kb" --theme light "$ds"
wait_for us "run 1/4" > /dev/null
ecap us "$tmp/us"
t "TERM=screen: light's #005f87 header is cyan (46), no 256-colour escape" 'head -1 "$tmp/us" | grep -qE "${esc}\\[46m" && ! grep -qE "[34]8;5;" "$tmp/us"'
# direct colour: a terminfo entry with 24-bit colour, compiled here
if command -v tic > /dev/null 2>&1 && {
	printf '%s\n' 'kbtest-direct|xterm with direct colour for kbtui tests,' \
		'	colors#0x1000000, pairs#0x10000, RGB,' \
		'	setab=\E[%?%p1%{8}%<%t4%p1%d%e48:2::%p1%{65536}%/%d:%p1%{256}%/%{255}%&%d:%p1%{255}%&%d%;m,' \
		'	setaf=\E[%?%p1%{8}%<%t3%p1%d%e38:2::%p1%{65536}%/%d:%p1%{256}%/%{255}%&%d:%p1%{255}%&%d%;m,' \
		'	use=xterm-256color,' > "$tmp/direct.ti"
	tic -x -o "$tmp/terminfo" "$tmp/direct.ti" 2> /dev/null; }; then
	start ud $env TERMINFO="$tmp/terminfo" TERM=kbtest-direct "$kb" --theme zz-mine "$ds"
	wait_for ud "run 1/4" > /dev/null
	ecap ud "$tmp/ud"
	t "direct colour: #ff0000 on #005f00 exactly (38;2;255;0;0, 48;2;0;95;0)" 'head -1 "$tmp/ud" | grep -qF "${esc}[38;2;255;0;0m${esc}[48;2;0;95;0m"'
else
	echo "# SKIP direct colour: no tic to compile a terminfo entry"
fi

# ---- Ctrl-T -------------------------------------------------------------------------
keys d C-t
t "Ctrl-T in the browser: the next theme by name, said in the status bar" 'wait_for d "theme: high-contrast"'
ecap d "$tmp/hc"
t "... and the screen is redrawn in it (the list on black, 40)" 'sed -n 5p "$tmp/hc" | grep -qE "${esc}\\[40m"'
keys d C-t
t "Ctrl-T again: light" 'wait_for d "theme: light"'
keys d C-t C-t
t "after mono comes the user's own theme" 'wait_for d "theme: zz-mine"'
keys d C-t
t "and then default again" 'wait_for d "theme: default"'
keys d Enter
wait_for d "event 1/6" > /dev/null
keys d C-t
t "Ctrl-T in the replay says the name too" 'wait_for d "theme: high-contrast" && has "event 1/6"'
ecap d "$tmp/hcr"
t "... and the replay is redrawn in it" 'grep -qE "${esc}\\[40m" "$tmp/hcr"'

# ---- a bad theme ---------------------------------------------------------------------
"$kb" --theme "$tmp/bad.theme" "$ds" < /dev/null > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a bad theme file: exit 1" '[ $rc -eq 1 ]'
t "... naming file, line and the mistake on stderr" 'grep -qF "kbtui: $tmp/bad.theme:3: unknown colour '"'"'purple'"'"'" "$tmp/err"'
start bad $env TERM=xterm-256color "$kb" --theme "$tmp/bad.theme" "$ds"
t "on a terminal too: exit 1 before the screen starts" 'wait_for bad "kbtui exited: 1" && ! has "run 1/4" && grep -q "bad.theme:3:" "$tmp/bad.err"'
env XDG_CONFIG_HOME="$tmp/config" "$kb" --theme nosuch "$ds" < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "an unknown theme name: exit 1, 'not found'" '[ $rc -eq 1 ] && grep -q "theme .nosuch. not found" "$tmp/err"'
env XDG_CONFIG_HOME="$tmp/config" KBTUI_THEME=nosuch "$kb" "$ds" < /dev/null > /dev/null 2> "$tmp/err"; rc=$?
t "a bad \$KBTUI_THEME: exit 1 too" '[ $rc -eq 1 ] && grep -q "nosuch" "$tmp/err"'

# ---- the mouse -------------------------------------------------------------------------
flags() { tm display -p -t "$1" '#{mouse_standard_flag}#{mouse_sgr_flag}'; }
t "kbtui asks the terminal for mouse reports (SGR)" '[ "$(flags l)" = 11 ]'
start nm $env TERM=xterm-256color "$kb" --no-mouse "$ds"
wait_for nm "run 1/4" > /dev/null
t "--no-mouse: it does not" '[ "$(flags nm)" = 00 ]'
# the browser list: rows start on screen row 4 (1-based)
click l 10 6
t "a click selects the run under it" 'wait_for l "run 3/4" && line 6 | grep -q gamma-model'
wheel l down 10 6
t "the wheel moves the selection down, 3 rows a step" 'wait_for l "run 4/4"'
wheel l up 10 6
t "... and up" 'wait_for l "run 1/4"'
keys l v
wait_for l "Enter replay  v list" > /dev/null
row=$(grep -n "gamma-model" "$scr" | head -1 | cut -d: -f1)
col=$(line 3 | awk '{ print index($0, "03_paged") }')
click l $((col + 2)) "$row"
t "a click in the grid selects that cell" 'wait_for l "gamma-model x 03_paged_attention: correct"'
col1=$(line 3 | awk '{ print index($0, "01_fp8") }')
click l $((col1 + 2)) "$row"
t "an empty cell too" 'wait_for l "gamma-model x 01_fp8_gemm: no run"'
keys l v
wait_for l "run 3/4" > /dev/null
keys l g Enter
t "the replay opens" 'wait_for l "event 1/6" "1-[0-9]+/8[0-9]"'
# the event list: its header on row 2, event i on row 2 + i
click l 5 5
t "a click in the event list selects that event" 'wait_for l "event 3/6"'
wheel l down 5 5
t "the wheel over the list moves through the events" 'wait_for l "event 6/6"'
wheel l up 5 5
wheel l up 5 5
keys l g
wait_for l "event 1/6" "1-[0-9]+/8[0-9]" > /dev/null
wheel l down 120 10
t "the wheel over the pane beside the list scrolls that pane" 'wait_for l "event 1/6" "4-[0-9]+/8[0-9]"'
click l 120 10
keys l j
t "a click in that pane gives it the focus: j scrolls it, not the list" 'wait_for l "5-[0-9]+/8[0-9]" && has "event 1/6"'
click l 5 7
t "a click in the list selects there" 'wait_for l "event 5/6"'
keys l j
t "... and takes the focus back: j moves to the next event" 'wait_for l "event 6/6"'

# ---- a terminal too small --------------------------------------------------------------
start s $env TERM=xterm-256color "$kb" "$ds"
wait_for s "run 1/4" > /dev/null
tm resize-window -t s -x 20 -y 5
t "browser: a terminal too small says so" 'wait_for s "terminal too small" && ! has "run 1/4"'
tm resize-window -t s -x 160 -y 45
t "... and the browser comes back when it is large again" 'wait_for s "run 1/4" "MODEL +PROBLEM" && ! has "too small"'
keys s Enter
wait_for s "event 1/6" > /dev/null
tm resize-window -t s -x 100 -y 4
t "replay: a terminal too small says so" 'wait_for s "terminal too small" && ! has "event 1/6"'
tm resize-window -t s -x 160 -y 45
t "... and the replay comes back" 'wait_for s "event 1/6" "Read the reference" && ! has "too small"'

# ---- leaving ----------------------------------------------------------------------------
keys l q
wait_for l "run [0-9]/4" > /dev/null
keys l q
keys d q
wait_for d "run [0-9]/4" > /dev/null
keys d q
t "after mouse and theme changes kbtui quits with status 0" 'wait_for l "kbtui exited: 0" && wait_for d "kbtui exited: 0"'
t "... with nothing on stderr (sanitizer builds: no report)" '[ ! -s "$tmp/l.err" ] && [ ! -s "$tmp/d.err" ]'

echo "1..$n"
exit $fail
