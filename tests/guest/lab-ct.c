// SPDX-License-Identifier: GPL-2.0
/*
 * lab-ct - bulk conntrack inserts and lookups in one network namespace,
 * over ctnetlink, for t011.
 *
 *   lab-ct NETNS insert FIRST COUNT MARK   prints "inserted=N exists=M"
 *   lab-ct NETNS get FIRST COUNT           prints "probes=N found=M marks=A,B"
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

int main(int argc, char **argv)
{
	bool ins = argc == 6 && !strcmp(argv[2], "insert");
	int fd;

	if (!ins && !(argc == 5 && !strcmp(argv[2], "get"))) {
		fprintf(stderr, "usage: lab-ct NETNS insert FIRST COUNT MARK | NETNS get FIRST COUNT\n");
		return 3;
	}
	fd = open_in(argv[1]);
	if (ins)
		return do_insert(fd, atoi(argv[3]), atoi(argv[4]),
				 (uint32_t)strtoul(argv[5], NULL, 10));
	return do_get(fd, atoi(argv[3]), atoi(argv[4]));
}
