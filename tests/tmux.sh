# tmux.sh: sourced by the terminal tests. kbtui runs in a tmux pane, keys
# go in with send-keys, the screen comes back with capture-pane. Every wait
# is bounded: KB_WAIT tenths of a second (default 80).
# Gives: $kb, $tmp (removed at exit), t NAME EXPR (one TAP assertion),
# tm (tmux on a private socket), start, cap, wait_for, wait_gone, keys, has,
# line, $scr (the last captured screen), $esc, $colour_sgr; the caller
# prints "1..$n" and exits $fail at the end.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
# a failed check shows the screen it last looked at (a flake is read from
# the log, not guessed at)
t() {
	n=$((n+1))
	if eval "$2"; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		fail=1
		[ -f "$scr" ] && sed 's/^/#   | /' "$scr"
	fi
}

if ! command -v tmux > /dev/null 2>&1; then
	echo "1..0 # SKIP tmux is not installed"
	echo "# SKIP tmux is not installed"
	exit 0
fi

sock="kbtui-test-$$"
tm() { tmux -L "$sock" -f /dev/null "$@"; }
tmp=$(mktemp -d)
# caches (flags, search text) under the test's directory, not the user's
export XDG_CACHE_HOME="$tmp/cache"
trap 'tm kill-server > /dev/null 2>&1; rm -rf "$tmp"' EXIT
# one idle session for the whole test keeps the tmux server up between the
# sessions below (a server that exits as the next one starts is a race)
tm new-session -d -s keep "sleep 600" 2> /dev/null

# ---- helpers --------------------------------------------------------------
scr="$tmp/screen"
# start NAME [VAR=value...] KBTUI ARGS: a fresh 160x45 session; stderr kept
# in $tmp/NAME.err, the exit status printed when kbtui ends
start() {
	name=$1; shift
	tm new-session -d -s "$name" -x 160 -y 45 \
		"env -u NO_COLOR $* 2> '$tmp/$name.err'; echo \"kbtui exited: \$?\"; sleep 30" 2> /dev/null
}
cap() { tm capture-pane -p -t "$1" > "$scr" 2> /dev/null; }
# waits until the screen of session $1 matches the grep -E pattern $2
# (and every further pattern: curses may be caught halfway through a redraw,
# so a test waits for all it will look at)
wait_for() {
	ws=$1; shift
	i=0
	while [ $i -lt "${KB_WAIT:-80}" ]; do
		cap "$ws"
		wa=1
		for wp in "$@"; do
			grep -qE -- "$wp" "$scr" || { wa=0; break; }
		done
		[ $wa = 1 ] && settled "$ws" "$@" && return 0
		sleep 0.1; i=$((i+1))
	done
	return 1
}
# a screen that matched may still be mid-redraw (the header drawn, the rows
# not yet): it counts once two captures 50 ms apart agree, or, for screens
# that keep changing (a clock, a live feed), after a few tries; it must
# still match every pattern
settled() {
	ss=$1; shift
	sj=0
	while [ $sj -lt 4 ]; do
		cp "$scr" "$scr.prev"
		sleep 0.05
		cap "$ss"
		cmp -s "$scr" "$scr.prev" && break
		sj=$((sj+1))
	done
	for sp in "$@"; do
		grep -qE -- "$sp" "$scr" || return 1
	done
	return 0
}
keys() { s=$1; shift; tm send-keys -t "$s" "$@"; }
# waits until the screen of session $1 no longer matches $2
wait_gone() {
	i=0
	while [ $i -lt "${KB_WAIT:-80}" ]; do
		cap "$1"
		grep -qE -- "$2" "$scr" || return 0
		sleep 0.1; i=$((i+1))
	done
	return 1
}
has() { grep -qE -- "$1" "$scr"; }
line() { sed -n "$1p" "$scr"; }
esc=$(printf '\033')
colour_sgr="$esc\\[([0-9]+;)*(3[0-7]|4[0-7])(;[0-9]+)*m"

