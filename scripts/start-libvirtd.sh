#!/usr/bin/env bash
# Start virtlogd and libvirtd when they are not running. These machines have
# no systemd, so nothing else starts them. Waits (bounded) for the socket.
set -euo pipefail
sock=/var/run/libvirt/libvirt-sock
if virsh -c qemu:///system uri >/dev/null 2>&1; then
	echo "libvirtd: already running"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "libvirtd is not running and starting it needs root: sudo virtlogd -d && sudo libvirtd -d" >&2
	exit 1
fi
pgrep -x virtlogd >/dev/null || virtlogd -d
pgrep -x libvirtd >/dev/null || libvirtd -d
for _ in $(seq 1 50); do
	if [ -S "$sock" ] && virsh -c qemu:///system uri >/dev/null 2>&1; then
		echo "libvirtd: started"
		exit 0
	fi
	sleep 0.2
done
echo "libvirtd did not come up within 10 s; see /var/log/libvirt/" >&2
exit 1
