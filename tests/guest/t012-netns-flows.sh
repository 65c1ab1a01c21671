#!/bin/sh
# t012 - TCP and UDP flows from the client guests into the conntrack host's
# namespaces, routed through it (the client side; the server side is
# t012-netns-serve, a part on the conntrack guest, tests/suite.ini parts=).
#
# Runs on every client guest of the test at once (the test's own guest and
# its client parts): waits for the server, opens one TCP flow (16 KiB each
# way) and one UDP flow (4 datagrams, resent until echoed) to each of the
# LAB_NETNS (default 64) ports at the same time (lab-flows connect), and
# checks that every byte came back as sent.  The route to 10.77.0.0/16
# through the conntrack guest is the test's and goes when it ends.
#   pass: every flow intact.  fail: a flow lost or corrupted.
set -eu

NAME=t012-netns-flows
BOUND=${LAB_BOUND:-220}
NETNS=${LAB_NETNS:-64}
PORT0=20000
CTRL=19999
PFX=lab-t012-
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
# the test's own guest comes first in LAB_GUESTS
id=$(guest_index "${LAB_PART:-}")

diag "t012 client ${LAB_PART:-(test guest)}: $NETNS TCP + $NETNS UDP flows to the namespaces behind ${server:-?}, ports $PORT0-$((PORT0 + NETNS - 1))"
diag "bound: $BOUND s"
kmsg "begin"
[ -n "$server" ] || finish 3 "LAB_GUESTS names no conntrack guest: '${LAB_GUESTS:-}'"
ip route replace 10.77.0.0/16 via "$server" || finish 3 "cannot route 10.77.0.0/16 via $server"
routed=1
rc=0
"$DIR/lab-flows" connect "$server" $PORT0 0 "$NETNS" $CTRL "$id" $((BOUND - 30)) || rc=$?
case $rc in
0) finish 0 "all $((2 * NETNS)) flows to the conntrack host's namespaces came back intact" ;;
1) finish 1 "flows to the conntrack host's namespaces lost or corrupted data" ;;
*) finish 3 "lab-flows connect failed ($rc)" ;;
esac
