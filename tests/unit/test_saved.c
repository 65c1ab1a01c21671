/* test_saved.c - the saved ready state's key changes with everything that
 * shaped a ready guest (kernel, image, topology, cloud-init seed, libvirt
 * and QEMU versions, format) and with nothing else (a changed test
 * program); a damaged saved state is refused with its reason; the cache
 * cap evicts the least recently used state, never one in use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include "virt/domxml.h"
#include "store/saved.h"
#include "util/util.h"

struct variant {
	const char *what;
	const char *kernel;     /* bzImage path: holds the kernel's key */
	const char *image;      /* base image path: holds the image's key */
	const char *versions;
	int memory;
	const char *cmdline;
	const char *user_data;  /* the rendered cloud-init template */
	const char *networks;
	bool same;              /* the key must stay the same */
};

static const struct variant base = {
	"base", "/h/kernels/k1/bzImage", "/h/images/i1/base.qcow2",
	"libvirt 9000000 qemu 7002000 type qemu", 768, "console=ttyS0",
	"#cloud-config\nhostname: a\n", "lab0;", true,
};

static char *key_of(const struct variant *v)
{
	struct lab_domain_spec s = {
		.name = "lab-a", .type = "qemu", .memory_mib = v->memory,
		.vcpus = 1, .kernel = v->kernel, .cmdline = v->cmdline,
		.root_disk = "/h/instances/lab/a-root.qcow2",
		.seed_iso = "/h/instances/lab/a-seed.iso",
		/* the instance's link to the tests disk: the same path
		 * whatever the tests are */
		.tests_iso = "/h/instances/lab/tests.iso",
		.network = "lab-lab0", .mac = "52:54:00:00:00:01",
		.console_log = "/h/instances/lab/consoles/a.log",
	};
	char *xml = lab_domain_xml(&s);
	struct lab_saved_input in = { "a", xml, v->user_data,
				      "instance-id: lab-a\n" };
	char *key = lab_saved_key(v->versions, v->image, v->networks, &in, 1);

	g_free(xml);
	return key;
}

static void test_key_table(void **st)
{
	const struct variant cases[] = {
		{ "same inputs again (a changed test program changes none)",
		  base.kernel, base.image, base.versions, 768, base.cmdline,
		  base.user_data, base.networks, true },
		{ "another kernel", "/h/kernels/k2/bzImage", base.image,
		  base.versions, 768, base.cmdline, base.user_data, base.networks, false },
		{ "another image recipe", base.kernel, "/h/images/i2/base.qcow2",
		  base.versions, 768, base.cmdline, base.user_data, base.networks, false },
		{ "another QEMU", base.kernel, base.image,
		  "libvirt 9000000 qemu 8000000 type qemu", 768, base.cmdline,
		  base.user_data, base.networks, false },
		{ "topology: memory", base.kernel, base.image, base.versions, 1024,
		  base.cmdline, base.user_data, base.networks, false },
		{ "topology: command line", base.kernel, base.image, base.versions,
		  768, "console=ttyS0 x=1", base.user_data, base.networks, false },
		{ "topology: networks", base.kernel, base.image, base.versions,
		  768, base.cmdline, base.user_data, "lab0;lab1;", false },
		{ "cloud-init template", base.kernel, base.image, base.versions,
		  768, base.cmdline, "#cloud-config\nhostname: b\n", base.networks,
		  false },
	};
	char *k0 = key_of(&base);
	size_t i;

	(void)st;
	assert_int_equal(strlen(k0), 16);
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *k = key_of(&cases[i]);

		if ((strcmp(k, k0) == 0) != cases[i].same)
			fail_msg("%s: key %s, base %s, want %s", cases[i].what, k, k0,
				 cases[i].same ? "equal" : "different");
		g_free(k);
	}
	g_free(k0);
}

static void test_key_instance(void **st)
{
	/* libvirt restores a domain only under its saved name: another
	 * instance (another domain name) has another key */
	struct lab_domain_spec s = {
		.name = "lab-a", .type = "qemu", .memory_mib = 768, .vcpus = 1,
		.kernel = "k", .cmdline = "c", .root_disk = "r", .seed_iso = "s",
		.network = "n", .mac = "52:54:00:00:00:01", .console_log = "l",
	};
	char *x1 = lab_domain_xml(&s), *x2, *k1, *k2;
	struct lab_saved_input in = { "a", x1, "u", "m" };

	(void)st;
	k1 = lab_saved_key("v", "i", "n", &in, 1);
	s.name = "ci-a";
	x2 = lab_domain_xml(&s);
	in.domain_xml = x2;
	k2 = lab_saved_key("v", "i", "n", &in, 1);
	assert_string_not_equal(k1, k2);
	g_free(x1);
	g_free(x2);
	g_free(k1);
	g_free(k2);
}

static void put(const char *dir, const char *name, const char *data)
{
	char *p = g_build_filename(dir, name, NULL);

	assert_int_equal(lab_write_file(p, data, -1), 0);
	g_free(p);
}

static char *fake_saved(const char *root, const char *key, const char *state)
{
	char *dir = g_build_filename(root, "saved", key, NULL);

	lab_mkdir_p(dir);
	put(dir, "manifest.ini", "[saved]\nformat=" LAB_SAVED_FORMAT "\n"
	      "[guest a]\nstate-size=5\nscratch=1\n");
	put(dir, "a.state", state);
	put(dir, "a-root.qcow2", "q");
	put(dir, "a-seed.iso", "s");
	put(dir, "a-disk0.qcow2", "d");
	return dir;
}

static void test_check(void **st)
{
	const char *home = getenv("LAB_HOME");
	char *names[] = { "a", NULL };
	char *dir = fake_saved(home, "k1", "12345"), *why, *p;
	bool absent;

	(void)st;
	assert_null(lab_saved_check(dir, names, &absent));
	/* truncated state file */
	put(dir, "a.state", "123");
	why = lab_saved_check(dir, names, &absent);
	assert_non_null(why);
	assert_false(absent);
	assert_non_null(strstr(why, "truncated"));
	g_free(why);
	/* a frozen disk missing */
	put(dir, "a.state", "12345");
	p = g_build_filename(dir, "a-disk0.qcow2", NULL);
	unlink(p);
	why = lab_saved_check(dir, names, &absent);
	assert_non_null(strstr(why, "a-disk0.qcow2 is missing"));
	g_free(why);
	g_free(p);
	/* a guest the manifest does not know */
	put(dir, "a-disk0.qcow2", "d");
	names[0] = "b";
	why = lab_saved_check(dir, names, &absent);
	assert_non_null(strstr(why, "not in its manifest"));
	g_free(why);
	/* another format */
	put(dir, "manifest.ini", "[saved]\nformat=lab-saved-0\n");
	names[0] = "a";
	why = lab_saved_check(dir, names, &absent);
	assert_non_null(strstr(why, "format"));
	g_free(why);
	/* nothing there */
	lab_rm_rf(dir);
	why = lab_saved_check(dir, names, &absent);
	assert_true(absent);
	g_free(why);
	g_free(dir);
}

static void age(const char *dir, long secs_ago)
{
	char *p = g_build_filename(dir, "last-used", NULL);
	struct utimbuf t = { time(NULL) - secs_ago, time(NULL) - secs_ago };

	put(dir, "last-used", "");
	utime(p, &t);
	g_free(p);
}

static void test_cap(void **st)
{
	const char *home = getenv("LAB_HOME");
	char *big = g_strnfill(600 * 1024, 'x');
	char *old = fake_saved(home, "old", big);
	char *mid = fake_saved(home, "mid", big);
	char *cur = fake_saved(home, "cur", big);
	char *inst = g_build_filename(home, "instances", "other", NULL);
	char *state;

	(void)st;
	age(old, 300);
	age(mid, 200);
	age(cur, 100);
	/* another instance uses the oldest one: it must survive */
	lab_mkdir_p(inst);
	state = g_strdup_printf("[instance]\nsaved-dir=%s\n", old);
	put(inst, "state.ini", state);
	setenv("LAB_SAVED_MAX_MB", "1", 1);
	lab_saved_enforce_cap(cur);
	assert_true(lab_exists(old));  /* in use */
	assert_false(lab_exists(mid)); /* least recently used, not in use */
	assert_true(lab_exists(cur));  /* the one just made */
	setenv("LAB_SAVED_MAX_MB", "0", 1);
	assert_int_equal(lab_saved_cap_mib(), 0);
	setenv("LAB_SAVED_MAX_MB", "lots", 1);
	assert_int_equal(lab_saved_cap_mib(), LAB_SAVED_MAX_MB_DEFAULT);
	unsetenv("LAB_SAVED_MAX_MB");
	lab_rm_rf(old);
	lab_rm_rf(cur);
	lab_rm_rf(inst);
	g_free(big);
	g_free(old);
	g_free(mid);
	g_free(cur);
	g_free(inst);
	g_free(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_key_instance),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_cap),
	};

	return cmocka_run_group_tests_name("saved", tests, NULL, NULL);
}
