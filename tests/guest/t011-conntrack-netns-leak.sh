#!/bin/sh
# t011 - conntrack entries of one network namespace must be invisible from
# every other, even for identical tuples that share a hash bucket.
#
# Seed 011, "netfilter: nf_conntrack: per netns nf_conntrack_cachep"
# (upstream 5b3501faa874, 2.6.32.9 #47).  6.1 keeps one global conntrack
# table; a lookup isolates namespaces in nf_ct_key_equal()
# (net/netfilter/nf_conntrack_core.c: net_eq(net, nf_ct_net(ct))), and the
# bucket is chosen by a hash that mixes in the namespace (net_hash_mix).
# bugs/011 drops the net_eq() test: then a lookup in X returns another
# namespace's entry whenever that entry has X's tuple and happens to hash
# into X's bucket.  The table is a standard size (nf_conntrack.hashsize=,
# small on the conntrack guest), so that happens by chance, as a user would
# meet it: for a tuple held by H namespaces, a lookup from a namespace that
# does not hold it shares a bucket with at least one of them with
# probability p = 1 - (1 - 1/buckets)^H.
#
# Static: H holder namespaces insert the same E UDP tuples (mark = the
# holder's number); P prober namespaces, which hold none, look every tuple
# up (what `conntrack -G` asks; `-L` would not show a leak: the dump has its
# own namespace check).  A prober that finds an entry sees another
# namespace's.  lab-ct sends the requests conntrack -I / -G send, many per
# process: LAB_NETNS (default 64) namespaces, 16 tuples each holder.  Churn: holders are deleted and rebuilt (new namespaces, so
# new hash mixes and buckets) while the probers keep looking up.
#   patched:  0 leaks; pass when P(no probe shared a bucket) is negligible.
#   baseline: about probes x p leaks (each names the holder by its mark).
# With the support/ knob nf_conntrack.lab_zero_hash_mix=1 on, the namespace
# is left out of the hash and every probe collides (p = 1).
set -eu

NAME=t011-conntrack-netns-leak
BOUND=${LAB_BOUND:-170}
NETNS=${LAB_NETNS:-64}	# holders + probers
ENTRIES=16
CHURN_ROUNDS=${LAB_T011_CHURN:-32}
AMP=/sys/module/nf_conntrack/parameters/lab_zero_hash_mix
BUCKETS_FILE=/proc/sys/net/netfilter/nf_conntrack_buckets
LABCT=$(dirname "$0")/lab-ct
PFX=lab-t011-$$
DONE=/tmp/$PFX.churned

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	[ -n "${churner:-}" ] && kill "$churner" 2>/dev/null
	for ns in $(ip netns list 2>/dev/null | awk -v p="$PFX-" 'index($1, p) == 1 { print $1 }'); do
		ip netns del "$ns" 2>/dev/null || true
	done
	rm -f "$DONE"
}
# shellcheck source=lab_test.sh
. "$(dirname "$0")/lab_test.sh"

# make_holder I: namespace h-I with the ENTRIES tuples, marked I
make_holder() {
	ns=$PFX-h$1
	ip netns add "$ns" || return 1
	# exists= counts inserts that met an equal entry: another netns' here
	out=$("$LABCT" "$ns" insert 0 $ENTRIES "$1") || return 1
	n=${out#*exists=}
	clashes=$((clashes + n))
}

# probe NS: look every tuple up in NS, which holds none; adds to probes
# and leaks, says the first leak (the marks name the holders it saw)
probe() {
	out=$("$LABCT" "$1" get 0 $ENTRIES) || finish 3 "lab-ct get in $1 failed"
	n=${out#*found=}
	n=${n%% *}
	probes=$((probes + ENTRIES))
	if [ "$n" -gt 0 ]; then
		[ $leaks -eq 0 ] && diag "$1 sees other namespaces' entries: $out"
		leaks=$((leaks + n))
	fi
}

# churn: CHURN_ROUNDS times, delete one holder and build it again; stops
# early at the churn deadline (a loaded host): the rounds done are counted
# shellcheck disable=SC2317 # runs in the background
churn() {
	r=0
	while [ $r -lt "$CHURN_ROUNDS" ] && [ "$(date +%s)" -lt "$churn_until" ]; do
		k=$((r % holders))
		ip netns del "$PFX-h$k"
		make_holder "$k" || exit 1
		r=$((r + 1))
	done
	echo "$clashes $r" >"$DONE"
}

# awk expressions over the counters: p per probe, expected leaks, P(none)
stats() {
	awk -v b="$buckets" -v h="$holders" -v n="$1" -v amp="$amp_on" 'BEGIN {
		p = amp ? 1 : 1 - (1 - 1 / b) ^ h
		printf "%.3f %.1f %.3g\n", p, n * p, (1 - p) ^ n }'
}

diag "seed 011: netfilter: conntrack entries must not leak between network namespaces"
diag "bound: $BOUND s"
kmsg "begin (seed 011)"

[ "$(id -u)" -eq 0 ] || finish 4 "needs root"
for tool in ip awk "$LABCT"; do
	command -v "$tool" >/dev/null || finish 4 "$tool not installed"
done
amp_on=0
case $(knob_value "$AMP" nf_conntrack.lab_zero_hash_mix) in
Y | y | [1-9]*) amp_on=1 ;;
esac
buckets=$(cat "$BUCKETS_FILE") || finish 3 "cannot read $BUCKETS_FILE"
holders=$((NETNS / 2))
probers=$((NETNS - holders))
if [ $holders -lt 1 ]; then
	finish 3 "LAB_NETNS=$NETNS: needs at least 2"
fi
diag "table: $buckets buckets; $holders holder and $probers prober namespaces, $ENTRIES identical UDP tuples (169.254.77.1:40000+i -> 169.254.77.2:5353) each holder"

t0=$(date +%s)
clashes=0
i=0
while [ $i -lt $holders ]; do
	make_holder $i || finish 3 "building holder namespace $i"
	i=$((i + 1))
done
i=0
while [ $i -lt $probers ]; do
	ip netns add "$PFX-p$i" || finish 3 "creating prober namespace $i"
	i=$((i + 1))
done
diag "built $NETNS namespaces and $((holders * ENTRIES)) entries in $(($(date +%s) - t0)) s; $clashes inserts met an equal entry of another namespace"

probes=0
leaks=0
i=0
while [ $i -lt $probers ]; do
	probe "$PFX-p$i"
	i=$((i + 1))
done
static_probes=$probes
static_leaks=$leaks
# shellcheck disable=SC2046 # three fields, meant to split
set -- $(stats $static_probes)
diag "static: $static_probes probes, $static_leaks leaks; per probe p=$1, expected leaks without net_eq() $2"

# churn: the probers keep looking up while holders are rebuilt
t1=$(date +%s)
# the churn gets what is left of the bound but 30 s for the rest
churn_until=$((t0 + BOUND - 30))
clashes0=$clashes
clashes=0
churn &
churner=$!
passes=0
until [ -e "$DONE" ] || ! kill -0 "$churner" 2>/dev/null; do
	probe "$PFX-p$((passes % probers))"
	passes=$((passes + 1))
done
wait "$churner" || finish 3 "the churner failed (see above)"
churner=
read -r churn_clashes churn_rounds <"$DONE"
clashes=$((clashes0 + churn_clashes))
secs=$(($(date +%s) - t1))
[ "$secs" -gt 0 ] || secs=1
churn_probes=$((probes - static_probes))
churn_leaks=$((leaks - static_leaks))
diag "churn: $churn_rounds holder namespaces rebuilt in $secs s ($(awk -v r="$churn_rounds" -v s="$secs" 'BEGIN { printf "%.2f", r / s }') netns/s) under $churn_probes probes: $churn_leaks leaks, $churn_clashes inserts met another namespace's entry"

# shellcheck disable=SC2046
set -- $(stats $probes)
echo "# counts: namespaces=$NETNS buckets=$buckets probes=$probes leaks=$leaks expected_leaks=$2 insert_clashes=$clashes churn_rounds=$churn_rounds churn_probes=$churn_probes churn_leaks=$churn_leaks seconds=$(($(date +%s) - t0))"

if [ $leaks -gt 0 ] || [ $clashes -gt 0 ]; then
	finish 1 "a namespace sees another namespace's conntrack entries: $leaks of $probes lookups, $clashes inserts refused"
fi
if awk -v q="$3" 'BEGIN { exit !(q > 1e-6) }'; then
	finish 2 "no leak, but with p=$1 per probe the chance that no probe shared a bucket is $3"
fi
finish 0 "$probes lookups of other namespaces' tuples ($2 expected to share a bucket), none crossed a namespace"
