/* test_tree_lock.c - two lab commands on one kernel tree: the second waits
 * for the first's lock (a cold cache made two stress parts fail when one
 * built the test modules), and Ctrl-C ends the wait with an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "build/tree.h"
#include "util/util.h"

static char *tmp;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Another process holding ROOT/.lock for HOLD_MS; its pid. */
static pid_t holder(const char *root, int hold_ms)
{
	char *path = g_build_filename(root, ".lock", NULL);
	int ready[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open(path, O_RDWR | O_CREAT, 0644);

		if (fd < 0 || flock(fd, LOCK_EX) != 0)
			_exit(1);
		if (write(ready[1], "x", 1) != 1)
			_exit(1);
		usleep(hold_ms * 1000);
		_exit(0);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &c, 1), 1);
	close(ready[0]);
	g_free(path);
	return pid;
}

static void test_waits_for_holder(void **s)
{
	struct lab_tree t;
	int status;
	pid_t pid;
	double t0;

	(void)s;
	lab_tree_init(&t, tmp, tmp, "a test tree");
	pid = holder(tmp, 700);
	t0 = now();
	assert_int_equal(lab_tree_lock(&t), 0);
	assert_true(now() - t0 >= 0.5); /* it waited, it did not fail */
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	lab_tree_free(&t);
	/* free again: no holder, no wait */
	lab_tree_init(&t, tmp, tmp, "a test tree");
	t0 = now();
	assert_int_equal(lab_tree_lock(&t), 0);
	assert_true(now() - t0 < 0.5);
	lab_tree_free(&t);
}

static void test_interrupt_ends_wait(void **s)
{
	struct lab_tree t;
	pid_t pid;

	(void)s;
	lab_tree_init(&t, tmp, tmp, "a test tree");
	pid = holder(tmp, 3000);
	lab_interrupted = 1;
	assert_int_equal(lab_tree_lock(&t), -1);
	lab_interrupted = 0;
	lab_tree_free(&t);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

static int setup(void **s)
{
	(void)s;
	tmp = g_dir_make_tmp("lab-tree-lock-XXXXXX", NULL);
	return tmp ? 0 : -1;
}

static int teardown(void **s)
{
	(void)s;
	lab_rm_rf(tmp);
	g_free(tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waits_for_holder),
		cmocka_unit_test(test_interrupt_ends_wait),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
