#!/bin/sh
# Every page in man/ as a reader sees it: groff renders it (UTF-8 and
# ASCII, every warning on) without a warning, mandoc's lint finds no
# warning, and no alternating-font macro glues two words or a word and a
# closing parenthesis together (".BR ~ ). Runs a" renders "~).Runsa").
# Without groff or mandoc those checks skip with a message (CI installs
# both: setup-debian.sh), unless $CI is set, where they fail.
mandir="$KB_SRCDIR/man"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
skip() { n=$((n+1)); if [ -n "$CI" ]; then echo "not ok $n - $1 (CI: $2)"; fail=1; else echo "ok $n # SKIP $1: $2"; fi; }
pages=$(ls "$mandir"/*.[1-9])
t "man/ has pages" '[ -n "$pages" ]'
for p in $pages; do
	b=$(basename "$p")
	if command -v groff >/dev/null; then
		for dev in utf8 ascii; do
			w=$(groff -man -ww -z -T$dev "$p" 2>&1)
			[ -n "$w" ] && printf '# %s\n' "$w"
			t "groff -man -ww -T$dev renders $b without a warning" '[ -z "$w" ]'
		done
	else
		skip "groff renders $b" "groff is not installed"
	fi
	if command -v mandoc >/dev/null; then
		w=$(mandoc -T lint -W warning "$p" 2>&1)
		[ -n "$w" ] && printf '# %s\n' "$w"
		t "mandoc -T lint -W warning finds nothing in $b" '[ -z "$w" ]'
	else
		skip "mandoc lints $b" "mandoc is not installed"
	fi
	# .BR/.RB/.BI/.IB/.IR/.RI join their arguments without a space: a word
	# (or ")." "," ";" "!=") followed by a word is text glued together
	glued=$(awk '
	function args(line, a,    n, q, cur, i, c, st) {
		n = 0; q = 0; cur = ""; st = 0
		for (i = 1; i <= length(line); i++) {
			c = substr(line, i, 1)
			if (c == "\"") { q = !q; st = 1; continue }
			if (c == " " && !q) { if (st) { a[++n] = cur; cur = ""; st = 0 } continue }
			cur = cur c; st = 1
		}
		if (st) a[++n] = cur
		return n
	}
	/^\.(BR|RB|BI|IB|IR|RI) / {
		n = args(substr($0, 5), a)
		for (i = 1; i < n; i++) {
			x = a[i]; y = a[i + 1]
			if ((x ~ /[A-Za-z0-9]$/ || x ~ /[),;]$/ || x ~ /\)\.$/ || x == "!=") && y ~ /^[A-Za-z0-9]/)
				printf "%s:%d: %s\n", FILENAME, FNR, $0
		}
	}' "$p")
	[ -n "$glued" ] && printf '# glued: %s\n' "$glued"
	t "no alternating-font macro of $b glues two words together" '[ -z "$glued" ]'
done
# the slips a reader met, as rendered
if command -v groff >/dev/null; then
	txt=$(groff -man -Tutf8 -P-cbu "$mandir/kbtui.1" 2>/dev/null | tr -s ' \n' '  ')
	t "kbtui.1: '~).' is followed by a space" '! printf "%s" "$txt" | grep -q "~)\\.[A-Za-z]"'
	t "kbtui.1: verdict:NAME is not followed by a stray R" '! printf "%s" "$txt" | grep -q "verdict:NAMER"'
	t "kbtui.1: '(!= in ASCII themes)' keeps its space" 'printf "%s" "$txt" | grep -q "(!= in ASCII themes)"'
fi
echo "1..$n"
exit $fail
