/* admin.h - what `lab hosts` does to a host's store. */
#ifndef LAB_ADMIN_H
#define LAB_ADMIN_H

#include <stdbool.h>
#include <libvirt/libvirt.h>

struct lab_store_info {
	bool exists;
	unsigned volumes;
	unsigned long long bytes;
};
/* What the store in DIR holds; exists=false when there is none. */
void lab_store_info(virConnectPtr c, const char *dir, struct lab_store_info *si);
/* Put the named kernels (bzImage) and the guest image; prints a line per
 * file and the totals. 0 on success. */
int lab_store_sync(virConnectPtr c, const char *host, const char *uri,
		   const char *dir, const char *const *kernels);
/* Delete the store in DIR: its lab-named volumes, its directory, its
 * pool. Only a pool with the store's name and path is touched, and a
 * volume lab did not name is left (then the directory stays). 0 when the
 * store is gone. */
/* A volume name lab gives (content names, saved states, an instance's
 * files, markers); `clean` deletes only these. */
bool lab_store_named(const char *name);
int lab_store_remove(virConnectPtr c, const char *host, const char *dir);

#endif
