# ganesha role: NFS-Ganesha 4.3 (user space, FSAL VFS) exports a fresh
# ext4 scratch disk for v3 and v4.0-4.2: the interop peer that is not knfsd.
mkfs.ext4 -q -F /dev/vdc
mount /dev/vdc /srv/nfs
chmod 1777 /srv/nfs
# knfsd must never run here: its nfsd and rpc.mountd would fight ganesha
# for port 2049 and for the NFS and MOUNT registrations with rpcbind.
systemctl mask --now nfs-server.service nfs-mountd.service
# Keys and values as in ganesha-core-config(8)/ganesha-export-config(8) of
# 4.3. Access only for the lab's link-local network (CLIENT block; the
# export itself grants none). A fresh server has nothing to reclaim, so
# the grace period is short (10 s; 4.3 accepts 0-270, lease 0-180, and
# warns when grace < lease).
mkdir -p /etc/ganesha
cat > /etc/ganesha/ganesha.conf <<'EOF'
# Written by the lab's ganesha role (guests/seed/ganesha.sh).
NFS_CORE_PARAM {
    # v3 mounts name the export by its pseudo path, as v4 does
    mount_path_pseudo = true;
    Protocols = 3, 4;
}
NFSv4 {
    Grace_Period = 10;
    Lease_Lifetime = 10;
    Minor_Versions = 0, 1, 2;
}
EXPORT {
    Export_Id = 1;
    Path = /srv/nfs;
    Pseudo = /srv/nfs;
    Protocols = 3, 4;
    Access_Type = None;
    Squash = No_Root_Squash;
    SecType = sys;
    CLIENT {
        Clients = 169.254.0.0/16;
        Access_Type = RW;
    }
    FSAL {
        Name = VFS;
    }
}
EOF
# nfs-ganesha.service pulls in nfs-ganesha-lock.service (rpc.statd, for
# v3's NLM); both are disabled in the image (guests/image/customize.sh).
# ganesha's admin interface (and its ExecStop) is on D-Bus.
systemctl start dbus rpcbind nfs-ganesha
# A hard reset (the reboot group) boots this disk again without this
# script: the export and the server come back by themselves, and the
# grace period lets the clients reclaim (ganesha keeps its clients in
# /var/lib/nfs/ganesha).
echo '/dev/vdc /srv/nfs ext4 defaults 0 2' >> /etc/fstab
systemctl add-wants multi-user.target dbus.service
systemctl enable rpcbind.service nfs-ganesha.service
# v3 clients reclaim their locks when sm-notify says the server restarted
# (the image masks it: only a server needs it), once ganesha serves NLM
systemctl unmask rpc-statd-notify.service
mkdir -p /etc/systemd/system/rpc-statd-notify.service.d
printf '[Unit]\nAfter=nfs-ganesha.service\n' > /etc/systemd/system/rpc-statd-notify.service.d/ganesha.conf
systemctl add-wants multi-user.target rpc-statd-notify.service
# Serve before lab-seed says ready: the saved ready state then restores a
# server that answers and is past its grace period.
for _ in $(seq 60); do
	rpcinfo -t localhost nfs 4 >/dev/null 2>&1 && break
	sleep 1
done
rpcinfo -t localhost nfs 4
timeout 60 sh -c 'until grep -qs "NOT IN GRACE" /var/log/ganesha/ganesha.log; do sleep 1; done' ||
	echo 'lab: ganesha still in grace after 60 s' > /dev/kmsg
# After a hard reset (the reboot group) the clients need the grace to
# reclaim: 45 s from the next start on (this start's short grace is over).
sed -i 's/Grace_Period = 10;/Grace_Period = 45;/' /etc/ganesha/ganesha.conf
