// SPDX-License-Identifier: GPL-2.0
/*
 * t004 - O_ASYNC on a controlling tty must not close a lock cycle.
 *
 * Seed 004, "Fix race in tty_fasync() properly" (upstream 80e1e823989e,
 * 2.6.32.9 #5).  In 6.1 __tty_fasync() (drivers/tty/tty_io.c) takes a pid
 * reference under tty->ctrl.lock and calls __f_setown() after dropping it.
 * Calling __f_setown() under the lock again, as 2.6.32.8 did, gives lockdep
 * a cycle through three edges this test creates in order:
 *   1. a session leader opens its pty slave as controlling tty
 *      (proc_set_tty: sighand->siglock -> tty->ctrl.lock);
 *   2. F_SETOWN + O_ASYNC on it (baseline: ctrl.lock -> f_owner.lock);
 *   3. input on the master sends SIGIO (send_sigio: f_owner.lock -> siglock).
 *   patched:  silent, debug_locks stays 1.
 *   baseline: "possible circular locking dependency detected" naming those
 *             locks; lockdep then switches itself off (debug_locks 1 -> 0).
 * Needs CONFIG_PROVE_LOCKING and a boot whose lockdep has not fired yet.
 * `--no-lockdep` runs the tty sequence anyway (to try it on a host); the
 * result is then inconclusive at best.
 */
#include "lab_test.h"

#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

#define ROUNDS		3
#define SIGIO_MS	5000

/* Edge 1: become a session leader whose controlling tty is a new pty. */
static int open_ctty(int *master)
{
	int slave;

	if (setsid() < 0)
		return -1;
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0 || grantpt(*master) || unlockpt(*master))
		return -1;
	slave = open(ptsname(*master), O_RDWR | O_CLOEXEC);	/* no O_NOCTTY */
	if (slave < 0)
		return -1;
	if (tcgetsid(slave) != getpid() && ioctl(slave, TIOCSCTTY, 0))
		return -1;
	return tcgetsid(slave) == getpid() ? slave : -1;
}

/* Edges 2 and 3: owner + O_ASYNC, then input; wait for the SIGIO. */
static int async_round(int master, int slave, const sigset_t *sigio)
{
	const struct timespec wait = { .tv_sec = SIGIO_MS / 1000 };
	int flags = fcntl(slave, F_GETFL);

	if (flags < 0 || fcntl(slave, F_SETOWN, getpid()) ||
	    fcntl(slave, F_SETFL, flags | O_ASYNC))
		return -1;
	if (write(master, "lab\n", 4) != 4)
		return -1;
	if (sigtimedwait(sigio, NULL, &wait) != SIGIO)
		return 0;
	return fcntl(slave, F_SETFL, flags) ? -1 : 1;	/* fasync off again */
}

/* The child: a new session, so the parent's own tty is never touched. */
static int tty_child(void)
{
	struct termios tio;
	int master, slave, got = 0;
	sigset_t sigio;

	sigemptyset(&sigio);
	sigaddset(&sigio, SIGIO);
	sigprocmask(SIG_BLOCK, &sigio, NULL);	/* SIGIO's default kills */
	slave = open_ctty(&master);
	if (slave < 0)
		return LAB_ERROR;
	if (tcgetattr(slave, &tio) == 0) {
		cfmakeraw(&tio);	/* no echo back into the master */
		tcsetattr(slave, TCSANOW, &tio);
	}
	for (int i = 0; i < ROUNDS; i++) {
		int r = async_round(master, slave, &sigio);

		if (r < 0)
			return LAB_ERROR;
		got += r;
	}
	return got == ROUNDS ? LAB_PASS : LAB_INCONCLUSIVE;
}

static int run_child(void)
{
	uint64_t end = lab_now_ms() + (ROUNDS + 1) * SIGIO_MS;
	int status;
	pid_t pid = fork();

	if (pid < 0)
		lab_fatal("fork");
	if (pid == 0)
		_exit(tty_child());
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (lab_now_ms() >= end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return LAB_ERROR;
		}
		lab_sleep_us(10000);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : LAB_ERROR;
}

int main(int argc, char **argv)
{
	static const struct lab_info info = {
		.name = "t004-tty-fasync-lockdep",
		.seed = "004",
		.title = "tty: O_ASYNC on a controlling pty must not make a lockdep cycle",
		.bound_s = 60,
	};
	/* the cycle is 004's only when lockdep names both of its locks */
	enum { CYCLE, CTRL, FOWNER, SIGLOCK };
	static const char *const pats[] = {
		[CYCLE] = "circular locking dependency", [CTRL] = "&tty->ctrl.lock",
		[FOWNER] = "f_owner.lock", [SIGLOCK] = "siglock", NULL,
	};
	int found[4] = { 0 };
	int no_lockdep = argc > 1 && !strcmp(argv[1], "--no-lockdep");
	int before, after, child, kfd, report;

	lab_begin(&info);
	before = lab_debug_locks();
	lab_diag("debug_locks before: %d", before);
	if (before < 0 && !no_lockdep)
		lab_skip("no /proc/lockdep_stats debug_locks line: CONFIG_PROVE_LOCKING off (or not root)");
	if (before == 0)
		lab_end(LAB_INCONCLUSIVE, "lockdep already off this boot: it can report nothing");

	kfd = lab_kmsg_open(1);
	child = run_child();
	after = lab_debug_locks();
	report = lab_kmsg_tally(kfd, pats, found, 6);
	lab_diag("tty sequence: %s; debug_locks after: %d; lockdep lines in kmsg: %d "
		 "(cycle %d, ctrl.lock %d, f_owner.lock %d)", lab_result_word(child),
		 after, report, found[CYCLE], found[CTRL], found[FOWNER]);

	if (before == 1 && after == 0 && found[CYCLE] && found[CTRL] && found[FOWNER])
		lab_end(LAB_FAIL, "lockdep reported the tty/fasync lock cycle "
			"(tty->ctrl.lock, f_owner.lock) and switched itself off");
	if (before == 1 && after == 0)
		lab_end(LAB_FAIL, "lockdep switched itself off, but its report does not "
			"name the tty/fasync locks: another lock problem");
	if (child != LAB_PASS)
		lab_end(child == LAB_INCONCLUSIVE ? LAB_INCONCLUSIVE : LAB_ERROR,
			"the ctty/O_ASYNC/SIGIO sequence did not complete");
	if (before < 0)
		lab_end(LAB_INCONCLUSIVE, "sequence ran, but without lockdep nothing is proven");
	lab_end(LAB_PASS, "%d SIGIO rounds, lockdep silent and still on", ROUNDS);
}
