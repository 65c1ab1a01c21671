/* run.c - `lab run`: tests on the instance that is up. */
#include "cli/cli.h"
#include "jobs/run.h"
#include "util/util.h"

static int duration_s;
static char **env;

static const struct lab_opt run_opts[] = {
	{ "--race-seconds", "--duration", LAB_OPT_INT, "SECONDS",
	  "each race test's own time (LAB_DURATION in the guest), not the run's",
	  &duration_s, 1,
	  7 * 86400, NULL, NULL },
	{ "--env", NULL, LAB_OPT_ENV, "LAB_X=V",
	  "a setting for every test program (e.g. LAB_NETNS=512); repeatable",
	  &env, 0, 0, NULL, NULL },
	{ 0 },
};

static int run_run(struct lab_inst *in, char **args)
{
	struct lab_run_opts o = { .names = args[0] ? args : NULL,
				  .duration_s = duration_s, .env = env };
	int rc = lab_run_with(in, &o, NULL);

	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec run_spec = {
	"run", "[TEST|SUITE...]",
	"  Run tests from tests/suite.ini on the instance that is up (`lab up`).\n"
	"  Default: the suite named after the topology, else `review`.\n"
	"  Tests of different guests run at the same time, except where one uses\n"
	"  the other (peers= in the suite map); output stays in plan order.\n"
	"  Exit 0 all passed, 1 a test failed, errored or timed out, 3 libvirtd\n"
	"  stopped answering, 130 interrupted.\n",
	run_opts, 0, -1, false,
};

const struct lab_cmd lab_cmd_run = {
	&run_spec, "run tests or suites in the guests; verdicts + results",
	LAB_NEEDS_OWN_UP, run_run,
};
