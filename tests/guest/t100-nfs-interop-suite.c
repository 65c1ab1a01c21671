// SPDX-License-Identifier: GPL-2.0
/*
 * t100-nfs-interop-suite - the lab's own NFS interop suite, one group per run.
 *
 * In the spirit of Connectathon (cthon04), nfstest and pynfs, none of which
 * Debian packages.  A client guest runs one group against a directory the
 * runner has mounted at one protocol version:
 *
 *   LAB_INTEROP_GROUP   basic | general | special | lock | coherence | features
 *   LAB_NFS_DIR         the runner's mount of the export (vers=LAB_NFS_VERS)
 *   LAB_NFS_VERS        3, 4.0, 4.1, 4.2 (messages; coherence's second mount)
 *   LAB_INTEROP_SERVER  knfsd, knfsd-debian, ganesha (a label for messages)
 *   LAB_INTEROP_MIB     general's large file in MiB (64)
 *   LAB_NFS_SERVER, LAB_NFS_EXPORT (/srv/nfs)   coherence's second mount
 *   LAB_BOUND           overrides the group's time bound (seconds)
 *
 * Each check prints "# check GROUP/NAME: pass|fail|skip: detail"; the run
 * ends with "# interop: group=G vers=V server=S pass=N fail=N skip=N" and
 * "# result: WORD: N passed, N failed, N skipped".  Exit 1 when a check
 * failed, 4 when every check skipped, 3 when the group could not start
 * (or the time bound fired), else 0.
 *
 * Each group is a table of checks: name, function, what it needs (root, a
 * lock manager on the wire, the second mount, an earlier check).  What the
 * server or the version cannot do is a skip that says why, never a pass.
 * On a local filesystem every check passes or skips: that is the reference
 * semantics (`make -C tests/guest check` runs it there).
 */
#include "lab_test.h"
#include "lab_nfs.h"

#include <dirent.h>
#include <ftw.h>
#include <inttypes.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/xattr.h>

#define NFS_SUPER_MAGIC	0x6969
#define MIB		(1024 * 1024)
#define BUF_SIZE	(4 * MIB)	/* each of the two shared I/O buffers */
#define OP_MS		60000		/* one child step, one lock request */
#define CHILD_BOUND_S	300		/* no child outlives this */
#define MAX_KIDS	32

/* What a check needs before it can run; the runner skips it otherwise. */
enum {
	NEED_ROOT = 1 << 0,		/* chown to other ids, mount */
	NEED_WIRE_LOCKS = 1 << 1,	/* fcntl locks reach the server */
	NEED_WIRE_FLOCK = 1 << 2,	/* flock reaches the server */
	NEED_MOUNT2 = 1 << 3,		/* coherence's second mount */
};

struct ctx {
	const char *group, *vers, *server;
	char base[PATH_MAX];	/* LAB_NFS_DIR, resolved */
	char work[PATH_MAX];	/* our directory under it, removed at the end */
	char dir[PATH_MAX];	/* the running check's directory */
	char work2[PATH_MAX];	/* work seen through the second mount */
	char dir2[PATH_MAX];	/* dir seen through the second mount */
	char local_fcntl[96];	/* why fcntl locks stay on the client, or "" */
	char local_flock[96];	/* why flock stays on the client, or "" */
	char no_mount2[400];	/* why there is no second mount, or "" */
	unsigned long mib;
	int nfs;		/* LAB_NFS_DIR is on NFS */
};

struct res {
	char why[1024];
};

struct check {
	const char *name;
	int (*fn)(struct ctx *c, struct res *r);
	unsigned int needs;
	const char *after;	/* runs in that check's directory, if it passed */
};

struct group {
	const char *name;
	const char *title;
	unsigned int bound_s;
	const struct check *checks;
	void (*setup)(struct ctx *c);
	void (*teardown)(struct ctx *c);
};

static unsigned char *buf_a, *buf_b;	/* page-aligned: O_DIRECT uses them */

/* ------------------------------------------------------------------ */
/* verdicts and names                                                  */

static __attribute__((format(printf, 3, 4)))
int verdict(struct res *r, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	return code;
}

#define pass(r, ...)	verdict(r, LAB_PASS, __VA_ARGS__)
#define fail(r, ...)	verdict(r, LAB_FAIL, __VA_ARGS__)
#define skip(r, ...)	verdict(r, LAB_SKIP, __VA_ARGS__)
/* A step that must work did not: name it and the errno it got. */
#define fail_errno(r, fmt, ...) \
	verdict(r, LAB_FAIL, fmt ": %s", ##__VA_ARGS__, lab_en(errno))

/* A lock request's outcome: granted, an errno, or no answer. */
static const char *lkname(int e)
{
	return e == 0 ? "granted" : e < 0 ? "no answer within 60 s" : lab_en(e);
}

/* POSIX allows either for a refused F_SETLK. */
static int refused(int e)
{
	return e == EAGAIN || e == EACCES;
}

static double secs_since(uint64_t t0_ms)
{
	return (double)(lab_now_ms() - t0_ms) / 1000.0;
}

static long long ll(off_t v)
{
	return (long long)v;
}

/* snprintf without the compiler's truncation guesswork: paths here are
 * short; a cut one is still NUL-terminated and fails where it is used. */
static __attribute__((format(printf, 3, 4)))
void sfmt(char *dst, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, n, fmt, ap);
	va_end(ap);
}

/* A path under @dir; eight rotating buffers, enough for one expression. */
static __attribute__((format(printf, 2, 3)))
const char *at(const char *dir, const char *fmt, ...)
{
	static char ring[8][PATH_MAX];
	static unsigned int next;
	char *p = ring[next++ % 8];
	int n = snprintf(p, PATH_MAX, "%s/", dir);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(p + n, PATH_MAX - n, fmt, ap);
	va_end(ap);
	return p;
}

/* ------------------------------------------------------------------ */
/* data: a pattern any offset of which can be regenerated, and a hash  */

/* What a file should hold: a base pattern (0: zeros) under extents of other
 * patterns, later extents winning. */
struct extent {
	off_t off, len;
	uint64_t seed;
};

struct layout {
	off_t size;
	uint64_t seed;
	int n;
	struct extent ext[6];
};

static void expect(const struct layout *L, unsigned char *p, size_t len, off_t off)
{
	lab_fill(p, len, L->seed, off);
	for (int i = 0; i < L->n; i++) {
		const struct extent *e = &L->ext[i];
		off_t lo = off > e->off ? off : e->off;
		off_t hi = off + (off_t)len < e->off + e->len ? off + (off_t)len : e->off + e->len;

		if (lo < hi)
			lab_fill(p + (lo - off), hi - lo, e->seed, lo);
	}
}

/* ------------------------------------------------------------------ */
/* file I/O                                                            */

static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		off += n;
		len -= n;
	}
	return 0;
}

/* Up to @len bytes at @off, fewer only at EOF; -1 on error. */
static ssize_t pread_full(int fd, void *buf, size_t len, off_t off)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = pread(fd, (char *)buf + got, len - got, off + got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += n;
	}
	return got;
}

/* @len bytes of pattern @seed at @off, in @chunk-sized writes. */
static int write_seed(int fd, off_t off, off_t len, uint64_t seed, size_t chunk)
{
	if (chunk > BUF_SIZE)
		chunk = BUF_SIZE;
	while (len > 0) {
		size_t n = len < (off_t)chunk ? (size_t)len : chunk;

		lab_fill(buf_a, n, seed, off);
		if (pwrite_all(fd, buf_a, n, off))
			return -1;
		off += n;
		len -= n;
	}
	return 0;
}

/* The next read comes from the server: flush, then drop the clean pages. */
static int drop_cache(int fd)
{
	if (fsync(fd))
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return 0;
}

static uint64_t last_hash;	/* fnv64 of what verify() last read */

/*
 * Read the whole file through @fd in @chunk-sized preads and compare it
 * with @L: size, bytes, and the hash of each.  Fails with expected vs got.
 */
static int verify(int fd, const struct layout *L, size_t chunk,
		  struct res *r, const char *what)
{
	uint64_t hx = LAB_FNV0, hg = LAB_FNV0;
	off_t off = 0, bad = -1;
	unsigned char bx = 0, bg = 0;
	ssize_t n;

	if (chunk > BUF_SIZE)
		chunk = BUF_SIZE;
	while (off < L->size) {
		size_t want = L->size - off < (off_t)chunk ? (size_t)(L->size - off) : chunk;

		n = pread_full(fd, buf_b, want, off);
		if (n < 0)
			return fail_errno(r, "%s: read at %lld", what, ll(off));
		expect(L, buf_a, want, off);
		hx = lab_fnv64(hx, buf_a, want);
		hg = lab_fnv64(hg, buf_b, n);
		for (ssize_t i = 0; bad < 0 && i < n; i++) {
			if (buf_a[i] != buf_b[i]) {
				bad = off + i;
				bx = buf_a[i];
				bg = buf_b[i];
			}
		}
		if ((size_t)n < want)
			return fail(r, "%s: short file: EOF at byte %lld, expected %lld bytes",
				    what, ll(off + n), ll(L->size));
		off += n;
	}
	n = pread(fd, buf_b, 1, L->size);
	if (n > 0)
		return fail(r, "%s: longer than the expected %lld bytes", what, ll(L->size));
	if (bad >= 0)
		return fail(r, "%s: content differs: fnv64 expected %016" PRIx64 " got %016" PRIx64
			    "; first difference at byte %lld: expected 0x%02x got 0x%02x",
			    what, hx, hg, ll(bad), bx, bg);
	last_hash = hg;
	return LAB_PASS;
}

/* verify() a path through a fresh fd whose cached pages were dropped. */
static int verify_path(const char *path, const struct layout *L, size_t chunk,
		       struct res *r, const char *what)
{
	int fd = open(path, O_RDONLY);
	int code;

	if (fd < 0)
		return fail_errno(r, "%s: open", what);
	if (drop_cache(fd)) {
		code = fail_errno(r, "%s: fsync", what);
	} else {
		code = verify(fd, L, chunk, r, what);
	}
	close(fd);
	return code;
}

static int size_is(int fd, off_t want, struct res *r, const char *what)
{
	struct stat st;

	if (fstat(fd, &st))
		return fail_errno(r, "%s: fstat", what);
	if (st.st_size != want)
		return fail(r, "%s: expected size %lld, got %lld", what, ll(want), ll(st.st_size));
	return LAB_PASS;
}

/* A new file holding pattern @seed, @size bytes; 0 or -1 with errno. */
static int put_seed(const char *path, off_t size, uint64_t seed)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	int e;

	if (fd < 0)
		return -1;
	if (write_seed(fd, 0, size, seed, 65536) || fsync(fd)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);
}

static int put_bytes(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	int e;

	if (fd < 0)
		return -1;
	if (pwrite_all(fd, p, n, 0)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);	/* NFS: close flushes, and says if that failed */
}

/* Whole small file into @p (at most @max bytes), read from the server. */
static ssize_t get_bytes(const char *path, void *p, size_t max)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	n = pread_full(fd, p, max, 0);
	close(fd);
	return n;
}

/* The compiler's and editor's pattern: write NAME.tmp, rename it over NAME. */
static int replace_file(const char *path, const void *p, size_t n)
{
	char tmp[PATH_MAX];

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (put_bytes(tmp, p, n))
		return -1;
	return rename(tmp, path);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		return rmdir(path) && errno != ENOENT ? -1 : 0;
	return unlink(path) && errno != ENOENT ? -1 : 0;
}

static int rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) && errno == ENOENT)
		return 0;
	return nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* Entries of @dir other than . and ..; -1 if it cannot be read. */
static int count_entries(const char *dir, char *first, size_t firstsz)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	if (first)
		first[0] = '\0';
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (first && !n)
			snprintf(first, firstsz, "%s", e->d_name);
		n++;
	}
	closedir(d);
	return n;
}

/* ------------------------------------------------------------------ */
/* the mount table                                                     */

/* The mount holding @path (the longest mount point that prefixes it):
 * its mount point, fs type and super options.  0, or -1. */
static int mount_of(const char *path, char *mp, size_t mpsz, char *opts, size_t osz)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[8192], m[PATH_MAX], o[2048];
	size_t best = 0;
	int found = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *sep = strstr(line, " - ");
		size_t n;

		if (!sep || sscanf(line, "%*d %*d %*s %*s %4095s", m) != 1 ||
		    sscanf(sep + 3, "%*s %*s %2047s", o) != 1)
			continue;
		n = strlen(m);
		if (strcmp(m, "/") && (strncmp(path, m, n) || (path[n] && path[n] != '/')))
			continue;
		if (n >= best) {
			best = n;
			snprintf(mp, mpsz, "%s", m);
			snprintf(opts, osz, "%s", o);
			found = 0;
		}
	}
	fclose(f);
	return found;
}

/* "all" for ",local_lock=all," in @opts; "none" when it is not there. */
static const char *local_lock(const char *opts, char *buf, size_t n)
{
	const char *p = strstr(opts, "local_lock=");

	if (!p)
		return "none";
	p += strlen("local_lock=");
	snprintf(buf, n, "%.*s", (int)strcspn(p, ","), p);
	return buf;
}

/* ------------------------------------------------------------------ */
/* children: bounded, killed with the parent, reaped after every check */

static pid_t kids[MAX_KIDS];
static int nkids;

static void forget(pid_t pid)
{
	for (int i = 0; i < nkids; i++) {
		if (kids[i] == pid) {
			kids[i] = kids[--nkids];
			return;
		}
	}
}

/* Run @fn(@arg) in a child; its return value is the exit code. */
static pid_t spawn(int (*fn)(void *), void *arg)
{
	pid_t pid;

	if (nkids == MAX_KIDS) {
		errno = EAGAIN;
		return -1;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGTERM, SIG_DFL);	/* the parent's handlers print */
		signal(SIGINT, SIG_DFL);	/* results and unmount */
		signal(SIGALRM, SIG_DFL);
		alarm(CHILD_BOUND_S);
		_exit(fn(arg));
	}
	kids[nkids++] = pid;
	return pid;
}

/* Exit code of @pid; 128+N if signal N ended it; -1 if it did not end
 * within @ms (it is killed). */
static int reap(pid_t pid, unsigned int ms)
{
	uint64_t end = lab_now_ms() + ms;
	int status = 0;
	pid_t w;

	for (;;) {
		w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			forget(pid);
			return -1;
		}
		if (lab_now_ms() >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			forget(pid);
			return -1;
		}
		lab_sleep_us(2000);
	}
	forget(pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void reap_all(void)
{
	while (nkids) {
		kill(kids[0], SIGKILL);
		reap(kids[0], OP_MS);
	}
}

/* Children block in gate_wait() until the parent opens the gate. */
struct gate {
	int fd[2];
};

static void gate_wait(struct gate *g)
{
	char c;

	close(g->fd[1]);
	while (read(g->fd[0], &c, 1) < 0 && errno == EINTR)
		;
}

/* ------------------------------------------------------------------ */
/* a lock peer: another process with its own open file, driven by pipe */

enum peer_op { P_SETLK, P_SETLKW, P_GETLK, P_FLOCK };

struct preq {
	int op, arg;		/* arg: F_SETLKW's bound in s, flock's operation */
	short type;
	off_t start, len;
};

struct prep {
	int err;		/* 0 or the errno of the request */
	struct flock fl;	/* F_GETLK's answer */
};

struct peer {
	pid_t pid;
	int to, from;		/* parent's ends */
	int cto, cfrom;		/* child's ends */
	const char *path;
};

static void on_alarm_noop(int sig)
{
	(void)sig;
}

static int peer_do(int fd, const struct preq *q, struct flock *out)
{
	struct flock fl = {
		.l_type = q->type, .l_whence = SEEK_SET,
		.l_start = q->start, .l_len = q->len,
	};
	struct sigaction sa = { .sa_handler = on_alarm_noop }, old;
	int e;

	switch (q->op) {
	case P_SETLK:
		return fcntl(fd, F_SETLK, &fl) ? errno : 0;
	case P_SETLKW:
		/* bounded: the alarm interrupts the wait (no SA_RESTART) */
		sigaction(SIGALRM, &sa, &old);
		alarm(q->arg);
		e = fcntl(fd, F_SETLKW, &fl) ? errno : 0;
		alarm(0);
		sigaction(SIGALRM, &old, NULL);
		alarm(CHILD_BOUND_S);
		return e;
	case P_GETLK:
		e = fcntl(fd, F_GETLK, &fl) ? errno : 0;
		*out = fl;
		return e;
	case P_FLOCK:
		return flock(fd, q->arg) ? errno : 0;
	}
	return EINVAL;
}

static int peer_main(void *arg)
{
	struct peer *p = arg;
	struct prep rep = { 0 };
	struct preq q;
	int fd;

	close(p->to);
	close(p->from);
	fd = open(p->path, O_RDWR);
	rep.err = fd < 0 ? errno : 0;
	if (write(p->cfrom, &rep, sizeof(rep)) != sizeof(rep) || fd < 0)
		return 1;
	while (read(p->cto, &q, sizeof(q)) == sizeof(q)) {
		memset(&rep, 0, sizeof(rep));
		rep.err = peer_do(fd, &q, &rep.fl);
		if (write(p->cfrom, &rep, sizeof(rep)) != sizeof(rep))
			break;
	}
	return 0;	/* EOF: the parent is done; exit closes fd, drops locks */
}

static int peer_recv(struct peer *p, struct prep *rep, unsigned int ms)
{
	struct pollfd pfd = { .fd = p->from, .events = POLLIN };

	if (poll(&pfd, 1, ms) != 1)
		return -1;
	return read(p->from, rep, sizeof(*rep)) == sizeof(*rep) ? 0 : -1;
}

static int peer_send(struct peer *p, int op, int arg, short type, off_t start, off_t len)
{
	struct preq q = { .op = op, .arg = arg, .type = type, .start = start, .len = len };

	return write(p->to, &q, sizeof(q)) == sizeof(q) ? 0 : -1;
}

/* One request; its errno (0: done), or -1 when the peer did not answer. */
static int peer_req(struct peer *p, int op, int arg, short type, off_t start,
		    off_t len, struct flock *out)
{
	struct prep rep;

	if (peer_send(p, op, arg, type, start, len) || peer_recv(p, &rep, OP_MS))
		return -1;
	if (out)
		*out = rep.fl;
	return rep.err;
}

static int peer_lock(struct peer *p, short type, off_t start, off_t len)
{
	return peer_req(p, P_SETLK, 0, type, start, len, NULL);
}

/* 0, or the errno of the peer's open (-1: it never answered). */
static int peer_start(struct peer *p, const char *path)
{
	int to[2], from[2];
	struct prep rep;

	memset(p, 0, sizeof(*p));
	p->pid = -1;
	if (pipe2(to, O_CLOEXEC) || pipe2(from, O_CLOEXEC))
		return errno;
	p->to = to[1];
	p->cto = to[0];
	p->from = from[0];
	p->cfrom = from[1];
	p->path = path;
	p->pid = spawn(peer_main, p);
	close(p->cto);
	close(p->cfrom);
	if (p->pid < 0)
		return errno;
	if (peer_recv(p, &rep, OP_MS))
		return -1;
	return rep.err;
}

/* The parent's own fcntl lock: 0 or errno. */
static int lk(int fd, int cmd, short type, off_t start, off_t len, struct flock *out)
{
	struct flock fl = {
		.l_type = type, .l_whence = SEEK_SET, .l_start = start, .l_len = len,
	};
	int e = fcntl(fd, cmd, &fl) ? errno : 0;

	if (out)
		*out = fl;
	return e;
}

/* ------------------------------------------------------------------ */
/* basic                                                               */

static int chk_create(struct ctx *c, struct res *r)
{
	const char *f = at(c->dir, "new"), *d = at(c->dir, "newdir");
	struct stat st;
	int fd = open(f, O_CREAT | O_EXCL | O_WRONLY, 0640);

	if (fd < 0)
		return fail_errno(r, "open(O_CREAT|O_EXCL, 0640)");
	if (fstat(fd, &st))
		return fail_errno(r, "fstat of the new file");
	close(fd);
	if (!S_ISREG(st.st_mode) || (st.st_mode & 07777) != 0640 || st.st_size)
		return fail(r, "new file: expected a regular file, mode 0640, size 0; got mode %o size %lld",
			    st.st_mode, ll(st.st_size));
	if (st.st_uid != geteuid())
		return fail(r, "new file: expected owner %u, got %u (root squashed?)",
			    geteuid(), st.st_uid);
	fd = open(f, O_CREAT | O_EXCL | O_WRONLY, 0640);
	if (fd >= 0 || errno != EEXIST)
		return fail(r, "second O_CREAT|O_EXCL: expected EEXIST, got %s", fd >= 0 ? "success" : lab_en(errno));
	if (mkdir(d, 0750))
		return fail_errno(r, "mkdir 0750");
	if (stat(d, &st) || !S_ISDIR(st.st_mode) || (st.st_mode & 07777) != 0750)
		return fail(r, "new directory: expected a directory, mode 0750; got mode %o (%s)",
			    st.st_mode, lab_en(errno));
	if (!mkdir(d, 0750) || errno != EEXIST)
		return fail(r, "second mkdir: expected EEXIST, got %s", lab_en(errno));
	if (mkfifo(at(c->dir, "fifo"), 0600))
		return fail_errno(r, "mkfifo");
	if (lstat(at(c->dir, "fifo"), &st) || !S_ISFIFO(st.st_mode))
		return fail(r, "mkfifo: expected a FIFO, got mode %o", st.st_mode);
	return pass(r, "file (0640) and directory (0750) created with the right type, mode, size and owner; "
		    "a second exclusive create and mkdir give EEXIST; mkfifo makes a FIFO");
}

static int chk_lookup(struct ctx *c, struct res *r)
{
	char longname[257];
	struct stat a, b;

	if (put_seed(at(c->dir, "file"), 100, 1) || mkdir(at(c->dir, "sub"), 0755))
		return fail_errno(r, "create file and sub");
	if (stat(at(c->dir, "file"), &a) || stat(at(c->dir, "sub/../file"), &b))
		return fail_errno(r, "stat file, sub/../file");
	if (a.st_ino != b.st_ino || a.st_dev != b.st_dev)
		return fail(r, "file and sub/../file: expected one inode, got %llu and %llu",
			    (unsigned long long)a.st_ino, (unsigned long long)b.st_ino);
	if (!stat(at(c->dir, "missing"), &a) || errno != ENOENT)
		return fail(r, "missing name: expected ENOENT, got %s", lab_en(errno));
	if (!stat(at(c->dir, "file/x"), &a) || errno != ENOTDIR)
		return fail(r, "file/x: expected ENOTDIR, got %s", lab_en(errno));
	memset(longname, 'n', 255);
	longname[255] = '\0';
	if (put_seed(at(c->dir, "%s", longname), 10, 2))
		return fail_errno(r, "create a 255-byte name");
	if (stat(at(c->dir, "%s", longname), &a))
		return fail_errno(r, "lookup of a 255-byte name");
	longname[255] = 'n';
	longname[256] = '\0';
	if (!stat(at(c->dir, "%s", longname), &a) || errno != ENAMETOOLONG)
		return fail(r, "256-byte name: expected ENAMETOOLONG, got %s", lab_en(errno));
	return pass(r, "file, sub/../file (one inode), a 255-byte name found; missing ENOENT, "
		    "file/x ENOTDIR, 256-byte name ENAMETOOLONG");
}

static int chk_getattr(struct ctx *c, struct res *r)
{
	const char *f = at(c->dir, "f");
	struct stat a, b;
	int fd = open(f, O_CREAT | O_RDWR, 0644);

	if (fd < 0)
		return fail_errno(r, "create");
	if (write_seed(fd, 0, 65537, 3, 65536) || fsync(fd))
		return fail_errno(r, "write 65537 bytes");
	if (fstat(fd, &a) || stat(f, &b))
		return fail_errno(r, "fstat/stat");
	if (!S_ISREG(a.st_mode) || a.st_size != 65537 || a.st_nlink != 1)
		return fail(r, "expected a regular file, size 65537, nlink 1; got mode %o size %lld nlink %lu",
			    a.st_mode, ll(a.st_size), (unsigned long)a.st_nlink);
	if (a.st_uid != geteuid())
		return fail(r, "expected owner %u, got %u", geteuid(), a.st_uid);
	if (a.st_blocks == 0)
		return fail(r, "65537 bytes written and synced, but st_blocks is 0");
	if (a.st_ino != b.st_ino || a.st_size != b.st_size || a.st_mode != b.st_mode)
		return fail(r, "fstat and stat differ: ino %llu/%llu size %lld/%lld",
			    (unsigned long long)a.st_ino, (unsigned long long)b.st_ino,
			    ll(a.st_size), ll(b.st_size));
	if (stat(c->dir, &b) || !S_ISDIR(b.st_mode) || b.st_nlink < 1)
		return fail(r, "the check's directory: expected a directory, got mode %o nlink %lu",
			    b.st_mode, (unsigned long)b.st_nlink);
	return pass(r, "size 65537, nlink 1, owner, %lld blocks; fstat and stat agree; directory is a directory",
		    ll(a.st_blocks));
}

static int mode_is(const char *path, mode_t want, struct res *r, const char *what)
{
	struct stat st;

	if (stat(path, &st))
		return fail_errno(r, "%s: stat", what);
	if ((st.st_mode & 07777) != want)
		return fail(r, "%s: expected mode %04o, got %04o", what, want, st.st_mode & 07777);
	return LAB_PASS;
}

static int chk_chmod(struct ctx *c, struct res *r)
{
	const char *f = at(c->dir, "f"), *d = at(c->dir, "d");
	int fd, code;

	if (put_seed(f, 10, 4) || mkdir(d, 0755))
		return fail_errno(r, "create");
	if (chmod(f, 0751))
		return fail_errno(r, "chmod 0751");
	if ((code = mode_is(f, 0751, r, "chmod 0751")))
		return code;
	fd = open(f, O_RDONLY);
	if (fd < 0 || fchmod(fd, 0400))
		return fail_errno(r, "fchmod 0400");
	close(fd);
	if ((code = mode_is(f, 0400, r, "fchmod 0400")))
		return code;
	if (chmod(d, 01777))
		return fail_errno(r, "chmod 01777 on a directory");
	if ((code = mode_is(d, 01777, r, "chmod 01777 (sticky) on a directory")))
		return code;
	return pass(r, "chmod 0751, fchmod 0400 on a file and 01777 (sticky) on a directory read back");
}

static int owner_is(const char *path, uid_t u, gid_t g, struct res *r, const char *what)
{
	struct stat st;

	if (lstat(path, &st))
		return fail_errno(r, "%s: lstat", what);
	if (st.st_uid != u || st.st_gid != g)
		return fail(r, "%s: expected %u:%u, got %u:%u%s", what, u, g, st.st_uid, st.st_gid,
			    st.st_uid == 65534 ? " (nobody: id mapping or squashing)" : "");
	return LAB_PASS;
}

static int chk_chown(struct ctx *c, struct res *r)
{
	const char *f = at(c->dir, "f"), *s = at(c->dir, "s");
	int fd, code;

	if (put_seed(f, 10, 5) || symlink("f", s))
		return fail_errno(r, "create");
	if (chown(f, 12345, 23456))
		return fail_errno(r, "chown 12345:23456");
	if ((code = owner_is(f, 12345, 23456, r, "chown")))
		return code;
	fd = open(f, O_RDONLY);
	if (fd < 0 || fchown(fd, -1, 34567))
		return fail_errno(r, "fchown -1:34567");
	close(fd);
	if ((code = owner_is(f, 12345, 34567, r, "fchown of the group only")))
		return code;
	if (lchown(s, 4242, 4343))
		return fail_errno(r, "lchown of a symlink");
	if ((code = owner_is(s, 4242, 4343, r, "lchown of a symlink")))
		return code;
	if ((code = owner_is(f, 12345, 34567, r, "the symlink's target after lchown")))
		return code;
	return pass(r, "chown 12345:23456, fchown of the group only, lchown of a symlink (target untouched) read back");
}

/* Seconds must match; nanoseconds may be cut to the server's granularity. */
static int time_is(struct timespec got, struct timespec want, char *note, size_t n)
{
	if (got.tv_sec != want.tv_sec || got.tv_nsec > want.tv_nsec)
		return 0;
	if (got.tv_nsec != want.tv_nsec)
		snprintf(note, n, "; nanoseconds cut to %09ld (server granularity)", got.tv_nsec);
	return 1;
}

static int chk_utimes(struct ctx *c, struct res *r)
{
	const struct timespec ts[2] = {
		{ .tv_sec = 1000000000, .tv_nsec = 123456789 },
		{ .tv_sec = 1500000000, .tv_nsec = 987654321 },
	};
	const struct timespec now[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_nsec = UTIME_NOW } };
	const char *f = at(c->dir, "f");
	char note[96] = "";
	struct stat st;
	int fd;

	if (put_seed(f, 10, 6))
		return fail_errno(r, "create");
	if (utimensat(AT_FDCWD, f, ts, 0))
		return fail_errno(r, "utimensat");
	if (stat(f, &st))
		return fail_errno(r, "stat");
	if (!time_is(st.st_atim, ts[0], note, sizeof(note)) ||
	    !time_is(st.st_mtim, ts[1], note, sizeof(note)))
		return fail(r, "utimensat: expected atime %ld.%09ld mtime %ld.%09ld, got %ld.%09ld and %ld.%09ld",
			    ts[0].tv_sec, ts[0].tv_nsec, ts[1].tv_sec, ts[1].tv_nsec,
			    st.st_atim.tv_sec, st.st_atim.tv_nsec, st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	fd = open(f, O_RDONLY);
	if (fd < 0 || futimens(fd, now))
		return fail_errno(r, "futimens(UTIME_OMIT, UTIME_NOW)");
	close(fd);
	if (stat(f, &st))
		return fail_errno(r, "stat");
	if (st.st_atim.tv_sec != ts[0].tv_sec || st.st_mtim.tv_sec <= ts[1].tv_sec)
		return fail(r, "futimens(OMIT, NOW): expected atime kept at %ld and mtime after %ld, got %ld and %ld",
			    ts[0].tv_sec, ts[1].tv_sec, st.st_atim.tv_sec, st.st_mtim.tv_sec);
	return pass(r, "utimensat to fixed times read back%s; futimens(OMIT, NOW) kept atime, set mtime to the server's now",
		    note);
}

static int chk_setattr_size(struct ctx *c, struct res *r)
{
	const char *f = at(c->dir, "f");
	struct layout L = { .size = 10000, .n = 1, .ext = { { 0, 10000, 7 } } };
	int code;

	if (put_seed(f, 10000, 7))
		return fail_errno(r, "create");
	if (truncate(f, 50000))
		return fail_errno(r, "truncate to 50000");
	L.size = 50000;
	if ((code = verify_path(f, &L, 4093, r, "after growing 10000 -> 50000 (zeros past 10000)")))
		return code;
	if (truncate(f, 3000))
		return fail_errno(r, "truncate to 3000");
	L.size = 3000;
	if ((code = verify_path(f, &L, 4093, r, "after shrinking to 3000")))
		return code;
	if (truncate(f, 0))
		return fail_errno(r, "truncate to 0");
	L.size = 0;
	if ((code = verify_path(f, &L, 4093, r, "after truncating to 0")))
		return code;
	return pass(r, "truncate(2) by path (SETATTR size): 10000 -> 50000 reads zeros past the data, -> 3000 keeps the head, -> 0");
}

static int chk_rw_checksum(struct ctx *c, struct res *r)
{
	static const off_t sizes[] = {
		0, 1, 511, 4095, 4096, 4097, 65537, MIB + 3, 3 * MIB - 7,
	};
	uint64_t total = LAB_FNV0;
	char what[64];
	int code;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct layout L = { .size = sizes[i], .seed = 100 + i };
		const char *f = at(c->dir, "rw-%lld", ll(sizes[i]));
		int fd = open(f, O_CREAT | O_TRUNC | O_WRONLY, 0644);

		snprintf(what, sizeof(what), "%lld bytes", ll(sizes[i]));
		if (fd < 0)
			return fail_errno(r, "%s: create", what);
		/* odd chunks: writes that straddle pages and wsize */
		if (write_seed(fd, 0, sizes[i], L.seed, 7919) || fsync(fd))
			return fail_errno(r, "%s: write", what);
		if (close(fd))
			return fail_errno(r, "%s: close", what);
		if ((code = verify_path(f, &L, 4093, r, what)))
			return code;
		total = lab_fnv64(total, (unsigned char *)&last_hash, sizeof(last_hash));
	}
	return pass(r, "9 sizes 0..3 MiB-7 written in 7919-byte writes, read back from the server in 4093-byte reads: "
		    "all bytes match (fnv64 of the hashes %016" PRIx64 ")", total);
}

/* basic/readdir's tree: 2000 names of varied length, so replies split
 * at different places. */
#define NDIRENT 2000

static const char *dirent_name(int i)
{
	static char name[64];

	snprintf(name, sizeof(name), "e%04d-%.*s", i, i % 37,
		 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	return name;
}

/* Index of one of our names, -1 for anything else. */
static int dirent_index(const char *name)
{
	int i;

	if (sscanf(name, "e%4d-", &i) != 1 || i < 0 || i >= NDIRENT)
		return -1;
	return strcmp(name, dirent_name(i)) ? -1 : i;
}

static int chk_readdir(struct ctx *c, struct res *r)
{
	static unsigned char seen[NDIRENT];
	struct dirent *e;
	int dots = 0, total = 0;
	DIR *d;

	for (int i = 0; i < NDIRENT; i++) {
		int fd = open(at(c->dir, "%s", dirent_name(i)), O_CREAT | O_EXCL | O_WRONLY, 0644);

		if (fd < 0)
			return fail_errno(r, "create entry %d of %d", i, NDIRENT);
		close(fd);
	}
	memset(seen, 0, sizeof(seen));
	d = opendir(c->dir);
	if (!d)
		return fail_errno(r, "opendir");
	while ((errno = 0, e = readdir(d))) {
		int i = dirent_index(e->d_name);

		total++;
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
			dots++;
		} else if (i < 0) {
			closedir(d);
			return fail(r, "readdir returned a name never created: '%s'", e->d_name);
		} else if (seen[i]++) {
			closedir(d);
			return fail(r, "readdir returned '%s' twice", e->d_name);
		}
	}
	if (errno) {
		int err = errno;

		closedir(d);
		return fail(r, "readdir after %d entries: %s", total, lab_en(err));
	}
	closedir(d);
	for (int i = 0; i < NDIRENT; i++)
		if (!seen[i])
			return fail(r, "readdir never returned '%s' (%d of %d seen)",
				    dirent_name(i), total - dots, NDIRENT);
	if (dots != 2)
		return fail(r, "expected . and .. once each, got %d dot entries", dots);
	return pass(r, "%d entries created, each read back exactly once, plus . and ..", NDIRENT);
}

/* One pass over the directory: the telldir() before each entry and its name. */
struct dirwalk {
	long pos[NDIRENT + 8];
	char name[NDIRENT + 8][48];
	int n;
};

static int walk_dir(const char *dir, struct dirwalk *w)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return -1;
	w->n = 0;
	while (w->n < NDIRENT + 8) {
		long pos = telldir(d);

		e = readdir(d);
		if (!e)
			break;
		w->pos[w->n] = pos;
		sfmt(w->name[w->n], sizeof(w->name[0]), "%s", e->d_name);
		w->n++;
	}
	closedir(d);
	return 0;
}

/* seekdir(pos[k]) on @d must give back entries k, k+1, k+2. */
static int seek_ok(DIR *d, const struct dirwalk *w, int k, struct res *r, const char *how)
{
	seekdir(d, w->pos[k]);
	for (int j = k; j < k + 3 && j < w->n; j++) {
		struct dirent *e = readdir(d);

		if (!e || strcmp(e->d_name, w->name[j]))
			return fail(r, "%s: seekdir to entry %d's position (%ld): entry %d expected '%s', got '%s'",
				    how, k, w->pos[k], j, w->name[j], e ? e->d_name : "(end)");
	}
	return LAB_PASS;
}

static int chk_readdir_seekdir(struct ctx *c, struct res *r)
{
	static struct dirwalk w;
	int picks[16], np = 0, code;
	DIR *same, *fresh;

	if (walk_dir(c->dir, &w))
		return fail_errno(r, "opendir");
	if (w.n != NDIRENT + 2)
		return fail(r, "expected %d entries with . and .., got %d", NDIRENT + 2, w.n);
	/* spread over the whole directory: many READDIR replies/cookies apart */
	for (int k = 0; k < w.n && np < 14; k += w.n / 13)
		picks[np++] = k;
	picks[np++] = w.n - 1;
	same = opendir(c->dir);
	fresh = NULL;
	if (!same)
		return fail_errno(r, "opendir");
	while (readdir(same))
		;	/* read to the end first: seekdir must go back */
	for (int i = np - 1; i >= 0; i--) {
		if ((code = seek_ok(same, &w, picks[i], r, "same stream, backwards")))
			goto out;
	}
	for (int i = 0; i < np; i++) {
		fresh = opendir(c->dir);
		if (!fresh) {
			code = fail_errno(r, "opendir");
			goto out;
		}
		code = seek_ok(fresh, &w, picks[i], r, "a new stream");
		closedir(fresh);
		if (code)
			goto out;
	}
	rewinddir(same);
	code = LAB_PASS;
	{
		struct dirent *e = readdir(same);

		if (!e || strcmp(e->d_name, w.name[0]))
			code = fail(r, "rewinddir: expected '%s' first, got '%s'", w.name[0],
				    e ? e->d_name : "(end)");
	}
	if (!code)
		pass(r, "telldir/seekdir to %d positions across %d entries (last %d): the same names follow, "
		     "on the same stream (backwards from the end) and on a new one; rewinddir restarts",
		     np, w.n, picks[np - 1]);
out:
	closedir(same);
	return code;
}

static int ino_of(const char *path, ino_t *ino)
{
	struct stat st;

	if (stat(path, &st))
		return -1;
	*ino = st.st_ino;
	return 0;
}

static int gone(const char *path)
{
	struct stat st;

	return lstat(path, &st) && errno == ENOENT;
}

static int chk_rename_file(struct ctx *c, struct res *r)
{
	struct layout La = { .size = 3000, .seed = 11 };
	ino_t ia, ib;
	int code;

	if (put_seed(at(c->dir, "a"), 3000, 11) || put_seed(at(c->dir, "b"), 5000, 12) ||
	    mkdir(at(c->dir, "sub"), 0755) || mkdir(at(c->dir, "dir"), 0755))
		return fail_errno(r, "create");
	if (ino_of(at(c->dir, "a"), &ia))
		return fail_errno(r, "stat a");
	if (rename(at(c->dir, "a"), at(c->dir, "c")))
		return fail_errno(r, "rename a -> c");
	if (!gone(at(c->dir, "a")) || ino_of(at(c->dir, "c"), &ib) || ib != ia)
		return fail(r, "rename a -> c: expected a gone and c with a's inode %llu",
			    (unsigned long long)ia);
	if (rename(at(c->dir, "c"), at(c->dir, "b")))
		return fail_errno(r, "rename c -> b over an existing b");
	if (!gone(at(c->dir, "c")) || ino_of(at(c->dir, "b"), &ib) || ib != ia)
		return fail(r, "rename over b: expected c gone and b with a's inode %llu, got %llu",
			    (unsigned long long)ia, (unsigned long long)ib);
	if ((code = verify_path(at(c->dir, "b"), &La, 65536, r, "b after rename over it")))
		return code;
	if (rename(at(c->dir, "b"), at(c->dir, "sub/b")) || !gone(at(c->dir, "b")))
		return fail_errno(r, "rename b -> sub/b (another directory)");
	if (rename(at(c->dir, "sub/b"), at(c->dir, "sub/b")) || gone(at(c->dir, "sub/b")))
		return fail_errno(r, "rename sub/b onto itself");
	if (!rename(at(c->dir, "sub/b"), at(c->dir, "dir")) || errno != EISDIR)
		return fail(r, "rename a file over a directory: expected EISDIR, got %s", lab_en(errno));
	return pass(r, "a -> c (same inode), c over an existing b (b's old data gone, content intact), "
		    "into another directory, onto itself; over a directory EISDIR");
}

static int chk_rename_dir(struct ctx *c, struct res *r)
{
	struct layout L = { .size = 777, .seed = 13 };
	int code;

	if (mkdir(at(c->dir, "d1"), 0755) || put_seed(at(c->dir, "d1/f"), 777, 13) ||
	    mkdir(at(c->dir, "empty"), 0755) || mkdir(at(c->dir, "full"), 0755) ||
	    put_seed(at(c->dir, "full/x"), 1, 14))
		return fail_errno(r, "create");
	if (rename(at(c->dir, "d1"), at(c->dir, "d2")))
		return fail_errno(r, "rename d1 -> d2");
	if (!gone(at(c->dir, "d1")))
		return fail(r, "rename d1 -> d2: d1 still there");
	if ((code = verify_path(at(c->dir, "d2/f"), &L, 4096, r, "d2/f after the rename")))
		return code;
	if (rename(at(c->dir, "d2"), at(c->dir, "empty")))
		return fail_errno(r, "rename d2 over an empty directory");
	if (!gone(at(c->dir, "d2")) || gone(at(c->dir, "empty/f")))
		return fail(r, "rename over an empty directory: expected d2 gone and empty/f there");
	if (!rename(at(c->dir, "empty"), at(c->dir, "full")) ||
	    (errno != ENOTEMPTY && errno != EEXIST))
		return fail(r, "rename over a non-empty directory: expected ENOTEMPTY, got %s", lab_en(errno));
	if (!rename(at(c->dir, "full"), at(c->dir, "full/inside")) || errno != EINVAL)
		return fail(r, "rename a directory into itself: expected EINVAL, got %s", lab_en(errno));
	return pass(r, "d1 -> d2 with its file, d2 over an empty directory; over a non-empty one ENOTEMPTY, "
		    "into itself EINVAL");
}

static int nlink_is(const char *path, nlink_t want, struct res *r, const char *what)
{
	struct stat st;

	if (stat(path, &st))
		return fail_errno(r, "%s: stat", what);
	if (st.st_nlink != want)
		return fail(r, "%s: expected nlink %lu, got %lu", what, (unsigned long)want,
			    (unsigned long)st.st_nlink);
	return LAB_PASS;
}

static int chk_link(struct ctx *c, struct res *r)
{
	struct layout L = { .size = 4444, .seed = 15 };
	ino_t a, b;
	int code;

	if (put_seed(at(c->dir, "f"), 4444, 15) || mkdir(at(c->dir, "sub"), 0755))
		return fail_errno(r, "create");
	if (link(at(c->dir, "f"), at(c->dir, "g")))
		return fail_errno(r, "link f g");
	if ((code = nlink_is(at(c->dir, "f"), 2, r, "f after link f g")) ||
	    (code = nlink_is(at(c->dir, "g"), 2, r, "g after link f g")))
		return code;
	if (ino_of(at(c->dir, "f"), &a) || ino_of(at(c->dir, "g"), &b) || a != b)
		return fail(r, "f and g: expected one inode");
	if (link(at(c->dir, "f"), at(c->dir, "sub/h")))
		return fail_errno(r, "link f sub/h");
	if ((code = nlink_is(at(c->dir, "g"), 3, r, "g after a third link")))
		return code;
	if (unlink(at(c->dir, "f")))
		return fail_errno(r, "unlink f");
	if ((code = nlink_is(at(c->dir, "sub/h"), 2, r, "sub/h after unlink f")))
		return code;
	if ((code = verify_path(at(c->dir, "g"), &L, 4096, r, "g after unlink f")))
		return code;
	if (!link(at(c->dir, "g"), at(c->dir, "sub/h")) || errno != EEXIST)
		return fail(r, "link onto an existing name: expected EEXIST, got %s", lab_en(errno));
	if (!link(at(c->dir, "sub"), at(c->dir, "sublink")) || errno != EPERM)
		return fail(r, "link to a directory: expected EPERM, got %s", lab_en(errno));
	return pass(r, "nlink 1 -> 2 -> 3 -> 2 as links come and go, one inode, data intact; "
		    "onto an existing name EEXIST, to a directory EPERM");
}

static int chk_symlink(struct ctx *c, struct res *r)
{
	char target[1001], got[1100];
	struct stat st;
	ino_t a, b;
	ssize_t n;

	if (put_seed(at(c->dir, "f"), 10, 16))
		return fail_errno(r, "create");
	if (symlink("f", at(c->dir, "s")))
		return fail_errno(r, "symlink f s");
	n = readlink(at(c->dir, "s"), got, sizeof(got));
	if (n != 1 || got[0] != 'f')
		return fail(r, "readlink s: expected 'f', got '%.*s' (%s)", n < 0 ? 0 : (int)n, got, lab_en(errno));
	if (lstat(at(c->dir, "s"), &st) || !S_ISLNK(st.st_mode) || st.st_size != 1)
		return fail(r, "lstat s: expected a symlink of size 1, got mode %o size %lld",
			    st.st_mode, ll(st.st_size));
	if (ino_of(at(c->dir, "s"), &a) || ino_of(at(c->dir, "f"), &b) || a != b)
		return fail(r, "stat through s: expected f's inode");
	for (int i = 0; i < 1000; i++)
		target[i] = i % 10 == 9 ? '/' : 'a' + i % 26;
	target[1000] = '\0';
	if (symlink(target, at(c->dir, "long")))
		return fail_errno(r, "symlink with a 1000-byte target");
	n = readlink(at(c->dir, "long"), got, sizeof(got));
	if (n != 1000 || memcmp(got, target, 1000))
		return fail(r, "readlink of a 1000-byte target: expected it back, got %zd bytes", n);
	if (symlink("/nonexistent/lab", at(c->dir, "dangling")))
		return fail_errno(r, "symlink to a missing absolute path");
	if (!stat(at(c->dir, "dangling"), &st) || errno != ENOENT)
		return fail(r, "stat through a dangling symlink: expected ENOENT, got %s", lab_en(errno));
	if (lstat(at(c->dir, "dangling"), &st))
		return fail_errno(r, "lstat of a dangling symlink");
	if (!symlink("x", at(c->dir, "f")) || errno != EEXIST)
		return fail(r, "symlink onto an existing name: expected EEXIST, got %s", lab_en(errno));
	return pass(r, "readlink gives back a 1-byte and a 1000-byte target, stat follows to the target, "
		    "a dangling link is ENOENT through and fine with lstat; onto an existing name EEXIST");
}

static int chk_remove(struct ctx *c, struct res *r)
{
	char d[PATH_MAX], first[NAME_MAX + 1];
	int n;

	sfmt(d, sizeof(d), "%s/d", c->dir);	/* kept across many at() calls */

	if (put_seed(at(c->dir, "f"), 10, 17) || mkdir(d, 0755) || mkdir(at(c->dir, "full"), 0755) ||
	    put_seed(at(c->dir, "full/x"), 1, 18))
		return fail_errno(r, "create");
	if (!unlink(at(c->dir, "d")) || errno != EISDIR)
		return fail(r, "unlink of a directory: expected EISDIR, got %s", lab_en(errno));
	if (!rmdir(at(c->dir, "f")) || errno != ENOTDIR)
		return fail(r, "rmdir of a file: expected ENOTDIR, got %s", lab_en(errno));
	if (!rmdir(at(c->dir, "full")) || (errno != ENOTEMPTY && errno != EEXIST))
		return fail(r, "rmdir of a non-empty directory: expected ENOTEMPTY, got %s", lab_en(errno));
	if (unlink(at(c->dir, "f")) || !gone(at(c->dir, "f")))
		return fail(r, "unlink f: expected f gone (%s)", lab_en(errno));
	if (!unlink(at(c->dir, "f")) || errno != ENOENT)
		return fail(r, "second unlink: expected ENOENT, got %s", lab_en(errno));
	for (int i = 0; i < 50; i++)
		if (put_seed(at(c->dir, "d/%d", i), i, 19))
			return fail_errno(r, "create d/%d", i);
	for (int i = 0; i < 50; i++)
		if (unlink(at(c->dir, "d/%d", i)))
			return fail_errno(r, "unlink d/%d", i);
	n = count_entries(d, first, sizeof(first));
	if (n != 0)
		return fail(r, "50 files created and removed: expected an empty directory, got %d entries (first '%s')",
			    n, first);
	if (rmdir(d) || !gone(d))
		return fail_errno(r, "rmdir of the emptied directory");
	return pass(r, "unlink and rmdir remove; 50 files created and removed leave an empty directory; "
		    "EISDIR, ENOTDIR, ENOTEMPTY, ENOENT where due");
}

static int chk_statfs(struct ctx *c, struct res *r)
{
	struct statvfs a, b;
	struct statfs fs;

	if (put_seed(at(c->dir, "f"), 4 * MIB, 20))
		return fail_errno(r, "write 4 MiB");
	if (statvfs(c->dir, &a) || statvfs(at(c->dir, "f"), &b) || statfs(c->dir, &fs))
		return fail_errno(r, "statvfs");
	if (!a.f_bsize || !a.f_frsize || !a.f_blocks)
		return fail(r, "expected non-zero bsize, frsize, blocks; got %lu, %lu, %llu",
			    a.f_bsize, a.f_frsize, (unsigned long long)a.f_blocks);
	if (a.f_bfree > a.f_blocks || a.f_bavail > a.f_bfree)
		return fail(r, "expected bavail <= bfree <= blocks, got %llu, %llu, %llu",
			    (unsigned long long)a.f_bavail, (unsigned long long)a.f_bfree,
			    (unsigned long long)a.f_blocks);
	if (a.f_files && a.f_ffree > a.f_files)
		return fail(r, "expected ffree <= files, got %llu > %llu",
			    (unsigned long long)a.f_ffree, (unsigned long long)a.f_files);
	if (a.f_namemax < 255)
		return fail(r, "expected namemax >= 255, got %lu", a.f_namemax);
	if (a.f_fsid != b.f_fsid || a.f_blocks != b.f_blocks)
		return fail(r, "statvfs of the directory and of a file in it differ (fsid %lx/%lx)",
			    a.f_fsid, b.f_fsid);
	return pass(r, "type 0x%lx, %llu blocks of %lu, %llu free, %llu available, %llu/%llu inodes free, "
		    "namemax %lu; a file and its directory agree",
		    (unsigned long)fs.f_type, (unsigned long long)a.f_blocks, a.f_frsize,
		    (unsigned long long)a.f_bfree, (unsigned long long)a.f_bavail,
		    (unsigned long long)a.f_ffree, (unsigned long long)a.f_files, a.f_namemax);
}

static const struct check basic_checks[] = {
	{ "create", chk_create, 0, NULL },
	{ "lookup", chk_lookup, 0, NULL },
	{ "getattr", chk_getattr, 0, NULL },
	{ "chmod", chk_chmod, 0, NULL },
	{ "chown", chk_chown, NEED_ROOT, NULL },
	{ "utimes", chk_utimes, 0, NULL },
	{ "setattr-size", chk_setattr_size, 0, NULL },
	{ "rw-checksum", chk_rw_checksum, 0, NULL },
	{ "readdir", chk_readdir, 0, NULL },
	{ "readdir-seekdir", chk_readdir_seekdir, 0, "readdir" },
	{ "rename-file", chk_rename_file, 0, NULL },
	{ "rename-dir", chk_rename_dir, 0, NULL },
	{ "link", chk_link, 0, NULL },
	{ "symlink", chk_symlink, 0, NULL },
	{ "remove", chk_remove, 0, NULL },
	{ "statfs", chk_statfs, 0, NULL },
	{ NULL, NULL, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* general                                                             */

/* A build-like tree: NSRC sources in NSRCDIR directories. */
#define NSRCDIR	10
#define PERDIR	30
#define NSRC	(NSRCDIR * PERDIR)
#define MAXSRC	4096

struct src {
	size_t size;
	uint64_t seed;
};

static struct src srcs[NSRC];

static const char *src_path(const char *top, int i)
{
	return at(top, "src/d%d/f%02d.c", i / PERDIR, i % PERDIR);
}

static const char *obj_path(const char *top, int i)
{
	return at(top, "obj/d%d/f%02d.o", i / PERDIR, i % PERDIR);
}

static size_t make_src(const struct src *s, unsigned char *p)
{
	lab_fill(p, s->size, s->seed, 0);
	return s->size;
}

/* The "compiler": an 8-byte hash header, then the source xor 0x5a. */
static size_t compile(const unsigned char *src, size_t n, unsigned char *obj)
{
	uint64_t h = lab_fnv64(LAB_FNV0, src, n);

	memcpy(obj, &h, 8);
	for (size_t i = 0; i < n; i++)
		obj[8 + i] = src[i] ^ 0x5a;
	return n + 8;
}

/* Every file under @top/@sub/dN: @per entries, none named *.tmp. */
static int tree_listing_ok(const char *top, const char *sub, int per, struct res *r)
{
	for (int d = 0; d < NSRCDIR; d++) {
		const char *dir = at(top, "%s/d%d", sub, d);
		DIR *dp = opendir(dir);
		struct dirent *e;
		int n = 0;

		if (!dp)
			return fail_errno(r, "opendir %s/d%d", sub, d);
		while ((e = readdir(dp))) {
			if (e->d_name[0] == '.')
				continue;
			n++;
			if (strstr(e->d_name, ".tmp")) {
				closedir(dp);
				return fail(r, "%s/d%d: a temporary file was left behind: %s", sub, d, e->d_name);
			}
		}
		closedir(dp);
		if (n != per)
			return fail(r, "%s/d%d: expected %d entries, got %d", sub, d, per, n);
	}
	return LAB_PASS;
}

static int chk_build_tree(struct ctx *c, struct res *r)
{
	static unsigned char want[MAXSRC], got[MAXSRC + 1];
	size_t bytes = 0;
	ssize_t n;

	if (mkdir(at(c->dir, "src"), 0755))
		return fail_errno(r, "mkdir src");
	for (int d = 0; d < NSRCDIR; d++)
		if (mkdir(at(c->dir, "src/d%d", d), 0755))
			return fail_errno(r, "mkdir src/d%d", d);
	for (int i = 0; i < NSRC; i++) {
		srcs[i] = (struct src){ .size = 100 + (i * 7919) % 2900, .seed = 0x1000 + i };
		make_src(&srcs[i], want);
		if (put_bytes(src_path(c->dir, i), want, srcs[i].size))
			return fail_errno(r, "write source %d", i);
		bytes += srcs[i].size;
	}
	for (int i = 0; i < NSRC; i++) {
		make_src(&srcs[i], want);
		n = get_bytes(src_path(c->dir, i), got, sizeof(got));
		if (n != (ssize_t)srcs[i].size || memcmp(want, got, n))
			return fail(r, "source %d read back: expected %zu bytes (fnv64 %016" PRIx64 "), got %zd (fnv64 %016" PRIx64 ")",
				    i, srcs[i].size, lab_fnv64(LAB_FNV0, want, srcs[i].size),
				    n, n > 0 ? lab_fnv64(LAB_FNV0, got, n) : 0);
	}
	if (tree_listing_ok(c->dir, "src", PERDIR, r))
		return LAB_FAIL;
	return pass(r, "%d sources (%zu bytes) in %d directories written and read back from the server, listings complete",
		    NSRC, bytes, NSRCDIR);
}

/* Read a source, "compile" it, write the object with the rename-over
 * pattern; the source must read back as written. */
static int build_one(const char *top, int i, struct res *r)
{
	static unsigned char want[MAXSRC], got[MAXSRC + 1], obj[MAXSRC + 8];
	ssize_t n = get_bytes(src_path(top, i), got, sizeof(got));
	size_t m;

	make_src(&srcs[i], want);
	if (n != (ssize_t)srcs[i].size || memcmp(want, got, n))
		return fail(r, "source %d before compiling: expected %zu bytes, got %zd", i, srcs[i].size, n);
	m = compile(got, n, obj);
	if (replace_file(obj_path(top, i), obj, m))
		return fail_errno(r, "write object %d (tmp + rename over)", i);
	return LAB_PASS;
}

static int chk_build_compile(struct ctx *c, struct res *r)
{
	static unsigned char want[MAXSRC], obj[MAXSRC + 8], got[MAXSRC + 8];
	unsigned char *prog = buf_b, *out = buf_a;
	size_t plen = 0;
	int edited = 0;
	ssize_t n;

	if (mkdir(at(c->dir, "obj"), 0755) || mkdir(at(c->dir, "out"), 0755))
		return fail_errno(r, "mkdir obj, out");
	for (int d = 0; d < NSRCDIR; d++)
		if (mkdir(at(c->dir, "obj/d%d", d), 0755))
			return fail_errno(r, "mkdir obj/d%d", d);
	for (int i = 0; i < NSRC; i++)
		if (build_one(c->dir, i, r))
			return LAB_FAIL;
	/* edit a third of the sources the way editors save, then rebuild them */
	for (int i = 0; i < NSRC; i += 3, edited++) {
		srcs[i] = (struct src){ .size = 150 + (i * 104729) % 2800, .seed = 0x2000 + i };
		make_src(&srcs[i], want);
		if (replace_file(src_path(c->dir, i), want, srcs[i].size))
			return fail_errno(r, "save edited source %d", i);
	}
	for (int i = 0; i < NSRC; i += 3)
		if (build_one(c->dir, i, r))
			return LAB_FAIL;
	/* "link": every object, in order, into out/prog */
	for (int i = 0; i < NSRC; i++) {
		n = get_bytes(obj_path(c->dir, i), got, sizeof(got));
		if (n < 0)
			return fail_errno(r, "read object %d", i);
		memcpy(prog + plen, got, n);
		plen += n;
	}
	if (replace_file(at(c->dir, "out/prog"), prog, plen))
		return fail_errno(r, "write out/prog");
	/* verify: every object and the program against what they must be */
	plen = 0;
	for (int i = 0; i < NSRC; i++) {
		size_t m = compile(want, make_src(&srcs[i], want), obj);

		n = get_bytes(obj_path(c->dir, i), got, sizeof(got));
		if (n != (ssize_t)m || memcmp(obj, got, m))
			return fail(r, "object %d: expected %zu bytes (fnv64 %016" PRIx64 "), got %zd%s",
				    i, m, lab_fnv64(LAB_FNV0, obj, m), n, n == (ssize_t)m ? " with other bytes (stale?)" : "");
		memcpy(out + plen, obj, m);
		plen += m;
	}
	n = get_bytes(at(c->dir, "out/prog"), prog, BUF_SIZE);
	if (n != (ssize_t)plen || memcmp(out, prog, plen))
		return fail(r, "out/prog: expected %zu bytes (fnv64 %016" PRIx64 "), got %zd (fnv64 %016" PRIx64 ")",
			    plen, lab_fnv64(LAB_FNV0, out, plen), n, n > 0 ? lab_fnv64(LAB_FNV0, prog, n) : 0);
	if (tree_listing_ok(c->dir, "obj", PERDIR, r) || tree_listing_ok(c->dir, "src", PERDIR, r))
		return LAB_FAIL;
	return pass(r, "%d objects built with write-tmp + rename-over, %d sources edited and rebuilt, "
		    "linked into a %zu-byte program (fnv64 %016" PRIx64 "); all read back right, no temporaries left",
		    NSRC, edited, plen, lab_fnv64(LAB_FNV0, out, plen));
}

static int chk_build_clean(struct ctx *c, struct res *r)
{
	static const char *const subs[] = { "src", "obj" };

	for (int s = 0; s < 2; s++) {
		for (int d = 0; d < NSRCDIR; d++) {
			for (int i = 0; i < PERDIR; i++) {
				int k = d * PERDIR + i;
				const char *p = s ? obj_path(c->dir, k) : src_path(c->dir, k);

				if (unlink(p))
					return fail_errno(r, "unlink %s", p + strlen(c->dir) + 1);
			}
			if (rmdir(at(c->dir, "%s/d%d", subs[s], d)))
				return fail_errno(r, "rmdir %s/d%d (should be empty now)", subs[s], d);
		}
		if (rmdir(at(c->dir, "%s", subs[s])))
			return fail_errno(r, "rmdir %s", subs[s]);
	}
	if (unlink(at(c->dir, "out/prog")) || rmdir(at(c->dir, "out")))
		return fail_errno(r, "remove out/");
	if (count_entries(c->dir, NULL, 0) != 0)
		return fail(r, "the build directory is not empty after the clean");
	return pass(r, "%d files and %d directories removed, each directory empty when removed", 2 * NSRC + 1,
		    2 * NSRCDIR + 3);
}

#define BIG_SEED 0xb16

static int chk_large_seq(struct ctx *c, struct res *r)
{
	struct layout L = { .size = (off_t)c->mib * MIB, .seed = BIG_SEED };
	const char *f = at(c->dir, "big");
	double wsec, rsec;
	uint64_t t0;
	int fd, code;

	fd = open(f, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		return fail_errno(r, "create");
	t0 = lab_now_ms();
	if (write_seed(fd, 0, L.size, BIG_SEED, MIB) || fsync(fd))
		return fail_errno(r, "write %lu MiB", c->mib);
	if (close(fd))
		return fail_errno(r, "close after writing");
	wsec = secs_since(t0);
	t0 = lab_now_ms();
	if ((code = verify_path(f, &L, MIB, r, "read back")))
		return code;
	rsec = secs_since(t0);
	return pass(r, "%lu MiB written (%.1f MiB/s incl. fsync) and read back from the server (%.1f MiB/s), fnv64 %016" PRIx64,
		    c->mib, c->mib / (wsec > 0.001 ? wsec : 0.001), c->mib / (rsec > 0.001 ? rsec : 0.001),
		    last_hash);
}

static int chk_large_random(struct ctx *c, struct res *r)
{
	off_t size = (off_t)c->mib * MIB;
	int fd = open(at(c->dir, "big"), O_RDONLY);

	if (fd < 0)
		return fail_errno(r, "open");
	if (drop_cache(fd))
		return fail_errno(r, "fsync");
	for (int i = 0; i < 256; i++) {
		off_t off = lab_mix64(i) % size;
		size_t len = 1 + lab_mix64(i + 1000) % 65536;
		ssize_t n;

		if (off + (off_t)len > size)
			len = size - off;
		n = pread_full(fd, buf_b, len, off);
		if (n != (ssize_t)len)
			return fail(r, "pread(%zu at %lld): expected %zu bytes, got %zd (%s)", len, ll(off), len, n,
				    lab_en(n < 0 ? errno : 0));
		lab_fill(buf_a, len, BIG_SEED, off);
		for (size_t j = 0; j < len; j++)
			if (buf_a[j] != buf_b[j])
				return fail(r, "pread(%zu at %lld): byte %lld: expected 0x%02x got 0x%02x",
					    len, ll(off), ll(off + j), buf_a[j], buf_b[j]);
	}
	return pass(r, "256 reads of 1..65536 bytes at unaligned offsets of the %lu MiB file match", c->mib);
}

static const struct check general_checks[] = {
	{ "build-tree", chk_build_tree, 0, NULL },
	{ "build-compile", chk_build_compile, 0, "build-tree" },
	{ "build-clean", chk_build_clean, 0, "build-compile" },
	{ "large-seq", chk_large_seq, 0, NULL },
	{ "large-random-read", chk_large_random, 0, "large-seq" },
	{ NULL, NULL, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* special                                                             */

/* Why an NFSv4.2-only operation is missing here. */
static const char *v42_why(const struct ctx *c)
{
	if (!c->nfs)
		return "this local filesystem does not support it";
	if (!strcmp(c->vers, "4.2"))
		return "the server does not support it on NFSv4.2";
	return "an NFSv4.2 operation, and this mount is not 4.2";
}

static int chk_silly_rename(struct ctx *c, struct res *r)
{
	struct layout L = { .size = 100000, .seed = 21 };
	const char *f = at(c->dir, "victim");
	char seen[NAME_MAX + 1] = "", left[NAME_MAX + 1];
	uint64_t t0;
	int fd, code, n;

	if (put_seed(f, L.size, L.seed))
		return fail_errno(r, "create");
	fd = open(f, O_RDWR);
	if (fd < 0)
		return fail_errno(r, "open");
	if (unlink(f))
		return fail_errno(r, "unlink while open");
	if (!gone(f))
		return fail(r, "after unlink the name still resolves");
	if (count_entries(c->dir, seen, sizeof(seen)) < 0)
		return fail_errno(r, "readdir");
	if (drop_cache(fd))
		return fail_errno(r, "fsync of the unlinked file");
	if ((code = verify(fd, &L, 8192, r, "read through the open fd after unlink")))
		return code;
	L.n = 1;
	L.ext[0] = (struct extent){ 5000, 3000, 22 };
	if (write_seed(fd, 5000, 3000, 22, 3000) || drop_cache(fd))
		return fail_errno(r, "write through the open fd after unlink");
	if ((code = verify(fd, &L, 8192, r, "read after writing to the unlinked file")))
		return code;
	if (close(fd))
		return fail_errno(r, "close");
	/* the client removes its .nfsXXXX file asynchronously after the close */
	t0 = lab_now_ms();
	while ((n = count_entries(c->dir, left, sizeof(left))) > 0 && lab_now_ms() - t0 < 10000)
		lab_sleep_us(100000);
	if (n != 0)
		return fail(r, "10 s after the close the directory still holds %d entries (first '%s')", n, left);
	return pass(r, "data readable and writable through the open fd after unlink (%s); "
		    "directory empty %.1f s after the close",
		    seen[0] ? "silly-renamed meanwhile" : "no silly rename: local semantics",
		    secs_since(t0));
}

#define RACERS	8
#define ROUNDS	20

struct racer {
	struct gate gate;
	int res;	/* write end: each racer's errno (0: it won) */
	const char *path;
};

static int racer_main(void *arg)
{
	struct racer *x = arg;
	int fd, e;

	gate_wait(&x->gate);
	fd = open(x->path, O_CREAT | O_EXCL | O_WRONLY, 0644);
	e = fd < 0 ? errno : 0;
	return write(x->res, &e, sizeof(e)) == sizeof(e) ? 0 : 1;
}

/* One round: RACERS processes O_EXCL the same name at once. */
static int excl_round(struct racer *x, int rd, int round, struct res *r)
{
	pid_t pids[RACERS];
	int won = 0, e;

	if (pipe2(x->gate.fd, O_CLOEXEC))
		return fail_errno(r, "pipe");
	for (int i = 0; i < RACERS; i++) {
		pids[i] = spawn(racer_main, x);
		if (pids[i] < 0)
			return fail_errno(r, "fork");
	}
	close(x->gate.fd[0]);
	close(x->gate.fd[1]);	/* go */
	for (int i = 0; i < RACERS; i++) {
		struct pollfd p = { .fd = rd, .events = POLLIN };

		if (poll(&p, 1, OP_MS) != 1 || read(rd, &e, sizeof(e)) != sizeof(e))
			return fail(r, "round %d: racer %d never reported", round, i);
		if (e == 0)
			won++;
		else if (e != EEXIST)
			return fail(r, "round %d: a losing O_EXCL create: expected EEXIST, got %s", round, lab_en(e));
	}
	for (int i = 0; i < RACERS; i++)
		reap(pids[i], OP_MS);
	if (won != 1)
		return fail(r, "round %d: expected exactly one of %d O_EXCL creates to win, %d won",
			    round, RACERS, won);
	if (gone(x->path) || unlink(x->path))
		return fail(r, "round %d: the winner's file is not there", round);
	return LAB_PASS;
}

static int chk_excl_race(struct ctx *c, struct res *r)
{
	struct racer x = { .path = at(c->dir, "contested") };
	int res[2], code = LAB_PASS;

	if (pipe2(res, O_CLOEXEC))
		return fail_errno(r, "pipe");
	x.res = res[1];
	for (int round = 0; round < ROUNDS && !code; round++)
		code = excl_round(&x, res[0], round, r);
	close(res[0]);
	close(res[1]);
	if (code)
		return code;
	return pass(r, "%d rounds of %d processes creating one name with O_CREAT|O_EXCL at once: "
		    "exactly one winner each time, every other EEXIST", ROUNDS, RACERS);
}

static int chk_sparse_read(struct ctx *c, struct res *r)
{
	struct layout L = {
		.size = 3 * MIB + 100 + 4096, .seed = 0, .n = 2,
		.ext = { { MIB, 4096, 23 }, { 3 * MIB + 100, 4096, 24 } },
	};
	const char *f = at(c->dir, "sparse");
	struct stat st;
	int fd, code;

	fd = open(f, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		return fail_errno(r, "create");
	for (int i = 0; i < L.n; i++)
		if (write_seed(fd, L.ext[i].off, L.ext[i].len, L.ext[i].seed, 4096))
			return fail_errno(r, "write at %lld", ll(L.ext[i].off));
	if (close(fd))
		return fail_errno(r, "close");
	if ((code = verify_path(f, &L, 65536, r, "two 4 KiB extents in 3 MiB of holes")))
		return code;
	if (truncate(f, L.size + MIB))
		return fail_errno(r, "truncate 1 MiB further");
	L.size += MIB;
	if ((code = verify_path(f, &L, 65536, r, "after extending by truncate")))
		return code;
	if (stat(f, &st))
		return fail_errno(r, "stat");
	return pass(r, "holes read back as zeros around the data, also past a truncate-extend; "
		    "%lld bytes allocated for a %lld-byte file", ll(st.st_blocks * 512), ll(st.st_size));
}

static int chk_seek_hole(struct ctx *c, struct res *r)
{
	const off_t data = MIB, len = 4096, size = 2 * MIB;
	const char *f = at(c->dir, "holes");
	off_t d, h;
	int fd;

	fd = open(f, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		return fail_errno(r, "create");
	if (write_seed(fd, data, len, 25, len) || ftruncate(fd, size) || fsync(fd))
		return fail_errno(r, "write 4 KiB at 1 MiB in a 2 MiB file");
	d = lseek(fd, 0, SEEK_DATA);
	if (d < 0 && (errno == EINVAL || errno == EOPNOTSUPP))
		return skip(r, "SEEK_DATA: %s (%s)", lab_en(errno), v42_why(c));
	if (d < 0)
		return fail(r, "SEEK_DATA from 0: expected data at or before %lld, got %s", ll(data), lab_en(errno));
	h = lseek(fd, d, SEEK_HOLE);
	if (h < 0)
		return fail(r, "SEEK_HOLE from %lld: %s", ll(d), lab_en(errno));
	if (d == 0 && h == size)
		return skip(r, "no hole reported (the whole file is data, what a filesystem without hole "
			    "reporting says): %s", c->nfs ? v42_why(c) : "this local filesystem does not report holes");
	if (d > data || h < data + len || h > size)
		return fail(r, "data at [%lld, %lld): expected SEEK_DATA(0) <= %lld and SEEK_HOLE in [%lld, %lld], "
			    "got SEEK_DATA %lld, SEEK_HOLE %lld", ll(data), ll(data + len), ll(data),
			    ll(data + len), ll(size), ll(d), ll(h));
	return pass(r, "data at [%lld, %lld) of %lld: SEEK_DATA(0) = %lld, SEEK_HOLE = %lld",
		    ll(data), ll(data + len), ll(size), ll(d), ll(h));
}

static int chk_fallocate(struct ctx *c, struct res *r)
{
	struct layout L = { .size = MIB + 5, .n = 1, .ext = { { 4096, 1000, 26 } } };
	const char *f = at(c->dir, "falloc");
	struct stat st;
	int fd, code;

	fd = open(f, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		return fail_errno(r, "create");
	if (fallocate(fd, 0, 0, L.size)) {
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			return skip(r, "fallocate: %s (%s)", lab_en(errno), v42_why(c));
		return fail_errno(r, "fallocate(0, %lld)", ll(L.size));
	}
	if ((code = size_is(fd, L.size, r, "after fallocate")))
		return code;
	if (write_seed(fd, 4096, 1000, 26, 1000) || close(fd))
		return fail_errno(r, "write into the allocated range");
	if ((code = verify_path(f, &L, 65536, r, "allocated range (zeros) with data written into it")))
		return code;
	if (stat(f, &st))
		return fail_errno(r, "stat");
	return pass(r, "fallocate set the size to %lld, the range reads zeros around data written into it; "
		    "%lld bytes allocated", ll(L.size), ll(st.st_blocks * 512));
}

static int chk_fallocate_keep(struct ctx *c, struct res *r)
{
	struct layout L = { .size = 10000, .seed = 32 };
	const char *f = at(c->dir, "keep");
	int fd, code;

	if (put_seed(f, L.size, L.seed))
		return fail_errno(r, "create");
	fd = open(f, O_RDWR);
	if (fd < 0)
		return fail_errno(r, "open");
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, L.size, MIB)) {
		if ((errno == EOPNOTSUPP || errno == ENOSYS) && c->nfs && !strcmp(c->vers, "4.2"))
			return skip(r, "fallocate(KEEP_SIZE): %s (the NFS client passes only mode 0 and "
				    "PUNCH_HOLE|KEEP_SIZE: ALLOCATE has no keep-size flag)", lab_en(errno));
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			return skip(r, "fallocate(KEEP_SIZE): %s (%s)", lab_en(errno), v42_why(c));
		return fail_errno(r, "fallocate(KEEP_SIZE, %lld, 1 MiB)", ll(L.size));
	}
	if ((code = size_is(fd, L.size, r, "after fallocate(KEEP_SIZE) past EOF")))
		return code;
	close(fd);
	if ((code = verify_path(f, &L, 65536, r, "data after fallocate(KEEP_SIZE) past EOF")))
		return code;
	return pass(r, "fallocate(KEEP_SIZE) of 1 MiB past EOF kept the size (%lld) and the data", ll(L.size));
}

static int chk_punch_hole(struct ctx *c, struct res *r)
{
	const off_t off = 256 * 1024 + 1, len = 300000;
	struct layout L = { .size = MIB, .seed = 27, .n = 1, .ext = { { off, len, 0 } } };
	const char *f = at(c->dir, "punch");
	int fd, code;

	if (put_seed(f, MIB, 27))
		return fail_errno(r, "create");
	fd = open(f, O_RDWR);
	if (fd < 0)
		return fail_errno(r, "open");
	if (fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off, len)) {
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			return skip(r, "punch hole: %s (%s)", lab_en(errno), v42_why(c));
		return fail_errno(r, "fallocate(PUNCH_HOLE|KEEP_SIZE, %lld, %lld)", ll(off), ll(len));
	}
	if (close(fd))
		return fail_errno(r, "close");
	if ((code = verify_path(f, &L, 65536, r, "after punching an unaligned hole")))
		return code;
	return pass(r, "an unaligned hole [%lld, %lld) punched in 1 MiB of data reads zeros, the rest and the size unchanged",
		    ll(off), ll(off + len));
}

static int chk_truncate_open(struct ctx *c, struct res *r)
{
	struct layout L = { .size = MIB, .n = 1, .ext = { { 0, 65536, 28 } } };
	const char *f = at(c->dir, "f");
	char byte;
	int a, b, code;

	a = open(f, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (a < 0 || write_seed(a, 0, 65536, 28, 65536) || fsync(a))
		return fail_errno(r, "create 64 KiB");
	b = open(f, O_RDONLY);
	if (b < 0)
		return fail_errno(r, "second open");
	if (ftruncate(a, MIB))
		return fail_errno(r, "ftruncate to 1 MiB while open twice");
	if ((code = size_is(b, MIB, r, "the other fd after extending")))
		return code;
	if (close(a))
		return fail_errno(r, "close");
	if ((code = verify_path(f, &L, 65536, r, "reopened after extending")))
		return code;
	a = open(f, O_RDWR);
	if (a < 0 || ftruncate(a, 4000) || close(a))
		return fail_errno(r, "shrink to 4000");
	if ((code = size_is(b, 4000, r, "the other fd after shrinking")))
		return code;
	if (pread(b, &byte, 1, 5000) != 0)
		return fail(r, "the other fd reads past the new EOF (byte 5000)");
	L.size = 4000;
	if ((code = verify_path(f, &L, 65536, r, "reopened after shrinking")))
		return code;
	close(b);
	return pass(r, "64 KiB -> 1 MiB -> 4000 bytes while another fd stays open: it sees each size at once, "
		    "a reopen after the close sees the data and zeros");
}

#define APPENDERS	2
#define RECORDS		500

struct record {
	uint32_t magic, who, seq, pad;
	unsigned char fill[40];
	uint64_t sum;
};

struct appender {
	struct gate gate;
	const char *path;
	int who;
};

static void make_record(struct record *rec, int who, int seq)
{
	memset(rec, 0, sizeof(*rec));
	rec->magic = 0x1ab0a99d;
	rec->who = who;
	rec->seq = seq;
	lab_fill(rec->fill, sizeof(rec->fill), 29 + who, seq * 64);
	rec->sum = lab_fnv64(LAB_FNV0, (unsigned char *)rec, offsetof(struct record, sum));
}

static int appender_main(void *arg)
{
	struct appender *x = arg;
	struct record rec;
	int fd;

	gate_wait(&x->gate);
	fd = open(x->path, O_WRONLY | O_APPEND);
	if (fd < 0)
		return 2;
	for (int i = 0; i < RECORDS; i++) {
		make_record(&rec, x->who, i);
		if (write(fd, &rec, sizeof(rec)) != sizeof(rec))
			return 3;
	}
	return close(fd) ? 4 : 0;
}

static int chk_append(struct ctx *c, struct res *r)
{
	static struct record recs[APPENDERS * RECORDS + 1];
	struct appender x[APPENDERS];
	int next[APPENDERS] = { 0 }, fd, rc;
	pid_t pid[APPENDERS];
	struct gate g;
	ssize_t n;

	if (put_bytes(at(c->dir, "log"), "", 0) || pipe2(g.fd, O_CLOEXEC))
		return fail_errno(r, "create");
	for (int i = 0; i < APPENDERS; i++) {
		x[i] = (struct appender){ .gate = g, .path = at(c->dir, "log"), .who = i };
		pid[i] = spawn(appender_main, &x[i]);
		if (pid[i] < 0)
			return fail_errno(r, "fork");
	}
	close(g.fd[0]);
	close(g.fd[1]);
	for (int i = 0; i < APPENDERS; i++)
		if ((rc = reap(pid[i], OP_MS)))
			return fail(r, "appender %d: exit %d (2 open, 3 write, 4 close failed; -1 timeout)", i, rc);
	fd = open(at(c->dir, "log"), O_RDONLY);
	if (fd < 0 || drop_cache(fd))
		return fail_errno(r, "open the log");
	n = pread_full(fd, recs, sizeof(recs), 0);
	close(fd);
	if (n != (ssize_t)(APPENDERS * RECORDS * sizeof(struct record)))
		return fail(r, "expected %zu bytes from %d x %d appends of %zu, got %zd (lost or extra writes)",
			    APPENDERS * RECORDS * sizeof(struct record), APPENDERS, RECORDS,
			    sizeof(struct record), n);
	for (int i = 0; i < APPENDERS * RECORDS; i++) {
		struct record *rec = &recs[i], want;

		if (rec->who >= APPENDERS)
			return fail(r, "record %d: torn or overwritten (writer %u)", i, rec->who);
		make_record(&want, rec->who, next[rec->who]);
		if (memcmp(rec, &want, sizeof(want)))
			return fail(r, "record %d: expected writer %u's record %d, got seq %u (torn, lost or reordered)",
				    i, rec->who, next[rec->who], rec->seq);
		next[rec->who]++;
	}
	return pass(r, "%d processes appended %d records each with O_APPEND: all %d there, whole, in each writer's order",
		    APPENDERS, RECORDS, APPENDERS * RECORDS);
}

static int chk_odirect(struct ctx *c, struct res *r)
{
	const size_t len = MIB, chunk = 128 * 1024;
	struct layout L = { .size = len + 65536, .seed = 30, .n = 1, .ext = { { len, 65536, 31 } } };
	const char *f = at(c->dir, "direct");
	int fd, rd, buffered, code;

	fd = open(f, O_CREAT | O_TRUNC | O_RDWR | O_DIRECT, 0644);
	if (fd < 0 && errno == EINVAL)
		return skip(r, "O_DIRECT refused with EINVAL (no direct I/O on this %s)",
			    c->nfs ? "mount" : "filesystem");
	if (fd < 0)
		return fail_errno(r, "open(O_DIRECT)");
	for (size_t off = 0; off < len; off += chunk) {
		lab_fill(buf_a, chunk, 30, off);
		if (pwrite_all(fd, buf_a, chunk, off))
			return fail_errno(r, "O_DIRECT write at %zu", off);
	}
	/* buffered data past it: a direct read must see it (flushed first) */
	buffered = open(f, O_WRONLY);
	if (buffered < 0 || write_seed(buffered, len, 65536, 31, 65536))
		return fail_errno(r, "buffered write after the direct data");
	rd = open(f, O_RDONLY | O_DIRECT);
	if (rd < 0)
		return fail_errno(r, "open(O_DIRECT) for reading");
	if (pread_full(rd, buf_b, len + 65536, 0) != (ssize_t)(len + 65536))
		return fail(r, "O_DIRECT read: expected %zu bytes (%s)", len + 65536, lab_en(errno));
	expect(&L, buf_a, len + 65536, 0);
	for (size_t i = 0; i < len + 65536; i++)
		if (buf_a[i] != buf_b[i])
			return fail(r, "O_DIRECT read, byte %zu: expected 0x%02x got 0x%02x%s", i, buf_a[i], buf_b[i],
				    i >= len ? " (the unflushed buffered write was not seen)" : "");
	close(rd);
	close(buffered);
	close(fd);
	if ((code = verify_path(f, &L, 65536, r, "buffered read of the O_DIRECT file")))
		return code;
	return pass(r, "1 MiB written with O_DIRECT in 128 KiB writes, read back with O_DIRECT (with a buffered "
		    "write past it, flushed first) and through the page cache");
}

static const struct check special_checks[] = {
	{ "silly-rename", chk_silly_rename, 0, NULL },
	{ "excl-create-race", chk_excl_race, 0, NULL },
	{ "sparse-read", chk_sparse_read, 0, NULL },
	{ "seek-hole", chk_seek_hole, 0, NULL },
	{ "fallocate", chk_fallocate, 0, NULL },
	{ "fallocate-keep-size", chk_fallocate_keep, 0, NULL },
	{ "punch-hole", chk_punch_hole, 0, NULL },
	{ "truncate-open", chk_truncate_open, 0, NULL },
	{ "append-two-procs", chk_append, 0, NULL },
	{ "odirect", chk_odirect, 0, NULL },
	{ NULL, NULL, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* lock                                                                */

/* Where locks go: the group header says it, checks that need the
 * server's lock manager skip when the mount keeps locks on the client. */
static void lock_setup(struct ctx *c)
{
	char mp[PATH_MAX], opts[2048], ll_buf[32];
	const char *mode;

	if (!c->nfs)
		return;		/* local: the reference semantics */
	if (mount_of(c->base, mp, sizeof(mp), opts, sizeof(opts))) {
		lab_diag("lock: %s not found in /proc/self/mountinfo; assuming locks reach the server", c->base);
		return;
	}
	mode = local_lock(opts, ll_buf, sizeof(ll_buf));
	lab_diag("lock: %s is mounted local_lock=%s", mp, mode);
	if (!strcmp(mode, "all") || !strcmp(mode, "posix"))
		snprintf(c->local_fcntl, sizeof(c->local_fcntl),
			 "fcntl locks stay on the client (local_lock=%s%s)", mode,
			 strstr(opts, "nolock") ? ", nolock" : "");
	if (!strcmp(mode, "all") || !strcmp(mode, "flock"))
		snprintf(c->local_flock, sizeof(c->local_flock),
			 "flock stays on the client (local_lock=%s%s)", mode,
			 strstr(opts, "nolock") ? ", nolock" : "");
}

/* The lock file and a peer with its own open of it. */
static int lock_begin(struct ctx *c, struct res *r, int *fd, struct peer *p)
{
	const char *f = at(c->dir, "lockfile");
	int e;

	if (put_seed(f, 8192, 40))
		return fail_errno(r, "create the lock file");
	*fd = open(f, O_RDWR);
	if (*fd < 0)
		return fail_errno(r, "open the lock file");
	e = peer_start(p, f);
	if (e)
		return fail(r, "lock peer could not open the file: %s", lkname(e));
	return LAB_PASS;
}

/* @what must have given @want (0 granted, or refused when @want is EAGAIN). */
static int lock_expect(int got, int want, struct res *r, const char *what)
{
	if (want == EAGAIN ? refused(got) : got == want)
		return LAB_PASS;
	return fail(r, "%s: expected %s, got %s", what, want == EAGAIN ? "EAGAIN" : lkname(want),
		    lkname(got));
}

static int chk_lock_conflict(struct ctx *c, struct res *r)
{
	struct peer p;
	int fd, code;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	if ((code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 100, NULL), 0, r,
				"parent F_WRLCK [0,100)")) ||
	    (code = lock_expect(peer_lock(&p, F_WRLCK, 50, 100), EAGAIN, r,
				"peer F_WRLCK [50,150)")) ||
	    (code = lock_expect(peer_lock(&p, F_RDLCK, 99, 1), EAGAIN, r,
				"peer F_RDLCK [99,100)")) ||
	    (code = lock_expect(peer_lock(&p, F_WRLCK, 0, 0), EAGAIN, r,
				"peer F_WRLCK on the whole file")))
		return code;
	return pass(r, "with the parent's write lock on [0,100), the peer's overlapping write, read and "
		    "whole-file requests are refused (EAGAIN/EACCES)");
}

static int chk_lock_disjoint(struct ctx *c, struct res *r)
{
	struct peer p;
	int fd, code;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	if ((code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 100, NULL), 0, r,
				"parent F_WRLCK [0,100)")) ||
	    (code = lock_expect(peer_lock(&p, F_WRLCK, 100, 100), 0, r,
				"peer F_WRLCK [100,200) (adjacent)")) ||
	    (code = lock_expect(peer_lock(&p, F_RDLCK, 4096, 0), 0, r,
				"peer F_RDLCK [4096,EOF)")) ||
	    (code = lock_expect(lk(fd, F_SETLK, F_RDLCK, 8192, 10, NULL), 0, r,
				"parent F_RDLCK [8192,8202) under the peer's read lock")) ||
	    (code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 200, 50, NULL), 0, r,
				"parent F_WRLCK [200,250)")))
		return code;
	return pass(r, "non-overlapping write locks of two processes (adjacent too) and overlapping read locks are all granted");
}

static int chk_lock_upgrade(struct ctx *c, struct res *r)
{
	struct peer p;
	int fd, code;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	if ((code = lock_expect(lk(fd, F_SETLK, F_RDLCK, 0, 0, NULL), 0, r, "parent read lock")) ||
	    (code = lock_expect(peer_lock(&p, F_RDLCK, 0, 0), 0, r, "peer read lock beside it")) ||
	    (code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 0, NULL), EAGAIN, r,
				"parent upgrade to write while the peer reads")) ||
	    (code = lock_expect(peer_lock(&p, F_UNLCK, 0, 0), 0, r, "peer unlock")) ||
	    (code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 0, NULL), 0, r,
				"parent upgrade to write")) ||
	    (code = lock_expect(peer_lock(&p, F_RDLCK, 0, 0), EAGAIN, r,
				"peer read under the write lock")) ||
	    (code = lock_expect(lk(fd, F_SETLK, F_RDLCK, 0, 0, NULL), 0, r,
				"parent downgrade to read")) ||
	    (code = lock_expect(peer_lock(&p, F_RDLCK, 0, 0), 0, r,
				"peer read after the downgrade")) ||
	    (code = lock_expect(peer_lock(&p, F_WRLCK, 0, 0), EAGAIN, r,
				"peer write beside the parent's read")))
		return code;
	return pass(r, "read -> write (refused while the peer reads, granted after) -> read: "
		    "each step seen by the peer");
}

static int getlk_is(const struct flock *fl, short type, off_t start, off_t len, pid_t pid,
		    struct res *r, const char *what, char *note, size_t n)
{
	if (fl->l_type != type || (type != F_UNLCK && (fl->l_start != start || fl->l_len != len)))
		return fail(r, "%s: expected type %d [%lld, +%lld), got type %d [%lld, +%lld)", what, type,
			    ll(start), ll(len), fl->l_type, ll(fl->l_start), ll(fl->l_len));
	if (type == F_UNLCK || fl->l_pid == pid)
		return LAB_PASS;
	if (fl->l_pid > 0)
		return fail(r, "%s: expected the holder's pid %d, got %d", what, pid, fl->l_pid);
	snprintf(note, n, "; pid not returned (%d)", fl->l_pid);
	return LAB_PASS;
}

static int chk_lock_getlk(struct ctx *c, struct res *r)
{
	char note[64] = "";
	struct flock fl;
	struct peer p;
	int fd, code;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	if ((code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 10, 10, NULL), 0, r,
				"parent F_WRLCK [10,20)")))
		return code;
	if ((code = lock_expect(peer_req(&p, P_GETLK, 0, F_WRLCK, 0, 100, &fl), 0, r,
				"peer F_GETLK")) ||
	    (code = getlk_is(&fl, F_WRLCK, 10, 10, getpid(), r, "F_GETLK for a write on [0,100)",
			     note, sizeof(note))))
		return code;
	if ((code = lock_expect(peer_req(&p, P_GETLK, 0, F_WRLCK, 20, 10, &fl), 0, r,
				"peer F_GETLK")) ||
	    (code = getlk_is(&fl, F_UNLCK, 0, 0, 0, r, "F_GETLK on [20,30) next to the lock", NULL, 0)))
		return code;
	if ((code = lock_expect(lk(fd, F_SETLK, F_RDLCK, 10, 10, NULL), 0, r,
				"parent downgrade to read")))
		return code;
	if ((code = lock_expect(peer_req(&p, P_GETLK, 0, F_RDLCK, 0, 100, &fl), 0, r,
				"peer F_GETLK")) ||
	    (code = getlk_is(&fl, F_UNLCK, 0, 0, 0, r, "F_GETLK for a read beside a read", NULL, 0)))
		return code;
	if ((code = lock_expect(peer_req(&p, P_GETLK, 0, F_WRLCK, 0, 100, &fl), 0, r,
				"peer F_GETLK")) ||
	    (code = getlk_is(&fl, F_RDLCK, 10, 10, getpid(), r, "F_GETLK for a write over a read lock",
			     note, sizeof(note))))
		return code;
	return pass(r, "F_GETLK names the holder's write, then read lock on [10,20) with its pid%s; "
		    "no conflict next to it or for a read beside a read", note);
}

static int chk_lock_close(struct ctx *c, struct res *r)
{
	struct peer p;
	int fd, other, code;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	if ((code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 0, NULL), 0, r, "parent write lock")) ||
	    (code = lock_expect(peer_lock(&p, F_WRLCK, 0, 0), EAGAIN, r,
				"peer while the parent holds it")))
		return code;
	other = open(at(c->dir, "lockfile"), O_RDONLY);
	if (other < 0)
		return fail_errno(r, "second open");
	if (close(other))
		return fail_errno(r, "close of the second fd");
	if ((code = lock_expect(peer_lock(&p, F_WRLCK, 0, 0), 0, r,
				"peer after the parent closed ANOTHER fd of the file")))
		return code;
	return pass(r, "closing any fd of the file released the process's lock (POSIX): the peer got it");
}

static int chk_lock_death(struct ctx *c, struct res *r)
{
	struct peer p;
	uint64_t t0;
	int fd, code, e;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	if ((code = lock_expect(peer_lock(&p, F_WRLCK, 0, 0), 0, r, "peer write lock")) ||
	    (code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 0, NULL), EAGAIN, r,
				"parent while the peer holds it")))
		return code;
	kill(p.pid, SIGKILL);
	if (reap(p.pid, OP_MS) != 128 + SIGKILL)
		return fail(r, "the peer did not die of SIGKILL within 60 s");
	t0 = lab_now_ms();
	while ((e = lk(fd, F_SETLK, F_WRLCK, 0, 0, NULL)) && refused(e) && lab_now_ms() - t0 < 30000)
		lab_sleep_us(100000);
	if (e)
		return fail(r, "30 s after the holder was killed: expected the lock, got %s", lkname(e));
	return pass(r, "holder killed with SIGKILL; its lock was free %.1f s later", secs_since(t0));
}

static int chk_lock_wait(struct ctx *c, struct res *r)
{
	struct prep rep;
	struct peer p;
	uint64_t t0;
	int fd, code;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	if ((code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 0, NULL), 0, r, "parent write lock")))
		return code;
	if (peer_send(&p, P_SETLKW, 60, F_WRLCK, 0, 0))
		return fail(r, "peer: F_SETLKW request not sent");
	if (!peer_recv(&p, &rep, 1000))
		return fail(r, "peer F_SETLKW while the parent holds the lock: expected it to wait, got %s",
			    lkname(rep.err));
	t0 = lab_now_ms();
	if ((code = lock_expect(lk(fd, F_SETLK, F_UNLCK, 0, 0, NULL), 0, r, "parent unlock")))
		return code;
	if (peer_recv(&p, &rep, OP_MS))
		return fail(r, "peer F_SETLKW: no answer within 60 s of the unlock");
	if (rep.err)
		return fail(r, "peer F_SETLKW after the unlock: expected granted, got %s%s", lkname(rep.err),
			    rep.err == EINTR ? " (its 60 s bound ran out)" : "");
	return pass(r, "a blocked F_SETLKW waited while the lock was held and was granted %.1f s after the unlock",
		    secs_since(t0));
}

static int chk_flock(struct ctx *c, struct res *r)
{
	const char *emul;
	struct peer p;
	int fd, fd2, code, e;

	if ((code = lock_begin(c, r, &fd, &p)))
		return code;
	e = peer_req(&p, P_FLOCK, LOCK_EX | LOCK_NB, 0, 0, 0, NULL);
	if (e == ENOLCK || e == EOPNOTSUPP || e == EINVAL)
		return skip(r, "flock LOCK_EX: %s (no lock manager behind flock on this mount, vers=%s)",
			    lab_en(e), c->vers);
	if ((code = lock_expect(e, 0, r, "peer LOCK_EX")) ||
	    (code = lock_expect(flock(fd, LOCK_EX | LOCK_NB) ? errno : 0, EAGAIN, r,
				"parent LOCK_EX|LOCK_NB")) ||
	    (code = lock_expect(flock(fd, LOCK_SH | LOCK_NB) ? errno : 0, EAGAIN, r,
				"parent LOCK_SH|LOCK_NB")) ||
	    (code = lock_expect(peer_req(&p, P_FLOCK, LOCK_UN, 0, 0, 0, NULL), 0, r,
				"peer LOCK_UN")) ||
	    (code = lock_expect(flock(fd, LOCK_SH | LOCK_NB) ? errno : 0, 0, r,
				"parent LOCK_SH")) ||
	    (code = lock_expect(peer_req(&p, P_FLOCK, LOCK_SH | LOCK_NB, 0, 0, 0, NULL), 0, r,
				"peer LOCK_SH beside it")) ||
	    (code = lock_expect(flock(fd, LOCK_UN) ? errno : 0, 0, r, "parent LOCK_UN")) ||
	    (code = lock_expect(peer_req(&p, P_FLOCK, LOCK_UN, 0, 0, 0, NULL), 0, r,
				"peer LOCK_UN")))
		return code;
	/* flock belongs to the open file description: two opens conflict */
	fd2 = open(at(c->dir, "lockfile"), O_RDWR);
	if (fd2 < 0)
		return fail_errno(r, "second open");
	if ((code = lock_expect(flock(fd, LOCK_EX | LOCK_NB) ? errno : 0, 0, r,
				"LOCK_EX on the first open")) ||
	    (code = lock_expect(flock(fd2, LOCK_EX | LOCK_NB) ? errno : 0, EAGAIN, r,
				"LOCK_EX on a second open by the same process")) ||
	    (code = lock_expect(flock(fd, LOCK_UN) ? errno : 0, 0, r, "LOCK_UN")))
		return code;
	/* Informative: Linux's NFS client sends flock as a whole-file lock, so
	 * it conflicts with fcntl locks there and not on a local filesystem. */
	if ((code = lock_expect(lk(fd, F_SETLK, F_WRLCK, 0, 0, NULL), 0, r,
				"parent fcntl write lock")))
		return code;
	e = peer_req(&p, P_FLOCK, LOCK_EX | LOCK_NB, 0, 0, 0, NULL);
	emul = e == 0 ? "independent of fcntl locks (local semantics)" :
	       refused(e) || e == EWOULDBLOCK ? "emulated with whole-file POSIX locks (conflicts with fcntl)" :
	       "unclear";
	if (e < 0)
		return fail(r, "peer flock beside an fcntl lock: no answer within 60 s");
	return pass(r, "exclusive excludes, shared coexist, unlock frees, two opens of one process conflict; "
		    "flock here is %s", emul);
}

static const struct check lock_checks[] = {
	{ "conflict", chk_lock_conflict, NEED_WIRE_LOCKS, NULL },
	{ "disjoint", chk_lock_disjoint, NEED_WIRE_LOCKS, NULL },
	{ "upgrade-downgrade", chk_lock_upgrade, NEED_WIRE_LOCKS, NULL },
	{ "getlk", chk_lock_getlk, NEED_WIRE_LOCKS, NULL },
	{ "close-releases", chk_lock_close, NEED_WIRE_LOCKS, NULL },
	{ "death-releases", chk_lock_death, NEED_WIRE_LOCKS, NULL },
	{ "setlkw-wakeup", chk_lock_wait, NEED_WIRE_LOCKS, NULL },
	{ "flock", chk_flock, NEED_WIRE_FLOCK, NULL },
	{ NULL, NULL, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* coherence: a second mount of the same export                        */

#define TWO_MOUNTS "two mounts of one client (nosharecache)"

static char mnt2[PATH_MAX];		/* for the signal-time unmount */
static volatile sig_atomic_t mnt2_up;
static int mnt2_made;

/* Also the time bound's hook: async-signal-safe. */
static void mnt2_detach(void)
{
	if (mnt2_up) {
		umount2(mnt2, MNT_DETACH);
		mnt2_up = 0;
	}
}

static void mnt2_remove(void)
{
	for (int i = 0; mnt2_up && i < 10; i++) {
		if (!umount2(mnt2, 0) || errno != EBUSY)
			mnt2_up = 0;
		else
			lab_sleep_us(500000);	/* a killed child still closing */
	}
	mnt2_detach();
	if (mnt2_made && !rmdir(mnt2))
		mnt2_made = 0;
}

static void on_term(int sig)
{
	static const char msg[] = "# result: error: terminated by a signal\n";
	ssize_t ignored;

	mnt2_detach();
	ignored = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)ignored;
	_exit(sig == SIGTERM ? LAB_ERROR : 128 + sig);
}

/* Run a command with its output in @out; its exit code, -1 if it did not
 * end within @ms (it is killed). */
static int run_cmd(char *const argv[], char *out, size_t outsz, unsigned int ms)
{
	uint64_t end = lab_now_ms() + ms;
	size_t used = 0;
	int pfd[2], status;
	pid_t pid;

	out[0] = '\0';
	if (pipe2(pfd, O_CLOEXEC))
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(pfd[1], STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	for (;;) {
		struct pollfd p = { .fd = pfd[0], .events = POLLIN };
		int left = (int)(end - lab_now_ms());
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) <= 0) {
			kill(pid, SIGKILL);
			break;
		}
		n = read(pfd[0], out + used, outsz - 1 - used);
		if (n <= 0)
			break;
		used += n;
		out[used] = '\0';
		if (used == outsz - 1)
			break;
	}
	close(pfd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	for (char *s = out; *s; s++)
		if (*s == '\n')
			*s = ' ';
	return WEXITSTATUS(status);
}

/* The second mount: $LAB_NFS_DIR.2, vers=$LAB_NFS_VERS,nosharecache.
 * Anything that keeps it from being there is the group's skip reason. */
static void coherence_setup(struct ctx *c)
{
	const char *server = getenv("LAB_NFS_SERVER"), *export = getenv("LAB_NFS_EXPORT");
	char opts[64], spec[512], out[512], mp[PATH_MAX], mopts[2048], marker[PATH_MAX];
	char *argv[] = { "mount", "-t", "nfs", "-o", opts, spec, mnt2, NULL };
	struct stat a, b;
	int rc;

	if (!export || !*export)
		export = "/srv/nfs";
	if (!server || !*server || !getenv("LAB_NFS_VERS")) {
		snprintf(c->no_mount2, sizeof(c->no_mount2), "LAB_NFS_SERVER or LAB_NFS_VERS not set: no second mount");
		return;
	}
	if (geteuid()) {
		sfmt(c->no_mount2, sizeof(c->no_mount2), "the second mount needs root");
		return;
	}
	sfmt(mnt2, sizeof(mnt2), "%s.2", c->base);
	if (mkdir(mnt2, 0755) == 0)
		mnt2_made = 1;
	else if (errno != EEXIST) {
		sfmt(c->no_mount2, sizeof(c->no_mount2), "mkdir %s: %s", mnt2, lab_en(errno));
		return;
	}
	if (stat(mnt2, &a) || stat(at(mnt2, ".."), &b) || a.st_dev != b.st_dev) {
		sfmt(c->no_mount2, sizeof(c->no_mount2), "%s is already a mount point (left over?)", mnt2);
		return;
	}
	snprintf(opts, sizeof(opts), "vers=%s,nosharecache", c->vers);
	snprintf(spec, sizeof(spec), "%s:%s", server, export);
	atexit(mnt2_remove);
	rc = run_cmd(argv, out, sizeof(out), OP_MS);
	if (rc) {
		sfmt(c->no_mount2, sizeof(c->no_mount2), "mount -t nfs -o %s %s %s: %s%d: %s", opts, spec,
			 mnt2, rc < 0 ? "no exit within 60 s " : "exit ", rc, out);
		return;
	}
	mnt2_up = 1;
	lab_diag("coherence: %s mounted on %s with -o %s (%s)", spec, mnt2, opts, TWO_MOUNTS);
	/* our work directory, as the second mount sees it */
	if (mount_of(c->base, mp, sizeof(mp), mopts, sizeof(mopts)) || strncmp(c->work, mp, strlen(mp))) {
		sfmt(c->no_mount2, sizeof(c->no_mount2), "%s: its mount not found in mountinfo", c->base);
		return;
	}
	sfmt(c->work2, sizeof(c->work2), "%s%s%s", mnt2, strcmp(mp, "/") ? "" : "/",
		 c->work + strlen(mp));
	sfmt(marker, sizeof(marker), "%s/.marker", c->work);
	if (put_seed(marker, 1, 1) || stat(at(c->work2, ".marker"), &a) || unlink(marker)) {
		sfmt(c->no_mount2, sizeof(c->no_mount2),
			 "%s does not show %s through the second mount (is LAB_NFS_DIR the root of %s?)",
			 c->work2, c->work, spec);
		return;
	}
	if (stat(c->base, &a) || stat(mnt2, &b) || a.st_dev == b.st_dev)
		sfmt(c->no_mount2, sizeof(c->no_mount2),
			 "the second mount shares the first one's superblock (device %u:%u): nosharecache ignored",
			 major(a.st_dev), minor(a.st_dev));
}

static void coherence_teardown(struct ctx *c)
{
	(void)c;
	mnt2_remove();
}

/*
 * One client's two mounts share one NFSv4 client ID, so a read delegation
 * that mount B holds is never recalled when mount A writes (the server sees
 * the same client).  A second client would get that recall and give the
 * delegation back; B does it by hand here (a SETATTR of the mode returns a
 * read delegation first), so that its next open must revalidate.  Harmless
 * without delegations (v3, servers that grant none).
 */
static int give_back_delegation(int fd)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	return fchmod(fd, st.st_mode & 07777);
}

/* Open @path on the reader's mount: its size and content must be @L. */
static int reader_sees(const char *path, const struct layout *L, struct res *r, const char *what,
		       int give_back)
{
	int fd = open(path, O_RDONLY), code;

	if (fd < 0)
		return fail_errno(r, "%s: open on the second mount", what);
	code = size_is(fd, L->size, r, what);
	if (!code)
		code = verify(fd, L, 65536, r, what);	/* cached pages must not be stale */
	if (!code && give_back && give_back_delegation(fd))
		code = fail_errno(r, "%s: fchmod to the same mode", what);
	close(fd);
	return code;
}

static int writer_puts(const char *path, off_t size, uint64_t seed, int trunc)
{
	int fd = open(path, O_WRONLY | O_CREAT | (trunc ? O_TRUNC : 0), 0644);
	int e;

	if (fd < 0)
		return -1;
	if (write_seed(fd, 0, size, seed, 65536)) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return close(fd);	/* the close flushes: close-to-open's first half */
}

static int chk_cto_content(struct ctx *c, struct res *r)
{
	struct layout v1 = { .size = 1000, .seed = 51 }, v2 = { .size = 5000, .seed = 52 },
		      v3 = { .size = 5000, .seed = 53 };
	const char *a = at(c->dir, "f"), *b = at(c->dir2, "f");
	int code;

	if (writer_puts(a, v1.size, v1.seed, 1))
		return fail_errno(r, "write v1 on the first mount");
	if ((code = reader_sees(b, &v1, r, "v1 (1000 bytes) on the second mount", 1)))
		return code;
	if (writer_puts(a, v2.size, v2.seed, 1))
		return fail_errno(r, "write v2 on the first mount");
	if ((code = reader_sees(b, &v2, r, "v2 (5000 bytes) after the writer's close", 1)))
		return code;
	lab_sleep_us(1100000);	/* a same-size rewrite must differ in mtime even on 1 s servers */
	if (writer_puts(a, v3.size, v3.seed, 0))
		return fail_errno(r, "rewrite in place on the first mount");
	if ((code = reader_sees(b, &v3, r, "a same-size rewrite after the writer's close", 1)))
		return code;
	return pass(r, TWO_MOUNTS ": after each close on one mount, an open on the other saw the new size "
		    "(1000 -> 5000) and content, also for a same-size rewrite");
}

static int stat_on_open(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY), e = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, st))
		e = -1;
	else if (give_back_delegation(fd) || fstat(fd, st))
		e = -1;
	close(fd);
	return e;
}

static int ts_after(struct timespec a, struct timespec b)
{
	return a.tv_sec > b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec > b.tv_nsec);
}

static int chk_cto_times(struct ctx *c, struct res *r)
{
	const char *a = at(c->dir, "f"), *b = at(c->dir2, "f");
	struct stat s0, s1, s2;
	int fd;

	if (writer_puts(a, 100, 54, 1) || chmod(a, 0644))
		return fail_errno(r, "create on the first mount");
	if (stat_on_open(b, &s0))
		return fail_errno(r, "open on the second mount");
	lab_sleep_us(1100000);
	fd = open(a, O_WRONLY | O_APPEND);
	if (fd < 0 || write(fd, "0123456789", 10) != 10 || close(fd))
		return fail_errno(r, "append on the first mount");
	if (stat_on_open(b, &s1))
		return fail_errno(r, "reopen on the second mount");
	if (s1.st_size != 110 || !ts_after(s1.st_mtim, s0.st_mtim) || !ts_after(s1.st_ctim, s0.st_ctim))
		return fail(r, TWO_MOUNTS ": after an append and close, expected size 110 and newer mtime and ctime; "
			    "got size %lld, mtime %ld.%09ld -> %ld.%09ld, ctime %ld.%09ld -> %ld.%09ld",
			    ll(s1.st_size), s0.st_mtim.tv_sec, s0.st_mtim.tv_nsec, s1.st_mtim.tv_sec,
			    s1.st_mtim.tv_nsec, s0.st_ctim.tv_sec, s0.st_ctim.tv_nsec, s1.st_ctim.tv_sec,
			    s1.st_ctim.tv_nsec);
	lab_sleep_us(1100000);
	if (chmod(a, 0604))
		return fail_errno(r, "chmod on the first mount");
	if (stat_on_open(b, &s2))
		return fail_errno(r, "reopen on the second mount");
	if ((s2.st_mode & 07777) != 0604 || !ts_after(s2.st_ctim, s1.st_ctim) ||
	    s2.st_mtim.tv_sec != s1.st_mtim.tv_sec || s2.st_mtim.tv_nsec != s1.st_mtim.tv_nsec)
		return fail(r, TWO_MOUNTS ": after a chmod, expected mode 0604, a newer ctime and the same mtime; "
			    "got mode %04o, ctime %ld.%09ld -> %ld.%09ld, mtime %ld.%09ld -> %ld.%09ld",
			    s2.st_mode & 07777, s1.st_ctim.tv_sec, s1.st_ctim.tv_nsec, s2.st_ctim.tv_sec,
			    s2.st_ctim.tv_nsec, s1.st_mtim.tv_sec, s1.st_mtim.tv_nsec, s2.st_mtim.tv_sec,
			    s2.st_mtim.tv_nsec);
	return pass(r, TWO_MOUNTS ": an open on the other mount saw the append's new size, mtime and ctime, "
		    "then the chmod's mode and ctime with mtime unchanged");
}

static int chk_lookup_create(struct ctx *c, struct res *r)
{
	struct layout L = { .size = 333, .seed = 55 };
	int code;

	if (writer_puts(at(c->dir2, "made-on-b"), L.size, L.seed, 1))
		return fail_errno(r, "create on the second mount");
	if (gone(at(c->dir, "made-on-b")))
		return fail(r, TWO_MOUNTS ": a file created on the second mount is not found by lookup on the first");
	if ((code = verify_path(at(c->dir, "made-on-b"), &L, 4096, r, "its content on the first mount")))
		return code;
	if (writer_puts(at(c->dir, "made-on-a"), L.size, L.seed, 1))
		return fail_errno(r, "create on the first mount");
	if (gone(at(c->dir2, "made-on-a")))
		return fail(r, TWO_MOUNTS ": a file created on the first mount is not found by lookup on the second");
	return pass(r, TWO_MOUNTS ": files created on either mount are found by lookup on the other, content intact");
}

/* Poll @path on the second mount until it is (@want_there) or is not;
 * seconds it took, or -1 after @bound_s. */
static double wait_lookup(const char *path, int want_there, unsigned int bound_s, int *estale)
{
	uint64_t t0 = lab_now_ms();
	struct stat st;

	for (;;) {
		int there = !stat(path, &st), e = errno;

		if (there == want_there && (there || e == ENOENT))
			return secs_since(t0);
		if (!there && e == ESTALE)
			(*estale)++;	/* the old handle, before the new lookup */
		if (lab_now_ms() - t0 > bound_s * 1000ULL)
			return -1;
		lab_sleep_us(200000);
	}
}

static int chk_negative_lookup(struct ctx *c, struct res *r)
{
	int estale = 0;
	double s;

	if (!gone(at(c->dir2, "late")))
		return fail(r, "a name never created is found on the second mount");
	/* the second mount now has a negative entry for it */
	if (writer_puts(at(c->dir, "late"), 10, 56, 1))
		return fail_errno(r, "create on the first mount");
	s = wait_lookup(at(c->dir2, "late"), 1, 120, &estale);
	if (s < 0)
		return fail(r, TWO_MOUNTS ": a name looked up (ENOENT) on the second mount, then created on the first, "
			    "is still ENOENT there after 120 s");
	return pass(r, TWO_MOUNTS ": a cached negative lookup gave way to the new file after %.1f s "
		    "(the directory's attribute cache)", s);
}

static int chk_remove_enoent(struct ctx *c, struct res *r)
{
	const char *b = at(c->dir2, "doomed");
	struct stat st;
	int estale = 0, fd;
	double s;

	if (writer_puts(at(c->dir, "doomed"), 10, 57, 1))
		return fail_errno(r, "create on the first mount");
	if (stat(b, &st))
		return fail_errno(r, "stat on the second mount");
	if (unlink(at(c->dir, "doomed")))
		return fail_errno(r, "unlink on the first mount");
	s = wait_lookup(b, 0, 120, &estale);
	if (s < 0)
		return fail(r, TWO_MOUNTS ": a file removed on the first mount still stats on the second after 120 s");
	fd = stat(b, &st);
	if (!fd || errno != ENOENT)
		return fail(r, TWO_MOUNTS ": a removed file: expected ENOENT on the second mount, got %s",
			    !fd ? "success" : lab_en(errno));
	fd = open(b, O_RDONLY);
	if (fd >= 0 || errno != ENOENT)
		return fail(r, TWO_MOUNTS ": open of the removed file: expected ENOENT, got %s",
			    fd >= 0 ? "success" : lab_en(errno));
	return pass(r, TWO_MOUNTS ": a file removed on the first mount was ENOENT on the second after %.1f s "
		    "(its attribute cache)%s", s, estale ? "; ESTALE seen on the way" : "");
}

static const struct check coherence_checks[] = {
	{ "cto-content", chk_cto_content, NEED_MOUNT2, NULL },
	{ "cto-times", chk_cto_times, NEED_MOUNT2, NULL },
	{ "lookup-create", chk_lookup_create, NEED_MOUNT2, NULL },
	{ "negative-lookup", chk_negative_lookup, NEED_MOUNT2, NULL },
	{ "remove-enoent", chk_remove_enoent, NEED_MOUNT2, NULL },
	{ NULL, NULL, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* features: what v4.1 and v4.2 add                                    */

/* The protocol this mount speaks has @op: v4.2 only. */
static int has_v42(const struct ctx *c)
{
	return c->nfs && !strcmp(c->vers, "4.2");
}

/* copy_file_range(2) of [@off, @off + @len) from @src to the same range of
 * @dst, which must then read as @L: bytes right, and on v4.2 the COPY the
 * client sent (the server copied) or why it did not. */
static int copy_and_check(struct ctx *c, struct res *r, const char *what, const char *src,
			  const char *dst, off_t off, off_t len, const struct layout *L)
{
	long ops0 = 0, errs0 = 0, ops1 = 0, errs1 = 0;
	off_t done = 0, so = off, doff = off;
	int in, out, code, listed;

	listed = c->nfs ? lab_nfs_op_stats(c->base, "COPY", &ops0, &errs0) : -1;
	in = open(src, O_RDONLY);
	out = open(dst, O_WRONLY);
	if (in < 0 || out < 0)
		return fail_errno(r, "%s: open", what);
	while (done < len) {
		ssize_t n = copy_file_range(in, &so, out, &doff, len - done, 0);

		if (n < 0 && (errno == EOPNOTSUPP || errno == ENOSYS || errno == EXDEV))
			return skip(r, "%s: copy_file_range: %s (%s)", what, lab_en(errno), v42_why(c));
		if (n < 0)
			return fail_errno(r, "%s: copy_file_range at %lld", what, ll(so));
		if (n == 0)
			return fail(r, "%s: copy_file_range returned 0 after %lld of %lld bytes",
				    what, ll(done), ll(len));
		done += n;
	}
	if (fsync(out) || close(out) || close(in))
		return fail_errno(r, "%s: fsync/close", what);
	if ((code = verify_path(dst, L, 65536, r, what)))
		return code;
	if (!c->nfs)
		return pass(r, "%s: %lld bytes right (a local copy)", what, ll(len));
	if (!has_v42(c))
		return skip(r, "%s: bytes right, copied by the client: COPY is an NFSv4.2 "
			    "operation", what);
	if (listed != 0 || lab_nfs_op_stats(c->base, "COPY", &ops1, &errs1) != 0)
		return skip(r, "%s: bytes right; /proc/self/mountstats has no COPY counter "
			    "to say who copied", what);
	if (ops1 - ops0 - (errs1 - errs0) <= 0)
		return skip(r, "%s: bytes right, copied by the client: %s", what,
			    ops1 > ops0 ? "the server refused COPY" : "no COPY sent (Linux stops "
			    "asking a server that refused it once)");
	return pass(r, "%s: %lld bytes right; the server copied them (COPY sent %ld times, "
		    "%ld errors)", what, ll(len), ops1 - ops0, errs1 - errs0);
}

static int chk_copy_whole(struct ctx *c, struct res *r)
{
	struct layout L = { .size = 8 * MIB + 333, .seed = 41 };
	const char *src = at(c->dir, "src"), *dst = at(c->dir, "dst");

	if (put_seed(src, L.size, L.seed) || put_bytes(dst, "", 0))
		return fail_errno(r, "create");
	return copy_and_check(c, r, "an 8 MiB file copied whole", src, dst, 0, L.size, &L);
}

/* An unaligned range into the middle of an existing file: the bytes around
 * it stay (the pattern is offset-addressed: the copied range reads as the
 * source's seed at the same offsets). */
static int chk_copy_range(struct ctx *c, struct res *r)
{
	const off_t off = 12345, len = MIB + 3;
	struct layout L = { .size = 2 * MIB, .seed = 43, .n = 1, .ext = { { off, len, 44 } } };
	const char *src = at(c->dir, "src"), *dst = at(c->dir, "dst");

	if (put_seed(src, L.size, 44) || put_seed(dst, L.size, L.seed))
		return fail_errno(r, "create");
	return copy_and_check(c, r, "1 MiB + 3 bytes at offset 12345 into a 2 MiB file", src, dst,
			      off, len, &L);
}

/* RFC 8276 user extended attributes: set, get, list, replace, remove. */
static int chk_xattr(struct ctx *c, struct res *r)
{
	const char *f = at(c->dir, "x");
	char val[300], got[400], list[4096];
	ssize_t n;

	for (size_t i = 0; i < sizeof(val); i++)
		val[i] = (char)(i * 7 + 1);
	if (put_bytes(f, "x", 1))
		return fail_errno(r, "create");
	if (setxattr(f, "user.lab.one", val, sizeof(val), XATTR_CREATE)) {
		if (errno == EOPNOTSUPP || errno == ENOTSUP || errno == ENOSYS)
			return skip(r, "setxattr: %s (%s)", lab_en(errno), !c->nfs ?
				    "this local filesystem has no user xattrs" : has_v42(c) ?
				    "the server does not support extended attributes (RFC 8276)" :
				    "extended attributes came with NFSv4.2 (RFC 8276); this mount is not 4.2");
		return fail_errno(r, "setxattr user.lab.one (%zu bytes)", sizeof(val));
	}
	if (setxattr(f, "user.lab.two", "2", 1, XATTR_CREATE))
		return fail_errno(r, "setxattr user.lab.two");
	if (!setxattr(f, "user.lab.one", "x", 1, XATTR_CREATE) || errno != EEXIST)
		return fail(r, "setxattr(XATTR_CREATE) of an existing name: expected EEXIST, got %s",
			    lab_en(errno));
	n = getxattr(f, "user.lab.one", got, sizeof(got));
	if (n != (ssize_t)sizeof(val) || memcmp(got, val, sizeof(val)))
		return fail(r, "getxattr user.lab.one: expected the %zu bytes set, got %zd (%s)",
			    sizeof(val), n, n < 0 ? lab_en(errno) : "other bytes");
	n = listxattr(f, list, sizeof(list));
	if (n < 0)
		return fail_errno(r, "listxattr");
	{
		int one = 0, two = 0;

		for (ssize_t i = 0; i < n; i += (ssize_t)strlen(list + i) + 1) {
			one |= !strcmp(list + i, "user.lab.one");
			two |= !strcmp(list + i, "user.lab.two");
		}
		if (!one || !two)
			return fail(r, "listxattr: expected user.lab.one and user.lab.two, "
				    "one %s, two %s", one ? "listed" : "missing", two ? "listed" : "missing");
	}
	if (setxattr(f, "user.lab.two", "22", 2, XATTR_REPLACE))
		return fail_errno(r, "setxattr(XATTR_REPLACE) user.lab.two");
	n = getxattr(f, "user.lab.two", got, sizeof(got));
	if (n != 2 || memcmp(got, "22", 2))
		return fail(r, "after replace: expected user.lab.two = \"22\", got %zd bytes", n);
	if (removexattr(f, "user.lab.one"))
		return fail_errno(r, "removexattr user.lab.one");
	n = getxattr(f, "user.lab.one", got, sizeof(got));
	if (n >= 0 || errno != ENODATA)
		return fail(r, "getxattr of a removed name: expected ENODATA, got %s",
			    n >= 0 ? "a value" : lab_en(errno));
	return pass(r, "user xattrs: a %zu-byte value set, read back, listed; create refused on an "
		    "existing name; replace and remove work", sizeof(val));
}

/* A sparse file read back whole: zeros in the holes, and on v4.2 whether
 * the client asked with READ_PLUS (which can answer a hole without its
 * zeros) or with READ. */
static int chk_read_plus(struct ctx *c, struct res *r)
{
	struct layout L = {
		.size = 6 * MIB, .seed = 0, .n = 2,
		.ext = { { 64 * 1024, 64 * 1024, 45 }, { 4 * MIB, 100000, 46 } },
	};
	const char *f = at(c->dir, "sparse");
	long ops0 = 0, e0 = 0, ops1 = 0, e1 = 0, rd0 = 0, rd1 = 0, x;
	int fd, code, listed;

	fd = open(f, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0)
		return fail_errno(r, "create");
	for (int i = 0; i < L.n; i++)
		if (write_seed(fd, L.ext[i].off, L.ext[i].len, L.ext[i].seed, 65536))
			return fail_errno(r, "write at %lld", ll(L.ext[i].off));
	if (ftruncate(fd, L.size) || close(fd))
		return fail_errno(r, "extend to 6 MiB");
	listed = c->nfs ? lab_nfs_op_stats(c->base, "READ_PLUS", &ops0, &e0) : -1;
	if (c->nfs)
		lab_nfs_op_stats(c->base, "READ", &rd0, &x);
	if ((code = verify_path(f, &L, MIB, r, "two extents in 6 MiB of holes")))
		return code;
	if (!c->nfs)
		return pass(r, "a sparse 6 MiB file read back (a local read)");
	if (!has_v42(c))
		return skip(r, "bytes right, read with READ: READ_PLUS is an NFSv4.2 operation");
	lab_nfs_op_stats(c->base, "READ", &rd1, &x);
	if (listed != 0 || lab_nfs_op_stats(c->base, "READ_PLUS", &ops1, &e1) != 0 || ops1 == ops0)
		return skip(r, "bytes right, read with READ: this client sent no READ_PLUS (Linux "
			    "6.1 does only with CONFIG_NFS_V4_2_READ_PLUS)%s", rd1 > rd0 ? "" :
			    "; no READ counted either");
	if (e1 > e0)
		return skip(r, "bytes right; the server refused READ_PLUS (the client fell back "
			    "to READ)");
	return pass(r, "a sparse 6 MiB file read back right with READ_PLUS (%ld sent)", ops1 - ops0);
}

/* Many requests in flight at once over one v4.1 session: 16 processes
 * write, fsync and read back their own file; every byte must be right.
 * Each reply goes to the slot that asked (a slot mix-up is wrong data or
 * an error). */
#define PAR_PROCS 16
#define PAR_BYTES (2 * MIB)

static int par_child(void *arg)
{
	const char *path = arg;
	struct layout L = { .size = PAR_BYTES };
	struct res r;
	int fd;

	L.seed = 100 + (uint64_t)path[strlen(path) - 1];	/* own pattern per file */
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
	if (fd < 0 || write_seed(fd, 0, L.size, L.seed, 32768) || fsync(fd))
		return 2;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	return verify(fd, &L, 32768, &r, "own file") == LAB_PASS ? 0 : 1;
}

static int chk_parallel(struct ctx *c, struct res *r)
{
	static char paths[PAR_PROCS][PATH_MAX];
	pid_t pid[PAR_PROCS];
	int bad = 0, err = 0, lost = 0;
	uint64_t t0 = lab_now_ms();

	if (c->nfs && (!strcmp(c->vers, "3") || !strcmp(c->vers, "4.0")))
		return skip(r, "sessions and their slots came with NFSv4.1");
	for (int i = 0; i < PAR_PROCS; i++) {
		sfmt(paths[i], sizeof(paths[i]), "%s/p%c", c->dir, 'a' + i);
		pid[i] = spawn(par_child, paths[i]);
		if (pid[i] < 0)
			return fail_errno(r, "fork");
	}
	for (int i = 0; i < PAR_PROCS; i++) {
		int e = reap(pid[i], CHILD_BOUND_S * 1000);

		bad += e == 1;
		err += e == 2;
		lost += e != 0 && e != 1 && e != 2;
	}
	if (bad || err || lost)
		return fail(r, "%d processes writing, fsyncing and reading back 2 MiB each at once: "
			    "%d read other bytes, %d got an I/O error, %d did not finish",
			    PAR_PROCS, bad, err, lost);
	return pass(r, "%d processes wrote, fsynced and read back 2 MiB each at once (%d MiB "
		    "in flight over %s) in %.1f s, every byte right", PAR_PROCS, PAR_PROCS * 2,
		    c->nfs ? "one session" : "a local filesystem", secs_since(t0));
}

static const struct check features_checks[] = {
	{ "copy-whole", chk_copy_whole, 0, NULL },
	{ "copy-range", chk_copy_range, 0, NULL },
	{ "xattr", chk_xattr, 0, NULL },
	{ "read-plus", chk_read_plus, 0, NULL },
	{ "session-parallel", chk_parallel, 0, NULL },
	{ NULL, NULL, 0, NULL },
};

/* ------------------------------------------------------------------ */
/* the runner                                                          */

static const struct group groups[] = {
	{ "basic", "create, lookup, attributes, read/write, readdir, rename, link, symlink, remove, statfs",
	  600, basic_checks, NULL, NULL },
	{ "general", "a build-like workload and a large sequential file", 900, general_checks, NULL, NULL },
	{ "special", "silly rename, exclusive create race, holes, truncate, O_APPEND, O_DIRECT",
	  600, special_checks, NULL, NULL },
	{ "lock", "POSIX byte-range locks and flock between processes", 600, lock_checks, lock_setup, NULL },
	{ "coherence", "close-to-open between " TWO_MOUNTS, 900, coherence_checks, coherence_setup,
	  coherence_teardown },
	{ "features", "what v4.1 and v4.2 add: server-side copy, extended attributes, READ_PLUS, "
	  "a session's slots under parallel I/O", 600, features_checks, NULL, NULL },
	{ NULL, NULL, 0, NULL, NULL, NULL },
};

/* Why @k cannot run now, or NULL. */
static const char *unmet(const struct ctx *c, const struct check *k, const int *codes,
			 const struct check *all, char *buf, size_t n)
{
	if ((k->needs & NEED_ROOT) && geteuid())
		return "needs root";
	if ((k->needs & NEED_WIRE_LOCKS) && c->local_fcntl[0])
		return c->local_fcntl;
	if ((k->needs & NEED_WIRE_FLOCK) && c->local_flock[0])
		return c->local_flock;
	if ((k->needs & NEED_MOUNT2) && c->no_mount2[0])
		return c->no_mount2;
	for (int i = 0; k->after && all[i].name; i++) {
		if (!strcmp(all[i].name, k->after) && codes[i] != LAB_PASS) {
			snprintf(buf, n, "builds on %s, which did not pass", k->after);
			return buf;
		}
	}
	return NULL;
}

/* The directory a check works in: its own, or that of the check it builds on. */
static const char *check_dir(const struct check *k, const struct check *all)
{
	const char *name = k->name;

	for (const char *up = k->after; up;) {
		name = up;
		up = NULL;
		for (int i = 0; all[i].name; i++)
			if (!strcmp(all[i].name, name))
				up = all[i].after;
	}
	return name;
}

static int run_check(struct ctx *c, const struct group *g, int i, const int *codes)
{
	const struct check *k = &g->checks[i];
	const char *why, *sub = check_dir(k, g->checks);
	struct res r = { "" };
	uint64_t t0 = lab_now_ms();
	char buf[128];
	int code;

	why = unmet(c, k, codes, g->checks, buf, sizeof(buf));
	if (why) {
		code = skip(&r, "%s", why);
	} else {
		sfmt(c->dir, sizeof(c->dir), "%s/%s", c->work, sub);
		sfmt(c->dir2, sizeof(c->dir2), "%s/%s", c->work2, sub);
		if (mkdir(c->dir, 0755) && errno != EEXIST)
			code = fail_errno(&r, "mkdir of the check's directory");
		else
			code = k->fn(c, &r);
		close_range(3, ~0U, 0);	/* what an early return left open */
		reap_all();
	}
	lab_diag("check %s/%s: %s: %s (%.2f s)", g->name, k->name, lab_result_word(code), r.why,
		 secs_since(t0));
	return code;
}

static const struct group *find_group(const char *name)
{
	for (int i = 0; name && groups[i].name; i++)
		if (!strcmp(groups[i].name, name))
			return &groups[i];
	return NULL;
}

/* LAB_NFS_DIR resolved, our work directory made under it. */
static void setup_dirs(struct ctx *c)
{
	const char *dir = getenv("LAB_NFS_DIR");
	char host[64] = "host";
	struct statfs fs;

	if (!dir || !*dir)
		lab_end(LAB_ERROR, "LAB_NFS_DIR not set (the runner mounts the export there)");
	if (!realpath(dir, c->base))
		lab_fatal("LAB_NFS_DIR %s", dir);
	if (statfs(c->base, &fs))
		lab_fatal("statfs %s", c->base);
	c->nfs = fs.f_type == NFS_SUPER_MAGIC;
	gethostname(host, sizeof(host) - 1);
	sfmt(c->work, sizeof(c->work), "%s/t100.%s.%s.%d", c->base, c->group, host, (int)getpid());
	if (mkdir(c->work, 0755))
		lab_fatal("mkdir %s", c->work);
	lab_diag("interop: dir %s on %s (f_type 0x%lx), work directory %s", c->base,
		 c->nfs ? "NFS" : "a local filesystem", (unsigned long)fs.f_type, c->work);
}

int main(void)
{
	static struct ctx ctx;
	struct ctx *c = &ctx;
	const struct group *g;
	int codes[64], n[5] = { 0 }, code;
	struct lab_info info = {
		.name = "t100-nfs-interop-suite", .seed = "000",
	};
	char title[256];

	c->group = getenv("LAB_INTEROP_GROUP");
	c->vers = getenv("LAB_NFS_VERS");
	c->server = getenv("LAB_INTEROP_SERVER");
	c->vers = c->vers && *c->vers ? c->vers : "local";
	c->server = c->server && *c->server ? c->server : "unknown";
	c->mib = lab_env_ulong("LAB_INTEROP_MIB", 64);
	g = find_group(c->group);
	snprintf(title, sizeof(title), "NFS interop suite, group %s (vers=%s, server %s)%s%s",
		 c->group ? c->group : "(unset)", c->vers, c->server, g ? ": " : "", g ? g->title : "");
	info.title = title;
	info.bound_s = lab_env_ulong("LAB_BOUND", g ? g->bound_s : 60);
	lab_begin(&info);
	lab_bound_hook = mnt2_detach;
	signal(SIGTERM, on_term);
	signal(SIGINT, on_term);
	signal(SIGPIPE, SIG_IGN);	/* a dead peer's pipe is an error return */
	umask(022);
	if (!g)
		lab_end(LAB_ERROR, "LAB_INTEROP_GROUP must be basic, general, special, lock, coherence or "
			"features, not '%s'",
			c->group ? c->group : "");
	if (!c->mib || c->mib > 4096)
		lab_end(LAB_ERROR, "LAB_INTEROP_MIB must be 1..4096, not %lu", c->mib);
	buf_a = aligned_alloc(4096, BUF_SIZE);
	buf_b = aligned_alloc(4096, BUF_SIZE);
	if (!buf_a || !buf_b)
		lab_fatal("allocating I/O buffers");
	setup_dirs(c);
	if (g->setup)
		g->setup(c);
	for (int i = 0; g->checks[i].name; i++) {
		codes[i] = run_check(c, g, i, codes);
		n[codes[i]]++;
	}
	if (g->teardown)
		g->teardown(c);
	if (rm_rf(c->work))
		lab_diag("could not remove %s: %s", c->work, lab_en(errno));
	lab_diag("interop: group=%s vers=%s server=%s pass=%d fail=%d skip=%d", g->name, c->vers,
		 c->server, n[LAB_PASS], n[LAB_FAIL], n[LAB_SKIP]);
	code = n[LAB_FAIL] ? LAB_FAIL : n[LAB_PASS] ? LAB_PASS : LAB_SKIP;
	lab_end(code, "%d passed, %d failed, %d skipped", n[LAB_PASS], n[LAB_FAIL], n[LAB_SKIP]);
}
