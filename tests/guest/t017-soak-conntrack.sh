#!/bin/sh
# t017-soak-conntrack - the soak's conntrack side (a part of t017): t014's
# namespace churn at soak size, LAB_NETNS namespaces a set (default 512:
# two sets, 1024 alive at the peak), for the NFS client's and the tty
# guest's flows (not the NFS server's: it serves NFS).
set -eu
exec env LAB_NET_CLIENTS=nfs-client,tty LAB_NETNS="${LAB_NETNS:-512}" \
	LAB_ROUNDS="${LAB_ROUNDS:-4}" LAB_BOUND="${LAB_BOUND:-560}" \
	"$(dirname "$0")/t014-netns-churn-serve"
