/* test_test_env.c - what `--env NAME=VALUE` lets through to the guests'
 * shell command lines, and what it refuses (with the reason named). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "core/test_env.h"
#include "util/util.h"

static void test_one(void **st)
{
	static const struct {
		const char *kv, *why; /* why NULL: accepted */
	} cases[] = {
		{ "LAB_NETNS=512", NULL },
		{ "LAB_NET_CLIENTS=nfs-client,tty", NULL },
		{ "LAB_X=", NULL },
		{ "LAB_PATH=/srv/a.b:c+d=e_f", NULL },
		{ "LAB_NETNS", "is not NAME=VALUE" },
		{ "=1", "is not a test setting" },
		{ "LAB_=1", "is not a test setting" },
		{ "NETNS=1", "is not a test setting" },
		{ "LAB_netns=1", "is not a test setting" },
		{ "LAB_A-B=1", "is not a test setting" },
		{ "LAB_TEST=t001", "set by lab itself" },
		{ "LAB_NFS_VERS=4.2", "set by lab itself" },
		{ "LAB_BOUNDED=1", "set by lab itself" },
		{ "LAB_X=a b", "a character other than" },
		{ "LAB_X='x'", "a character other than" },
		{ "LAB_X=$(reboot)", "a character other than" },
		{ "LAB_X=a;b", "a character other than" },
		{ "LAB_X=a\nb", "a character other than" },
	};
	size_t i;

	(void)st;
	for (i = 0; i < G_N_ELEMENTS(cases); i++) {
		char *why = lab_test_env_check(cases[i].kv);

		if (!cases[i].why && why)
			fail_msg("'%s' refused: %s", cases[i].kv, why);
		if (cases[i].why && (!why || !strstr(why, cases[i].why)))
			fail_msg("'%s': want '%s', got %s", cases[i].kv, cases[i].why,
				 why ? why : "accepted");
		g_free(why);
	}
}

static void test_long_value(void **st)
{
	char *kv = g_strdup_printf("LAB_X=%0257d", 0), *why = lab_test_env_check(kv);

	(void)st;
	assert_non_null(why);
	assert_non_null(strstr(why, "longer than 256"));
	g_free(why);
	g_free(kv);
}

static void test_all(void **st)
{
	char *ok[] = { "LAB_NETNS=512", "LAB_ROUNDS=2", NULL };
	char *twice[] = { "LAB_NETNS=512", "LAB_ROUNDS=2", "LAB_NETNS=64", NULL };
	char *bad[] = { "LAB_NETNS=512", "LAB_DURATION=5", NULL };
	char *why;

	(void)st;
	assert_null(lab_test_env_check_all(NULL));
	assert_null(lab_test_env_check_all(ok));
	why = lab_test_env_check_all(twice);
	assert_non_null(why);
	assert_string_equal(why, "LAB_NETNS is given twice");
	g_free(why);
	why = lab_test_env_check_all(bad);
	assert_non_null(why);
	assert_non_null(strstr(why, "LAB_DURATION is set by lab"));
	g_free(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one),
		cmocka_unit_test(test_long_value),
		cmocka_unit_test(test_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
