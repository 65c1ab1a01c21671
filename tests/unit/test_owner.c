/* test_owner.c - ownership by identity: the owner tag lab writes into
 * libvirt <metadata> is found again and matched on instance and LAB_HOME,
 * never on a name; LAB_INSTANCE and LAB_HOME are checked. Table-driven. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/owner.h"
#include "util/util.h"

static void test_instance_names(void **s)
{
	static const struct {
		const char *name;
		bool ok;
	} cases[] = {
		{ "lab", true }, { "ci", true }, { "lab-2", true },
		{ "0abc", true }, { "abcdefghijklmnop", true },
		{ "abcdefghijklmnopq", false }, /* 17: too long */
		{ "", false }, { "-lab", false }, { "../../victim", false },
		{ "Lab", false }, { "lab_ci", false }, { "lab ci", false },
		{ "lab\xe9", false }, { "a/b", false },
	};
	size_t i;

	(void)s;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *why = lab_instance_invalid(cases[i].name);

		if ((why == NULL) != cases[i].ok)
			fail_msg("instance '%s': want %s, got %s", cases[i].name,
				 cases[i].ok ? "valid" : "invalid", why ? why : "valid");
		g_free(why);
	}
}

static void test_home_checks(void **s)
{
	char *dir = g_dir_make_tmp("lab-home-XXXXXX", NULL);
	char *ww = g_build_filename(dir, "ww", NULL);
	char *fine = g_build_filename(dir, "fine", NULL);
	char *missing = g_build_filename(dir, "not-yet", NULL);
	char *why;

	(void)s;
	mkdir(ww, 0777);
	chmod(ww, 0777);
	mkdir(fine, 0755);
	assert_null(lab_home_invalid(fine));
	assert_null(lab_home_invalid(missing)); /* created later, by lab */
	why = lab_home_invalid(ww);
	assert_non_null(why);
	assert_non_null(strstr(why, "writable by others"));
	g_free(why);
	why = lab_home_invalid("relative/dir");
	assert_non_null(strstr(why, "absolute"));
	g_free(why);
	why = lab_home_invalid("/var/lib/../../tmp/x");
	assert_non_null(strstr(why, ".."));
	g_free(why);
	/* under a directory others may write (not sticky): it could be swapped */
	g_free(lab_home_invalid(ww));
	why = g_build_filename(ww, "home", NULL);
	{
		char *under = lab_home_invalid(why);

		assert_non_null(under);
		assert_non_null(strstr(under, "others may write"));
		g_free(under);
	}
	g_free(why);
	/* a symbolic link to a fine directory: refused, the link could turn */
	why = g_build_filename(dir, "link", NULL);
	assert_int_equal(symlink(fine, why), 0);
	{
		char *link = lab_home_invalid(why);

		assert_non_null(link);
		assert_non_null(strstr(link, "symbolic link"));
		g_free(link);
	}
	unlink(why);
	g_free(why);
	/* under another user's directory */
	if (geteuid() == 0) {
		char *other = g_build_filename(dir, "other", NULL), *home, *w;

		mkdir(other, 0755);
		assert_int_equal(chown(other, 65534, 65534), 0);
		home = g_build_filename(other, "home", NULL);
		w = lab_home_invalid(home);
		assert_non_null(w);
		assert_non_null(strstr(w, "belongs to uid 65534"));
		g_free(w);
		g_free(home);
		rmdir(other);
		g_free(other);
	}
	/* g_dir_make_tmp gives mode 0700: QEMU's user could not reach below */
	why = lab_home_unreachable(fine);
	assert_non_null(why);
	assert_non_null(strstr(why, dir));
	g_free(why);
	rmdir(ww);
	rmdir(fine);
	rmdir(dir);
	g_free(ww);
	g_free(fine);
	g_free(missing);
	g_free(dir);
}

static void test_owner_roundtrip(void **s)
{
	char *xml = lab_owner_xml();
	char *domain = g_strdup_printf("<domain><name>x</name><metadata>%s</metadata></domain>", xml);
	struct lab_owner o = { 0 };

	(void)s;
	assert_true(lab_owner_parse(xml, false, &o));
	assert_string_equal(o.instance, lab_instance());
	assert_string_equal(o.home, lab_home());
	assert_true(o.created > 0);
	assert_true(lab_owner_is_ours(&o));
	lab_owner_clear(&o);
	assert_true(lab_owner_parse(domain, false, &o)); /* anywhere in a document */
	assert_true(lab_owner_is_ours(&o));
	lab_owner_clear(&o);
	g_free(xml);
	g_free(domain);
}

static void test_owner_table(void **s)
{
	static const struct {
		const char *xml;
		bool found, ours;
		bool implied;
	} cases[] = {
		/* what virDomainGetMetadata gives for our namespace */
		{ "<owner instance='@INST@' home='@HOME@' created='1'/>", true, true, true },
		/* ... but a bare <owner> in a whole document is not ours */
		{ "<domain><owner instance='@INST@' home='@HOME@'/></domain>", false, false, false },
		/* no tag: a VM somebody made by hand, even if named lab-x */
		{ "<domain><name>lab-foreign-vm</name></domain>", false, false, false },
		{ NULL, false, false, false },
		{ "", false, false, false },
		/* another instance of the same LAB_HOME */
		{ "<lab:owner xmlns:lab='" LAB_OWNER_NS "' instance='lab-ci' home='@HOME@'/>", true, false, false },
		/* same instance name, another LAB_HOME */
		{ "<lab:owner xmlns:lab='" LAB_OWNER_NS "' instance='@INST@' home='/elsewhere'/>", true, false, false },
		/* right names, wrong namespace: not ours */
		{ "<lab:owner xmlns:lab='http://example.invalid/other' instance='@INST@' home='@HOME@'/>", false, false, false },
		/* other prefix, our namespace: ours */
		{ "<x:owner xmlns:x='" LAB_OWNER_NS "' instance='@INST@' home='@HOME@' created='5'/>", true, true, false },
		/* same instance and LAB_HOME on another machine sharing a host */
		{ "<lab:owner xmlns:lab='" LAB_OWNER_NS "' instance='@INST@' home='@HOME@' machine='00000000'/>", true, false, false },
		/* ... and on this one */
		{ "<lab:owner xmlns:lab='" LAB_OWNER_NS "' instance='@INST@' home='@HOME@' machine='@MACH@'/>", true, true, false },
		/* missing attributes: found but never ours */
		{ "<lab:owner xmlns:lab='" LAB_OWNER_NS "'/>", true, false, false },
		/* broken XML after the tag still finds the tag */
		{ "<m><lab:owner xmlns:lab='" LAB_OWNER_NS "' instance='@INST@' home='@HOME@'/><<", true, true, false },
	};
	size_t i;

	(void)s;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *x = NULL;
		struct lab_owner o;
		bool found;

		if (cases[i].xml) {
			gchar **a = g_strsplit(cases[i].xml, "@HOME@", -1);
			char *y = g_strjoinv(lab_home(), a);
			gchar **b = g_strsplit(y, "@INST@", -1);
			char *z = g_strjoinv(lab_instance(), b);
			gchar **c = g_strsplit(z, "@MACH@", -1);

			x = g_strjoinv(lab_machine_id(), c);
			g_strfreev(a);
			g_strfreev(b);
			g_strfreev(c);
			g_free(y);
			g_free(z);
		}
		found = lab_owner_parse(x, cases[i].implied, &o);
		if (found != cases[i].found || lab_owner_is_ours(&o) != cases[i].ours)
			fail_msg("case %zu (%s): found %d ours %d", i, x ? x : "NULL",
				 found, lab_owner_is_ours(&o));
		lab_owner_clear(&o);
		g_free(x);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_instance_names),
		cmocka_unit_test(test_home_checks),
		cmocka_unit_test(test_owner_roundtrip),
		cmocka_unit_test(test_owner_table),
	};

	return cmocka_run_group_tests_name("owner", tests, NULL, NULL);
}
