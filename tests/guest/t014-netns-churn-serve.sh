#!/bin/sh
# t014-netns-churn-serve - the conntrack host's side of t014 (a part,
# started by the runner with the clients: tests/suite.ini parts=).
#
# LAB_ROUNDS (default 4) rounds of LAB_NETNS (default 64) namespaces built
# like t012's (lab_netns.sh).  Two sets take turns: while the clients' flows
# run into one set, the other set's namespaces of the round before are
# deleted and made again, with the same names, addresses and ports; so
# namespaces come and go under traffic, 2 x LAB_NETNS per round.
# Per round: a namespace made again starts with an empty conntrack table
# (nothing of the one deleted under its name), and after the flows holds
# exactly them (ns_check, as in t012).  At the end every namespace is
# deleted and the root's forwarded and control entries are dropped: the
# root's entry count must be back where it was.  Counts: namespaces made
# and deleted, flows, entries checked, netns/s and flows/s.
#   pass: every round right, the root's count back.
#   fail: an entry in the wrong table, a fresh table not empty, entries
#         left behind in the root.
set -eu

NAME=t014-netns-churn-serve
BOUND=${LAB_BOUND:-440}
NETNS=${LAB_NETNS:-64}
ROUNDS=${LAB_ROUNDS:-4}
PORT0=20000
CTRL0=19000
PFX=lab-t014-
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	if [ -n "${maker:-}" ]; then
		kill "$maker" 2>/dev/null
	fi
	ns_server_cleanup
	rm -f /tmp/lab-t014.*
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"
# shellcheck source=lab_netns.sh
. "$DIR/lab_netns.sh"

root_count() { cat /proc/sys/net/netfilter/nf_conntrack_count; }
now_ms() { awk '{ printf "%d\n", $1 * 1000 }' /proc/uptime; }

# fresh FIRST: namespaces just made hold no entry; prints how many do
fresh() {
	"$DIR/lab-netns" count "$PFX" "$1" "$NETNS" | awk '$2 != 0 { n++ } END { print n + 0 }'
}

# remake FIRST: the set's namespaces of two rounds ago deleted, made again
# (in the background, while the other set carries the flows); the time it
# took in /tmp/lab-t014.made
remake() {
	t=$(now_ms)
	ns_drop "$1" "$NETNS" && ns_make "$1" "$NETNS" || return 1
	echo $(($(now_ms) - t)) >/tmp/lab-t014.made
}

diag "t014 server: $ROUNDS rounds of $NETNS namespaces made and deleted under the other guests' flows"
diag "bound: $BOUND s"
kmsg "begin"
ns_server_start
before=$(root_count)
t0=$(now_ms)
ns_make 0 "$NETNS" || finish 3 "making the first namespaces failed"
made=$NETNS deleted=0 make_ms=$(($(now_ms) - t0)) flow_ms=0
checked=0 wrong=0 missing=0 dirty=0
r=0
short=
while [ $r -lt "$ROUNDS" ]; do
	left=$((BOUND - 40 - ($(now_ms) - t0) / 1000))
	if [ $left -le 10 ]; then
		# what the rounds so far found still counts (011 shows in them)
		[ $r -gt 0 ] || finish 3 "no time left for round 0"
		short="the bound ran out after $r of $ROUNDS rounds"
		diag "$short"
		break
	fi
	first=$(((r % 2) * NETNS))
	other=$((((r + 1) % 2) * NETNS))
	maker=
	if [ $((r + 1)) -lt "$ROUNDS" ]; then
		if [ $r -eq 0 ]; then
			( t=$(now_ms); ns_make "$other" "$NETNS" && echo $(($(now_ms) - t)) >/tmp/lab-t014.made ) &
		else
			remake "$other" &
		fi
		maker=$!
	fi
	t=$(now_ms)
	rc=0
	"$DIR/lab-flows" serve "$PFX" "$first" "$NETNS" $PORT0 $((CTRL0 + r)) "$nclients" \
		$left /tmp/lab-netns.served >/tmp/lab-t014.serve || rc=$?
	flow_ms=$((flow_ms + $(now_ms) - t))
	[ $rc -le 1 ] || finish 3 "lab-flows serve failed ($rc) in round $r"
	[ $rc -eq 0 ] || finish 3 "not every client said done in round $r"
	if [ -n "$maker" ]; then
		wait "$maker" || finish 3 "remaking namespaces $other.. failed in round $r"
		maker=
		make_ms=$((make_ms + $(cat /tmp/lab-t014.made)))
		made=$((made + NETNS))
		[ $r -gt 0 ] && deleted=$((deleted + NETNS))
		dirty=$((dirty + $(fresh "$other")))
	fi
	# shellcheck disable=SC2046 # three fields
	set -- $(ns_check "$first" "$NETNS" $PORT0 "$clients")
	checked=$((checked + $1)) wrong=$((wrong + $2)) missing=$((missing + $3))
	diag "round $r: namespaces $first-$((first + NETNS - 1)) checked ($1 entries, $2 wrong)"
	r=$((r + 1))
done
t=$(now_ms)
# no wait for the kernel to dismantle them (minutes for hundreds under TCG):
# the next ns_make waits for their veths' names
ns_drop_all
make_ms=$((make_ms + $(now_ms) - t))
deleted=$((deleted + 2 * NETNS))
[ "$ROUNDS" -eq 1 ] && deleted=$((deleted - NETNS))
# the root's own entries of this test: forwarded flows and control connections
conntrack -D -d 10.77.0.0/16 >/dev/null 2>&1 || true
r=0
while [ $r -lt "$ROUNDS" ]; do
	conntrack -D -p tcp --orig-port-dst $((CTRL0 + r)) >/dev/null 2>&1 || true
	r=$((r + 1))
done
after=$(root_count)
flows=$((2 * NETNS * nclients * r))
echo "# counts: rounds=$r namespaces_made=$made namespaces_deleted=$deleted clients=$nclients flows=$flows entries_checked=$checked namespaces_wrong=$wrong flows_tracked_elsewhere=$missing fresh_tables_not_empty=$dirty root_entries_before=$before root_entries_after=$after netns_per_s=$(awk -v n=$((made + deleted)) -v ms=$make_ms 'BEGIN { printf "%.1f", n * 1000 / (ms ? ms : 1) }') flows_per_s=$(awk -v n=$flows -v ms=$flow_ms 'BEGIN { printf "%.1f", n * 1000 / (ms ? ms : 1) }') seconds=$((($(now_ms) - t0) / 1000))"
if [ "$missing" -gt 0 ]; then
	finish 1 "conntrack lookups crossed namespaces: $missing flows reached their namespace but are tracked only in another (the same tuple in the root)"
fi
[ "$wrong" -eq 0 ] || finish 1 "$wrong namespaces held conntrack entries that are not exactly their own flows"
[ "$dirty" -eq 0 ] || finish 1 "$dirty namespaces made again under a deleted one's name started with conntrack entries"
[ "$after" -le "$before" ] || finish 1 "the root holds $((after - before)) more conntrack entries than before the churn, with every namespace deleted and the test's own entries dropped"
# a namespace is made again under traffic from round 1 on
[ $r -ge 2 ] || [ "$ROUNDS" -lt 2 ] || finish 2 "$short: no namespace was made again under traffic"
finish 0 "$made namespaces made and $deleted deleted under $flows flows: every table exactly its flows, fresh tables empty, the root's count back ($after <= $before)${short:+ ($short)}"
