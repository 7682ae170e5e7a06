#!/bin/sh
# modcycles.sh [SRCDIR]: the include cycles among the modules of src/ and
# ui/, one a line, the modules of each sorted and joined by spaces; nothing
# when there is none. A module is foo.c and foo.h together (foo_int.h is a
# module of its own); foo depends on bar when foo.c or foo.h includes
# "bar.h". A cycle is a set of modules each of which depends, through the
# others, on all of them.
top=${1:-.}
for f in "$top"/src/*.[ch] "$top"/ui/*.[ch]; do
	[ -f "$f" ] || continue
	m=$(basename "$f"); m=${m%.?}
	sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"/]*\)\.h".*/\1/p' "$f" | while read -r h; do
		if [ "$h" != "$m" ] && { [ -f "$top/src/$h.h" ] || [ -f "$top/ui/$h.h" ]; }; then
			echo "$m $h"
		fi
	done
done | sort -u | awk '
	{ adj[$1] = adj[$1] " " $2; node[$1] = 1; node[$2] = 1 }
	# reach[v, u]: v depends on u, directly or through others
	function walk(v,    stack, n, u, k, nb, a) {
		n = 0; stack[++n] = v
		while (n > 0) {
			u = stack[n--]
			k = split(adj[u], a, " ")
			for (nb = 1; nb <= k; nb++)
				if (!((v, a[nb]) in reach)) { reach[v, a[nb]] = 1; stack[++n] = a[nb] }
		}
	}
	END {
		for (v in node) walk(v)
		for (v in node) {
			if (!((v, v) in reach) || (v in done)) continue
			line = ""
			for (u in node)
				if ((v, u) in reach && (u, v) in reach) { done[u] = 1; line = line " " u }
			print substr(line, 2)
		}
	}' | while read -r line; do
	printf '%s\n' $line | sort | tr '\n' ' ' | sed 's/ $//'
	echo
done | sort
