#!/bin/sh
# t012-netns-serve - the conntrack host's side of t012 (a part, started by
# the runner with the clients: tests/suite.ini parts=).
#
# LAB_NETNS (default 256) namespaces, each behind a veth pair with an
# address of its own (10.77.x.y/30, lab_netns.sh: `lab-netns` makes them), a
# conntrack-enabling nft rule inside (conntrack runs in a namespace only once a rule needs it),
# and a TCP + UDP echo service on port 20000+i (lab-flows serve: one
# process, a socket per namespace).  The root namespace routes into them
# (the clients route 10.77.0.0/16 through this guest; the guest kernel has
# no NAT) and tracks what it forwards.  The clients (every other guest in
# LAB_GUESTS) open one TCP and one UDP flow to every namespace at once and
# say done.  Then, per namespace, the conntrack table must hold exactly its
# own flows: one TCP and one UDP entry per client, from that client, to this
# namespace's address and port; and the root's forwarded entries must each
# go to the namespace that owns the port, 2 x namespaces x clients of them.
#   pass: every namespace holds exactly its flows, the root every flow.
#   fail: an entry in the wrong namespace, a missing or foreign entry.
# The root tracks each flow with the very tuple the namespace sees (routing,
# no NAT), so a kernel whose conntrack lookup forgets the namespace (seed
# 011's bug) sometimes matches the root's entry when a flow enters its
# namespace, by chance of a shared hash bucket, and the namespace never
# tracks it: "flows tracked elsewhere".  That is 011's bug met by a
# workload; t012 counts under 011's row.
set -eu

NAME=t012-netns-serve
BOUND=${LAB_BOUND:-220}
NETNS=${LAB_NETNS:-256}
PORT0=20000
CTRL0=19000
PFX=lab-t012-
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	ns_server_cleanup
	rm -f /tmp/lab-t012.*
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"
# shellcheck source=lab_netns.sh
. "$DIR/lab_netns.sh"

# check_root: the root's forwarded entries go to the namespace owning the
# port (lab-netns plan: namespace I's address; its port is PORT0+I)
check_root() {
	"$DIR/lab-netns" plan 0 "$NETNS" >/tmp/lab-t012.plan
	conntrack -L -d 10.77.0.0/16 2>/dev/null >/tmp/lab-t012.root-ct || true
	awk -v port0=$PORT0 '
		function nth(k, m,   i, c) { c = 0; for (i = 1; i <= NF; i++) if (index($i, k "=") == 1 && ++c == m) return substr($i, length(k) + 2); return "" }
		NR == FNR { owner[port0 + $1] = $2; next }
		($1 == "tcp" || $1 == "udp") && (nth("dport", 1) in owner) {
			if (nth("dst", 1) == owner[nth("dport", 1)]) good++; else bad++
		}
		END { printf "%d %d\n", good + 0, bad + 0 }' /tmp/lab-t012.plan /tmp/lab-t012.root-ct
}

diag "t012 server: $NETNS namespaces routed through this guest for the other guests of the test"
diag "bound: $BOUND s"
kmsg "begin"
ns_server_start
t0=$(date +%s)
ns_make 0 "$NETNS" || finish 3 "setting up the namespaces failed"
diag "$NETNS namespaces set up in $(($(date +%s) - t0)) s"

rc=0
"$DIR/lab-flows" serve "$PFX" 0 "$NETNS" $PORT0 $CTRL0 "$nclients" $((BOUND - 60)) /tmp/lab-netns.served || rc=$?
[ $rc -le 1 ] || finish 3 "lab-flows serve failed ($rc)"
[ $rc -eq 0 ] || finish 3 "not every client said done in time"

# shellcheck disable=SC2046 # three fields
set -- $(ns_check 0 "$NETNS" $PORT0 "$clients")
checked=$1 bad=$2 missing=$3
# shellcheck disable=SC2046 # two fields
set -- $(check_root)
echo "# counts: namespaces=$NETNS clients=$nclients entries_checked=$checked namespaces_wrong=$bad flows_tracked_elsewhere=$missing root_entries_right=$1 root_entries_wrong=$2 seconds=$(($(date +%s) - t0))"
if [ "$missing" -gt 0 ]; then
	finish 1 "conntrack lookups crossed namespaces: $missing flows reached their namespace but are tracked only in another (the same tuple in the root)"
fi
if [ "$bad" -gt 0 ]; then
	finish 1 "$bad namespaces hold conntrack entries that are not exactly their own flows"
fi
if [ "$2" -gt 0 ]; then
	finish 1 "$2 forwarded entries in the root go to a namespace that does not own the port"
fi
if [ "$1" -lt $((2 * NETNS * nclients)) ]; then
	finish 1 "the root tracks $1 forwarded flows, fewer than $((2 * NETNS * nclients))"
fi
finish 0 "$NETNS namespaces each held exactly their $((2 * nclients)) flows; the root tracked all $1"
