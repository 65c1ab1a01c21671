/* store.h - a host's lab store: one libvirt storage pool (a directory on
 * that host) holding the cached kernels and image under content names,
 * filled through the storage API so a remote host needs nothing of lab. */
#ifndef LAB_STORE_H
#define LAB_STORE_H

#include <stdbool.h>
#include <libvirt/libvirt.h>

/* The pool of the store in DIR: "lab-store-" + a hash of DIR, so stores in
 * different directories of one host never share (or take over) a pool. */
char *lab_store_pool_name(const char *dir);

struct lab_store_info {
	bool exists;
	unsigned volumes;
	unsigned long long bytes;
};

struct lab_store_stats {
	unsigned uploaded, present;
	unsigned long long bytes; /* uploaded */
	double seconds;           /* spent uploading */
};

/* What the host's store holds; exists=false when there is none. */
void lab_store_info(virConnectPtr c, const char *dir, struct lab_store_info *si);
/* The store pool on that host, defined and started in DIR when missing;
 * NULL with a message when a pool of that name points elsewhere. */
virStoragePoolPtr lab_store_pool(virConnectPtr c, const char *dir);
/* Upload LOCAL as volume NAME unless a complete copy is there (a NAME.ok
 * marker volume is written after the last byte); a half upload is
 * deleted first. 0 on success. */
int lab_store_put(virStoragePoolPtr pool, const char *local, const char *name,
		  struct lab_store_stats *st);
/* The store holds volume NAME (as the pool last saw it). */
bool lab_store_has(virStoragePoolPtr pool, const char *name);
/* Write NAME.ok: NAME (or the set NAME stands for) is complete. */
int lab_store_mark(virStoragePoolPtr pool, const char *name);
/* Delete volume NAME of the store if it is there. */
void lab_store_drop(virStoragePoolPtr pool, const char *name);
/* Content name of a cached file: KIND-KEY-BASENAME from its cache dir. */
char *lab_store_name(const char *kind, const char *path);
/* Upload the named kernels (bzImage) and the guest image; prints a line
 * per file and the totals. 0 on success. */
int lab_store_sync(virConnectPtr c, const char *host, const char *dir,
		   const char *const *kernels);
/* Delete the store in DIR: its volumes, its directory, its pool. Only a
 * pool with the store's name and path is touched. 0 when none is left. */
int lab_store_remove(virConnectPtr c, const char *host, const char *dir);

#endif
