// SPDX-License-Identifier: GPL-2.0
/*
 * lab-netns - many network namespaces at once, for the conntrack guest's
 * network tests (t012, t014): one process where `ip netns add`, `ip -n`
 * and `ip netns exec nft` cost a process each per namespace (a second and
 * more per namespace under TCG).
 *
 *   lab-netns add PREFIX FIRST COUNT
 *	Namespaces PREFIXi, i in [FIRST, FIRST+COUNT), as `ip netns add`
 *	makes them (a bind mount of the namespace on /run/netns/PREFIXi), so
 *	that ip(8), conntrack(8) and `ip netns del` see them; first waits
 *	until the root-side veths of a set deleted before are gone.
 *   lab-netns veths PREFIX FIRST COUNT
 *	Print the `ip -batch` lines that give each a veth pair (vI in the
 *	root, e0 inside) and the root side its address (lab_netplan.h).
 *   lab-netns wire PREFIX FIRST COUNT NFTFILE
 *	Inside each: e0's address, e0 and lo up, the default route via the
 *	root side (ioctls), NFTFILE's ruleset (libnftables: conntrack runs in
 *	a namespace only once a rule needs it), and conntrack timeouts of
 *	closed TCP and of UDP flows raised to KEEP_S, so that a test's check
 *	after its slowest client still finds every entry.
 *   lab-netns del PREFIX FIRST COUNT
 *	Delete them as `ip netns del` does, and wait until their root-side
 *	veths are gone with them (the kernel dismantles a namespace later).
 *   lab-netns purge PREFIX
 *	Delete every namespace whose name starts with PREFIX (cleanup).
 *   lab-netns count PREFIX FIRST COUNT
 *	Print "I ENTRIES" per namespace: its nf_conntrack_count.
 *   lab-netns plan FIRST COUNT
 *	Print "I ADDRESS" per namespace: the address its services listen on.
 *
 * Exit 0, or 3 with the failing step on standard error.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <net/route.h>
#include <nftables/libnftables.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lab_netplan.h"

#define NETNS_DIR "/run/netns"
#define KEEP_S "600"	/* longer than any test's bound */
#define GONE_MS 60000	/* a deleted set's veths are gone by then, */
#define GONE_MS_EACH 500	/* plus this per namespace of the set */

static void die(const char *what, const char *detail)
{
	fprintf(stderr, "lab-netns: %s %s: %s\n", what, detail, strerror(errno));
	exit(3);
}

static void ns_path(const char *prefix, int i, char *buf, size_t size)
{
	snprintf(buf, size, NETNS_DIR "/%s%d", prefix, i);
}

static void enter(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET))
		die("enter", path);
	close(fd);
}

/* ---- add / del ---- */

static void add_one(const char *path)
{
	int fd;

	fd = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (fd < 0)
		die("create", path);
	close(fd);
	if (unshare(CLONE_NEWNET))
		die("unshare", path);
	if (mount("/proc/self/ns/net", path, "none", MS_BIND, NULL)) {
		int e = errno;

		unlink(path);
		errno = e;
		die("bind mount", path);
	}
}

static int wait_set_gone(int first, int count);

/* A set purged just before (a test's start, the soak's next iteration) may
 * still be dismantled: its veths' names must be free first. */
static int add(const char *prefix, int first, int count)
{
	char path[256];

	if (wait_set_gone(first, count))
		return 3;
	if (mkdir(NETNS_DIR, 0755) && errno != EEXIST)
		die("mkdir", NETNS_DIR);
	for (int i = first; i < first + count; i++) {
		ns_path(prefix, i, path, sizeof(path));
		add_one(path);
	}
	return 0;
}

/* A namespace goes in the background (cleanup_net, in batches: hundreds
 * at once take minutes under TCG), its veths with it: wait until root-side
 * vI is gone, so that a namespace made again under the same name and index
 * right after finds the name free.  One deadline for the whole set. */
static int wait_gone(int i, int deadline_ms, int *waited_ms)
{
	char path[64];

	snprintf(path, sizeof(path), "/sys/class/net/v%d", i);
	for (; *waited_ms < deadline_ms; *waited_ms += 20) {
		if (access(path, F_OK))
			return 0;
		usleep(20000);
	}
	return 3;
}

/* Every root-side veth of FIRST..FIRST+COUNT-1 gone, within one deadline
 * for the set: 0, or 3 with a message. */
static int wait_set_gone(int first, int count)
{
	int rc = 0, waited = 0, deadline = GONE_MS + count * GONE_MS_EACH;

	for (int i = first; i < first + count && !rc; i++)
		rc = wait_gone(i, deadline, &waited);
	if (rc)
		fprintf(stderr, "lab-netns: veths of deleted namespaces still there after %d s\n",
			deadline / 1000);
	return rc;
}

static int del(const char *prefix, int first, int count)
{
	char path[256];

	for (int i = first; i < first + count; i++) {
		ns_path(prefix, i, path, sizeof(path));
		if (umount2(path, MNT_DETACH) && errno != EINVAL && errno != ENOENT)
			die("umount", path);
		if (unlink(path) && errno != ENOENT)
			die("unlink", path);
	}
	return wait_set_gone(first, count);
}

static int purge(const char *prefix)
{
	DIR *d = opendir(NETNS_DIR);
	struct dirent *e;
	char path[512];

	if (!d)
		return errno == ENOENT ? 0 : 3;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, strlen(prefix))) {
			snprintf(path, sizeof(path), NETNS_DIR "/%s", e->d_name);
			umount2(path, MNT_DETACH);
			unlink(path);
		}
	closedir(d);
	return 0;
}

/* ---- veths / plan ---- */

static int veths(const char *prefix, int first, int count)
{
	char a[32];

	for (int i = first; i < first + count; i++) {
		lab_ns_addr((unsigned)i, 1, a, sizeof(a));
		printf("link add v%d type veth peer name e0 netns %s%d\n"
		       "addr add %s/30 dev v%d\nlink set v%d up\n", i, prefix, i, a, i, i);
	}
	return 0;
}

static int plan(int first, int count)
{
	char a[32];

	for (int i = first; i < first + count; i++) {
		lab_ns_addr((unsigned)i, 2, a, sizeof(a));
		printf("%d %s\n", i, a);
	}
	return 0;
}

/* ---- wire ---- */

static void set_ipv4(int fd, unsigned long req, const char *dev, const char *addr)
{
	struct ifreq ifr = { 0 };
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, addr, &sin->sin_addr);
	if (ioctl(fd, req, &ifr))
		die("address", addr);
}

static void set_up(int fd, const char *dev)
{
	struct ifreq ifr = { 0 };

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		die("flags of", dev);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr))
		die("up", dev);
}

static void default_route(int fd, const char *gw)
{
	struct rtentry rt = { 0 };
	struct sockaddr_in *sin;

	sin = (struct sockaddr_in *)&rt.rt_dst;
	sin->sin_family = AF_INET;
	sin = (struct sockaddr_in *)&rt.rt_genmask;
	sin->sin_family = AF_INET;
	sin = (struct sockaddr_in *)&rt.rt_gateway;
	sin->sin_family = AF_INET;
	inet_pton(AF_INET, gw, &sin->sin_addr);
	rt.rt_flags = RTF_UP | RTF_GATEWAY;
	if (ioctl(fd, SIOCADDRT, &rt))
		die("default route via", gw);
}

/* A context per namespace: its netlink socket belongs to the namespace
 * the process is in when the context is made. */
static void load_rules(const char *file)
{
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);

	if (!nft)
		die("nft context for", file);
	if (nft_run_cmd_from_filename(nft, file)) {
		errno = EINVAL;
		die("nft ruleset", file);
	}
	nft_ctx_free(nft);
}

/* /proc/sys/net answers for the namespace the opener is in */
static void keep_entries(void)
{
	static const char *const knobs[] = {
		"nf_conntrack_tcp_timeout_time_wait", "nf_conntrack_tcp_timeout_close",
		"nf_conntrack_udp_timeout", "nf_conntrack_udp_timeout_stream",
	};

	for (size_t k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++) {
		char path[128];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/sys/net/netfilter/%s", knobs[k]);
		f = fopen(path, "we");
		if (!f || fputs(KEEP_S, f) < 0 || fclose(f))
			die("write", path);
	}
}

static void wire_one(int i, const char *file)
{
	char inner[32], outer[32];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket", "AF_INET");
	lab_ns_addr((unsigned)i, 2, inner, sizeof(inner));
	lab_ns_addr((unsigned)i, 1, outer, sizeof(outer));
	set_ipv4(fd, SIOCSIFADDR, "e0", inner);
	set_ipv4(fd, SIOCSIFNETMASK, "e0", "255.255.255.252");
	set_up(fd, "e0");
	set_up(fd, "lo");
	default_route(fd, outer);
	close(fd);
	load_rules(file);
	keep_entries();
}

static int wire(const char *prefix, int first, int count, const char *file)
{
	char path[256];
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (self < 0)
		die("open", "/proc/self/ns/net");
	for (int i = first; i < first + count; i++) {
		ns_path(prefix, i, path, sizeof(path));
		enter(path);
		wire_one(i, file);
	}
	if (setns(self, CLONE_NEWNET))
		die("setns back", "/proc/self/ns/net");
	return 0;
}

/* ---- count ---- */

static int count_entries(const char *prefix, int first, int count)
{
	char path[256];

	for (int i = first; i < first + count; i++) {
		FILE *f;
		long n = -1;

		ns_path(prefix, i, path, sizeof(path));
		enter(path);
		/* /proc/sys/net answers for the opener's namespace */
		f = fopen("/proc/sys/net/netfilter/nf_conntrack_count", "re");
		if (!f || fscanf(f, "%ld", &n) != 1)
			die("nf_conntrack_count in", path);
		fclose(f);
		printf("%d %ld\n", i, n);
	}
	return 0;
}

static int range_ok(int first, int count)
{
	return first >= 0 && count >= 1 && first + count <= LAB_NS_MAX;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "";

	if (argc == 3 && !strcmp(cmd, "purge") && argv[2][0])
		return purge(argv[2]);
	if (argc == 4 && !strcmp(cmd, "plan") && range_ok(atoi(argv[2]), atoi(argv[3])))
		return plan(atoi(argv[2]), atoi(argv[3]));
	if (argc >= 5 && range_ok(atoi(argv[3]), atoi(argv[4]))) {
		int first = atoi(argv[3]), count = atoi(argv[4]);

		if (argc == 5 && !strcmp(cmd, "add"))
			return add(argv[2], first, count);
		if (argc == 5 && !strcmp(cmd, "del"))
			return del(argv[2], first, count);
		if (argc == 5 && !strcmp(cmd, "veths"))
			return veths(argv[2], first, count);
		if (argc == 5 && !strcmp(cmd, "count"))
			return count_entries(argv[2], first, count);
		if (argc == 6 && !strcmp(cmd, "wire"))
			return wire(argv[2], first, count, argv[5]);
	}
	fprintf(stderr, "usage: lab-netns add|del|veths|count PREFIX FIRST COUNT\n"
			"       lab-netns purge PREFIX\n"
			"       lab-netns wire PREFIX FIRST COUNT NFTFILE\n"
			"       lab-netns plan FIRST COUNT\n");
	return 3;
}
