# lab_test.sh - what every guest test script shares (POSIX sh, sourced):
# diagnostics, kernel log lines, the exit-code contract, and a hard bound.
# Before sourcing: NAME (the test) and BOUND (seconds); define cleanup().
# Exit codes: 0 pass, 1 fail, 2 inconclusive, 3 error, 4 skip.

# Re-run the whole script under timeout(1) once: a hung step never hangs
# the runner.
if [ -z "${LAB_BOUNDED:-}" ]; then
	LAB_BOUNDED=1 exec timeout --preserve-status -k 10 "$BOUND" /bin/sh "$0" "$@"
fi

diag() { printf '# %s\n' "$*"; }

kmsg() {
	[ "${LAB_KMSG:-1}" = 0 ] && return 0
	printf 'lab: %s: %s\n' "$NAME" "$*" 2>/dev/null >/dev/kmsg || true
}

# knob_value PATH NAME: print a lab test knob's value (empty when this
# kernel has no such knob) and say which on the diagnostics.
knob_value() {
	if [ ! -r "$1" ]; then
		diag "amplifier $2: absent" >&2
		return 0
	fi
	v=$(cat "$1")
	diag "amplifier $2: present, value $v" >&2
	printf '%s\n' "$v"
}

finish() {
	code=$1
	shift
	case $code in
	0) word=pass ;; 1) word=fail ;; 2) word=inconclusive ;;
	3) word=error ;; *) word=skip ;;
	esac
	diag "result: $word: $*"
	kmsg "end $word"
	FINISHED=1
	exit "$code"
}

# set -e ended the script outside finish(): an unexpected failure is an
# error, never a pass or a fail.
# shellcheck disable=SC2317 # runs from the EXIT trap
lab_on_exit() {
	rc=$?
	set +e	# a cleanup step that fails must not skip the rest
	cleanup
	if [ "${FINISHED:-0}" = 0 ]; then
		diag "result: error: unexpected exit (status $rc)"
		kmsg "end error"
		exit 3
	fi
}
trap lab_on_exit EXIT
trap 'finish 3 "time bound of $BOUND s exceeded"' TERM

# Workloads side by side (the soak suite): side_run NAME CMD... starts CMD
# in the background (its own bound: LAB_BOUNDED cleared), side_verdict
# NAME... waits for them, shows each one's output prefixed with its name
# and finishes with the worst exit code (fail > error > inconclusive >
# skip > pass) and that one's own words.
side_run() {
	n=$1
	shift
	# set +e: a failing workload must still leave its exit code
	( set +e; LAB_BOUNDED='' "$@" >"/tmp/lab-side.$n" 2>&1; echo $? >"/tmp/lab-side.$n.rc" ) &
}
side_verdict() {
	wait
	worst=0 wrank=0 words="every workload passed"
	for n in "$@"; do
		sed "s/^/# $n: /" "/tmp/lab-side.$n" 2>/dev/null || true
		rc=$(cat "/tmp/lab-side.$n.rc" 2>/dev/null || echo 3)
		case $rc in 1) rk=4 ;; 3) rk=3 ;; 2) rk=2 ;; 4) rk=1 ;; 0) rk=0 ;; *) rk=3 rc=3 ;; esac
		if [ $rk -gt $wrank ]; then
			worst=$rc wrank=$rk
			words="$n: $(sed -n 's/^# result: [a-z]*: //p' "/tmp/lab-side.$n" | tail -n 1)"
		fi
		rm -f "/tmp/lab-side.$n" "/tmp/lab-side.$n.rc"
	done
	finish "$worst" "$words"
}
