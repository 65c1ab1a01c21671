# nfs-server role: export a fresh ext4 scratch disk for v3 and v4.x
mkfs.ext4 -q -F /dev/vdc
mount /dev/vdc /srv/nfs
chmod 1777 /srv/nfs
echo '/srv/nfs 169.254.0.0/16(rw,sync,no_subtree_check,no_root_squash,fsid=1)' > /etc/exports
# Short grace periods: a restored server goes on from the moment it was
# saved, a few seconds after nfsd started; v4's grace is ended at once.
mkdir -p /etc/nfs.conf.d
printf '[nfsd]\ngrace-time=10\nlease-time=10\n' > /etc/nfs.conf.d/lab.conf
# lockd is built into the lab's kernels, a module of Debian's
[ -e /proc/sys/fs/nfs/nlm_grace_period ] || modprobe lockd
echo 10 > /proc/sys/fs/nfs/nlm_grace_period
systemctl start rpcbind nfs-server
exportfs -ra
# A server with no client to reclaim may have ended its grace already; a
# second end is an I/O error.
grep -q Y /proc/fs/nfsd/v4_end_grace || echo Y > /proc/fs/nfsd/v4_end_grace
