#!/bin/sh
# t016 - data verification over NFS under random writes (fio, Debian's):
# the NFS client's filesystem load beside the race reproducers.
#
# Passes until LAB_DURATION seconds (default 15) have gone, at the NFS
# version the runner mounted (LAB_NFS_VERS, LAB_NFS_DIR): each pass, JOBS
# jobs write their own SIZE file in random 4-64 KiB blocks, each block with
# a crc32c header, verified as they go (verify_backlog) with an fsync every
# 16 writes; then the client's page cache is dropped and the same jobs read
# every block back from the server and verify it (fio --verify_only replays
# the same random sequence).  Counts: passes, KiB written and verified,
# write IOPS, seconds.
#   pass: every block came back as written, on the client and from the server.
#   fail: fio found a block that is not what was written, or an I/O error.
set -eu

NAME=t016-nfs-fio
BOUND=${LAB_BOUND:-170}
DURATION=${LAB_DURATION:-15}
JOBS=2
SIZE=16m
DIR=$(dirname "$0")

# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	[ -n "${work:-}" ] && rm -rf "$work"
	rm -f /tmp/lab-t016.*
	return 0
}
# shellcheck source=lab_test.sh
. "$DIR/lab_test.sh"

# fio_pass [--verify_only]: one run of the jobs; its terse line on stdout
# (--invalidate=0: the lab kernels have no fadvise; the drop of the page
# cache between the passes does that job)
fio_pass() {
	fio --name=lab --directory="$work" --rw=randwrite --bsrange=4k-64k \
		--size=$SIZE --numjobs=$JOBS --ioengine=psync --fsync=16 \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1 \
		--invalidate=0 --group_reporting --minimal "$@" >/tmp/lab-t016.out 2>/tmp/lab-t016.err ||
		return 1
	grep ';' /tmp/lab-t016.out | tail -n 1
}

diag "t016: fio random writes with verification over NFS v${LAB_NFS_VERS:-?} for $DURATION s"
diag "bound: $BOUND s"
kmsg "begin"
command -v fio >/dev/null || finish 4 "fio not installed"
if [ -z "${LAB_NFS_DIR:-}" ] || ! mountpoint -q "$LAB_NFS_DIR"; then
	finish 3 "no NFS mount at '${LAB_NFS_DIR:-}'"
fi
if [ "$DURATION" -lt 1 ] || [ "$DURATION" -gt $((BOUND - 60)) ]; then
	DURATION=15
fi
work=$LAB_NFS_DIR/lab-t016.$$
mkdir "$work"
start=$(date +%s)
passes=0 written=0 verified=0 iops=0
while [ $(($(date +%s) - start)) -lt "$DURATION" ] || [ $passes -eq 0 ]; do
	if ! w=$(fio_pass); then
		diag "fio: $(cat /tmp/lab-t016.out /tmp/lab-t016.err | grep -v ';' | tail -n 3 | tr '\n' ' ')"
		finish 1 "fio's write pass over NFS v${LAB_NFS_VERS:-?} found a block not as written or an I/O error (pass $passes)"
	fi
	sync
	echo 3 >/proc/sys/vm/drop_caches
	if ! v=$(fio_pass --verify_only); then
		diag "fio: $(cat /tmp/lab-t016.out /tmp/lab-t016.err | grep -v ';' | tail -n 3 | tr '\n' ' ')"
		finish 1 "blocks read back from the NFS v${LAB_NFS_VERS:-?} server are not as written (pass $passes)"
	fi
	# terse v3: 5 error, 6 read KiB, 47 write KiB, 49 write IOPS
	written=$((written + $(echo "$w" | cut -d';' -f47)))
	verified=$((verified + $(echo "$v" | cut -d';' -f6)))
	iops=$(echo "$w" | cut -d';' -f49)
	rm -f "$work"/*
	passes=$((passes + 1))
done
echo "# counts: vers=${LAB_NFS_VERS:-?} passes=$passes written_kib=$written verified_from_server_kib=$verified write_iops=$iops seconds=$(($(date +%s) - start))"
[ "$verified" -gt 0 ] || finish 3 "nothing was read back: the verification did not run"
finish 0 "$passes passes: ${written} KiB written in random blocks over NFS v${LAB_NFS_VERS:-?}, every block verified, ${verified} KiB read back from the server"
