/* up.c - `lab up`, `lab down`, `lab restart`: an instance's guests brought
 * up, torn down, or one of them brought back. */
#include "cli/cli.h"
#include "build/kernel.h"
#include "core/owner.h"
#include "guests/instance.h"
#include "guests/restart.h"
#include "guests/up.h"
#include "util/util.h"

#include <stdio.h>

static const char *const accels[] = { "auto", "tcg", "kvm", NULL };
static struct lab_up_opts up;
static bool keep, fresh;
static int timeout_s;
static char **only;

static const struct lab_opt up_opts[] = {
	{ "--topology", "-t", LAB_OPT_STR, "TOPOLOGY", "a name from topologies/ or a path",
	  &up.topology, 0, 0, NULL, "default" },
	{ "--kernel", NULL, LAB_OPT_STR, "KERNEL",
	  "baseline, patched, isolate-NNN or yours (`lab kernels`; default: as the topology says)",
	  &up.kernel, 0, 0, NULL, NULL },
	{ "--accel", NULL, LAB_OPT_STR, "ACCEL", "the accelerator", &up.accel, 0, 0,
	  accels, "auto" },
	{ "--timeout", NULL, LAB_OPT_INT, "SECONDS", "a booting guest's time to get ready",
	  &timeout_s, 1, 86400, NULL, G_STRINGIFY(LAB_READY_TIMEOUT_S) },
	{ "--guests", NULL, LAB_OPT_LIST, "A,B", "bring up only these guests of the topology",
	  &only, 0, 0, NULL, NULL },
	{ "--host", NULL, LAB_OPT_STR, "NAME",
	  "on that host of hosts.ini (`lab hosts`; default: local, this machine)",
	  &up.host, 0, 0, NULL, NULL },
	{ "--hosts-file", NULL, LAB_OPT_STR, "FILE", "hosts.ini to read (default: $LAB_HOME/hosts.ini)",
	  &up.hosts_file, 0, 0, NULL, NULL },
	{ "--keep", NULL, LAB_OPT_FLAG, NULL, "leave the guests up when bring-up fails",
	  &keep, 0, 0, NULL, NULL },
	{ "--fresh", NULL, LAB_OPT_FLAG, NULL,
	  "boot instead of restoring the saved ready state, and save anew", &fresh, 0, 0,
	  NULL, NULL },
	{ 0 },
};

static int run_up(struct lab_inst *in, char **args)
{
	int rc;

	(void)in;
	(void)args;
	if (up.kernel && !lab_kernel_known(up.kernel)) {
		lab_err("up: --kernel takes baseline, patched, isolate-NNN or a kernel of yours "
			"(`lab kernels`), not '%s'", up.kernel);
		return 2;
	}
	up.timeout_s = timeout_s;
	up.keep = keep;
	up.fresh = fresh;
	up.only = only;
	rc = lab_up(&up);
	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec up_spec = {
	"up", "",
	"  Create the isolated network and the topology's guests on one host,\n"
	"  every file in its store: restored from the saved ready state when one\n"
	"  matches (seconds), else booted until each answers its agent and\n"
	"  has run its seed's first-boot script, then saved.\n",
	up_opts, 0, 0, false,
};

const struct lab_cmd lab_cmd_up = {
	&up_spec, "bring a topology's guests up and wait until ready",
	LAB_NEEDS_NOTHING, run_up,
};

static int run_down(struct lab_inst *in, char **args)
{
	(void)args;
	if (!lab_inst_is_up(in))
		lab_info("instance '%s' is not up; removing anything left with its owner tag",
			 lab_instance());
	if (lab_inst_teardown(in) != 0)
		return 1;
	lab_info("instance '%s' is down", lab_instance());
	return 0;
}

static const struct lab_cmd_spec down_spec = {
	"down", "",
	"  Destroy the instance's guests and networks (only objects carrying its\n"
	"  owner tag) and delete its own volumes in the store; the console logs\n"
	"  stay under $LAB_HOME/instances/NAME/consoles. Idempotent.\n",
	NULL, 0, 0, false,
};

const struct lab_cmd lab_cmd_down = {
	&down_spec, "destroy the guests and network, remove overlays",
	LAB_NEEDS_OWN, run_down,
};

static int run_restart(struct lab_inst *in, char **args)
{
	char *dom = lab_inst_guest_get(in, args[0], "domain"), *keep_log;
	int rc;

	if (!dom) {
		lab_err("no guest '%s' in instance '%s' (see `lab status`)", args[0],
			lab_instance());
		return 1;
	}
	keep_log = g_strdup_printf("%s/consoles/%s.before-restart.log", in->dir, args[0]);
	rc = lab_guest_restart(in, args[0], keep_log, LAB_READY_TIMEOUT_S) == 0 ? 0 : 1;
	g_free(keep_log);
	g_free(dom);
	return rc;
}

static const struct lab_cmd_spec restart_spec = {
	"restart", "GUEST",
	"  Bring GUEST back to its ready state: restored from the saved state\n"
	"  when there is one, else booted on a fresh overlay. Its console so far\n"
	"  is kept as consoles/GUEST.before-restart.log.\n",
	NULL, 1, 1, false,
};

const struct lab_cmd lab_cmd_restart = {
	&restart_spec, "bring one guest back to its ready state (saved state)",
	LAB_NEEDS_OWN_UP, run_restart,
};
