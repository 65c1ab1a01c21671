#!/usr/bin/env bash
# `make valgrind`: lab's commands that read files (report, compare, and
# topology loading of topologies/*.ini and the corpus) under memcheck. A
# step passes when lab exits as it should and valgrind counts no error and
# no definite leak. lab's own exit 1 (report: rows that fall short) cannot
# be told from valgrind's --error-exitcode=1, so the log's summary decides.
set -u
cd "$(dirname "$0")/.." || exit 2
tmp=$(mktemp -d /tmp/lab-valgrind.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
# an empty LAB_HOME: nothing here may need a build or a guest
export LAB_HOME=$tmp/home LAB_SRC=$PWD LAB_INSTANCE=valgrind
# GLib's slice allocator hides frees from memcheck
export G_SLICE=always-malloc G_DEBUG=gc-friendly
mkdir -p "$LAB_HOME"
fail=0 n=0

# vg NAME RCS ARGS...: run ./lab ARGS under memcheck; RCS: allowed exits
vg() {
	local name=$1 rcs=$2 log rc
	shift 2
	n=$((n + 1))
	log=$tmp/$n.log
	valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite \
		--log-file="$log" ./lab "$@" >"$tmp/$n.out" 2>&1
	rc=$?
	if grep -q 'ERROR SUMMARY: 0 errors' "$log" && [[ " $rcs " == *" $rc "* ]]; then
		echo "ok $n - valgrind: $name (exit $rc)"
	else
		fail=$((fail + 1))
		echo "not ok $n - valgrind: $name (exit $rc, want $rcs)"
		grep -E '^==[0-9]+== .' "$log" |
			grep -vE 'Memcheck, a|Copyright|Using Valgrind|Command:|Parent PID' |
			head -n 60 | sed 's/^/#   /'
		tail -n 5 "$tmp/$n.out" | sed 's/^/#   /'
	fi
}

runs=(tests/unit/runs/baseline tests/unit/runs/patched)
vg "lab report OUT BASELINE PATCHED" "0 1" report "$tmp/report" "${runs[@]}"
vg "lab compare BASELINE PATCHED" "0" compare "${runs[@]}"
vg "lab report of crafted results (<script> in every string)" "0 1" report \
	"$tmp/script" tests/corpus/results/ok-script.json tests/corpus/results/ok-unicode.json
vg "lab compare of a malformed results file" "1 2" compare \
	tests/corpus/results/exit-code-fraction.json "${runs[1]}"
vg "lab check-topology topologies/*.ini" "0" check-topology topologies/*.ini
vg "lab check-topology on every corpus topology" "2" check-topology tests/corpus/topologies/*.ini
vg "lab up -t a malformed topology (exits before libvirt)" "2" up -t \
	tests/unit/topologies/duplicate-address.ini
vg "lab up -t a topology with an unknown key" "2" up -t \
	tests/corpus/topologies/unknown-key.ini
vg "lab hosts --hosts a hosts.ini with an unknown key" "2" hosts --hosts \
	tests/corpus/hosts/unknown-key.ini
echo "1..$n"
echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
