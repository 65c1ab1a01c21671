#!/bin/sh
# t017 - the soak suite's iteration: every role's workload at once, no
# directed reproducer (tests/suite.ini [suite soak], `lab stress soak`).
#
# This side, on the NFS client: t016's fio verification on the NFS mount
# and t014's client flows into the conntrack host's churning namespaces,
# side by side.  The parts: the conntrack guest serves t014's namespaces
# (t017-soak-conntrack), the tty guest runs t013's pty storm, stress-ng's
# pty stressor and t014's client flows (t017-soak-tty); the NFS server
# serves.  Each program keeps its own checks and counts; the worst decides.
#   pass: every workload passed.  fail: the first that failed says why.
set -eu

NAME=t017-soak
BOUND=${LAB_BOUND:-860}
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	return 0
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"

diag "t017 on the NFS client: fio over NFS v${LAB_NFS_VERS:-?} and flows into the churning namespaces, at once"
diag "bound: $BOUND s"
kmsg "begin"
SECONDS_=${LAB_DURATION:-120}
side_run fio env LAB_BOUND=$((BOUND - 20)) LAB_DURATION="$SECONDS_" "$DIR/t016-nfs-fio"
side_run flows env LAB_BOUND=$((BOUND - 20)) LAB_NETNS="${LAB_NETNS:-256}" \
	LAB_ROUNDS="${LAB_ROUNDS:-3}" "$DIR/t014-netns-churn"
side_verdict fio flows
