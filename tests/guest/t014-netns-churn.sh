#!/bin/sh
# t014 - network namespaces made and deleted on the conntrack host while
# the client guests' flows run into them (the client side; the server side
# is t014-netns-churn-serve, a part on the conntrack guest).
#
# LAB_ROUNDS (default 4) rounds: each opens one TCP and one UDP flow to
# every one of that round's LAB_NETNS (default 64) namespaces at once
# (lab-flows connect, as in t012, on control port 19000+round) while the
# server deletes and remakes the other set; every byte must come back.
#   pass: every flow of every round intact.  fail: a flow lost or corrupted.
set -eu

NAME=t014-netns-churn
BOUND=${LAB_BOUND:-440}
NETNS=${LAB_NETNS:-64}
ROUNDS=${LAB_ROUNDS:-4}
PORT0=20000
CTRL0=19000
PFX=lab-t014-
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	flows_cleanup
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"
# shellcheck source=lab_netns.sh
. "$DIR/lab_netns.sh"

diag "t014 client ${LAB_PART:-(test guest)}: $ROUNDS rounds of $NETNS TCP + $NETNS UDP flows into namespaces made and deleted on the conntrack host"
diag "bound: $BOUND s"
kmsg "begin"
flows_client "$ROUNDS"
