// SPDX-License-Identifier: GPL-2.0
/*
 * lab-flows - TCP and UDP echo flows into many network namespaces, for
 * t012 and t014: one process serves every namespace, one process per
 * client opens every flow at once.
 *
 *   lab-flows serve PREFIX FIRST N PORT0 CTRL CLIENTS SECONDS SERVED
 *	In namespace PREFIXi (/run/netns), i in [FIRST, FIRST+N), listen on
 *	TCP and UDP port PORT0+i (a socket keeps the namespace it was made
 *	in: one setns() each) and echo what comes; in our own namespace take
 *	"done" lines on TCP port CTRL; end when CLIENTS said done or after
 *	SECONDS.  SERVED gets "I TCP UDP" per namespace: the connections and
 *	the UDP clients its service handled.
 *   lab-flows connect HOST PORT0 FIRST N CTRL ID SECONDS
 *	Wait for HOST:CTRL (the server is up), then open a TCP and a UDP
 *	flow to namespace i's address (lab_netplan.h), port PORT0+i, for
 *	WINDOW namespaces at once, the next as one is done (the client routes
 *	10.77.0.0/16 through HOST): each TCP flow sends TCP_BYTES and
 *	reads them back, each UDP flow UDP_DGRAMS datagrams (resent until
 *	echoed, a bounded number of times); every byte is compared with what
 *	was sent (a pattern of ID, flow and offset).  Then "done" on CTRL.
 *
 * Both print "# counts: ..." and exit 0, 1 (data came back wrong or not at
 * all) or 3 (setup failed).  poll(2) only: no threads, no sleeps.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "lab_netplan.h"

#define MAX_NS		4096
#define TCP_BYTES	16384
#define UDP_DGRAMS	4
#define UDP_SIZE	512
/* UDP datagrams not echoed are sent again after 1, 2, 4, 8, 8... s: a
 * namespace made beside hundreds of others under TCG can take seconds to
 * pass its first packets */
#define UDP_TRIES	8
#define UDP_RESEND_MS	1000
#define FLOWS_MS	90000	/* every flow is done well within this */
#define WINDOW		64	/* namespaces a client has flows in the air to */

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void die(const char *what)
{
	fprintf(stderr, "lab-flows: %s: %s\n", what, strerror(errno));
	printf("# lab-flows: %s: %s\n", what, strerror(errno));
	exit(3);
}

/* The byte at OFF of flow FLOW of client ID: both ends can compute it. */
static unsigned char pattern(unsigned id, unsigned flow, unsigned off)
{
	uint32_t x = id * 2654435761u ^ flow * 40503u ^ off * 2246822519u;

	x ^= x >> 15;
	return (unsigned char)(x * 2654435761u >> 24);
}

static struct sockaddr_in addr_of(const char *host, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };

	if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
		errno = EINVAL;
		die(host);
	}
	return a;
}

static int bound_socket(int type, int port)
{
	struct sockaddr_in a = addr_of("0.0.0.0", port);
	int one = 1, fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		die("socket");
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&a, sizeof(a)))
		die("bind");
	if (type == SOCK_STREAM && listen(fd, 64))
		die("listen");
	return fd;
}

/* ---- serve ---- */

#define PEERS_MAX	8	/* clients told apart per namespace */

struct served {
	long tcp_conns, tcp_bytes, udp_dgrams, done;
	/* per namespace: TCP connections accepted, UDP clients echoed */
	int *ns_tcp, *ns_udp;
	uint32_t (*udp_peer)[PEERS_MAX];
};

static void echo_tcp(struct pollfd *p, struct served *st)
{
	char buf[4096];
	ssize_t n = read(p->fd, buf, sizeof(buf));

	if (n > 0) {
		/* blocking write: the client reads while it writes */
		int fl = fcntl(p->fd, F_GETFL);

		fcntl(p->fd, F_SETFL, fl & ~O_NONBLOCK);
		if (write(p->fd, buf, (size_t)n) == n)
			st->tcp_bytes += n;
		fcntl(p->fd, F_SETFL, fl);
		return;
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(p->fd);
		p->fd = -1;
	}
}

static void echo_udp(int fd, struct served *st, int ns)
{
	char buf[2048];
	struct sockaddr_in from;
	socklen_t len = sizeof(from);
	ssize_t n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &len);

	if (n <= 0 || sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, len) != n)
		return;
	st->udp_dgrams++;
	for (int k = 0; k < PEERS_MAX; k++) {
		if (st->udp_peer[ns][k] == from.sin_addr.s_addr)
			return;
		if (!st->udp_peer[ns][k]) {
			st->udp_peer[ns][k] = from.sin_addr.s_addr;
			st->ns_udp[ns]++;
			return;
		}
	}
}

/* "I TCP UDP" per namespace: what its service handled, for the check */
static void write_served(const char *path, const struct served *st, int first, int n)
{
	FILE *f = fopen(path, "we");

	if (!f)
		die(path);
	for (int i = 0; i < n; i++)
		fprintf(f, "%d %d %d\n", first + i, st->ns_tcp[i], st->ns_udp[i]);
	if (fclose(f))
		die(path);
}

static void read_done(struct pollfd *p, struct served *st)
{
	char buf[256];
	ssize_t n = read(p->fd, buf, sizeof(buf) - 1);

	if (n > 0) {
		buf[n] = '\0';
		for (char *q = buf; (q = strstr(q, "done")); q += 4)
			st->done++;
		return;
	}
	if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
		close(p->fd);
		p->fd = -1;
	}
}

/* Listeners: [0, 2n) TCP and UDP of each namespace, 2n the control. */
static int open_listeners(struct pollfd *fds, const char *prefix, int first, int n,
			  int port0, int ctrl)
{
	int self = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);

	if (self < 0)
		die("/proc/self/ns/net");
	for (int i = 0; i < n; i++) {
		char path[256];
		int ns;

		snprintf(path, sizeof(path), "/run/netns/%s%d", prefix, first + i);
		ns = open(path, O_RDONLY | O_CLOEXEC);
		if (ns < 0 || setns(ns, CLONE_NEWNET))
			die(path);
		close(ns);
		fds[2 * i] = (struct pollfd){ bound_socket(SOCK_STREAM, port0 + first + i),
					      POLLIN, 0 };
		fds[2 * i + 1] = (struct pollfd){ bound_socket(SOCK_DGRAM, port0 + first + i),
						  POLLIN, 0 };
	}
	if (setns(self, CLONE_NEWNET))
		die("setns back");
	close(self);
	fds[2 * n] = (struct pollfd){ bound_socket(SOCK_STREAM, ctrl), POLLIN, 0 };
	return 2 * n + 1;
}

static int serve(const char *prefix, int first, int n, int port0, int ctrl, int clients,
		 int secs, const char *served_file)
{
	int cap = 2 * n + 1 + 4 * n + 64, nfds, i;
	struct pollfd *fds = calloc((size_t)cap, sizeof(*fds));
	char *is_ctrl = calloc((size_t)cap, 1);
	uint64_t until = now_ms() + (uint64_t)secs * 1000;
	struct served st = { .ns_tcp = calloc((size_t)n, sizeof(int)),
			     .ns_udp = calloc((size_t)n, sizeof(int)),
			     .udp_peer = calloc((size_t)n, sizeof(*st.udp_peer)) };

	if (!fds || !is_ctrl || !st.ns_tcp || !st.ns_udp || !st.udp_peer)
		die("calloc");
	nfds = open_listeners(fds, prefix, first, n, port0, ctrl);
	printf("# serving TCP and UDP ports %d-%d in %d namespaces, control on %d\n",
	       port0 + first, port0 + first + n - 1, n, ctrl);
	fflush(stdout);
	while (st.done < clients && now_ms() < until) {
		if (poll(fds, (nfds_t)nfds, 200) < 0 && errno != EINTR)
			die("poll");
		for (i = 0; i < nfds; i++) {
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (i < 2 * n + 1 && (i == 2 * n || i % 2 == 0)) {
				int c = accept4(fds[i].fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

				if (c >= 0 && nfds < cap) {
					is_ctrl[nfds] = i == 2 * n;
					fds[nfds++] = (struct pollfd){ c, POLLIN, 0 };
					st.tcp_conns += i != 2 * n;
					if (i != 2 * n)
						st.ns_tcp[i / 2]++;
				} else if (c >= 0) {
					close(c);
				}
			} else if (i < 2 * n) {
				echo_udp(fds[i].fd, &st, i / 2);
			} else if (is_ctrl[i]) {
				read_done(&fds[i], &st);
			} else {
				echo_tcp(&fds[i], &st);
			}
		}
	}
	printf("# counts: namespaces=%d tcp_conns=%ld tcp_bytes=%ld udp_dgrams=%ld clients_done=%ld\n",
	       n, st.tcp_conns, st.tcp_bytes, st.udp_dgrams, st.done);
	write_served(served_file, &st, first, n);
	return st.done < clients ? 1 : 0;
}

/* ---- connect ---- */

struct flow {
	int fd;
	unsigned sent, got;      /* TCP: bytes; UDP: datagrams echoed (bitmask) */
	int tries;
	uint64_t resend_at;
	int bad;                 /* bytes or datagrams that came back wrong */
	int err;                 /* TCP: the errno that ended it early, or 0 */
	int opened;
	int retried;             /* TCP: opened again once (RETRY_RESET, RETRY_EOF) */
};

static int wait_for_server(const char *host, int ctrl, uint64_t until)
{
	struct sockaddr_in a = addr_of(host, ctrl);

	while (now_ms() < until) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			die("socket");
		if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0)
			return fd;
		close(fd);
		poll(NULL, 0, 500);
	}
	return -1;
}

static void tcp_io(struct flow *f, short rev, unsigned id, unsigned i)
{
	unsigned char buf[4096];

	if ((rev & POLLOUT) && f->sent < TCP_BYTES) {
		unsigned n = TCP_BYTES - f->sent < sizeof(buf) ? TCP_BYTES - f->sent : sizeof(buf);
		ssize_t w;

		for (unsigned k = 0; k < n; k++)
			buf[k] = pattern(id, i, f->sent + k);
		w = write(f->fd, buf, n);
		if (w > 0)
			f->sent += (unsigned)w;
		if (f->sent == TCP_BYTES)
			shutdown(f->fd, SHUT_WR);
	}
	if (rev & (POLLIN | POLLHUP | POLLERR)) {
		ssize_t r = read(f->fd, buf, sizeof(buf));

		for (ssize_t k = 0; k < r; k++)
			f->bad += buf[k] != pattern(id, i, f->got + (unsigned)k);
		if (r > 0)
			f->got += (unsigned)r;
		else if (r == 0 || (errno != EAGAIN && errno != EINTR && errno != EINPROGRESS)) {
			f->err = r < 0 ? errno : 0;
			close(f->fd);
			f->fd = -1;
		}
	}
}

static void udp_send(struct flow *f, unsigned id, unsigned i)
{
	unsigned char d[UDP_SIZE];

	for (unsigned s = 0; s < UDP_DGRAMS; s++) {
		if (f->got & (1u << s))
			continue;
		d[0] = (unsigned char)s;
		for (unsigned k = 1; k < UDP_SIZE; k++)
			d[k] = pattern(id, i + MAX_NS, s * UDP_SIZE + k);
		if (send(f->fd, d, sizeof(d), 0) == (ssize_t)sizeof(d))
			f->sent++;
	}
	f->tries++;
	f->resend_at = now_ms() + ((uint64_t)UDP_RESEND_MS << (f->tries < 4 ? f->tries - 1 : 3));
}

static void udp_recv(struct flow *f, unsigned id, unsigned i)
{
	unsigned char d[UDP_SIZE + 1];
	ssize_t r = recv(f->fd, d, sizeof(d), 0);
	unsigned s;

	if (r != UDP_SIZE || d[0] >= UDP_DGRAMS) {
		f->bad += r > 0;
		return;
	}
	s = d[0];
	for (unsigned k = 1; k < UDP_SIZE; k++)
		if (d[k] != pattern(id, i + MAX_NS, s * UDP_SIZE + k)) {
			f->bad++;
			return;
		}
	f->got |= 1u << s;
}

/* Flow I (TCP when even) to namespace I/2, opened now. */
static void open_flow(struct flow *f, struct pollfd *fds, int port0, int first, int i)
{
	char host[32];
	struct sockaddr_in a;
	int udp = i % 2;

	lab_ns_addr((unsigned)(first + i / 2), 2, host, sizeof(host));
	a = addr_of(host, port0 + first + i / 2);
	f[i] = (struct flow){ .fd = socket(AF_INET, (udp ? SOCK_DGRAM : SOCK_STREAM) |
					   SOCK_NONBLOCK | SOCK_CLOEXEC, 0), .opened = 1,
			      .retried = f[i].retried };
	if (f[i].fd < 0)
		die("socket");
	if (connect(f[i].fd, (struct sockaddr *)&a, sizeof(a)) && errno != EINPROGRESS)
		die("connect");
	fds[i] = (struct pollfd){ f[i].fd, (short)(udp ? POLLIN : POLLIN | POLLOUT), 0 };
}

static void open_pair(struct flow *f, struct pollfd *fds, int port0, int first, int p)
{
	open_flow(f, fds, port0, first, 2 * p);
	open_flow(f, fds, port0, first, 2 * p + 1);
}

enum { RETRY_RESET = 1, RETRY_EOF = 2 };

/* A TCP flow reset before its data came back, or closed by the far end
 * before a byte came back (both seen under TCG load on every kernel, with
 * hundreds of namespaces; the cause not found), is opened again, once, and
 * counted by kind; its data is checked like any other's.  A second cut
 * stands, and so does an end after some data came back. */
static void retry_cut(struct flow *f, struct pollfd *fds, int port0, int first, int i)
{
	int why = f[i].err == ECONNRESET ? RETRY_RESET
		: f[i].err == 0 && f[i].got == 0 ? RETRY_EOF : 0;

	if (i % 2 || !f[i].opened || f[i].fd >= 0 || f[i].got == TCP_BYTES || f[i].bad ||
	    !why || f[i].retried)
		return;
	f[i].retried = why;
	open_flow(f, fds, port0, first, i);
}

static int pair_done(const struct flow *f, int p)
{
	const struct flow *u = &f[2 * p + 1];

	return f[2 * p].opened && f[2 * p].fd < 0 &&
	       (u->got == (1u << UDP_DGRAMS) - 1 ||
		(u->tries >= UDP_TRIES && now_ms() >= u->resend_at));
}

/* Open pairs until WINDOW are in the air; 1 when every pair is done. */
static int top_up(struct flow *f, struct pollfd *fds, int port0, int first, int n, unsigned id)
{
	int busy = 0, p;

	for (p = 0; p < n && f[2 * p].opened; p++)
		busy += !pair_done(f, p);
	for (; p < n && busy < WINDOW; p++, busy++) {
		open_pair(f, fds, port0, first, p);
		udp_send(&f[2 * p + 1], id, (unsigned)p);
	}
	return busy == 0 && p == n;
}

/* Why TCP flows did not complete: errno names (or "eof", "open at the
 * deadline") with counts, on one diagnostic line. */
static void why_short(const struct flow *f, int n)
{
	char line[512] = "";
	int eof = 0, open_n = 0, unopened = 0, errs[256] = { 0 };
	size_t used = 0;

	for (int i = 0; i < 2 * n; i += 2) {
		if (f[i].got == TCP_BYTES)
			continue;
		if (!f[i].opened)
			unopened++;
		else if (f[i].fd >= 0)
			open_n++;
		else if (f[i].err > 0 && f[i].err < 256)
			errs[f[i].err]++;
		else
			eof++;
	}
	for (int e = 1; e < 256; e++)
		if (errs[e] && used < sizeof(line) - 64)
			used += (size_t)snprintf(line + used, sizeof(line) - used, " %s %d",
						 strerrorname_np(e), errs[e]);
	if (eof || open_n || unopened || used)
		printf("# tcp flows cut short:%s eof %d, open at the deadline %d, never opened %d\n",
		       line, eof, open_n, unopened);
}

static int connect_all(const char *host, int port0, int first, int n, int ctrl, unsigned id,
		       int secs)
{
	uint64_t until = now_ms() + (uint64_t)secs * 1000, t0;
	struct flow *f = calloc((size_t)(2 * n), sizeof(*f));
	struct pollfd *fds = calloc((size_t)(2 * n), sizeof(*fds));
	long tcp_ok = 0, udp_ok = 0, bad = 0, bytes = 0, resets = 0, eofs = 0, resent = 0;
	/* the server sets up its namespaces first (hundreds take minutes under
	 * TCG): wait for it within our own bound */
	int c = wait_for_server(host, ctrl, until), nfds;

	if (!f || !fds)
		die("calloc");
	if (c < 0) {
		printf("# the server never answered on %s:%d\n", host, ctrl);
		free(f);
		free(fds);
		return 3;
	}
	t0 = now_ms();
	if (until > t0 + FLOWS_MS)
		until = t0 + FLOWS_MS;	/* a stuck flow must not outlast the entries */
	nfds = 2 * n;
	for (int i = 0; i < nfds; i++)
		f[i].fd = fds[i].fd = -1;
	while (!top_up(f, fds, port0, first, n, id) && now_ms() < until) {
		if (poll(fds, (nfds_t)nfds, 100) < 0 && errno != EINTR)
			die("poll");
		for (int i = 0; i < nfds; i++) {
			if (i % 2 == 0 && f[i].fd >= 0 && fds[i].revents) {
				tcp_io(&f[i], fds[i].revents, id, (unsigned)i / 2);
				retry_cut(f, fds, port0, first, i);
			}
			else if (i % 2 == 1 && (fds[i].revents & POLLIN))
				udp_recv(&f[i], id, (unsigned)i / 2);
			if (i % 2 == 1 && f[i].opened && f[i].got != (1u << UDP_DGRAMS) - 1 &&
			    f[i].tries < UDP_TRIES && now_ms() >= f[i].resend_at)
				udp_send(&f[i], id, (unsigned)i / 2);
			fds[i].fd = f[i].fd;
			if (i % 2 == 0 && f[i].sent == TCP_BYTES)
				fds[i].events = POLLIN;
		}
	}
	why_short(f, n);
	for (int i = 0; i < nfds; i++) {
		bad += f[i].bad;
		if (i % 2 == 0) {
			tcp_ok += f[i].got == TCP_BYTES && !f[i].bad;
			resets += f[i].retried == RETRY_RESET;
			eofs += f[i].retried == RETRY_EOF;
			bytes += f[i].got;
		} else {
			udp_ok += f[i].got == (1u << UDP_DGRAMS) - 1 && !f[i].bad;
			resent += f[i].tries > 1 ? f[i].tries - 1 : 0;
		}
		if (f[i].fd >= 0)
			close(f[i].fd);
	}
	if (write(c, "done\n", 5) != 5)
		printf("# could not tell the server we are done\n");
	close(c);
	free(f);
	free(fds);
	printf("# counts: client=%u tcp_flows=%d tcp_intact=%ld tcp_reset_retried=%ld tcp_eof_retried=%ld udp_flows=%d udp_intact=%ld udp_resent=%ld bytes_echoed=%ld bad=%ld flow_seconds=%.1f\n",
	       id, n, tcp_ok, resets, eofs, n, udp_ok, resent, bytes, bad, (double)(now_ms() - t0) / 1000);
	return tcp_ok == n && udp_ok == n ? 0 : 1;
}

/* Six descriptors a namespace on the server, two on a client: past the
 * default soft limit of 1024 from a few hundred namespaces on. */
static void raise_nofile(void)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int range_ok(int first, int n)
{
	return first >= 0 && n >= 1 && n <= MAX_NS && first + n <= LAB_NS_MAX;
}

int main(int argc, char **argv)
{
	raise_nofile();
	if (argc == 10 && !strcmp(argv[1], "serve")) {
		int first = atoi(argv[3]), n = atoi(argv[4]);

		if (!range_ok(first, n))
			return 3;
		return serve(argv[2], first, n, atoi(argv[5]), atoi(argv[6]), atoi(argv[7]),
			     atoi(argv[8]), argv[9]);
	}
	if (argc == 9 && !strcmp(argv[1], "connect")) {
		int first = atoi(argv[4]), n = atoi(argv[5]);

		if (!range_ok(first, n))
			return 3;
		return connect_all(argv[2], atoi(argv[3]), first, n, atoi(argv[6]),
				   (unsigned)atoi(argv[7]), atoi(argv[8]));
	}
	fprintf(stderr, "usage: lab-flows serve PREFIX FIRST N PORT0 CTRL CLIENTS SECONDS SERVED\n"
			"       lab-flows connect HOST PORT0 FIRST N CTRL ID SECONDS\n");
	return 3;
}
