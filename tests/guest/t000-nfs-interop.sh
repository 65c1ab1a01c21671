#!/bin/sh
# t000 - plain NFS client/server interoperability, per protocol version.
#
# Not a seed: the guard under t008 and t009.  Those tests pass when nothing
# goes wrong, so they are only worth something on a mount that works.  Per
# version: mount, create a directory, write 1 MiB of random data, unmount
# and mount again (so the read comes from the server, not the page cache),
# compare sha256sums, rename, take and test a POSIX lock (lab-posix-lock:
# fcntl F_SETLK, the lock that goes over the wire; flock(1) is BSD-style),
# unlink, unmount.  Every failure exits 3 (error), never 1: a broken mount
# is a broken lab, not a kernel verdict.
#
# Env: LAB_NFS_SERVER (required), LAB_NFS_EXPORT (/srv/nfs),
#      LAB_NFS_VERS (one version; default: 3 4.0 4.1 4.2 in turn).
set -eu

NAME=t000-nfs-interop
OP_TIMEOUT=120
BOUND=${LAB_BOUND:-600}
HERE=$(cd "$(dirname "$0")" && pwd)

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	[ -n "${MNT:-}" ] && mountpoint -q "$MNT" && umount -l "$MNT"
	[ -n "${TMP:-}" ] && rm -rf "$TMP"
	return 0
}
# shellcheck source=lab_test.sh
. "$(dirname "$0")/lab_test.sh"

# step VERS WHAT CMD...: run CMD bounded; any failure ends the test as error
step() {
	vers=$1
	what=$2
	shift 2
	if ! out=$(timeout -k 5 $OP_TIMEOUT "$@" 2>&1); then
		finish 3 "NFS $vers: $what failed: $(echo "$out" | tail -n 3)"
	fi
}

nfs_mount() {
	step "$1" "mount -o vers=$1" mount -t nfs -o "vers=$1" "$SPEC" "$MNT"
}

# check_version VERS: the whole round trip on one protocol version
check_version() {
	v=$1
	dir=$MNT/lab-t000.$(hostname).$$
	nfs_mount "$v"
	step "$v" "mkdir" mkdir "$dir"
	step "$v" "write 1 MiB" cp "$TMP/data" "$dir/data"
	step "$v" "umount after write" umount "$MNT"
	nfs_mount "$v"
	sum=$(timeout -k 5 $OP_TIMEOUT sha256sum <"$dir/data" | cut -d' ' -f1) ||
		finish 3 "NFS $v: read back failed"
	[ "$sum" = "$SUM" ] || finish 3 "NFS $v: data read back differs ($sum != $SUM)"
	step "$v" "rename" mv "$dir/data" "$dir/data.renamed"
	if [ ! -e "$dir/data.renamed" ] || [ -e "$dir/data" ]; then
		finish 3 "NFS $v: rename not visible"
	fi
	step "$v" "POSIX lock" "$LOCK" "$dir/lock"
	step "$v" "unlink" rm "$dir/data.renamed" "$dir/lock"
	step "$v" "rmdir" rmdir "$dir"
	[ ! -e "$dir" ] || finish 3 "NFS $v: directory still there after rmdir"
	step "$v" "umount" umount "$MNT"
	diag "NFS $v: mount, 1 MiB write, remount, sha256 match, rename, POSIX lock, unlink, umount: ok"
}

diag "seed 000: NFS interop: mount, write, read back, rename, lock, unlink per version"
diag "bound: $BOUND s"
kmsg "begin (seed 000)"

[ "$(id -u)" -eq 0 ] || finish 4 "needs root"
[ -n "${LAB_NFS_SERVER:-}" ] || finish 3 "LAB_NFS_SERVER not set"
LOCK=$HERE/lab-posix-lock
[ -x "$LOCK" ] || LOCK=$(command -v lab-posix-lock) ||
	finish 3 "lab-posix-lock helper not found next to $0"
SPEC="$LAB_NFS_SERVER:${LAB_NFS_EXPORT:-/srv/nfs}"
TMP=$(mktemp -d /tmp/lab-t000.XXXXXX)
MNT=$TMP/mnt
mkdir "$MNT"
head -c 1048576 /dev/urandom >"$TMP/data"
SUM=$(sha256sum <"$TMP/data" | cut -d' ' -f1)

for v in ${LAB_NFS_VERS:-3 4.0 4.1 4.2}; do
	check_version "$v"
done
finish 0 "NFS versions ${LAB_NFS_VERS:-3 4.0 4.1 4.2} against $SPEC all work"
