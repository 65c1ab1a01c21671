// SPDX-License-Identifier: GPL-2.0
/*
 * t013 - a pty storm on the tty host: many sessions at once, each round a
 * new session whose controlling tty is a fresh pty, with O_ASYNC/SIGIO
 * traffic, owner changes, job-control signals, hangups and reopens.
 *
 * A workload, not a directed reproducer: it does what terminal-heavy hosts
 * do (ssh/tmux/expect farms), concurrently and in bulk, and asks lockdep
 * and the kernel log whether anything went wrong.  On a kernel with seed
 * 004's bug (bugs/004: __f_setown() under tty->ctrl.lock, as 2.6.32.8 did)
 * lockdep closes the siglock -> ctrl.lock -> f_owner.lock -> siglock cycle
 * from this traffic alone; on a fixed kernel the storm must run clean.
 *
 * Each of SESSIONS workers (LAB_TTY_SESSIONS, default 16) forks one child
 * per round until LAB_DURATION seconds (default 20) or ROUNDS_MAX rounds:
 *   setsid + open the new pty's slave without O_NOCTTY (controlling tty);
 *   tcsetpgrp; F_SETOWN (pid, then its process group) + O_ASYNC; input on
 *   the master -> SIGIO; TIOCSWINSZ on the master -> SIGWINCH and TIOCSIG
 *   -> SIGTSTP to the foreground group; O_ASYNC off; then a hangup, alternately
 *   TIOCVHANGUP on the slave and closing the master, and a reopen of the
 *   slave after the vhangup.
 * Counts: rounds, SIGIOs, SIGWINCHs, SIGTSTPs, hangups, reopens, seconds.
 *   patched:  pass, lockdep silent and still on.
 *   baseline: fail, lockdep's cycle naming tty->ctrl.lock and f_owner.lock.
 */
#include "lab_test.h"

#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <termios.h>

#define SESSIONS_DEF	16
#define SESSIONS_MAX	256
#define DURATION_DEF	20
#define ROUNDS_MAX	400
#define SIG_WAIT_MS	500

struct tally {
	atomic_long rounds, sigio, sigwinch, sigtstp, hangups, reopens, errors;
};

static struct tally *tally;	/* shared by every worker */

/* Wait up to SIG_WAIT_MS for SIG (blocked); 1 if it came. */
static int got(int sig)
{
	const struct timespec wait = { .tv_nsec = SIG_WAIT_MS * 1000000L };
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, sig);
	return sigtimedwait(&set, NULL, &wait) == sig;
}

/* A new session with the pty's slave as its controlling tty. */
static int open_ctty(int *master, char *name, size_t size)
{
	struct termios tio;
	int slave;

	if (setsid() < 0)
		return -1;
	*master = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (*master < 0 || grantpt(*master) || unlockpt(*master) ||
	    ptsname_r(*master, name, size))
		return -1;
	slave = open(name, O_RDWR | O_CLOEXEC);	/* no O_NOCTTY: becomes ctty */
	if (slave < 0)
		return -1;
	if (tcgetsid(slave) != getpid() && ioctl(slave, TIOCSCTTY, 0))
		return -1;
	if (tcgetattr(slave, &tio) == 0) {
		cfmakeraw(&tio);	/* no echo back into the master */
		tcsetattr(slave, TCSANOW, &tio);
	}
	return slave;
}

/* O_ASYNC on, owner = OWNER (pid or -pgrp), input, SIGIO, O_ASYNC off. */
static int sigio_round(int master, int slave, pid_t owner)
{
	int flags = fcntl(slave, F_GETFL);

	if (flags < 0 || fcntl(slave, F_SETOWN, owner) ||
	    fcntl(slave, F_SETFL, flags | O_ASYNC))
		return -1;
	if (write(master, "lab\n", 4) != 4)
		return -1;
	if (got(SIGIO))
		atomic_fetch_add(&tally->sigio, 1);
	return fcntl(slave, F_SETFL, flags);
}

/*
 * Job control: the foreground group, SIGWINCH by a resize, SIGTSTP from the
 * master's TIOCSIG (pty_signal() takes only SIGINT, SIGQUIT and SIGTSTP).
 */
static int job_control(int master, int slave, int round)
{
	struct winsize ws = { .ws_row = (unsigned short)(24 + round % 8), .ws_col = 80 };

	if (tcsetpgrp(slave, getpgrp()))
		return -1;
	if (ioctl(master, TIOCSWINSZ, &ws) == 0 && got(SIGWINCH))
		atomic_fetch_add(&tally->sigwinch, 1);
	if (ioctl(master, TIOCSIG, SIGTSTP) == 0 && got(SIGTSTP))
		atomic_fetch_add(&tally->sigtstp, 1);
	return 0;
}

/* Hang the session's tty up: vhangup (then reopen) or the master's close. */
static void hang_up(int master, int slave, const char *name, int round)
{
	if (round % 2 == 0 && ioctl(slave, TIOCVHANGUP) == 0) {
		int again;

		atomic_fetch_add(&tally->hangups, 1);
		again = open(name, O_RDWR | O_NOCTTY | O_CLOEXEC);
		if (again >= 0) {
			atomic_fetch_add(&tally->reopens, 1);
			close(again);
		}
	} else {
		close(master);
		master = -1;
		atomic_fetch_add(&tally->hangups, 1);
	}
	close(slave);
	if (master >= 0)
		close(master);
}

/* One round, in a child of the worker: exits 0, or 1 if a step failed. */
static void session_round(int round)
{
	char name[64];
	sigset_t set;
	int master, slave;

	sigemptyset(&set);
	sigaddset(&set, SIGIO);
	sigaddset(&set, SIGWINCH);
	sigaddset(&set, SIGTSTP);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGCONT);
	sigprocmask(SIG_BLOCK, &set, NULL);	/* SIGIO's default kills */
	slave = open_ctty(&master, name, sizeof(name));
	if (slave < 0)
		_exit(1);
	if (sigio_round(master, slave, getpid()) ||
	    sigio_round(master, slave, -getpgrp()) ||
	    job_control(master, slave, round))
		_exit(1);
	hang_up(master, slave, name, round);
	_exit(0);
}

/* A worker: rounds until the deadline; never more than ROUNDS_MAX. */
static int worker(uint64_t until)
{
	for (int r = 0; r < ROUNDS_MAX && lab_now_ms() < until; r++) {
		int status;
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid == 0)
			session_round(r);
		if (waitpid(pid, &status, 0) != pid)
			return 1;
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			atomic_fetch_add(&tally->errors, 1);
		atomic_fetch_add(&tally->rounds, 1);
	}
	return 0;
}

/* Start the workers, wait for them all; returns how many failed. */
static int storm(int sessions, unsigned int seconds)
{
	uint64_t until = lab_now_ms() + seconds * 1000ULL;
	pid_t pids[SESSIONS_MAX];
	int failed = 0, status;

	for (int i = 0; i < sessions; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			lab_fatal("fork");
		if (pids[i] == 0)
			_exit(worker(until));
	}
	for (int i = 0; i < sessions; i++)
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status))
			failed++;
	return failed;
}

int main(void)
{
	static const struct lab_info info = {
		.name = "t013-tty-pty-storm",
		.seed = "004",
		.title = "tty: a pty storm (ctty, O_ASYNC, SIGIO, job control, hangups) runs lockdep-clean",
		.bound_s = 170,
	};
	enum { CYCLE, CTRL, FOWNER, NPATS };
	static const char *const pats[] = {
		[CYCLE] = "circular locking dependency", [CTRL] = "&tty->ctrl.lock",
		[FOWNER] = "f_owner.lock", NULL,
	};
	int sessions = (int)lab_env_ulong("LAB_TTY_SESSIONS", SESSIONS_DEF);
	unsigned int seconds = (unsigned int)lab_env_ulong("LAB_DURATION", DURATION_DEF);
	int found[NPATS] = { 0 }, before, after, kfd, failed;
	uint64_t t0;

	lab_begin(&info);
	if (sessions < 1 || sessions > SESSIONS_MAX)
		lab_end(LAB_ERROR, "LAB_TTY_SESSIONS=%d: 1 to %d", sessions, SESSIONS_MAX);
	if (seconds < 1 || seconds > info.bound_s - 30)
		seconds = DURATION_DEF;
	tally = mmap(NULL, sizeof(*tally), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (tally == MAP_FAILED)
		lab_fatal("mmap");
	before = lab_debug_locks();
	lab_diag("debug_locks before: %d", before);
	if (before == 0)
		lab_end(LAB_INCONCLUSIVE, "lockdep already off this boot: it can report nothing");

	kfd = lab_kmsg_open(1);
	t0 = lab_now_ms();
	failed = storm(sessions, seconds);
	after = lab_debug_locks();
	lab_kmsg_tally(kfd, pats, found, 6);
	printf("# counts: sessions=%d rounds=%ld sigio=%ld sigwinch=%ld sigtstp=%ld hangups=%ld reopens=%ld round_errors=%ld seconds=%.1f\n",
	       sessions, atomic_load(&tally->rounds), atomic_load(&tally->sigio),
	       atomic_load(&tally->sigwinch), atomic_load(&tally->sigtstp),
	       atomic_load(&tally->hangups),
	       atomic_load(&tally->reopens), atomic_load(&tally->errors),
	       (double)(lab_now_ms() - t0) / 1000);
	lab_diag("debug_locks after: %d; kmsg: cycle %d, ctrl.lock %d, f_owner.lock %d",
		 after, found[CYCLE], found[CTRL], found[FOWNER]);

	if (before == 1 && after == 0 && found[CYCLE] && found[CTRL] && found[FOWNER])
		lab_end(LAB_FAIL, "lockdep reported the tty/fasync lock cycle "
			"(tty->ctrl.lock, f_owner.lock) under the pty storm");
	if (before == 1 && after == 0)
		lab_end(LAB_FAIL, "lockdep switched itself off under the pty storm, "
			"but its report does not name the tty/fasync locks");
	if (failed || atomic_load(&tally->errors))
		lab_end(LAB_ERROR, "%d workers and %ld rounds failed a step", failed,
			atomic_load(&tally->errors));
	if (!atomic_load(&tally->sigio))
		lab_end(LAB_ERROR, "no SIGIO arrived: the storm did not exercise fasync");
	if (before < 0)
		lab_end(LAB_INCONCLUSIVE, "the storm ran, but without lockdep a lock cycle goes unseen");
	lab_end(LAB_PASS, "%ld pty sessions in %d workers, lockdep silent and still on",
		atomic_load(&tally->rounds), sessions);
}
