// SPDX-License-Identifier: GPL-2.0
/*
 * t002 - a task that does not own a PI futex must not be able to unlock it.
 *
 * Seed 002, "futex: Handle user space corruption gracefully" (upstream
 * 51246bfd1890, 2.6.32.9 #3).  In 6.1 the check lives in futex_unlock_pi()
 * (kernel/futex/pi.c): pi_state->owner != current -> -EINVAL.
 *
 * Thread A owns the futex, thread B blocks on it in FUTEX_LOCK_PI (so a
 * pi_state exists), then the main thread C writes FUTEX_WAITERS|TID_C into
 * the word and calls FUTEX_UNLOCK_PI.
 *   patched:  EINVAL; A unlocks normally and B gets the lock.
 *   baseline: 0, and the lock is handed to B while A still owns it
 *             (DEBUG_RT_MUTEXES adds "DEBUG_LOCKS_WARN_ON(rt_mutex_owner(lock)
 *             != current)" on the console).  The rt-mutex state stays
 *             damaged: the test consumes the boot when it fails.
 *
 * Only private futexes on our own memory: safe to run on any host kernel.
 */
#include "lab_test.h"

#include <pthread.h>

#define WAIT_MS		5000	/* for a thread to reach its syscall */
#define LOCK_MS		10000	/* FUTEX_LOCK_PI timeout: never block forever */

static _Atomic uint32_t word;

static struct {
	atomic_int a_owns;	/* A took the lock in user space */
	atomic_int a_release;	/* C tells A to unlock */
	atomic_int b_ready;	/* B's stat fd is open */
	atomic_int b_done;
	pid_t tid_a;
	int b_stat_fd;
	int a_unlock_ret;
	int b_lock_ret;
	int b_unlock_ret;
	uint32_t b_word_after_lock;
} st;

/* A: take the lock the way glibc does, uncontended, in user space. */
static void *owner_a(void *arg)
{
	uint32_t expected = 0;

	(void)arg;
	st.tid_a = lab_gettid();
	if (!atomic_compare_exchange_strong(&word, &expected, (uint32_t)st.tid_a)) {
		st.a_unlock_ret = -EBUSY;
		atomic_store(&st.a_owns, -1);
		return NULL;
	}
	atomic_store(&st.a_owns, 1);
	if (lab_wait_atleast(&st.a_release, 1, LOCK_MS + WAIT_MS) == 0)
		st.a_unlock_ret = lab_futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL);
	return NULL;
}

/* B: block in the kernel; the pi_state it creates is what C attacks. */
static void *waiter_b(void *arg)
{
	struct timespec deadline = lab_deadline_realtime(LOCK_MS);

	(void)arg;
	st.b_stat_fd = lab_thread_stat_open();
	atomic_store(&st.b_ready, 1);
	st.b_lock_ret = lab_futex(&word, FUTEX_LOCK_PI_PRIVATE, 0, &deadline);
	if (st.b_lock_ret == 0) {
		st.b_word_after_lock = atomic_load(&word);
		st.b_unlock_ret = lab_futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL);
	}
	atomic_store(&st.b_done, 1);
	return NULL;
}

/* Wait until B sleeps in FUTEX_LOCK_PI and the kernel set FUTEX_WAITERS. */
static int wait_b_blocked(void)
{
	uint64_t end = lab_now_ms() + WAIT_MS;

	if (lab_wait_atleast(&st.b_ready, 1, WAIT_MS) || st.b_stat_fd < 0)
		return -1;
	while (!(atomic_load(&word) & FUTEX_WAITERS)) {
		if (lab_now_ms() >= end)
			return -1;
		lab_sleep_us(1000);
	}
	return lab_wait_sleeping(st.b_stat_fd, WAIT_MS);
}

/* C: pretend to own the futex and unlock it.  Returns 0 or -errno. */
static int hijack_unlock(void)
{
	uint32_t fake = FUTEX_WAITERS | (uint32_t)lab_gettid();

	lab_diag("word before hijack: %#x (A=%d)", atomic_load(&word), st.tid_a);
	atomic_store(&word, fake);
	return lab_futex(&word, FUTEX_UNLOCK_PI_PRIVATE, 0, NULL);
}

/* Give A its lock back so it and B can finish normally (patched path). */
static void restore_owner(void)
{
	uint32_t fake = FUTEX_WAITERS | (uint32_t)lab_gettid();

	atomic_compare_exchange_strong(&word, &fake,
				       FUTEX_WAITERS | (uint32_t)st.tid_a);
}

static void join_bounded(pthread_t t, const char *name)
{
	struct timespec deadline;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += (LOCK_MS + WAIT_MS) / 1000 + 1;
	if (pthread_timedjoin_np(t, NULL, &deadline))
		lab_end(LAB_ERROR, "thread %s did not finish", name);
}

int main(void)
{
	static const struct lab_info info = {
		.name = "t002-futex-unlock-pi-hijack",
		.seed = "002",
		.title = "futex: non-owner FUTEX_UNLOCK_PI must fail with EINVAL",
		.bound_s = 40,
	};
	pthread_t a, b;
	int ret;

	lab_begin(&info);
	st.b_stat_fd = -1;
	if (pthread_create(&a, NULL, owner_a, NULL))
		lab_end(LAB_ERROR, "pthread_create A failed");
	if (lab_wait_atleast(&st.a_owns, 1, WAIT_MS))
		lab_end(LAB_ERROR, "thread A could not take the lock");
	if (pthread_create(&b, NULL, waiter_b, NULL))
		lab_end(LAB_ERROR, "pthread_create B failed");
	if (wait_b_blocked())
		lab_end(LAB_ERROR, "thread B never blocked in FUTEX_LOCK_PI (ret %s)",
			lab_errname(st.b_lock_ret));

	ret = hijack_unlock();
	lab_diag("non-owner FUTEX_UNLOCK_PI returned %s", lab_errname(ret));
	if (ret == -EINVAL)
		restore_owner();
	atomic_store(&st.a_release, 1);
	join_bounded(b, "B");
	join_bounded(a, "A");
	lab_diag("A unlock: %s; B lock: %s (word then %#x), B unlock: %s",
		 lab_errname(st.a_unlock_ret), lab_errname(st.b_lock_ret),
		 st.b_word_after_lock, lab_errname(st.b_unlock_ret));

	if (ret == 0)
		lab_end(LAB_FAIL, "a non-owner unlocked the PI futex and handed it to B");
	if (ret != -EINVAL)
		lab_end(LAB_ERROR, "unexpected %s from the hijacking unlock",
			lab_errname(ret));
	if (st.a_unlock_ret || st.b_lock_ret || st.b_unlock_ret)
		lab_end(LAB_ERROR, "owner hand-over after the rejected hijack failed");
	lab_end(LAB_PASS, "hijacking unlock rejected with EINVAL, lock handed A -> B");
}
