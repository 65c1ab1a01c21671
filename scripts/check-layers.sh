#!/usr/bin/env bash
# check-layers.sh - the import rules of src/ (HACKING.md, "The layers"):
# a file includes only headers of its own folder or of a lower layer, the
# pure layers (util, core) never include libvirt, and no module (a file
# stem: foo.c + foo.h) reaches itself through its includes. Prints each
# breach; exit 1 when there is one.
set -u
cd "$(dirname "$0")/.." || exit 2
declare -A rank=([util]=0 [core]=1 [build]=2 [virt]=2 [store]=3 [guests]=4 [jobs]=5 [cli]=6)
bad=0 edges=$(mktemp)
trap 'rm -f "$edges"' EXIT
for f in src/*/*.[ch]; do
	dir=${f#src/}
	layer=${dir%%/*}
	mod=${dir%.[ch]}
	[ -n "${rank[$layer]:-}" ] || { echo "$f: folder $layer is not a layer"; bad=1; continue; }
	echo "$mod $mod" >>"$edges"
	if [ "${rank[$layer]}" -le 1 ] && grep -q '#include <libvirt/' "$f"; then
		echo "$f: the $layer layer is pure: no libvirt"
		bad=1
	fi
	while read -r inc; do
		to=${inc%.h}
		tl=${to%%/*}
		[ -n "${rank[$tl]:-}" ] || { echo "$f: includes $inc outside the layers"; bad=1; continue; }
		if [ "$tl" != "$layer" ] && [ "${rank[$tl]}" -ge "${rank[$layer]}" ]; then
			echo "$f ($layer) includes $inc ($tl): only its own folder or lower layers"
			bad=1
		fi
		[ "$to" != "$mod" ] && echo "$mod $to" >>"$edges"
	done < <(sed -n 's/^#include "\([a-z_]*\/[a-z_]*\.h\)".*/\1/p' "$f")
done
if ! tsort "$edges" >/dev/null 2>"$edges.err"; then
	echo "import circles (tsort):"
	sed 's/^/  /' "$edges.err"
	bad=1
fi
rm -f "$edges.err"
n=$(sort -u "$edges" | awk '$1 != $2' | wc -l)
[ $bad -eq 0 ] && echo "layers: $(find src -name '*.[ch]' | wc -l) files, $n include edges, no breach, no import circle"
exit $bad
