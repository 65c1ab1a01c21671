/* saved.h - saved ready state: the guests of a topology saved through
 * libvirt (virDomainSaveFlags) at the moment all of them were first ready,
 * with frozen copies of their disks, so that `lab up` and a guest's restart
 * restore memory and disks that belong together in seconds instead of
 * booting for minutes.
 *
 * $LAB_HOME/saved/KEY/ holds per guest NAME.state (QEMU's migration stream
 * plus libvirt's header), NAME-root.qcow2 and NAME-diskN.qcow2 (the frozen
 * overlays, never written again: each restore puts a new overlay on top),
 * NAME-seed.iso, and manifest.ini. KEY hashes everything that shaped the
 * state (see lab_saved_key); a directory appears under its name only when
 * complete (written as KEY.tmp-PID, renamed). */
#ifndef LAB_SAVED_H
#define LAB_SAVED_H

#include <stdbool.h>
#include <libvirt/libvirt.h>
#include <glib.h>

/* Bump when the saved layout or what a ready guest is changes. */
#define LAB_SAVED_FORMAT "lab-saved-1"
/* Default cap of $LAB_HOME/saved in MiB; LAB_SAVED_MAX_MB overrides, 0
 * turns saving off. */
#define LAB_SAVED_MAX_MB_DEFAULT 8192

/* A guest's files in the instance directory. */
struct lab_guest_files {
	char *overlay;      /* root disk: qcow2 over the base or a frozen overlay */
	char *seed;         /* NoCloud seed ISO */
	char *console;      /* serial log */
	GPtrArray *scratch; /* char *: extra disks, NULL-terminated once made */
};

/* What shaped one guest's ready state. The domain XML is the one lab
 * creates the guest from (owner tag left out): it holds the domain and
 * network names, the kernel path (which holds the kernel's key), memory,
 * vCPUs, command line, devices and every disk path. */
struct lab_saved_input {
	const char *guest;
	const char *domain_xml;
	const char *user_data;
	const char *meta_data;
};

/* Hex key over the format, the hypervisor's versions, the base image
 * path (which holds the image key), the networks and every guest's input.
 * Pure: the unit tests pin what changes it and what does not. */
char *lab_saved_key(const char *versions, const char *image,
		    const char *networks, const struct lab_saved_input *guests,
		    guint n);
/* "libvirt 9000000 qemu 7002000 type qemu": part of the key, so a state
 * saved by another libvirt or QEMU is never restored. */
char *lab_saved_versions(virConnectPtr c, const char *domain_type);

char *lab_saved_dir(const char *key);
/* The cap in MiB (LAB_SAVED_MAX_MB or the default); 0: saving off. */
long lab_saved_cap_mib(void);

/* NULL when DIR holds a complete saved state for these guests, else why
 * not (missing, truncated state file, missing frozen disk, other format);
 * *absent is set when there is simply nothing saved. */
char *lab_saved_check(const char *dir, char **guests, bool *absent);
/* Remove a saved state (a corrupt one, or for `lab up --fresh`). */
void lab_saved_discard(const char *dir, const char *why);

/* One guest of a save or restore. */
struct lab_saved_guest {
	const char *guest;          /* topology name */
	const char *domain;         /* libvirt name */
	const char *xml;            /* domain XML with the owner tag */
	struct lab_guest_files *f;  /* its files in the instance directory */
	double boot_s;              /* seconds to ready on the fresh boot */
};

/* Pause every guest (one consistent point: all ready, nothing mounted),
 * save each, move their disks into a new saved state at DIR and commit it.
 * On success every domain is stopped (restore them with
 * lab_saved_restore). On failure the guests run on as before and nothing
 * is left in the cache; -1 with the reason printed. */
int lab_saved_save(virConnectPtr c, const char *dir, const char *topology,
		   struct lab_saved_guest *gs, guint n);
/* Restore one guest from DIR: a new overlay on the frozen disks, the seed,
 * then virDomainRestoreFlags with its XML (same name and UUID as saved, so
 * libvirt accepts it; console and owner tag are this run's). The guest
 * runs when 0 is returned; the caller sets its clock and pings it. */
int lab_saved_restore(virConnectPtr c, const char *dir,
		      const struct lab_saved_guest *g);
/* Pause every guest for a consistent save; the number paused (n: all). */
int lab_saved_pause_all(virConnectPtr c, struct lab_saved_guest *gs, guint n);
/* XML for virDomainRestoreFlags: XML with the UUID that the state file
 * STATE (a path on the guests' host) was saved under. NULL with a message. */
char *lab_saved_xml_for(virConnectPtr c, const char *state, const char *xml);
/* Evict least recently used saved states (never KEEP, never one an
 * instance uses) until the total fits the cap. */
void lab_saved_enforce_cap(const char *keep);
/* An instance under $LAB_HOME/instances names DIR in its state. */
bool lab_saved_in_use(const char *dir);

#endif
