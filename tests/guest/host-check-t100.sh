#!/bin/sh
# host-check-t100.sh BIN - t100's groups on the host's local filesystem, the
# reference semantics: every check must pass or skip there.  No NFS and no
# mount: coherence (it needs a second NFS mount) runs only with
# LAB_NFS_SERVER unset, where it must skip the whole group without mounting.
# Called by `make check`; exit 0 when all of that holds.
set -u
bin=${1:-bin}
dir=$(mktemp -d "${TMPDIR:-/tmp}/lab-t100.XXXXXX") || exit 1
trap 'rm -rf "$dir" "$dir.out"' EXIT
rc=0

# run GROUP: the program's output, and its exit code in $st
run() {
	env -u LAB_NFS_SERVER -u LAB_NFS_VERS -u LAB_NFS_EXPORT -u LAB_BOUND \
		LAB_KMSG=0 LAB_NFS_DIR="$dir" LAB_INTEROP_GROUP="$1" \
		LAB_INTEROP_MIB=8 LAB_INTEROP_SERVER=host-local \
		"$bin/t100-nfs-interop-suite" >"$dir.out" 2>&1
	st=$?
	cat "$dir.out"
}

echo "# t100 on $dir ($(stat -f -c %T "$dir"))"
for g in basic general special lock features; do
	run "$g"
	if [ "$st" -ne 0 ] && [ "$st" -ne 4 ]; then
		echo "# t100 $g: exit $st: a check failed on a local filesystem"
		rc=1
	elif ! grep -q "^# interop: group=$g .* fail=0 " "$dir.out"; then
		echo "# t100 $g: no '# interop: ... fail=0' line"
		rc=1
	fi
done
run coherence
if [ "$st" -ne 4 ] || ! grep -q "^# interop: group=coherence .* pass=0 fail=0 " "$dir.out"; then
	echo "# t100 coherence: expected the group to skip without LAB_NFS_SERVER, got exit $st"
	rc=1
fi
rm -f "$dir.out"
[ "$(ls -A "$dir")" = "" ] || { echo "# t100 left files behind in $dir"; rc=1; }
echo "# t100 host check: $([ $rc -eq 0 ] && echo ok || echo FAILED)"
exit $rc
