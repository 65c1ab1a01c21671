/* test_saved.c - the saved ready state's key changes with everything that
 * shaped a ready guest (kernel, image, topology, NoCloud seed, libvirt
 * and QEMU versions, format) and with nothing else (a changed test
 * program, another instance); a damaged saved state is refused with its reason (its
 * manifest against the store's volumes); the cap evicts the least recently
 * used state, never one in use or being saved. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	const char *user_data;  /* the rendered user-data (guests/seed/) */
	const char *networks;
	bool same;              /* the key must stay the same */
};

static const struct variant base = {
	"base", "/h/kernels/k1/bzImage", "/h/images/i1/base.qcow2",
	"libvirt 9000000 qemu 7002000 type qemu", 768, "console=ttyS0",
	"#!/bin/sh\nip addr add a\n", "lab0;", true,
};

static char *key_of(const struct variant *v)
{
	struct lab_domain_spec s = {
		.name = "lab-a", .type = "qemu", .memory_mib = v->memory,
		.vcpus = 1, .kernel = v->kernel, .cmdline = v->cmdline,
		.root_disk = "/h/store/lab-a-root.qcow2",
		.seed_iso = "/h/store/seed-0123456789abcdef.iso",
		/* the instance's own tests disk: the same path whatever the
		 * tests are */
		.tests_iso = "/h/store/lab-tests.iso",
		.network = "lab-lab0", .mac = "52:54:00:00:00:01",
		.console_log = "/h/store/lab-a-console.log",
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
		{ "user-data template", base.kernel, base.image, base.versions,
		  768, base.cmdline, "#!/bin/sh\nip addr add b\n", base.networks,
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

/* Every instance of a topology on a host shares one saved state: the
 * key's XML names the domain, network and the instance's own volumes by
 * their role; what a restore must match (the MAC) still changes it. */
static char *key_for(const char *inst, const char *mac)
{
	char *root = g_strdup_printf("/h/store/%s-a-root.qcow2", inst);
	char *disk = g_strdup_printf("/h/store/%s-a-disk0.qcow2", inst);
	char *log = g_strdup_printf("/h/store/%s-a-console.log", inst);
	char *tests = g_strdup_printf("/h/store/%s-tests.iso", inst);
	char *name = g_strdup_printf("%s-a", inst), *net = g_strdup_printf("%s-lab0", inst);
	const char *disks[] = { disk, NULL };
	struct lab_domain_spec s = {
		.name = name, .type = "qemu", .memory_mib = 768, .vcpus = 1,
		.kernel = "k", .cmdline = "c", .root_disk = root, .seed_iso = "s",
		.tests_iso = tests, .scratch_disks = disks, .network = net,
		.mac = mac, .console_log = log, .owner = "<lab:owner/>",
	};
	char *xml = lab_saved_key_xml(&s, "a", "lab0"), *key;
	struct lab_saved_input in = { "a", xml, "u", "m" };

	assert_null(strstr(xml, name));
	assert_null(strstr(xml, net));
	key = lab_saved_key("v", "i", "n", &in, 1);
	g_free(xml);
	g_free(root);
	g_free(disk);
	g_free(log);
	g_free(tests);
	g_free(name);
	g_free(net);
	return key;
}

static void test_key_instance(void **st)
{
	char *k1 = key_for("lab", "52:54:00:00:00:01");
	char *k2 = key_for("ci-b", "52:54:00:00:00:01");
	char *k3 = key_for("lab", "52:54:00:00:00:02");

	(void)st;
	assert_string_equal(k1, k2);
	assert_string_not_equal(k1, k3);
	g_free(k1);
	g_free(k2);
	g_free(k3);
}

/* A fake store: "\nNAME=SIZE,MTIME,HEADER" per volume. */
static bool fake_facts(void *arg, const char *name, struct lab_saved_facts *f)
{
	char *needle = g_strdup_printf("\n%s=", name);
	const char *p = strstr(arg, needle);
	char **parts, *line;

	memset(f, 0, sizeof(*f));
	f->size = -1;
	g_free(needle);
	if (!p)
		return false;
	p = strchr(p, '=') + 1;
	line = g_strndup(p, strcspn(p, "\n"));
	parts = g_strsplit(line, ",", 3);
	g_free(line);
	f->size = g_ascii_strtoll(parts[0], NULL, 10);
	if (parts[1])
		g_strlcpy(f->mtime, parts[1], sizeof(f->mtime));
	if (parts[1] && parts[2])
		g_strlcpy(f->header, parts[2], sizeof(f->header));
	g_strfreev(parts);
	return true;
}

static void expect_why(const char *manifest, char **names, const char *vols,
		       const char *want)
{
	char *why = lab_saved_check_manifest(manifest, "0123456789abcdef", names,
					     fake_facts, (void *)vols);

	if (!want) {
		if (why)
			fail_msg("refused: %s", why);
		return;
	}
	if (!why || !strstr(why, want))
		fail_msg("want '%s', got '%s'", want, why ? why : "(accepted)");
	g_free(why);
}

/* A saved state is restored only when its manifest describes exactly the
 * volumes there: same size, unwritten since (mtime), the same domain in
 * each state file (its libvirt header), every frozen disk. */
static void test_check(void **st)
{
	const char *good = "[saved]\nformat=" LAB_SAVED_FORMAT "\n"
			   "[guest a]\nstate-size=5\nstate-mtime=100.5\nstate-header=h1\ndisks=1\n";
	const char *vols = "\nsaved-0123456789abcdef-a.state=5,100.5,h1"
			   "\nsaved-0123456789abcdef-a-root.qcow2=1"
			   "\nsaved-0123456789abcdef-a-disk0.qcow2=1\n";
	char *names[] = { "a", NULL }, *b[] = { "b", NULL };

	(void)st;
	expect_why(good, names, vols, NULL);
	expect_why(good, names, "\nsaved-0123456789abcdef-a.state=3,100.5,h1"
		   "\nsaved-0123456789abcdef-a-root.qcow2=1\nsaved-0123456789abcdef-a-disk0.qcow2=1\n",
		   "truncated or replaced");
	/* the same size, written again: a replaced file is not trusted */
	expect_why(good, names, "\nsaved-0123456789abcdef-a.state=5,200.1,h1"
		   "\nsaved-0123456789abcdef-a-root.qcow2=1\nsaved-0123456789abcdef-a-disk0.qcow2=1\n",
		   "written again since the save");
	expect_why(good, names, "\nsaved-0123456789abcdef-a.state=5,100.5,h2"
		   "\nsaved-0123456789abcdef-a-root.qcow2=1\nsaved-0123456789abcdef-a-disk0.qcow2=1\n",
		   "holds another domain");
	expect_why(good, names, "\nsaved-0123456789abcdef-a.state=5,100.5,h1"
		   "\nsaved-0123456789abcdef-a-root.qcow2=1\n", "a-disk0.qcow2 is missing");
	expect_why(good, b, vols, "not in its manifest");
	expect_why("[saved]\nformat=lab-saved-0\n", names, vols, "format");
	expect_why("garbage\x01", names, vols, "not readable");
}

static struct lab_saved_entry *entry(const char *key, unsigned long long mib,
				     gint64 used, bool complete, bool in_use)
{
	struct lab_saved_entry *e = g_new0(struct lab_saved_entry, 1);

	e->key = g_strdup(key);
	e->bytes = mib << 20;
	e->used = used;
	e->complete = complete;
	e->in_use = in_use;
	return e;
}

static void entry_free(gpointer p)
{
	g_free(((struct lab_saved_entry *)p)->key);
	g_free(p);
}

/* The cap evicts least recently used first, never the state just made,
 * one in use or one still being saved, and stops once the rest fits. */
static void test_cap(void **st)
{
	GPtrArray *all = g_ptr_array_new_with_free_func(entry_free);
	GArray *out;

	(void)st;
	g_ptr_array_add(all, entry("old0000000000000", 600, 100, true, true));
	g_ptr_array_add(all, entry("mid0000000000000", 600, 200, true, false));
	g_ptr_array_add(all, entry("new0000000000000", 600, 300, true, false));
	g_ptr_array_add(all, entry("half000000000000", 600, 50, false, false));
	g_ptr_array_add(all, entry("cur0000000000000", 600, 400, true, false));
	out = lab_saved_over_cap(all, 1300, "cur0000000000000");
	/* 3000 MiB over 1300: mid, then new; old is in use, half incomplete */
	assert_int_equal(out->len, 2);
	assert_int_equal(g_array_index(out, guint, 0), 1);
	assert_int_equal(g_array_index(out, guint, 1), 2);
	g_array_free(out, TRUE);
	out = lab_saved_over_cap(all, 100000, NULL);
	assert_int_equal(out->len, 0);
	g_array_free(out, TRUE);
	g_ptr_array_free(all, TRUE);
	setenv("LAB_SAVED_MAX_MB", "0", 1);
	assert_int_equal(lab_saved_cap_mib(), 0);
	setenv("LAB_SAVED_MAX_MB", "lots", 1);
	assert_int_equal(lab_saved_cap_mib(), LAB_SAVED_MAX_MB_DEFAULT);
	unsetenv("LAB_SAVED_MAX_MB");
}

static void test_names(void **st)
{
	char *a = lab_saved_name("0123456789abcdef0000", "nfs-server", "-root.qcow2");
	char *b = lab_saved_name("0123456789abcdef", NULL, ".ok");
	char *c = lab_saved_use_text("0123456789abcdef");

	(void)st;
	assert_string_equal(a, "saved-0123456789abcdef-nfs-server-root.qcow2");
	assert_string_equal(b, "saved-0123456789abcdef.ok");
	assert_string_equal(c, "saved=0123456789abcdef\n");
	g_free(a);
	g_free(b);
	g_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key_table),
		cmocka_unit_test(test_key_instance),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_cap),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests_name("saved", tests, NULL, NULL);
}
