/* review.c - `lab review` (the main job), `lab report`, `lab compare`. */
#include "cli/cli.h"
#include "core/compare.h"
#include "core/report.h"
#include "build/tests_disk.h"
#include "jobs/candidate.h"
#include "jobs/review.h"
#include "util/util.h"

static struct lab_review_opts ro;
static int duration_s;
static bool keep_going, isolate;
static char **hosts;
static const char *base, *candidate;
static int reruns;

static const struct lab_opt review_opts[] = {
	{ "--topology", "-t", LAB_OPT_STR, "TOPOLOGY", "a name from topologies/ or a path",
	  &ro.topology, 0, 0, NULL, "default" },
	{ "--race-seconds", "--duration", LAB_OPT_INT, "SECONDS",
	  "each race test's own time (LAB_DURATION in the guest), not the run's",
	  &duration_s, 1,
	  7 * 86400, NULL, NULL },
	{ "--keep-going", NULL, LAB_OPT_FLAG, NULL,
	  "write the report even when one kernel's run broke", &keep_going, 0, 0,
	  NULL, NULL },
	{ "--isolate", NULL, LAB_OPT_FLAG, NULL,
	  "every verified row's seed again on a kernel with only its bug", &isolate,
	  0, 0, NULL, NULL },
	{ "--hosts", "--host", LAB_OPT_LIST, "A[,B]",
	  "baseline on host A and patched on B at once (hosts.ini names)", &hosts,
	  0, 0, NULL, NULL },
	{ "--hosts-file", NULL, LAB_OPT_STR, "FILE", "hosts.ini to read (default: $LAB_HOME/hosts.ini)",
	  &ro.hosts_file, 0, 0, NULL, NULL },
	{ "--base", NULL, LAB_OPT_STR, "KERNEL", "with --candidate: the kernel to compare "
	  "against", &base, 0, 0, NULL, NULL },
	{ "--candidate", NULL, LAB_OPT_STR, "KERNEL", "a regression review of KERNEL against "
	  "--base instead of the 2.6.32.9 review", &candidate, 0, 0, NULL, NULL },
	{ "--reruns", NULL, LAB_OPT_INT, "K", "with --candidate: more runs on each kernel of a "
	  "test whose verdicts differ", &reruns, 0, 20, NULL, "3" },
	{ 0 },
};

static int run_candidate(char **names)
{
	struct lab_candidate_opts co = { base, candidate, ro.topology, names[0] ? names : NULL,
					 reruns, duration_s, NULL };
	char *iso;
	int rc;

	if (!base) {
		lab_err("review: --candidate needs --base (the kernel to compare against)");
		return 2;
	}
	if (keep_going || isolate || hosts) {
		lab_err("review: --keep-going, --isolate and --hosts belong to the 2.6.32.9 "
			"review, not to --candidate");
		return 2;
	}
	if (lab_candidate_check(&co) != 0)
		return 2;
	iso = lab_tests_iso();
	if (!iso)
		return 1;
	co.iso = iso;
	rc = lab_candidate_review(&co);
	g_free(iso);
	return rc;
}

static int run_review(struct lab_inst *in, char **args)
{
	int rc;

	(void)in;
	if (candidate) {
		rc = run_candidate(args);
		lab_phase_summary();
		return rc;
	}
	if (base || args[0]) {
		lab_err("review: --base and TEST|SUITE go with --candidate (plain `lab review` is "
			"the 2.6.32.9 review)");
		return 2;
	}
	ro.duration_s = duration_s;
	ro.keep_going = keep_going;
	ro.isolate = isolate;
	ro.hosts = hosts;
	rc = lab_review_check_hosts(&ro) != 0 ? 2 : lab_review(&ro);
	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec review_spec = {
	"review", "[--base A --candidate B [TEST|SUITE...]]",
	"  Build both kernels, run the suite on baseline then on patched (each on\n"
	"  fresh guests), and write report.txt/json/html under $LAB_HOME/reviews/.\n"
	"  --hosts A runs both kernels on host A, one after the other; a kernel\n"
	"  whose host drops out runs again on the other host.\n"
	"  --base A --candidate B: a regression review of kernel B against A\n"
	"  (any kernels, `lab kernels`): the tests (default: the topology's suite;\n"
	"  on the default topology that is the review suite with the network\n"
	"  tests, and an interop slice: B as knfsd's client, v3 and v4.2, basic)\n"
	"  on both, each test whose verdicts differ --reruns more times on each,\n"
	"  and per test: regressed, fixed, flaky, changed or unchanged; exit 1\n"
	"  when something regressed. Each regression names its `lab bisect`.\n",
	review_opts, 0, -1, false,
};

const struct lab_cmd lab_cmd_review = {
	&review_spec, "the main job: both kernels, the suite on each, one row per seed",
	LAB_NEEDS_NOTHING, run_review,
};

static int run_report(struct lab_inst *in, char **args)
{
	(void)in;
	if (args[1] && !args[2]) {
		lab_opts_usage(lab_cmd_report.spec, stderr);
		return 2;
	}
	return lab_report_redo(args[0], args[1], args[1] ? args[2] : NULL);
}

static const struct lab_cmd_spec report_spec = {
	"report", "REVIEW_DIR | OUT_DIR BASELINE_RUN PATCHED_RUN",
	"  Render a review's report again (text, JSON, HTML): from REVIEW_DIR's\n"
	"  baseline/ and patched/ runs, or from two runs into OUT_DIR.\n",
	NULL, 1, 3, false,
};

const struct lab_cmd lab_cmd_report = {
	&report_spec, "re-render a review's report (text, JSON, HTML)",
	LAB_NEEDS_NOTHING, run_report,
};

static int run_compare(struct lab_inst *in, char **args)
{
	(void)in;
	return lab_compare_runs(args[0], args[1]);
}

static const struct lab_cmd_spec compare_spec = {
	"compare", "RUN_A RUN_B",
	"  Per test: fixed, regressed, unchanged, flaky (any other change).\n",
	NULL, 2, 2, false,
};

const struct lab_cmd lab_cmd_compare = {
	&compare_spec, "compare two runs test by test", LAB_NEEDS_NOTHING,
	run_compare,
};
