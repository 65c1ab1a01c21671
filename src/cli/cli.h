/* cli.h - the commands: lab.c's table lists them, each is defined in the
 * src/cli/ file of its group with its option table (opts.h); the work is
 * done by the layers below (build, guests, jobs). */
#ifndef LAB_CLI_H
#define LAB_CLI_H

#include "cli/opts.h"

struct lab_inst;

/* What the dispatcher opens before a command runs, so a command never
 * reports a state it is about to create (virsh's command flags). */
enum lab_needs {
	LAB_NEEDS_NOTHING,
	LAB_NEEDS_UP,     /* the instance that is up, unlocked, attached */
	LAB_NEEDS_OWN_UP, /* the same, locked: it changes the guests */
	LAB_NEEDS_OWN,    /* locked and attached, up or not (lab down) */
};

struct lab_cmd {
	const struct lab_cmd_spec *spec; /* name, options, arguments */
	const char *summary;             /* one line for `lab help` */
	enum lab_needs needs;
	/* IN: what NEEDS asked for (NULL for nothing); ARGS: positional. */
	int (*run)(struct lab_inst *in, char **args);
};

extern const struct lab_cmd lab_cmd_build, lab_cmd_kernels, lab_cmd_check_series, lab_cmd_image,
	lab_cmd_check_topology, lab_cmd_up, lab_cmd_down, lab_cmd_restart,
	lab_cmd_status, lab_cmd_console, lab_cmd_exec, lab_cmd_run,
	lab_cmd_interop, lab_cmd_stress, lab_cmd_review, lab_cmd_isolate,
	lab_cmd_bisect, lab_cmd_report, lab_cmd_compare, lab_cmd_hosts, lab_cmd_cache;

#endif
