#!/bin/sh
# An installed kbtui reads its installed data only, never the build tree it
# came from: `make install DESTDIR=...`, then the copy under DESTDIR finds
# nothing at the configured pkgdatadir (it is not there: DESTDIR) and says
# so, and with KBTUI_DATADIR pointing at the installed data it works.
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
if [ ! -f "$KB_BUILDDIR/Makefile" ] || ! command -v "${MAKE:-make}" > /dev/null 2>&1; then
	echo "1..0 # SKIP no build directory with a Makefile"; echo "# SKIP no build directory with a Makefile"; exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
dest="$tmp/dest"
# a make of its own (not the one running the tests), quiet
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${MAKE:-make}" -s -C "$KB_BUILDDIR" install DESTDIR="$dest" > "$tmp/install.log" 2>&1; rc=$?
t "make install DESTDIR=... succeeds" '[ $rc -eq 0 ]' || sed 's/^/# /' "$tmp/install.log" | tail -20
kb=$(find "$dest" -type f -name kbtui -perm -u+x | head -1)
rules=$(find "$dest" -type f -name flags.rules | head -1)
t "the program and its data are installed under DESTDIR" '[ -n "$kb" ] && [ -n "$rules" ]'
data=${rules%/data/flags.rules}
src=$(cd "$KB_SRCDIR" && pwd -P)
# whether the files name a path of the source tree (spelled any way: the
# build's own paths may be ../.. ones); paths that do not exist are not
reads_src() {
	for p in $(cat "$@" | grep -oE '/[^ :()]*(data|problems|themes)[^ :()]*' | sort -u); do
		d=$p; [ -d "$d" ] || d=$(dirname "$p")
		[ -d "$d" ] || continue
		case "$(cd "$d" && pwd -P)/" in "$src"/*) return 0 ;; esac
	done
	return 1
}
run() { (cd "$tmp" && env -u KBTUI_DATADIR -u KB_SRCDIR -u KBTUI_DATA -u KBTUI_FLAGS XDG_DATA_HOME="$tmp/xdg" "$@"); }

# no override: the installed path only, which (under DESTDIR) is empty
run "$kb" runs > "$tmp/out" 2> "$tmp/err"; rc=$?
t "installed, without KBTUI_DATADIR: runs does not read the checkout's sample" '! reads_src "$tmp/out" "$tmp/err"'
if [ -d "${data#$dest}" ]; then
	echo "# SKIP ${data#$dest} exists on this machine: the installed default is real"
else
	t "... it fails, naming the installed path it looked in" '[ $rc -ne 0 ] && grep -qF "${data#$dest}" "$tmp/err"'
fi
run "$kb" flags --json > "$tmp/out" 2> "$tmp/err"
t "... nor the checkout's flag rules" '! reads_src "$tmp/out" "$tmp/err"'

# the override: the installed data under DESTDIR
run env KBTUI_DATADIR="$data" "$kb" runs > "$tmp/out" 2> "$tmp/err"; rc=$?
t "with KBTUI_DATADIR: the installed sample, listed" '[ $rc -eq 0 ] && grep -q "paged_attention" "$tmp/out"'
t "... named on stderr as the installed copy" 'grep -qF "kbtui: dataset: $data/data/sample" "$tmp/err"'
run env KBTUI_DATADIR="$data" "$kb" flags > "$tmp/out" 2> "$tmp/err"; rc=$?
t "... and the installed flag rules and problems work" '[ $rc -eq 0 ] && ! reads_src "$tmp/out" "$tmp/err"'

# the build's own, uninstalled program still reads its source tree
(cd "$tmp" && env -u KBTUI_DATADIR -u KBTUI_DATA XDG_DATA_HOME="$tmp/xdg" "$KB_BUILDDIR/kbtui" runs > "$tmp/out" 2> "$tmp/err"); rc=$?
t "the uninstalled build reads the source tree's sample" '[ $rc -eq 0 ] && grep -q "^kbtui: dataset: .*/data/sample " "$tmp/err" && reads_src "$tmp/err"'

echo "1..$n"
exit $fail
