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
		{ "userspace 8712345\nsysinit 14000000\nqemu-guest-agent 15300000\n"
		  "seed-start 15900000\nseed-done 18249999\nready 18400000\n",
		  "init 8.7, sysinit 14.0, agent 15.3, seed start 15.9, seed done 18.2, "
		  "ready 18.4 s" },
		/* a unit not started yet prints 0 or nothing */
		{ "userspace 8712345\nsysinit 14000000\nqemu-guest-agent 0\n"
		  "seed-start\nseed-done\n", "init 8.7, sysinit 14.0 s" },
		/* a name inside another line is not the step */
		{ "xseed-done 5000000\n", NULL },
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

/* The lines come from systemctl show (one block a unit: sysinit, agent,
 * lab-seed; keys in systemd's order), init's start and /proc/uptime. */
static void test_lines(void **st)
{
	static const struct {
		const char *show, *init, *uptime, *want;
	} cases[] = {
		{ "ActiveEnterTimestampMonotonic=14000000\nInactiveExitTimestampMonotonic=0\n\n"
		  "InactiveExitTimestampMonotonic=15000000\nActiveEnterTimestampMonotonic=15300000\n\n"
		  "ActiveEnterTimestampMonotonic=18249999\nInactiveExitTimestampMonotonic=15900000\n",
		  "8712345\n",
		  "18.40 17.00\n",
		  "init 8.7, sysinit 14.0, agent 15.3, seed start 15.9, seed done 18.2, ready 18.4 s" },
		/* lab-seed not started yet, no uptime: left out */
		{ "ActiveEnterTimestampMonotonic=14000000\n\nActiveEnterTimestampMonotonic=0\n\n"
		  "ActiveEnterTimestampMonotonic=0\nInactiveExitTimestampMonotonic=0\n",
		  "8712345\n", NULL,
		  "init 8.7, sysinit 14.0 s" },
		{ NULL, NULL, NULL, NULL },
		{ "garbage", "", "x", NULL },
	};
	unsigned i;

	(void)st;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *lines = lab_boot_steps_lines(cases[i].show, cases[i].init, cases[i].uptime);
		char *got = lab_boot_steps(lines);

		if (!cases[i].want)
			assert_null(got);
		else
			assert_string_equal(got, cases[i].want);
		g_free(got);
		g_free(lines);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_steps),
					    cmocka_unit_test(test_lines) };

	return cmocka_run_group_tests(tests, NULL, NULL);
}
