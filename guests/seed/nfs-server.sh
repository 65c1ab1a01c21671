# nfs-server role: export a fresh ext4 scratch disk for v3 and v4.x
mkfs.ext4 -q -F /dev/vdc
mount /dev/vdc /srv/nfs
chmod 1777 /srv/nfs
# @EXPORT@: sync unless the topology says export=async (the reboot group's
# proof that it sees acknowledged data a server lost)
echo '/srv/nfs 169.254.0.0/16(rw,@EXPORT@,no_subtree_check,no_root_squash,fsid=1)' > /etc/exports
# A restored server goes on from the moment it was saved, a few seconds
# after nfsd started: v4's grace is ended at once below. After a hard reset
# (the reboot group) the clients need the grace to reclaim: 45 s (knfsd's
# default is 90). Measured with 10 s: a v4.0 client lost its lock ("NFS:
# lost 1 locks"; v4.1+ clients get more time until RECLAIM_COMPLETE).
mkdir -p /etc/nfs.conf.d
printf '[nfsd]\ngrace-time=45\nlease-time=10\n' > /etc/nfs.conf.d/lab.conf
# lockd is built into the lab's kernels, a module of Debian's
echo 'options lockd nlm_grace_period=10' > /etc/modprobe.d/lab-lockd.conf
[ -e /proc/sys/fs/nfs/nlm_grace_period ] || modprobe lockd
echo 10 > /proc/sys/fs/nfs/nlm_grace_period
echo 'fs.nfs.nlm_grace_period = 10' > /etc/sysctl.d/lab-nfs.conf
# A hard reset (the reboot group) boots this disk again without this
# script: the export, rpcbind and the server come back by themselves, and
# nfsd's grace lets the clients reclaim.
echo '/dev/vdc /srv/nfs ext4 defaults 0 2' >> /etc/fstab
# sm-notify tells v3 clients the server restarted, so they reclaim their
# locks (the image masks it: only a server needs it)
systemctl unmask rpc-statd-notify.service
systemctl enable rpcbind.service nfs-server.service
systemctl start rpcbind nfs-server
exportfs -ra
# A server with no client to reclaim may have ended its grace already; a
# second end is an I/O error.
grep -q Y /proc/fs/nfsd/v4_end_grace || echo Y > /proc/fs/nfsd/v4_end_grace
