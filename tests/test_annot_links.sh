#!/bin/sh
# annotations check and agree say what they do with a symbolic link among
# the *.yaml (issue 30): one to a file inside the annotations folder is
# read and named; one that leads out of it (or nowhere) is refused, named
# with its target, and counted as unreadable (exit 1). None is skipped
# without a word.
kb="$KB_BUILDDIR/kbtui"
n=0; fail=0
t() { n=$((n+1)); if eval "$2"; then echo "ok $n - $1"; else echo "not ok $n - $1"; fail=1; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/a" "$tmp/elsewhere"
printf 'run_id: r2\nverdict: clean\n' > "$tmp/a/r2.yaml"
ln -s r2.yaml "$tmp/a/r3.yaml"
"$kb" annotations check "$tmp/a" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a link to a file inside the folder: read, named on the output, exit 0" '[ $rc -eq 0 ] && grep -q "r3.yaml: a symbolic link to .*/a/r2.yaml, inside the annotations folder: read" "$tmp/out" && [ ! -s "$tmp/err" ]'
t "the summary counts it" 'grep -q "^2 files: 0 unreadable, 0 schema errors, 0 files with messages, 1 symbolic link$" "$tmp/out"'

printf 'run_id: r1\nverdict: reward_hack\n' > "$tmp/elsewhere/r1.yaml"
ln -s ../elsewhere/r1.yaml "$tmp/a/r1.yaml"
ln -s nothing.yaml "$tmp/a/r4.yaml"
"$kb" annotations check "$tmp/a" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "a link out of the folder: refused, named with its target, exit 1" '[ $rc -eq 1 ] && grep -q "r1.yaml: a symbolic link to .*/elsewhere/r1.yaml: refused" "$tmp/err"'
t "a dangling link: refused, saying it leads nowhere" 'grep -q "r4.yaml: a symbolic link to nothing that exists: refused" "$tmp/err"'
t "both counted unreadable" 'grep -q "^4 files: 2 unreadable, 0 schema errors, 0 files with messages, 3 symbolic links$" "$tmp/out"'
mkdir -p "$tmp/b"
printf 'run_id: r1\nverdict: clean\n' > "$tmp/b/r1.yaml"
"$kb" annotations agree "$tmp/a" "$tmp/b" > "$tmp/out" 2> "$tmp/err"; rc=$?
t "agree: the link out is refused (its verdict not counted), said on stderr, exit 1" '[ $rc -eq 1 ] && grep -q "r1.yaml: a symbolic link to .*elsewhere/r1.yaml: refused" "$tmp/err" && grep -q "^runs annotated by both: 0 (only in A: 2, only in B: 1)" "$tmp/out"'
echo "1..$n"
exit $fail
