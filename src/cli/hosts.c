/* hosts.c - `lab hosts`: what each host of hosts.ini offers, and its lab
 * store filled with the cached files or removed. */
#include "core/hosts.h"
#include "cli/cli.h"
#include "store/store.h"
#include "util/util.h"
#include "virt/virt.h"

#include <libvirt/libvirt.h>
#include <stdio.h>
#include <string.h>

/* ---- lab hosts ---- */

static void show_host(const struct lab_host *x)
{
	virConnectPtr c = lab_virt_open(x->uri);
	unsigned long long free_b;
	unsigned long ver = 0;
	virNodeInfo ni;
	struct lab_store_info si = { 0 };

	if (!c) {
		printf("%-12s %-40s unreachable: %s\n", x->name, x->uri,
		       lab_virt_error());
		return;
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
	c = lab_virt_open(x->uri);
	if (!c) {
		lab_err("cannot reach host %s (%s): %s", x->name, x->uri,
			lab_virt_error());
		return 1;
	}
	if (remove)
		rc = lab_store_remove(c, x->name, x->store) ? 1 : 0;
	else
		rc = lab_store_sync(c, x->name, x->store, kernels) ? 1 : 0;
	virConnectClose(c);
	return rc;
}

static void hosts_usage(void)
{
	fprintf(stderr,
		"usage: lab hosts [--hosts FILE]\n"
		"       lab hosts [--hosts FILE] sync NAME [--kernel baseline|patched|all]\n"
		"       lab hosts [--hosts FILE] clean NAME\n"
		"  Lists the hosts of hosts.ini ($LAB_HOME/hosts.ini, else the local\n"
		"  qemu:///system), what each offers, and its lab store (a libvirt\n"
		"  storage pool). `sync` uploads the cached kernels and image to that\n"
		"  store through the storage API, named by content: a second sync\n"
		"  uploads nothing. `clean` deletes that host's lab store.\n");
}

int cmd_hosts(int argc, char **argv)
{
	const char *file = NULL, *sync = NULL, *kernel = "all";
	bool remove = false;
	const char *both[] = { "baseline", "patched", NULL };
	const char *one[] = { NULL, NULL };
	struct lab_hosts *h;
	int rc = 0, i;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--hosts") == 0 && i + 1 < argc)
			file = argv[++i];
		else if (strcmp(argv[i], "--kernel") == 0 && i + 1 < argc)
			kernel = argv[++i];
		else if ((strcmp(argv[i], "sync") == 0 || strcmp(argv[i], "clean") == 0) &&
			 i + 1 < argc && !sync) {
			remove = argv[i][0] == 'c';
			sync = argv[++i];
		}
		else {
			hosts_usage();
			return 2;
		}
	}
	if (strcmp(kernel, "all") && strcmp(kernel, "baseline") && strcmp(kernel, "patched")) {
		lab_err("--kernel %s: baseline, patched or all", kernel);
		return 2;
	}
	h = lab_hosts_open(file);
	if (!h)
		return 2;
	if (sync) {
		one[0] = kernel;
		rc = hosts_sync(h, sync, strcmp(kernel, "all") ? one : both, remove);
	} else
		for (guint j = 0; j < h->hosts->len; j++)
			show_host(g_ptr_array_index(h->hosts, j));
	lab_hosts_free(h);
	return rc;
}
