/* build.c - the commands that make what guests need: `lab build`,
 * `lab check-series`, `lab image`, `lab check-topology`. */
#include "cli/cli.h"
#include "build/check_series.h"
#include "build/image.h"
#include "build/kernel.h"
#include "core/topology.h"
#include "util/util.h"

#include <string.h>

static const char *review;

static const struct lab_opt review_opts[] = {
	{ "--review", NULL, LAB_OPT_STR, "NAME", "the review under patches/ (default "
	  LAB_REVIEW_DEFAULT ")", &review, 0, 0, NULL, LAB_REVIEW_DEFAULT },
	{ 0 },
};

static int run_build(struct lab_inst *in, char **args)
{
	int rc;

	(void)in;
	if (strcmp(args[0], "all") != 0 && !lab_kernel_name_valid(args[0])) {
		lab_err("build: unknown variant '%s' (baseline, patched, all or isolate-NNN)",
			args[0]);
		return 2;
	}
	rc = lab_kernel_build_named(review, args[0]);
	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec build_spec = {
	"build", "baseline|patched|all|isolate-NNN",
	"  Build the kernel variant(s) from linux-source-6.1 + patches/NAME/:\n"
	"  baseline = support/ + bugs/; patched = support/ + bugs/ + fixes/;\n"
	"  isolate-NNN = support/ + bugs/NNN only (support/: test knobs both\n"
	"  kernels share). Cached by content under $LAB_HOME/kernels/KEY.\n",
	review_opts, 1, 1, false,
};

const struct lab_cmd lab_cmd_build = {
	&build_spec, "build the baseline and/or patched kernel", LAB_NEEDS_NOTHING,
	run_build,
};

static int run_check_series(struct lab_inst *in, char **args)
{
	int rc;

	(void)in;
	(void)args;
	rc = lab_check_series(review);
	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec check_series_spec = {
	"check-series", "",
	"  Apply support/, bugs/ and fixes/ to a pristine tree, check that\n"
	"  bugs/ + fixes/ give back pristine + support/, and compile every\n"
	"  touched file on both kernels.\n",
	review_opts, 0, 0, false,
};

const struct lab_cmd lab_cmd_check_series = {
	&check_series_spec,
	"apply bugs/ + fixes/ to a pristine tree and compile what they touch",
	LAB_NEEDS_NOTHING, run_check_series,
};

static int run_image(struct lab_inst *in, char **args)
{
	int rc;

	(void)in;
	(void)args;
	rc = lab_image_build();
	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec image_spec = {
	"image", "",
	"  Build (or find in cache) the Debian guest base image: mmdebstrap with\n"
	"  the host's apt sources, mkfs.ext4 -d, qemu-img convert.\n",
	NULL, 0, 0, false,
};

const struct lab_cmd lab_cmd_image = {
	&image_spec, "build the Debian guest base image (mmdebstrap)",
	LAB_NEEDS_NOTHING, run_image,
};

static int run_check_topology(struct lab_inst *in, char **args)
{
	char *def[] = { "default", NULL };
	char **names = args[0] ? args : def;
	int rc = 0;

	(void)in;
	for (; *names; names++) {
		struct lab_topology *t = lab_topology_open(*names);

		if (t)
			lab_topology_print(t);
		else
			rc = 2;
		lab_topology_free(t);
	}
	return rc;
}

static const struct lab_cmd_spec check_topology_spec = {
	"check-topology", "[TOPOLOGY...]",
	"  Load and validate each topology (a name from topologies/ or a path;\n"
	"  default: default) against this host's memory and CPUs, as `lab up`\n"
	"  does, and print a summary. Nothing is built or created.\n"
	"  Exit 0 when all are valid, 2 when one is not.\n",
	NULL, 0, -1, false,
};

const struct lab_cmd lab_cmd_check_topology = {
	&check_topology_spec, "load and validate topologies, print a summary; creates nothing",
	LAB_NEEDS_NOTHING, run_check_topology,
};
