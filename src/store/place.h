/* place.h - where an instance's files live on a host reached through
 * libvirt: in the host's lab store (store.h), created and filled through
 * the storage API, so nothing is assumed local. An instance on the local
 * default host keeps its files in its instance directory (place NULL). */
#ifndef LAB_PLACE_H
#define LAB_PLACE_H

#include <libvirt/libvirt.h>
#include <glib.h>

struct lab_inst;

struct lab_place {
	virStoragePoolPtr pool;
	char *dir;  /* the store's directory on the host */
	char *host; /* name in hosts.ini */
	char *uri;
};

/* Open the store of a host for an instance; NULL with a message. */
struct lab_place *lab_place_open(virConnectPtr c, const char *host,
				 const char *uri, const char *dir);
/* The place an instance that is up was created in, from its state; NULL
 * when it is local (or on error, with a message: *err set). */
struct lab_place *lab_place_of(struct lab_inst *in, int *err);
void lab_place_free(struct lab_place *pl);

/* Path on the host of a cached file (kernel, image, tests disk), uploaded
 * under its content name when missing. NULL with a message. */
char *lab_place_shared(struct lab_place *pl, const char *kind,
		       const char *local);
/* Path on the host of the instance's own file NAME ("st-smoke-root.qcow2");
 * the name is recorded in the state before anything is created. */
char *lab_place_own(struct lab_place *pl, struct lab_inst *in, const char *name);
/* The instance's qcow2 over BACKING (a path on the host), or a blank one
 * of size_mib when backing is NULL. 0 on success. */
int lab_place_qcow2(struct lab_place *pl, const char *path, const char *backing,
		    int size_mib);
/* Upload a local file to the instance's own volume at PATH (replaced). */
int lab_place_upload(struct lab_place *pl, const char *local, const char *path);
/* Copy the volume at PATH (a console log) to LOCAL; 0 also when it is not
 * there yet (LOCAL is then empty). */
int lab_place_fetch(struct lab_place *pl, const char *path, const char *local);
/* Bring LOCAL up to date with the volume at PATH (a console log that
 * grows): only the new bytes move; the whole log again when it is shorter
 * than LOCAL (a new boot). 0 also when it is not there yet. */
int lab_place_follow(struct lab_place *pl, const char *path, const char *local);
/* Let the pool see volumes libvirtd wrote itself (logs, saved states);
 * waits out this lab's own streams. 0 on success. */
int lab_place_refresh(struct lab_place *pl);
/* NAME is no longer the instance's own (it became shared, e.g. a saved
 * state's disk): `lab down` leaves it. */
int lab_place_disown(struct lab_inst *in, const char *name);
/* Delete the instance's own volumes named in its state. 0 when all gone. */
int lab_place_remove_own(struct lab_place *pl, struct lab_inst *in);

#endif
