#!/bin/sh
# mmdebstrap --customize-hook: $1 is the root directory of the new image.
# Trims boot time under TCG: every unit and cloud-init module not needed by
# the lab is masked or dropped. Runs on the host, never inside a guest.
set -eu
root=$1

echo '/dev/vda / ext4 rw,noatime,errors=remount-ro 0 1' > "$root/etc/fstab"
# root has no password: the console is only reachable through libvirt.
chroot "$root" passwd -d root >/dev/null
echo lab > "$root/etc/hostname"

# cloud-init: NoCloud only (no network probing), and only the modules the
# lab's seeds use. Addresses are set by runcmd with ip(8).
mkdir -p "$root/etc/cloud/cloud.cfg.d"
cat > "$root/etc/cloud/cloud.cfg.d/90-lab.cfg" <<'CFG'
datasource_list: [ NoCloud, None ]
network: {config: disabled}
cloud_init_modules: [write_files, set_hostname, update_hostname]
cloud_config_modules: [runcmd]
cloud_final_modules: [scripts_user, final_message]
CFG

# Units a test guest never needs; each costs seconds under TCG.
for u in apt-daily.timer apt-daily-upgrade.timer e2scrub_all.timer \
         e2scrub_reap.service fstrim.timer man-db.timer dpkg-db-backup.timer \
         getty@tty1.service systemd-timesyncd.service nfs-server.service \
         nfs-blkmap.service rpc-statd-notify.service \
         systemd-networkd-wait-online.service \
         systemd-pstore.service remote-fs.target; do
	ln -sf /dev/null "$root/etc/systemd/system/$u"
done
# The NFS server role unmasks and starts nfs-server from its seed.
rm -f "$root/etc/systemd/system/nfs-server.service"
chroot "$root" systemctl disable nfs-server.service >/dev/null 2>&1 || true
# nfs-ganesha's packages enable it on install: it would take port 2049 and
# the NFS, MOUNT and NLM registrations on every guest.  Only the ganesha
# role starts it (guests/cloud-init/ganesha.yaml).
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
