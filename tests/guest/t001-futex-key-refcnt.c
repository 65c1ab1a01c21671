// SPDX-License-Identifier: GPL-2.0
/*
 * t001 - a contended shared PI futex in a file must not pin the file's inode.
 *
 * Seed 001, "futex_lock_pi() key refcnt fix" (upstream 5ecb01cfdf96,
 * 2.6.32.9 #2).  In 2010 futex_lock_pi()'s normal exit path took a key
 * reference it never dropped; a PI futex in a temporary file then left an
 * undead inode and the unmount oopsed.  Since v5.7-v5.9 futex keys hold no
 * references at all, so on 6.1 the bug is only emulated (an extra ihold() on
 * the `goto out` after futex_unqueue_pi() in kernel/futex/pi.c).
 *
 * The test mounts a fresh tmpfs (in a private mount namespace, so nothing
 * else can hold it), maps an O_TMPFILE file MAP_SHARED, and takes the
 * leaking exit path deterministically: thread A owns the futex, the main
 * thread's FUTEX_TRYLOCK_PI (shared key: no FUTEX_PRIVATE_FLAG) is queued on
 * A's pi_state and fails with EWOULDBLOCK; then one blocking FUTEX_LOCK_PI
 * waits for A and gets the lock.  Then unmount.
 *   patched:  clean unmount.
 *   baseline: "VFS: Busy inodes after unmount of tmpfs" + WARNING in
 *             generic_shutdown_super (ext4 without orphan_file: a BUG in
 *             ext4_put_super; not done here, it wedges the fs).
 * The program sees the splat only through /dev/kmsg; with no kmsg access
 * the console scanner decides and a clean run exits 0.
 */
#include "lab_test.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>

#define WAIT_MS		5000
#define LOCK_MS		10000
#define TRYLOCKS	4

static _Atomic uint32_t *word;	/* in the tmpfs file's page */

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
	if (mount("lab-t001", dir, "tmpfs", 0, "size=1m,mode=0700"))
		lab_fatal("mount tmpfs on %s", dir);
	return dir;
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
	lab_diag("%d x FUTEX_TRYLOCK_PI queued on A's pi_state: EWOULDBLOCK", TRYLOCKS);

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
	return taken;
}

int main(void)
{
	static const struct lab_info info = {
		.name = "t001-futex-key-refcnt",
		.seed = "001",
		.title = "futex: shared PI futex in a tmpfile must not pin the inode past umount",
		.bound_s = 60,
	};
	static const char *const pats[] = {
		"Busy inodes after unmount", "generic_shutdown_super", NULL,
	};
	struct timespec deadline;
	long page = sysconf(_SC_PAGESIZE);
	int fd, kfd, taken, splat;
	pthread_t t;
	char *dir;

	lab_begin(&info);
	dir = mount_scratch();
	lab_diag("tmpfs mounted on %s in a private mount namespace", dir);
	fd = map_futex_file(dir);

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
	lab_diag("leaking_path_taken=%d", taken);

	munmap((void *)word, page);
	close(fd);
	kfd = lab_kmsg_open(1);
	if (umount(dir))
		lab_fatal("umount %s", dir);
	rmdir(dir);
	lab_diag("umount %s: 0", dir);

	/* generic_shutdown_super() prints synchronously inside umount(). */
	splat = lab_kmsg_grep(kfd, pats, 5);
	if (kfd < 0)
		lab_diag("/dev/kmsg unreadable: the console scanner decides");
	if (splat)
		lab_end(LAB_FAIL, "umount found the tmpfile's inode still referenced");
	lab_end(LAB_PASS, "%d contended PI futex exits, clean umount", taken);
}
