#!/bin/sh
# t099 - the lab's own plumbing, no seed: the guest runs the tests disk that
# `lab up` attached today (even when the guest was restored from a state
# saved with an older one), the disk is read-only, and the kernel is clean.
# CI changes MARK in a copy of the tree and checks the restored guest prints
# the new value. Exit 3 (error) on any plumbing failure: never a verdict on
# the kernel. LAB_DURATION (lab run --duration, at most 50 s) makes it sleep
# first, for the fault drills that stop libvirtd or lab while a test runs.
set -eu

NAME=t099-lab-selftest
BOUND=${LAB_BOUND:-60}
MARK=original
# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() { return 0; }
# shellcheck source=lab_test.sh
. "$(dirname "$0")/lab_test.sh"

diag "lab-selftest mark: $MARK"
# `lab run --env LAB_SELFTEST_NOTE=...` reaches the program (CI)
[ -z "${LAB_SELFTEST_NOTE:-}" ] || diag "lab-selftest note: $LAB_SELFTEST_NOTE"
nap=${LAB_DURATION:-0}
[ "$nap" -le 50 ] 2>/dev/null || nap=50
sleep "$nap"
diag "kernel: $(uname -r), tainted: $(cat /proc/sys/kernel/tainted)"
here=$(dirname "$0")
touch "$here/.rw-probe" 2>/dev/null && finish 3 "the tests disk is writable"
awk -v d="$here" '$2 == d && $3 == "iso9660" && $4 ~ /^ro/ { ok = 1 } END { exit !ok }' \
	/proc/mounts || finish 3 "$here is not the read-only ISO 9660 tests disk"
[ -r "$here/suite.ini" ] || finish 3 "suite.ini missing from the tests disk"
finish 0 "tests disk mounted read-only, mark $MARK"
