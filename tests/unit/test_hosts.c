/* test_hosts.c - hosts.ini is read strictly: a table of bad files, each
 * with the file:line, group and key its error must name; good files give
 * the hosts with their defaults; store pool names depend on the store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/hosts.h"
#include "store/store.h"

static void test_good(void **state)
{
	char *err = NULL;
	struct lab_hosts *h = lab_hosts_parse("h.ini",
		"# two hosts\n[host a]\nuri = qemu:///system\n\n"
		"[host b-2]\nuri=qemu+ssh://root@127.0.0.1:2299/system?keyfile=/k\n"
		"store = /srv/lab\nguests = 8\nmemory = 16384\n", &err);
	struct lab_host *a, *b;

	(void)state;
	assert_null(err);
	assert_non_null(h);
	assert_int_equal(h->hosts->len, 2);
	a = lab_hosts_find(h, "a");
	b = lab_hosts_find(h, "b-2");
	assert_string_equal(a->store, LAB_STORE_DEFAULT);
	assert_int_equal(a->guests, 4);
	assert_int_equal(a->memory_mib, 8192);
	assert_string_equal(b->uri, "qemu+ssh://root@127.0.0.1:2299/system?keyfile=/k");
	assert_string_equal(b->store, "/srv/lab");
	assert_int_equal(b->guests, 8);
	assert_int_equal(b->memory_mib, 16384);
	assert_null(lab_hosts_find(h, "c"));
	lab_hosts_free(h);
}

static const struct {
	const char *text, *want;
} bad[] = {
	{ "", "h.ini:1: no [host NAME] group" },
	{ "uri = qemu:///system\n", "h.ini:1: a key=value line before the first [section]" },
	{ "[hosts a]\n", "h.ini:1: [hosts a]: unknown section (expected [host NAME])" },
	{ "[host a/b]\nuri=qemu:///system\n", "h.ini:1: [host a/b]: the name 'a/b' must have" },
	{ "[host a]\nuri=qemu:///system\n[host a]\n", "h.ini:3: [host a]: duplicate section (first at line 1)" },
	{ "[host a]\nstore=/x\n", "h.ini:1: [host a] uri: missing" },
	{ "[host a]\nuri=qemu:///system\nuri=qemu:///system\n", "h.ini:3: [host a] uri: duplicate key (first at line 2)" },
	{ "[host a]\nuri=qemu:///system\nmemroy=1\n", "h.ini:3: [host a] memroy: unknown key" },
	{ "[host a]\nuri=localhost\n", "h.ini:2: [host a] uri: 'localhost' is not a libvirt URI" },
	{ "[host a]\nuri=xen:///system\n", "h.ini:2: [host a] uri: 'xen:///system' is not a QEMU host" },
	{ "[host a]\nuri=qemu:///session\n", "h.ini:2: [host a] uri: 'qemu:///session' is a session URI" },
	{ "[host a]\nuri=qemu:///system\nstore=relative\n", "h.ini:3: [host a] store: 'relative'" },
	{ "[host a]\nuri=qemu:///system\nstore=/a/../etc\n", "h.ini:3: [host a] store: '/a/../etc'" },
	{ "[host a]\nuri=qemu:///system\nstore=/a'b\n", "h.ini:3: [host a] store:" },
	{ "[host a]\nuri=qemu:///system\nstore=/srv/lab/\n", "h.ini:3: [host a] store: '/srv/lab/' a directory in one spelling" },
	{ "[host a]\nuri=qemu:///system\nstore=/\n", "h.ini:3: [host a] store: '/' a directory in one spelling" },
	{ "[host a]\nuri=qemu:///system\nstore=/srv//lab\n", "h.ini:3: [host a] store: '/srv//lab'" },
	/* found by fuzz_hosts: a control byte in a store path */
	{ "[host a]\nuri=qemu:///system\nstore=/v\x06" "a/..k\n", "h.ini:3: [host a] store:" },
	{ "[host a]\nuri=qemu:///system\nguests=0\n", "h.ini:3: [host a] guests: '0'" },
	{ "[host a]\nuri=qemu:///system\nguests=4 guests\n", "h.ini:3: [host a] guests: '4 guests'" },
	{ "[host a]\nuri=qemu:///system\nmemory=512 GiB\n", "h.ini:3: [host a] memory: '512 GiB'" },
	{ "[host a]\nuri=qemu:///system\nfoo\n", "h.ini:3: 'foo' is not a [section], key=value or # comment" },
	{ "[host a]\nuri=qemu:///sys\x01tem\n", "h.ini:2: [host a] uri: 'qemu:///sys\\001tem' is not a libvirt URI" },
	{ "[host a]\nuri=qemu:///system\xe9\n", "h.ini:2: [host a] uri: not valid UTF-8" },
	/* a URI that would run a program as root when lab reads the file */
	{ "[host a]\nuri=qemu+ext:///system?command=/tmp/x.sh\n", "h.ini:2: [host a] uri: 'qemu+ext:///system?command=/tmp/x.sh' uses a transport that runs a program" },
	{ "[host a]\nuri=qemu+ssh://h/system?command=/tmp/x.sh\n", "h.ini:2: [host a] uri: 'qemu+ssh://h/system?command=/tmp/x.sh' names a program or socket" },
	{ "[host a]\nuri=qemu+ssh://h/system?keyfile=/k&netcat=/tmp/nc\n", "h.ini:2: [host a] uri:" },
	{ "[host a]\nuri=qemu+unix:///system?socket=/tmp/s\n", "h.ini:2: [host a] uri:" },
	{ "[host a]\nuri=qemu+ssh://h/system?%63ommand=/x\n", "h.ini:2: [host a] uri: 'qemu+ssh://h/system?%63ommand=/x' has an escaped parameter name" },
	{ "[host a]\nuri=qemu+ssh://h/system\nallow_programs=maybe\n", "h.ini:3: [host a] allow_programs: 'maybe' is neither true nor false" },
};

static void test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *err = NULL;
		struct lab_hosts *h = lab_hosts_parse("h.ini", bad[i].text, &err);

		if (h || !err || !g_str_has_prefix(err, bad[i].want))
			fail_msg("case %zu: want '%s', got '%s'", i, bad[i].want,
				 err ? err : "(no error)");
		g_free(err);
	}
}

/* allow_programs = true lets a URI run its program: said, never silent */
static void test_allow_programs(void **state)
{
	char *err = NULL;
	struct lab_hosts *h = lab_hosts_parse("h.ini",
		"[host a]\nuri=qemu+ssh://h/system?command=/opt/ssh\nallow_programs = true\n",
		&err);

	(void)state;
	assert_non_null(h);
	assert_true(lab_hosts_find(h, "a")->allow_programs);
	lab_hosts_free(h);
	assert_null(lab_uri_unsafe("qemu+libssh2://u@h:22/system?keyfile=/k&known_hosts=/kh", false));
	assert_null(lab_uri_unsafe("qemu:///system", false));
	assert_non_null(lab_uri_unsafe("xen:///system", true));
}

/* hosts.ini is read as code: another user's, or one others may write, is
 * refused before it is read. */
static void test_file_owner_and_mode(void **state)
{
	/* a directory of its own: LAB_HOME need not exist yet (check.sh
	 * gives an empty one, as on a fresh machine) */
	char *dir = g_dir_make_tmp("lab-hosts-XXXXXX", NULL);
	char *path = g_build_filename(dir, "hosts-mode.ini", NULL);

	(void)state;
	assert_non_null(dir);
	assert_true(g_file_set_contents(path, "[host a]\nuri = qemu:///system\n", -1, NULL));
	chmod(path, 0644);
	assert_null(lab_hosts_file_unsafe(path));
	chmod(path, 0666);
	assert_non_null(lab_hosts_file_unsafe(path));
	assert_null(lab_hosts_open(path));
	chmod(path, 0620);
	assert_non_null(strstr(lab_hosts_file_unsafe(path), "writable by others"));
	if (geteuid() == 0) { /* another owner */
		chmod(path, 0644);
		assert_int_equal(chown(path, 65534, 65534), 0);
		assert_non_null(strstr(lab_hosts_file_unsafe(path), "not owned"));
	}
	unlink(path);
	rmdir(dir);
	g_free(path);
	g_free(dir);
}

static void test_pool_names(void **state)
{
	char *a = lab_store_pool_name("/var/lib/lab-store");
	char *b = lab_store_pool_name("/srv/other");
	char *c = lab_store_name("kernel", "/h/kernels/0123abcd4567/bzImage");
	char *d = lab_store_name("tests", "/h/tests/00890de7287f310a.iso");
	char *e = lab_store_name("kernel", "/h/images/241fc1354b13dd40/debian/vmlinuz");
	char *f = lab_store_name("kernel", "/h/images/0000000000000000/debian/vmlinuz");

	(void)state;
	assert_true(g_str_has_prefix(a, "lab-store-"));
	assert_int_equal(strlen(a), strlen("lab-store-") + 8);
	assert_string_not_equal(a, b);
	assert_string_equal(c, "kernel-0123abcd4567-bzImage");
	assert_string_equal(d, "tests-00890de7287f310a.iso");
	/* Debian's kernel of another image is another volume */
	assert_true(g_str_has_prefix(e, "kernel-"));
	assert_true(g_str_has_suffix(e, "-vmlinuz"));
	assert_string_not_equal(e, f);
	g_free(d);
	g_free(e);
	g_free(f);
	g_free(a);
	g_free(b);
	g_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_allow_programs),
		cmocka_unit_test(test_file_owner_and_mode),
		cmocka_unit_test(test_pool_names),
	};

	return cmocka_run_group_tests_name("hosts", tests, NULL, NULL);
}
