/* lab.c - the CLI: one table of commands (src/cli/: each with its option
 * table) and the dispatcher, which parses a command's options and opens
 * what it needs - the instance, its host, its store - before it runs, as
 * virsh's command table does. See README.md and HACKING.md. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "core/owner.h"
#include "guests/instance.h"
#include "util/util.h"

#define LAB_VERSION "0.2"

static const struct lab_cmd *const commands[] = {
	&lab_cmd_build, &lab_cmd_kernels, &lab_cmd_check_series, &lab_cmd_image,
	&lab_cmd_check_topology, &lab_cmd_up, &lab_cmd_down, &lab_cmd_restart,
	&lab_cmd_status, &lab_cmd_console, &lab_cmd_exec, &lab_cmd_run,
	&lab_cmd_interop, &lab_cmd_stress, &lab_cmd_review, &lab_cmd_isolate,
	&lab_cmd_bisect, &lab_cmd_report, &lab_cmd_compare, &lab_cmd_hosts, &lab_cmd_cache,
};

static void usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: lab COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < G_N_ELEMENTS(commands); i++)
		fprintf(out, "  %-15s %s\n", commands[i]->spec->name, commands[i]->summary);
	fprintf(out, "  %-15s %s\n", "help", "show this help");
	fprintf(out, "\nLAB_HOME=%s (cache, kernels, images, runs)\n", lab_home());
	fprintf(out, "`lab COMMAND --help` shows a command's options.\n");
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

/* The instance as the command needs it; 0, or 1 with a message. */
static int open_instance(enum lab_needs needs, struct lab_inst *in)
{
	int rc = needs == LAB_NEEDS_UP ? lab_inst_open_unlocked(in)
				       : lab_inst_open(in, false);

	if (rc == 0 && needs != LAB_NEEDS_OWN && !lab_inst_is_up(in)) {
		lab_err("instance '%s' is not up: run `lab up`", lab_instance());
		return 1;
	}
	if (needs == LAB_NEEDS_UP && rc != 0) {
		lab_err("instance '%s' is not up: run `lab up`", lab_instance());
		return 1;
	}
	return rc == 0 && lab_inst_attach(in) == 0 ? 0 : 1;
}

static int run(const struct lab_cmd *c, int argc, char **argv)
{
	struct lab_inst in = { .lock_fd = -1 };
	char **args = NULL;
	int rc = lab_opts_parse(c->spec, argc, argv, &args);

	if (rc != 0)
		return rc == 1 ? 0 : 2;
	if (check_environment() != 0) {
		g_free(args);
		return 2;
	}
	if (c->needs != LAB_NEEDS_NOTHING)
		rc = open_instance(c->needs, &in);
	if (rc == 0)
		rc = c->run(c->needs != LAB_NEEDS_NOTHING ? &in : NULL, args);
	lab_inst_close(&in);
	g_free(args);
	return rc;
}

/* The known command closest to NAME (a typo), or NULL. */
static const char *closest(const char *name)
{
	const char *best = NULL;
	size_t i, best_d = 3;

	for (i = 0; i < G_N_ELEMENTS(commands); i++) {
		size_t d = lab_edit_distance(name, commands[i]->spec->name);

		if (d < best_d) {
			best_d = d;
			best = commands[i]->spec->name;
		}
	}
	return best;
}

/* Exit codes: 0 ok, 1 the command failed, 2 bad usage. */
int lab_dispatch(int argc, char **argv)
{
	const char *near;
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("lab %s\n", LAB_VERSION);
		return 0;
	}
	for (i = 0; i < G_N_ELEMENTS(commands); i++)
		if (strcmp(argv[1], commands[i]->spec->name) == 0)
			return run(commands[i], argc - 1, argv + 1);
	near = closest(argv[1]);
	if (near)
		lab_err("unknown command '%s': did you mean '%s'? (`lab help` lists them)",
			argv[1], near);
	else
		lab_err("unknown command '%s' (`lab help` lists them)", argv[1]);
	return 2;
}

#ifndef LAB_NO_MAIN
int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	umask(022); /* what lab writes others read, never write */
	lab_install_signal_handlers();
	return lab_dispatch(argc, argv);
}
#endif
