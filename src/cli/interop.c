/* interop.c - `lab interop`: the NFS interop matrix. */
#include "cli/cli.h"
#include "build/kernel.h"
#include "jobs/interop.h"
#include "util/util.h"

static struct lab_interop_opts io;
static bool keep;

static const struct lab_opt interop_opts[] = {
	{ "--topology", "-t", LAB_OPT_STR, "TOPOLOGY", "a name from topologies/ or a path",
	  &io.topology, 0, 0, NULL, "interop" },
	{ "--client", NULL, LAB_OPT_STR, "GUEST", "the client guest (default: client)",
	  &io.client, 0, 0, NULL, "client" },
	{ "--kernel", NULL, LAB_OPT_STR, "KERNEL", "the client's kernel (baseline, patched, "
	  "yours: `lab kernels`; the servers and the peer keep the topology's)", &io.kernel,
	  0, 0, NULL, NULL },
	{ "--peer", NULL, LAB_OPT_STR, "GUEST",
	  "the second client of the clients group: peer, peer-base or peer-debian",
	  &io.peer, 0, 0, NULL, "peer" },
	{ "--servers", NULL, LAB_OPT_LIST, "A,B", "only these server guests",
	  &io.servers, 0, 0, NULL, NULL },
	{ "--vers", NULL, LAB_OPT_LIST, "V,..", "only these NFS versions (3, 4.0, 4.1, 4.2)",
	  &io.vers, 0, 0, NULL, NULL },
	{ "--groups", NULL, LAB_OPT_LIST, "G,..",
	  "only these groups (tests/suite.ini: t100's groups=)", &io.groups,
	  0, 0, NULL, NULL },
	{ "--keep", NULL, LAB_OPT_FLAG, NULL, "leave the guests up afterwards", &keep,
	  0, 0, NULL, NULL },
	{ 0 },
};

static int run_interop(struct lab_inst *in, char **args)
{
	int rc;

	(void)in;
	(void)args;
	io.keep = keep;
	if (io.kernel && !lab_kernel_known(io.kernel)) {
		lab_err("interop: --kernel %s is no kernel lab knows (`lab kernels`)", io.kernel);
		return 2;
	}
	if (lab_interop_check(&io) != 0)
		return 2;
	rc = lab_interop(&io);
	lab_phase_summary();
	return rc;
}

static const struct lab_cmd_spec interop_spec = {
	"interop", "",
	"  The NFS interop matrix: the client against every server of the\n"
	"  topology, per version and group (tests/suite.ini [suite interop]);\n"
	"  the clients group also brings up --peer; writes $LAB_HOME/interop/ID/\n"
	"  matrix.txt, .json, .html. Exit 1 when a cell is not a pass.\n",
	interop_opts, 0, 0, false,
};

const struct lab_cmd lab_cmd_interop = {
	&interop_spec, "the NFS interop matrix: servers x versions x groups",
	LAB_NEEDS_NOTHING, run_interop,
};
