/* lab.c - the CLI: one table of commands, each implemented in the file of
 * the job it belongs to (src/<job>.c). See README.md. */
#include <stdio.h>
#include <string.h>

#include "util/util.h"
#include "build/kernel.h"
#include "build/image.h"
#include "virt/virt.h"
#include "guests/instance.h"
#include "guests/up.h"
#include "store/cache.h"
#include "jobs/isolate.h"
#include "jobs/stress.h"
#include "jobs/interop.h"
#include "jobs/run.h"
#include "jobs/review.h"
#include "core/owner.h"
#include "core/topology.h"
#include "core/hosts.h"
#include "cli/cli.h"

#define LAB_VERSION "0.1"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static int cmd_help(int argc, char **argv);

static const struct command commands[] = {
	{ "build", cmd_build, "build the baseline and/or patched kernel" },
	{ "check-series", cmd_check_series,
	  "apply bugs/ + fixes/ to a pristine tree and compile what they touch" },
	{ "image", cmd_image, "build the Debian guest base image (mmdebstrap)" },
	{ "check-topology", cmd_check_topology,
	  "load and validate topologies, print a summary; creates nothing" },
	{ "up", cmd_up, "bring a topology's guests up and wait until ready" },
	{ "down", cmd_down, "destroy the guests and network, remove overlays" },
	{ "restart", cmd_restart, "bring one guest back to its ready state (saved state)" },
	{ "status", cmd_status, "show guests, state, kernel, uptime, addresses" },
	{ "console", cmd_console, "follow a guest's serial console log" },
	{ "exec", cmd_exec, "run a command in a guest via the guest agent" },
	{ "run", cmd_run, "run tests or suites in the guests; verdicts + results" },
	{ "interop", cmd_interop, "the NFS interop matrix: servers x versions x groups" },
	{ "stress", cmd_stress, "loop tests for hours: failure rates, crash titles, dumps" },
	{ "review", cmd_review,
	  "the main job: both kernels, the suite on each, one row per seed" },
	{ "isolate", cmd_isolate, "one seed's bug alone: does its signature still show?" },
	{ "report", cmd_report, "re-render a review's report (text, JSON, HTML)" },
	{ "compare", cmd_compare, "compare two runs test by test" },
	{ "hosts", cmd_hosts, "list the libvirt hosts (hosts.ini); sync the cached files to one" },
	{ "cache", cmd_cache, "list or prune kernels, images, saved states, tests disks" },
	{ "help", cmd_help, "show this help" },
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: lab COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-15s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\nLAB_HOME=%s (cache, kernels, images, runs)\n", lab_home());
	fprintf(out, "`lab COMMAND --help` shows a command's options.\n");
}

static int cmd_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	usage(stdout);
	return 0;
}

/* LAB_INSTANCE reaches libvirt names and paths, LAB_HOME holds what QEMU
 * opens as root's guest: both are checked before any command runs. */
static int check_environment(void)
{
	char *why = lab_instance_invalid(lab_instance());

	if (!why)
		why = lab_home_invalid(lab_home());
	if (!why)
		return 0;
	lab_err("%s", why);
	g_free(why);
	return 2;
}

/* Exit codes: 0 ok, 1 the command failed, 2 bad usage. */
int lab_dispatch(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return cmd_help(argc - 1, argv + 1);
	if (strcmp(argv[1], "--version") == 0) {
		printf("lab %s\n", LAB_VERSION);
		return 0;
	}
	for (i = 0; i < G_N_ELEMENTS(commands); i++)
		if (strcmp(argv[1], commands[i].name) == 0) {
			if (commands[i].fn != cmd_help && check_environment() != 0)
				return 2;
			return commands[i].fn(argc - 1, argv + 1);
		}
	lab_err("unknown command '%s'", argv[1]);
	usage(stderr);
	return 2;
}

#ifndef LAB_NO_MAIN
int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	lab_install_signal_handlers();
	return lab_dispatch(argc, argv);
}
#endif
