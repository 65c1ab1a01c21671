// SPDX-License-Identifier: GPL-2.0
/*
 * lab-ct - bulk conntrack inserts and lookups in one network namespace,
 * over ctnetlink, for t011.
 *
 *   lab-ct NETNS insert FIRST COUNT MARK   prints "inserted=N exists=M"
 *   lab-ct NETNS get FIRST COUNT           prints "probes=N found=M marks=A,B"
 *   lab-ct dump PREFIX FIRST COUNT         prints "I PROTO SRC DST SPORT DPORT"
 *	for every TCP and UDP entry of namespaces PREFIXi (t012, t014: one
 *	process for every namespace's table, where `ip netns exec conntrack -L`
 *	is two per namespace)
 *
 * Entry I is UDP 169.254.77.1:(40000+I) -> 169.254.77.2:5353, the same in
 * every namespace.  conntrack(8) does one operation per process, and
 * `conntrack -R` stops at the first EEXIST and refuses -G; at hundreds of
 * namespaces, one process per operation under TCG is minutes.  The
 * requests are the ones conntrack -I / -G send (IPCTNL_MSG_CT_NEW with
 * NLM_F_CREATE|NLM_F_EXCL; IPCTNL_MSG_CT_GET on the original tuple).
 * Exit 0 when every request got its answer, 3 on any other error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/netfilter/nfnetlink.h>
#include <linux/netfilter/nfnetlink_conntrack.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define SRC	"169.254.77.1"
#define DST	"169.254.77.2"
#define SPORT0	40000
#define DPORT	5353
#define TIMEOUT	300

struct req {
	char buf[512];
	size_t len;
};

static void die(const char *what)
{
	fprintf(stderr, "lab-ct: %s: %s\n", what, strerror(errno));
	exit(3);
}

static struct nlattr *put(struct req *r, uint16_t type, const void *data, size_t size)
{
	struct nlattr *a = (struct nlattr *)(r->buf + r->len);

	a->nla_type = type;
	a->nla_len = (uint16_t)(NLA_HDRLEN + size);
	if (size)
		memcpy((char *)a + NLA_HDRLEN, data, size);
	r->len += NLA_ALIGN(a->nla_len);
	return a;
}

static void end_nest(struct req *r, struct nlattr *nest)
{
	nest->nla_len = (uint16_t)(r->buf + r->len - (char *)nest);
}

/* CTA_TUPLE_ORIG or CTA_TUPLE_REPLY: addresses and ports of one direction */
static void put_tuple(struct req *r, uint16_t which, const char *src,
		      const char *dst, uint16_t sport, uint16_t dport)
{
	struct nlattr *t = put(r, which | NLA_F_NESTED, NULL, 0), *n;
	uint32_t a;
	uint16_t p;
	uint8_t proto = IPPROTO_UDP;

	n = put(r, CTA_TUPLE_IP | NLA_F_NESTED, NULL, 0);
	inet_pton(AF_INET, src, &a);
	put(r, CTA_IP_V4_SRC, &a, sizeof(a));
	inet_pton(AF_INET, dst, &a);
	put(r, CTA_IP_V4_DST, &a, sizeof(a));
	end_nest(r, n);
	n = put(r, CTA_TUPLE_PROTO | NLA_F_NESTED, NULL, 0);
	put(r, CTA_PROTO_NUM, &proto, sizeof(proto));
	p = htons(sport);
	put(r, CTA_PROTO_SRC_PORT, &p, sizeof(p));
	p = htons(dport);
	put(r, CTA_PROTO_DST_PORT, &p, sizeof(p));
	end_nest(r, n);
	end_nest(r, t);
}

static void start(struct req *r, uint16_t msg, uint16_t flags, uint32_t seq)
{
	struct nlmsghdr *h;
	struct nfgenmsg *g;

	memset(r, 0, sizeof(*r));
	h = (struct nlmsghdr *)r->buf;
	h->nlmsg_type = (NFNL_SUBSYS_CTNETLINK << 8) | msg;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = seq;
	g = (struct nfgenmsg *)NLMSG_DATA(h);
	g->nfgen_family = AF_INET;
	g->version = NFNETLINK_V0;
	r->len = NLMSG_LENGTH(sizeof(*g));
}

/* The mark of a CT_NEW reply, or 0 */
static uint32_t mark_of(struct nlmsghdr *h)
{
	size_t off = NLMSG_LENGTH(sizeof(struct nfgenmsg));

	while (off + NLA_HDRLEN <= h->nlmsg_len) {
		struct nlattr *a = (struct nlattr *)((char *)h + off);

		if (a->nla_len < NLA_HDRLEN)
			break;
		if ((a->nla_type & NLA_TYPE_MASK) == CTA_MARK && a->nla_len >= NLA_HDRLEN + 4) {
			uint32_t m;

			memcpy(&m, (char *)a + NLA_HDRLEN, sizeof(m));
			return ntohl(m);
		}
		off += NLA_ALIGN(a->nla_len);
	}
	return 0;
}

/*
 * Send one request; returns 0 (acked, or for a get the entry, *mark set),
 * or the negative errno the kernel answered with.
 */
static int transact(int fd, struct req *r, uint32_t *mark)
{
	static char reply[8192];
	struct nlmsghdr *h = (struct nlmsghdr *)r->buf;
	ssize_t n;

	h->nlmsg_len = (uint32_t)r->len;
	if (send(fd, r->buf, r->len, 0) != (ssize_t)r->len)
		die("send");
	for (;;) {
		n = recv(fd, reply, sizeof(reply), 0);
		if (n < 0)
			die("recv");
		for (h = (struct nlmsghdr *)reply; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (mark && (h->nlmsg_type & 0xff) == IPCTNL_MSG_CT_NEW) {
				*mark = mark_of(h);
				return 0;
			}
		}
	}
}

static int insert(int fd, int i, uint32_t mark)
{
	uint32_t t = htonl(TIMEOUT), m = htonl(mark);
	struct req r;

	start(&r, IPCTNL_MSG_CT_NEW, NLM_F_ACK | NLM_F_CREATE | NLM_F_EXCL, (uint32_t)i + 1);
	put_tuple(&r, CTA_TUPLE_ORIG, SRC, DST, (uint16_t)(SPORT0 + i), DPORT);
	put_tuple(&r, CTA_TUPLE_REPLY, DST, SRC, DPORT, (uint16_t)(SPORT0 + i));
	put(&r, CTA_TIMEOUT, &t, sizeof(t));
	put(&r, CTA_MARK, &m, sizeof(m));
	return transact(fd, &r, NULL);
}

static int get(int fd, int i, uint32_t *mark)
{
	struct req r;

	start(&r, IPCTNL_MSG_CT_GET, 0, (uint32_t)i + 1);
	put_tuple(&r, CTA_TUPLE_ORIG, SRC, DST, (uint16_t)(SPORT0 + i), DPORT);
	return transact(fd, &r, mark);
}

static int open_in(const char *netns)
{
	char path[256];
	int nsfd, fd;

	snprintf(path, sizeof(path), "/run/netns/%s", netns);
	nsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (nsfd < 0)
		die(path);
	if (setns(nsfd, CLONE_NEWNET))
		die("setns");
	close(nsfd);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_NETFILTER);
	if (fd < 0)
		die("socket(NETLINK_NETFILTER)");
	return fd;
}

static int do_insert(int fd, int first, int count, uint32_t mark)
{
	int ok = 0, exists = 0, ret;

	for (int i = first; i < first + count; i++) {
		ret = insert(fd, i, mark);
		if (ret == 0)
			ok++;
		else if (ret == -EEXIST)
			exists++;	/* an equal entry was found: here, another netns' */
		else {
			errno = -ret;
			die("insert");
		}
	}
	printf("inserted=%d exists=%d\n", ok, exists);
	return 0;
}

static int do_get(int fd, int first, int count)
{
	char marks[4096] = "";
	size_t used = 0;
	uint32_t mark;
	int found = 0, ret;

	for (int i = first; i < first + count; i++) {
		ret = get(fd, i, &mark);
		if (ret == -ENOENT)
			continue;
		if (ret) {
			errno = -ret;
			die("get");
		}
		if (used < sizeof(marks) - 16)
			used += (size_t)snprintf(marks + used, sizeof(marks) - used,
						 found ? ",%u" : "%u", mark);
		found++;
	}
	printf("probes=%d found=%d marks=%s\n", count, found, found ? marks : "-");
	return 0;
}

/* ---- dump ---- */

/* The nested attribute TYPE inside [p, p+len), or NULL */
static struct nlattr *find(void *p, size_t len, uint16_t type)
{
	size_t off = 0;

	while (off + NLA_HDRLEN <= len) {
		struct nlattr *a = (struct nlattr *)((char *)p + off);

		if (a->nla_len < NLA_HDRLEN || off + a->nla_len > len)
			return NULL;
		if ((a->nla_type & NLA_TYPE_MASK) == type)
			return a;
		off += NLA_ALIGN(a->nla_len);
	}
	return NULL;
}

#define IN(a)	((char *)(a) + NLA_HDRLEN), ((size_t)(a)->nla_len - NLA_HDRLEN)

/* One entry's original tuple as "I PROTO SRC DST SPORT DPORT" */
static void print_entry(int i, struct nlmsghdr *h)
{
	size_t hdr = NLMSG_LENGTH(sizeof(struct nfgenmsg));
	struct nlattr *t = find((char *)h + hdr, h->nlmsg_len - hdr, CTA_TUPLE_ORIG);
	struct nlattr *ip = t ? find(IN(t), CTA_TUPLE_IP) : NULL;
	struct nlattr *pr = t ? find(IN(t), CTA_TUPLE_PROTO) : NULL;
	struct nlattr *s, *d, *num, *sp, *dp;
	char src[INET_ADDRSTRLEN], dst[INET_ADDRSTRLEN];
	uint16_t sport, dport;

	if (!ip || !pr)
		return;
	s = find(IN(ip), CTA_IP_V4_SRC);
	d = find(IN(ip), CTA_IP_V4_DST);
	num = find(IN(pr), CTA_PROTO_NUM);
	sp = find(IN(pr), CTA_PROTO_SRC_PORT);
	dp = find(IN(pr), CTA_PROTO_DST_PORT);
	if (!s || !d || !num || !sp || !dp)
		return;	/* not TCP or UDP over IPv4: not ours to check */
	inet_ntop(AF_INET, (char *)s + NLA_HDRLEN, src, sizeof(src));
	inet_ntop(AF_INET, (char *)d + NLA_HDRLEN, dst, sizeof(dst));
	memcpy(&sport, (char *)sp + NLA_HDRLEN, sizeof(sport));
	memcpy(&dport, (char *)dp + NLA_HDRLEN, sizeof(dport));
	switch (*((uint8_t *)num + NLA_HDRLEN)) {
	case IPPROTO_TCP:
		printf("%d tcp %s %s %u %u\n", i, src, dst, ntohs(sport), ntohs(dport));
		break;
	case IPPROTO_UDP:
		printf("%d udp %s %s %u %u\n", i, src, dst, ntohs(sport), ntohs(dport));
		break;
	}
}

/* Dump namespace I's table (IPCTNL_MSG_CT_GET with NLM_F_DUMP) */
static void dump_one(int fd, int i)
{
	static char reply[65536];
	struct req r;
	struct nlmsghdr *h;
	ssize_t n;

	start(&r, IPCTNL_MSG_CT_GET, NLM_F_DUMP, 1);
	((struct nlmsghdr *)r.buf)->nlmsg_len = (uint32_t)r.len;
	if (send(fd, r.buf, r.len, 0) != (ssize_t)r.len)
		die("send");
	for (;;) {
		n = recv(fd, reply, sizeof(reply), 0);
		if (n < 0)
			die("recv");
		for (h = (struct nlmsghdr *)reply; NLMSG_OK(h, (size_t)n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE)
				return;
			if (h->nlmsg_type == NLMSG_ERROR) {
				errno = -((struct nlmsgerr *)NLMSG_DATA(h))->error;
				die("dump");
			}
			print_entry(i, h);
		}
	}
}

static int do_dump(const char *prefix, int first, int count)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (self < 0)
		die("/proc/self/ns/net");
	for (int i = first; i < first + count; i++) {
		char name[256];
		int fd;

		snprintf(name, sizeof(name), "%s%d", prefix, i);
		fd = open_in(name);
		dump_one(fd, i);
		close(fd);
		if (setns(self, CLONE_NEWNET))
			die("setns back");
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool ins = argc == 6 && !strcmp(argv[2], "insert");
	int fd;

	if (argc == 5 && !strcmp(argv[1], "dump"))
		return do_dump(argv[2], atoi(argv[3]), atoi(argv[4]));
	if (!ins && !(argc == 5 && !strcmp(argv[2], "get"))) {
		fprintf(stderr, "usage: lab-ct NETNS insert FIRST COUNT MARK | NETNS get FIRST COUNT\n"
				"       lab-ct dump PREFIX FIRST COUNT\n");
		return 3;
	}
	fd = open_in(argv[1]);
	if (ins)
		return do_insert(fd, atoi(argv[3]), atoi(argv[4]),
				 (uint32_t)strtoul(argv[5], NULL, 10));
	return do_get(fd, atoi(argv[3]), atoi(argv[4]));
}
