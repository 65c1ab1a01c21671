/* build.c - the commands that make what guests need: `lab build`,
 * `lab check-series`, `lab image`, `lab check-topology`. */
#include "cli/cli.h"
#include "build/check_series.h"
#include "build/image.h"
#include "build/kernel.h"
#include "core/topology.h"
#include "util/util.h"

#include <string.h>

static const char *review, *series, *base, *config, *tree, *rev;

static const struct lab_opt review_opts[] = {
	{ "--review", NULL, LAB_OPT_STR, "NAME", "the review under patches/ (default "
	  LAB_REVIEW_DEFAULT ")", &review, 0, 0, NULL, LAB_REVIEW_DEFAULT },
	{ 0 },
};

static const struct lab_opt build_opts[] = {
	{ "--review", NULL, LAB_OPT_STR, "NAME", "the review under patches/ (default "
	  LAB_REVIEW_DEFAULT ")", &review, 0, 0, NULL, LAB_REVIEW_DEFAULT },
	{ "--series", NULL, LAB_OPT_STR, "PATH", "define KERNEL: a quilt series file, or a "
	  "directory of `git format-patch` files", &series, 0, 0, NULL, NULL },
	{ "--base", NULL, LAB_OPT_STR, "KERNEL", "with --series: the kernel the series goes "
	  "on (default: linux-source-6.1 as Debian ships it)", &base, 0, 0, NULL, NULL },
	{ "--config", NULL, LAB_OPT_STR, "FRAGMENT", "with --series or --tree: config options "
	  "merged over the lab's fragment (guests/kernel.config)", &config, 0, 0, NULL, NULL },
	{ "--tree", NULL, LAB_OPT_STR, "DIR", "define KERNEL: a kernel tree of yours (a git "
	  "tree's commit, or the directory's files); lab never writes into it", &tree, 0, 0,
	  NULL, NULL },
	{ "--rev", NULL, LAB_OPT_STR, "REV", "with --tree (a git tree): the commit to build "
	  "(default HEAD)", &rev, 0, 0, NULL, NULL },
	{ 0 },
};

/* Which options go together; 0, or 2 said. */
static int build_opts_check(void)
{
	const char *why = NULL;

	if (series && tree)
		why = "--series and --tree each define a kernel: give one";
	else if (tree && base)
		why = "--base goes with --series: a tree is its own base";
	else if (rev && !tree)
		why = "--rev goes with --tree";
	else if ((base || config) && !series && !tree)
		why = "--base and --config define a kernel: they go with --series (or --config "
		      "with --tree)";
	if (!why)
		return 0;
	lab_err("build: %s", why);
	return 2;
}

static int run_build(struct lab_inst *in, char **args)
{
	struct lab_user_kernel_src src = { args[0], series, base, config, tree, rev,
					   NULL, NULL };
	int rc;

	(void)in;
	if ((rc = build_opts_check()) != 0)
		return rc;
	if (!series && !tree && strcmp(args[0], "all") != 0 && !lab_kernel_known(args[0])) {
		lab_err("build: unknown kernel '%s' (baseline, patched, all, isolate-NNN, or a "
			"kernel of yours: define it with --series PATH or --tree DIR; `lab "
			"kernels` lists them)", args[0]);
		return 2;
	}
	if ((series || tree) && (rc = lab_kernel_define(review, &src)) != 0)
		return rc;
	rc = lab_kernel_build_named(review, args[0]);
	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec build_spec = {
	"build", "KERNEL",
	"  Build a kernel from linux-source-6.1 + patches, cached by content under\n"
	"  $LAB_HOME/kernels/KEY. KERNEL: baseline = support/ + bugs/ of\n"
	"  patches/REVIEW/; patched = support/ + bugs/ + fixes/; all = both;\n"
	"  isolate-NNN = support/ + bugs/NNN only (support/: test knobs both\n"
	"  kernels share); or a name of yours: `--series PATH` defines it (the\n"
	"  patches are copied; a patch that does not apply is named before\n"
	"  anything is built), `lab build NAME` builds it again, NAME@N is its\n"
	"  base with the first N patches of its series. `--tree DIR [--rev REV]`\n"
	"  defines NAME from a kernel tree of yours: a git tree's commit (HEAD by\n"
	"  default; uncommitted changes are not in it), or a directory's files;\n"
	"  lab builds its own copy ($LAB_HOME/trees) and never writes into DIR;\n"
	"  NAME@REV is that tree at another commit.\n",
	build_opts, 1, 1, false,
};

const struct lab_cmd lab_cmd_build = {
	&build_spec, "build a kernel: baseline, patched, or one of yours (--series, --tree)",
	LAB_NEEDS_NOTHING, run_build,
};

static char *when(gint64 t)
{
	GDateTime *d = t ? g_date_time_new_from_unix_local(t) : NULL;
	char *s = d ? g_date_time_format(d, "%Y-%m-%d %H:%M") : g_strdup("not built");

	if (d)
		g_date_time_unref(d);
	return s;
}

static void kernel_row(const char *name, const struct lab_kernel_info *ki, int base_w)
{
	char *w = when(ki->built), *sz, *count;

	sz = ki->built ? g_format_size_full((guint64)ki->bytes, G_FORMAT_SIZE_IEC_UNITS) :
		g_strdup("-");
	count = ki->own == ki->patches ? g_strdup_printf("%u", ki->patches) :
		g_strdup_printf("%u (+%u)", ki->own, ki->patches - ki->own);
	printf("%-20s %-*s %-9s %-17s %-17s %s\n", name, base_w, ki->base, count,
	       ki->key ? ki->key : "-", w, sz);
	g_free(w);
	g_free(sz);
	g_free(count);
}

static int run_kernels(struct lab_inst *in, char **args)
{
	char **mine = lab_user_kernel_names();
	GStrvBuilder *b = g_strv_builder_new();
	char **names;
	struct lab_kernel_info *ki;
	int base_w = 18, n;

	(void)in;
	(void)args;
	g_strv_builder_add(b, "baseline");
	g_strv_builder_add(b, "patched");
	g_strv_builder_addv(b, (const char **)mine);
	names = g_strv_builder_end(b);
	g_strv_builder_unref(b);
	n = (int)g_strv_length(names);
	ki = g_new0(struct lab_kernel_info, n);
	for (int i = 0; i < n; i++) /* a tree kernel's base: its tree and commit */
		if (lab_kernel_describe(review, names[i], &ki[i]) == 0)
			base_w = MAX(base_w, (int)strlen(ki[i].base));
	printf("%-20s %-*s %-9s %-17s %-17s %s\n", "NAME", base_w, "BASE", "PATCHES", "KEY",
	       "BUILT", "SIZE");
	for (int i = 0; i < n; i++) {
		if (ki[i].base)
			kernel_row(names[i], &ki[i], base_w);
		lab_kernel_info_clear(&ki[i]);
	}
	printf("(and debian: Debian's own kernel, kept from the image; isolate-NNN: one "
	       "seed's bug alone; NAME@N: NAME's base and its first N patches; NAME@REV: a "
	       "tree kernel's tree at commit REV)\n");
	g_free(ki);
	g_strfreev(names);
	g_strfreev(mine);
	return 0;
}

static const struct lab_cmd_spec kernels_spec = {
	"kernels", "",
	"  The kernels lab can build and boot: the review's (baseline, patched)\n"
	"  and yours (`lab build NAME --series PATH`, `--tree DIR`), with their\n"
	"  base (a tree kernel's: its tree and commit), patches\n"
	"  (yours, + the base's), cache key, when built and size.\n",
	review_opts, 0, 0, false,
};

const struct lab_cmd lab_cmd_kernels = {
	&kernels_spec, "list the named kernels: the review's and yours", LAB_NEEDS_NOTHING,
	run_kernels,
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
