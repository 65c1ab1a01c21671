/* topology.h - topologies/NAME.ini: guests, roles, networks (GKeyFile). */
#ifndef LAB_TOPOLOGY_H
#define LAB_TOPOLOGY_H

#include <glib.h>

struct lab_guest {
	char *name;
	char *role;
	int vcpus;
	int memory_mib; /* MiB, 256..16384 */
	char *kernel;   /* "baseline" or "patched" */
	char *cmdline;  /* extra kernel command line, may be "" */
	char **devices; /* e.g. "intel-hda" */
	int *disks_mib; /* extra scratch disks (MiB), 0-terminated, at most 8 */
	char *network;
	char *address;  /* "169.254.10.1/16" */
	char *export;   /* nfs-server: "sync" (default) or "async" */
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

/* Parse and validate; on error return NULL and set *err to a message
 * "FILE:LINE: [GROUP] KEY: why". host_mem_mib 0 skips the memory check,
 * host_cpus 0 the vCPU check (at most 4 vCPUs per host CPU). */
struct lab_topology *lab_topology_load_host(const char *path,
					    long host_mem_mib, int host_cpus,
					    char **err);
/* The same without the vCPU check. */
struct lab_topology *lab_topology_load(const char *path, long host_mem_mib,
				       char **err);
/* Resolve, load and check against this host's memory and CPUs; NULL after
 * printing the error (file:line: [group] key: why). */
struct lab_topology *lab_topology_open(const char *name_or_path);
/* The names of the topologies/ files (NAME.ini), sorted, comma-separated. */
char *lab_topology_names(void);
/* Resolve NAME to topologies/NAME.ini (or take a path as it is). */
char *lab_topology_path(const char *name_or_path);
void lab_topology_free(struct lab_topology *t);
/* Override every guest's kernel ("baseline"/"patched"). */
void lab_topology_set_kernel(struct lab_topology *t, const char *kernel);
struct lab_guest *lab_topology_guest(struct lab_topology *t, const char *name);
struct lab_network *lab_topology_network(struct lab_topology *t,
					 const char *name);
/* A summary: guests, networks, vCPUs and memory (lab check-topology). */
void lab_topology_print(const struct lab_topology *t);

extern const char *const lab_known_roles[];

#endif
