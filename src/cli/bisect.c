/* bisect.c - `lab bisect --good A --bad B TEST`. */
#include "cli/cli.h"
#include "build/tests_disk.h"
#include "jobs/bisect.h"
#include "util/util.h"

static struct lab_bisect_opts bo;

static const struct lab_opt bisect_opts[] = {
	{ "--good", NULL, LAB_OPT_STR, "KERNEL", "a kernel TEST passes on (B's base, or "
	  "B@REV: an older commit of B's tree)", &bo.good, 0, 0, NULL, NULL },
	{ "--bad", NULL, LAB_OPT_STR, "KERNEL", "a kernel of yours (lab build B --series "
	  "PATH --base A, or --tree DIR) TEST fails on", &bo.bad, 0, 0, NULL, NULL },
	{ "--topology", "-t", LAB_OPT_STR, "TOPOLOGY", "where TEST's guests come from",
	  &bo.topology, 0, 0, NULL, "default" },
	{ "--tries", NULL, LAB_OPT_INT, "K", "tries a step (default: from the bad kernel's "
	  "failure rate in 3 tries, for <= 5 % chance that a passing step hid the bug)",
	  &bo.tries, 1, 50, NULL, NULL },
	{ 0 },
};

static int run_bisect(struct lab_inst *in, char **args)
{
	char *iso;
	int rc;

	(void)in;
	bo.test = args[0];
	if (!bo.good || !bo.bad) {
		lab_err("bisect: --good and --bad are both needed");
		return 2;
	}
	if (lab_bisect_check(&bo) != 0)
		return 2;
	iso = lab_tests_iso();
	if (!iso)
		return 1;
	bo.iso = iso;
	rc = lab_bisect(&bo);
	lab_phase_summary();
	g_free(iso);
	return rc;
}

static const struct lab_cmd_spec bisect_spec = {
	"bisect", "--good A --bad B TEST",
	"  The first patch of B's series (B: `lab build B --series PATH --base A`)\n"
	"  that makes TEST fail. Step i is A with B's first i patches (B@i, built\n"
	"  incrementally); each step brings up only the guests TEST needs and runs\n"
	"  it K times. K comes from B's failure rate in 3 tries (or --tries). A step\n"
	"  that does not build, boot or give a pass or fail is skipped and said so.\n"
	"  With a tree kernel (`lab build B --tree DIR`), A is an older commit of\n"
	"  that tree (B@REV, or a kernel defined on it) and the steps are the\n"
	"  first-parent commits between (B@COMMIT; a merge is one step).\n"
	"  The log (like `git bisect log`) and bisect.json go to $LAB_HOME/bisect/.\n"
	"  Exit 0 found, 1 not found, 2 bad input.\n",
	bisect_opts, 1, 1, false,
};

const struct lab_cmd lab_cmd_bisect = {
	&bisect_spec, "the first patch of a series (or commit of a tree) that makes a test fail",
	LAB_NEEDS_NOTHING,
	run_bisect,
};
