#!/usr/bin/env bash
# bench/bench.sh - the boot figures of the saved ready state, measured on
# this machine and printed as a table with the command behind each one.
#   bench/bench.sh            smoke figures + the default topology (~5 min
#                             when nothing is saved yet, ~1 min when it is)
#   BENCH_DEFAULT=0 ...       smoke only
# Uses its own instance (LAB_INSTANCE=bench) and the lab's caches; kernels
# and image must be built (`lab build all && lab image`). Needs root and a
# running libvirtd, as `lab up` does.
set -u
cd "$(dirname "$0")/.." || exit 1
export LAB_SRC=$PWD LAB_INSTANCE=${LAB_INSTANCE:-bench}
lab=./lab
rows=()

# t CMD...: seconds the command took (its output goes to the log)
t() {
	local t0 rc
	t0=$(date +%s.%N)
	"$@" >>"$log" 2>&1
	rc=$?
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	return $rc
}

# shellcheck disable=SC2016 # the backquotes are Markdown, not a command
row() { rows+=("$(printf '| %-44s | %8.1f | `%s` |' "$1" "$2" "$3")"); }

log=$(mktemp /tmp/lab-bench.XXXXXX)
$lab down >/dev/null 2>&1

# smoke: first boot (nothing saved), then from the saved state
t $lab up -t smoke --fresh || { echo "bench: lab up failed; see $log" >&2; exit 1; }
row "smoke: first boot + save (lab up --fresh)" "$secs" "lab up -t smoke --fresh"
$lab down >/dev/null 2>&1
t $lab up -t smoke
row "smoke: up from the saved state" "$secs" "lab up -t smoke"
# a crashed guest back from the saved state
$lab exec --timeout 5 smoke -- sh -c 'echo c > /proc/sysrq-trigger' >/dev/null 2>&1
t $lab restart smoke
row "smoke: restart of a crashed guest" "$secs" "lab restart smoke (after sysrq-c)"
# another instance, on the state this one saved
t env LAB_INSTANCE="$LAB_INSTANCE-2" $lab up -t smoke
row "smoke: a second instance up (the same saved state)" "$secs" "LAB_INSTANCE=other lab up -t smoke"
env LAB_INSTANCE="$LAB_INSTANCE-2" $lab down >/dev/null 2>&1
$lab down >/dev/null 2>&1

if [ "${BENCH_DEFAULT:-1}" != 0 ]; then
	t $lab up -t default
	first=$secs
	if grep -q "booted in" "$log"; then
		row "default (4 guests): first boot + save" "$first" "lab up -t default"
	fi
	$lab down >/dev/null 2>&1
	t $lab up -t default
	row "default (4 guests): up from the saved state" "$secs" "lab up -t default"
	# another instance beside it, on the same saved state (a renamed copy
	# of each state file, no second saved state)
	t env LAB_INSTANCE="$LAB_INSTANCE-2" $lab up -t default
	row "default: a second instance up beside it" "$secs" "LAB_INSTANCE=other lab up -t default"
	env LAB_INSTANCE="$LAB_INSTANCE-2" $lab down >/dev/null 2>&1
	$lab down >/dev/null 2>&1
fi

home=$($lab help | sed -n 's/^LAB_HOME=\([^ ]*\).*/\1/p')
latest=$(find "$home/reviews" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort | tail -1)
echo "| figure | seconds | command |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
if [ -n "$latest" ] && [ -f "$latest/review.ini" ]; then
	echo
	echo "last lab review ($latest/report.txt): $(sed -n 's/^phases=//p' "$latest/review.ini")"
fi
echo "(log: $log)"
