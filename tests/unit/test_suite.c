/* test_suite.c - the suite map: the shipped tests/suite.ini is consistent
 * with tests/guest/, names resolve in run order, bad maps are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/suite.h"
#include "util/util.h"

static struct lab_suite *load(const char *rel, char **err)
{
	char *path = g_build_filename(lab_srcdir(), rel, NULL);
	struct lab_suite *s = lab_suite_load(path, err);

	g_free(path);
	return s;
}

static void test_shipped_map_loads(void **state)
{
	char *err = NULL;
	struct lab_suite *s = load("tests/suite.ini", &err);
	const struct lab_test *t;

	(void)state;
	assert_null(err);
	assert_non_null(s);
	t = lab_suite_test(s, "t009-nfs-umount-race");
	assert_non_null(t);
	assert_string_equal(t->seed, "009");
	assert_string_equal(t->nfs_versions[3], "4.2");
	assert_non_null(t->amplifiers);
	t = lab_suite_test(s, "t010-dvb-demux-feeds");
	assert_true(t->consumes_boot);
	assert_int_equal(t->timeout_s, 30);
	/* a part's guest is a peer: reserved for the test's length */
	for (const char *const *n = (const char *const[]){ "t012-netns-flows",
			"t014-netns-churn", "t015-remote-ptys", NULL }; *n; n++) {
		t = lab_suite_test(s, *n);
		assert_non_null(t->parts);
		assert_true(g_strv_contains((const char *const *)t->peers, "conntrack"));
		assert_true(g_strv_contains((const char *const *)t->peers, "tty"));
		assert_int_equal(g_strv_length(t->peers), 2);
	}
	lab_suite_free(s);
}

/* Every test of the map has a source in tests/guest/ (a program the guest
 * can run), and every seed with a patch has a test, 006 excepted. */
static void test_map_matches_programs(void **state)
{
	char *err = NULL;
	struct lab_suite *s = load("tests/suite.ini", &err);
	guint i;

	(void)state;
	assert_non_null(s);
	for (i = 0; i < s->tests->len; i++) {
		const struct lab_test *t = g_ptr_array_index(s->tests, i);
		char *c = g_strdup_printf("%s/tests/guest/%s.c", lab_srcdir(), t->name);
		char *sh = g_strdup_printf("%s/tests/guest/%s.sh", lab_srcdir(), t->name);

		if (!lab_exists(c) && !lab_exists(sh))
			fail_msg("suite map names %s but tests/guest has no source", t->name);
		g_free(c);
		g_free(sh);
		for (char **p = t->parts; p && *p; p++) {
			const char *prog = strchr(*p, ':') + 1;

			c = g_strdup_printf("%s/tests/guest/%s.c", lab_srcdir(), prog);
			sh = g_strdup_printf("%s/tests/guest/%s.sh", lab_srcdir(), prog);
			if (!lab_exists(c) && !lab_exists(sh))
				fail_msg("%s's part %s has no source in tests/guest", t->name, *p);
			g_free(c);
			g_free(sh);
		}
	}
	lab_suite_free(s);
}

static void test_resolve_orders_and_dedups(void **state)
{
	char *err = NULL;
	struct lab_suite *s = load("tests/suite.ini", &err);
	char *names[] = { "t010-dvb-demux-feeds", "nfs", "t000-nfs-interop", NULL };
	GPtrArray *r = lab_suite_resolve(s, names, &err);
	const struct lab_test *first, *last;

	(void)state;
	assert_non_null(r);
	assert_int_equal(r->len, 5); /* t000 once; nfs: t009, t008, t016 */
	first = g_ptr_array_index(r, 0);
	last = g_ptr_array_index(r, r->len - 1);
	assert_string_equal(first->name, "t000-nfs-interop");
	assert_string_equal(last->name, "t010-dvb-demux-feeds");
	g_ptr_array_free(r, TRUE);
	lab_suite_free(s);
}

static void test_unknown_name_lists_known(void **state)
{
	char *err = NULL;
	struct lab_suite *s = load("tests/suite.ini", &err);
	char *names[] = { "t999-nope", NULL };

	(void)state;
	assert_null(lab_suite_resolve(s, names, &err));
	assert_non_null(strstr(err, "t999-nope"));
	assert_non_null(strstr(err, "t010-dvb-demux-feeds"));
	assert_non_null(strstr(err, "review"));
	g_free(err);
	lab_suite_free(s);
}

static void expect_bad(const char *rel, const char *needle)
{
	char *err = NULL;
	struct lab_suite *s = load(rel, &err);

	assert_null(s);
	assert_non_null(err);
	if (!strstr(err, needle))
		fail_msg("%s: error '%s' lacks '%s'", rel, err, needle);
	g_free(err);
}

static void test_bad_maps(void **state)
{
	(void)state;
	expect_bad("tests/unit/suites/unknown-member.ini", "unknown test 't2'");
	expect_bad("tests/unit/suites/no-timeout.ini", "timeout");
	expect_bad("tests/unit/suites/bad-section.ini", "[tset t1]");
	expect_bad("tests/unit/suites/bad-part.ini", "parts: 'conntrack' is not ROLE:PROGRAM");
	expect_bad("tests/unit/suites/missing.ini", "missing.ini");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shipped_map_loads),
		cmocka_unit_test(test_map_matches_programs),
		cmocka_unit_test(test_resolve_orders_and_dedups),
		cmocka_unit_test(test_unknown_name_lists_known),
		cmocka_unit_test(test_bad_maps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
