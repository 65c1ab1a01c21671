#!/bin/sh
# t012-netns-serve - the conntrack host's side of t012 (a part, started by
# the runner with the clients: tests/suite.ini parts=).
#
# LAB_NETNS (default 64) namespaces, each behind a veth pair with an
# address of its own (10.77.x.y/30, `lab-flows addr`), a conntrack-enabling
# nft rule inside (conntrack runs in a namespace only once a rule needs it),
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
NETNS=${LAB_NETNS:-64}
PORT0=20000
CTRL=19999
PFX=lab-t012-
FWD=/proc/sys/net/ipv4/ip_forward
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	nft delete table inet lab_t012 2>/dev/null || true
	for ns in $(ip netns list 2>/dev/null | awk -v p="$PFX" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$ns" 2>/dev/null || true
	done
	if [ -n "${fwd_old:-}" ]; then
		echo "$fwd_old" >"$FWD"
	fi
	rm -f /tmp/lab-t012.*
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"

# addr I END: namespace I's /30, END 1 (root side) or 2 (namespace side)
addr() {
	"$DIR/lab-flows" addr "$1" "$2"
}

# The guests of this test: our own address and the clients'.
me=
clients=
nclients=0
for kv in $(echo "${LAB_GUESTS:-}" | tr ';' ' '); do
	if [ "${kv%%=*}" = "${LAB_PART:-conntrack}" ]; then
		me=${kv#*=}
	else
		clients="$clients ${kv#*=}"
		nclients=$((nclients + 1))
	fi
done

# setup: namespaces, veths, routes, nft in each; then the root's tracking
setup() {
	i=0
	: >/tmp/lab-t012.root
	while [ $i -lt "$NETNS" ]; do
		ip netns add "$PFX$i"
		{
			echo "link add v$i type veth peer name e0 netns $PFX$i"
			echo "addr add $(addr $i 1)/30 dev v$i"
			echo "link set v$i up"
		} >>/tmp/lab-t012.root
		i=$((i + 1))
	done
	ip -batch /tmp/lab-t012.root
	: >/tmp/lab-t012.plan
	cat >/tmp/lab-t012.nft <<'NFT'
table inet lab_t012 {
	chain in {
		type filter hook input priority 0; policy accept;
		ct state invalid counter
	}
}
NFT
	i=0
	while [ $i -lt "$NETNS" ]; do
		inner=$(addr $i 2)
		echo "$((PORT0 + i)) $inner" >>/tmp/lab-t012.plan
		printf 'addr add %s/30 dev e0\nlink set e0 up\nlink set lo up\nroute add default via %s\n' \
			"$inner" "$(addr $i 1)" | ip -n "$PFX$i" -batch -
		ip netns exec "$PFX$i" nft -f /tmp/lab-t012.nft
		i=$((i + 1))
	done
	cat >/tmp/lab-t012.fwd <<'NFT'
table inet lab_t012 {
	chain forward_ct {
		type filter hook forward priority 0; policy accept;
		ct state invalid counter
	}
}
NFT
	nft -f /tmp/lab-t012.fwd
}

# check_ns I: namespace I's entries are exactly its flows; adds to checked/bad
check_ns() {
	ip netns exec "$PFX$1" conntrack -L 2>/dev/null >/tmp/lab-t012.ct || true
	# shellcheck disable=SC2046 # three fields
	set -- $(awk -v own="$(addr "$1" 2)" -v port=$((PORT0 + $1)) -v clients="$clients" '
		function first(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
		BEGIN { n = split(clients, c, " "); for (i = 1; i <= n; i++) ok[c[i]] = 1 }
		$1 == "tcp" || $1 == "udp" {
			if (!(first("src") in ok) || first("dst") != own || first("dport") != port) bad++
			else if ($1 == "tcp") tcp++
			else udp++
		}
		END { printf "%d %d %d\n", tcp + 0, udp + 0, bad + 0 }' /tmp/lab-t012.ct)
	checked=$((checked + $1 + $2 + $3))
	# a flow that reached this namespace's service but has no entry here:
	# its lookup matched an entry of the same tuple in another namespace
	# (the root forwards every flow with the tuple it has here)
	[ "$1" -lt "$nclients" ] && missing=$((missing + nclients - $1))
	[ "$2" -lt "$nclients" ] && missing=$((missing + nclients - $2))
	if [ "$1" -ne "$nclients" ] || [ "$2" -ne "$nclients" ] || [ "$3" -ne 0 ]; then
		bad=$((bad + 1))
		[ $bad -le 3 ] && diag "namespace $ns_i: tcp $1 udp $2 (want $nclients each), foreign $3: $(head -n 3 /tmp/lab-t012.ct | tr '\n' '|')"
	fi
	return 0
}

# check_root: the root's forwarded entries go to the namespace owning the port
check_root() {
	conntrack -L -d 10.77.0.0/16 2>/dev/null >/tmp/lab-t012.root-ct || true
	awk '
		function nth(k, m,   i, c) { c = 0; for (i = 1; i <= NF; i++) if (index($i, k "=") == 1 && ++c == m) return substr($i, length(k) + 2); return "" }
		NR == FNR { owner[$1] = $2; next }	# the plan: port -> namespace address
		($1 == "tcp" || $1 == "udp") && (nth("dport", 1) in owner) {
			if (nth("dst", 1) == owner[nth("dport", 1)]) good++; else bad++
		}
		END { printf "%d %d\n", good + 0, bad + 0 }' /tmp/lab-t012.plan /tmp/lab-t012.root-ct
}

diag "t012 server: $NETNS namespaces routed through $me for $nclients clients:$clients"
diag "bound: $BOUND s"
kmsg "begin"
[ "$(id -u)" -eq 0 ] || finish 4 "needs root"
for tool in ip nft conntrack awk "$DIR/lab-flows"; do
	command -v "$tool" >/dev/null || finish 4 "$tool not installed"
done
if [ -z "$me" ] || [ "$nclients" -eq 0 ]; then
	finish 3 "LAB_GUESTS names no clients: '${LAB_GUESTS:-}'"
fi
fwd_old=$(cat "$FWD")
echo 1 >"$FWD"
t0=$(date +%s)
setup || finish 3 "setting up the namespaces failed"
diag "set up in $(($(date +%s) - t0)) s"

rc=0
"$DIR/lab-flows" serve "$PFX" "$NETNS" $PORT0 $CTRL "$nclients" $((BOUND - 60)) || rc=$?
[ $rc -le 1 ] || finish 3 "lab-flows serve failed ($rc)"
[ $rc -eq 0 ] || finish 3 "not every client said done in time"

checked=0
bad=0
missing=0
ns_i=0
while [ $ns_i -lt "$NETNS" ]; do
	check_ns $ns_i
	ns_i=$((ns_i + 1))
done
# shellcheck disable=SC2046 # two fields
set -- $(check_root)
echo "# counts: namespaces=$NETNS clients=$nclients entries_checked=$checked namespaces_wrong=$bad flows_tracked_elsewhere=$missing root_entries_right=$1 root_entries_wrong=$2 seconds=$(($(date +%s) - t0))"
if [ $missing -gt 0 ]; then
	finish 1 "conntrack lookups crossed namespaces: $missing flows reached their namespace but are tracked only in another (the same tuple in the root)"
fi
if [ $bad -gt 0 ]; then
	finish 1 "$bad namespaces hold conntrack entries that are not exactly their own flows"
fi
if [ "$2" -gt 0 ]; then
	finish 1 "$2 forwarded entries in the root go to a namespace that does not own the port"
fi
if [ "$1" -ne $((2 * NETNS * nclients)) ]; then
	finish 1 "the root tracks $1 forwarded flows, not $((2 * NETNS * nclients))"
fi
finish 0 "$NETNS namespaces each held exactly their $((2 * nclients)) flows; the root tracked all $1"
