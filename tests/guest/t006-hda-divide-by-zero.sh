#!/bin/sh
# t006 - SYNTHETIC FAULT INJECTION: a zero period_bytes in azx_position_ok()
# must not divide by zero.
#
# Seed 006, "ALSA: hda-intel: Avoid divide by zero crash" (upstream
# fed08d036f2a, 2.6.32.9 #23). On 6.1 no user can make period_bytes 0 while
# a stream runs (ALSA refuses hw_params on a RUNNING stream), so this test
# creates the impossible state itself: the lab's module lab_hda_zero.ko
# (tests/kmod, on the tests disk) puts a kprobe on azx_position_check() and
# zeroes the running stream's period_bytes once, while aplay plays silence
# on QEMU's intel-hda.
#   patched:  one "hda-intel: zero azx_dev->period_bytes" WARNING (expected,
#             suite.ini expected_report), the stream stops advancing, aplay
#             is stopped by its bound; the kernel lives: pass.
#   baseline: divide error in azx_position_ok in IRQ context: the guest
#             panics; the runner records the panic as this test's failure.
# Consumes the boot either way (WARN_ONCE, or a dead kernel).
set -eu

NAME=t006-hda-divide-by-zero
BOUND=${LAB_BOUND:-60}
KO=$(dirname "$0")/kmod/lab_hda_zero.ko
# shellcheck disable=SC2317 # runs from the EXIT trap
cleanup() {
	rmmod lab_hda_zero 2>/dev/null || true
}
# shellcheck source=lab_test.sh
. "$(dirname "$0")/lab_test.sh"

diag "seed 006: ALSA: hda-intel: Avoid divide by zero crash"
diag "bound: $BOUND s"
diag "SYNTHETIC: fault injection by kprobe, not a user-space trigger"
kmsg begin

[ -e /proc/asound/card0 ] || finish 4 "no sound card: give the guest devices=intel-hda"
grep -q 'HDA' /proc/asound/cards || finish 4 "card 0 is not HD-audio: $(head -1 /proc/asound/cards)"
command -v aplay >/dev/null || finish 4 "aplay (alsa-utils) missing in the image"
[ -r "$KO" ] || finish 3 "fault-injection module $KO missing from the tests disk"
insmod "$KO" || finish 3 "insmod $KO failed (kprobe on azx_position_check?)"
diag "lab_hda_zero loaded: the next running-stream position check gets period_bytes 0"

# 8 s of silence, 48 kHz stereo; aplay may block once positions stop.
timeout -s KILL 15 aplay -q -D hw:0,0 -t raw -f S16_LE -r 48000 -c 2 -d 8 /dev/zero ||
	diag "aplay ended with status $? (expected once the stream stalls)"

if ! dmesg | grep -q 'lab_hda_zero: fault injection'; then
	finish 2 "the injection never fired: no position check on a running stream"
fi
diag "window_hits=1"
finish 0 "period_bytes was zeroed in IRQ context and the kernel survived"
