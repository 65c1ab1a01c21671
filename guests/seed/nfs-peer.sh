# nfs-peer role: the second client of the interop topology; t101 runs
# there as a part and mounts the export itself (at the version under test)
mkdir -p /mnt/nfs-peer
systemctl start rpcbind
