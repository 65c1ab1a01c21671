#!/bin/sh
# NoCloud user-data of every lab guest, rendered by lab (@ADDRESS@: the
# guest's address in its topology), its role's part (ROLE.sh) appended.
# A user script: the image's lab-seed unit runs it once per instance as
# root (cloud-init would run it too). A failing command fails the boot:
# lab up then says so and shows the console.
set -eu
# The lab's isolated bridge only: a static address, no DHCP, no route out.
udevadm wait --timeout=60 /sys/class/net/eth0
ip link set dev eth0 up
ip addr add @ADDRESS@ dev eth0
# The same address at every later boot: a guest the reboot group resets
# hard boots its disk again, and lab-seed runs once per instance only.
cat > /etc/systemd/system/lab-address.service <<'UNIT'
[Unit]
Description=lab: this guest's address on the lab's bridge
Wants=sys-subsystem-net-devices-eth0.device
After=sys-subsystem-net-devices-eth0.device
Before=network.target
[Service]
Type=oneshot
RemainAfterExit=yes
ExecStart=/sbin/ip link set dev eth0 up
ExecStart=/sbin/ip addr replace @ADDRESS@ dev eth0
[Install]
WantedBy=multi-user.target
UNIT
systemctl enable lab-address.service
