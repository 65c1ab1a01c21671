/* isolate.c - `lab isolate SEED`: one seed's bug alone on its own kernel. */
#include "cli/cli.h"
#include "build/kernel.h"
#include "build/tests_disk.h"
#include "jobs/isolate.h"
#include "util/util.h"

#include <stdio.h>
#include <string.h>

static const char *topology;

static const struct lab_opt isolate_opts[] = {
	{ "--topology", "-t", LAB_OPT_STR, "TOPOLOGY", "a name from topologies/ or a path",
	  &topology, 0, 0, NULL, "default" },
	{ 0 },
};

static int run_isolate(struct lab_inst *in, char **args)
{
	char *kernel = g_strdup_printf("isolate-%s", args[0]), *iso, *run;
	const char *answer;
	bool known = strlen(args[0]) == 3 && lab_kernel_name_valid(kernel);

	(void)in;
	g_free(kernel);
	if (!known) { /* before the tree is unpacked or anything built */
		lab_err("isolate: '%s' is not a seed with a bug in patches/%s/bugs/ "
			"(three digits: 001..011)", args[0], LAB_REVIEW_DEFAULT);
		return 2;
	}
	iso = lab_tests_iso();
	if (!iso)
		return 1;
	run = lab_isolate_seed(LAB_REVIEW_DEFAULT, topology, args[0], iso);
	answer = lab_isolated_answer(run);
	printf("seed %s isolated: %s%s%s%s\n", args[0], answer, run ? " (" : "",
	       run ? run : "", run ? ")" : "");
	lab_phase_summary();
	g_free(iso);
	g_free(run);
	return strcmp(answer, "yes") == 0 ? 0 : 1;
}

static const struct lab_cmd_spec isolate_spec = {
	"isolate", "SEED",
	"  Build the kernel with only SEED's bug (support/ + bugs/SEED), bring up\n"
	"  the guests its tests need, run them, and say whether the seed's\n"
	"  signature shows (isolated: yes) or not.\n",
	isolate_opts, 1, 1, false,
};

const struct lab_cmd lab_cmd_isolate = {
	&isolate_spec, "one seed's bug alone: does its signature still show?",
	LAB_NEEDS_NOTHING, run_isolate,
};
