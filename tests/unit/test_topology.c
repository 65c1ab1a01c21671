/* test_topology.c - topology parsing: the shipped files load, and every
 * kind of bad file is refused with a message naming file, line and key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "../../src/topology.h"
#include "../../src/util.h"

#define HOST_MEM 24000

static struct lab_topology *load(const char *rel, char **err)
{
	char *path = g_build_filename(lab_srcdir(), rel, NULL);
	struct lab_topology *t = lab_topology_load(path, HOST_MEM, err);

	g_free(path);
	return t;
}

static void test_default_loads(void **state)
{
	char *err = NULL;
	struct lab_topology *t = load("topologies/default.ini", &err);
	struct lab_guest *g;

	(void)state;
	assert_null(err);
	assert_non_null(t);
	assert_string_equal(t->name, "default");
	assert_int_equal(t->guests->len, 4);
	assert_int_equal(t->networks->len, 1);
	g = lab_topology_guest(t, "nfs-server");
	assert_non_null(g);
	assert_string_equal(g->role, "nfs-server");
	assert_int_equal(g->disks_mib[0], 1024);
	assert_int_equal(g->disks_mib[1], 0);
	g = lab_topology_guest(t, "tty");
	assert_string_equal(g->devices[0], "intel-hda");
	assert_non_null(strstr(g->cmdline, "print_constraints_debug"));
	assert_string_equal(g->kernel, "patched");
	lab_topology_set_kernel(t, "baseline");
	assert_string_equal(g->kernel, "baseline");
	lab_topology_free(t);
}

static void test_smoke_loads(void **state)
{
	char *err = NULL;
	struct lab_topology *t = load("topologies/smoke.ini", &err);

	(void)state;
	assert_non_null(t);
	assert_int_equal(t->guests->len, 1);
	assert_string_equal(((struct lab_guest *)t->guests->pdata[0])->address,
			    "169.254.20.1/16");
	lab_topology_free(t);
}

/* Each bad file and a piece of the message it must produce. */
static const struct {
	const char *file;
	const char *needle[3];
} bad[] = {
	{ "unknown-role.ini", { "unknown-role.ini:7:", "[guest a] role", "unknown role 'webserver'" } },
	{ "duplicate-guest.ini", { "duplicate-guest.ini:11:", "duplicate section [guest a]", "first at line 6" } },
	{ "duplicate-address.ini", { ":14:", "[guest b] address", "used by guest a" } },
	{ "private-address.ini", { ":9:", "[guest a] address", "link-local" } },
	{ "too-much-memory.ini", { "too-much-memory.ini", "900000 MiB", "host has 24000 MiB" } },
	{ "bad-integer.ini", { ":8:", "[guest a] vcpus", "not an integer" } },
	{ "malformed.ini", { "malformed.ini", "this line is not a key", NULL } },
	{ "missing-network.ini", { ":6:", "[guest a] network", "no [network lab9]" } },
	{ "unknown-section.ini", { ":6:", "[gueststuff a]", "unknown section" } },
	{ "bad-kernel.ini", { ":8:", "[guest a] kernel", "'mainline' is not baseline" } },
};

static void test_bad_files(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *rel = g_build_filename("tests/unit/topologies", bad[i].file, NULL);
		char *err = NULL;
		struct lab_topology *t = load(rel, &err);

		if (t || !err)
			fail_msg("%s was accepted", bad[i].file);
		for (j = 0; j < 3 && bad[i].needle[j]; j++)
			if (!strstr(err, bad[i].needle[j]))
				fail_msg("%s: message '%s' lacks '%s'", bad[i].file,
					 err, bad[i].needle[j]);
		g_free(err);
		g_free(rel);
	}
}

static void test_missing_file(void **state)
{
	char *err = NULL;

	(void)state;
	assert_null(lab_topology_load("/nonexistent/x.ini", 0, &err));
	assert_non_null(strstr(err, "/nonexistent/x.ini"));
	g_free(err);
}

static void test_topology_path(void **state)
{
	char *p = lab_topology_path("smoke");

	(void)state;
	assert_true(g_str_has_suffix(p, "topologies/smoke.ini"));
	g_free(p);
	p = lab_topology_path("./x/y.ini");
	assert_string_equal(p, "./x/y.ini");
	g_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_default_loads),
		cmocka_unit_test(test_smoke_loads),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_topology_path),
	};

	return cmocka_run_group_tests_name("topology", tests, NULL, NULL);
}
