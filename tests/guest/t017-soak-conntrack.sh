#!/bin/sh
# t017-soak-conntrack - the soak's conntrack side (a part of t017): t014's
# namespace churn at soak size, LAB_NETNS namespaces a set (default 256:
# two sets, 512 alive at the peak; 512 a set took the 768 MiB guest to
# 200 MiB free and past the iteration's bound under TCG), 3 rounds, for
# the NFS client's and the tty guest's flows (not the NFS server's).
set -eu
exec env LAB_NET_CLIENTS=nfs-client,tty LAB_NETNS="${LAB_NETNS:-256}" \
	LAB_ROUNDS="${LAB_ROUNDS:-3}" LAB_BOUND="${LAB_BOUND:-860}" \
	"$(dirname "$0")/t014-netns-churn-serve"
