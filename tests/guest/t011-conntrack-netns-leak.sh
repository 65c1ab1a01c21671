#!/bin/sh
# t011 - conntrack entries of one network namespace must be invisible from
# another, even for identical tuples.
#
# Seed 011, "netfilter: nf_conntrack: per netns nf_conntrack_cachep"
# (upstream 5b3501faa874, 2.6.32.9 #47).  6.1 keeps one global conntrack
# table and isolates namespaces in nf_ct_key_equal()
# (net/netfilter/nf_conntrack_core.c: net_eq(net, nf_ct_net(ct))).  Without
# that check a lookup in B can return A's entry when both hash to one
# bucket.  Namespaces normally land in different buckets (net_hash_mix), so
# both lab kernels carry a knob (patches/2.6.32.9/support),
# nf_conntrack.lab_zero_hash_mix, that makes identical tuples of all
# namespaces collide; the conntrack guest boots with it on.  A miss without
# it proves nothing: then the result is inconclusive.
#
# Two namespaces with the same veth pair and addresses; 16 UDP entries are
# inserted in A with `conntrack -I`, then looked up in B with `conntrack -G`
# (`-L` would not show a leak: the dump has its own namespace check) and
# inserted in B.
#   patched:  B finds 0 of A's entries and its 16 inserts succeed.
#   baseline: B finds all 16 and every insert fails with EEXIST.
set -eu

NAME=t011-conntrack-netns-leak
BOUND=${LAB_BOUND:-120}
ENTRIES=16
SRC=169.254.77.1
DST=169.254.77.2
SPORT0=40000
DPORT=5353
AMP=/sys/module/nf_conntrack/parameters/lab_zero_hash_mix
NSA=lab-t011-a-$$
NSB=lab-t011-b-$$

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	ip netns del "$NSA" 2>/dev/null || true
	ip netns del "$NSB" 2>/dev/null || true
}
# shellcheck source=lab_test.sh
. "$(dirname "$0")/lab_test.sh"

# ct NS ARGS...: conntrack(8) inside namespace NS
ct() {
	ns=$1
	shift
	ip netns exec "$ns" conntrack "$@"
}

# tuple I: the conntrack(8) arguments of entry I (same in both namespaces)
tuple() {
	echo "-p udp -s $SRC -d $DST --sport $((SPORT0 + $1)) --dport $DPORT"
}

# make_ns NS: a namespace with one veth pair, both ends addressed and up
make_ns() {
	ip netns add "$1"
	ip -n "$1" link set lo up
	ip -n "$1" link add v0 type veth peer name v1
	ip -n "$1" addr add "$SRC/30" dev v0
	ip -n "$1" addr add "$DST/30" dev v1
	ip -n "$1" link set v0 up
	ip -n "$1" link set v1 up
}

# Is the amplifier there and on?  Sets amp_on; says so either way.
check_amplifier() {
	amp_on=0
	case $(knob_value "$AMP" nf_conntrack.lab_zero_hash_mix) in
	Y | y | [1-9]*) amp_on=1 ;;
	esac
}

# insert_a: ENTRIES entries in A, each checked with -G in A itself
insert_a() {
	i=0
	while [ $i -lt $ENTRIES ]; do
		# shellcheck disable=SC2046 # tuple is meant to split
		out=$(ct "$NSA" -I $(tuple $i) --timeout 300 2>&1) ||
			finish 3 "conntrack -I in A failed: $out"
		# shellcheck disable=SC2046
		ct "$NSA" -G $(tuple $i) >/dev/null 2>&1 ||
			finish 3 "entry $i inserted in A but not found there"
		i=$((i + 1))
	done
}

# probe_b: how many of A's tuples does B see?  Sets found_in_b.
probe_b() {
	found_in_b=0
	i=0
	while [ $i -lt $ENTRIES ]; do
		# shellcheck disable=SC2046
		if out=$(ct "$NSB" -G $(tuple $i) 2>&1); then
			found_in_b=$((found_in_b + 1))
			[ $found_in_b -eq 1 ] && diag "B sees: $(echo "$out" | head -n 1)"
		else
			case $out in
			*"doesn't exist"* | *"No such"*) ;;
			*) finish 3 "conntrack -G in B: $out" ;;
			esac
		fi
		i=$((i + 1))
	done
}

# insert_b: the same tuples in B.  Sets eexist_in_b.
insert_b() {
	eexist_in_b=0
	i=0
	while [ $i -lt $ENTRIES ]; do
		# shellcheck disable=SC2046
		if ! out=$(ct "$NSB" -I $(tuple $i) --timeout 300 2>&1); then
			# EEXIST: conntrack-tools 1.4 words it "Such conntrack
			# exists", strerror() "File exists"
			case $out in
			*"File exists"* | *"Such conntrack exists"*)
				eexist_in_b=$((eexist_in_b + 1)) ;;
			*) finish 3 "conntrack -I in B: $out" ;;
			esac
		fi
		i=$((i + 1))
	done
}

count() {
	ct "$1" -C 2>/dev/null || echo "?"
}

diag "seed 011: netfilter: conntrack entries must not leak between network namespaces"
diag "bound: $BOUND s"
kmsg "begin (seed 011)"

[ "$(id -u)" -eq 0 ] || finish 4 "needs root"
for tool in ip conntrack; do
	command -v $tool >/dev/null || finish 4 "$tool not installed"
done
check_amplifier
make_ns "$NSA" || finish 3 "creating namespace $NSA"
make_ns "$NSB" || finish 3 "creating namespace $NSB"
diag "namespaces $NSA and $NSB: veth v0 $SRC/30 <-> v1 $DST/30 in each"

insert_a
diag "A: $ENTRIES UDP entries $SRC:$SPORT0+i -> $DST:$DPORT inserted and found"
probe_b
insert_b
diag "B found $found_in_b of A's $ENTRIES entries; $eexist_in_b of B's inserts failed with EEXIST"
diag "entries counted: A $(count "$NSA"), B $(count "$NSB")"

if [ $found_in_b -gt 0 ] || [ $eexist_in_b -gt 0 ]; then
	finish 1 "namespace B sees namespace A's conntrack entries"
fi
if [ $amp_on -eq 0 ]; then
	finish 2 "no leak, but without the hash amplifier A's and B's entries never shared a bucket"
fi
finish 0 "identical tuples in one bucket, still isolated per namespace"
