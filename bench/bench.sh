#!/usr/bin/env bash
# bench/bench.sh - the lab's speed in one table, measured on this machine,
# with the command behind each figure.
#   bench/bench.sh            smoke and default topology: first boot, save,
#                             restore, restart, a second instance; a stress
#                             iteration's overhead; one interop cell
#                             (~8 min when nothing is saved yet)
#   BENCH_DEFAULT=0 ...       without the default topology
#   BENCH_COLD=1 ...          also a cold image, a cold kernel and the
#                             switch to the other kernel, in a scratch
#                             LAB_HOME (~25 min; the caches stay as they are)
#   BENCH_REVIEW=1 ...        also a warm `lab review` (~25 min); else the
#                             last review's phases are printed
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

# saved: "saved the ready state of N guests in S s" of the last command
saved() { sed -n 's/.*saved the ready state of .* in \([0-9.]*\) s.*/\1/p' "$log" | tail -1; }

if [ "${BENCH_DEFAULT:-1}" != 0 ]; then
	t $lab up -t default --fresh
	row "default (4 guests): first boot + save" "$secs" "lab up -t default --fresh"
	row "  in it: the save of the 4 guests" "$(saved)" "(lab up's \"saved the ready state\" line)"
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

# stress: what the loop adds to its tests (restores, consoles, bookkeeping)
t $lab stress -t smoke --loops 3 t099-lab-selftest t010-dvb-demux-feeds
id=$(find "$home/stress" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tail -1)
over=$($lab stress --status "$id" 2>/dev/null | sed -n 's/.*loop overhead \([0-9.]*\) s per test.*/\1/p')
row "stress: 3 iterations of 2 tests on smoke (one crash restart)" "$secs" "lab stress -t smoke --loops 3 t099-lab-selftest t010-dvb-demux-feeds"
row "  in it: the loop's overhead per test" "${over:-0}" "lab stress --status ID (loop overhead)"

# interop: one cell, and the command around it (up from the saved state, down)
t $lab interop --servers knfsd --vers 4.2 --groups basic
id=$(find "$home/interop" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort | tail -1)
cell=$(grep -o '"seconds":[0-9.]*' "$home/interop/$id/run/results.json" 2>/dev/null | cut -d: -f2 | head -1)
row "interop: one cell, the command (knfsd, v4.2, basic)" "$secs" "lab interop --servers knfsd --vers 4.2 --groups basic"
row "  in it: the cell's test" "${cell:-0}" "(results.json seconds)"

if [ "${BENCH_COLD:-0}" = 1 ]; then
	# a scratch LAB_HOME: nothing cached, the real caches untouched
	cold=$(mktemp -d /var/tmp/lab-bench-cold.XXXXXX)
	t env LAB_HOME="$cold" $lab image
	row "cold: lab image (mmdebstrap, mkfs, qcow2)" "$secs" "LAB_HOME=empty lab image"
	t env LAB_HOME="$cold" $lab build baseline
	row "cold: lab build baseline (tree, empty ccache)" "$secs" "LAB_HOME=empty lab build baseline"
	t env LAB_HOME="$cold" $lab build patched
	row "switch: lab build patched in the same tree" "$secs" "LAB_HOME=empty lab build patched (after baseline)"
	rm -rf "$cold"
fi
if [ "${BENCH_REVIEW:-0}" = 1 ]; then
	t $lab review
	row "review, warm (kernels, image, saved states)" "$secs" "lab review"
fi

# the last review of the default topology (CI's small reviews are not it)
latest=$(grep -lx 'topology=default' "$home"/reviews/*/review.ini 2>/dev/null | sort | tail -1)
latest=${latest%/review.ini}
echo "| figure | seconds | command |"
echo "|---|---|---|"
printf '%s\n' "${rows[@]}"
if [ -n "$latest" ]; then
	echo
	echo "last lab review ($latest/report.txt): $(sed -n 's/^phases=//p' "$latest/review.ini")"
fi
echo "(log: $log)"
