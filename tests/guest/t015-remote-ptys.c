// SPDX-License-Identifier: GPL-2.0
/*
 * t015 - remote terminal sessions on the tty host: the other guests open
 * many TCP connections at once, each the terminal of a new session on a pty
 * (what sshd and telnetd do for every login), type data that the session
 * echoes back through the tty layer, and hang up by closing the connection.
 *
 * One program, two sides (tests/suite.ini parts=tty:t015-remote-ptys):
 *   LAB_PART=tty, the server: per connection a pty whose slave is the
 *     controlling tty of a new session (setsid, raw mode); the session
 *     echoes what arrives, woken by SIGIO (F_SETOWN + O_ASYNC on its tty);
 *     the server relays between the connection and the master and resizes
 *     the terminal (SIGWINCH) every few chunks; the end of a connection
 *     closes the master, and the session must die of that hangup (SIGHUP).
 *     "done" from every client on the control port ends it.
 *   any other guest, a client: rounds of SESSIONS connections at once for
 *     LAB_DURATION seconds (default 20): each waits for its session's ready
 *     byte, sends CHUNKS chunks of CHUNK bytes one at a time, checks every
 *     echoed byte, and closes.
 * Counts: sessions, bytes echoed, SIGIOs, resizes, hangups, sessions/s.
 *   pass: every byte came back, every session ended by its hangup.
 *   fail: a byte lost or changed, a session that outlived its hangup or
 *         died otherwise.  A lockdep report on the tty guest (seed 004's
 *         cycle) is the runner's to see: this is a workload.
 */
#include "lab_test.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>

#define SESS_PORT		19500
#define CTRL_PORT		19499
#define SESSIONS	16		/* per client, at once */
#define CHUNK		256
#define CHUNKS		16
#define MAX_CONNS	512
#define DURATION_DEF	20
#define BOUND_S		170
#define HANGUP_MS	5000		/* a session must be gone this soon */
#define READY		'R'

struct tally {
	atomic_long sigio;
};

static struct tally *tally;

/* The byte at OFF of session S of client ID: both ends compute it. */
static unsigned char pattern(unsigned id, unsigned s, unsigned off)
{
	uint32_t x = id * 2654435761u ^ s * 40503u ^ off * 2246822519u;

	x ^= x >> 15;
	return (unsigned char)(x * 2654435761u >> 24);
}

/* LAB_GUESTS='ROLE=ADDR;...': ROLE's address, or NULL; *others counts
 * the guests that are not ROLE. */
static char *guest_addr(const char *role, int *others)
{
	static char addr[64];
	const char *g = getenv("LAB_GUESTS");
	char *copy = strdup(g ? g : ""), *save = NULL, *found = NULL;

	*others = 0;
	for (char *kv = strtok_r(copy, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq)
			continue;
		*eq = '\0';
		if (!strcmp(kv, role)) {
			snprintf(addr, sizeof(addr), "%s", eq + 1);
			found = addr;
		} else {
			++*others;
		}
	}
	free(copy);
	return found;
}

static int listener(int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 128))
		lab_fatal("listen on %d", port);
	return fd;
}

/* ---- the server's sessions ---- */

/* Wait up to 1 s for SIGIO (blocked): 1 if it came. */
static int sigio_wait(void)
{
	const struct timespec wait = { .tv_sec = 1 };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	return sigtimedwait(&set, NULL, &wait) == SIGIO;
}

/* Echo what arrives on the tty until the hangup kills us (SIGHUP's
 * default); exit 2 if the tty goes quiet for a minute, 1 on an error. */
static void echo_loop(int tty)
{
	char buf[CHUNK * 4];
	int quiet = 0;

	while (quiet < 60) {
		ssize_t n;

		if (sigio_wait())
			atomic_fetch_add(&tally->sigio, 1);
		else
			quiet++;
		while ((n = read(tty, buf, sizeof(buf))) > 0) {
			struct pollfd p = { tty, POLLOUT, 0 };

			quiet = 0;
			for (ssize_t off = 0; off < n;) {
				ssize_t w = write(tty, buf + off, (size_t)(n - off));

				if (w > 0)
					off += w;
				else if (errno == EAGAIN)
					poll(&p, 1, 1000);
				else
					_exit(1);
			}
		}
		if (n < 0 && errno != EAGAIN)
			_exit(errno == EIO ? 3 : 1);	/* hung up, yet alive */
	}
	_exit(2);
}

/* The child: a new session on pty NAME, raw, SIGIO-driven, then echo. */
static void session(const char *name)
{
	struct termios tio;
	sigset_t set;
	int tty;

	close_range(3, ~0U, 0);	/* no other connection's master or socket */
	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGHUP, SIG_DFL);
	if (setsid() < 0)
		_exit(1);
	tty = open(name, O_RDWR);	/* no O_NOCTTY: our controlling tty */
	if (tty < 0 || tcgetattr(tty, &tio))
		_exit(1);
	cfmakeraw(&tio);
	if (tcsetattr(tty, TCSANOW, &tio) || fcntl(tty, F_SETOWN, getpid()) ||
	    fcntl(tty, F_SETFL, O_RDWR | O_NONBLOCK | O_ASYNC))
		_exit(1);
	if (write(tty, (char[]){ READY }, 1) != 1)
		_exit(1);
	echo_loop(tty);
}

struct conn {
	int sock, master;
	pid_t pid;
	uint64_t closed_at;	/* 0: open */
	long chunks;
};

struct server {
	struct conn c[MAX_CONNS];
	int n;
	long sessions, hangups, other_ends, outlived, resizes, bytes, done;
};

static void open_session(struct server *sv, int lfd)
{
	int sock = accept4(lfd, NULL, NULL, SOCK_CLOEXEC), master;
	char name[64];
	pid_t pid;

	if (sock < 0)
		return;
	master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (master < 0 || grantpt(master) || unlockpt(master) ||
	    ptsname_r(master, name, sizeof(name)) || sv->n == MAX_CONNS)
		lab_fatal("a pty for connection %d", sv->n);
	pid = fork();
	if (pid < 0)
		lab_fatal("fork");
	if (pid == 0)
		session(name);
	sv->c[sv->n++] = (struct conn){ .sock = sock, .master = master, .pid = pid };
	sv->sessions++;
}

/* The connection's end: close the master, which hangs the session up. */
static void hang_up(struct conn *c)
{
	close(c->sock);
	close(c->master);
	c->sock = c->master = -1;
	c->closed_at = lab_now_ms();
}

static int relay(int from, int to)
{
	char buf[4096];
	ssize_t n = read(from, buf, sizeof(buf));

	if (n <= 0)
		return -1;
	for (ssize_t off = 0; off < n;) {
		ssize_t w = write(to, buf + off, (size_t)(n - off));

		if (w <= 0)
			return -1;
		off += w;
	}
	return (int)n;
}

/* Input from the client: to the master; every fourth chunk a resize. */
static void from_client(struct server *sv, struct conn *c)
{
	int n = relay(c->sock, c->master);

	if (n < 0) {
		hang_up(c);
		return;
	}
	if (++c->chunks % 4 == 0) {
		struct winsize ws = { .ws_row = (unsigned short)(24 + c->chunks % 16), .ws_col = 80 };

		sv->resizes += ioctl(c->master, TIOCSWINSZ, &ws) == 0;
	}
}

static void reap(struct server *sv)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (int i = 0; i < sv->n; i++) {
			if (sv->c[i].pid != pid)
				continue;
			sv->c[i].pid = 0;
			if (WIFSIGNALED(status) && WTERMSIG(status) == SIGHUP && sv->c[i].closed_at)
				sv->hangups++;
			else if (++sv->other_ends <= 3)
				lab_diag("session %d ended %s %d before or without its hangup", i,
					 WIFSIGNALED(status) ? "by signal" : "with status",
					 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
			if (sv->c[i].master >= 0)
				hang_up(&sv->c[i]);
		}
	}
	for (int i = 0; i < sv->n; i++)
		if (sv->c[i].pid > 0 && sv->c[i].closed_at &&
		    lab_now_ms() - sv->c[i].closed_at > HANGUP_MS) {
			kill(sv->c[i].pid, SIGKILL);
			sv->c[i].pid = 0;	/* its reaping is not counted again */
			sv->outlived++;
		}
}

/* Drop closed connections whose session is reaped: room for new ones. */
static void compact(struct server *sv)
{
	int j = 0;

	for (int i = 0; i < sv->n; i++)
		if (sv->c[i].pid > 0 || sv->c[i].master >= 0)
			sv->c[j++] = sv->c[i];
	sv->n = j;
}

static void poll_once(struct server *sv, int lfd, int cfd, int *ctl, int nctl)
{
	struct pollfd p[2 + 16 + 2 * MAX_CONNS];
	int np = 0;

	p[np++] = (struct pollfd){ lfd, POLLIN, 0 };
	p[np++] = (struct pollfd){ cfd, POLLIN, 0 };
	for (int i = 0; i < nctl; i++)
		p[np++] = (struct pollfd){ ctl[i], POLLIN, 0 };
	for (int i = 0; i < sv->n; i++) {
		p[np++] = (struct pollfd){ sv->c[i].sock, POLLIN, 0 };
		p[np++] = (struct pollfd){ sv->c[i].master, POLLIN, 0 };
	}
	if (poll(p, (nfds_t)np, 200) < 0)
		return;
	if (p[0].revents & POLLIN)
		open_session(sv, lfd);
	for (int i = 0; i < nctl; i++) {
		char buf[64];

		ssize_t n = p[2 + i].revents & POLLIN ? read(ctl[i], buf, sizeof(buf)) : 0;

		if (n > 0 && memmem(buf, (size_t)n, "done", 4))
			sv->done++;
	}
	for (int i = 0, k = 2 + nctl; i < sv->n && k + 1 < np; i++, k += 2) {
		struct conn *c = &sv->c[i];

		if (c->sock >= 0 && (p[k].revents & (POLLIN | POLLHUP | POLLERR)))
			from_client(sv, c);
		if (c->master >= 0 && (p[k + 1].revents & POLLIN)) {
			int n = relay(c->master, c->sock);

			if (n > 0)
				sv->bytes += n;
		}
	}
}

static int serve(int clients)
{
	static struct server sv;
	int lfd = listener(SESS_PORT), cfd = listener(CTRL_PORT), ctl[16], nctl = 0;
	uint64_t until = lab_now_ms() + (BOUND_S - 20) * 1000ULL, t0 = lab_now_ms();

	signal(SIGPIPE, SIG_IGN);
	lab_diag("serving sessions on %d for %d clients, control on %d", SESS_PORT, clients, CTRL_PORT);
	while (sv.done < clients && lab_now_ms() < until) {
		int c = accept4(cfd, NULL, NULL, SOCK_CLOEXEC);

		if (c >= 0 && nctl < 16)
			ctl[nctl++] = c;
		poll_once(&sv, lfd, cfd, ctl, nctl);
		reap(&sv);
		compact(&sv);
	}
	for (int i = 0; i < sv.n; i++)
		if (sv.c[i].master >= 0)
			hang_up(&sv.c[i]);
	while (sv.n && lab_now_ms() < until + 10000) {
		reap(&sv);
		compact(&sv);
		lab_sleep_us(100000);
	}
	printf("# counts: side=server clients_done=%ld sessions=%ld hangups=%ld other_ends=%ld outlived_hangup=%ld sigio=%ld resizes=%ld bytes_echoed=%ld sessions_per_s=%.1f\n",
	       sv.done, sv.sessions, sv.hangups, sv.other_ends, sv.outlived,
	       atomic_load(&tally->sigio), sv.resizes, sv.bytes,
	       (double)sv.sessions * 1000 / (double)(lab_now_ms() - t0 + 1));
	if (sv.done < clients)
		lab_end(LAB_ERROR, "%ld of %d clients said done", sv.done, clients);
	if (!sv.sessions || !atomic_load(&tally->sigio))
		lab_end(LAB_ERROR, "no session or no SIGIO: the workload did not run");
	if (sv.outlived || sv.other_ends || sv.n)
		lab_end(LAB_FAIL, "%ld sessions outlived their hangup, %ld ended otherwise",
			sv.outlived + sv.n, sv.other_ends);
	lab_end(LAB_PASS, "%ld remote sessions on ptys, each hung up by its connection's end",
		sv.sessions);
}

/* ---- the clients ---- */

struct sess {
	int fd, ready;
	unsigned id, chunk, got;	/* chunk being echoed, its bytes back */
	long bad;
};

static int connect_to(const char *host, int port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || inet_pton(AF_INET, host, &a.sin_addr) != 1)
		lab_fatal("socket for %s", host);
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	return fd;
}

static void send_chunk(struct sess *s, unsigned cid)
{
	unsigned char buf[CHUNK];

	for (unsigned k = 0; k < CHUNK; k++)
		buf[k] = pattern(cid, s->id, s->chunk * CHUNK + k);
	if (write(s->fd, buf, CHUNK) != CHUNK)
		s->bad += CHUNK;
	s->got = 0;
}

/* Bytes from the session: the ready byte, then the chunk's echo. */
static void on_input(struct sess *s, unsigned cid, long *bytes)
{
	unsigned char buf[CHUNK * 2];
	ssize_t n = read(s->fd, buf, sizeof(buf)), k = 0;

	if (n <= 0) {
		s->bad += CHUNK;	/* the session went away mid-chunk */
		close(s->fd);
		s->fd = -1;
		return;
	}
	if (!s->ready) {
		s->ready = buf[0] == READY;
		s->bad += !s->ready;
		k = 1;
		send_chunk(s, cid);
	}
	for (; k < n; k++)
		s->bad += buf[k] != pattern(cid, s->id, s->chunk * CHUNK + s->got++);
	*bytes += n;
	if (s->ready && s->got >= CHUNK) {
		if (++s->chunk == CHUNKS) {
			close(s->fd);	/* the hangup */
			s->fd = -1;
		} else {
			send_chunk(s, cid);
		}
	}
}

/* One round: SESSIONS at once; returns bytes or bytes wrong via *bad. */
static long round_once(const char *host, unsigned cid, unsigned first, long *bad,
		       uint64_t until)
{
	struct sess s[SESSIONS];
	struct pollfd p[SESSIONS];
	long bytes = 0;
	int open_n = 0;

	for (int i = 0; i < SESSIONS; i++) {
		s[i] = (struct sess){ .fd = connect_to(host, SESS_PORT), .id = first + (unsigned)i };
		open_n += s[i].fd >= 0;
		*bad += s[i].fd < 0 ? CHUNK * CHUNKS : 0;
	}
	while (open_n && lab_now_ms() < until) {
		for (int i = 0; i < SESSIONS; i++)
			p[i] = (struct pollfd){ s[i].fd, POLLIN, 0 };
		if (poll(p, SESSIONS, 1000) <= 0)
			continue;
		open_n = 0;
		for (int i = 0; i < SESSIONS; i++) {
			if (s[i].fd >= 0 && p[i].revents)
				on_input(&s[i], cid, &bytes);
			open_n += s[i].fd >= 0;
		}
	}
	for (int i = 0; i < SESSIONS; i++) {
		*bad += s[i].bad + (s[i].chunk < CHUNKS && !s[i].bad ? CHUNK : 0);
		if (s[i].fd >= 0)
			close(s[i].fd);
	}
	return bytes;
}

static int client(const char *host, unsigned cid, unsigned seconds)
{
	uint64_t t0 = lab_now_ms(), until, give_up = t0 + 120000;
	long bytes = 0, bad = 0, rounds = 0;
	int ctl;

	while ((ctl = connect_to(host, CTRL_PORT)) < 0 && lab_now_ms() < give_up)
		lab_sleep_us(500000);
	if (ctl < 0)
		lab_end(LAB_ERROR, "the tty guest %s never answered on %d", host, CTRL_PORT);
	t0 = lab_now_ms();
	until = t0 + seconds * 1000ULL;
	while (lab_now_ms() < until && !bad) {
		bytes += round_once(host, cid, (unsigned)rounds * SESSIONS, &bad, until + 30000);
		rounds++;
	}
	if (write(ctl, "done\n", 5) != 5)
		lab_diag("could not tell the server we are done");
	close(ctl);
	printf("# counts: side=client client=%u sessions=%ld bytes_back=%ld bytes_wrong=%ld sessions_per_s=%.1f seconds=%.1f\n",
	       cid, rounds * SESSIONS, bytes, bad,
	       (double)rounds * SESSIONS * 1000 / (double)(lab_now_ms() - t0 + 1),
	       (double)(lab_now_ms() - t0) / 1000);
	if (bad)
		lab_end(LAB_FAIL, "remote pty sessions lost or changed %ld bytes", bad);
	lab_end(LAB_PASS, "%ld remote sessions on the tty host echoed every byte",
		rounds * SESSIONS);
}

int main(void)
{
	static const struct lab_info info = {
		.name = "t015-remote-ptys",
		.seed = "004",
		.title = "remote terminal sessions on ptys of the tty host: echo intact, every hangup delivered",
		.bound_s = BOUND_S,
	};
	const char *part = getenv("LAB_PART");
	unsigned seconds = (unsigned)lab_env_ulong("LAB_DURATION", DURATION_DEF);
	int others;
	char *tty;

	lab_begin(&info);
	if (seconds < 1 || seconds > BOUND_S - 60)
		seconds = DURATION_DEF;
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tally == MAP_FAILED)
		lab_fatal("mmap");
	tty = guest_addr("tty", &others);
	if (part && !strcmp(part, "tty"))
		return serve(others);
	if (!tty)
		lab_end(LAB_ERROR, "LAB_GUESTS names no tty guest: '%s'",
			getenv("LAB_GUESTS") ? getenv("LAB_GUESTS") : "");
	/* the id only salts the data: each connection is checked on its own */
	return client(tty, (unsigned)getpid(), seconds);
}
