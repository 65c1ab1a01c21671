#!/bin/sh
# mmdebstrap --customize-hook: $1 is the root directory of the new image.
# Trims boot time under TCG: every unit not needed by
# the lab is masked or dropped. Runs on the host, never inside a guest.
set -eu
root=$1

echo '/dev/vda / ext4 rw 0 1' > "$root/etc/fstab"
# root has no password: the console is only reachable through libvirt.
chroot "$root" passwd -d root >/dev/null
echo lab > "$root/etc/hostname"

# First boot: lab-seed reads the NoCloud seed (hostname, user-data script)
# in cloud-init's place; see guests/image/lab-seed.
here=$(dirname "$0")
install -m 755 "$here/lab-seed" "$root/usr/local/sbin/lab-seed"
install -m 644 "$here/lab-seed.service" "$root/etc/systemd/system/lab-seed.service"
chroot "$root" systemctl enable lab-seed.service >/dev/null 2>&1

# Units a test guest never needs; each costs seconds of the one vCPU under
# TCG (measured with systemd-analyze blame on a first boot). No logins:
# guests are reached through the agent (lab exec), so no getty, logind,
# utmp, user sessions. Users exist since the image was built (sysusers);
# nothing is listed in /etc/modules (modules-load); the journal stays in
# memory (journal-flush); the kernel
# command line mounts the root rw (remount-fs); virtio-rng seeds the pool
# (random-seed); the lab's kernels have no modules (modprobe@).
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
         e2scrub_reap.service fstrim.timer man-db.timer dpkg-db-backup.timer \
         getty@tty1.service serial-getty@.service systemd-logind.service \
         systemd-update-utmp.service systemd-update-utmp-runlevel.service \
         systemd-sysusers.service systemd-remount-fs.service \
         systemd-random-seed.service modprobe@.service \
         systemd-user-sessions.service systemd-modules-load.service \
         systemd-journal-flush.service \
         systemd-tmpfiles-clean.timer systemd-timesyncd.service \
         nfs-server.service nfs-blkmap.service rpc-statd-notify.service \
         systemd-networkd-wait-online.service \
         systemd-pstore.service remote-fs.target; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done
# Generators for what no guest has (encrypted, verity or integrity disks,
# hibernation, GPT partitions, rc.local, SysV scripts without a unit,
# gettys); each runs at every boot.
mkdir -p "$root/etc/systemd/system-generators"
for g in systemd-cryptsetup-generator systemd-integritysetup-generator \
         systemd-veritysetup-generator systemd-hibernate-resume-generator \
         systemd-gpt-auto-generator systemd-system-update-generator \
         systemd-rc-local-generator systemd-run-generator \
         systemd-sysv-generator systemd-getty-generator; do
	ln -sf /dev/null "$root/etc/systemd/system-generators/$g"
done
# rpcbind only where a role starts it (the NFS roles do); D-Bus when
# something asks for it (its socket stays; the ganesha role starts it).
chroot "$root" systemctl disable rpcbind.service rpcbind.socket >/dev/null 2>&1
# (dbus ships the link that makes multi-user.target want it.)
rm -f "$root/lib/systemd/system/multi-user.target.wants/dbus.service"
# nfs-utils runs nfsrahead for every backing device added; under TCG that
# was 6.7 s of the first boot's coldplug for the block devices' bdis, which
# it leaves alone. Only NFS mounts' bdis (anonymous devices, major 0) get it.
mkdir -p "$root/etc/udev/rules.d"
sed 's/^SUBSYSTEM=="bdi", ACTION=="add",/SUBSYSTEM=="bdi", ACTION=="add", KERNEL=="0:*",/' \
	"$root/lib/udev/rules.d/99-nfs.rules" > "$root/etc/udev/rules.d/99-nfs.rules"
grep -q 'KERNEL=="0:\*"' "$root/etc/udev/rules.d/99-nfs.rules"
# Coldplug leaves out the ~70 ttys, the VT consoles and the ~50 ACPI
# devices (4 s of a first boot's one vCPU): devtmpfs made their nodes, the
# tests run as root, and no ACPI driver is a module the lab needs. Block
# devices (labels), net, virtio ports (the agent), PCI and sound still are.
mkdir -p "$root/etc/systemd/system/systemd-udev-trigger.service.d"
cat > "$root/etc/systemd/system/systemd-udev-trigger.service.d/lab.conf" <<'EOF'
[Service]
ExecStart=
ExecStart=-udevadm trigger --type=all --action=add --prioritized-subsystem=module,block,net --subsystem-nomatch=tty --subsystem-nomatch=vc --subsystem-nomatch=acpi
EOF

# The NFS server role unmasks and starts nfs-server from its seed.
rm -f "$root/etc/systemd/system/nfs-server.service"
chroot "$root" systemctl disable nfs-server.service >/dev/null 2>&1 || true
# nfs-ganesha's packages enable it on install: it would take port 2049 and
# the NFS, MOUNT and NLM registrations on every guest.  Only the ganesha
# role starts it (guests/seed/ganesha.sh).
chroot "$root" systemctl disable nfs-ganesha.service nfs-ganesha-lock.service >/dev/null 2>&1 || true

# Every kernel message up to KERN_INFO reaches the serial console: the lab's
# verdicts read WARNINGs, lockdep reports and "sysfs: cannot create duplicate
# filename" there (all KERN_WARNING), which Debian's procps default
# (10-console-messages.conf: kernel.printk = 4 4 1 7) would hide.
echo 'kernel.printk = 7 4 1 7' > "$root/etc/sysctl.d/99-lab-console.conf"

# Keep the journal in memory: the overlay stays small, boot stays fast.
mkdir -p "$root/etc/systemd/journald.conf.d"
printf '[Journal]\nStorage=volatile\n' > "$root/etc/systemd/journald.conf.d/lab.conf"
# Tests go on a read-only disk labelled labtests, mounted by the runner.
mkdir -p "$root/lab/tests" "$root/srv/nfs"
rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*
