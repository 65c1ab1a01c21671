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
BOUND=${LAB_BOUND:-280}
NETNS=${LAB_NETNS:-64}
ROUNDS=${LAB_ROUNDS:-4}
PORT0=20000
CTRL0=19000
PFX=lab-t014-
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	[ -n "${routed:-}" ] && ip route del 10.77.0.0/16 2>/dev/null
	return 0
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"
# shellcheck source=lab_netns.sh
. "$DIR/lab_netns.sh"

server=$(guest_addr conntrack)
id=$(guest_index "${LAB_PART:-}")

diag "t014 client ${LAB_PART:-(test guest)}: $ROUNDS rounds of $NETNS TCP + $NETNS UDP flows into namespaces made and deleted behind ${server:-?}"
diag "bound: $BOUND s"
kmsg "begin"
[ -n "$server" ] || finish 3 "LAB_GUESTS names no conntrack guest: '${LAB_GUESTS:-}'"
ip route replace 10.77.0.0/16 via "$server" || finish 3 "cannot route 10.77.0.0/16 via $server"
routed=1
start=$(date +%s)
r=0
while [ $r -lt "$ROUNDS" ]; do
	rc=0
	left=$((BOUND - 30 - $(date +%s) + start))
	[ $left -gt 10 ] || finish 3 "no time left for round $r"
	"$DIR/lab-flows" connect "$server" $PORT0 $(((r % 2) * NETNS)) "$NETNS" $((CTRL0 + r)) \
		"$id" $left || rc=$?
	case $rc in
	0) ;;
	1) finish 1 "round $r: flows into namespaces made under churn lost or corrupted data" ;;
	*) finish 3 "lab-flows connect failed ($rc) in round $r" ;;
	esac
	r=$((r + 1))
done
finish 0 "all $((2 * NETNS * ROUNDS)) flows of $ROUNDS rounds came back intact"
