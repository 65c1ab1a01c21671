// SPDX-License-Identifier: GPL-2.0
/*
 * lab-posix-lock - check POSIX (fcntl) record locks on one file, for
 * t000-nfs-interop.  flock(1) takes BSD locks, which NFS emulates
 * differently; this is the byte-range lock that goes to the NFS lock
 * manager (NLM for v3, LOCK/LOCKT for v4).
 *
 *   1. we take F_WRLCK on the whole file (F_SETLK);
 *   2. a child on its own fd must be refused (EAGAIN/EACCES), and F_GETLK
 *      must report the conflicting write lock;
 *   3. we unlock; a second child must now get the lock.
 *
 * Usage: lab-posix-lock FILE.   Exit 0 when all holds, 3 otherwise.
 */
#include "lab_test.h"

#include <sys/wait.h>

static struct flock whole(short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET };

	return fl;
}

/* Child 1: the lock must be visible as a conflict. */
static int expect_conflict(const char *file, pid_t holder)
{
	struct flock fl = whole(F_WRLCK);
	int fd = open(file, O_RDWR);

	if (fd < 0)
		return LAB_ERROR;
	if (fcntl(fd, F_SETLK, &fl) == 0) {
		printf("# a second process got the lock the parent holds\n");
		return LAB_ERROR;
	}
	if (errno != EAGAIN && errno != EACCES) {
		printf("# conflicting F_SETLK: %s, expected EAGAIN\n", strerror(errno));
		return LAB_ERROR;
	}
	fl = whole(F_WRLCK);
	if (fcntl(fd, F_GETLK, &fl) || fl.l_type != F_WRLCK) {
		printf("# F_GETLK did not report the conflicting lock\n");
		return LAB_ERROR;
	}
	printf("# conflict seen: F_GETLK reports a write lock by pid %d (holder %d)\n",
	       fl.l_pid, holder);
	return LAB_PASS;
}

/* Child 2: after the unlock the lock must be free. */
static int expect_free(const char *file, pid_t holder)
{
	struct flock fl = whole(F_WRLCK);
	int fd = open(file, O_RDWR);

	(void)holder;
	if (fd < 0 || fcntl(fd, F_SETLK, &fl)) {
		printf("# lock not free after unlock: %s\n", strerror(errno));
		return LAB_ERROR;
	}
	fl = whole(F_UNLCK);
	return fcntl(fd, F_SETLK, &fl) ? LAB_ERROR : LAB_PASS;
}

static int in_child(int (*fn)(const char *, pid_t), const char *file)
{
	int status;
	pid_t holder = getpid(), pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return LAB_ERROR;
	if (pid == 0) {
		int code = fn(file, holder);

		fflush(stdout);
		_exit(code);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return LAB_ERROR;
	return WEXITSTATUS(status);
}

int main(int argc, char **argv)
{
	struct flock fl = whole(F_WRLCK);
	int fd;

	lab_name = "lab-posix-lock";
	if (argc != 2) {
		fprintf(stderr, "usage: lab-posix-lock FILE\n");
		return LAB_ERROR;
	}
	lab_bound(60, LAB_ERROR);	/* an NLM without statd can hang */
	fd = open(argv[1], O_RDWR | O_CREAT, 0600);
	if (fd < 0 || fcntl(fd, F_SETLK, &fl)) {
		printf("# F_SETLK F_WRLCK on %s: %s\n", argv[1], strerror(errno));
		return LAB_ERROR;
	}
	if (in_child(expect_conflict, argv[1]) != LAB_PASS)
		return LAB_ERROR;
	fl = whole(F_UNLCK);
	if (fcntl(fd, F_SETLK, &fl)) {
		printf("# F_UNLCK: %s\n", strerror(errno));
		return LAB_ERROR;
	}
	if (in_child(expect_free, argv[1]) != LAB_PASS)
		return LAB_ERROR;
	printf("# POSIX lock, conflict, unlock, relock: ok\n");
	return LAB_PASS;
}
