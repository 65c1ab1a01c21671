/* test_topology.c - topology parsing: the shipped files load, and every
 * kind of bad file is refused with a message naming file, line and key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/topology.h"
#include "util/util.h"

#define HOST_MEM 24000
#define HOST_CPUS 4

static struct lab_topology *load(const char *rel, char **err)
{
	char *path = g_build_filename(lab_srcdir(), rel, NULL);
	struct lab_topology *t = lab_topology_load_host(path, HOST_MEM, HOST_CPUS,
							err);

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

/* Each bad file and pieces of the message it must produce: file:line,
 * [group] key, why. Every corpus file is checked by test_corpus.c; these
 * are the rules' representatives, each message checked piece by piece. */
static const struct {
	const char *file;
	const char *needle[3];
} bad[] = {
	{ "unknown-role.ini", { "unknown-role.ini:7:", "[guest a] role", "'webserver' is not a known role" } },
	{ "duplicate-guest.ini", { "duplicate-guest.ini:11:", "[guest a]: duplicate section", "first at line 6" } },
	{ "duplicate-address.ini", { ":14:", "[guest b] address", "used by guest a" } },
	{ "private-address.ini", { ":9:", "[guest a] address", "link-local" } },
	{ "too-much-memory.ini", { "too-much-memory.ini:1:", "32768 MiB", "host has 24000 MiB" } },
	{ "bad-integer.ini", { ":8:", "[guest a] vcpus", "not a plain decimal number" } },
	{ "malformed.ini", { "malformed.ini:3:", "this line is not a key", NULL } },
	{ "missing-network.ini", { ":6:", "[guest a] network", "no [network lab9]" } },
	{ "unknown-section.ini", { ":6:", "[gueststuff a]", "unknown section" } },
	{ "bad-kernel.ini", { ":8:", "[guest a] kernel", "'mainline' is not baseline, patched or debian" } },
	/* [topology] kernel= is named at its own line, not the guest's */
	{ "topology-kernel.ini", { "topology-kernel.ini:3:", "[topology] kernel", "'mainline'" } },
	{ "unknown-key.ini", { "unknown-key.ini:8:", "[guest a] memroy", "unknown key" } },
	{ "duplicate-key.ini", { "duplicate-key.ini:9:", "[guest a] memory", "first at line 8" } },
	{ "utf8-kernel.ini", { "utf8-kernel.ini:8:", "[guest a] kernel", "not valid UTF-8" } },
	{ "memory-unit-gib.ini", { ":8:", "[guest a] memory", "'512 GiB' is not a plain decimal number of MiB" } },
	{ "addr-ipv6-duplicate.ini", { ":14:", "[guest b] address", "fd00::1 is used by guest a" } },
	{ "addr-other-prefix.ini", { ":14:", "[guest b] address", "not in 169.254.1.0/24" } },
	{ "vcpus-total.ini", { "vcpus-total.ini:1:", "[topology]", "128 vCPUs" } },
	{ "cmdline-newline.ini", { ":8:", "[guest a] cmdline", "control character" } },
	{ "nul-byte.ini", { "nul-byte.ini:7:", "[guest a]", "NUL" } },
};

static void test_bad_files(void **state)
{
	size_t i, j;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *rel = g_build_filename("tests/corpus/topologies", bad[i].file, NULL);
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

/* The edges of the rules load, and read as written. */
static void test_edges_load(void **state)
{
	char *err = NULL;
	struct lab_topology *t = load("tests/corpus/topologies/ok-escapes.ini", &err);
	struct lab_guest *g;
	int i;

	(void)state;
	assert_non_null(t);
	g = lab_topology_guest(t, "a");
	assert_string_equal(g->cmdline, "a b dyndbg=\"x +p\""); /* \s is a space */
	lab_topology_free(t);
	t = load("tests/corpus/topologies/ok-max-disks.ini", &err);
	assert_non_null(t);
	g = lab_topology_guest(t, "a");
	for (i = 0; i < 7; i++)
		assert_int_equal(g->disks_mib[i], 16);
	assert_int_equal(g->disks_mib[7], 65536);
	assert_int_equal(g->disks_mib[8], 0);
	lab_topology_free(t);
	t = load("tests/corpus/topologies/ok-ipv6.ini", &err);
	assert_non_null(t);
	assert_string_equal(lab_topology_guest(t, "b")->address, "fd00:10::2/64");
	assert_non_null(lab_topology_network(t, "lab0"));
	assert_null(lab_topology_network(t, "lab1"));
	lab_topology_free(t);
	assert_null(err);
}

/* vCPUs are checked only against a known host: at most 4 per CPU. */
static void test_host_cpus(void **state)
{
	char *path = g_build_filename(lab_srcdir(),
				      "tests/corpus/topologies/ok-max-guests.ini", NULL);
	struct lab_topology *t;
	char *err = NULL;

	(void)state;
	t = lab_topology_load(path, HOST_MEM, &err); /* no CPU check */
	assert_non_null(t);
	lab_topology_free(t);
	t = lab_topology_load_host(path, HOST_MEM, HOST_CPUS, &err); /* 16 <= 4 * 4 */
	assert_non_null(t);
	lab_topology_free(t);
	assert_null(lab_topology_load_host(path, HOST_MEM, 3, &err));
	assert_non_null(strstr(err, ":1: [topology]: the guests need 16 vCPUs"));
	g_free(err);
	g_free(path);
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
		cmocka_unit_test(test_edges_load),
		cmocka_unit_test(test_host_cpus),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_topology_path),
	};

	return cmocka_run_group_tests_name("topology", tests, NULL, NULL);
}
