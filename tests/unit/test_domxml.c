/* test_domxml.c - generated libvirt XML: valid against libvirt's schemas
 * (virt-xml-validate), isolated network, escaped values, agent channel. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "virt/agent.h"
#include "virt/domxml.h"
#include "util/util.h"

static void validate(const char *xml, const char *schema)
{
	char path[] = "/tmp/lab-xml-XXXXXX";
	int fd = mkstemp(path);
	char *argv[] = { "virt-xml-validate", path, (char *)schema, NULL };
	char *out = NULL;
	int rc;

	assert_true(fd >= 0);
	assert_int_equal(write(fd, xml, strlen(xml)), (ssize_t)strlen(xml));
	close(fd);
	rc = lab_run_capture(argv, NULL, &out, 60);
	unlink(path);
	if (rc != 0)
		fail_msg("virt-xml-validate %s failed (%d):\n%s\n%s", schema, rc,
			 out, xml);
	g_free(out);
}

static void test_network_isolated(void **s)
{
	char *br = lab_bridge_for("lab-lab0");
	char *xml = lab_network_xml("lab-lab0", br, "<lab:owner xmlns:lab='http://lab.invalid/xmlns/owner/1' instance='lab'/>");

	(void)s;
	assert_true(strlen(br) <= 15); /* IFNAMSIZ - 1 */
	assert_non_null(strstr(xml, "<name>lab-lab0</name>"));
	/* isolation: no forward (no NAT/routing), no ip (no host address) */
	assert_null(strstr(xml, "<forward"));
	assert_null(strstr(xml, "<ip"));
	validate(xml, "network");
	g_free(xml);
	g_free(br);
}

static struct lab_domain_spec spec(void)
{
	static const char *const scratch[] = { "/tmp/x/disk0.qcow2", NULL };
	struct lab_domain_spec s = {
		.name = "lab-nfs-server", .type = "qemu", .memory_mib = 768,
		.vcpus = 1, .kernel = "/var/lib/lab/kernels/k/bzImage",
		.cmdline = "console=ttyS0 dyndbg=\"func x +p\" a<b&c",
		.root_disk = "/tmp/x/root.qcow2", .seed_iso = "/tmp/x/seed.iso",
		.tests_iso = "/tmp/x/tests.iso", .scratch_disks = scratch,
		.network = "lab-lab0", .mac = "52:54:00:aa:bb:cc",
		.console_log = "/tmp/x/console.log", .intel_hda = 1,
	};
	return s;
}

static void test_domain_valid(void **st)
{
	struct lab_domain_spec s = spec();
	char *xml = lab_domain_xml(&s);

	(void)st;
	validate(xml, "domain");
	assert_non_null(strstr(xml, "<domain type='qemu'>"));
	assert_non_null(strstr(xml, "org.qemu.guest_agent.0"));
	assert_non_null(strstr(xml, "<log file='/tmp/x/console.log'"));
	/* disks in the order the guest's roles rely on */
	assert_true(strstr(xml, "root.qcow2") < strstr(xml, "seed.iso"));
	assert_true(strstr(xml, "seed.iso") < strstr(xml, "disk0.qcow2"));
	assert_non_null(strstr(xml, "<target dev='vdc'"));
	assert_non_null(strstr(xml, "<target dev='vdd'"));
	/* values are escaped, not pasted */
	assert_non_null(strstr(xml, "a&lt;b&amp;c"));
	assert_non_null(strstr(xml, "<sound model='ich6'>"));
	g_free(xml);
}

static void test_domain_minimal(void **st)
{
	struct lab_domain_spec s = spec();
	char *xml;

	(void)st;
	s.type = "kvm";
	s.tests_iso = NULL;
	s.scratch_disks = NULL;
	s.intel_hda = 0;
	xml = lab_domain_xml(&s);
	validate(xml, "domain");
	assert_null(strstr(xml, "vdc"));
	assert_null(strstr(xml, "<sound"));
	assert_non_null(strstr(xml, "<domain type='kvm'>"));
	g_free(xml);
}

/* Debian's own kernel boots with its initrd; the lab's kernels without.
 * The owner tag sits in <metadata>. Both valid for libvirt's schema. */
static void test_domain_initrd_and_owner(void **st)
{
	struct lab_domain_spec s = spec();
	char *xml;

	(void)st;
	s.kernel = "/var/lib/lab/images/i/debian/vmlinuz";
	s.initrd = "/var/lib/lab/images/i/debian/initrd.img";
	s.owner = "<lab:owner xmlns:lab='http://lab.invalid/xmlns/owner/1' instance='lab' home='/h' created='1'/>";
	xml = lab_domain_xml(&s);
	validate(xml, "domain");
	assert_non_null(strstr(xml, "<initrd>/var/lib/lab/images/i/debian/initrd.img</initrd>"));
	assert_true(strstr(xml, "<kernel>") < strstr(xml, "<initrd>"));
	assert_true(strstr(xml, "<initrd>") < strstr(xml, "<cmdline>"));
	assert_non_null(strstr(xml, "<metadata>"));
	g_free(xml);
	s.initrd = NULL;
	xml = lab_domain_xml(&s);
	assert_null(strstr(xml, "<initrd>"));
	g_free(xml);
}

static void test_mac_deterministic(void **st)
{
	char *a = lab_mac_for("lab-smoke"), *b = lab_mac_for("lab-smoke");
	char *c = lab_mac_for("lab-tty");

	(void)st;
	assert_string_equal(a, b);
	assert_string_not_equal(a, c);
	assert_true(g_str_has_prefix(a, "52:54:00:"));
	assert_int_equal(strlen(a), 17);
	g_free(a);
	g_free(b);
	g_free(c);
}

static void test_cmdline(void **st)
{
	char *c = lab_guest_cmdline("dyndbg=\"func f +p\"");

	(void)st;
	assert_non_null(strstr(c, "console=ttyS0"));
	assert_non_null(strstr(c, "root=/dev/vda"));
	assert_true(g_str_has_suffix(c, " dyndbg=\"func f +p\""));
	g_free(c);
}

static void test_agent_request(void **st)
{
	const char *argv[] = { "/bin/sh", "-c", "echo \"hi\"", NULL };
	char *req = lab_agent_exec_request(argv);

	(void)st;
	assert_string_equal(req,
		"{\"execute\":\"guest-exec\",\"arguments\":{\"path\":\"\\/bin\\/sh\","
		"\"arg\":[\"-c\",\"echo \\\"hi\\\"\"],\"capture-output\":true}}");
	g_free(req);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_network_isolated),
		cmocka_unit_test(test_domain_valid),
		cmocka_unit_test(test_domain_minimal),
		cmocka_unit_test(test_domain_initrd_and_owner),
		cmocka_unit_test(test_mac_deterministic),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_agent_request),
	};

	return cmocka_run_group_tests_name("domxml", tests, NULL, NULL);
}
