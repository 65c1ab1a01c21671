#!/bin/sh
# t012 - TCP and UDP flows from the client guests into the conntrack host's
# namespaces, routed through it (the client side; the server side is
# t012-netns-serve, a part on the conntrack guest, tests/suite.ini parts=).
#
# Runs on every client guest of the test at once (the test's own guest and
# its client parts): waits for the server, opens one TCP flow (16 KiB each
# way) and one UDP flow (4 datagrams, resent until echoed) to each of the
# LAB_NETNS (default 256) ports at the same time (lab-flows connect), and
# checks that every byte came back as sent.  The route to 10.77.0.0/16
# through the conntrack guest is the test's and goes when it ends.
#   pass: every flow intact.  fail: a flow lost or corrupted.
set -eu

NAME=t012-netns-flows
BOUND=${LAB_BOUND:-220}
NETNS=${LAB_NETNS:-256}
PORT0=20000
CTRL0=19000
PFX=lab-t012-
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	flows_cleanup
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"
# shellcheck source=lab_netns.sh
. "$DIR/lab_netns.sh"

diag "t012 client ${LAB_PART:-(test guest)}: $NETNS TCP + $NETNS UDP flows to the conntrack host's namespaces"
diag "bound: $BOUND s"
kmsg "begin"
flows_client 1
