# nfs-client role: the mount point; the tests mount per NFS version
mkdir -p /mnt/nfs
systemctl start rpcbind
