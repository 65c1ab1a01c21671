/* test_conn.c - a libvirtd that accepts a connection and never answers
 * does not hold lab: the open gives up after LAB_CONNECT_TIMEOUT and says
 * why; a second Ctrl-C ends lab at once, whatever it waits for. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util/util.h"
#include "virt/conn.h"

/* A socket that takes connections (the kernel's backlog accepts them)
 * and never reads or writes a byte. */
static int mute_server(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);

	g_strlcpy(a.sun_path, path, sizeof(a.sun_path));
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 8), 0);
	return fd;
}

static void test_mute_libvirtd(void **s)
{
	char *dir = g_dir_make_tmp("lab-conn-XXXXXX", NULL);
	char *sock = g_build_filename(dir, "libvirt-sock", NULL);
	char *uri = g_strdup_printf("qemu+unix:///system?socket=%s", sock);
	int fd = mute_server(sock);
	double t0 = lab_now();
	virConnectPtr c;

	(void)s;
	setenv("LAB_CONNECT_TIMEOUT", "2", 1);
	c = lab_virt_open(uri);
	assert_null(c);
	assert_true(lab_now() - t0 < 10);
	assert_non_null(strstr(lab_virt_error(), "did not answer within 2 s"));
	unsetenv("LAB_CONNECT_TIMEOUT");
	close(fd);
	unlink(sock);
	rmdir(dir);
	g_free(uri);
	g_free(sock);
	g_free(dir);
}

/* In a child: the first SIGINT asks lab to unwind, the second ends it. */
static void test_second_interrupt(void **s)
{
	pid_t pid = fork();
	int status = 0;

	(void)s;
	if (pid == 0) {
		lab_install_signal_handlers();
		raise(SIGINT);
		if (!lab_interrupted)
			_exit(1);
		raise(SIGINT);
		_exit(0); /* not reached: the second interrupt exits 130 */
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 130);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mute_libvirtd),
		cmocka_unit_test(test_second_interrupt),
	};

	return cmocka_run_group_tests_name("conn", tests, NULL, NULL);
}
