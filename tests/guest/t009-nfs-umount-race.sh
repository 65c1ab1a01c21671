#!/bin/sh
# t009 - a new NFS superblock must not get the device name of one still
# being unmounted.
#
# Seed 009, "NFS: Fix a umount race" (upstream 387c149b54b4, 2.6.32.9 #36).
# get_anon_bdev() hands out the lowest free minor, and a superblock's bdi is
# named after it in sysfs (/devices/virtual/bdi/0:N).  6.1 unregisters the
# bdi in generic_shutdown_super() before nfs_kill_super() frees the minor;
# 2.6.32.8 freed the minor first, so a mount in between got the same number
# while the old bdi still had the name:
#   patched:  every mount succeeds.
#   baseline: "sysfs: cannot create duplicate filename
#             '/devices/virtual/bdi/0:N'" and mount.nfs fails with
#             "File exists" (exit 32).  No oops on 6.1.
#
# The natural window is microseconds.  Both lab kernels have a knob
# (patches/2.6.32.9/support), nfs.lab_umount_delay_ms: a sleep in
# nfs_kill_super() right after free_anon_bdev(), at the same line in both
# kernels: on baseline the minor is free while its bdi still has the name;
# on patched too, but the bdi went in generic_shutdown_super() already, so
# the sleep is harmless there.  The runner sets it (3000 ms).  The
# test then orders the steps itself: umount A in the background, mount B
# (a new superblock: nosharecache) LAB_T009_STEP s later, inside the sleep.
# Without the amplifier a clean run proves nothing: inconclusive.
#
# Each round checks that B really got A's device number (the window is only
# hit when it did) and prints window_hits: rounds where B reused A's number.
#
# Env: LAB_NFS_SERVER (required), LAB_NFS_EXPORT (/srv/nfs),
#      LAB_NFS_VERS (3, 4.0, 4.1, 4.2; default 3), LAB_ROUNDS (default
#      LAB_MIN_HITS, else 3), LAB_T009_STEP (1 s).
set -eu

NAME=t009-nfs-umount-race
ROUNDS=${LAB_ROUNDS:-${LAB_MIN_HITS:-3}}
STEP=${LAB_T009_STEP:-1}
OP_TIMEOUT=60
BOUND=${LAB_BOUND:-$((ROUNDS * (2 * OP_TIMEOUT + STEP) + 30))}
AMP=/sys/module/nfs/parameters/lab_umount_delay_ms

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	for m in "${A:-}" "${B:-}"; do
		[ -n "$m" ] && mountpoint -q "$m" && umount -l "$m"
	done
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	return 0
}
# shellcheck source=lab_test.sh
. "$(dirname "$0")/lab_test.sh"

# nfs_mount DIR: mount the export on DIR; output of mount.nfs in $out
nfs_mount() {
	out=$(timeout -k 5 $OP_TIMEOUT mount -t nfs -o "$OPTS" "$SPEC" "$1" 2>&1)
}

# A mount failure is the bug when the kernel said EEXIST, else setup broke.
mount_failed() {
	case $out in
	*"File exists"*) finish 1 "$1: mount.nfs: File exists (anon dev name reused)" ;;
	esac
	finish 3 "$1: mount failed: $out"
}

check_amplifier() {
	amp_ms=$(knob_value "$AMP" nfs.lab_umount_delay_ms)
	case $amp_ms in '' | *[!0-9]*) amp_ms=0 ;; esac
}

# One round: A mounted, umount A in the background, mount B STEP s later.
round() {
	nfs_mount "$A" || mount_failed "round $1 mount A"
	stat -f "$A" >/dev/null
	dev_a=$(mountpoint -d "$A")
	timeout -k 5 $OP_TIMEOUT umount "$A" &
	upid=$!
	sleep "$STEP"
	rc_b=0
	nfs_mount "$B" || rc_b=$?
	rc_a=0
	wait $upid || rc_a=$?
	dev_b=-
	[ $rc_b -eq 0 ] && dev_b=$(mountpoint -d "$B")
	diag "round $1: A on $dev_a unmounted (rc $rc_a); B mounted ${STEP}s later: rc $rc_b, dev $dev_b"
	if [ "$dev_b" = "$dev_a" ]; then
		reused=$((reused + 1))
		diag "round $1: B reused A's device number $dev_a"
	fi
	[ $rc_b -eq 0 ] || { diag "window_hits=$((reused + 1))"; mount_failed "round $1 mount B"; }
	[ $rc_a -eq 0 ] || finish 3 "round $1: umount A failed (rc $rc_a)"
	timeout -k 5 $OP_TIMEOUT umount "$B" || finish 3 "round $1: umount B failed"
}

# sysfs's complaint in the kernel log since our marker
duplicate_names() {
	[ -n "$MARK" ] || { echo 0; return 0; }
	dmesg 2>/dev/null | sed -n "/$MARK/,\$p" |
		grep -c "cannot create duplicate filename '/devices/virtual/bdi/" || true
}

diag "seed 009: NFS: umount must not free the device name before the bdi is gone"
diag "bound: $BOUND s"
MARK=""
if [ "${LAB_KMSG:-1}" != 0 ]; then
	MARK="t009-mark-$$-$(date +%s)"
	kmsg "begin (seed 009) $MARK"
fi

[ "$(id -u)" -eq 0 ] || finish 4 "needs root"
[ -n "${LAB_NFS_SERVER:-}" ] || finish 3 "LAB_NFS_SERVER not set"
VERS=${LAB_NFS_VERS:-3}
SPEC="$LAB_NFS_SERVER:${LAB_NFS_EXPORT:-/srv/nfs}"
OPTS="vers=$VERS,nosharecache"
[ "$VERS" = 3 ] && OPTS="$OPTS,nolock"	# no statd needed: no locks here
TMP=$(mktemp -d /tmp/lab-t009.XXXXXX)
A=$TMP/a
B=$TMP/b
mkdir "$A" "$B"
check_amplifier
diag "mount -o $OPTS $SPEC on $A and $B, $ROUNDS rounds, step $STEP s"

reused=0
i=1
while [ $i -le "$ROUNDS" ]; do
	round $i
	i=$((i + 1))
done

dups=$(duplicate_names)
diag "window_hits=$reused"
diag "reused_dev=$reused of $ROUNDS rounds"
[ "$dups" -eq 0 ] || finish 1 "sysfs refused $dups duplicate bdi name(s)"
if [ "$amp_ms" -le $((STEP * 1000)) ]; then
	finish 2 "all mounts succeeded, but without an amplifier longer than the ${STEP}s step the window was never open"
fi
[ "$reused" -gt 0 ] ||
	finish 2 "the window was open but mount B never got A's device number"
finish 0 "B reused A's device number in $reused of $ROUNDS rounds inside a ${amp_ms} ms window, no name clash"
