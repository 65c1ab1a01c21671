// SPDX-License-Identifier: GPL-2.0
/*
 * t008 - a truncate killed while it waits for an NFS COMMIT must not leave
 * the COMMIT holding a page the truncate freed.
 *
 * Seed 008, "NFS: Fix an Oops when truncating a file" (upstream
 * 9f557cd80731, 2.6.32.9 #35).  Truncation invalidates a page with
 * nfs_invalidate_folio() -> nfs_wb_folio_cancel(), which must wait for a
 * request locked by an in-flight COMMIT (fs/nfs/pagelist.c
 * nfs_wait_on_request()).  6.1 waits uninterruptibly; 2.6.32.8 waited
 * TASK_KILLABLE, so a SIGKILL let the page go while the COMMIT still held
 * its request:
 *   patched:  the killed truncator stays in D state until the COMMIT
 *             returns, then dies; nothing is logged.
 *   baseline: NULL dereference in nfs_commit_release_pages() (via
 *             nfs_clear_page_commit()) when the COMMIT completes.
 *
 * Getting a COMMIT in flight at the right moment is the whole test.
 * nfs_setattr() flushes and commits before its SETATTR RPC, so the request
 * must be created *after* that flush, through mmap (page_mkwrite takes no
 * i_rwsem).  And msync() alone never makes a COMMIT for a single dirty page:
 * WB_SYNC_ALL writeback asks for FLUSH_COND_STABLE, which sends the WRITE
 * FILE_SYNC when nothing else waits for a commit.  So:
 *   truncator  loops ftruncate(1 page) / ftruncate(2 pages);
 *   observer   lab_nfs_observer.ko (tests/kmod: it counts, never acts)
 *              says when the truncator's flush (nfs_sync_inode) returned;
 *   controller then wakes the writer;
 *   writer     (SCHED_FIFO for the cycle) stores into page 1,
 *              sync_file_range(WRITE) sends an UNSTABLE WRITE, and
 *              msync(MS_SYNC) waits for it and sends the COMMIT, which
 *              locks the request;
 *   truncator  reaches page 1 after its SETATTR and waits in
 *              nfs_wait_on_request() under nfs_wb_folio_cancel();
 *   observer   says so (its `waiting` parameter names the pid);
 *   controller SIGKILLs the truncator: a window hit, "signal timed by the
 *              observer" - an ordinary kill(2) a user could send, only its
 *              timing comes from the observer.
 * Knobs in both kernels widen the window (the runner sets them):
 * nfs.lab_setattr_delay_ms sleeps between the flush and the SETATTR, so the
 * writer's WRITE+COMMIT fit in; nfs.lab_commit_delay_ms holds the COMMIT's
 * requests, so the truncator meets it. Zero hits is inconclusive, never a
 * pass. The report gives truncations, window entries, killed waits and
 * interrupted waits per run, from the observer.
 *
 * Usage: t008-nfs-truncate-race [DIR]   (else $LAB_NFS_DIR; an NFS mount)
 * Env:   LAB_DURATION (s, default 120), LAB_MIN_HITS (stop after this many
 *        window hits, default 3; the oops on baseline ends it sooner).
 */
#include "lab_test.h"

#include <sched.h>
#include <setjmp.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#define NFS_SUPER_MAGIC		0x6969
#define POLL_US			200
#define FREE_CYCLE_MS		100	/* writer runs on its own if not woken */
#define DEATH_WAIT_MS		30000	/* a killed truncator must die by then */

/* Counters and hand-shakes shared by the three processes. */
struct shared {
	atomic_int stop;
	atomic_int shrinking;		/* truncator is in ftruncate(1 page) */
	atomic_int shrink_seq;		/* one per shrinking ftruncate */
	_Atomic uint32_t go;		/* futex: controller wakes the writer */
	atomic_int woken_cycles, free_cycles, sigbus, fifo_denied, writer_errno;
	atomic_long truncations;
	atomic_int trunc_errno;
};

static struct shared *sh;
static long page;
static volatile pid_t writer_pid, trunc_pid;	/* read by the alarm hook */
static sigjmp_buf writer_jmp;

static void kill_children(void)
{
	if (writer_pid > 0)
		kill(writer_pid, SIGKILL);
	if (trunc_pid > 0)
		kill(trunc_pid, SIGKILL);
}

/* A child stuck in D state must not hold the runner's stdout pipe open. */
static void quiet_child(void)
{
	int null = open("/dev/null", O_RDWR);

	if (null >= 0) {
		dup2(null, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		close(null);
	}
	alarm(0);
}

static void on_sigbus(int sig)
{
	(void)sig;
	siglongjmp(writer_jmp, 1);
}

static void set_fifo(int on)
{
	struct sched_param sp = { .sched_priority = on ? 1 : 0 };

	if (sched_setscheduler(0, on ? SCHED_FIFO : SCHED_OTHER, &sp) && on)
		atomic_fetch_add(&sh->fifo_denied, 1);
}

/* One writer cycle: dirty page 1, UNSTABLE WRITE, wait, COMMIT. */
static void writer_cycle(int fd, volatile char *map, unsigned int n)
{
	set_fifo(1);
	if (sigsetjmp(writer_jmp, 1) == 0) {
		map[page + (n % page)] = (char)n;	/* page_mkwrite */
		if (sync_file_range(fd, page, page, SYNC_FILE_RANGE_WRITE) ||
		    msync((void *)map, 2 * page, MS_SYNC))
			atomic_store(&sh->writer_errno, errno);
	} else {
		atomic_fetch_add(&sh->sigbus, 1);	/* page 1 was cut off */
	}
	set_fifo(0);
}

static void writer(const char *path)
{
	const struct timespec tick = { .tv_nsec = FREE_CYCLE_MS * 1000000L };
	struct sigaction sa = { .sa_handler = on_sigbus };
	uint32_t seen = 0;
	volatile char *map;
	unsigned int n = 0;
	int fd;

	quiet_child();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGBUS, &sa, NULL);
	fd = open(path, O_RDWR);
	map = fd < 0 ? MAP_FAILED : mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		atomic_store(&sh->writer_errno, errno);
		_exit(LAB_ERROR);
	}
	while (!atomic_load(&sh->stop)) {
		int woken = lab_futex(&sh->go, FUTEX_WAIT, seen, &tick) == 0 ||
			    atomic_load(&sh->go) != seen;

		seen = atomic_load(&sh->go);
		if (atomic_load(&sh->stop))
			break;	/* no more NFS I/O: the mount may be wedged */
		writer_cycle(fd, map, n++);
		atomic_fetch_add(woken ? &sh->woken_cycles : &sh->free_cycles, 1);
	}
	_exit(0);
}

static void truncator(const char *path)
{
	int fd;

	quiet_child();
	setpriority(PRIO_PROCESS, 0, 19);	/* run after writer and rpciod */
	atomic_store(&sh->shrinking, 0);	/* a killed one may have left it */
	fd = open(path, O_RDWR);
	if (fd < 0 || ftruncate(fd, 2 * page))
		goto fail;
	while (!atomic_load(&sh->stop)) {
		atomic_fetch_add(&sh->shrink_seq, 1);
		atomic_store(&sh->shrinking, 1);
		atomic_fetch_add(&sh->truncations, 1); /* shrinking truncations begun */
		if (ftruncate(fd, page))
			goto fail;
		atomic_store(&sh->shrinking, 0);
		if (ftruncate(fd, 2 * page))
			goto fail;
	}
	_exit(0);
fail:
	atomic_store(&sh->trunc_errno, errno);
	_exit(LAB_ERROR);
}

static pid_t spawn(void (*fn)(const char *), const char *path)
{
	pid_t pid = fork();

	if (pid < 0)
		lab_fatal("fork");
	if (pid == 0)
		fn(path);
	return pid;
}

#define OBSERVER "/sys/module/lab_nfs_observer/parameters/"

/* One of the observer's counters, or -1 when it cannot be read. */
static long observed(const char *name)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), OBSERVER "%s", name);
	if (lab_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return strtol(buf, NULL, 10);
}

static int observe(pid_t pid)
{
	char buf[32];
	int fd = open(OBSERVER "target_pid", O_WRONLY);
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)pid), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, buf, n) == n;
	close(fd);
	return ok ? 0 : -1;
}

/* insmod/rmmod the observer from the tests disk, bounded, quietly. */
static int run_cmd(char *const argv[])
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		quiet_child();
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void observer_load(void)
{
	char ko[PATH_MAX];
	char *rm[] = { "/sbin/rmmod", "lab_nfs_observer", NULL };
	char *ins[] = { "/sbin/insmod", ko, NULL };

	snprintf(ko, sizeof(ko), "%s/kmod/lab_nfs_observer.ko",
		 getenv("LAB_DIR") ? getenv("LAB_DIR") : "/lab");
	run_cmd(rm); /* a killed run may have left it */
	if (run_cmd(ins) != 0 || observed("waits") < 0)
		lab_end(LAB_ERROR, "cannot load the observer %s", ko);
}

static void observer_unload(void)
{
	char *rm[] = { "/sbin/rmmod", "lab_nfs_observer", NULL };

	run_cmd(rm);
}

/* The truncator's stack when it was killed in the window (ORC: real
 * frames), for the output. */
static void show_stack(pid_t pid)
{
	char path[64], stack[4096], *save = NULL, *line;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (lab_read_file(path, stack, sizeof(stack)) < 0)
		return;
	for (line = strtok_r(stack, "\n", &save); line && n < 12;
	     line = strtok_r(NULL, "\n", &save), n++)
		lab_diag("  %s", line);
}

/* An oops is 008's when the NFS commit/truncate path is in it: the
 * COMMIT completion dereferencing the request the killed truncate freed. */
enum { P_BUG, P_OOPS, P_GPF, P_COMMIT, P_CLEAR, P_GROUP, P_REMOVE, NPATS };
static const char *const oops_pats[] = {
	[P_BUG] = "BUG:", [P_OOPS] = "Oops", [P_GPF] = "general protection",
	[P_COMMIT] = "nfs_commit_release_pages", [P_CLEAR] = "nfs_clear_page_commit",
	[P_GROUP] = "nfs_page_group", [P_REMOVE] = "nfs_inode_remove_request",
	NULL,
};

struct tally {
	int hits, triggers, restarts, oopses;
	int seen[NPATS];	/* kmsg records per pattern, over the whole run */
	uint64_t max_death_ms;
};

/* New kernel records into the tally; the number of report lines so far. */
static int scan_kmsg(int kfd, struct tally *t, int show)
{
	t->oopses += lab_kmsg_tally(kfd, oops_pats, t->seen, show);
	return t->oopses;
}

static int in_commit_path(const struct tally *t)
{
	return t->seen[P_COMMIT] + t->seen[P_CLEAR] + t->seen[P_GROUP] +
	       t->seen[P_REMOVE] > 0;
}

/* Reap the killed truncator. 0 when it died within DEATH_WAIT_MS, 1 when
 * the kernel oopsed meanwhile (baseline: the truncator may never die, and
 * the counts must get out first), -1 when it stays alive. */
static int reap(pid_t pid, int kfd, struct tally *t, uint64_t *died_ms)
{
	uint64_t start = lab_now_ms();
	int status;

	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (scan_kmsg(kfd, t, 4) > 0)
			return 1;
		if (lab_now_ms() - start > DEATH_WAIT_MS)
			return -1;
		lab_sleep_us(1000);
	}
	*died_ms = lab_now_ms() - start;
	return 0;
}

/* 0: a new truncator runs; 1: the kernel oopsed; -1: setup broke. */
static int kill_in_window(const char *path, int kfd, struct tally *t)
{
	uint64_t died = 0;
	int r;

	if (t->hits++ == 0) {
		lab_diag("window hit: truncator stack when the observer saw it wait:");
		show_stack(trunc_pid);
	}
	kill(trunc_pid, SIGKILL);
	lab_kmsg("window hit %d: truncator %d killed in nfs_wait_on_request under nfs_wb_folio_cancel",
		 t->hits, (int)trunc_pid);
	r = reap(trunc_pid, kfd, t, &died);
	if (r != 0) {
		if (r < 0)
			lab_diag("killed truncator still alive after %d s", DEATH_WAIT_MS / 1000);
		trunc_pid = -1;
		return r;
	}
	if (died > t->max_death_ms)
		t->max_death_ms = died;
	trunc_pid = spawn(truncator, path);
	observe(trunc_pid);
	t->restarts++;
	return 0;
}

/* The controller: wake the writer when the truncator's flush is over,
 * kill the truncator when the observer sees it wait in the window. It
 * stops as soon as the kernel oopses (baseline): NFS is then wedged, and
 * the counts must be out before anything waits on it. */
static int control(const char *path, unsigned long duration_s,
		   unsigned long min_hits, int kfd, struct tally *t)
{
	uint64_t end = lab_now_ms() + duration_s * 1000, next_look = 0;
	long last_synced = observed("synced");
	int status;

	while (lab_now_ms() < end && (unsigned long)t->hits < min_hits) {
		long synced = observed("synced");

		if (t->hits && lab_now_ms() >= next_look) {
			next_look = lab_now_ms() + 200;
			if (scan_kmsg(kfd, t, 4) > 0)
				return LAB_PASS;
		}
		if (trunc_pid < 0)
			return LAB_ERROR;

		if (waitpid(trunc_pid, &status, WNOHANG) == trunc_pid)
			return LAB_ERROR;	/* died on its own: setup broke */
		if (observed("waiting") == trunc_pid) {
			int r = kill_in_window(path, kfd, t);

			if (r)
				return r > 0 ? LAB_PASS : LAB_ERROR;
		} else if (synced != last_synced && atomic_load(&sh->shrinking)) {
			atomic_fetch_add(&sh->go, 1);
			lab_futex(&sh->go, FUTEX_WAKE, 1, NULL);
			t->triggers++;
		}
		last_synced = synced;
		lab_sleep_us(POLL_US);
	}
	return LAB_PASS;
}

/* Stop the children; ones stuck in the kernel are left behind, named. */
static void stop_children(void)
{
	uint64_t end = lab_now_ms() + 10000;
	volatile pid_t *pids[] = { &writer_pid, &trunc_pid };

	atomic_store(&sh->stop, 1);
	atomic_fetch_add(&sh->go, 1);
	lab_futex(&sh->go, FUTEX_WAKE, 1, NULL);
	for (int i = 0; i < 2; i++) {
		while (*pids[i] > 0 && waitpid(*pids[i], NULL, WNOHANG) == 0) {
			if (lab_now_ms() >= end) {
				kill(*pids[i], SIGKILL);
				lab_diag("child %d did not stop: left behind", *pids[i]);
				break;
			}
			lab_sleep_us(5000);
		}
		*pids[i] = -1;
	}
}

/* unlink() on a possibly wedged mount: in a child, for at most 10 s. */
static void remove_file(const char *path)
{
	uint64_t end = lab_now_ms() + 10000;
	pid_t pid = fork();

	if (pid == 0) {
		quiet_child();
		_exit(unlink(path) ? 1 : 0);
	}
	while (pid > 0 && waitpid(pid, NULL, WNOHANG) == 0) {
		if (lab_now_ms() >= end) {
			lab_diag("unlink %s hangs: left behind", path);
			return;
		}
		lab_sleep_us(10000);
	}
}

static const char *nfs_dir(int argc, char **argv)
{
	struct statfs sfs;
	const char *dir = argc > 1 ? argv[1] : getenv("LAB_NFS_DIR");

	if (!dir || !*dir)
		lab_end(LAB_ERROR, "no NFS directory: pass one or set LAB_NFS_DIR");
	if (statfs(dir, &sfs))
		lab_fatal("statfs %s", dir);
	if (sfs.f_type != NFS_SUPER_MAGIC)
		lab_end(LAB_ERROR, "%s is not on NFS (f_type %#lx)", dir,
			(unsigned long)sfs.f_type);
	return dir;
}

static void make_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);

	if (fd < 0)
		lab_fatal("create %s", path);
	if (ftruncate(fd, 2 * page) || fsync(fd))
		lab_fatal("size %s to 2 pages", path);
	close(fd);
}

/* Per run: truncations, window entries, killed and interrupted waits (the
 * observer's), window hits (kills in the window), oopses seen. */
static void report(const struct tally *t)
{
	lab_diag("truncations=%ld triggers=%d woken_cycles=%d free_cycles=%d sigbus=%d",
		 atomic_load(&sh->truncations), t->triggers,
		 atomic_load(&sh->woken_cycles), atomic_load(&sh->free_cycles),
		 atomic_load(&sh->sigbus));
	lab_diag("observer: synced=%ld window_entries=%ld killed_waits=%ld interrupted_waits=%ld",
		 observed("synced"), observed("waits"), observed("killed_waits"),
		 observed("interrupted"));
	lab_diag("restarts=%d slowest killed-truncator exit=%llu ms fifo_denied=%d oopses=%d",
		 t->restarts, (unsigned long long)t->max_death_ms,
		 atomic_load(&sh->fifo_denied), t->oopses);
	lab_diag("window_hits=%d", t->hits);
	lab_diag("counts: truncations=%ld window_entries=%ld killed_waits=%ld interrupted_waits=%ld oopses=%d",
		 atomic_load(&sh->truncations), observed("waits"), observed("killed_waits"),
		 observed("interrupted"), t->oopses);
	lab_kmsg("counts: truncations=%ld window_entries=%ld killed_waits=%ld interrupted_waits=%ld window_hits=%d",
		 atomic_load(&sh->truncations), observed("waits"), observed("killed_waits"),
		 observed("interrupted"), t->hits);
}

int main(int argc, char **argv)
{
	unsigned long duration = lab_env_ulong("LAB_DURATION", 120);
	unsigned long min_hits = lab_env_ulong("LAB_MIN_HITS", 3);
	struct lab_info info = {
		.name = "t008-nfs-truncate-race",
		.seed = "008",
		.title = "NFS: SIGKILL during truncate's wait for a COMMIT must not oops",
		.bound_s = duration + 60,
	};
	struct tally t = { 0 };
	char path[PATH_MAX];
	const char *dir, *vers = getenv("LAB_NFS_VERS");
	int kfd, code, splat;

	lab_begin(&info);
	lab_bound_hook = kill_children;
	page = sysconf(_SC_PAGESIZE);
	dir = nfs_dir(argc, argv);
	lab_diag("dir %s, NFS version %s, at most %lu s, stop after %lu hits", dir,
		 vers ? vers : "(unset)", duration, min_hits);
	observer_load();

	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		lab_fatal("mmap shared state");
	snprintf(path, sizeof(path), "%s/lab-t008.%d", dir, getpid());
	make_file(path);

	kfd = lab_kmsg_open(1);
	writer_pid = spawn(writer, path);
	trunc_pid = spawn(truncator, path);
	observe(trunc_pid);
	code = control(path, duration, min_hits, kfd, &t);
	/* the counts first: on baseline NFS is wedged and the cleanup below
	 * may be cut short by the runner */
	report(&t);
	stop_children();
	remove_file(path);
	observer_unload();
	splat = scan_kmsg(kfd, &t, 8);
	if (splat && !in_commit_path(&t)) {
		lab_sleep_us(1000000);	/* the call trace may still be coming */
		scan_kmsg(kfd, &t, 8);
	}
	if (splat && in_commit_path(&t))
		lab_end(LAB_FAIL, "the kernel oopsed in the NFS commit path after %d window hit(s)",
			t.hits);
	if (splat)
		lab_end(LAB_FAIL, "the kernel oopsed outside the NFS commit/truncate path "
			"after %d window hit(s)", t.hits);
	if (code != LAB_PASS)
		lab_end(code, "the truncator died on its own or could not be reaped");
	if (!t.hits)
		lab_end(LAB_INCONCLUSIVE, "the COMMIT window was never hit (signal timed by the observer)");
	lab_end(LAB_PASS, "%d truncator(s) killed in the COMMIT wait (signal timed by the observer), no oops",
		t.hits);
}
