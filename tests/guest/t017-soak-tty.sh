#!/bin/sh
# t017-soak-tty - the soak's tty side (a part of t017): t013's pty storm
# and stress-ng's pty stressor for LAB_DURATION seconds (default 120), and
# t014's client flows into the conntrack host's namespaces, at once.
set -eu

NAME=t017-soak-tty
BOUND=${LAB_BOUND:-860}
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	return 0
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"

# stress-ng's pty stressor, its bogo ops as counts; its exit code stands
# shellcheck disable=SC2317 # called through side_run
ptys() {
	rc=0
	stress-ng --pty 2 --pty-max 16 --timeout "${SECONDS_}s" --metrics-brief \
		>/tmp/lab-t017.ng 2>&1 || rc=$?
	cat /tmp/lab-t017.ng
	awk '$4 == "pty" && $5 ~ /^[0-9]+$/ { printf "# counts: stress_ng_pty_ops=%s pty_ops_per_s=%s\n", $5, $9 }' /tmp/lab-t017.ng
	rm -f /tmp/lab-t017.ng
	if [ "$rc" -eq 0 ]; then
		echo "# result: pass: stress-ng's pty stressor ran ${SECONDS_} s"
	else
		echo "# result: fail: stress-ng's pty stressor exited $rc"
	fi
	return "$rc"
}

SECONDS_=${LAB_DURATION:-120}
diag "t017 on the tty guest: pty storm, stress-ng --pty, flows, $SECONDS_ s"
diag "bound: $BOUND s"
kmsg "begin"
command -v stress-ng >/dev/null || finish 4 "stress-ng not installed"
side_run storm env LAB_DURATION="$SECONDS_" "$DIR/t013-tty-pty-storm"
side_run stress-ng ptys
side_run flows env LAB_BOUND=$((BOUND - 20)) LAB_NETNS="${LAB_NETNS:-256}" \
	LAB_ROUNDS="${LAB_ROUNDS:-3}" "$DIR/t014-netns-churn"
side_verdict storm stress-ng flows
