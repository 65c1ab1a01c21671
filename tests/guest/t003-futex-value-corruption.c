// SPDX-License-Identifier: GPL-2.0
/*
 * t003 - a PI futex whose value names the wrong owner must be refused, and
 * legitimate contention inside a PID namespace must not be.
 *
 * Seed 003, "futex: Handle futex value corruption gracefully" (upstream
 * 59647b6ac305, 2.6.32.9 #4).  In 6.1: attach_to_pi_state() in
 * kernel/futex/pi.c, pid != task_pid_vnr(pi_state->owner) -> -EINVAL.
 *
 * Half 1: A owns, B blocks (pi_state exists, owner A), then the word is set
 * to FUTEX_WAITERS|TID_C of a live thread C that is not the owner and the
 * main thread calls FUTEX_TRYLOCK_PI, five times.
 *   patched:  EINVAL each time, no log.
 *   baseline: EAGAIN (EWOULDBLOCK) and a "WARNING ... attach_to_pi_state"
 *             per call: the 2010 syslog spam.
 * Half 2: in a new PID namespace, A owns, B and C block on the same futex,
 * and the lock passes A -> B -> C.  Every call must succeed and the kernel
 * must stay silent; comparing the futex value (a namespace TID) with the
 * owner's global pid, as 2.6.32 did, WARNs here (the missing task_pid_vnr()).
 *
 * Only private futexes on our own memory; half 2 needs CAP_SYS_ADMIN.
 */
#include "lab_test.h"

#include <pthread.h>
#include <sched.h>
#include <sys/wait.h>

#define WAIT_MS		5000
#define LOCK_MS		10000
#define HIJACKS		5

static _Atomic uint32_t word;

struct pi_thread {
	pthread_t thread;
	pid_t tid;
	int stat_fd;
	atomic_int ready;	/* tid and stat_fd are valid */
	atomic_int go;		/* the main thread lets it act */
	atomic_int locking;	/* past its last sleep before FUTEX_LOCK_PI */
	atomic_int lock_ret;	/* read after a timeout too: atomic */
	atomic_int unlock_ret;
};

static struct pi_thread ta, tb, tc;

/* A: user-space acquire, then FUTEX_UNLOCK_PI when told (WAITERS is set). */
static void *owner(void *arg)
{
	struct pi_thread *t = arg;
	uint32_t expected = 0;

	t->tid = lab_gettid();
	t->lock_ret = atomic_compare_exchange_strong(&word, &expected,
						     (uint32_t)t->tid) ? 0 : -EBUSY;
	atomic_store(&t->ready, 1);
	if (t->lock_ret == 0 && lab_wait_atleast(&t->go, 1, LOCK_MS + WAIT_MS) == 0)
		t->unlock_ret = lab_futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL);
	return NULL;
}

/* B, C: block in FUTEX_LOCK_PI (bounded), unlock once the lock is ours. */
static void *waiter(void *arg)
{
	struct pi_thread *t = arg;
	struct timespec deadline;

	t->tid = lab_gettid();
	t->stat_fd = lab_thread_stat_open();
	atomic_store(&t->ready, 1);
	if (lab_wait_atleast(&t->go, 1, LOCK_MS + WAIT_MS))
		return NULL;
	/* From here only the futex call can sleep: 'S' means blocked in it. */
	atomic_store(&t->locking, 1);
	deadline = lab_deadline_realtime(LOCK_MS);
	t->lock_ret = lab_futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, &deadline);
	if (t->lock_ret == 0)
		t->unlock_ret = lab_futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL);
	return NULL;
}

/* C in half 1: a live TID that owns nothing; it only waits to be let go. */
static void *bystander(void *arg)
{
	struct pi_thread *t = arg;

	t->tid = lab_gettid();
	atomic_store(&t->ready, 1);
	lab_wait_atleast(&t->go, 1, LOCK_MS + WAIT_MS);
	return NULL;
}

static int start(struct pi_thread *t, void *(*fn)(void *))
{
	t->stat_fd = -1;
	t->lock_ret = t->unlock_ret = -ETIMEDOUT;
	if (pthread_create(&t->thread, NULL, fn, t))
		return -1;
	return lab_wait_atleast(&t->ready, 1, WAIT_MS);
}

/* Let @t go and wait until it sleeps in FUTEX_LOCK_PI behind the owner. */
static int block_waiter(struct pi_thread *t)
{
	uint64_t end = lab_now_ms() + WAIT_MS;

	atomic_store(&t->go, 1);
	if (t->stat_fd < 0 || lab_wait_atleast(&t->locking, 1, WAIT_MS))
		return -1;
	while (!(atomic_load(&word) & FUTEX_WAITERS)) {
		if (lab_now_ms() >= end)
			return -1;
		lab_sleep_us(1000);
	}
	return lab_wait_sleeping(t->stat_fd, WAIT_MS);
}

static int join(struct pi_thread *t)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (LOCK_MS + WAIT_MS) / 1000 + 1;
	return pthread_timedjoin_np(t->thread, NULL, &deadline) ? -1 : 0;
}

/* Half 1: FUTEX_TRYLOCK_PI with the word naming C while A owns the pi_state. */
static int corrupt_value(void)
{
	int ret, einval = 0, eagain = 0, other = 0;

	if (start(&ta, owner) || ta.lock_ret || start(&tb, waiter) ||
	    start(&tc, bystander) || block_waiter(&tb))
		lab_end(LAB_ERROR, "half 1: could not set up owner A and waiter B");

	for (int i = 0; i < HIJACKS; i++) {
		atomic_store(&word, FUTEX_WAITERS | (uint32_t)tc.tid);
		ret = lab_futex(&word, FUTEX_TRYLOCK_PI_PRIVATE, 0, NULL);
		einval += ret == -EINVAL;
		eagain += ret == -EAGAIN;
		other += ret != -EINVAL && ret != -EAGAIN;
		if (i == 0)
			lab_diag("FUTEX_TRYLOCK_PI with word naming non-owner %d: %s",
				 tc.tid, lab_errname(ret));
	}
	lab_diag("half 1: %d x EINVAL, %d x EAGAIN, %d x other, of %d",
		 einval, eagain, other, HIJACKS);

	/* Put the real owner back so A -> B hands over and both finish. */
	atomic_store(&word, FUTEX_WAITERS | (uint32_t)ta.tid);
	atomic_store(&ta.go, 1);
	atomic_store(&tc.go, 1);
	if (join(&tb) || join(&ta) || join(&tc))
		lab_end(LAB_ERROR, "half 1: a thread did not finish");
	lab_diag("half 1 clean-up: A unlock %s, B lock %s, B unlock %s",
		 lab_errname(ta.unlock_ret), lab_errname(tb.lock_ret),
		 lab_errname(tb.unlock_ret));

	if (eagain)
		return LAB_FAIL;
	if (other || einval != HIJACKS)
		return LAB_ERROR;
	return LAB_PASS;
}

/* Half 2, in the namespace: A -> B -> C hand-over; exit code is the verdict. */
static int contend_in_pidns(void)
{
	memset(&ta, 0, sizeof(ta));
	memset(&tb, 0, sizeof(tb));
	memset(&tc, 0, sizeof(tc));
	atomic_store(&word, 0);

	if (start(&ta, owner) || ta.lock_ret || start(&tb, waiter) ||
	    start(&tc, waiter) || block_waiter(&tb))
		return LAB_ERROR;
	/* C attaches to B's pi_state: the comparison the seed fixed. */
	if (block_waiter(&tc))
		return tc.lock_ret == -EINVAL ? LAB_FAIL : LAB_ERROR;
	atomic_store(&ta.go, 1);
	if (join(&ta) || join(&tb) || join(&tc))
		return LAB_ERROR;
	printf("# pidns: tids A=%d B=%d C=%d; A unlock %s; B lock %s unlock %s; "
	       "C lock %s unlock %s\n", ta.tid, tb.tid, tc.tid,
	       lab_errname(ta.unlock_ret), lab_errname(tb.lock_ret),
	       lab_errname(tb.unlock_ret), lab_errname(tc.lock_ret),
	       lab_errname(tc.unlock_ret));
	fflush(stdout);
	if (ta.unlock_ret == -EINVAL || tb.lock_ret == -EINVAL ||
	    tb.unlock_ret == -EINVAL || tc.lock_ret == -EINVAL ||
	    tc.unlock_ret == -EINVAL)
		return LAB_FAIL;
	if (ta.unlock_ret || tb.lock_ret || tb.unlock_ret || tc.lock_ret ||
	    tc.unlock_ret)
		return LAB_ERROR;
	return LAB_PASS;
}

/*
 * unshare(CLONE_NEWPID) + fork() rather than clone(CLONE_NEWPID): fork()
 * keeps glibc's thread descriptor right in the child, which then creates
 * threads.  We are single-threaded again here (half 1 joined its threads),
 * and create none after unsharing.
 */
static int run_half2(void)
{
	int status, code;
	pid_t child;
	uint64_t end;

	if (unshare(CLONE_NEWPID)) {
		lab_diag("unshare(CLONE_NEWPID): %s", strerror(errno));
		return LAB_ERROR;
	}
	child = fork();
	if (child < 0)
		return LAB_ERROR;
	if (child == 0) {
		if (getpid() != 1)
			_exit(LAB_ERROR);
		_exit(contend_in_pidns());
	}
	end = lab_now_ms() + LOCK_MS + 2 * WAIT_MS;
	while (waitpid(child, &status, WNOHANG) == 0) {
		if (lab_now_ms() >= end) {
			kill(child, SIGKILL);	/* init of the namespace: all go */
			waitpid(child, &status, 0);
			lab_diag("half 2: namespace init timed out");
			return LAB_ERROR;
		}
		lab_sleep_us(5000);
	}
	code = WIFEXITED(status) ? WEXITSTATUS(status) : LAB_ERROR;
	return code > LAB_SKIP ? LAB_ERROR : code;
}

/* The kernel's own word: WARNINGs from kernel/futex since @fd was opened. */
static int futex_warnings(int fd)
{
	static const char *const pats[] = { "kernel/futex/", "attach_to_pi_state", NULL };
	char text[1024];
	int n = 0;

	while (fd >= 0 && lab_kmsg_next(fd, text, sizeof(text)) == 1) {
		if (strstr(text, "WARNING") && (strstr(text, pats[0]) ||
						strstr(text, pats[1]))) {
			if (n++ < 3)
				lab_diag("kmsg: %.200s", text);
		}
	}
	return n;
}

int main(void)
{
	static const struct lab_info info = {
		.name = "t003-futex-value-corruption",
		.seed = "003",
		.title = "futex: corrupt PI futex value -> EINVAL; PID-namespace contention works",
		.bound_s = 90,
	};
	int kfd, half1, half2, warn1, warn2;

	lab_begin(&info);
	kfd = lab_kmsg_open(1);
	half1 = corrupt_value();
	warn1 = futex_warnings(kfd);
	lab_diag("half 1 (corrupt value): %s, %d futex WARNING(s) logged",
		 lab_result_word(half1), warn1);

	half2 = run_half2();
	warn2 = futex_warnings(kfd);
	lab_diag("half 2 (PID namespace contention): %s, %d futex WARNING(s) logged",
		 lab_result_word(half2), warn2);
	if (kfd < 0)
		lab_diag("/dev/kmsg unreadable: WARNINGs left to the console scanner");

	if (half1 == LAB_FAIL)
		lab_end(LAB_FAIL, "FUTEX_TRYLOCK_PI attached to a pi_state whose owner the value does not name");
	if (half2 == LAB_FAIL)
		lab_end(LAB_FAIL, "legitimate PI contention in a PID namespace was refused");
	if (warn2)
		lab_end(LAB_FAIL, "legitimate PI contention in a PID namespace made the kernel WARN");
	if (half1 != LAB_PASS || half2 != LAB_PASS)
		lab_end(LAB_ERROR, "half 1 %s, half 2 %s", lab_result_word(half1),
			lab_result_word(half2));
	if (warn1)
		lab_end(LAB_FAIL, "EINVAL returned but the kernel still WARNed");
	lab_end(LAB_PASS, "corrupt value refused with EINVAL; namespace hand-over A->B->C clean");
}
