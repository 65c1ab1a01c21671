// SPDX-License-Identifier: GPL-2.0
/*
 * t101-nfs-interop-clients - two client guests on one NFS export.
 *
 * Group clients: what one writes the other reads after open (close-to-open
 * both ways), byte-range locks that conflict across clients (NLM on v3,
 * LOCK on v4), and a read delegation one client holds recalled when the
 * other writes.
 *
 * Group reboot: with data fsynced, a lock held, a file open and an
 * application writing, the test asks the runner to reset the server hard
 * (it creates /run/lab-reset-request; the runner answers "ok" in
 * /run/lab-reset-done: suite.ini reset_server=true) and waits for the
 * server as an application would; then every synced byte must be on the
 * server (read with O_DIRECT), the lock must have been reclaimed (the peer
 * is refused its range), the open file must take writes and the
 * application must have finished. Against an export with `async` the
 * server acknowledges data it has not written: the reset loses it, and
 * synced-data says which bytes.
 *
 * One program, two sides.  On the nfs-client guest (the test) the runner
 * has mounted the export at LAB_NFS_DIR (vers=LAB_NFS_VERS).  On the
 * nfs-peer guest the same program runs as the test's part (LAB_PART set):
 * it mounts LAB_NFS_SERVER:LAB_NFS_EXPORT at the same version and answers
 * the test's requests on TCP port 7101 of the lab's network, one line
 * each way:
 *
 *   READ REL             -> OK SIZE FNV64 | ERR ERRNO
 *   WRITE REL SEED SIZE  -> OK | ERR ERRNO      (create/truncate, write, close)
 *   LOCK REL r|w START LEN -> OK | ERR ERRNO    (F_SETLK on a held fd)
 *   CLOSE REL            -> OK                  (closing drops its locks)
 *   QUIT                 -> OK                  (unmount, exit 0)
 *
 * REL is a path under the export.  The test prints "# check clients/NAME:
 * pass|fail|skip: why" per check and "# interop: group=clients vers=V
 * server=S pass=N fail=N skip=N", as t100 does, so the interop matrix
 * reads it the same way.  Exit 1 when a check failed, 4 when every check
 * skipped, 3 when the peer could not be reached, else 0.
 */
#include "lab_test.h"
#include "lab_nfs.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define PORT		7101
#define PEER_DIR	"/mnt/nfs-peer"
#define REQ_MS		60000	/* one request; a lock or a recall may wait */
#define BOUND_S		600
#define CHUNK		65536
#define MAX_HELD	8

static unsigned char buf[CHUNK] __attribute__((aligned(4096)));	/* O_DIRECT */

/* ------------------------------------------------------------------ */
/* data                                                                */

/* SIZE bytes of pattern SEED into PATH (created or truncated), closed:
 * 0, or -1 with errno. */
static int put_pattern(const char *path, uint64_t seed, off_t size)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644), e;

	if (fd < 0)
		return -1;
	for (off_t off = 0; off < size;) {
		size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;
		ssize_t w;

		lab_fill(buf, n, seed, off);
		w = pwrite(fd, buf, n, off);
		if (w <= 0) {
			e = w < 0 ? errno : EIO;
			close(fd);
			errno = e;
			return -1;
		}
		off += w;
	}
	return close(fd);	/* NFS: close flushes and says if that failed */
}

/* The hash of what FD reads to its end, and how many bytes. */
static int hash_fd(int fd, off_t *size, uint64_t *h)
{
	ssize_t n;

	*size = 0;
	*h = LAB_FNV0;
	while ((n = pread(fd, buf, CHUNK, *size)) > 0) {
		*h = lab_fnv64(*h, buf, n);
		*size += n;
	}
	return n < 0 ? -1 : 0;
}

static int hash_path(const char *path, off_t *size, uint64_t *h)
{
	int fd = open(path, O_RDONLY), rc, e;

	if (fd < 0)
		return -1;
	rc = hash_fd(fd, size, h);
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

static uint64_t pattern_hash(uint64_t seed, off_t size)
{
	uint64_t h = LAB_FNV0;

	for (off_t off = 0; off < size;) {
		size_t n = size - off < CHUNK ? (size_t)(size - off) : CHUNK;

		lab_fill(buf, n, seed, off);
		h = lab_fnv64(h, buf, n);
		off += n;
	}
	return h;
}

/* One line from FD into LINE (without the newline) within MS: 0, or -1. */
static int get_line(int fd, char *line, size_t n, int ms)
{
	size_t len = 0;
	uint64_t end = lab_now_ms() + (uint64_t)ms;

	while (len + 1 < n) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)(end - lab_now_ms());
		ssize_t r;

		if (left <= 0 || poll(&p, 1, left) <= 0)
			return -1;
		r = read(fd, line + len, 1);
		if (r <= 0)
			return -1;
		if (line[len] == '\n') {
			line[len] = '\0';
			return 0;
		}
		len++;
	}
	return -1;
}

static int put_line(int fd, const char *line)
{
	size_t n = strlen(line);

	return write(fd, line, n) == (ssize_t)n && write(fd, "\n", 1) == 1 ? 0 : -1;
}

/* ------------------------------------------------------------------ */
/* the peer                                                            */

struct held {
	char rel[256];
	int fd;
};

static struct held held[MAX_HELD];

/* PATH under the peer's mount for REL. */
static const char *at_peer(const char *rel)
{
	static char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", PEER_DIR, rel);
	return path;
}

/* REL's fd kept open for locks (its locks go with it on CLOSE); -1. */
static int held_fd(const char *rel)
{
	int slot = -1;

	for (int i = 0; i < MAX_HELD; i++) {
		if (held[i].fd > 0 && !strcmp(held[i].rel, rel))
			return held[i].fd;
		if (held[i].fd <= 0 && slot < 0)
			slot = i;
	}
	if (slot < 0) {
		errno = EMFILE;
		return -1;
	}
	held[slot].fd = open(at_peer(rel), O_RDWR);
	if (held[slot].fd > 0)
		snprintf(held[slot].rel, sizeof(held[slot].rel), "%s", rel);
	return held[slot].fd;
}

static void held_close(const char *rel)
{
	for (int i = 0; i < MAX_HELD; i++)
		if (held[i].fd > 0 && !strcmp(held[i].rel, rel)) {
			close(held[i].fd);
			held[i].fd = 0;
		}
}

/* One request, its answer into OUT. */
static void serve(const char *req, char *out, size_t n)
{
	char rel[256], type;
	unsigned long long seed, size, start, len;
	uint64_t h;
	off_t got;

	if (sscanf(req, "READ %255s", rel) == 1) {
		if (hash_path(at_peer(rel), &got, &h))
			snprintf(out, n, "ERR %s", lab_en(errno));
		else
			snprintf(out, n, "OK %lld %016" PRIx64, (long long)got, h);
	} else if (sscanf(req, "WRITE %255s %llu %llu", rel, &seed, &size) == 3) {
		if (put_pattern(at_peer(rel), seed, (off_t)size))
			snprintf(out, n, "ERR %s", lab_en(errno));
		else
			snprintf(out, n, "OK");
	} else if (sscanf(req, "LOCK %255s %c %llu %llu", rel, &type, &start, &len) == 4) {
		struct flock fl = { .l_type = type == 'r' ? F_RDLCK : F_WRLCK,
				    .l_whence = SEEK_SET, .l_start = (off_t)start,
				    .l_len = (off_t)len };
		int fd = held_fd(rel);

		if (fd < 0 || fcntl(fd, F_SETLK, &fl))
			snprintf(out, n, "ERR %s", lab_en(errno));
		else
			snprintf(out, n, "OK");
	} else if (sscanf(req, "CLOSE %255s", rel) == 1) {
		held_close(rel);
		snprintf(out, n, "OK");
	} else {
		snprintf(out, n, "ERR EINVAL");
	}
}

static void peer_unmount(void)
{
	for (int i = 0; i < MAX_HELD; i++)
		if (held[i].fd > 0)
			close(held[i].fd);
	umount2(PEER_DIR, MNT_DETACH);
}

/* The peer: mount, answer one connection's requests until QUIT or EOF. */
static int peer_main(void)
{
	const char *server = getenv("LAB_NFS_SERVER"), *vers = getenv("LAB_NFS_VERS");
	const char *export = getenv("LAB_NFS_EXPORT");
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	char cmd[512], line[512], out[512];
	int one = 1, lfd, fd, rc;

	if (!server || !vers)
		lab_end(LAB_ERROR, "peer: LAB_NFS_SERVER and LAB_NFS_VERS must be set");
	mkdir(PEER_DIR, 0755);
	umount2(PEER_DIR, MNT_DETACH);	/* a mount an earlier peer left */
	snprintf(cmd, sizeof(cmd), "mount -t nfs -o vers=%s %s:%s %s", vers, server,
		 export ? export : "/srv/nfs", PEER_DIR);
	rc = system(cmd);
	if (rc != 0)
		lab_end(LAB_ERROR, "peer: '%s' exited %d", cmd, WEXITSTATUS(rc));
	lab_diag("peer: %s:%s mounted on %s (vers=%s)", server, export ? export : "/srv/nfs",
		 PEER_DIR, vers);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&a, sizeof(a)) || listen(lfd, 1))
		lab_fatal("peer: listen on %d", PORT);
	lab_bound_hook = peer_unmount;
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);	/* the bound ends a wait for nobody */
	if (fd < 0)
		lab_fatal("peer: accept");
	while (get_line(fd, line, sizeof(line), BOUND_S * 1000) == 0 && strcmp(line, "QUIT")) {
		serve(line, out, sizeof(out));
		lab_diag("peer: %s -> %s", line, out);
		if (put_line(fd, out))
			break;
	}
	put_line(fd, "OK");
	peer_unmount();
	lab_end(LAB_PASS, "peer: served the test until it said QUIT (the test decides)");
}

/* ------------------------------------------------------------------ */
/* the test                                                            */

struct ctx {
	const char *vers, *server;
	char base[PATH_MAX];	/* LAB_NFS_DIR, resolved */
	char rel[96];		/* our directory under the export */
	int peer;		/* the connection to the peer */
	char local_lock[64];	/* the mount's local_lock=, "none" when absent */
	/* the reboot group: what the reset check leaves for the others */
	int reset_ok;		/* the server was reset and answers again */
	int lock_fd, open_fd;	/* a lock and an open file held across it */
	pid_t app;		/* the application writing through it */
	int kmsg;		/* /dev/kmsg from the test's start, or -1 */
};

static char why[1024];

static __attribute__((format(printf, 2, 3)))
int verdict(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return code;
}

#define pass(...)	verdict(LAB_PASS, __VA_ARGS__)
#define fail(...)	verdict(LAB_FAIL, __VA_ARGS__)
#define skip(...)	verdict(LAB_SKIP, __VA_ARGS__)

/* PATH on this client for NAME in our directory; REL: the same for the peer. */
static const char *here(const struct ctx *c, const char *name)
{
	static char path[PATH_MAX + 512];

	snprintf(path, sizeof(path), "%s/%s/%s", c->base, c->rel, name);
	return path;
}

/* Ask the peer; its answer in ANS. 0 OK, 1 ERR (ANS: "ERR ERRNO"), -1 no answer. */
static __attribute__((format(printf, 4, 5)))
int ask(const struct ctx *c, char *ans, size_t n, const char *fmt, ...)
{
	char req[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(req, sizeof(req), fmt, ap);
	va_end(ap);
	if (put_line(c->peer, req) || get_line(c->peer, ans, n, REQ_MS)) {
		snprintf(ans, n, "no answer within %d s", REQ_MS / 1000);
		return -1;
	}
	return strncmp(ans, "OK", 2) ? 1 : 0;
}

/* The peer wrote NAME: it must now read as SEED x SIZE here. */
static int reads_as(const struct ctx *c, const char *name, uint64_t seed, off_t size,
		    const char *what)
{
	uint64_t h, want = pattern_hash(seed, size);
	off_t got;

	if (hash_path(here(c, name), &got, &h))
		return fail("%s: read here: %s", what, lab_en(errno));
	if (got != size || h != want)
		return fail("%s: this client read %lld bytes, fnv64 %016" PRIx64 "; the peer "
			    "wrote %lld, fnv64 %016" PRIx64, what, (long long)got, h,
			    (long long)size, want);
	return LAB_PASS;
}

static int chk_cto_to_peer(struct ctx *c)
{
	const off_t size = 1024 * 1024 + 17;
	uint64_t want = pattern_hash(51, size);
	unsigned long long got_size;
	char ans[256], hex[32];

	if (put_pattern(here(c, "to-peer"), 51, size))
		return fail("write here: %s", lab_en(errno));
	if (ask(c, ans, sizeof(ans), "READ %s/to-peer", c->rel))
		return fail("the peer could not read the file this client wrote and closed: %s", ans);
	if (sscanf(ans, "OK %llu %31s", &got_size, hex) != 2 ||
	    got_size != (unsigned long long)size || strtoull(hex, NULL, 16) != want)
		return fail("the peer read '%s' after this client closed; it wrote %lld bytes, "
			    "fnv64 %016" PRIx64, ans, (long long)size, want);
	return pass("the peer read what this client wrote and closed: %lld bytes, fnv64 %016"
		    PRIx64, (long long)size, want);
}

static int chk_cto_from_peer(struct ctx *c)
{
	uint64_t h;
	off_t got;
	char ans[256];
	int code;

	/* this client reads the old bytes first: they are in its cache */
	if (put_pattern(here(c, "from-peer"), 52, 300000) ||
	    hash_path(here(c, "from-peer"), &got, &h))
		return fail("write and read here: %s", lab_en(errno));
	if (ask(c, ans, sizeof(ans), "WRITE %s/from-peer 53 777777", c->rel))
		return fail("the peer could not rewrite the file: %s", ans);
	code = reads_as(c, "from-peer", 53, 777777, "after the peer rewrote and closed, an open here");
	if (code)
		return code;
	return pass("after the peer rewrote a file this client had read (300000 -> 777777 "
		    "bytes), this client's next open read the peer's bytes");
}

static int lk(int fd, int cmd, short type, off_t start, off_t len, struct flock *out)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len };
	int rc = fcntl(fd, cmd, &fl);

	if (out)
		*out = fl;
	return rc ? errno : 0;
}

/* The peer's lock request, retried for up to 10 s while it is refused
 * (a lock just released may take a moment to reach the peer). */
static int peer_lock_soon(const struct ctx *c, char *ans, size_t n, const char *rel,
			  unsigned long long start, unsigned long long len)
{
	uint64_t end = lab_now_ms() + 10000;
	int rc;

	while ((rc = ask(c, ans, n, "LOCK %s w %llu %llu", rel, start, len)) == 1 &&
	       lab_now_ms() < end)
		lab_sleep_us(200000);
	return rc;
}

static int refused(const char *ans)
{
	return !strcmp(ans, "ERR EAGAIN") || !strcmp(ans, "ERR EACCES");
}

static int chk_lock_conflict(struct ctx *c)
{
	char rel[160], ans[256];
	struct flock seen;
	int fd, e;

	if (strcmp(c->local_lock, "none"))
		return skip("this mount keeps locks on the client (local_lock=%s): the server's "
			    "lock manager is never asked", c->local_lock);
	snprintf(rel, sizeof(rel), "%s/locks", c->rel);
	if (put_pattern(here(c, "locks"), 55, 4096) || (fd = open(here(c, "locks"), O_RDWR)) < 0)
		return fail("create here: %s", lab_en(errno));
	if ((e = lk(fd, F_SETLK, F_WRLCK, 0, 100, NULL)))
		return fail("this client's write lock on [0, 100): %s", lab_en(e));
	if (ask(c, ans, sizeof(ans), "LOCK %s w 50 10", rel) != 1 || !refused(ans))
		return fail("the peer's write lock on [50, 60) while this client holds [0, 100): "
			    "expected EAGAIN or EACCES, got %s", ans);
	if (ask(c, ans, sizeof(ans), "LOCK %s w 200 100", rel))
		return fail("the peer's write lock on the disjoint [200, 300): %s", ans);
	if ((e = lk(fd, F_GETLK, F_WRLCK, 200, 100, &seen)))
		return fail("F_GETLK here on [200, 300): %s", lab_en(e));
	if (seen.l_type == F_UNLCK)
		return fail("F_GETLK here does not see the peer's lock on [200, 300)");
	if ((e = lk(fd, F_SETLK, F_UNLCK, 0, 100, NULL)))
		return fail("unlock here: %s", lab_en(e));
	if (peer_lock_soon(c, ans, sizeof(ans), rel, 50, 10))
		return fail("the peer's write lock on [50, 60) after this client unlocked: %s", ans);
	if (!(e = lk(fd, F_SETLK, F_WRLCK, 50, 10, NULL)) || (e != EAGAIN && e != EACCES))
		return fail("this client's write lock on [50, 60) held by the peer: expected "
			    "EAGAIN or EACCES, got %s", lab_en(e));
	if (ask(c, ans, sizeof(ans), "CLOSE %s", rel))
		return fail("the peer's close: %s", ans);
	for (uint64_t end = lab_now_ms() + 10000;
	     (e = lk(fd, F_SETLK, F_WRLCK, 50, 10, NULL)) && lab_now_ms() < end;)
		lab_sleep_us(200000);
	close(fd);
	if (e)
		return fail("this client's write lock on [50, 60) after the peer closed its file "
			    "(which drops its locks): %s", lab_en(e));
	return pass("write locks conflict across the two clients both ways (%s), disjoint "
		    "ranges do not, F_GETLK sees the other client's lock, a close releases",
		    strcmp(c->vers, "3") ? "LOCK, NFSv4" : "NLM, v3");
}

/* OPENs this client sent for its mount: OPEN, and OPEN_NOATTR (by file
 * handle, 4.1+); -1 when mountstats does not count them. */
static long opens_sent(const struct ctx *c)
{
	long a, b, e;

	if (lab_nfs_op_stats(c->base, "OPEN", &a, &e))
		return -1;
	if (lab_nfs_op_stats(c->base, "OPEN_NOATTR", &b, &e))
		b = 0;
	return a + b;
}

/* Whether this client holds a read delegation on NAME, which it has open:
 * a second open of a delegated file is served by the client without an
 * OPEN, so an unchanged count says yes. 1 yes, 0 no, -1 cannot tell. */
static int delegated(const struct ctx *c, const char *name)
{
	long o0 = opens_sent(c), o1;
	int fd;

	if (o0 < 0)
		return -1;
	fd = open(here(c, name), O_RDONLY);
	if (fd < 0)
		return -1;
	close(fd);
	o1 = opens_sent(c);
	return o1 < 0 ? -1 : o1 == o0;
}

/* Open NAME for reading and keep it open until the server delegates it.
 * knfsd grants none while the file's last writer is still being closed
 * on the server (the close of its file is deferred), so a few tries a
 * little apart. *HELD as delegated(); the open fd, or -1 with errno. */
#define DELEG_TRIES 5
static int open_delegated(const struct ctx *c, const char *name, int *held, int *tries)
{
	for (*tries = 1;; ++*tries) {
		int fd = open(here(c, name), O_RDONLY);

		if (fd < 0)
			return -1;
		*held = delegated(c, name);
		if (*held || *tries == DELEG_TRIES)
			return fd;
		close(fd);
		lab_sleep_us(500000);
	}
}

static int chk_delegation(struct ctx *c)
{
	long r0 = 0, e0 = 0, r1 = 0, e1 = 0;
	uint64_t h, t0;
	off_t got;
	char ans[256];
	int fd, code, held, tries;

	if (!strcmp(c->vers, "3"))
		return skip("delegations are NFSv4");
	if (put_pattern(here(c, "deleg"), 56, 200000))
		return fail("write here: %s", lab_en(errno));
	/* open for reading and keep it open: the server may delegate */
	fd = open_delegated(c, "deleg", &held, &tries);
	if (fd < 0 || hash_fd(fd, &got, &h))
		return fail("open and read here: %s", lab_en(errno));
	if (lab_nfs_op_stats(c->base, "DELEGRETURN", &r0, &e0))
		return skip("/proc/self/mountstats has no DELEGRETURN counter for %s", c->base);
	t0 = lab_now_ms();
	if (ask(c, ans, sizeof(ans), "WRITE %s/deleg 57 123457", c->rel))
		return fail("the peer's write while this client had the file open: %s", ans);
	for (uint64_t end = lab_now_ms() + 10000; lab_now_ms() < end; lab_sleep_us(100000))
		if (!lab_nfs_op_stats(c->base, "DELEGRETURN", &r1, &e1) && r1 > r0)
			break;
	close(fd);
	code = reads_as(c, "deleg", 57, 123457, "after the peer's write, a new open here");
	if (code)
		return code;
	if (r1 > r0)
		return pass("this client held a read delegation (open %d of %d); the peer's write "
			    "recalled it (DELEGRETURN +%ld, the write took %.1f s) and this client "
			    "then read the peer's bytes", tries, DELEG_TRIES, r1 - r0,
			    (double)(lab_now_ms() - t0) / 1000.0);
	if (held == 1)
		return fail("this client held a read delegation (a second open sent no OPEN), "
			    "but the peer's write recalled none in 10 s (DELEGRETURN stayed %ld)", r0);
	return skip("the data is right, but no delegation was recalled: the server granted "
		    "this client no read delegation (%d opens 0.5 s apart%s)", tries,
		    held < 0 ? "; OPEN not counted" : ", each sent an OPEN");
}

/* ---- reboot: the server reset hard while this client has synced data,
 * a lock, an open file and an application writing ---- */

#define APP_CHUNKS 48
#define RESET_REQUEST "/run/lab-reset-request"
#define RESET_DONE "/run/lab-reset-done"

/* The application: 48 x 64 KiB, each written and fsynced, a quarter of a
 * second apart, through the reset: it must end with every write done. */
static int app_main(const char *path)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);

	if (fd < 0)
		return 2;
	for (int i = 0; i < APP_CHUNKS; i++) {
		lab_fill(buf, CHUNK, 65, (uint64_t)i * CHUNK);
		if (pwrite(fd, buf, CHUNK, (off_t)i * CHUNK) != CHUNK || fsync(fd)) {
			lab_diag("reboot: the application's write %d of %d: %s", i + 1, APP_CHUNKS,
				 lab_en(errno));
			return 1;
		}
		lab_sleep_us(250000);
	}
	return close(fd) ? 1 : 0;
}

/* FILE read with O_DIRECT (from the server, not this client's cache) as
 * SEED x SIZE: LAB_PASS, or a fail that names what was lost. */
static int on_server(const struct ctx *c, const char *name, uint64_t seed, off_t size)
{
	int fd = open(here(c, name), O_RDONLY | O_DIRECT), rc;
	uint64_t h, want = pattern_hash(seed, size);
	off_t got;

	if (fd < 0)
		return fail("lost synced data: %s: %s (the file was fsynced before the reset)", name,
			    lab_en(errno));
	rc = hash_fd(fd, &got, &h);
	close(fd);
	if (rc)
		return fail("lost synced data: reading %s: %s", name, lab_en(errno));
	if (got != size || h != want)
		return fail("lost synced data: %s holds %lld bytes, fnv64 %016" PRIx64 "; %lld "
			    "were fsynced before the reset, fnv64 %016" PRIx64, name,
			    (long long)got, h, (long long)size, want);
	return LAB_PASS;
}

static int request_reset(void)
{
	char done[64] = "";
	FILE *f;

	unlink(RESET_DONE);
	f = fopen(RESET_REQUEST, "we");
	if (!f || fputs("reset\n", f) < 0 || fclose(f))
		return -1;
	for (uint64_t end = lab_now_ms() + 120000; lab_now_ms() < end; lab_sleep_us(200000)) {
		f = fopen(RESET_DONE, "re");
		if (!f)
			continue;
		if (!fgets(done, sizeof(done), f))
			done[0] = '\0';
		fclose(f);
		if (!strchr(done, '\n'))
			continue;	/* still being written */
		done[strcspn(done, "\n")] = '\0';
		return strcmp(done, "ok") ? -1 : 0;
	}
	return -1;
}

static int chk_reset(struct ctx *c)
{
	uint64_t t0;
	int fd, e;

	if (put_pattern(here(c, "synced"), 61, 4 * 1024 * 1024 + 5) ||
	    (fd = open(here(c, "synced"), O_RDONLY)) < 0 || fsync(fd) || close(fd))
		return fail("write and fsync here: %s", lab_en(errno));
	fd = open(here(c, "osync"), O_CREAT | O_TRUNC | O_WRONLY | O_SYNC, 0644);
	lab_fill(buf, CHUNK, 62, 0);
	if (fd < 0 || pwrite(fd, buf, CHUNK, 0) != CHUNK || close(fd))
		return fail("an O_SYNC write here: %s", lab_en(errno));
	if (put_pattern(here(c, "locked"), 63, 4096) ||
	    (c->lock_fd = open(here(c, "locked"), O_RDWR)) < 0)
		return fail("create the locked file: %s", lab_en(errno));
	if ((e = lk(c->lock_fd, F_SETLK, F_WRLCK, 0, 100, NULL)))
		return fail("this client's write lock on [0, 100): %s", lab_en(e));
	if (put_pattern(here(c, "open"), 64, 256 * 1024) ||
	    (c->open_fd = open(here(c, "open"), O_RDWR)) < 0 || fsync(c->open_fd))
		return fail("the file kept open: %s", lab_en(errno));
	fflush(stdout);
	c->app = fork();
	if (c->app == 0)
		_exit(app_main(here(c, "app")));
	if (c->app < 0)
		return fail("fork the application: %s", lab_en(errno));
	/* The crash comes 10 s later, the application writing all along: the
	 * server has had its journal commit (5 s) for the state this client
	 * holds, as a crash at an arbitrary time would find it. Measured
	 * without the wait (2 s): knfsd on v4.0 and NFS-Ganesha on v4.1 lost
	 * the lock ("NFS: lost 1 locks") while v4.1/4.2 on knfsd kept it. */
	lab_sleep_us(10000000);
	t0 = lab_now_ms();
	if (request_reset())
		lab_end(LAB_ERROR, "the runner did not reset the server (%s)", RESET_DONE);
	lab_diag("reboot: the runner reset the server hard after %.1f s",
		 (double)(lab_now_ms() - t0) / 1000.0);
	/* a new name goes to the server: it blocks (hard mount) until the
	 * server is back and past its grace */
	fd = open(here(c, "probe"), O_CREAT | O_EXCL | O_WRONLY, 0644);
	if (fd < 0 || close(fd))
		return fail("creating a file after the reset: %s", lab_en(errno));
	c->reset_ok = 1;
	return pass("the server was reset hard (memory gone, disks kept) and took a new file "
		    "%.1f s later", (double)(lab_now_ms() - t0) / 1000.0);
}

static int chk_synced(struct ctx *c)
{
	int code;

	if (!c->reset_ok)
		return skip("the server was not reset");
	if ((code = on_server(c, "synced", 61, 4 * 1024 * 1024 + 5)) ||
	    (code = on_server(c, "osync", 62, CHUNK)))
		return code;
	return pass("every byte fsynced or written O_SYNC before the reset is on the server "
		    "(read back with O_DIRECT)");
}

/* What this client's kernel said about lost locks since the test began
 * ("NFS: SERVER: lost 1 locks"), or "". */
static const char *kernel_lost(const struct ctx *c)
{
	static char said[600];
	char text[512];

	said[0] = '\0';
	while (c->kmsg >= 0 && lab_kmsg_next(c->kmsg, text, sizeof(text)) == 1)
		if (strstr(text, "lost") && strstr(text, "lock"))
			snprintf(said, sizeof(said), "; this client's kernel said \"%s\"", text);
	return said;
}

static int chk_lock_reclaimed(struct ctx *c)
{
	char rel[160], ans[256];
	int e;

	if (!c->reset_ok)
		return skip("the server was not reset");
	if (strcmp(c->local_lock, "none"))
		return skip("this mount keeps locks on the client (local_lock=%s)", c->local_lock);
	snprintf(rel, sizeof(rel), "%s/locked", c->rel);
	if (ask(c, ans, sizeof(ans), "LOCK %s w 50 10", rel) == 0)
		return fail("the lock was lost: after the server's reboot the peer got [50, 60) "
			    "of a range this client had locked (%s did not reclaim it)%s",
			    strcmp(c->vers, "3") ? "v4 state recovery" : "NLM after SM_NOTIFY",
			    kernel_lost(c));
	if (!refused(ans))
		return fail("the peer's lock request after the reboot: expected EAGAIN or EACCES, "
			    "got %s", ans);
	if ((e = lk(c->lock_fd, F_SETLK, F_UNLCK, 0, 100, NULL)))
		return fail("unlock here after the reboot: %s", lab_en(e));
	close(c->lock_fd);
	return pass("this client's lock survived the server's reboot (%s): the peer was refused "
		    "the range after the grace period", strcmp(c->vers, "3") ?
		    "reclaimed in the v4 grace period" : "reclaimed by NLM after SM_NOTIFY");
}

static int chk_open_file(struct ctx *c)
{
	int code;

	if (!c->reset_ok)
		return skip("the server was not reset");
	lab_fill(buf, CHUNK, 64, 256 * 1024);
	if (pwrite(c->open_fd, buf, CHUNK, 256 * 1024) != CHUNK || fsync(c->open_fd))
		return fail("writing through the file kept open across the reboot: %s", lab_en(errno));
	close(c->open_fd);
	if ((code = on_server(c, "open", 64, 256 * 1024 + CHUNK)))
		return code;
	return pass("the file kept open across the reboot takes writes (%s) and holds every byte",
		    strcmp(c->vers, "3") ? "its OPEN reclaimed" : "v3 has no open state");
}

static int chk_app(struct ctx *c)
{
	int status = 0, code;
	pid_t w;

	if (!c->reset_ok || c->app <= 0)
		return skip("the server was not reset");
	for (uint64_t end = lab_now_ms() + 300000;
	     (w = waitpid(c->app, &status, WNOHANG)) == 0 && lab_now_ms() < end;)
		lab_sleep_us(200000);
	if (w != c->app) {
		kill(c->app, SIGKILL);
		waitpid(c->app, &status, 0);
		return fail("the application writing through the reset did not finish in 300 s");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail("the application writing through the reset failed (exit %d)",
			    WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	if ((code = on_server(c, "app", 65, (off_t)APP_CHUNKS * CHUNK)))
		return code;
	return pass("the application writing and fsyncing through the reset went on and "
		    "finished: %d x 64 KiB, every byte on the server", APP_CHUNKS);
}

struct check {
	const char *name;
	int (*fn)(struct ctx *c);
};

static const struct check clients_checks[] = {
	{ "cto-to-peer", chk_cto_to_peer },
	{ "cto-from-peer", chk_cto_from_peer },
	{ "lock-conflict", chk_lock_conflict },
	{ "delegation-recall", chk_delegation },
	{ NULL, NULL },
};

static const struct check reboot_checks[] = {
	{ "reset", chk_reset },
	{ "synced-data", chk_synced },
	{ "lock-reclaimed", chk_lock_reclaimed },
	{ "open-file", chk_open_file },
	{ "app-continued", chk_app },
	{ NULL, NULL },
};

/* LAB_GUESTS='ROLE=ADDR[/LEN];...': ROLE's address, or NULL. */
static const char *guest_addr(const char *role)
{
	static char addr[64];
	const char *g = getenv("LAB_GUESTS"), *p = g;
	size_t n = strlen(role);

	while (p && *p) {
		if (!strncmp(p, role, n) && p[n] == '=') {
			snprintf(addr, sizeof(addr), "%.*s", (int)strcspn(p + n + 1, "/;"), p + n + 1);
			return addr;
		}
		p = strchr(p, ';');
		p = p ? p + 1 : NULL;
	}
	return NULL;
}

/* Connected to the peer (it mounts first, then listens): the fd, or -1. */
static int connect_peer(const char *addr)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PORT) };
	uint64_t end = lab_now_ms() + 120000;

	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1)
		return -1;
	while (lab_now_ms() < end) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd >= 0 && !connect(fd, (struct sockaddr *)&a, sizeof(a)))
			return fd;
		if (fd >= 0)
			close(fd);
		lab_sleep_us(500000);
	}
	return -1;
}

/* The mount's local_lock= value from /proc/self/mountinfo ("none"). */
static void read_local_lock(struct ctx *c)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], want[PATH_MAX + 4];

	snprintf(c->local_lock, sizeof(c->local_lock), "none");
	snprintf(want, sizeof(want), " %s ", c->base);
	while (f && fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, want), *ll = strstr(line, "local_lock=");

		if (p && ll)
			snprintf(c->local_lock, sizeof(c->local_lock), "%.*s",
				 (int)strcspn(ll + 11, ", \n"), ll + 11);
	}
	if (f)
		fclose(f);
}

static void rm_dir(const struct ctx *c)
{
	char path[PATH_MAX + 512];

	static const char *const names[] = { "to-peer", "from-peer", "locks", "deleg", "synced",
					     "osync", "locked", "open", "app", "probe", NULL };

	for (int i = 0; names[i]; i++)
		unlink(here(c, names[i]));
	snprintf(path, sizeof(path), "%s/%s", c->base, c->rel);
	rmdir(path);
}

int main(void)
{
	static struct ctx ctx;
	struct ctx *c = &ctx;
	struct lab_info info = {
		.name = "t101-nfs-interop-clients", .seed = "000", .bound_s = BOUND_S,
		.title = "NFS interop between two client guests: close-to-open, locks, "
			 "delegations; the server reset hard under them",
	};
	const char *dir = getenv("LAB_NFS_DIR"), *group = getenv("LAB_INTEROP_GROUP"), *addr;
	const struct check *checks;
	char host[64] = "host", path[PATH_MAX + 512], ans[64];
	int n[5] = { 0 };

	if (getenv("LAB_PART") && *getenv("LAB_PART")) {
		info.title = "the peer client of t101: mounts the export, answers the test";
		lab_begin(&info);
		return peer_main();
	}
	lab_begin(&info);
	if (group && !strcmp(group, "clients"))
		checks = clients_checks;
	else if (group && !strcmp(group, "reboot"))
		checks = reboot_checks;
	else
		lab_end(LAB_ERROR, "LAB_INTEROP_GROUP must be clients or reboot, not '%s'",
			group ? group : "");
	c->vers = getenv("LAB_NFS_VERS") ? getenv("LAB_NFS_VERS") : "?";
	c->server = getenv("LAB_INTEROP_SERVER") ? getenv("LAB_INTEROP_SERVER") : "unknown";
	if (!dir || !realpath(dir, c->base))
		lab_end(LAB_ERROR, "LAB_NFS_DIR not set or missing (the runner mounts the export)");
	addr = guest_addr("nfs-peer");
	if (!addr)
		lab_end(LAB_ERROR, "LAB_GUESTS names no nfs-peer guest: '%s'",
			getenv("LAB_GUESTS") ? getenv("LAB_GUESTS") : "");
	gethostname(host, sizeof(host) - 1);
	snprintf(c->rel, sizeof(c->rel), "t101.%s.%d", host, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s", c->base, c->rel);
	if (mkdir(path, 0755))
		lab_fatal("mkdir %s", path);
	read_local_lock(c);
	c->kmsg = lab_kmsg_open(1);
	c->peer = connect_peer(addr);
	if (c->peer < 0)
		lab_end(LAB_ERROR, "the peer client at %s:%d did not answer within 120 s", addr, PORT);
	lab_diag("clients: this client and the peer at %s on %s's export, vers=%s, "
		 "local_lock=%s", addr, c->server, c->vers, c->local_lock);
	for (int i = 0; checks[i].name; i++) {
		uint64_t t0 = lab_now_ms();
		int code = checks[i].fn(c);

		n[code]++;
		lab_diag("check %s/%s: %s: %s (%.2f s)", group, checks[i].name,
			 lab_result_word(code), why, (double)(lab_now_ms() - t0) / 1000.0);
	}
	/* Remove the files first: a server recalls the peer's delegations on
	 * them, and a recall racing the peer's unmount deadlocks Linux 6.1's
	 * client (the callback thread drops the last reference to its
	 * nfs_client and waits in kthread_stop for itself). */
	rm_dir(c);
	ask(c, ans, sizeof(ans), "QUIT");
	lab_diag("interop: group=%s vers=%s server=%s pass=%d fail=%d skip=%d", group, c->vers,
		 c->server, n[LAB_PASS], n[LAB_FAIL], n[LAB_SKIP]);
	lab_end(n[LAB_FAIL] ? LAB_FAIL : n[LAB_PASS] ? LAB_PASS : LAB_SKIP,
		"%d passed, %d failed, %d skipped", n[LAB_PASS], n[LAB_FAIL], n[LAB_SKIP]);
}
