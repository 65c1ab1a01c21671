/* hosts.c - `lab hosts`: what each host of hosts.ini offers, and its lab
 * store filled with the cached files or removed. */
#include "cli/cli.h"
#include "core/hosts.h"
#include "guests/instance.h"
#include "store/admin.h"
#include "util/util.h"
#include "virt/conn.h"

#include <libvirt/libvirt.h>
#include <stdio.h>
#include <string.h>

/* ---- lab hosts ---- */

/* 0, or 1 when the host cannot be reached. */
static int show_host(const struct lab_host *x)
{
	virConnectPtr c = lab_virt_open(x->uri);
	unsigned long long free_b;
	unsigned long ver = 0;
	virNodeInfo ni;
	struct lab_store_info si = { 0 };

	if (!c) {
		printf("%-12s %-40s unreachable: %s\n", x->name, x->uri,
		       lab_virt_error());
		return 1;
	}
	virConnectGetLibVersion(c, &ver);
	free_b = virNodeGetFreeMemory(c);
	if (virNodeGetInfo(c, &ni) < 0)
		memset(&ni, 0, sizeof(ni));
	lab_store_info(c, x->store, &si);
	printf("%-12s %-40s libvirt %lu.%lu.%lu, %u CPUs, %llu MiB free; capacity %d guests / %d MiB; "
	       "store %s: %s (%u volumes, %.1f MiB)\n",
	       x->name, x->uri, ver / 1000000, ver / 1000 % 1000, ver % 1000,
	       ni.cpus, free_b >> 20, x->guests, x->memory_mib, x->store,
	       si.exists ? "present" : "not created yet", si.volumes,
	       si.bytes / 1048576.0);
	virConnectClose(c);
	return 0;
}

/* An instance that is up names the store in its state. */
static bool in_use(const struct lab_host *x)
{
	char *text = g_strdup_printf("store=%s\n", x->store);
	bool used = lab_inst_any_uses(text);

	g_free(text);
	return used;
}

static int hosts_sync(struct lab_hosts *h, const char *name,
		      const char *const *kernels, bool remove)
{
	struct lab_host *x = lab_hosts_find(h, name);
	virConnectPtr c;
	int rc;

	if (!x) {
		lab_err("no host '%s' in %s", name, h->path);
		return 2;
	}
	if (remove && in_use(x)) {
		lab_err("host %s: an instance under %s runs on the store %s: `lab down` it "
			"first", x->name, lab_home(), x->store);
		return 1;
	}
	c = lab_virt_open(x->uri);
	if (!c) {
		lab_err("cannot reach host %s (%s): %s", x->name, x->uri,
			lab_virt_error());
		return 1;
	}
	if (remove)
		rc = lab_store_remove(c, x->name, x->store) ? 1 : 0;
	else
		rc = lab_store_sync(c, x->name, x->uri, x->store, kernels) ? 1 : 0;
	virConnectClose(c);
	return rc;
}

static const char *const kernels[] = { "all", "baseline", "patched", NULL };
static const char *hosts_file, *kernel;

static const struct lab_opt hosts_opts[] = {
	{ "--hosts-file", NULL, LAB_OPT_STR, "FILE", "hosts.ini to read (default: $LAB_HOME/hosts.ini)",
	  &hosts_file, 0, 0, NULL, NULL },
	{ "--kernel", NULL, LAB_OPT_STR, "KERNEL", "sync: which kernels", &kernel, 0, 0,
	  kernels, "all" },
	{ 0 },
};

static int run_hosts(struct lab_inst *in, char **args)
{
	const char *both[] = { "baseline", "patched", NULL };
	const char *one[] = { kernel, NULL };
	struct lab_hosts *h;
	int rc = 0;

	(void)in;
	if (args[0] && (!args[1] || args[2] ||
			(strcmp(args[0], "sync") && strcmp(args[0], "clean")))) {
		lab_opts_usage(lab_cmd_hosts.spec, stderr);
		return 2;
	}
	if (!(h = lab_hosts_open(hosts_file)))
		return 2;
	if (args[0])
		rc = hosts_sync(h, args[1], strcmp(kernel, "all") ? one : both,
				!strcmp(args[0], "clean"));
	else
		for (guint j = 0; j < h->hosts->len; j++)
			rc |= show_host(g_ptr_array_index(h->hosts, j));
	lab_hosts_free(h);
	return rc;
}

static const struct lab_cmd_spec hosts_spec = {
	"hosts", "[sync NAME | clean NAME]",
	"  Lists the hosts of hosts.ini (and `local`, this machine), what each\n"
	"  offers and its lab store (a libvirt storage pool); exit 1 when one\n"
	"  cannot be reached. `sync` puts the cached kernels and image into\n"
	"  that store through the storage API, named by content: a second sync\n"
	"  moves nothing. `clean` deletes that host's lab store (lab's volumes\n"
	"  only; not while an instance runs on it).\n",
	hosts_opts, 0, 2, false,
};

const struct lab_cmd lab_cmd_hosts = {
	&hosts_spec, "list the libvirt hosts (hosts.ini); sync the cached files to one",
	LAB_NEEDS_NOTHING, run_hosts,
};
