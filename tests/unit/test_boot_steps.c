/* test_boot_steps.c - a first boot's steps from systemd's timestamps in
 * the guest: each named in boot order, missing ones left out, nothing
 * when none is there. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <glib.h>

#include "core/boot_steps.h"

static void test_steps(void **st)
{
	static const struct {
		const char *out, *want; /* want NULL: no line */
	} cases[] = {
		{ "userspace 8712345\nqemu-guest-agent 25300000\ncloud-init-local 30100000\n"
		  "cloud-init 41000000\ncloud-config 52300000\ncloud-final 66049999\n"
		  "ready 66200000\n",
		  "init 8.7 s, agent 25.3 s, cloud-init: local 30.1, network 41.0, "
		  "config 52.3, final 66.0 s, ready 66.2 s" },
		/* a unit not started yet prints 0 or nothing */
		{ "userspace 8712345\nqemu-guest-agent 25300000\ncloud-init-local 0\n"
		  "cloud-init\ncloud-config\ncloud-final\n", "init 8.7 s, agent 25.3 s" },
		/* a name inside another line is not the step */
		{ "xcloud-final 5000000\n", NULL },
		{ "", NULL },
		{ NULL, NULL },
	};
	unsigned i;

	(void)st;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = lab_boot_steps(cases[i].out);

		if (!cases[i].want)
			assert_null(got);
		else
			assert_string_equal(got, cases[i].want);
		g_free(got);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_steps) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
