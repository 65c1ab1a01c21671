/* test_cli.c - the command table's argument handling: every bad call is a
 * usage error (exit 2) with a message, before anything is touched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib.h>

#include "cli/opts.h"

int lab_dispatch(int argc, char **argv);

/* Run lab_dispatch with stdout/stderr captured into one string. */
static int run(char **out, int argc, ...)
{
	char *argv[16];
	va_list ap;
	int i, rc, saved_out = dup(1), saved_err = dup(2);
	FILE *tmp = tmpfile();
	long len;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	argv[argc] = NULL;
	va_end(ap);
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(tmp), 1);
	dup2(fileno(tmp), 2);
	rc = lab_dispatch(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	len = ftell(tmp);
	*out = calloc(1, len + 1);
	rewind(tmp);
	if (fread(*out, 1, len, tmp) != (size_t)len)
		fail_msg("short read of captured output");
	fclose(tmp);
	return rc;
}

static void expect(int want_rc, const char *needle, int argc, ...)
{
	char *argv[16], *out;
	va_list ap;
	int i, rc;

	va_start(ap, argc);
	for (i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	switch (argc) { /* small fixed arities keep run() simple */
	case 1: rc = run(&out, 1, argv[0]); break;
	case 2: rc = run(&out, 2, argv[0], argv[1]); break;
	case 3: rc = run(&out, 3, argv[0], argv[1], argv[2]); break;
	case 4: rc = run(&out, 4, argv[0], argv[1], argv[2], argv[3]); break;
	case 5: rc = run(&out, 5, argv[0], argv[1], argv[2], argv[3], argv[4]); break;
	case 6: rc = run(&out, 6, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5]); break;
	case 7: rc = run(&out, 7, argv[0], argv[1], argv[2], argv[3], argv[4], argv[5], argv[6]);
		break;
	default: fail_msg("arity"); return;
	}
	if (rc != want_rc)
		fail_msg("'%s %s': exit %d, want %d; output:\n%s", argv[0],
			 argc > 1 ? argv[1] : "", rc, want_rc, out);
	if (needle && !strstr(out, needle))
		fail_msg("'%s %s': output lacks '%s':\n%s", argv[0],
			 argc > 1 ? argv[1] : "", needle, out);
	free(out);
}

static void test_no_args(void **s)
{
	(void)s;
	expect(2, "usage: lab COMMAND", 1, "lab");
}

static void test_help_lists_commands(void **s)
{
	(void)s;
	expect(0, "check-series", 2, "lab", "--help");
	expect(0, "console", 2, "lab", "help");
}

static void test_version(void **s)
{
	(void)s;
	expect(0, "lab 0.", 2, "lab", "--version");
}

static void test_unknown_command(void **s)
{
	(void)s;
	expect(2, "unknown command 'frobnicate' (`lab help` lists them)", 2, "lab",
	       "frobnicate");
	expect(2, "unknown command 'stauts': did you mean 'status'?", 2, "lab", "stauts");
}

static void test_build_args(void **s)
{
	(void)s;
	expect(2, "build: missing KERNEL", 2, "lab", "build");
	expect(2, "unknown kernel 'mainline'", 3, "lab", "build", "mainline");
	expect(2, "--base and --config define a kernel", 5, "lab", "build", "mine", "--base",
	       "patched");
	expect(2, "build: bad argument '--fast'", 3, "lab", "build", "--fast");
	expect(2, "unknown kernel 'isolate-999'", 3, "lab", "build", "isolate-999");
	expect(0, "--series PATH", 3, "lab", "build", "--help");
	expect(0, "--tree DIR", 3, "lab", "build", "--help");
	expect(2, "--series and --tree each define a kernel", 7, "lab", "build", "mine",
	       "--series", "q", "--tree", "t");
	expect(2, "a tree is its own base", 7, "lab", "build", "mine", "--tree", "t", "--base",
	       "patched");
	expect(2, "--rev goes with --tree", 5, "lab", "build", "mine", "--rev", "v6.1");
	expect(2, "--tree /nonexistent-lab-tree: no such directory", 5, "lab", "build", "mine",
	       "--tree", "/nonexistent-lab-tree");
}

static void test_up_args(void **s)
{
	(void)s;
	expect(2, "--kernel takes baseline, patched, isolate-NNN or a kernel of yours", 4, "lab", "up",
	       "--kernel", "stock");
	expect(2, "--accel takes one of its values, not 'hvf'", 4, "lab", "up",
	       "--accel", "hvf");
	expect(2, "up: bad argument '--nope'", 3, "lab", "up", "--nope");
	expect(2, "--timeout needs a whole number 1..86400", 4, "lab", "up",
	       "--timeout", "0");
	expect(2, "--timeout needs a whole number 1..86400", 4, "lab", "up",
	       "--timeout", "5s");
	expect(2, "--guests takes a list A,B", 4, "lab", "up", "--guests", "a,,b");
	expect(2, "--topology needs a value", 3, "lab", "up", "-t");
}

static void test_up_bad_topology(void **s)
{
	(void)s;
	/* a malformed topology is refused before libvirt is touched */
	expect(2, "malformed.ini", 4, "lab", "up", "-t",
	       "tests/unit/topologies/malformed.ini");
	expect(2, "no-such-topology.ini", 4, "lab", "up", "-t", "no-such-topology");
}

/* The whole table: every command answers -h and --help with its usage
 * (exit 0), and refuses an unknown option with a usage error (exit 2)
 * that points at its --help. */
static void test_every_command_has_help(void **s)
{
	static const char *const cmds[] = {
		"build", "check-series", "image", "check-topology", "up", "down",
		"restart", "status", "console", "exec", "run", "interop", "stress",
		"review", "isolate", "report", "compare", "hosts", "cache",
	};
	size_t i;

	(void)s;
	for (i = 0; i < G_N_ELEMENTS(cmds); i++) {
		char *want = g_strdup_printf("usage: lab %s", cmds[i]);
		char *hint = g_strdup_printf("`lab %s --help`", cmds[i]);

		expect(0, want, 3, "lab", cmds[i], "--help");
		expect(0, want, 3, "lab", cmds[i], "-h");
		expect(2, hint, 3, "lab", cmds[i], "--no-such-option");
		g_free(want);
		g_free(hint);
	}
}

static void test_bad_numbers(void **s)
{
	(void)s;
	expect(2, "--race-seconds needs a whole number", 4, "lab", "run", "--duration", "10x");
	expect(2, "--race-seconds needs a whole number", 4, "lab", "review", "--race-seconds", "-5");
	expect(2, "--timeout needs a whole number", 4, "lab", "exec", "--timeout", "abc");
	expect(2, "--loops needs a whole number", 4, "lab", "stress", "--loops", "many");
	expect(2, "--duration needs seconds", 4, "lab", "stress", "--duration", "8 h");
	expect(2, "--keep needs a value", 4, "lab", "cache", "prune", "--keep");
	expect(2, "--env LAB_TEST=x: LAB_TEST is set by lab", 4, "lab", "run", "--env", "LAB_TEST=x");
	expect(2, "LAB_NETNS is given twice", 6, "lab", "stress", "--env", "LAB_NETNS=1",
	       "--env", "LAB_NETNS=2");
	expect(2, "has a character other than", 4, "lab", "run", "--env", "LAB_X=`id`");
}

/* check-topology loads and validates only: a summary, or the error. */
static void test_check_topology(void **s)
{
	(void)s;
	expect(0, "topology smoke: 1 guest, 1 network, 1 vCPU, 1024 MiB", 3, "lab",
	       "check-topology", "smoke");
	expect(0, "nfs-client", 4, "lab", "check-topology", "smoke", "nfs");
	expect(2, "duplicate-address.ini:14: [guest b] address", 3, "lab",
	       "check-topology", "tests/unit/topologies/duplicate-address.ini");
	expect(2, "no-such-topology.ini", 3, "lab", "check-topology",
	       "no-such-topology");
	/* a topology that is not there: the ones that are, by name */
	expect(2, "the topologies are default, interop, interop-async, nfs, smoke", 3, "lab",
	       "check-topology", "defualt");
	expect(2, "check-topology: bad argument '--fast'", 3, "lab", "check-topology", "--fast");
	expect(0, "usage: lab check-topology", 3, "lab", "check-topology", "--help");
	expect(0, "check-topology", 2, "lab", "help");
}

static void test_bad_environment(void **s)
{
	(void)s;
	/* LAB_INSTANCE reaches paths and libvirt names: refused before use */
	setenv("LAB_INSTANCE", "../../victim", 1);
	expect(2, "LAB_INSTANCE '../../victim'", 2, "lab", "down");
	expect(2, "LAB_INSTANCE", 2, "lab", "status");
	expect(0, "usage: lab COMMAND", 2, "lab", "help"); /* help still works */
	setenv("LAB_INSTANCE", "unit", 1);
}

static void test_exec_console_args(void **s)
{
	(void)s;
	expect(2, "exec: missing GUEST -- COMMAND", 3, "lab", "exec", "smoke");
	expect(2, "exec: missing GUEST -- COMMAND", 4, "lab", "exec", "smoke", "uname");
	/* without "--" an option of the command is an option of lab's */
	expect(2, "exec: bad argument '-r'", 5, "lab", "exec", "smoke", "uname", "-r");
	expect(2, "console: missing GUEST", 2, "lab", "console");
	expect(2, "check-series: bad argument '--x'", 3, "lab", "check-series", "--x");
	expect(2, "hosts: too many arguments", 5, "lab", "hosts", "sync", "a", "b");
}

/* A command that needs the instance up says so, and only then: nothing
 * is up in the unit tests' empty LAB_HOME. */
static void test_not_up(void **s)
{
	(void)s;
	expect(1, "instance 'unit' is not up: run `lab up`", 2, "lab", "status");
	expect(1, "instance 'unit' is not up: run `lab up`", 2, "lab", "run");
	expect(1, "instance 'unit' is not up: run `lab up`", 3, "lab", "restart", "smoke");
	expect(2, "interop: --vers: '5' is none of 3, 4.0, 4.1, 4.2", 4, "lab",
	       "interop", "--vers", "5");
	expect(2, "interop: --groups: 'basics' is none of", 4, "lab", "interop",
	       "--groups", "basics");
	expect(2, "isolate: '999' is not a seed", 3, "lab", "isolate", "999");
	/* a test that is not in the suite map: named before anything comes up */
	expect(2, "stress: unknown test or suite 't999-nope'", 3, "lab", "stress", "t999-nope");
}

/* `lab compare` says what regressed in its exit status too. */
static void test_compare_exit(void **s)
{
	(void)s;
	expect(1, "3 tests regressed from A to B", 4, "lab", "compare",
	       "tests/unit/runs/patched", "tests/unit/runs/baseline");
	expect(0, "fixed", 4, "lab", "compare", "tests/unit/runs/baseline",
	       "tests/unit/runs/patched");
	expect(1, "", 4, "lab", "compare", "no-such-run", "tests/unit/runs/patched");
}

/* Durations as stress takes them: seconds, or a number with s, m or h. */
static void test_durations(void **s)
{
	static const struct {
		const char *in;
		long secs;
	} table[] = {
		{ "90", 90 }, { "90s", 90 }, { "30m", 1800 }, { "8h", 28800 },
		{ "0", -1 }, { "-5", -1 }, { "8 h", -1 }, { "8d", -1 }, { "h", -1 },
		{ "", -1 }, { "1.5h", -1 }, { "99999999999", -1 },
	};
	size_t i;

	(void)s;
	for (i = 0; i < G_N_ELEMENTS(table); i++)
		if (lab_opts_duration(table[i].in) != table[i].secs)
			fail_msg("'%s': %ld, want %ld", table[i].in,
				 lab_opts_duration(table[i].in), table[i].secs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_args),
		cmocka_unit_test(test_help_lists_commands),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_unknown_command),
		cmocka_unit_test(test_build_args),
		cmocka_unit_test(test_up_args),
		cmocka_unit_test(test_up_bad_topology),
		cmocka_unit_test(test_check_topology),
		cmocka_unit_test(test_exec_console_args),
		cmocka_unit_test(test_bad_environment),
		cmocka_unit_test(test_every_command_has_help),
		cmocka_unit_test(test_bad_numbers),
		cmocka_unit_test(test_not_up),
		cmocka_unit_test(test_durations),
		cmocka_unit_test(test_compare_exit),
	};

	return cmocka_run_group_tests_name("cli", tests, NULL, NULL);
}
