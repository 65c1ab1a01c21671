/* look.c - `lab status`, `lab console`, `lab exec`: the guests of the
 * instance that is up (guests/look.c does the work). */
#include "cli/cli.h"
#include "guests/look.h"

#include <string.h>

static int run_status(struct lab_inst *in, char **args)
{
	(void)args;
	return lab_status(in);
}

static const struct lab_cmd_spec status_spec = {
	"status", "",
	"  The instance's guests: role, state, kernel, address, booted or\n"
	"  restored, uptime; and its host and store.\n",
	NULL, 0, 0, false,
};

const struct lab_cmd lab_cmd_status = {
	&status_spec, "show guests, state, kernel, uptime, addresses",
	LAB_NEEDS_UP, run_status,
};

static bool no_follow;

static const struct lab_opt console_opts[] = {
	{ "--no-follow", NULL, LAB_OPT_FLAG, NULL, "print the log so far and stop",
	  &no_follow, 0, 0, NULL, NULL },
	{ 0 },
};

static int run_console(struct lab_inst *in, char **args)
{
	return lab_console(in, args[0], !no_follow);
}

static const struct lab_cmd_spec console_spec = {
	"console", "GUEST",
	"  Follow a guest's serial console log (a volume of the store, copied\n"
	"  to $LAB_HOME/instances/NAME/consoles/GUEST.log as it grows).\n",
	console_opts, 1, 1, false,
};

const struct lab_cmd lab_cmd_console = {
	&console_spec, "follow a guest's serial console log", LAB_NEEDS_UP,
	run_console,
};

static int exec_timeout;

static const struct lab_opt exec_opts[] = {
	{ "--timeout", NULL, LAB_OPT_INT, "SECONDS", "kill the command after this (exit 124)",
	  &exec_timeout, 1, 86400, NULL, "300" },
	{ 0 },
};

static int run_exec(struct lab_inst *in, char **args)
{
	if (!args[1] || strcmp(args[1], "--") != 0 || !args[2]) {
		lab_opts_usage(lab_cmd_exec.spec, stderr);
		return 2;
	}
	return lab_exec(in, args[0], args + 2, exec_timeout);
}

static const struct lab_cmd_spec exec_spec = {
	"exec", "GUEST -- COMMAND [ARGS...]",
	"  Run COMMAND in GUEST through the guest agent; its output and exit\n"
	"  status are lab's.\n",
	exec_opts, 3, -1, true,
};

const struct lab_cmd lab_cmd_exec = {
	&exec_spec, "run a command in a guest via the guest agent", LAB_NEEDS_UP,
	run_exec,
};
