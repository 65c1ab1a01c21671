// SPDX-License-Identifier: GPL-2.0
/*
 * t005 - a regulator without constraints must print "no parameters", not
 * whatever was on the stack.
 *
 * Seed 005, "regulator: Fix display of null constraints for regulators"
 * (upstream 973e9a2795b3, 2.6.32.9 #22).  In 6.1 print_constraints_debug()
 * (drivers/regulator/core.c) starts from `char buf[160] = ""` and falls back
 * to "no parameters".  CONFIG_REGULATOR registers regulator-dummy with empty
 * constraints at boot; with dyndbg="func print_constraints_debug +p" on the
 * command line its line reaches the log:
 *   patched:  "regulator-dummy: no parameters, enabled"
 *   baseline: "regulator-dummy: \xfe\xfe\xfe..." (uninitialised stack, made
 *             visible by CONFIG_INIT_STACK_ALL_PATTERN; /dev/kmsg escapes
 *             unprintable bytes as \xNN).
 * (History: 2.6.32's version always wrote buf; the bug really belonged to
 * 2.6.33-rc.)  The line is printed once, at boot: the test reads the kernel
 * log from its oldest record and is inconclusive if the line is gone.
 */
#include "lab_test.h"

#include <ctype.h>

#define TAG	"regulator-dummy: "

enum line_kind { LINE_OK, LINE_GARBAGE, LINE_OTHER };

/* Escapes (\xNN) or raw non-printable bytes mean stack contents leaked. */
static enum line_kind classify(const char *rest)
{
	for (const unsigned char *p = (const unsigned char *)rest; *p; p++) {
		if (p[0] == '\\' && p[1] == 'x')
			return LINE_GARBAGE;
		if (!isprint(*p) && *p != '\t')
			return LINE_GARBAGE;
	}
	return strncmp(rest, "no parameters", 13) ? LINE_OTHER : LINE_OK;
}

int main(void)
{
	static const struct lab_info info = {
		.name = "t005-regulator-null-constraints",
		.seed = "005",
		.title = "regulator: empty constraints print \"no parameters\", not stack bytes",
		.bound_s = 20,
	};
	int counts[3] = { 0 };
	char cmdline[4096], text[1024];
	const char *rest;
	int fd, r;

	lab_begin(&info);
	if (lab_read_file("/proc/cmdline", cmdline, sizeof(cmdline)) < 0)
		lab_fatal("reading /proc/cmdline");
	if (!strstr(cmdline, "print_constraints_debug"))
		lab_skip("boot without dyndbg=\"func print_constraints_debug +p\"");

	fd = lab_kmsg_open(0);
	if (fd < 0)
		lab_fatal("opening /dev/kmsg");
	while ((r = lab_kmsg_next(fd, text, sizeof(text))) == 1) {
		rest = strstr(text, TAG);
		if (!rest)
			continue;
		rest += strlen(TAG);
		counts[classify(rest)]++;
		lab_diag("kmsg: %.200s", text);
	}
	if (r < 0)
		lab_fatal("reading /dev/kmsg");

	if (counts[LINE_GARBAGE])
		lab_end(LAB_FAIL, "regulator-dummy's constraint line shows uninitialised stack bytes "
			"(INIT_STACK_ALL_PATTERN's 0xfe fill here; without it, what the stack held before)");
	if (counts[LINE_OK])
		lab_end(LAB_PASS, "regulator-dummy: no parameters");
	if (counts[LINE_OTHER])
		lab_end(LAB_INCONCLUSIVE, "regulator-dummy line found, but neither garbage nor \"no parameters\"");
	lab_end(LAB_INCONCLUSIVE, "no regulator-dummy line in the kernel log (rotated out, or dyndbg did not apply)");
}
