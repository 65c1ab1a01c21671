// SPDX-License-Identifier: GPL-2.0
/*
 * t001 - a contended shared PI futex must not leave a reference on the
 * object behind its key: the file's inode, or the mm of a private mapping.
 *
 * Seed 001, "futex_lock_pi() key refcnt fix" (upstream 5ecb01cfdf96,
 * 2.6.32.9 #2).  In 2010 futex_lock_pi()'s normal exit path took a key
 * reference it never dropped; a PI futex in a temporary file then left an
 * undead inode and the unmount oopsed.  Since v5.7-v5.9 futex keys hold no
 * references at all, so on 6.1 the bug is only emulated: after
 * futex_unqueue_pi() in kernel/futex/pi.c, an extra ihold() for an inode
 * key, an extra mmgrab() for an FUT_OFF_MMSHARED key.  The test counts what
 * the leak keeps alive, for both key kinds, against the leaking exits taken:
 *
 * inode keys: a fresh tmpfs (private mount namespace, so nothing else holds
 *   it).  For each of FILES O_TMPFILE files mapped MAP_SHARED, thread A owns
 *   the futex, the main thread's FUTEX_TRYLOCK_PI (shared key: no
 *   FUTEX_PRIVATE_FLAG) is queued on A's pi_state and fails with
 *   EWOULDBLOCK (TRYLOCKS times), then one blocking FUTEX_LOCK_PI waits for
 *   A.  Unmapped and closed, an unreferenced O_TMPFILE inode is evicted at
 *   once, and tmpfs gives its inode back to statfs()'s f_ffree: inodes
 *   kept = f_ffree before - f_ffree after, exactly.  Then unmount:
 *   baseline also prints "VFS: Busy inodes after unmount of tmpfs".
 * mm keys: MM_KIDS processes, each in a user namespace U_i of its own
 *   (nested in one U0 of the test's, which admits MM_KIDS of them), exec
 *   this program, so that their mm's user_ns is U_i, put the parent's TID
 *   (a live owner) in a MAP_PRIVATE anonymous page and call
 *   FUTEX_TRYLOCK_PI without FUTEX_PRIVATE_FLAG (key FUT_OFF_MMSHARED):
 *   EWOULDBLOCK, one leaking exit, exit.  __mmdrop() puts the mm's user_ns,
 *   so a U_i outlives its process only while its mm is held; mm_structs
 *   kept = MM_KIDS - the namespaces U0 still admits, exactly.
 *
 *   patched:  0 inodes and 0 mm_structs kept, clean umount.
 *   baseline: FILES inodes and MM_KIDS mm_structs kept, busy inodes.
 * (ext4 without orphan_file: a BUG in ext4_put_super, the 2010 report;
 * not done here, it wedges the fs.)
 */
#include "lab_test.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/wait.h>

#define WAIT_MS		5000
#define LOCK_MS		10000
#define TRYLOCKS	4
#define FILES		4
#define MM_KIDS		16
#define MM_SETTLE_MS	3000

static _Atomic uint32_t *word;	/* the futex word of the current round */

static struct {
	atomic_int owns;
	atomic_int release;
	pid_t tid;
	int unlock_ret;
	int stat_fd;		/* the blocking locker's, for A to watch */
} a;

/* A: own the futex in user space; unlock through the kernel when told. */
static void *owner(void *arg)
{
	uint32_t expected = 0;

	(void)arg;
	a.tid = lab_gettid();
	if (!atomic_compare_exchange_strong(word, &expected, (uint32_t)a.tid)) {
		atomic_store(&a.owns, -1);
		return NULL;
	}
	atomic_store(&a.owns, 1);
	if (lab_wait_atleast(&a.release, 1, LOCK_MS + WAIT_MS))
		return NULL;
	/* The waiter must be asleep in FUTEX_LOCK_PI before we let go. */
	lab_wait_sleeping(a.stat_fd, WAIT_MS);
	a.unlock_ret = lab_futex(word, FUTEX_UNLOCK_PI, 0, NULL);
	return NULL;
}

/* Mount a private tmpfs on a fresh directory; returns the directory. */
static char *mount_scratch(void)
{
	static char dir[] = "/tmp/lab-t001.XXXXXX";

	if (unshare(CLONE_NEWNS)) {
		if (errno == EPERM)
			lab_skip("needs root (unshare CLONE_NEWNS: EPERM)");
		lab_fatal("unshare(CLONE_NEWNS)");
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		lab_fatal("making / private");
	if (!mkdtemp(dir))
		lab_fatal("mkdtemp");
	if (mount("lab-t001", dir, "tmpfs", 0, "size=1m,nr_inodes=64,mode=0700"))
		lab_fatal("mount tmpfs on %s", dir);
	return dir;
}

static long free_inodes(const char *dir)
{
	struct statfs st;

	if (statfs(dir, &st))
		lab_fatal("statfs %s", dir);
	return (long)st.f_ffree;
}

/* The futex word lives at the start of an unnamed file on that tmpfs. */
static int map_futex_file(const char *dir)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0)
		lab_fatal("O_TMPFILE on tmpfs");
	if (ftruncate(fd, page))
		lab_fatal("ftruncate");
	word = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (word == MAP_FAILED)
		lab_fatal("mmap MAP_SHARED");
	return fd;
}

/* Contend A's futex through both exits that pass the leaking path. */
static int take_leaking_path(void)
{
	struct timespec deadline;
	int ret, taken = 0;

	for (int i = 0; i < TRYLOCKS; i++) {
		ret = lab_futex(word, FUTEX_TRYLOCK_PI, 0, NULL);
		if (ret != -EWOULDBLOCK)
			lab_end(LAB_ERROR, "FUTEX_TRYLOCK_PI on an owned futex: %s, expected EWOULDBLOCK",
				lab_errname(ret));
		taken++;
	}
	a.stat_fd = lab_thread_stat_open();
	atomic_store(&a.release, 1);
	deadline = lab_deadline_realtime(LOCK_MS);
	ret = lab_futex(word, FUTEX_LOCK_PI, 0, &deadline);
	if (ret)
		lab_end(LAB_ERROR, "blocking FUTEX_LOCK_PI: %s", lab_errname(ret));
	taken++;
	ret = lab_futex(word, FUTEX_UNLOCK_PI, 0, NULL);
	if (ret)
		lab_end(LAB_ERROR, "FUTEX_UNLOCK_PI after the hand-over: %s",
			lab_errname(ret));
	close(a.stat_fd);
	return taken;
}

/* One file: its own owner thread, the leaking exits, unmap and close. */
static int contend_file(const char *dir)
{
	long page = sysconf(_SC_PAGESIZE);
	struct timespec deadline;
	int fd = map_futex_file(dir), taken;
	pthread_t t;

	memset(&a, 0, sizeof(a));
	if (pthread_create(&t, NULL, owner, NULL))
		lab_end(LAB_ERROR, "pthread_create");
	if (lab_wait_atleast(&a.owns, 1, WAIT_MS))
		lab_end(LAB_ERROR, "thread A could not take the futex");
	taken = take_leaking_path();
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (LOCK_MS + WAIT_MS) / 1000;
	if (pthread_timedjoin_np(t, NULL, &deadline))
		lab_end(LAB_ERROR, "thread A did not finish");
	if (a.unlock_ret)
		lab_end(LAB_ERROR, "A's FUTEX_UNLOCK_PI: %s", lab_errname(a.unlock_ret));
	munmap((void *)word, page);
	close(fd);
	return taken;
}

/* Write one line to a /proc file; the error names the file. */
static int put_proc(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, text, strlen(text)) == (ssize_t)strlen(text);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Exec'd in a fresh user namespace U_i: this mm's user_ns is U_i, and
 * __mmdrop() is what puts it.  One leaking exit on an mm key, then exit.
 */
static int mm_key_child(const char *owner_pid)
{
	_Atomic uint32_t *w = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE),
				   PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (w == MAP_FAILED)
		return 10;
	atomic_store(w, (uint32_t)atoi(owner_pid));
	/* no FUTEX_PRIVATE_FLAG on a private anonymous page: FUT_OFF_MMSHARED */
	return lab_futex(w, FUTEX_TRYLOCK_PI, 0, NULL) == -EWOULDBLOCK ? 0 : 11;
}

/* Fork, unshare a user namespace, exec ourselves as an mm-key child. */
static int spawn_mm_key_child(void)
{
	char owner_pid[16];
	int status;
	pid_t pid;

	snprintf(owner_pid, sizeof(owner_pid), "%d", (int)getpid());
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER))
			_exit(12);
		execl("/proc/self/exe", "t001-mm-key-child", "--mm-key-child", owner_pid,
		      (char *)NULL);
		_exit(13);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 100;
}

/*
 * How many more user namespaces U0 admits now: holders each create one
 * and keep it until we close `release`; counted up to MM_KIDS + 1.
 */
static int free_namespace_slots(void)
{
	int ready[2], release[2], slots = 0, n = 0, status;
	pid_t kids[MM_KIDS + 1];
	char c = 'n';

	if (pipe2(ready, O_CLOEXEC) || pipe2(release, O_CLOEXEC))
		return -1;
	while (n < MM_KIDS + 1) {
		pid_t pid = fork();

		if (pid < 0)
			break;
		if (pid == 0) {
			c = unshare(CLONE_NEWUSER) ? 'n' : 'y';
			if (write(ready[1], &c, 1) != 1 || c == 'n')
				_exit(1);
			close(release[1]);
			(void)read(release[0], &c, 1);	/* until we close it */
			_exit(0);
		}
		kids[n++] = pid;
		if (read(ready[0], &c, 1) != 1 || c != 'y')
			break;
		slots++;
	}
	close(release[1]);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], &status, 0);
	close(ready[0]);
	close(ready[1]);
	close(release[0]);
	return slots;
}

/*
 * Process H: in a user namespace U0 of our own that admits MM_KIDS nested
 * ones, run MM_KIDS mm-key children, each in its own U_i.  A U_i outlives
 * its child only while something holds its mm: the leaked mmgrab().  Freed
 * namespaces come back asynchronously (RCU, a workqueue), so the count is
 * polled for a while and the lowest is kept.  Exit status: the mm_structs
 * kept, or 200 + the step that failed.
 */
static int count_kept_mms(void)
{
	int exits = 0, kept = MM_KIDS + 1, slots;
	uint64_t until;
	char max[16];

	if (unshare(CLONE_NEWUSER))
		return 201;
	if (put_proc("/proc/self/setgroups", "deny") ||
	    put_proc("/proc/self/uid_map", "0 0 1") ||
	    put_proc("/proc/self/gid_map", "0 0 1"))
		return 202;
	snprintf(max, sizeof(max), "%d", MM_KIDS);
	if (put_proc("/proc/sys/user/max_user_namespaces", max))
		return 203;
	for (int i = 0; i < MM_KIDS; i++) {
		int ret = spawn_mm_key_child();

		if (ret)
			return ret < 0 ? 204 : 210 + (ret & 31);
		exits++;
	}
	lab_diag("mm keys: %d leaking exits, each child in its own user namespace (limit %d)",
		 exits, MM_KIDS);
	until = lab_now_ms() + MM_SETTLE_MS;
	do {
		slots = free_namespace_slots();
		if (slots < 0)
			return 205;
		if (MM_KIDS - slots < kept)
			kept = MM_KIDS - slots < 0 ? 0 : MM_KIDS - slots;
		if (kept > 0)
			lab_sleep_us(100 * 1000);
	} while (kept > 0 && lab_now_ms() < until);
	return kept;
}

/* H in a child process: the caller stays in the initial user namespace. */
static int mm_keys_kept(void)
{
	static const char *const steps[] = {
		"", "unshare(CLONE_NEWUSER)", "writing its uid/gid map",
		"setting its max_user_namespaces", "fork/wait", "counting namespaces",
	};
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		lab_fatal("fork");
	if (pid == 0)
		_exit(count_kept_mms());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		lab_end(LAB_ERROR, "mm-key counter died: status %#x", status);
	status = WEXITSTATUS(status);
	if (status > 200 && status <= 205)
		lab_end(LAB_ERROR, "mm-key counter: %s failed", steps[status - 200]);
	if (status >= 210)
		lab_end(LAB_ERROR, "mm-key child failed with status %d (11: not EWOULDBLOCK)",
			status - 210);
	return status;
}

int main(int argc, char **argv)
{
	static const struct lab_info info = {
		.name = "t001-futex-key-refcnt",
		.seed = "001",
		.title = "futex: a shared PI futex must not pin its inode or mm",
		.bound_s = 60,
	};
	static const char *const pats[] = {
		"Busy inodes after unmount", "generic_shutdown_super", NULL,
	};
	int kfd, inode_exits = 0, mm_kept, splat;
	long ffree0, inodes_kept;
	char *dir;

	if (argc == 3 && !strcmp(argv[1], "--mm-key-child"))
		return mm_key_child(argv[2]);
	lab_begin(&info);
	dir = mount_scratch();
	lab_diag("tmpfs mounted on %s in a private mount namespace", dir);
	ffree0 = free_inodes(dir);
	for (int i = 0; i < FILES; i++)
		inode_exits += contend_file(dir);
	inodes_kept = ffree0 - free_inodes(dir);
	lab_diag("inode keys: %d leaking exits on %d files, inodes_kept=%ld",
		 inode_exits, FILES, inodes_kept);
	mm_kept = mm_keys_kept();
	lab_diag("mm keys: mm_structs_kept=%d of %d", mm_kept, MM_KIDS);

	kfd = lab_kmsg_open(1);
	if (umount(dir))
		lab_fatal("umount %s", dir);
	rmdir(dir);
	lab_diag("umount %s: 0", dir);
	/* generic_shutdown_super() prints synchronously inside umount(). */
	splat = lab_kmsg_grep(kfd, pats, 5);
	if (kfd < 0)
		lab_diag("/dev/kmsg unreadable: the console scanner decides");

	if (inodes_kept > 0 || mm_kept > 0 || splat)
		lab_end(LAB_FAIL, "futex_lock_pi exits leaked key references: %ld of %d inodes and %d of %d mm_structs kept%s",
			inodes_kept, FILES, mm_kept, MM_KIDS,
			splat ? ", busy inodes at umount" : "");
	lab_end(LAB_PASS, "%d inode-key and %d mm-key futex_lock_pi exits left no reference, clean umount",
		inode_exits, MM_KIDS);
}
