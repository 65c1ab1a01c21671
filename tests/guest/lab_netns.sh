# lab_netns.sh - what the conntrack host's network tests share (POSIX sh,
# sourced after lab_test.sh): the guests of the test, namespaces made and
# deleted many at a time (lab-netns), and the check that each namespace's
# conntrack table holds exactly its flows (lab-ct dump).  Namespace I owns
# 10.77.0.0/16's /30 number I and serves on port PORT0+I (lab_netplan.h).
# Before sourcing: DIR (the tests directory), PFX (the namespaces' prefix),
# NETNS (namespaces a set), PORT0 (namespace I serves on PORT0+I) and CTRL0
# (round R's control port is CTRL0+R).

NS_NFT=/tmp/lab-netns.nft
# conntrack runs in a namespace only once a rule needs it
cat >"$NS_NFT" <<'NFT'
table inet lab_ns {
	chain in {
		type filter hook input priority 0; policy accept;
		ct state invalid counter
	}
}
NFT

# guest_addr ROLE: the address LAB_GUESTS gives ROLE (empty: none)
guest_addr() {
	for kv in $(echo "${LAB_GUESTS:-}" | tr ';' ' '); do
		[ "${kv%%=*}" = "$1" ] && { echo "${kv#*=}"; return 0; }
	done
	return 0
}

# guest_index ROLE: ROLE's position in LAB_GUESTS from 1 (a client's id)
guest_index() {
	n=0
	for kv in $(echo "${LAB_GUESTS:-}" | tr ';' ' '); do
		n=$((n + 1))
		[ "${kv%%=*}" = "$1" ] && { echo $n; return 0; }
	done
	echo 1
}

# guests_but ROLE: the addresses of every other guest of the test, or of
# those whose roles LAB_NET_CLIENTS lists (ROLE,ROLE: a test whose other
# guests do not all open flows, t017)
guests_but() {
	for kv in $(echo "${LAB_GUESTS:-}" | tr ';' ' '); do
		[ "${kv%%=*}" = "$1" ] && continue
		case ",${LAB_NET_CLIENTS:-${kv%%=*}}," in
		*",${kv%%=*},"*) printf '%s ' "${kv#*=}" ;;
		esac
	done
}

# ns_make FIRST COUNT: namespaces with a veth each, addressed, routed,
# conntrack on.  ns_drop FIRST COUNT: gone, veths and routes with them.
ns_make() {
	"$DIR/lab-netns" add "$PFX" "$1" "$2" &&
		"$DIR/lab-netns" veths "$PFX" "$1" "$2" | ip -batch - &&
		"$DIR/lab-netns" wire "$PFX" "$1" "$2" "$NS_NFT"
}
ns_drop() {
	"$DIR/lab-netns" del "$PFX" "$1" "$2"
}

# ns_drop_all: every namespace of ours (cleanup, and before a test starts)
ns_drop_all() {
	"$DIR/lab-netns" purge "$PFX" 2>/dev/null || true
}

# ns_check FIRST COUNT PORT0 "CLIENT..."   prints "checked wrong missing"
# Each namespace must hold one TCP and one UDP entry per client, from that
# client to its own address and port, and nothing else.  missing counts
# flows that reached their service but have no entry in their namespace:
# their lookup matched an entry of the same tuple elsewhere (the root
# tracks every flow it forwards with the same tuple).  The first three
# wrong namespaces are described on standard error.
ns_check() {
	"$DIR/lab-netns" plan "$1" "$2" >/tmp/lab-netns.plan
	"$DIR/lab-ct" dump "$PFX" "$1" "$2" >/tmp/lab-netns.ct
	awk -v port0="$3" -v clients="$4" '
		BEGIN { n = split(clients, c, " "); for (i = 1; i <= n; i++) ok[c[i]] = 1 }
		NR == FNR { own[$1] = $2; tcp[$1] = udp[$1] = bad[$1] = 0; seen[$1] = ""; next }
		($1 in own) {
			if (!($3 in ok) || $4 != own[$1] || $6 != port0 + $1) bad[$1]++
			else if ($2 == "tcp") tcp[$1]++
			else udp[$1]++
			if (length(seen[$1]) < 160) seen[$1] = seen[$1] " | " $2 " " $3 ">" $4 ":" $6
		}
		END {
			for (i in own) {
				checked += tcp[i] + udp[i] + bad[i]
				if (tcp[i] < n) missing += n - tcp[i]
				if (udp[i] < n) missing += n - udp[i]
				if (tcp[i] != n || udp[i] != n || bad[i]) {
					if (++wrong <= 3)
						printf "# namespace %d: tcp %d udp %d (want %d each), foreign %d%s\n", i, tcp[i], udp[i], n, bad[i], seen[i] > "/dev/stderr"
				}
			}
			printf "%d %d %d\n", checked + 0, wrong + 0, missing + 0
		}' /tmp/lab-netns.plan /tmp/lab-netns.ct
}

# ---- the conntrack host's side ----

FWD=/proc/sys/net/ipv4/ip_forward

# ns_server_start: who we are and our clients (me, clients, nclients),
# forwarding on, the root tracking what it forwards, no namespace of ours
# left from before.  ns_server_cleanup undoes it (call it from cleanup()).
ns_server_start() {
	me=$(guest_addr "${LAB_PART:-conntrack}")
	clients=$(guests_but "${LAB_PART:-conntrack}")
	nclients=$(echo "$clients" | wc -w)
	[ "$(id -u)" -eq 0 ] || finish 4 "needs root"
	for tool in ip nft conntrack awk "$DIR/lab-flows" "$DIR/lab-netns" "$DIR/lab-ct"; do
		command -v "$tool" >/dev/null || finish 4 "$tool not installed"
	done
	if [ -z "$me" ] || [ "$nclients" -eq 0 ]; then
		finish 3 "LAB_GUESTS names no clients: '${LAB_GUESTS:-}'"
	fi
	fwd_old=$(cat "$FWD")
	echo 1 >"$FWD"
	ns_drop_all
	nft -f - <<'NFT' || finish 3 "cannot load the root's forward rule"
table inet lab_fwd {
	chain fwd {
		type filter hook forward priority 0; policy accept;
		ct state invalid counter
	}
}
NFT
}
ns_server_cleanup() {
	nft delete table inet lab_fwd 2>/dev/null || true
	ns_drop_all
	if [ -n "${fwd_old:-}" ]; then
		echo "$fwd_old" >"$FWD"
	fi
	rm -f /tmp/lab-netns.*
}

# ---- the clients' side ----

# flows_client ROUNDS: route 10.77.0.0/16 through the conntrack guest and,
# round by round, open one TCP and one UDP flow to every namespace of the
# round's set at once (set R % 2, control port CTRL0+R; lab-flows connect
# waits for it), every byte compared.  Finishes the test: pass when every
# flow of every round came back intact.  flows_cleanup drops the route.
flows_client() {
	server=$(guest_addr conntrack)
	[ -n "$server" ] || finish 3 "LAB_GUESTS names no conntrack guest: '${LAB_GUESTS:-}'"
	# the test's own guest comes first in LAB_GUESTS
	id=$(guest_index "${LAB_PART:-}")
	ip route replace 10.77.0.0/16 via "$server" || finish 3 "cannot route 10.77.0.0/16 via $server"
	routed=1
	start=$(date +%s)
	r=0
	while [ $r -lt "$1" ]; do
		rc=0
		left=$((BOUND - 30 - $(date +%s) + start))
		[ $left -gt 10 ] || finish 3 "no time left for round $r"
		"$DIR/lab-flows" connect "$server" "$PORT0" $(((r % 2) * NETNS)) "$NETNS" \
			$((CTRL0 + r)) "$id" $left || rc=$?
		case $rc in
		0) ;;
		1) finish 1 "round $r: flows to the conntrack host's namespaces lost or corrupted data" ;;
		*) finish 3 "lab-flows connect failed ($rc) in round $r" ;;
		esac
		r=$((r + 1))
	done
	finish 0 "all $((2 * NETNS * $1)) flows of $1 round(s) to the conntrack host's namespaces came back intact"
}
flows_cleanup() {
	[ -n "${routed:-}" ] && ip route del 10.77.0.0/16 2>/dev/null
	return 0
}
