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
# Each namespace must hold only entries from the clients to its own address
# and port (a flow reset and opened again leaves two), and an entry for
# every flow its service handled (lab-flows serve's SERVED file,
# /tmp/lab-netns.served).  missing counts the handled flows without an
# entry in their namespace: their lookup matched an entry of the same tuple
# elsewhere (the root tracks every flow it forwards with the same tuple).
# The first three wrong namespaces are described on standard error.
ns_check() {
	"$DIR/lab-netns" plan "$1" "$2" >/tmp/lab-netns.plan
	"$DIR/lab-ct" dump "$PFX" "$1" "$2" >/tmp/lab-netns.ct
	awk -v port0="$3" -v clients="$4" '
		BEGIN { n = split(clients, c, " "); for (i = 1; i <= n; i++) ok[c[i]] = 1 }
		FILENAME ~ /plan$/ { own[$1] = $2; tcp[$1] = udp[$1] = bad[$1] = 0; seen[$1] = ""; next }
		FILENAME ~ /served$/ { stcp[$1] = $2; sudp[$1] = $3; next }
		($1 in own) {
			if (!($3 in ok) || $4 != own[$1] || $6 != port0 + $1) bad[$1]++
			else if ($2 == "tcp") tcp[$1]++
			else udp[$1]++
			if (length(seen[$1]) < 160) seen[$1] = seen[$1] " | " $2 " " $3 ">" $4 ":" $6
		}
		END {
			for (i in own) {
				checked += tcp[i] + udp[i] + bad[i]
				lost = (stcp[i] > tcp[i] ? stcp[i] - tcp[i] : 0) + (sudp[i] > udp[i] ? sudp[i] - udp[i] : 0)
				missing += lost
				if (bad[i] || lost) {
					if (++wrong <= 3)
						printf "# namespace %d: tcp %d udp %d (served %d, %d), foreign %d%s\n", i, tcp[i], udp[i], stcp[i], sudp[i], bad[i], seen[i] > "/dev/stderr"
				}
			}
			printf "%d %d %d\n", checked + 0, wrong + 0, missing + 0
		}' /tmp/lab-netns.plan /tmp/lab-netns.served /tmp/lab-netns.ct
}

# ---- the conntrack host's side ----

FWD=/proc/sys/net/ipv4/ip_forward

# ns_server_start: who we are and our clients (me, clients, nclients),
# forwarding on, the root tracking what it forwards (its entries of closed
# flows kept as long as the namespaces', room for them all), udev not running systemd-sysctl
# for each root-side veth (a process per veth: 0.2 s each under TCG), no
# namespace of ours left from before.  ns_server_cleanup undoes it (call it
# from cleanup()).
NS_KEEP="nf_conntrack_tcp_timeout_time_wait nf_conntrack_tcp_timeout_close nf_conntrack_udp_timeout nf_conntrack_udp_timeout_stream"
NS_UDEV=/run/udev/rules.d/99-zz-lab-netns.rules
ns_server_start() {
	me=$(guest_addr "${LAB_PART:-conntrack}")
	clients=$(guests_but "${LAB_PART:-conntrack}")
	nclients=$(echo "$clients" | wc -w)
	[ "$(id -u)" -eq 0 ] || finish 4 "needs root"
	for tool in ip nft conntrack awk udevadm "$DIR/lab-flows" "$DIR/lab-netns" "$DIR/lab-ct"; do
		command -v "$tool" >/dev/null || finish 4 "$tool not installed"
	done
	if [ -z "$me" ] || [ "$nclients" -eq 0 ]; then
		finish 3 "LAB_GUESTS names no clients: '${LAB_GUESTS:-}'"
	fi
	fwd_old=$(cat "$FWD")
	echo 1 >"$FWD"
	keep_old=
	# the root tracks every flow: 2 x clients x namespaces, past the
	# default maximum (8 x 512 buckets) at soak size
	for k in $NS_KEEP nf_conntrack_max; do
		keep_old="$keep_old $k=$(cat "/proc/sys/net/netfilter/$k")"
	done
	for k in $NS_KEEP; do
		echo 600 >"/proc/sys/net/netfilter/$k"
	done
	echo 65536 >/proc/sys/net/netfilter/nf_conntrack_max
	mkdir -p "${NS_UDEV%/*}"
	echo 'ACTION=="add", SUBSYSTEM=="net", KERNEL=="v[0-9]*", RUN=""' >"$NS_UDEV"
	udevadm control --reload
	ns_drop_all
	nft -f - <<'NFT' || finish 3 "cannot load the root's forward rule"
table inet lab_fwd {
	chain forward_ct {
		type filter hook forward priority 0; policy accept;
		ct state invalid counter
	}
}
NFT
}
ns_server_cleanup() {
	nft delete table inet lab_fwd 2>/dev/null || true
	ns_drop_all
	# the root's entries of the test's flows (kept 600 s) go with it
	conntrack -D -d 10.77.0.0/16 >/dev/null 2>&1 || true
	if [ -n "${fwd_old:-}" ]; then
		echo "$fwd_old" >"$FWD"
	fi
	for kv in ${keep_old:-}; do
		echo "${kv#*=}" >"/proc/sys/net/netfilter/${kv%%=*}"
	done
	if [ -f "$NS_UDEV" ]; then
		rm -f "$NS_UDEV"
		udevadm control --reload
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
	failed=
	while [ $r -lt "$1" ]; do
		rc=0
		left=$((BOUND - 30 - $(date +%s) + start))
		[ $left -gt 10 ] || finish 3 "no time left for round $r"
		"$DIR/lab-flows" connect "$server" "$PORT0" $(((r % 2) * NETNS)) "$NETNS" \
			$((CTRL0 + r)) "$id" $left || rc=$?
		case $rc in
		0) ;;
		# the next rounds still run: the server waits for every client
		1) failed="$failed $r" ;;
		*) finish 3 "lab-flows connect failed ($rc) in round $r" ;;
		esac
		r=$((r + 1))
	done
	[ -z "$failed" ] || finish 1 "flows to the conntrack host's namespaces lost or corrupted data in round(s)$failed"
	finish 0 "all $((2 * NETNS * $1)) flows of $1 round(s) to the conntrack host's namespaces came back intact"
}
flows_cleanup() {
	[ -n "${routed:-}" ] && ip route del 10.77.0.0/16 2>/dev/null
	return 0
}
