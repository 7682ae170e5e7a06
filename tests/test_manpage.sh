#!/bin/sh
# Every option and command in `kbtui --help` and each `kbtui CMD --help` is
# in man/kbtui.1, and every option the man page documents is in one of
# them; each command's summary (its entry in the command table, ui/main.c)
# opens its item in the man page's COMMANDS, as the key table's help opens
# each KEYS item.
kb="$KB_BUILDDIR/kbtui"; man="$KB_SRCDIR/man/kbtui.1"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; fi; }
help=$("$kb" --help)
# man source: "\-\-" is how roff writes "--"
mantext=$(sed 's/\\-/-/g; s/\\f[BIRP]//g' "$man")
cmds=$(printf '%s\n' "$help" | sed -n '/^Commands:/,/^$/p' | grep -oE '^  [a-z]+' | tr -d ' ')
t "help lists commands" '[ -n "$cmds" ]'
# each command's own --help, from the same table
allhelp=$help
for c in $cmds; do
	ch=$("$kb" "$c" --help 2>&1); rc=$?
	t "kbtui $c --help exits 0 with its usage" '[ $rc -eq 0 ] && printf "%s\n" "$ch" | head -1 | grep -q "^Usage: kbtui $c\\b"'
	t "kbtui help $c prints the same" '[ "$("$kb" help "$c" 2>&1)" = "$ch" ]'
	allhelp="$allhelp
$ch"
done
hopts=$(printf '%s\n' "$allhelp" | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
mopts=$(printf '%s\n' "$mantext" | grep -E '^\.(TP|B|BR|BI|IP)|^\.B' -A1 | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
t "help lists options" '[ -n "$hopts" ]'
for o in $hopts; do
	t "man page documents $o" 'printf "%s\n" "$mantext" | grep -q -- "$o"'
done
# options the man page documents in its OPTIONS section must be in a --help
sect=$(printf '%s\n' "$mantext" | sed -n '/^\.SH OPTIONS/,/^\.SH /p' | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u)
t "man page OPTIONS section is not empty" '[ -n "$sect" ]'
for o in $sect; do
	t "--help lists $o from the man page" 'printf "%s\n" "$hopts" | grep -qx -- "$o"'
done
# short options
for s in $(printf '%s\n' "$allhelp" | grep -oE '^  -[a-zA-Z](,| )' | tr -d ' ,' | sort -u); do
	t "man page documents $s" 'printf "%s\n" "$mantext" | grep -q -- "$s"'
done
# each command: in SYNOPSIS, in COMMANDS, its item opening with its summary
cmdsect=$(printf '%s\n' "$mantext" | sed -n '/^\.SH COMMANDS/,/^\.SH /p')
synsect=$(printf '%s\n' "$mantext" | sed -n '/^\.SH SYNOPSIS/,/^\.SH /p')
for c in $cmds; do
	t "man page documents command $c" 'printf "%s\n" "$cmdsect" | grep -qE "^\\.(B|BI) \"?$c"'
	t "man page SYNOPSIS has kbtui $c" 'printf "%s\n" "$synsect" | grep -qE "^\\.B kbtui $c( |\$)"'
	sum=$(printf '%s\n' "$help" | sed -n '/^Commands:/,/^$/p' | sed -n "s/^  $c  *//p" | awk '{ print toupper(substr($0, 1, 1)) substr($0, 2) }')
	first=$(printf '%s\n' "$cmdsect" | awk -v c="$c" 'tp && /^\.(B|BI) / { w = $0; sub(/^\.(B|BI) "?/, "", w); sub(/[ "].*/, "", w); if (w == c) { getline; print; exit } } { tp = /^\.TP/ }')
	t "man page COMMANDS item of $c opens with its summary ('$sum.')" '[ "$first" = "$sum." ]'
	# what follows the summary goes on from it, never says it again
	next=$(printf '%s\n' "$cmdsect" | awk -v c="$c" 'tp && /^\.(B|BI) / { w = $0; sub(/^\.(B|BI) "?/, "", w); sub(/[ "].*/, "", w); if (w == c) { getline; for (k = 0; k < 3 && (getline l) > 0; k++) { sub(/^\.[A-Z]+ /, "", l); if (l !~ /^\./) printf "%s ", l }; exit } } { tp = /^\.TP/ }' | tr -d '"' | awk '{ print $1, $2, $3 }')
	t "man page COMMANDS item of $c does not repeat its summary ('$next')" '[ "$next" != "$(printf "%s\n" "$sum" | awk "{ print \$1, \$2, \$3 }")" ]'
	# every option of the command's usage is in its SYNOPSIS lines
	syn=$(printf '%s\n' "$synsect" | awk -v c="$c" '/^\.B kbtui / { on = ($3 == c) } on' | sed 's/\\-/-/g')
	for o in $("$kb" "$c" --help | sed -n '1,/^$/p' | grep -oE -- '--[a-z][a-z0-9-]+' | sort -u); do
		t "man page SYNOPSIS of $c has $o" 'printf "%s\n" "$syn" | grep -q -- "$o" || printf "%s\n" "$syn" | grep -q "OPTIONS"'
	done
done
# the term of each .TP item in COMMANDS is a command name
# (items nested in .RS/.RE are a command's subcommands: annotations check)
mcmds=$(printf '%s\n' "$cmdsect" | awk 'tp { sub(/^\.(B|BI) "?/, ""); sub(/[ "].*/, ""); print; tp = 0 } /^\.RS/ { d++ } /^\.RE/ { d-- } /^\.TP/ { tp = !d }')
for c in $mcmds; do
	t "--help lists command $c from the man page" 'printf "%s\n" "$cmds" | grep -qx -- "$c"'
done
# formats the build reads are all documented
for f in $("$kb" formats | awk '{print $1}'); do
	t "man page documents format $f" 'printf "%s\n" "$mantext" | sed -n "/^.SH FORMATS/,/^.SH /p" | grep -qx "\\.B $f"'
done
# keys: every binding the program has is in the KEYS section, and no other
keysect=$(printf '%s\n' "$mantext" | sed -n '/^\.SH KEYS/,/^\.SH /p')
nk=0
while IFS= read -r line; do
	label=$(printf '%s' "$line" | cut -c1-15 | sed 's/ *$//')
	help=$(printf '%s' "$line" | cut -c16-)
	nk=$((nk+1))
	t "man page KEYS documents '$label'" 'printf "%s\n" "$keysect" | grep -qxF ".B $label" && printf "%s\n" "$keysect" | grep -qxF "$help."'
done <<EOK
$("$kb" keys)
EOK
mk=$(printf '%s\n' "$keysect" | grep -c '^\.TP')
t "KEYS has as many entries as the program's key table ($nk)" '[ "$mk" -eq "$nk" ]'
# environment: every KBTUI_ variable the program reads is an item of ENVIRONMENT
envsect=$(printf '%s\n' "$mantext" | sed -n '/^\.SH ENVIRONMENT/,/^\.SH [A-Z]/p')
for v in $(cat "$KB_SRCDIR"/src/*.c "$KB_SRCDIR"/ui/*.c | grep -oE 'getenv\("KBTUI_[A-Z_]+"\)' | grep -oE 'KBTUI_[A-Z_]+' | sort -u); do
	t "man page ENVIRONMENT documents \$$v, which the program reads" 'printf "%s\n" "$envsect" | grep -qx "\.B $v"'
done
echo "1..$n"
exit $fail
