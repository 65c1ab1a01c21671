/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lab_test.h - shared helpers for lab's guest-side tests.
 *
 * Each test is one static program that runs inside a guest as root.  It
 * prints a header and diagnostics as "# ..." lines on stdout (the runner
 * wraps them in KTAP), marks its start and end in the kernel log, and says
 * its verdict with the exit code alone:
 *
 *   0 pass          the kernel behaved as the fix requires
 *   1 fail          the program itself saw the bug
 *   2 inconclusive  the race window was never hit, or a precondition was spent
 *   3 error         setup broke: never to be read as a pass
 *   4 skip          a device or kernel option the test needs is missing
 *
 * What the program cannot see (an oops in a worker, a WARNING) the runner's
 * console scanner judges.  Every wait here is bounded: lab_begin() arms an
 * alarm, and helpers that poll take a timeout.
 *
 * Include this file first: it defines _GNU_SOURCE for the whole program.
 */
#ifndef LAB_TEST_H
#define LAB_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum lab_result {
	LAB_PASS = 0,
	LAB_FAIL = 1,
	LAB_INCONCLUSIVE = 2,
	LAB_ERROR = 3,
	LAB_SKIP = 4,
};

struct lab_info {
	const char *name;	/* program name, e.g. "t002-futex-unlock-pi-hijack" */
	const char *seed;	/* "002", or "000" for tests that cover no seed */
	const char *title;
	/* roles, order and whether it consumes a boot: tests/suite.ini only */
	unsigned int bound_s;	/* the program ends itself after this many seconds */
};

static const char *lab_name = "lab-test";

/* Called from the SIGALRM handler before exiting: async-signal-safe only. */
static void (*lab_bound_hook)(void);
static int lab_bound_code = LAB_ERROR;
static char lab_bound_msg[160];

static inline const char *lab_result_word(int code)
{
	static const char *const words[] = {
		"pass", "fail", "inconclusive", "error", "skip",
	};

	return code >= 0 && code <= LAB_SKIP ? words[code] : "unknown";
}

/* "# ..." diagnostic line; flushed so the runner sees it even if we die. */
static inline __attribute__((format(printf, 1, 2)))
void lab_diag(const char *fmt, ...)
{
	va_list ap;

	fputs("# ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/*
 * One line in the kernel log, so a splat on the console is pinned to the
 * test that caused it.  Best effort: without /dev/kmsg the test still runs.
 * LAB_KMSG=0 in the environment turns the markers off.
 */
static inline __attribute__((format(printf, 1, 2)))
void lab_kmsg(const char *fmt, ...)
{
	const char *off = getenv("LAB_KMSG");
	char buf[512];
	va_list ap;
	int fd, n;

	if (off && !strcmp(off, "0"))
		return;		/* runs on a developer's host: leave its log alone */
	n = snprintf(buf, sizeof(buf), "lab: %s: ", lab_name);
	va_start(ap, fmt);
	n += vsnprintf(buf + n, sizeof(buf) - n, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, buf, n) < 0) {
		/* the log is evidence, not a precondition */
	}
	close(fd);
}

/* Print the verdict, mark the end in the kernel log, exit with the code. */
static inline __attribute__((format(printf, 2, 3), noreturn))
void lab_end(int code, const char *fmt, ...)
{
	char why[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	lab_diag("result: %s: %s", lab_result_word(code), why);
	lab_kmsg("end %s", lab_result_word(code));
	exit(code);
}

/* A setup step failed: exit 3 with errno's text, so it is never a pass. */
#define lab_fatal(fmt, ...) \
	lab_end(LAB_ERROR, fmt ": %s", ##__VA_ARGS__, strerror(errno))

#define lab_skip(fmt, ...) lab_end(LAB_SKIP, fmt, ##__VA_ARGS__)

static inline void lab_alarm_handler(int sig)
{
	ssize_t ignored;

	(void)sig;
	if (lab_bound_hook)
		lab_bound_hook();
	ignored = write(STDOUT_FILENO, lab_bound_msg, strlen(lab_bound_msg));
	(void)ignored;
	_exit(lab_bound_code);
}

/*
 * Hard time bound: after @seconds the program prints why and exits with
 * @code, whatever it was waiting for.  A thread stuck in the kernel cannot
 * hold the process past it (exit_group does not wait for D-state threads to
 * report); a process in D state is for the runner's own timeout.
 */
static inline void lab_bound(unsigned int seconds, int code)
{
	struct sigaction sa = { .sa_handler = lab_alarm_handler };

	lab_bound_code = code;
	snprintf(lab_bound_msg, sizeof(lab_bound_msg),
		 "# bound of %u s exceeded\n# result: %s: time bound exceeded\n",
		 seconds, lab_result_word(code));
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	alarm(seconds);
}

/* Header lines the runner parses, kernel log marker, time bound. */
static inline void lab_begin(const struct lab_info *info)
{
	lab_name = info->name;
	setvbuf(stdout, NULL, _IOLBF, 0);
	lab_diag("seed %s: %s", info->seed, info->title);
	lab_diag("bound: %u s", info->bound_s);
	lab_kmsg("begin (seed %s)", info->seed);
	lab_bound(info->bound_s, LAB_ERROR);
}

/* /proc/sys/kernel/tainted, or -1 if it cannot be read. */
static inline long lab_tainted(void)
{
	long value = -1;
	FILE *f = fopen("/proc/sys/kernel/tainted", "re");

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &value) != 1)
		value = -1;
	fclose(f);
	return value;
}

/* Taint bits worth naming: W (a WARNING fired) and D (an oops). */
#define LAB_TAINT_DIE	(1UL << 7)
#define LAB_TAINT_WARN	(1UL << 9)

/* Unsigned integer from the environment, @def if unset or malformed. */
static inline unsigned long lab_env_ulong(const char *name, unsigned long def)
{
	const char *s = getenv(name);
	char *end;
	unsigned long v;

	if (!s || !*s)
		return def;
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end ? def : v;
}

static inline uint64_t lab_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void lab_sleep_us(unsigned long us)
{
	struct timespec ts = {
		.tv_sec = us / 1000000,
		.tv_nsec = (us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* Read a small file into @buf (NUL-terminated); bytes read or -1. */
static inline ssize_t lab_read_file(const char *path, char *buf, size_t size)
{
	ssize_t n, total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	while ((size_t)total < size - 1) {
		n = read(fd, buf + total, size - 1 - total);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

/*
 * /dev/kmsg reader.  Each read() returns one record,
 * "prio,seq,usec,flags;text\n" plus " KEY=value" lines; the kernel escapes
 * unprintable bytes in the text as "\xNN".  Open with @at_end to see only
 * what the kernel logs from now on, else from the oldest record kept.
 */
static inline int lab_kmsg_open(int at_end)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd >= 0 && at_end)
		lseek(fd, 0, SEEK_END);
	return fd;
}

/* Next record's text into @text: 1 one read, 0 no more now, -1 error. */
static inline int lab_kmsg_next(int fd, char *text, size_t size)
{
	char rec[8192];
	char *semi, *nl;
	size_t len;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n > 0)
			break;
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten while we read: skip on */
		if (n < 0 && (errno == EINTR))
			continue;
		return n < 0 && errno != EAGAIN ? -1 : 0;
	}
	rec[n] = '\0';
	semi = strchr(rec, ';');
	semi = semi ? semi + 1 : rec;
	nl = strchr(semi, '\n');
	if (nl)
		*nl = '\0';
	len = strlen(semi);
	if (len >= size)
		len = size - 1;	/* long records are cut, not dropped */
	memcpy(text, semi, len);
	text[len] = '\0';
	return 1;
}

/*
 * Records from @fd on that contain any of @pats (NULL-terminated): each is
 * printed as "# kmsg: ..." (up to @show of them) and counted. With @found
 * (zeroed by the caller, added to on every call: a report's lines may
 * arrive over several reads), @found[i] also counts the records that
 * contain @pats[i]: which names a report carries tells the seed's bug from
 * another one in the same log.
 */
static inline int lab_kmsg_tally(int fd, const char *const *pats, int *found,
				 int show)
{
	char text[1024];
	int hits = 0;

	if (fd < 0)
		return 0;
	while (lab_kmsg_next(fd, text, sizeof(text)) == 1) {
		int any = 0;

		for (int i = 0; pats[i]; i++) {
			if (!strstr(text, pats[i]))
				continue;
			if (found)
				found[i]++;
			any = 1;
		}
		if (any && hits++ < show)
			lab_diag("kmsg: %.200s", text);
	}
	return hits;
}

static inline int lab_kmsg_grep(int fd, const char *const *pats, int show)
{
	return lab_kmsg_tally(fd, pats, NULL, show);
}

/* ---- threads and futexes ---- */

/*
 * debug_locks from /proc/lockdep_stats (lockdep_stats_show(), 6.1's
 * kernel/locking/lockdep_proc.c; root only): 1 or 0, -1 if lockdep is
 * absent.  0 means lockdep reported something this boot and went quiet.
 */
static inline int lab_debug_locks(void)
{
	char buf[16384];	/* debug_locks is near the end */
	char *p;

	if (lab_read_file("/proc/lockdep_stats", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, " debug_locks:");
	return p ? (int)strtol(p + strlen(" debug_locks:"), NULL, 10) : -1;
}

static inline pid_t lab_gettid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* Raw futex(2); returns 0 or -errno, so callers print what the kernel said. */
static inline int lab_futex(_Atomic uint32_t *uaddr, int op, uint32_t val,
			    const struct timespec *ts)
{
	long ret = syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);

	return ret < 0 ? -errno : (int)ret;
}

/* Absolute CLOCK_REALTIME deadline: FUTEX_LOCK_PI's timeout is absolute. */
static inline struct timespec lab_deadline_realtime(unsigned int ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (long)(ms % 1000) * 1000000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	return ts;
}

static inline const char *lab_errname(int neg_errno)
{
	return neg_errno ? strerrorname_np(-neg_errno) : "0";
}

/*
 * A thread's scheduler state, read through a /proc/thread-self/stat fd the
 * thread opened itself: that path stays right inside a new PID namespace,
 * where gettid() no longer names the thread in /proc.
 */
static inline int lab_thread_stat_open(void)
{
	return open("/proc/thread-self/stat", O_RDONLY | O_CLOEXEC);
}

static inline char lab_task_state(int stat_fd)
{
	char buf[512];
	char *paren;
	ssize_t n = pread(stat_fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return '?';
	buf[n] = '\0';
	paren = strrchr(buf, ')');	/* comm may hold spaces and parens */
	return paren && paren[1] == ' ' ? paren[2] : '?';
}

/*
 * Wait until the thread behind @stat_fd sleeps ('S'), i.e. it is blocked in
 * the syscall we are about to race with.  0 when it does, -1 on timeout.
 */
static inline int lab_wait_sleeping(int stat_fd, unsigned int timeout_ms)
{
	uint64_t end = lab_now_ms() + timeout_ms;

	while (lab_now_ms() < end) {
		if (lab_task_state(stat_fd) == 'S')
			return 0;
		lab_sleep_us(1000);
	}
	return -1;
}

/* Wait until *@v >= @want; 0 when it is, -1 on timeout. */
static inline int lab_wait_atleast(atomic_int *v, int want, unsigned int timeout_ms)
{
	uint64_t end = lab_now_ms() + timeout_ms;

	while (atomic_load(v) < want) {
		if (lab_now_ms() >= end)
			return -1;
		lab_sleep_us(500);
	}
	return 0;
}

#endif /* LAB_TEST_H */
