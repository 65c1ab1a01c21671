/* topology.h - topologies/NAME.ini: guests, roles, networks (GKeyFile). */
#ifndef LAB_TOPOLOGY_H
#define LAB_TOPOLOGY_H

#include <glib.h>

struct lab_guest {
	char *name;
	char *role;
	int vcpus;
	int memory_mib;
	char *kernel;   /* "baseline" or "patched" */
	char *cmdline;  /* extra kernel command line, may be "" */
	char **devices; /* e.g. "intel-hda" */
	int *disks_mib; /* extra scratch disks, 0-terminated */
	char *network;
	char *address;  /* "169.254.10.1/16" */
};

struct lab_network {
	char *name;
};

struct lab_topology {
	char *name;
	char *path;
	char *description;
	GPtrArray *guests;   /* struct lab_guest * */
	GPtrArray *networks; /* struct lab_network * */
};

/* Parse and validate; on error return NULL and set *err to a message that
 * names the file, line and key. host_mem_mib 0 skips the memory check. */
struct lab_topology *lab_topology_load(const char *path, long host_mem_mib,
				       char **err);
/* Resolve, load and check against this host's memory; NULL after printing
 * the error (file:line: [group] key: why). */
struct lab_topology *lab_topology_open(const char *name_or_path);
/* Resolve NAME to topologies/NAME.ini (or take a path as it is). */
char *lab_topology_path(const char *name_or_path);
void lab_topology_free(struct lab_topology *t);
/* Override every guest's kernel ("baseline"/"patched"). */
void lab_topology_set_kernel(struct lab_topology *t, const char *kernel);
struct lab_guest *lab_topology_guest(struct lab_topology *t, const char *name);

extern const char *const lab_known_roles[];

#endif
